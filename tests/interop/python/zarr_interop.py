"""zarr interop: independent readers and writers check chunkwise's zarr arrays.

- zarrita (node) reads every v3 array chunkwise writes (each dtype it supports,
  each codec, edge shards, nested sharding) and must return the same bytes.
- zarrita ignores index_location and float16 (node 20 has no Float16Array),
  so those arrays are also decoded by spec_decode_sharded() below, written
  from docs/formats/zarr-shard-index.md with numcodecs for the inner
  codecs: independent of chunkwise's reader.
- python3-zarr 2.13 reads the v2 arrays chunkwise writes, and chunkwise reads
  the v2 arrays it writes (compressors, C/F order, separators, big-endian).
- chunkwise reads an array zarrita writes.
- A sparse array with a grid of 2^44 chunks, three stored: info, convert and
  refs build visit the stored keys, not the grid.
- Damaged arrays (truncated shard, bad index checksum, offsets past the end,
  unknown codec, shapes that disagree) give a clear error naming the key.

usage: /usr/bin/python3 zarr_interop.py --chunkwise build/chunkwise --workdir DIR --node-script zarr_tool.mjs
"""
import argparse
import json
import pathlib
import shutil
import struct
import subprocess

import numcodecs
import numpy as np
import zarr

from interop_check import Checks, run

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64"]
CODECS = ["none", "zstd:3", "zstd:1+crc32c", "gzip:6", "blosc:lz4:5:shuffle", "blosc:zstd:3:bitshuffle",
          "blosc:blosclz:9:noshuffle", "crc32c"]


def crc32c(data):
    table = crc32c.table
    if table is None:
        table = crc32c.table = []
        for n in range(256):
            c = n
            for _ in range(8):
                c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
            table.append(c)
    crc = 0xFFFFFFFF
    for byte in data:
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


crc32c.table = None


def sample(dtype, shape, seed):
    """Smooth values plus noise, with a block of zeros so fill chunks occur."""
    rng = np.random.default_rng(seed)
    grids = np.meshgrid(*[np.linspace(0, 3, n) for n in shape], indexing="ij")
    smooth = sum(np.sin(g * (i + 1)) for i, g in enumerate(grids)) * 40 + 60
    values = smooth + rng.normal(0, 3, shape)
    if dtype == "bool":
        data = values > 60
    elif dtype.startswith("float"):
        data = values.astype(dtype)
    else:
        info = np.iinfo(dtype)
        data = np.clip(values, info.min, info.max).astype(dtype)
    data[: shape[0] // 3] = 0
    return data.astype(np.dtype(dtype).newbyteorder("<"))


def cli(binary, *args, ok=True):
    return run([binary, *args], expect_success=ok)


def write_ours(binary, work, name, data, *create_args):
    path = work / name
    source = work / f"{name}.input.npy"
    np.save(source, data)
    shape = ",".join(map(str, data.shape))
    cli(binary, "-q", "zarr", "create", path, "--shape", shape, "--dtype", str(data.dtype) if data.dtype != bool else "bool",
        *create_args, "--overwrite")
    cli(binary, "-q", "zarr", "write", path, "--input", source)
    return path


def read_ours(binary, path, region=None):
    out = path.parent / f"{path.name}.ours.npy"
    args = ["-q", "zarr", "read", path, "--output", out, "--overwrite"]
    if region:
        args += ["--region", region]
    cli(binary, *args)
    return np.load(out)


# ---- an independent sharding decoder, from the spec -------------------------------------------

def numcodecs_for(codec, itemsize):
    name = codec["name"] if isinstance(codec, dict) else codec
    config = codec.get("configuration", {}) if isinstance(codec, dict) else {}
    if name == "zstd":
        return numcodecs.Zstd(level=config.get("level", 0))
    if name == "gzip":
        return numcodecs.GZip(level=config.get("level", 1))
    if name == "blosc":
        return numcodecs.Blosc(cname=config["cname"], clevel=config["clevel"],
                               shuffle={"noshuffle": 0, "shuffle": 1, "bitshuffle": 2}[config["shuffle"]])
    raise ValueError(f"no decoder for {name}")


def decode_chunk(raw, codecs, dtype, shape):
    """Reverses a codec list ([bytes, b2b...] or [sharding]) for one chunk."""
    first = codecs[0]["name"]
    if first == "sharding_indexed":
        return decode_shard(raw, codecs[0]["configuration"], dtype, shape)
    assert first == "bytes", codecs
    data = raw
    for codec in reversed(codecs[1:]):
        if codec["name"] == "crc32c":
            stored = struct.unpack("<I", data[-4:])[0]
            if stored != crc32c(data[:-4]):
                raise ValueError("crc32c codec checksum mismatch")
            data = data[:-4]
        else:
            data = numcodecs_for(codec, dtype.itemsize).decode(data)
    return np.frombuffer(bytes(data), dtype=dtype).reshape(shape)


def decode_shard(raw, config, dtype, shard_shape):
    inner = config["chunk_shape"]
    per_shard = [s // c for s, c in zip(shard_shape, inner)]
    n = int(np.prod(per_shard))
    size = 16 * n + 4
    index_bytes = raw[:size] if config.get("index_location", "end") == "start" else raw[-size:]
    if struct.unpack("<I", index_bytes[-4:])[0] != crc32c(index_bytes[:-4]):
        raise ValueError("shard index checksum mismatch")
    entries = np.frombuffer(index_bytes[:-4], dtype="<u8").reshape(per_shard + [2])
    out = np.zeros(shard_shape, dtype=dtype)
    for position in np.ndindex(*per_shard):
        offset, nbytes = (int(v) for v in entries[position])
        box = tuple(slice(p * c, (p + 1) * c) for p, c in zip(position, inner))
        if offset == 2**64 - 1 and nbytes == 2**64 - 1:
            out[box] = fill_of(dtype, spec_decode_sharded.fill)
            continue
        out[box] = decode_chunk(raw[offset:offset + nbytes], config["codecs"], dtype, inner)
    return out


def fill_of(dtype, fill):
    return {"NaN": np.nan, "Infinity": np.inf, "-Infinity": -np.inf}.get(fill, fill)


def spec_decode_sharded(path):
    meta = json.loads((path / "zarr.json").read_text())
    dtype = np.dtype(meta["data_type"] if meta["data_type"] != "bool" else "?").newbyteorder("<")
    shape = meta["shape"]
    shard = meta["chunk_grid"]["configuration"]["chunk_shape"]
    spec_decode_sharded.fill = meta["fill_value"]
    grid = [-(-s // c) for s, c in zip(shape, shard)]
    padded = np.full([g * c for g, c in zip(grid, shard)], fill_of(dtype, meta["fill_value"]), dtype=dtype)
    for position in np.ndindex(*grid):
        key = path / "c" / "/".join(map(str, position))
        if not key.exists():
            continue
        box = tuple(slice(p * c, (p + 1) * c) for p, c in zip(position, shard))
        padded[box] = decode_chunk(key.read_bytes(), meta["codecs"], dtype, shard)
    return padded[tuple(slice(0, s) for s in shape)]


# ---- checks -----------------------------------------------------------------------------------

def v3_cases():
    """(name, data, create args, zarrita can read it)."""
    cases = []
    for i, dtype in enumerate(DTYPES):
        data = sample(dtype, (37, 29, 11), i)
        cases.append((f"dtype_{dtype}", data, ["--chunk", "8,8,4", "--shard", "16,16,8", "--codec", "zstd:3"],
                      dtype != "float16"))
    for i, codec in enumerate(CODECS):
        data = sample("uint16", (40, 33, 7), 100 + i)
        tag = codec.replace(":", "_").replace("+", "_")
        cases.append((f"sharded_{tag}", data, ["--chunk", "8,8,7", "--shard", "16,24,7", "--codec", codec], True))
        cases.append((f"plain_{tag}", data, ["--chunk", "16,16,4", "--codec", codec], True))
    data = sample("float32", (20, 30), 7)
    cases.append(("fill_nan", data, ["--chunk", "8,8", "--shard", "16,16", "--fill", "nan"], True))
    cases.append(("int16_fill_-7", np.full((12, 9), -7, "<i2"), ["--chunk", "4,4", "--shard", "8,8", "--fill", "-7"],
                  True))
    for i, dtype in enumerate(["uint8", "uint64", "float64"]):
        data = sample(dtype, (33, 17, 9), 200 + i)
        cases.append((f"index_start_{dtype}", data, ["--chunk", "8,8,3", "--shard", "16,16,9", "--index-location",
                                                      "start"], False))
    return cases


def nested_case(binary, work):
    """Shards whose inner chunks are shards: metadata written here, data by chunkwise."""
    path = work / "nested"
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir()
    inner_codecs = [{"name": "bytes", "configuration": {"endian": "little"}},
                    {"name": "zstd", "configuration": {"level": 2}}]
    index = [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}]
    inner = {"name": "sharding_indexed", "configuration": {"chunk_shape": [4, 4, 5], "codecs": inner_codecs,
                                                           "index_codecs": index, "index_location": "end"}}
    outer = {"name": "sharding_indexed", "configuration": {"chunk_shape": [8, 8, 5], "codecs": [inner],
                                                           "index_codecs": index, "index_location": "end"}}
    meta = {"zarr_format": 3, "node_type": "array", "shape": [30, 21, 10], "data_type": "int32",
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [16, 16, 10]}},
            "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
            "fill_value": 0, "codecs": [outer], "attributes": {}}
    (path / "zarr.json").write_text(json.dumps(meta))
    data = sample("int32", (30, 21, 10), 300)
    np.save(work / "nested.input.npy", data)
    cli(binary, "-q", "zarr", "write", path, "--input", work / "nested.input.npy")
    return path, data


def check_v3_with_zarrita(checks, binary, work, node_script):
    arrays = []
    for name, data, args, zarrita_reads in v3_cases():
        path = write_ours(binary, work, name, data, *args)
        arrays.append((name, path, data, zarrita_reads))
    path, data = nested_case(binary, work)
    # zarrita 0.7.5 refuses shards inside shards ("Unknown codec: sharding_indexed"), so the
    # spec decoder checks this one.
    arrays.append(("nested_sharding", path, data, False))
    manifest = [{"dir": str(p), "out": str(work / f"{n}.zarrita.bin")} for n, p, _, z in arrays if z]
    (work / "manifest.json").write_text(json.dumps(manifest))
    lines = run(["node", node_script, "read", work / "manifest.json"]).stdout.splitlines()
    results = {r["dir"]: r for r in map(json.loads, lines)}
    for name, path, data, zarrita_reads in arrays:
        checks.expect_equal_bytes(read_ours(binary, path).tobytes(), data.tobytes(), f"{name}: chunkwise reads back")
        if zarrita_reads:
            result = results[str(path)]
            if "error" in result:
                checks.expect(False, f"{name}: zarrita failed: {result['error']}")
                continue
            got = (work / f"{name}.zarrita.bin").read_bytes()
            checks.expect_equal_bytes(got, data.tobytes(), f"{name}: zarrita reads the same bytes")
        if (json.loads((path / "zarr.json").read_text())["codecs"][0]["name"] == "sharding_indexed"
                and (not zarrita_reads or name.startswith("dtype_"))):
            decoded = spec_decode_sharded(path)
            checks.expect_equal_bytes(decoded.tobytes(), data.tobytes(), f"{name}: the spec decoder reads the same")


def check_fill_chunks_left_out(checks, binary, work):
    data = np.zeros((32, 32), "<u2")
    data[24:, 24:] = 5
    path = write_ours(binary, work, "sparse", data, "--chunk", "8,8", "--shard", "16,16")
    shards = sorted(p.relative_to(path).as_posix() for p in (path / "c").rglob("*") if p.is_file())
    checks.expect(shards == ["c/1/1"], f"all-fill shards are not written ({shards})")
    raw = (path / "c/1/1").read_bytes()
    entries = np.frombuffer(raw[-(16 * 4 + 4):-4], "<u8").reshape(4, 2)
    empty = [bool((e == 2**64 - 1).all()) for e in entries]
    checks.expect(empty == [True, True, True, False], f"the all-fill inner chunk has an empty index entry ({empty})")
    zeros = work / "zeros.npy"
    np.save(zeros, np.zeros((16, 16), "<u2"))
    cli(binary, "-q", "zarr", "write", path, "--input", zeros, "--offset", "16,16")
    checks.expect(not (path / "c/1/1").exists(), "overwriting a shard with fill values deletes it")


def check_partial_writes(checks, binary, work):
    data = sample("uint16", (48, 40), 400)
    path = write_ours(binary, work, "partial", data, "--chunk", "8,8", "--shard", "16,16")
    patch = np.arange(5 * 11, dtype="<u2").reshape(5, 11) + 1000
    np.save(work / "patch.npy", patch)
    cli(binary, "-q", "zarr", "write", path, "--input", work / "patch.npy", "--offset", "13,6")
    data[13:18, 6:17] = patch
    checks.expect_equal_bytes(read_ours(binary, path).tobytes(), data.tobytes(), "a partial write merges into shards")
    checks.expect_equal_bytes(read_ours(binary, path, "10:30,3:19").tobytes(), data[10:30, 3:19].tobytes(),
                              "a region read returns that region")
    checks.expect_equal_bytes(spec_decode_sharded(path).tobytes(), data.tobytes(),
                              "the spec decoder agrees after the partial write")


def check_v2_with_zarr_python(checks, binary, work):
    compressors = {"none": None, "zstd:3": numcodecs.Zstd(level=3), "gzip:6": numcodecs.GZip(level=6),
                   "blosc:lz4:5:shuffle": numcodecs.Blosc(cname="lz4", clevel=5, shuffle=1)}
    for i, (codec, _) in enumerate(compressors.items()):
        for dtype in ["uint16", "float64", "int8"]:
            data = sample(dtype, (25, 18, 6), 500 + i)
            name = f"v2_ours_{dtype}_{codec.replace(':', '_')}"
            path = write_ours(binary, work, name, data, "--format", "2", "--chunk", "8,8,4", "--codec", codec)
            theirs = zarr.open(str(path), mode="r")
            checks.expect_equal_bytes(np.ascontiguousarray(theirs[:]).astype(data.dtype).tobytes(), data.tobytes(),
                                      f"{name}: zarr-python 2.13 reads it")
    cases = [("C", ".", ">u2"), ("F", "/", "<f4"), ("C", "/", "<i8"), ("F", ".", "|u1")]
    for i, (order, separator, dtype) in enumerate(cases):
        for codec, compressor in compressors.items():
            name = f"v2_theirs_{order}_{'dot' if separator == '.' else 'slash'}_{dtype[1:]}_{codec.replace(':', '_')}"
            data = sample(np.dtype(dtype).newbyteorder("=").name, (23, 17, 5), 600 + i).astype(dtype)
            path = work / name
            array = zarr.open(str(path), mode="w", shape=data.shape, chunks=(8, 8, 3), dtype=dtype, order=order,
                              compressor=compressor, dimension_separator=separator, fill_value=0)
            array[:] = data
            got = read_ours(binary, path)
            checks.expect(got.shape == data.shape and np.array_equal(got, data), f"{name}: chunkwise reads it")


def check_zarrita_writes(checks, binary, work, node_script):
    for i, codecs in enumerate([
            # zarrita 0.7.5 encodes neither gzip nor crc32c; these are the codecs it can write.
            [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "zstd", "configuration": {"level": 5}}],
            [{"name": "transpose", "configuration": {"order": [2, 0, 1]}},
             {"name": "bytes", "configuration": {"endian": "little"}}],
            [{"name": "bytes", "configuration": {"endian": "big"}},
             {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": 4,
                                                 "blocksize": 0}}]]):
        data = sample("int32", (19, 14, 6), 700 + i)
        path = work / f"zarrita_written_{i}"
        shutil.rmtree(path, ignore_errors=True)
        raw = work / f"zarrita_written_{i}.bin"
        raw.write_bytes(data.tobytes())
        spec = {"shape": list(data.shape), "chunk_shape": [8, 8, 4], "dtype": "int32", "codecs": codecs,
                "fill_value": 0}
        (work / f"zarrita_spec_{i}.json").write_text(json.dumps(spec))
        result = subprocess.run(["node", str(node_script), "write", str(path), str(work / f"zarrita_spec_{i}.json"),
                                 str(raw)], capture_output=True, text=True)
        if result.returncode != 0:
            checks.expect(False, f"zarrita wrote array {i}: {result.stderr[-300:]}")
            continue
        checks.expect_equal_bytes(read_ours(binary, path).tobytes(), data.tobytes(),
                                  f"chunkwise reads zarrita's array ({[c['name'] for c in codecs]})")


def check_convert(checks, binary, work, node_script):
    """v2 (written by zarr-python) → v3 sharded → v2 again, each step read by another reader."""
    data = sample("uint16", (45, 38, 9), 900)
    source = work / "convert_v2_source"
    array = zarr.open(str(source), mode="w", shape=data.shape, chunks=(10, 10, 9), dtype="<u2",
                      compressor=numcodecs.Zstd(level=1), fill_value=0)
    array[:] = data
    sharded = work / "convert_v3"
    cli(binary, "-q", "zarr", "convert", source, sharded, "--chunk", "8,8,9", "--shard", "16,24,9", "--overwrite")
    meta = json.loads((sharded / "zarr.json").read_text())
    inner = meta["codecs"][0]["configuration"]["codecs"]
    checks.expect(meta["codecs"][0]["name"] == "sharding_indexed" and inner[1]["name"] == "zstd",
                  "convert to v3 shards keeps the source's zstd for the inner chunks")
    (work / "convert_manifest.json").write_text(json.dumps([{"dir": str(sharded), "out": str(work / "c.bin")}]))
    run(["node", node_script, "read", work / "convert_manifest.json"])
    checks.expect_equal_bytes((work / "c.bin").read_bytes(), data.tobytes(), "zarrita reads the converted v3 array")
    back = work / "convert_v2_again"
    cli(binary, "-q", "zarr", "convert", sharded, back, "--format", "2", "--codec", "blosc:lz4:5:shuffle",
        "--overwrite")
    checks.expect(np.array_equal(zarr.open(str(back), mode="r")[:], data), "zarr-python reads it converted back to v2")
    result = cli(binary, "zarr", "convert", sharded, back, "--format", "2", ok=False)
    checks.expect(result.returncode == 1 and "--overwrite" in result.stderr, "convert refuses an existing output")


def check_sparse_huge_grid(checks, binary, work):
    """A v2 array with a grid of 2^44 chunks and three stored, written by zarr-python 2.13 with
    "/" keys: zarr info, zarr convert and refs build visit the three stored keys, not the grid
    (each gets 120 s; a walk of the grid would take days), and zarr-python reads the converted
    array's values."""
    n = 1 << 22
    source = work / "sparse_source"
    array = zarr.open(str(source), mode="w", shape=(n, n), chunks=(1, 1), dtype="<u2",
                      compressor=numcodecs.Zstd(level=1), fill_value=0, dimension_separator="/")
    points = {(1, 5): 11, (n // 2, 1001): 22, (n - 1, n - 1): 33}
    for (y, x), value in points.items():
        array[y, x] = value

    def timed(*args):
        try:
            return subprocess.run([str(binary), "-q", *map(str, args)], capture_output=True,
                                  text=True, timeout=120)
        except subprocess.TimeoutExpired:
            return None

    def ok(result, what):
        done = result is not None and result.returncode == 0
        checks.expect(done, f"sparse 2^44-chunk grid: {what} finishes "
                            f"({'timed out' if result is None else result.stderr.strip()[-200:]})")
        return done

    info = timed("zarr", "info", source, "--json")
    if ok(info, "zarr info"):
        stats = json.loads(info.stdout)
        checks.expect(stats["nchunks_initialized"] == 3 and stats["nchunks"] == 1 << 44,
                      f"zarr info counts 3 stored of 2^44 chunks: {stats['nchunks_initialized']} "
                      f"of {stats['nchunks']}")
    sharded = work / "sparse_v3"
    back = work / "sparse_v2_again"
    if ok(timed("zarr", "convert", source, sharded, "--chunk", "8,8", "--shard", "16,16"),
          "zarr convert to v3 shards") and \
            ok(timed("zarr", "convert", sharded, back, "--format", "2"), "zarr convert back to v2"):
        shards = [p for p in (sharded / "c").rglob("*") if p.is_file()]
        checks.expect(len(shards) == 3, f"the v3 array stores 3 shards ({len(shards)})")
        chunks = [p for p in back.iterdir() if not p.name.startswith(".")]
        checks.expect(len(chunks) == 3, f"converted back to v2, 3 chunks ({len(chunks)})")
        again = zarr.open(str(back), mode="r")
        got = {point: int(again[point]) for point in points}
        checks.expect(got == points and int(again[0, 0]) == 0 and int(again[n - 1, n - 2]) == 0,
                      f"zarr-python reads the three values through both conversions: {got}")
    refs = work / "sparse_refs.json"
    if ok(timed("refs", "build", source, "--output", refs), "refs build"):
        document = json.loads(refs.read_text())
        keys = sorted(k for k in document.get("refs", document) if not k.startswith("."))
        expected = sorted(f"{y}.{x}" for y, x in points)
        checks.expect(keys == expected, f"refs build references the 3 stored chunks: {keys}")


def expect_error(checks, binary, path, needle, what):
    out = path.parent / f"{path.name}.err.npy"
    result = cli(binary, "zarr", "read", path, "--output", out, "--overwrite", ok=False)
    checks.expect(result.returncode == 1 and needle in result.stderr and "Traceback" not in result.stderr,
                  f"{what}: exit 1 naming {needle!r} ({result.stderr.strip()[:160]})")


def check_damaged(checks, binary, work):
    data = sample("uint16", (32, 32), 800) + 1
    base = write_ours(binary, work, "damaged_base", data, "--chunk", "8,8", "--shard", "16,16")

    def damaged(name, change):
        path = work / name
        shutil.rmtree(path, ignore_errors=True)
        shutil.copytree(base, path)
        change(path)
        return path

    def truncate(path):
        shard = path / "c/0/1"
        shard.write_bytes(shard.read_bytes()[:-30])

    def flip_checksum(path):
        shard = path / "c/0/1"
        raw = bytearray(shard.read_bytes())
        raw[-1] ^= 0xFF
        shard.write_bytes(bytes(raw))

    def offset_past_end(path):
        shard = path / "c/1/0"
        raw = bytearray(shard.read_bytes())
        n = 4
        index = bytearray(raw[-(16 * n + 4):-4])
        struct.pack_into("<Q", index, 0, len(raw) + 100)
        raw[-(16 * n + 4):] = index + struct.pack("<I", crc32c(bytes(index)))
        shard.write_bytes(bytes(raw))

    def unknown_codec(path):
        meta = json.loads((path / "zarr.json").read_text())
        meta["codecs"][0]["configuration"]["codecs"][1]["name"] = "lzma_xyz"
        (path / "zarr.json").write_text(json.dumps(meta))

    def shapes_disagree(path):
        meta = json.loads((path / "zarr.json").read_text())
        meta["chunk_grid"]["configuration"]["chunk_shape"] = [16, 16, 1]
        (path / "zarr.json").write_text(json.dumps(meta))

    def inner_not_dividing(path):
        meta = json.loads((path / "zarr.json").read_text())
        meta["codecs"][0]["configuration"]["chunk_shape"] = [5, 8]
        (path / "zarr.json").write_text(json.dumps(meta))

    expect_error(checks, binary, damaged("truncated", truncate), "c/0/1", "truncated shard")
    expect_error(checks, binary, damaged("bad_checksum", flip_checksum), "checksum", "wrong index checksum")
    expect_error(checks, binary, damaged("past_end", offset_past_end), "c/1/0", "index offset past the end")
    expect_error(checks, binary, damaged("unknown_codec", unknown_codec), "lzma_xyz", "unknown codec")
    expect_error(checks, binary, damaged("rank_mismatch", shapes_disagree), "zarr.json", "shapes disagree")
    expect_error(checks, binary, damaged("not_dividing", inner_not_dividing), "does not divide",
                 "inner chunk not dividing the shard")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunkwise", required=True, type=pathlib.Path)
    parser.add_argument("--workdir", required=True, type=pathlib.Path)
    parser.add_argument("--node-script", required=True, type=pathlib.Path)
    args = parser.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    args.workdir.mkdir(parents=True)
    checks = Checks()
    check_v3_with_zarrita(checks, args.chunkwise, args.workdir, args.node_script)
    check_fill_chunks_left_out(checks, args.chunkwise, args.workdir)
    check_partial_writes(checks, args.chunkwise, args.workdir)
    check_v2_with_zarr_python(checks, args.chunkwise, args.workdir)
    check_zarrita_writes(checks, args.chunkwise, args.workdir, args.node_script)
    check_convert(checks, args.chunkwise, args.workdir, args.node_script)
    check_sparse_huge_grid(checks, args.chunkwise, args.workdir)
    check_damaged(checks, args.chunkwise, args.workdir)
    checks.finish()


if __name__ == "__main__":
    main()
