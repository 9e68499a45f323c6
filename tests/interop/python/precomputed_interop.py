"""neuroglancer precomputed interop: TensorStore's neuroglancer_precomputed
driver (the pinned .venv) reads everything chunkwise writes, and chunkwise
reads what TensorStore writes.

- zarr to-precomputed: a uint64 segmentation and a uint16 image (sizes that
  leave cut chunks at every upper edge) converted unsharded, sharded with the
  identity hash and with murmurhash3_x86_128, compressed_segmentation and raw,
  3 scales; TensorStore reads every scale equal to the source (scale 0) and to
  numpy's 2x mode / mean of the scale before.
- dvid to-precomputed: the segmentation ingested into a DVID labelmap with a
  merge mapping, exported (IPC file + rec index, identity; IPC stream +
  offsets index, murmurhash3), converted mapped and --supervoxels; TensorStore
  reads every scale equal to `dvid read` (--mapped). --resume keeps complete
  shards and redoes a missing one; an existing DEST is refused.
- TensorStore writes (sharded both hashes, unsharded, compressed_segmentation
  uint64/uint32 and raw, two scales, a voxel_offset), `precomputed read` reads.
- The male CNS spec (testdata/dvid/mcns-ng-specs.json): synthetic blocks
  across a shard boundary and at the volume's far corner (cut chunks),
  2 scales, exported and converted; TensorStore writes the same voxels with the
  same info; the two hold the same shard files, the same chunk ids per shard,
  and every chunk decodes (TensorStore) equal.
- Bad input: a truncated shard, a minishard index past the end, a
  compressed_segmentation block with an out-of-range table offset (unsharded
  chunk and inside a shard) exit 1 naming the shard or chunk file.
- `chunkwise serve`: Range, HEAD, OPTIONS, CORS headers, 404/416, and
  TensorStore reading a sharded volume through its http kvstore.

usage: .venv/bin/python precomputed_interop.py --chunkwise build/chunkwise --workdir DIR
           --testdata ../shared/testdata/dvid
(--testdata: CI's shared DVID test data; only mcns-ng-specs.json, DVID's
neuroglancer spec for the male CNS, is read.)
"""
import argparse
import gzip
import json
import pathlib
import re
import shutil
import struct
import subprocess
import sys
import urllib.request

import numpy as np
import tensorstore as ts

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from interop_check import Checks, run  # noqa: E402

SHAPE = (40, 50, 70)  # z, y, x: chunks of 32 are cut at every upper edge.


def cli(binary, *args, ok=True):
    return run([binary, "--quiet", *args], expect_success=ok)


def labels(shape, seed=3):
    z, y, x = np.ogrid[0:shape[0], 0:shape[1], 0:shape[2]]
    v = ((z + 3 * np.sin(x / 7.0)).astype(np.int64) // 6) * 10007 + (y // 9) * 101 + x // 11 + 1
    v = v.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15 % (1 << 40))
    v[:8, :8, :8] = 0
    return v


def image(shape):
    z, y, x = np.ogrid[0:shape[0], 0:shape[1], 0:shape[2]]
    return ((x * 900 + y * 37 + z * 11) % 65535).astype(np.uint16)


def halve(a, mode):
    """numpy's 2x downsampling: mode (ties to the smaller) or mean (halves to even, as
    chunkwise rounds), cut edges kept."""
    shape = tuple(-(-n // 2) for n in a.shape)
    out = np.zeros(shape, a.dtype)
    for z in range(shape[0]):
        for y in range(shape[1]):
            block = a[2 * z:2 * z + 2, 2 * y:2 * y + 2]
            for x in range(shape[2]):
                g = block[:, :, 2 * x:2 * x + 2].ravel()
                if mode:
                    values, counts = np.unique(g, return_counts=True)
                    out[z, y, x] = values[np.argmax(counts)]  # unique sorts: ties go to the smaller
                else:
                    out[z, y, x] = np.round(g.astype(np.float64).mean())
    return out


def ts_read(path_or_url, scale):
    kvstore = ({"driver": "http", "base_url": path_or_url} if str(path_or_url).startswith("http")
               else {"driver": "file", "path": str(path_or_url) + "/"})
    store = ts.open({"driver": "neuroglancer_precomputed", "kvstore": kvstore, "scale_index": scale,
                     "open": True}).result()
    return np.asarray(store.read().result())[..., 0].transpose(2, 1, 0)  # x,y,z → z,y,x


def sharding(preshift, minishard, shard, hash_name="identity", data="gzip"):
    return {"@type": "neuroglancer_uint64_sharded_v1", "preshift_bits": preshift, "minishard_bits": minishard,
            "shard_bits": shard, "hash": hash_name, "minishard_index_encoding": "gzip", "data_encoding": data}


def make_zarr(binary, work, name, array, chunk="16,16,16"):
    npy = work / f"{name}.npy"
    np.save(npy, array)
    path = work / name
    cli(binary, "zarr", "create", path, "--shape", ",".join(map(str, array.shape)), "--dtype", str(array.dtype),
        "--chunk", chunk, "--codec", "zstd:3")
    cli(binary, "zarr", "write", path, "--input", npy)
    return path


def check_zarr_conversions(checks, binary, work):
    seg, img = labels(SHAPE), image(SHAPE)
    seg_zarr = make_zarr(binary, work, "seg.zarr", seg)
    img_zarr = make_zarr(binary, work, "img.zarr", img)
    expected = {"seg": [seg], "img": [img]}
    for _ in range(2):
        expected["seg"].append(halve(expected["seg"][-1], True))
        expected["img"].append(halve(expected["img"][-1], False))
    cases = [
        ("seg-unsharded", seg_zarr, "seg", []),
        ("seg-identity", seg_zarr, "seg", ["--sharded"]),
        ("seg-murmur", seg_zarr, "seg", ["--sharding", json.dumps(sharding(1, 1, 2, "murmurhash3_x86_128"))]),
        ("seg-raw-murmur", seg_zarr, "seg", ["--encoding", "raw", "--sharding",
                                             json.dumps(sharding(0, 2, 1, "murmurhash3_x86_128", "raw"))]),
        ("img-unsharded", img_zarr, "img", []),
        ("img-murmur", img_zarr, "img", ["--sharding", json.dumps(sharding(0, 1, 2, "murmurhash3_x86_128"))]),
    ]
    for name, source, kind, flags in cases:
        dest = work / name
        cli(binary, "zarr", "to-precomputed", source, dest, "--chunk", "32,32,32", "--scales", "3",
            "--resolution", "8,8,8", *flags)
        for s in range(3):
            got = ts_read(dest, s)
            checks.expect(got.shape == expected[kind][s].shape and np.array_equal(got, expected[kind][s]),
                          f"zarr to-precomputed {name}: TensorStore reads scale {s} {got.shape} equal")
    return work / "seg-identity"


def ingest(binary, work, volume, mapping):
    db = work / "db"
    np.save(work / "dvid-volume.npy", volume)
    cli(binary, "dvid", "ingest", db, "--input", work / "dvid-volume.npy", "--scales", "2")
    pairs = work / "pairs.csv"
    pairs.write_text("".join(f"{k},{v}\n" for k, v in mapping.items()))
    cli(binary, "dvid", "map", db, "--pairs", pairs)
    return db


def dvid_spec(shape, hash_name, preshift, minishard, shard):
    scales = []
    for s in range(3):
        size = [-(-n // (1 << s)) for n in (shape[2], shape[1], shape[0])]
        scales.append({"key": f"{8 << s}nm", "size": size, "resolution": [8 << s] * 3, "chunk_sizes": [[64] * 3],
                       "encoding": "compressed_segmentation",
                       "sharding": {"@type": "neuroglancer_uint64_sharded_v1", "preshift_bits": preshift,
                                    "hash": hash_name, "minishard_bits": minishard, "shard_bits": shard,
                                    "minishard_index_encoding": "gzip"}})
    return {"@type": "neuroglancer_multiscale_volume", "type": "segmentation", "data_type": "uint64",
            "num_channels": 1, "scales": scales}


def check_dvid_conversions(checks, binary, work):
    shape = (150, 140, 200)  # z, y, x: edge blocks cut in every axis
    volume = labels(shape)
    ids = [int(v) for v in np.unique(volume)[1:40]]
    mapping = {sv: 5_000_000 + i % 7 for i, sv in enumerate(ids)}
    db = ingest(binary, work, volume, mapping)
    expected = {}
    for s in range(3):
        scale_shape = [-(-n // (1 << s)) for n in shape]
        for mapped in (True, False):
            out = work / f"dvid-read-{s}-{mapped}.npy"
            cli(binary, "dvid", "read", db, "--shape", ",".join(map(str, scale_shape)), "--scale", s,
                "--output", out, "--overwrite", *(["--mapped"] if mapped else []))
            expected[(s, mapped)] = np.load(out)
    exports = [("file-identity", "identity", 0, 1, 3, []),
               ("stream-murmur", "murmurhash3_x86_128", 0, 2, 2, ["--arrow-format", "stream", "--index", "offsets"])]
    converted = None
    for name, hash_name, preshift, minishard, shard, flags in exports:
        spec_path = work / f"{name}-spec.json"
        spec_path.write_text(json.dumps(dvid_spec(shape, hash_name, preshift, minishard, shard)))
        export = work / f"export-{name}"
        cli(binary, "dvid", "export-shards", db, spec_path, export, "--workers", "2", *flags)
        for supervoxels in (False, True):
            dest = work / f"pc-{name}{'-sv' if supervoxels else ''}"
            cli(binary, "dvid", "to-precomputed", export, dest, "--threads", "2",
                *(["--supervoxels"] if supervoxels else []))
            for s in range(3):
                got = ts_read(dest, s)
                want = expected[(s, not supervoxels)]
                checks.expect(np.array_equal(got, want),
                              f"dvid to-precomputed {name}{' --supervoxels' if supervoxels else ''}: "
                              f"TensorStore reads scale {s} {got.shape} = dvid read")
            converted = converted or dest
    # Restartable: a shard removed comes back with --resume; the others are kept.
    dest = work / "pc-file-identity"
    export = work / "export-file-identity"
    shards = sorted((dest / "8nm").glob("*.shard"))
    shards[0].unlink()
    refused = cli(binary, "dvid", "to-precomputed", export, dest, ok=False)
    checks.expect(refused.returncode == 1 and "exists already" in refused.stderr and "--resume" in refused.stderr,
                  f"to-precomputed refuses an existing DEST: {refused.stderr.strip()}")
    resumed = run([binary, "dvid", "to-precomputed", export, dest, "--resume"]).stdout
    written = re.search(r"total: \d+ Arrow shards; (\d+) shards written, (\d+) kept", resumed)
    checks.expect(written is not None and written.group(1) == "1" and int(written.group(2)) > 0,
                  f"--resume rewrites the missing shard and keeps the rest ({written.group(0) if written else resumed})")
    checks.expect(np.array_equal(ts_read(dest, 0), expected[(0, True)]), "after --resume TensorStore reads scale 0 equal")
    return converted


def ts_open_scale(path, scale):
    return ts.open({"driver": "neuroglancer_precomputed", "kvstore": {"driver": "file", "path": str(path) + "/"},
                    "scale_index": scale, "open": True}).result()


def write_info(path, info):
    path.mkdir(parents=True, exist_ok=True)
    (path / "info").write_text(json.dumps(info))


def check_reading_tensorstore(checks, binary, work):
    seg = labels(SHAPE)
    img = image(SHAPE)
    cases = [
        ("ts-identity", "uint64", "compressed_segmentation", sharding(1, 1, 2), [0, 0, 0]),
        ("ts-murmur", "uint64", "compressed_segmentation", sharding(0, 2, 2, "murmurhash3_x86_128"), [0, 0, 0]),
        ("ts-unsharded-u32", "uint32", "compressed_segmentation", None, [5, -3, 2]),
        ("ts-raw-u16", "uint16", "raw", sharding(0, 1, 1, "murmurhash3_x86_128"), [0, 0, 0]),
        ("ts-raw-unsharded", "uint16", "raw", None, [3, 0, 0]),
    ]
    for name, dtype, encoding, shard_spec, offset in cases:
        data = [img if dtype == "uint16" else seg.astype(dtype)]
        data.append(data[0][::2, ::2, ::2].copy())
        scales = []
        for s in range(2):
            scale = {"key": f"s{s}", "size": list(reversed(data[s].shape)), "resolution": [8 << s] * 3,
                     "voxel_offset": offset, "chunk_sizes": [[32, 16, 24]], "encoding": encoding}
            if encoding == "compressed_segmentation":
                scale["compressed_segmentation_block_size"] = [8, 4, 6]
            if shard_spec:
                scale["sharding"] = shard_spec
            scales.append(scale)
        path = work / name
        write_info(path, {"@type": "neuroglancer_multiscale_volume", "type": "segmentation" if dtype != "uint16"
                          else "image", "data_type": dtype, "num_channels": 1, "scales": scales})
        for s in range(2):
            store = ts_open_scale(path, s)
            store[..., 0] = data[s].transpose(2, 1, 0)
            out = work / f"{name}-{s}.npy"
            cli(binary, "precomputed", "read", path, "--scale", s, "--output", out, "--overwrite")
            got = np.load(out)
            checks.expect(got.dtype == data[s].dtype and np.array_equal(got, data[s]),
                          f"precomputed read of TensorStore's {name} scale {s} {got.shape} equal")
        box = work / f"{name}-box.npy"
        cli(binary, "precomputed", "read", path, "--region", "3:37,10:45,1:69", "--output", box, "--overwrite")
        checks.expect(np.array_equal(np.load(box), data[0][3:37, 10:45, 1:69]),
                      f"precomputed read of TensorStore's {name}: an unaligned box")
    info = cli(binary, "precomputed", "info", work / "ts-identity").stdout
    checks.expect("segmentation, uint64" in info and "sharded (preshift 1, minishard 1, shard 2, identity)" in info,
                  "precomputed info describes TensorStore's volume")


def shard_chunks(path):
    """{chunk id: (offset, size)} of a shard file, read with the format's own arithmetic."""
    data = path.read_bytes()
    return data


def list_shard(data, minishard_bits, gzip_index=True):
    index_end = 16 << minishard_bits
    ids = {}
    for m in range(1 << minishard_bits):
        start, end = struct.unpack_from("<QQ", data, 16 * m)
        if start == end:
            continue
        raw = data[index_end + start:index_end + end]
        if gzip_index:
            raw = gzip.decompress(raw)
        table = np.frombuffer(raw, "<u8").reshape(3, -1)
        chunk_ids = np.cumsum(table[0])
        position = index_end
        for cid, delta, size in zip(chunk_ids, table[1], table[2]):
            position += int(delta)
            ids[int(cid)] = (position, int(size))
            position += int(size)
    return ids


def check_mcns(checks, binary, work, testdata):
    spec = json.loads((testdata / "mcns-ng-specs.json").read_text())
    spec["scales"] = spec["scales"][:2]
    spec_path = work / "mcns-spec.json"
    spec_path.write_text(json.dumps(spec))
    db = work / "mcns-db"
    size = spec["scales"][0]["size"]  # x, y, z
    # Blocks across the first shard boundary in x (shards are 32³ chunks) and
    # at the far corner, where chunks are cut to 8 x 45 x 48 voxels.
    regions = [((8192, 4096, 1920), (128, 128, 256)),
               (tuple((size[2 - d] // 64 - 1) * 64 for d in range(3)), (128, 128, 128))]
    for i, (offset, shape) in enumerate(regions):
        volume = labels(shape, seed=i) + np.uint64(i * 1_000_000)
        volume[volume == 0] = 7  # every block holds labels
        np.save(work / f"mcns-{i}.npy", volume)
        cli(binary, "dvid", "ingest", db, "--input", work / f"mcns-{i}.npy", "--offset", ",".join(map(str, offset)),
            "--scales", "1")
    export = work / "mcns-export"
    cli(binary, "dvid", "export-shards", db, spec_path, export, "--scales", "2", "--workers", "2")
    ours = work / "mcns-ours"
    cli(binary, "dvid", "to-precomputed", export, ours, "--spec", spec_path, "--threads", "2")
    # TensorStore's own write of the same volume, with the spec's layout.
    theirs = work / "mcns-tensorstore"
    info = json.loads(json.dumps(spec))
    for scale in info["scales"]:
        scale["compressed_segmentation_block_size"] = [8, 8, 8]
        scale["sharding"]["data_encoding"] = "gzip"
    info.pop("batch_size", None)
    write_info(theirs, info)
    for s in range(2):
        store = ts.open({"driver": "neuroglancer_precomputed", "kvstore": {"driver": "file", "path": str(theirs) + "/"},
                         "scale_index": s, "open": True}).result()
        scale_size = info["scales"][s]["size"]
        for offset, shape in regions:
            o = [v >> s for v in offset]
            n = [-(-v // (1 << s)) for v in shape]
            out = work / f"mcns-read-{s}.npy"
            cli(binary, "dvid", "read", db, "--shape", ",".join(map(str, n)), "--offset", ",".join(map(str, o)),
                "--scale", s, "--mapped", "--output", out, "--overwrite")
            data = np.load(out)
            stop = [min(o[d] + n[d], scale_size[2 - d]) for d in range(3)]
            data = data[:stop[0] - o[0], :stop[1] - o[1], :stop[2] - o[2]]
            store[o[2]:stop[2], o[1]:stop[1], o[0]:stop[0], 0] = data.transpose(2, 1, 0)
    for s in range(2):
        key = info["scales"][s]["key"]
        ours_files = sorted(p.name for p in (ours / key).glob("*.shard"))
        theirs_files = sorted(p.name for p in (theirs / key).glob("*.shard"))
        checks.expect(ours_files == theirs_files and len(ours_files) >= (2 if s == 0 else 1),
                      f"mCNS scale {key}: the same shard files ({', '.join(ours_files)})")
        bits = info["scales"][s]["sharding"]["minishard_bits"]
        same_ids = True
        count = 0
        ours_ts = ts.open({"driver": "neuroglancer_precomputed", "kvstore": {"driver": "file", "path": str(ours) + "/"},
                           "scale_index": s, "open": True}).result()
        theirs_ts = ts.open({"driver": "neuroglancer_precomputed",
                             "kvstore": {"driver": "file", "path": str(theirs) + "/"},
                             "scale_index": s, "open": True}).result()
        grid = [-(-v // 64) for v in info["scales"][s]["size"]]
        bits_per_dim = [0 if g <= 1 else (g - 1).bit_length() for g in grid]
        equal = True
        for name in ours_files:
            a = list_shard((ours / key / name).read_bytes(), bits)
            b = list_shard((theirs / key / name).read_bytes(), bits)
            same_ids &= sorted(a) == sorted(b)
            for cid in sorted(a):
                cell = decode_morton(cid, bits_per_dim)
                lo = [cell[d] * 64 for d in range(3)]
                hi = [min(lo[d] + 64, info["scales"][s]["size"][d]) for d in range(3)]
                box = (slice(lo[0], hi[0]), slice(lo[1], hi[1]), slice(lo[2], hi[2]), 0)
                equal &= np.array_equal(ours_ts[box].read().result(), theirs_ts[box].read().result())
                count += 1
        checks.expect(same_ids and count > 0, f"mCNS scale {key}: each shard lists the same {count} chunk ids")
        checks.expect(equal, f"mCNS scale {key}: all {count} chunks decode equal, ours and TensorStore's")


def decode_morton(code, bits):
    cell = [0, 0, 0]
    j = 0
    for i in range(max(bits)):
        for d in range(3):
            if i < bits[d]:
                cell[d] |= ((code >> j) & 1) << i
                j += 1
    return cell


def check_bad_input(checks, binary, work, sharded, unsharded):
    def expect_failure(path, needle, what):
        result = cli(binary, "precomputed", "read", path, "--output", work / "bad.npy", "--overwrite", ok=False)
        checks.expect(result.returncode == 1 and needle in result.stderr and "Corruption" in result.stderr,
                      f"{what}: exit 1, {result.stderr.strip()[:200]}")

    scale = json.loads((sharded / "info").read_text())["scales"][0]
    shard = sorted((sharded / scale["key"]).glob("*.shard"))[0]
    good = shard.read_bytes()
    shard.write_bytes(good[:10])
    expect_failure(sharded, shard.name, "a truncated shard")
    bad = bytearray(good)
    struct.pack_into("<Q", bad, 8, len(good) * 4)  # minishard 0's end
    shard.write_bytes(bytes(bad))
    expect_failure(sharded, shard.name, "a minishard index past the end")
    shard.write_bytes(good)
    # compressed_segmentation: block 0's table offset pointed past the chunk.
    chunk = next(p for p in sorted((unsharded / "s0").iterdir()) if p.stat().st_size > 64)
    data = bytearray(chunk.read_bytes())
    struct.pack_into("<I", data, 4, 0x00FFFFFF | (data[7] << 24))
    chunk.write_bytes(bytes(data))
    expect_failure(unsharded, chunk.name, "an out-of-range table offset (unsharded chunk)")
    # The same inside a shard whose data is stored raw.
    raw = work / "seg-raw-sharded"
    cli(binary, "zarr", "to-precomputed", work / "seg.zarr", raw, "--chunk", "32,32,32",
        "--sharding", json.dumps(sharding(0, 1, 0, "identity", "raw")))
    shard = raw / "s0" / "0.shard"
    data = bytearray(shard.read_bytes())
    chunks = list_shard(bytes(data), 1)
    offset, _ = chunks[sorted(chunks)[1]]
    struct.pack_into("<I", data, offset + 4, 0x00FFFFFF | (data[offset + 7] << 24))
    shard.write_bytes(bytes(data))
    expect_failure(raw, "0.shard", "an out-of-range table offset inside a shard")


def check_serve(checks, binary, volume):
    server = subprocess.Popen([str(binary), "serve", str(volume.parent), "--port", "0"], stdout=subprocess.PIPE,
                              text=True)
    try:
        first = server.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", first)
        checks.expect(match is not None, f"serve prints its URL: {first.strip()}")
        listing = []
        while not listing or not listing[-1].startswith("Ctrl-C"):
            listing.append(server.stdout.readline())
        base = f"http://127.0.0.1:{match.group(1)}/"
        checks.expect(any(f"precomputed://{base}{volume.name} " in line for line in listing),
                      "serve lists the precomputed volume with its precomputed:// URL")
        info_url = f"{base}{volume.name}/info"
        with urllib.request.urlopen(info_url) as answer:
            body = answer.read()
            checks.expect(answer.status == 200 and body == (volume / "info").read_bytes()
                          and answer.headers["Access-Control-Allow-Origin"] == "*"
                          and answer.headers["Content-Type"] == "application/json",
                          "GET info: 200, the file's bytes, CORS and JSON headers")
        shard = sorted((volume / "s0").glob("*.shard"))[0]
        shard_url = f"{base}{volume.name}/s0/{shard.name}"
        request = urllib.request.Request(shard_url, headers={"Range": "bytes=5-20"})
        with urllib.request.urlopen(request) as answer:
            checks.expect(answer.status == 206 and answer.read() == shard.read_bytes()[5:21]
                          and answer.headers["Content-Range"] == f"bytes 5-20/{shard.stat().st_size}"
                          and "Content-Range" in answer.headers["Access-Control-Expose-Headers"],
                          "GET with Range: 206, the bytes, Content-Range exposed to scripts")
        request = urllib.request.Request(shard_url, method="HEAD")
        with urllib.request.urlopen(request) as answer:
            checks.expect(answer.status == 200 and answer.headers["Content-Length"] == str(shard.stat().st_size)
                          and answer.read() == b"", "HEAD: the length, no body")
        request = urllib.request.Request(shard_url, method="OPTIONS",
                                         headers={"Origin": "http://x", "Access-Control-Request-Headers": "range"})
        with urllib.request.urlopen(request) as answer:
            checks.expect(answer.status == 204 and "Range" in answer.headers["Access-Control-Allow-Headers"],
                          "OPTIONS preflight allows Range")
        for url, headers, status in ((f"{base}{volume.name}/nothing", {}, 404),
                                     (shard_url, {"Range": f"bytes={10**9}-"}, 416),
                                     (f"{base}../etc/passwd", {}, 404)):
            try:
                urllib.request.urlopen(urllib.request.Request(url, headers=headers))
                checks.expect(False, f"{url} {headers}: expected {status}")
            except urllib.error.HTTPError as error:
                checks.expect(error.code == status, f"{url.replace(base, '/')} {headers}: {error.code}")
        got = ts_read(f"{base}{volume.name}/", 0)
        checks.expect(np.array_equal(got, labels(SHAPE)),
                      "TensorStore reads the sharded volume over HTTP from chunkwise serve")
    finally:
        server.terminate()
        server.wait(timeout=10)
    checks.expect(server.returncode == 0, f"serve stops cleanly on SIGTERM (exit {server.returncode})")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunkwise", required=True, type=pathlib.Path)
    parser.add_argument("--workdir", required=True, type=pathlib.Path)
    parser.add_argument("--testdata", required=True, type=pathlib.Path)
    args = parser.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    args.workdir.mkdir(parents=True)
    checks = Checks()
    sharded = check_zarr_conversions(checks, args.chunkwise, args.workdir)
    check_dvid_conversions(checks, args.chunkwise, args.workdir)
    check_reading_tensorstore(checks, args.chunkwise, args.workdir)
    check_mcns(checks, args.chunkwise, args.workdir, args.testdata)
    check_serve(checks, args.chunkwise, sharded)
    check_bad_input(checks, args.chunkwise, args.workdir, sharded, args.workdir / "seg-unsharded")
    checks.finish()


if __name__ == "__main__":
    main()
