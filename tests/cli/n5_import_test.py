"""`chunkwise import` of N5 datasets and zarr arrays (#43).

The N5 inputs are written here byte by byte from the format's facts (a
big-endian header: mode, number of dimensions, the block's size per
dimension; big-endian values, the first dimension fastest; gzip or raw),
with edge blocks stored truncated to the volume as N5's own writer does and
one block never written. Each import must exit 0, say what it wrote, keep
the non-structural attributes, default its chunks to the reversed blockSize
and read back (through `zarr read`) as the C-order array of the reversed
dimensions. Bad inputs exit 1 with the StatusCode and the block's key
(a block shorter than its header, a block shorter than its stated size),
the compression (lz4), or the group named, and leave nothing at DEST; an
existing DEST is refused without --overwrite and kept. A zarr v2 array made
with `zarr create --format 2` is imported as a sharded v3 array equal to it.

usage: .venv/bin/python n5_import_test.py --chunkwise build/chunkwise --workdir DIR
"""
import argparse
import gzip
import json
import pathlib
import shutil
import struct
import subprocess
import sys

import numpy as np

failures = []


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what)
    if not condition:
        failures.append(what)


def cli(binary, *args):
    return subprocess.run([str(binary), *map(str, args)], capture_output=True, text=True)


def write_n5(folder, data, block, compression, attributes=None, skip=()):
    """`data` (C order) as an N5 dataset of the reversed dimensions, edge blocks truncated."""
    folder.mkdir(parents=True)
    dims = list(reversed(data.shape))
    meta = {"dimensions": dims, "blockSize": block, "dataType": data.dtype.name,
            "compression": {"type": compression}, **(attributes or {})}
    (folder / "attributes.json").write_text(json.dumps(meta))
    grid = [(d + b - 1) // b for d, b in zip(dims, block)]
    big = data.astype(data.dtype.newbyteorder(">"))
    for position in np.ndindex(*grid):
        if position in skip:
            continue
        lo = [p * b for p, b in zip(position, block)]
        hi = [min(l + b, d) for l, b, d in zip(lo, block, dims)]
        # N5 (x, y, z) is C order (z, y, x): the slice goes in reversed.
        values = big[tuple(slice(l, h) for l, h in reversed(list(zip(lo, hi))))]
        size = [h - l for l, h in zip(lo, hi)]
        header = struct.pack(">HH", 0, len(size)) + b"".join(struct.pack(">I", s) for s in size)
        payload = values.tobytes()
        if compression == "gzip":
            payload = gzip.compress(payload)
        key = folder.joinpath(*map(str, position))
        key.parent.mkdir(parents=True, exist_ok=True)
        key.write_bytes(header + payload)


def read_back(binary, work, dest, shape, dtype):
    out = work / (dest.name + ".raw")
    result = cli(binary, "zarr", "read", dest, "--output", out, "--raw")
    check(result.returncode == 0, f"zarr read {dest.name}: {result.stderr.strip()}")
    return np.frombuffer(out.read_bytes(), dtype=np.dtype(dtype).newbyteorder("<")).reshape(shape)


def check_imports(binary, work):
    rng = np.random.default_rng(5)
    data = rng.integers(0, 65535, (7, 10, 13), dtype="uint16")  # N5 dimensions [13, 10, 7].
    source = work / "volume.n5"
    write_n5(source, data, [4, 4, 3], "gzip",
             {"resolution": [4.0, 4.0, 40.0], "unit": "nm", "n5": "4.0.0"}, skip={(1, 1, 1)})
    expected = data.copy()
    expected[3:6, 4:8, 4:8] = 0  # Block (1, 1, 1) never written: N5's fill, zero.
    dest = work / "volume.zarr"
    result = cli(binary, "import", source, dest, "--shard", "6,8,8")
    check(result.returncode == 0, f"import DATASET.n5 exits 0: {result.stderr.strip()}")
    check(f"imported {source} as zarr v3 array {dest}: uint16 [7,10,13], chunks [3,4,4] in "
          "shards [6,8,8]" in result.stdout, f"its summary: {result.stdout.strip()}")
    if result.returncode != 0:
        return
    metadata = json.loads((dest / "zarr.json").read_text())
    check(metadata["attributes"] == {"resolution": [4.0, 4.0, 40.0], "unit": "nm"},
          f"the dataset's non-structural attributes are the array's: {metadata['attributes']}")
    check(np.array_equal(read_back(binary, work, dest, data.shape, "uint16"), expected),
          "the N5 dataset reads back in C order of its reversed dimensions, truncated edge "
          "blocks and the missing block (zero) included")

    floats = rng.standard_normal((9, 5)).astype("float32")
    raw_source = work / "floats.n5"
    write_n5(raw_source, floats, [2, 4], "raw")
    dest = work / "floats.zarr"
    result = cli(binary, "import", f"file://{raw_source}", dest, "--chunk", "3,5")
    check(result.returncode == 0, f"import file://DATASET.n5 exits 0: {result.stderr.strip()}")
    if result.returncode != 0:
        return
    check(np.array_equal(read_back(binary, work, dest, floats.shape, "float32"), floats),
          "a raw float32 N5 dataset by file:// URL with --chunk reads back equal")

    container = work / "container.n5"
    (container / "raw").mkdir(parents=True)
    (container / "attributes.json").write_text('{"n5": "4.0.0"}')
    write_n5(container / "raw" / "s0", floats, [2, 4], "gzip")
    dest = work / "from_container.zarr"
    result = cli(binary, "import", container, dest, "--dataset", "/raw/s0")
    check(result.returncode == 0 and f"imported {container}:/raw/s0 as zarr v3 array" in
          result.stdout, f"import CONTAINER.n5 --dataset /raw/s0: {result.stdout.strip()} "
          f"{result.stderr.strip()}")
    check(np.array_equal(read_back(binary, work, dest, floats.shape, "float32"), floats),
          "the dataset named in its container reads back equal")

    dest = work / "floats.zarr"
    result = cli(binary, "import", raw_source, dest)
    check(result.returncode == 1 and "chunkwise: error: " in result.stderr,
          f"an existing DEST is refused without --overwrite: {result.stderr.strip()}")
    check((dest / "zarr.json").exists(), "and kept")
    result = cli(binary, "import", source, dest, "--overwrite")
    check(result.returncode == 0, f"--overwrite replaces it: {result.stderr.strip()}")


def check_zarr_source(binary, work):
    v2 = work / "v2.zarr"
    result = cli(binary, "zarr", "create", v2, "--shape", "9,11", "--chunk", "4,4", "--dtype",
                 "int32", "--format", "2", "--codec", "gzip:5")
    check(result.returncode == 0, f"zarr create --format 2: {result.stderr.strip()}")
    data = np.arange(99, dtype="<i4").reshape(9, 11) * -7
    values = work / "v2.npy"
    np.save(values, data)
    result = cli(binary, "zarr", "write", v2, "--input", values)
    check(result.returncode == 0, f"zarr write: {result.stderr.strip()}")
    dest = work / "from_v2.zarr"
    result = cli(binary, "import", v2, dest, "--shard", "8,8")
    check(result.returncode == 0, f"import ZARR_V2 exits 0: {result.stderr.strip()}")
    check(f"as zarr v3 array {dest}: int32 [9,11], chunks [4,4] in shards [8,8]" in result.stdout,
          f"its summary: {result.stdout.strip()}")
    if result.returncode != 0:
        return
    check(np.array_equal(read_back(binary, work, dest, data.shape, "int32"), data),
          "the zarr v2 array reads back equal from its sharded v3 import")
    result = cli(binary, "import", v2, work / "attrs.zarr", "--attributes", '{"a": 1}')
    check(result.returncode == 1 and "InvalidArgument" in result.stderr and
          "keeps its own attributes" in result.stderr,
          f"--attributes on a zarr source is refused: {result.stderr.strip()}")
    check(not (work / "attrs.zarr").exists(), "and leaves nothing")


def check_refused(binary, work, name, source, code, words):
    dest = work / f"{name}.zarr"
    result = cli(binary, "import", source, dest)
    stderr = result.stderr.strip()
    check(result.returncode == 1 and f"chunkwise: error: {code}: " in stderr
          and all(w in stderr for w in words), f"{name}: exit {result.returncode}, {stderr!r}")
    check(not dest.exists() or not any(p.is_file() for p in dest.rglob("*")),
          f"{name}: nothing at DEST")


def check_bad_inputs(binary, work):
    data = np.arange(6 * 8, dtype="int16").reshape(6, 8)
    short_header = work / "short_header.n5"
    write_n5(short_header, data, [4, 4], "raw")
    block = short_header / "1" / "1"
    block.write_bytes(block.read_bytes()[:7])
    check_refused(binary, work, "short_header", short_header, "Corruption",
                  [f"{block}: N5 block of 7 bytes, shorter than its header (12 bytes)"])

    short_values = work / "short_values.n5"
    write_n5(short_values, data, [4, 4], "raw")
    block = short_values / "0" / "1"
    block.write_bytes(block.read_bytes()[:-3])
    check_refused(binary, work, "short_values", short_values, "Corruption",
                  [f"{block}: N5 block holds 13 bytes of values where its header states 16"])

    short_gzip = work / "short_gzip.n5"
    write_n5(short_gzip, data, [4, 4], "gzip")
    block = short_gzip / "1" / "0"
    header = block.read_bytes()[:12]
    block.write_bytes(header + gzip.compress(b"\0" * 10))
    check_refused(binary, work, "short_gzip", short_gzip, "Corruption",
                  [f"{block}: N5 block holds 10 bytes of values where its header states 32"])

    lz4 = work / "lz4.n5"
    write_n5(lz4, data, [4, 4], "raw")
    meta = json.loads((lz4 / "attributes.json").read_text())
    meta["compression"] = {"type": "lz4", "blockSize": 65536}
    (lz4 / "attributes.json").write_text(json.dumps(meta))
    check_refused(binary, work, "lz4", lz4, "Unsupported",
                  [f"{lz4}/attributes.json: N5 compression lz4"])

    group = work / "group.n5"
    group.mkdir()
    (group / "attributes.json").write_text('{"n5": "4.0.0"}')
    check_refused(binary, work, "group", group, "InvalidArgument",
                  [f"{group}/attributes.json: an N5 group"])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunkwise", required=True, type=pathlib.Path)
    parser.add_argument("--workdir", required=True, type=pathlib.Path)
    args = parser.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    args.workdir.mkdir(parents=True)
    check_imports(args.chunkwise, args.workdir)
    check_zarr_source(args.chunkwise, args.workdir)
    check_bad_inputs(args.chunkwise, args.workdir)
    if failures:
        print(f"{len(failures)} check(s) failed")
        sys.exit(1)


if __name__ == "__main__":
    main()
