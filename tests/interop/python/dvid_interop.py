"""DVID labelmap interop: a numpy codec written from the spec
(docs/formats/dvid.md, "Compressed label block" and "Stored values"),
independent of chunkwise's C++, checks what `chunkwise dvid` stores, and
chunkwise reads blocks it encodes.

- The reference decoder reproduces DVID's own test block (fib19), so it is right.
- Blocks ingested by chunkwise, fetched as stored values (0x40 + gzip), are
  gunzipped by Python's gzip and decoded by the reference decoder.
- Blocks encoded by the reference encoder (another label order, repeated
  labels, empty sub-block palettes) are stored with put-block and read back.
- Scale 1 matches numpy's 2x2x2 mode (ties to the smaller label); mapped reads
  match numpy's mapping; bad inputs exit 1 with a clear message.

usage: /usr/bin/python3 dvid_interop.py --chunkwise build/chunkwise --workdir DIR [--testdata DIR]
"""
import argparse
import gzip
import pathlib
import shutil
import struct

import numpy as np

from interop_check import Checks, run


def decode_block(buf):
    """DVID compressed label block -> uint64 array (z, y, x), per the spec's pseudocode."""
    gx, gy, gz, n = struct.unpack_from("<4I", buf, 0)
    labels = np.frombuffer(buf, "<u8", n, 16)
    out = np.zeros((gz * 8, gy * 8, gx * 8), np.uint64)
    if n <= 1:
        out[:] = labels[0] if n else 0
        assert len(buf) == 16 + 8 * n
        return out
    p = 16 + 8 * n
    counts = np.frombuffer(buf, "<u2", gx * gy * gz, p)
    p += 2 * len(counts)
    indices = np.frombuffer(buf, "<u4", int(counts.sum()), p)
    p += 4 * len(indices)
    start = 0
    for k, count in enumerate(counts):
        sz, sy, sx = k // (gx * gy), (k // gx) % gy, k % gx
        view = out[sz * 8:sz * 8 + 8, sy * 8:sy * 8 + 8, sx * 8:sx * 8 + 8]
        if count == 0:
            view[:] = 0
        elif count == 1:
            view[:] = labels[indices[start]]
        else:
            bits = int(count - 1).bit_length()
            packed = np.unpackbits(np.frombuffer(buf, np.uint8, 64 * bits, p))  # MSB first
            values = packed.reshape(512, bits).dot(1 << np.arange(bits - 1, -1, -1))
            assert values.max() < count
            view[:] = labels[indices[start + values]].reshape(8, 8, 8)
            p += 64 * bits
        start += count
    assert p == len(buf), "decoder must consume every byte"
    return out


def encode_block(volume, duplicate_label=False):
    """A conforming but non-canonical encoding: block labels in descending order (plus a
    repeated one), sub-block palettes sorted, zero-only sub-blocks written with n = 0."""
    gz, gy, gx = (d // 8 for d in volume.shape)
    uniq = sorted(set(int(v) for v in np.unique(volume)) - {0}, reverse=True) or [0]
    labels = uniq + ([uniq[0]] if duplicate_label else [])
    where = {label: i for i, label in enumerate(uniq)}
    counts, indices, packed = [], [], b""
    for sz in range(gz):
        for sy in range(gy):
            for sx in range(gx):
                sub = volume[sz * 8:sz * 8 + 8, sy * 8:sy * 8 + 8, sx * 8:sx * 8 + 8].ravel()
                palette = sorted(set(int(v) for v in sub))
                if palette == [0] and 0 not in where:
                    counts.append(0)
                    continue
                if 0 in palette and 0 not in where:
                    where[0] = len(labels)
                    labels.append(0)
                counts.append(len(palette))
                indices += [where[v] for v in palette]
                if len(palette) >= 2:
                    bits = (len(palette) - 1).bit_length()
                    local = np.searchsorted(palette, sub)
                    bit_matrix = (local[:, None] >> np.arange(bits - 1, -1, -1)) & 1
                    packed += np.packbits(bit_matrix.astype(np.uint8).ravel()).tobytes()
    return (struct.pack("<4I", gx, gy, gz, len(labels)) + np.array(labels, "<u8").tobytes() +
            np.array(counts, "<u2").tobytes() + np.array(indices, "<u4").tobytes() + packed)


def mode_downsample(volume):
    z, y, x = (d // 2 for d in volume.shape)
    groups = volume[:2 * z, :2 * y, :2 * x].reshape(z, 2, y, 2, x, 2).transpose(0, 2, 4, 1, 3, 5).reshape(-1, 8)
    out = np.empty(len(groups), np.uint64)
    for i, group in enumerate(groups):
        values, counts = np.unique(group, return_counts=True)  # values ascending: argmax picks the smaller
        out[i] = values[np.argmax(counts)]
    return out.reshape(z, y, x)


def segments(shape, seed):
    rng = np.random.default_rng(seed)
    z, y, x = np.indices(shape)
    volume = ((z // 9) * 1000 + (y // 13) * 37 + (x // 21) + 1).astype(np.uint64) * 7919
    noise = rng.random(shape) < 0.05
    volume[noise] = rng.integers(0, 4, noise.sum())
    return volume


def cli(binary, *args, ok=True):
    """Runs chunkwise; a "--quiet" among the arguments moves to the front, where the flag belongs."""
    quiet = ["--quiet"] if "--quiet" in args else []
    return run([binary, *quiet, *(a for a in args if a != "--quiet")], expect_success=ok)


def padded(volume, offset):
    """The volume placed in its covering blocks (zeros around), and the first block's coordinate."""
    lo = [o // 64 for o in offset]
    hi = [-(-(o + s) // 64) for o, s in zip(offset, volume.shape)]
    full = np.zeros([(h - l) * 64 for l, h in zip(lo, hi)], np.uint64)
    at = [o - l * 64 for o, l in zip(offset, lo)]
    full[at[0]:at[0] + volume.shape[0], at[1]:at[1] + volume.shape[1], at[2]:at[2] + volume.shape[2]] = volume
    return full, lo, hi


def check_reference_decoder(checks, testdata):
    block = gzip.decompress((testdata / "fib19-64x64x64-sample1-block.dat.gz").read_bytes())
    volume = np.frombuffer(gzip.decompress((testdata / "fib19-64x64x64-sample1.dat.gz").read_bytes()), "<u8")
    checks.expect(np.array_equal(decode_block(block).ravel(), volume), "reference decoder reproduces DVID's fib19 block")


def check_ingested_blocks(checks, binary, work, volume, offset):
    db = work / "db"
    cli(binary, "dvid", "ingest", db, "--input", work / "volume.npy", "--offset", ",".join(map(str, offset)),
        "--scales", "1", "--quiet")
    full, lo, hi = padded(volume, offset)
    matched, total = 0, 0
    for bz in range(lo[0], hi[0]):
        for by in range(lo[1], hi[1]):
            for bx in range(lo[2], hi[2]):
                out = work / f"block_{bz}_{by}_{bx}.val"
                cli(binary, "dvid", "get-block", db, "--block", f"{bz},{by},{bx}", "--stored", "--output", out,
                    "--overwrite", "--quiet")
                stored = out.read_bytes()
                block = gzip.decompress(stored[1:])
                gx, gy, gz, n = struct.unpack_from("<4I", block, 0)
                ok = stored[0] == 0x40 and (gx, gy, gz) == (8, 8, 8) and n >= 1
                ok = ok and (n > 1 or len(block) == 24)
                expected = full[(bz - lo[0]) * 64:(bz - lo[0] + 1) * 64, (by - lo[1]) * 64:(by - lo[1] + 1) * 64,
                                (bx - lo[2]) * 64:(bx - lo[2] + 1) * 64]
                matched += ok and np.array_equal(decode_block(block), expected)
                total += 1
    checks.expect(matched == total, f"{matched}/{total} stored blocks: 0x40 + gzip, decoded by the reference decoder")
    return db


def check_scale_one(checks, binary, work, db, volume, offset):
    full, lo, _ = padded(volume, offset)
    origin = [l * 64 for l in lo]
    out = work / "s1.npy"
    shape = [d // 2 for d in full.shape]
    cli(binary, "dvid", "read", db, "--output", out, "--scale", "1", "--offset",
        ",".join(str(o // 2) for o in origin), "--shape", ",".join(map(str, shape)), "--overwrite", "--quiet")
    checks.expect(np.array_equal(np.load(out), mode_downsample(full)), "scale 1 is numpy's 2x2x2 mode (ties to smaller)")


def check_python_blocks(checks, binary, work):
    db = work / "db_python"
    rng = np.random.default_rng(3)
    expected = {}
    for i, (coord, dup) in enumerate([((0, 0, 0), False), ((0, 0, 1), True), ((-1, 2, 0), False)]):
        volume = segments((64, 64, 64), 10 + i)
        volume[:, :, :16] = 0  # zero-only sub-blocks get empty palettes
        volume[5, 5, 5:40] = rng.integers(1, 1 << 62, 35).astype(np.uint64)  # many labels in a few sub-blocks
        block = encode_block(volume, duplicate_label=dup)
        checks.expect(np.array_equal(decode_block(block), volume), f"reference encoder round-trips block {coord}")
        path = work / f"py_{i}.dat"
        path.write_bytes(gzip.compress(block) if dup else block)
        cli(binary, "dvid", "put-block", db, "--block", ",".join(map(str, coord)), "--input", path, "--quiet")
        expected[coord] = volume
    for coord, volume in expected.items():
        out = work / "py_read.npy"
        cli(binary, "dvid", "read", db, "--output", out, "--offset", ",".join(str(c * 64) for c in coord),
            "--shape", "64,64,64", "--overwrite", "--quiet")
        checks.expect(np.array_equal(np.load(out), volume), f"chunkwise reads Python-encoded block {coord}")


def check_mapping(checks, binary, work, db, volume, offset):
    cli(binary, "dvid", "commit", db, "--quiet")
    cli(binary, "dvid", "branch", db, "--parent", "1", "--note", "proofreading", "--quiet")
    ids = np.unique(volume)
    sv = ids[ids != 0][:6]
    pairs = np.array([[sv[0], 500], [sv[1], 500], [sv[2], 0]], "<u8")
    pairs.tofile(work / "pairs.bin")
    (work / "more.csv").write_text(f"supervoxel,label\n{sv[3]},500\n")
    cli(binary, "dvid", "map", db, "--pairs", work / "pairs.bin", "--quiet")
    cli(binary, "dvid", "map", db, "--pairs", work / "more.csv", "--quiet")
    out = work / "mapped.npy"
    region = ["--offset", ",".join(map(str, offset)), "--shape", ",".join(map(str, volume.shape))]
    cli(binary, "dvid", "read", db, "--output", out, "--mapped", *region, "--overwrite", "--quiet")
    expected = volume.copy()
    for s, label in [(sv[0], 500), (sv[1], 500), (sv[2], 0), (sv[3], 500)]:
        expected[volume == s] = label
    checks.expect(np.array_equal(np.load(out), expected), "mapped read: merges to 500, split supervoxel to 0")
    cli(binary, "dvid", "read", db, "--output", out, "--mapped", "--version", "1", *region, "--overwrite", "--quiet")
    checks.expect(np.array_equal(np.load(out), volume), "version 1 has no mapping: supervoxels unchanged")
    info = cli(binary, "dvid", "info", db).stdout
    checks.expect("version 2 (parent 1) open: proofreading" in info and "4 mapping entries" in info,
                  "info lists versions and mapping entries")


def check_errors(checks, binary, work, db):
    bad = work / "bad.bin"
    bad.write_bytes(b"\0" * 17)
    result = cli(binary, "dvid", "map", db, "--pairs", bad, ok=False)
    checks.expect(result.returncode == 1 and "bad.bin" in result.stderr and "16-byte" in result.stderr,
                  "a pairs file of 17 bytes is refused naming it")
    truncated = work / "truncated.dat"
    truncated.write_bytes(encode_block(segments((64, 64, 64), 1))[:-5])
    result = cli(binary, "dvid", "put-block", db, "--block", "9,9,9", "--input", truncated, ok=False)
    checks.expect(result.returncode == 1 and "truncated" in result.stderr, "a truncated block is refused")
    result = cli(binary, "dvid", "ingest", db, "--input", work / "volume.npy", "--version", "1", ok=False)
    checks.expect(result.returncode == 1 and "committed" in result.stderr, "writing a committed version is refused")
    result = cli(binary, "dvid", "info", work / "missing", ok=False)
    checks.expect(result.returncode == 1 and "missing" in result.stderr, "info on a missing database names it")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunkwise", required=True)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--testdata", default=str(pathlib.Path(__file__).resolve().parents[4] / "shared/testdata/dvid"))
    args = parser.parse_args()
    work = pathlib.Path(args.workdir)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    checks = Checks()
    check_reference_decoder(checks, pathlib.Path(args.testdata))
    volume, offset = segments((90, 100, 150), 1), (-20, 30, 50)
    np.save(work / "volume.npy", volume)
    db = check_ingested_blocks(checks, args.chunkwise, work, volume, offset)
    check_scale_one(checks, args.chunkwise, work, db, volume, offset)
    check_python_blocks(checks, args.chunkwise, work)
    check_mapping(checks, args.chunkwise, work, db, volume, offset)
    check_errors(checks, args.chunkwise, work, db)
    checks.finish()


if __name__ == "__main__":
    main()
