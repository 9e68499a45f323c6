"""N5 datasets and zarr arrays in (`chunkwise import`, `chunkwise.import_`),
checked by today's readers (the pinned .venv).

TensorStore's n5 driver writes the N5 inputs: raw, gzip, blosc, zstd, bzip2
and xz compression; uint8, uint16, int32, float32, uint64 (and int8,
float64); 2-d and 3-d; shapes that are not a multiple of the block size;
extra attributes beside the structural ones. Each is imported by the CLI
and by the Python module into a sharded zarr v3 array; zarr-python 3 and
TensorStore read both outputs back, and each must equal the array
TensorStore was given with its axes reversed (N5's dimensions are listed
fastest first: TensorStore's n5 array of shape (x, y, z) is the C-order
zarr array (z, y, x), as zarr's N5 readers have it), value for value. The
default zarr chunks must be the blockSize reversed and the non-structural
attributes the array's. A TensorStore block rewritten truncated to the
volume (as N5's Java writer stores edge blocks) must read the same.
zarr-python 3 writes a zarr v2 array (blosc) and a v3 array, which the
import copies into sharded v3 arrays equal to them.

Bad inputs (a block shorter than its header, a block shorter than its
stated size, lz4 compression, a group) must fail through both doors naming
the block or the attributes file, with a non-zero exit, the right error
class, and no file left under DEST.

usage: .venv/bin/python n5_import_interop.py --chunkwise build/chunkwise --workdir DIR
"""
import argparse
import gzip
import importlib.metadata
import json
import pathlib
import shutil
import struct
import subprocess
import sys

import numpy as np
import tensorstore as ts
import zarr

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "python"))
from interop_check import Checks, run  # noqa: E402

# name, TensorStore shape (N5 order), blockSize, dtype, compression, --shard (C order) or None
CASES = [
    ("raw_uint8_3d", (29, 37, 13), [16, 16, 4], "uint8", {"type": "raw"}, "8,32,32"),
    ("gzip_uint16_3d", (30, 21, 9), [8, 8, 4], "uint16",
     {"type": "gzip", "level": 6}, "8,16,16"),
    ("gzip_zlib_int32_2d", (45, 33), [10, 7], "int32",
     {"type": "gzip", "useZlib": True}, "14,20"),
    ("blosc_int32_3d", (17, 11, 6), [5, 4, 3], "int32",
     {"type": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1}, None),
    ("zstd_float32_3d", (19, 13, 7), [8, 4, 2], "float32", {"type": "zstd", "level": 3},
     "4,8,16"),
    ("blosc_float32_2d", (50, 23), [16, 16], "float32",
     {"type": "blosc", "cname": "zstd", "clevel": 3, "shuffle": 2}, "16,64"),
    ("zstd_uint64_2d", (33, 10), [8, 3], "uint64", {"type": "zstd"}, "6,16"),
    ("raw_uint64_3d", (5, 6, 7), [2, 4, 3], "uint64", {"type": "raw"}, None),
    ("bzip2_int8_2d", (20, 15), [6, 6], "int8", {"type": "bzip2", "blockSize": 9}, None),
    ("xz_float64_2d", (18, 9), [7, 4], "float64", {"type": "xz", "preset": 6}, "8,14"),
]


def versions():
    names = ["tensorstore", "zarr", "numpy"]
    return ", ".join(f"{n} {importlib.metadata.version(n)}" for n in names)


def volume(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        values = (rng.standard_normal(shape) * 1000).astype(dtype)
        values.flat[:3] = [np.nan, np.inf, -0.0]
        return values
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)


def same(actual, expected):
    return actual.dtype == expected.dtype and actual.shape == expected.shape and \
        np.array_equal(actual, expected, equal_nan=expected.dtype.kind == "f")


def write_n5(path, data, block, compression, attributes):
    store = ts.open({"driver": "n5", "kvstore": {"driver": "file", "path": str(path)},
                     "metadata": {"dimensions": list(data.shape), "blockSize": block,
                                  "dataType": str(data.dtype), "compression": compression},
                     "create": True, "delete_existing": True}).result()
    store[...] = data
    meta_path = path / "attributes.json"
    meta = json.loads(meta_path.read_text())
    meta.update(attributes)
    meta_path.write_text(json.dumps(meta))
    back = ts.open({"driver": "n5", "kvstore": {"driver": "file", "path": str(path)}},
                   read=True).result().read().result()
    return np.asarray(back)


def read_tensorstore(dest):
    return np.asarray(ts.open({"driver": "zarr3", "kvstore": {"driver": "file",
                                                               "path": str(dest)}},
                              read=True).result().read().result())


def check_case(checks, binary, work, case, seed):
    import chunkwise

    name, shape, block, dtype, compression, shard = case
    data = volume(shape, dtype, seed)
    source = work / f"{name}.n5"
    attributes = {"case": name, "resolution": [4.0, 4.0, 40.0][: len(shape)], "index": seed}
    written = write_n5(source, data, block, compression, attributes)
    checks.expect(same(written, data), f"{name}: TensorStore reads back what it wrote")
    expected = data.transpose()
    cli_dest, py_dest = work / f"{name}.cli.zarr", work / f"{name}.py.zarr"
    args = [binary, "--quiet", "import", source, cli_dest]
    if shard:
        args += ["--shard", shard]
    run(args)
    shards = None if shard is None else [int(n) for n in shard.split(",")]
    chunkwise.import_(source, str(py_dest), shards=shards)
    want_chunks = tuple(min(b, s) for b, s in zip(reversed(block), expected.shape))
    for who, dest in (("CLI", cli_dest), ("Python", py_dest)):
        array = zarr.open_array(str(dest), mode="r")
        checks.expect(same(array[...], expected),
                      f"{name}: {who}'s import read by zarr {array.dtype} {array.shape} equals "
                      f"TensorStore's {data.dtype} {data.shape} reversed")
        checks.expect(same(read_tensorstore(dest), expected),
                      f"{name}: {who}'s import read by TensorStore equals its n5 array reversed")
        checks.expect(array.chunks == want_chunks,
                      f"{name}: {who}'s chunks {array.chunks}, the blockSize {block} reversed")
        checks.expect(array.shards == (None if shards is None else tuple(shards)),
                      f"{name}: {who}'s shards {array.shards}")
        checks.expect(dict(array.attrs) == attributes,
                      f"{name}: {who}'s attributes {dict(array.attrs)}")
    cli_meta = json.loads((cli_dest / "zarr.json").read_text())
    py_meta = json.loads((py_dest / "zarr.json").read_text())
    checks.expect(cli_meta == py_meta, f"{name}: the CLI and Python write the same zarr.json")


def check_truncated_edge(checks, binary, work):
    """TensorStore writes edge blocks whole; N5's Java writer truncates them to the volume.
    A TensorStore gzip dataset whose edge blocks are rewritten truncated reads the same."""
    import chunkwise

    data = volume((13, 10, 7), "uint16", 77)
    block = [4, 4, 3]
    source = work / "truncated_edges.n5"
    write_n5(source, data, block, {"type": "gzip"}, {})
    rewritten = 0
    for path in sorted(p for p in source.rglob("*") if p.is_file() and p.name != "attributes.json"):
        position = [int(part) for part in path.relative_to(source).parts]
        lo = [p * b for p, b in zip(position, block)]
        size = [min(b, d - l) for b, d, l in zip(block, data.shape, lo)]
        if size == block:
            continue
        bytes_ = path.read_bytes()
        ndim = struct.unpack(">H", bytes_[2:4])[0]
        full = np.frombuffer(gzip.decompress(bytes_[4 + 4 * ndim:]), dtype=">u2")
        full = full.reshape(list(reversed(block)))  # x fastest: C order of the reversed block.
        part = full[tuple(slice(0, s) for s in reversed(size))]
        header = struct.pack(">HH", 0, ndim) + b"".join(struct.pack(">I", s) for s in size)
        path.write_bytes(header + gzip.compress(np.ascontiguousarray(part).tobytes()))
        rewritten += 1
    checks.expect(rewritten > 0, f"truncated edges: {rewritten} edge blocks rewritten")
    back = ts.open({"driver": "n5", "kvstore": {"driver": "file", "path": str(source)}},
                   read=True).result().read().result()
    checks.expect(same(np.asarray(back), data), "truncated edges: TensorStore reads them too")
    cli_dest, py_dest = work / "truncated_edges.cli.zarr", work / "truncated_edges.py.zarr"
    run([binary, "--quiet", "import", source, cli_dest, "--shard", "6,8,8"])
    chunkwise.import_(str(source), str(py_dest))
    for who, dest in (("CLI", cli_dest), ("Python", py_dest)):
        checks.expect(same(zarr.open_array(str(dest), mode="r")[...], data.transpose()),
                      f"truncated edges: {who}'s import equals the volume reversed")


def check_zarr_sources(checks, binary, work):
    import chunkwise

    data = volume((21, 17), "int16", 3)
    v2 = work / "source_v2.zarr"
    array = zarr.create_array(str(v2), shape=data.shape, chunks=(8, 5), dtype="int16",
                              zarr_format=2, fill_value=0)
    array[...] = data
    v3 = work / "source_v3.zarr"
    floats = volume((9, 12, 7), "float32", 4)
    array = zarr.create_array(str(v3), shape=floats.shape, chunks=(3, 4, 7), dtype="float32",
                              attributes={"unit": "nm"})
    array[...] = floats
    for name, source, values, shard, chunks in (
            ("zarr_v2", v2, data, "16,10", (8, 5)), ("zarr_v3", v3, floats, "6,8,7", (3, 4, 7))):
        cli_dest, py_dest = work / f"{name}.cli.zarr", work / f"{name}.py.zarr"
        run([binary, "--quiet", "import", source, cli_dest, "--shard", shard])
        chunkwise.import_(str(source), str(py_dest), shards=[int(n) for n in shard.split(",")])
        for who, dest in (("CLI", cli_dest), ("Python", py_dest)):
            out = zarr.open_array(str(dest), mode="r")
            checks.expect(out.metadata.zarr_format == 3 and out.chunks == chunks and
                          out.shards == tuple(int(n) for n in shard.split(",")),
                          f"{name}: {who}'s import is sharded zarr v3 {out.chunks} {out.shards}")
            checks.expect(same(out[...], values), f"{name}: {who}'s import read by zarr equals")
            checks.expect(same(read_tensorstore(dest), values),
                          f"{name}: {who}'s import read by TensorStore equals")
    checks.expect(dict(zarr.open_array(str(work / "zarr_v3.cli.zarr"), mode="r").attrs) ==
                  {"unit": "nm"}, "zarr_v3: the source's attributes are kept")


def expect_refused(checks, binary, work, name, source, words, error_type):
    import chunkwise

    cli_dest, py_dest = work / f"{name}.cli.zarr", work / f"{name}.py.zarr"
    result = subprocess.run([str(binary), "--quiet", "import", str(source), str(cli_dest)],
                            capture_output=True, text=True)
    stderr = result.stderr.strip()
    checks.expect(result.returncode == 1 and all(w in stderr for w in words),
                  f"{name}: the CLI exits {result.returncode} with {stderr!r}")
    try:
        chunkwise.import_(str(source), str(py_dest))
        checks.expect(False, f"{name}: Python imported it")
    except error_type as error:
        checks.expect(all(w in str(error) for w in words),
                      f"{name}: Python raises {type(error).__name__}: {error}")
    for dest in (cli_dest, py_dest):
        left = [p for p in dest.rglob("*") if p.is_file()] if dest.exists() else []
        checks.expect(not left, f"{name}: no file left under {dest.name}: {left}")


def check_bad_inputs(checks, binary, work):
    import chunkwise

    data = volume((40, 30, 20), "uint16", 8)

    def dataset(name):
        path = work / f"{name}.n5"
        write_n5(path, data, [16, 16, 8], {"type": "gzip"}, {})
        return path

    source = dataset("short_header")
    block = source / "1" / "1" / "2"  # Written after the first blocks: the import fails part-way.
    block.write_bytes(block.read_bytes()[:9])
    expect_refused(checks, binary, work, "short_header", source,
                   [f"{block}: N5 block of 9 bytes, shorter than its header (16 bytes)"],
                   chunkwise.CorruptionError)
    source = dataset("short_values")
    block = source / "2" / "0" / "1"
    raw = block.read_bytes()
    values = gzip.decompress(raw[16:])
    block.write_bytes(raw[:16] + gzip.compress(values[:-6]))
    expect_refused(checks, binary, work, "short_values", source,
                   [f"{block}: N5 block holds {len(values) - 6} bytes of values where its "
                    f"header states {len(values)}"], chunkwise.CorruptionError)
    source = dataset("lz4")
    meta = json.loads((source / "attributes.json").read_text())
    meta["compression"] = {"type": "lz4", "blockSize": 65536}
    (source / "attributes.json").write_text(json.dumps(meta))
    expect_refused(checks, binary, work, "lz4", source,
                   [f"{source}/attributes.json: N5 compression lz4"], chunkwise.UnsupportedError)
    group = work / "group.n5"
    group.mkdir()
    (group / "attributes.json").write_text('{"n5": "4.0.0"}')
    expect_refused(checks, binary, work, "group", group,
                   [f"{group}/attributes.json: an N5 group"], chunkwise.InvalidArgumentError)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunkwise", required=True, type=pathlib.Path)
    parser.add_argument("--workdir", required=True, type=pathlib.Path)
    args = parser.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    args.workdir.mkdir(parents=True)
    print(f"     {versions()}")
    checks = Checks()
    steps = [lambda c=case, s=seed: check_case(checks, args.chunkwise, args.workdir, c, s)
             for seed, case in enumerate(CASES)]
    steps.append(lambda: check_truncated_edge(checks, args.chunkwise, args.workdir))
    steps.append(lambda: check_zarr_sources(checks, args.chunkwise, args.workdir))
    steps.append(lambda: check_bad_inputs(checks, args.chunkwise, args.workdir))
    for step in steps:
        try:
            step()
        except Exception as error:  # noqa: BLE001
            checks.expect(False, f"{error}"[:600])
    checks.finish()


if __name__ == "__main__":
    main()
