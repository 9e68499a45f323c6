"""zarr v3 interop with today's readers and writers (the pinned .venv).

Our arrays, read by zarr-python 3 (its default codec pipeline and the zarrs
pipeline) and by TensorStore, value by value:
- every dtype we write (bool, int8..int64, uint8..uint64, float16/32/64),
  sharded, with edge shards (no extent divides by the shard);
- every codec: none, crc32c, zstd, zstd + crc32c, gzip, blosc with each
  shuffle (shuffle, bitshuffle, noshuffle) and the deterministic lz4 encoder,
  each sharded and unsharded; transpose (metadata written here, data by us);
- the shard index at the start and at the end, nested sharding;
- fill values: NaN (float16/32/64), -7, 255 and true, in arrays partially
  written so that whole shards and inner chunks are left out;
- big-endian arrays and v2 arrays (blosc, zstd, gzip, none).

Their arrays, read by us: zarr-python 3 and TensorStore each write sharded
(index at the end and at the start), transposed, big-endian, partially
written with a fill value, and v2 (C and F order, "." and "/" separators,
big-endian, blosc/zstd/gzip) arrays; `chunkwise zarr read` must return the
values they wrote, fill included.

zarrita (node) and Debian's zarr-python 2.13 stay as further readers in
tests/interop/python/zarr_interop.py.

usage: .venv/bin/python zarr3_interop.py --chunkwise build/chunkwise --workdir DIR
"""
import argparse
import importlib.metadata
import json
import pathlib
import shutil
import sys

import numcodecs
import numpy as np
import tensorstore as ts
import zarr
import zarr.codecs as zc

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "python"))
from interop_check import Checks, run  # noqa: E402

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64"]
CODECS = ["none", "crc32c", "zstd:3", "zstd:1+crc32c", "gzip:6", "blosc:lz4:5:shuffle",
          "blosc:zstd:3:bitshuffle", "blosc:blosclz:9:noshuffle", "blosc:lz4det:5:shuffle"]
PIPELINES = {"zarr-python": "zarr.core.codec_pipeline.BatchedCodecPipeline",
             "zarr-python+zarrs": "zarrs.ZarrsCodecPipeline"}
LITTLE_BYTES = {"name": "bytes", "configuration": {"endian": "little"}}
INDEX_CODECS = [LITTLE_BYTES, {"name": "crc32c"}]


def versions():
    names = ["zarr", "tensorstore", "zarrs", "numcodecs", "numpy"]
    return ", ".join(f"{n} {importlib.metadata.version(n)}" for n in names)


def sample(dtype, shape, seed):
    """Smooth values plus noise, with a block of zeros so fill chunks occur."""
    rng = np.random.default_rng(seed)
    grids = np.meshgrid(*[np.linspace(0, 3, n) for n in shape], indexing="ij")
    values = sum(np.sin(g * (i + 1)) for i, g in enumerate(grids)) * 40 + 60 + rng.normal(0, 3, shape)
    if dtype == "bool":
        data = values > 60
    elif dtype.startswith("float"):
        data = values.astype(dtype)
    else:
        info = np.iinfo(dtype)
        data = np.clip(values, info.min, info.max).astype(dtype)
    data[: shape[0] // 3] = 0
    return data


def same_values(actual, expected):
    """(equal, why not): same shape and element type; floats compare NaN positions, then bits."""
    actual = np.asarray(actual)
    if actual.shape != expected.shape:
        return False, f"shape {actual.shape} != {expected.shape}"
    if actual.dtype.kind != expected.dtype.kind or actual.dtype.itemsize != expected.dtype.itemsize:
        return False, f"dtype {actual.dtype} != {expected.dtype}"
    actual = actual.astype(expected.dtype.newbyteorder("<"))
    expected = expected.astype(expected.dtype.newbyteorder("<"))
    if expected.dtype.kind == "f":
        nan = np.isnan(expected)
        if not np.array_equal(np.isnan(actual), nan):
            return False, f"NaN at {int(np.isnan(actual).sum())} places, expected {int(nan.sum())}"
        actual, expected = actual[~nan], expected[~nan]
    if actual.tobytes() != expected.tobytes():
        differ = np.argwhere(actual != expected) if actual.ndim else [()]
        return False, f"{len(differ)} elements differ, first at {tuple(int(i) for i in differ[0])}"
    return True, ""


def check_same(checks, actual, expected, what):
    equal, why = same_values(actual, expected)
    checks.expect(equal, what + ("" if equal else f": {why}"))


def cli(binary, *args, ok=True):
    return run([binary, "-q", *args], expect_success=ok)


def write_ours(binary, work, name, data, create_args, shape=None, offset=None):
    """Creates an array of `shape` (default: data's) with our CLI and writes `data` at `offset`."""
    path = work / name
    source = work / f"{name}.input.npy"
    np.save(source, data)
    shape = data.shape if shape is None else shape
    cli(binary, "zarr", "create", path, "--shape", ",".join(map(str, shape)), "--dtype", str(data.dtype),
        *create_args, "--overwrite")
    args = ["--offset", ",".join(map(str, offset))] if offset is not None else []
    cli(binary, "zarr", "write", path, "--input", source, *args)
    return path


def write_ours_with_metadata(binary, work, name, metadata, data):
    """Metadata written here (for codecs the CLI does not spell), the data by our writer."""
    path = work / name
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir()
    (path / "zarr.json").write_text(json.dumps(metadata))
    np.save(work / f"{name}.input.npy", data)
    cli(binary, "zarr", "write", path, "--input", work / f"{name}.input.npy")
    return path


def read_ours(binary, path):
    out = path.parent / f"{path.name}.ours.npy"
    cli(binary, "zarr", "read", path, "--output", out, "--overwrite")
    return np.load(out)


def v3_metadata(shape, dtype, chunk_shape, codecs, fill_value=0):
    return {"zarr_format": 3, "node_type": "array", "shape": list(shape), "data_type": dtype,
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(chunk_shape)}},
            "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
            "fill_value": fill_value, "codecs": codecs, "attributes": {}}


def sharding(chunk_shape, codecs, index_location="end"):
    return {"name": "sharding_indexed",
            "configuration": {"chunk_shape": list(chunk_shape), "codecs": codecs, "index_codecs": INDEX_CODECS,
                              "index_location": index_location}}


# ---- readers of theirs --------------------------------------------------------------------------

def read_zarr_python(path, pipeline):
    with zarr.config.set({"codec_pipeline.path": PIPELINES[pipeline]}):
        return zarr.open_array(str(path), mode="r")[...]


def read_tensorstore(path):
    driver = "zarr3" if (path / "zarr.json").exists() else "zarr"
    spec = {"driver": driver, "kvstore": {"driver": "file", "path": str(path)},
            "context": {"cache_pool": {"total_bytes_limit": 0}}}
    return ts.open(spec, read=True).result().read().result()


def check_theirs_read_ours(checks, path, expected, name):
    for pipeline in PIPELINES:
        try:
            check_same(checks, read_zarr_python(path, pipeline), expected, f"{name}: {pipeline} reads ours")
        except Exception as error:  # noqa: BLE001 - any failure is a failed check
            checks.expect(False, f"{name}: {pipeline} failed: {error!r}"[:300])
    try:
        check_same(checks, read_tensorstore(path), expected, f"{name}: TensorStore reads ours")
    except Exception as error:  # noqa: BLE001
        checks.expect(False, f"{name}: TensorStore failed: {error!r}"[:300])


# ---- our arrays ---------------------------------------------------------------------------------

def our_cases(binary, work):
    """(name, path, expected values) for every array we write."""
    cases = []
    for i, dtype in enumerate(DTYPES):
        data = sample(dtype, (37, 29, 11), i)
        path = write_ours(binary, work, f"dtype_{dtype}", data,
                          ["--chunk", "8,8,4", "--shard", "16,16,8", "--codec", "zstd:3"])
        cases.append((f"dtype_{dtype} (sharded, edge shards)", path, data))
    for i, codec in enumerate(CODECS):
        tag = codec.replace(":", "_").replace("+", "_")
        for dtype in ("uint16", "float32") if codec.startswith("blosc") else ("uint16",):
            data = sample(dtype, (40, 33, 7), 100 + i)
            path = write_ours(binary, work, f"sharded_{tag}_{dtype}", data,
                              ["--chunk", "8,8,7", "--shard", "16,24,7", "--codec", codec])
            cases.append((f"sharded {codec} {dtype}", path, data))
            path = write_ours(binary, work, f"plain_{tag}_{dtype}", data, ["--chunk", "16,16,4", "--codec", codec])
            cases.append((f"unsharded {codec} {dtype}", path, data))
    for i, dtype in enumerate(["uint8", "int32", "uint64", "float64"]):
        data = sample(dtype, (33, 17, 9), 200 + i)
        for location in ("start", "end"):
            path = write_ours(binary, work, f"index_{location}_{dtype}", data,
                              ["--chunk", "8,8,3", "--shard", "16,16,9", "--index-location", location,
                               "--codec", "blosc:lz4:5:shuffle"])
            cases.append((f"index at the {location} {dtype}", path, data))
    cases += transposed_and_big_endian(binary, work)
    cases.append(nested(binary, work))
    cases += partially_written(binary, work)
    for i, codec in enumerate(["none", "zstd:3", "gzip:6", "blosc:lz4:5:shuffle", "blosc:zstd:3:bitshuffle"]):
        for dtype in ("uint16", "float64", "int8"):
            data = sample(dtype, (25, 18, 6), 500 + i)
            path = write_ours(binary, work, f"v2_{dtype}_{codec.replace(':', '_')}", data,
                              ["--format", "2", "--chunk", "8,8,4", "--codec", codec])
            cases.append((f"v2 {codec} {dtype}", path, data))
    return cases


def transposed_and_big_endian(binary, work):
    cases = []
    zstd = {"name": "zstd", "configuration": {"level": 2, "checksum": False}}
    blosc = {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": 4,
                                                "blocksize": 0}}
    transpose = {"name": "transpose", "configuration": {"order": [2, 0, 1]}}
    big = {"name": "bytes", "configuration": {"endian": "big"}}
    layouts = [
        ("transpose_plain", "int32", [16, 16, 4], [transpose, LITTLE_BYTES, blosc]),
        ("transpose_in_shard", "float32", [16, 16, 8], [sharding([8, 8, 4], [transpose, LITTLE_BYTES, zstd])]),
        ("transpose_then_shard", "uint16", [16, 16, 8], [transpose, sharding([8, 8, 4], [LITTLE_BYTES, zstd])]),
        ("big_endian_plain", "int32", [16, 16, 4], [big, blosc]),
        ("big_endian_in_shard", "float64", [16, 16, 8], [sharding([8, 8, 4], [big, zstd])]),
        ("big_endian_uint16_transposed", "uint16", [16, 16, 4], [transpose, big, {"name": "gzip",
                                                                               "configuration": {"level": 5}}]),
    ]
    for i, (name, dtype, chunk, codecs) in enumerate(layouts):
        data = sample(dtype, (37, 29, 11), 300 + i)
        path = write_ours_with_metadata(binary, work, name, v3_metadata(data.shape, dtype, chunk, codecs), data)
        cases.append((name.replace("_", " "), path, data))
    return cases


def nested(binary, work):
    zstd = {"name": "zstd", "configuration": {"level": 2, "checksum": False}}
    inner = sharding([4, 4, 5], [LITTLE_BYTES, zstd])
    outer = sharding([8, 8, 5], [inner])
    data = sample("int32", (30, 21, 10), 310)
    path = write_ours_with_metadata(binary, work, "nested",
                                    v3_metadata(data.shape, "int32", [16, 16, 10], [outer]), data)
    return ("nested sharding", path, data)


def partially_written(binary, work):
    """Arrays written only in part: the rest reads as the fill value."""
    cases = []
    for i, (dtype, fill, text) in enumerate([("float32", np.nan, "nan"), ("float64", np.nan, "nan"),
                                             ("float16", np.nan, "nan"), ("int16", -7, "-7"),
                                             ("uint8", 255, "255"), ("bool", True, "true")]):
        shape, offset = (40, 30, 9), (5, 17, 2)
        patch = sample(dtype, (20, 9, 5), 400 + i)
        expected = np.full(shape, fill, dtype=dtype)
        expected[5:25, 17:26, 2:7] = patch
        for sharded in (True, False):
            layout = ["--chunk", "8,8,3", "--shard", "16,16,9"] if sharded else ["--chunk", "8,8,3"]
            name = f"fill_{dtype}_{text}_{'sharded' if sharded else 'plain'}"
            path = write_ours(binary, work, name, patch, layout + ["--fill", text, "--codec", "zstd:1"],
                              shape=shape, offset=offset)
            cases.append((f"fill {text} {dtype} {'sharded' if sharded else 'unsharded'}, partly written",
                          path, expected))
    return cases


def check_ours(checks, binary, work):
    cases = our_cases(binary, work)
    for name, path, expected in cases:
        check_same(checks, read_ours(binary, path), expected, f"{name}: chunkwise reads back")
        check_theirs_read_ours(checks, path, expected, name)
    meta = json.loads((work / "fill_float32_nan_sharded" / "zarr.json").read_text())
    checks.expect(meta["fill_value"] == "NaN", f"the NaN fill value is written as \"NaN\" ({meta['fill_value']!r})")
    shards = sorted(p.relative_to(work / "fill_float32_nan_sharded").as_posix()
                    for p in (work / "fill_float32_nan_sharded" / "c").rglob("*") if p.is_file())
    checks.expect(len(shards) < 9, f"the partly written array leaves shards out ({len(shards)} of 9 written)")


# ---- their arrays -------------------------------------------------------------------------------

def zarr_python_writes(work):
    """(name, path, expected): arrays zarr-python 3 writes."""
    out = []

    def create(name, data, **kwargs):
        path = work / f"zp_{name}"
        shutil.rmtree(path, ignore_errors=True)
        array = zarr.create_array(str(path), shape=data.shape, dtype=kwargs.pop("dtype", data.dtype), **kwargs)
        return path, array

    data = sample("uint16", (45, 38, 9), 600)
    path, array = create("sharded_end", data, chunks=(8, 8, 9), shards=(16, 24, 9),
                         compressors=[zc.ZstdCodec(level=3)])
    array[...] = data
    out.append(("sharded, index at the end, zstd", path, data))

    data = sample("float32", (45, 38, 9), 601)
    path, array = create("sharded_start", data, chunks=(16, 24, 9),
                         serializer=zc.ShardingCodec(chunk_shape=(8, 8, 9), index_location="start",
                                                     codecs=[zc.BytesCodec(), zc.BloscCodec(
                                                         cname="zstd", clevel=3, shuffle="bitshuffle")]),
                         compressors=None)
    array[...] = data
    out.append(("sharded, index at the start, blosc bitshuffle", path, data))

    data = sample("int32", (19, 14, 6), 602)
    path, array = create("transposed", data, chunks=(8, 8, 4), filters=[zc.TransposeCodec(order=(2, 0, 1))],
                         compressors=[zc.GzipCodec(level=5)])
    array[...] = data
    out.append(("transposed, gzip", path, data))

    data = sample("float64", (19, 14, 6), 603)
    path, array = create("big_endian", data, chunks=(8, 8, 4), serializer=zc.BytesCodec(endian="big"),
                         compressors=[zc.BloscCodec(cname="lz4", clevel=5, shuffle="shuffle")])
    array[...] = data
    out.append(("big-endian float64, blosc shuffle", path, data))

    data = sample("float16", (30, 20), 604)
    path, array = create("float16_crc", data, chunks=(8, 8), compressors=[zc.Crc32cCodec()])
    array[...] = data
    out.append(("float16, crc32c", path, data))

    expected = np.full((40, 30), -3, dtype="int16")
    expected[5:20, 3:10] = sample("int16", (15, 7), 605)
    path, array = create("partial", expected, chunks=(8, 8), shards=(16, 16), fill_value=-3)
    array[5:20, 3:10] = expected[5:20, 3:10]
    out.append(("partly written, fill -3, sharded", path, expected))

    expected = np.full((40, 30), np.nan, dtype="float32")
    expected[21:30, 0:30] = sample("float32", (9, 30), 606)
    path, array = create("partial_nan", expected, chunks=(8, 8), fill_value=np.nan)
    array[21:30, 0:30] = expected[21:30, 0:30]
    out.append(("partly written, fill NaN", path, expected))

    for i, (order, separator, dtype, compressor) in enumerate([
            ("C", ".", ">u2", numcodecs.Blosc(cname="lz4", clevel=5, shuffle=numcodecs.Blosc.SHUFFLE)),
            ("F", "/", "<f4", numcodecs.Zstd(level=3)), ("C", "/", "<i8", numcodecs.GZip(level=6)),
            ("F", ".", "|u1", None)]):
        data = sample(np.dtype(dtype).newbyteorder("=").name, (23, 17, 5), 610 + i).astype(dtype)
        path, array = create(f"v2_{i}", data, chunks=(8, 8, 3), zarr_format=2, order=order,
                             compressors=compressor, filters=None, fill_value=0,
                             chunk_key_encoding={"name": "v2", "separator": separator})
        array[...] = data
        out.append((f"v2 {order} order, '{separator}', {dtype}, {compressor}", path, data))
    return out


def tensorstore_writes(work):
    """(name, path, expected): arrays TensorStore writes."""
    out = []

    def create(name, driver, metadata, data, region=None):
        path = work / f"ts_{name}"
        shutil.rmtree(path, ignore_errors=True)
        spec = {"driver": driver, "kvstore": {"driver": "file", "path": str(path)}, "metadata": metadata}
        store = ts.open(spec, create=True).result()
        if region is None:
            store.write(data).result()
        else:
            store[region].write(data[region]).result()
        return path

    def v3(shape, dtype, chunk, codecs, fill=0):
        return {"shape": list(shape), "data_type": dtype, "fill_value": fill, "codecs": codecs,
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(chunk)}}}

    blosc = {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": 2,
                                                "blocksize": 0}}
    zstd = {"name": "zstd", "configuration": {"level": 3}}
    data = sample("uint16", (45, 38, 9), 700)
    for location in ("end", "start"):
        codecs = [sharding([8, 8, 9], [LITTLE_BYTES, blosc], location)]
        path = create(f"sharded_{location}", "zarr3", v3(data.shape, "uint16", [16, 24, 9], codecs), data)
        out.append((f"sharded, index at the {location}, blosc", path, data))

    data = sample("int32", (19, 14, 6), 701)
    codecs = [{"name": "transpose", "configuration": {"order": [2, 0, 1]}}, LITTLE_BYTES,
              {"name": "gzip", "configuration": {"level": 5}}]
    out.append(("transposed, gzip", create("transposed", "zarr3", v3(data.shape, "int32", [8, 8, 4], codecs), data),
                data))

    data = sample("float64", (19, 14, 6), 702)
    codecs = [sharding([4, 4, 6], [{"name": "bytes", "configuration": {"endian": "big"}}, zstd])]
    out.append(("big-endian float64 in shards", create("big_endian", "zarr3",
                                                       v3(data.shape, "float64", [8, 8, 6], codecs), data), data))

    expected = np.full((40, 30, 5), 7, dtype="int16")
    expected[10:33, 2:20] = sample("int16", (23, 18, 5), 703)
    region = np.s_[10:33, 2:20]
    codecs = [sharding([8, 8, 5], [LITTLE_BYTES, {"name": "crc32c"}])]
    path = create("partial", "zarr3", v3(expected.shape, "int16", [16, 16, 5], codecs, fill=7), expected, region)
    out.append(("partly written, fill 7, sharded", path, expected))

    expected = np.full((40, 30), np.nan, dtype="float32")
    expected[0:9, 0:30] = sample("float32", (9, 30), 704)
    path = create("partial_nan", "zarr3", v3(expected.shape, "float32", [8, 8], [LITTLE_BYTES, zstd], fill="NaN"),
                  expected, np.s_[0:9, 0:30])
    out.append(("partly written, fill NaN", path, expected))

    for i, (order, separator, dtype, compressor) in enumerate([
            ("F", "/", "<f8", {"id": "blosc", "cname": "zstd", "clevel": 3, "shuffle": 2, "blocksize": 0}),
            ("C", ".", ">i2", {"id": "zstd", "level": 3}), ("C", "/", "<u4", None)]):
        data = sample(np.dtype(dtype).newbyteorder("=").name, (23, 17, 5), 710 + i).astype(dtype)
        metadata = {"shape": list(data.shape), "chunks": [8, 8, 3], "dtype": dtype, "order": order,
                    "compressor": compressor, "fill_value": 0, "dimension_separator": separator}
        out.append((f"v2 {order} order, '{separator}', {dtype}, {compressor and compressor['id']}",
                    create(f"v2_{i}", "zarr", metadata, data), data))
    return out


def check_theirs(checks, binary, work):
    for writer, cases in (("zarr-python", zarr_python_writes(work)), ("TensorStore", tensorstore_writes(work))):
        for name, path, expected in cases:
            try:
                check_same(checks, read_ours(binary, path), expected, f"chunkwise reads {writer}'s {name}")
            except Exception as error:  # noqa: BLE001
                checks.expect(False, f"chunkwise reads {writer}'s {name}: {error}"[:400])
    meta = json.loads((work / "zp_big_endian" / "zarr.json").read_text())
    checks.expect(meta["codecs"][0] == {"name": "bytes", "configuration": {"endian": "big"}},
                  f"zarr-python wrote the big-endian array with a big-endian bytes codec ({meta['codecs'][0]})")
    meta = json.loads((work / "zp_sharded_start" / "zarr.json").read_text())
    checks.expect(meta["codecs"][0]["configuration"]["index_location"] == "start",
                  "zarr-python wrote the shard index at the start")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunkwise", required=True, type=pathlib.Path)
    parser.add_argument("--workdir", required=True, type=pathlib.Path)
    args = parser.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    args.workdir.mkdir(parents=True)
    print(f"     {versions()}")
    checks = Checks()
    check_ours(checks, args.chunkwise, args.workdir)
    check_theirs(checks, args.chunkwise, args.workdir)
    checks.finish()


if __name__ == "__main__":
    main()
