"""zarr v2 codecs interop: numcodecs' compressors and filters, both ways.

The same script runs under two zarr-pythons (the CMake tests interop.zarr_v2_codecs,
Debian's zarr 2.13 and numcodecs 0.11, the oldest reader we know of, and
interop.current.zarr_v2_codecs, zarr 3 and numcodecs 0.17 of the pinned .venv):

- zarr-python writes a v2 array with each compressor (zlib, lz4, bz2, lzma) and
  each filter (Delta, FixedScaleOffset, Quantize, PackBits, AsType, Shuffle),
  C and F order, little- and big-endian; `chunkwise zarr read` must give what
  zarr-python reads back (for the lossless ones, the data written).
- zarr-python creates the same arrays empty, `chunkwise zarr write` fills them,
  and zarr-python must read back what it would have stored itself.
- `chunkwise zarr create --format 2 --codec zlib:5` (lz4, bz2, lzma) arrays are
  read by zarr-python equal to the data.
- A string array and an array with a codec chunkwise lacks: `zarr info` shows
  their shape, dtype and chunks; `zarr read` fails with Unsupported naming the
  dtype or codec.

usage: python3 zarr_v2_codecs_interop.py --chunkwise build/chunkwise --workdir DIR
"""
import argparse
import json
import pathlib
import shutil

import numcodecs
import numpy as np
import zarr

from interop_check import Checks, run

ZARR3 = int(zarr.__version__.split(".")[0]) >= 3


def cli(binary, *args, ok=True):
    return run([binary, *args], expect_success=ok)


def create(path, data, compressor, filters, order="C"):
    """An empty v2 array of data's shape and dtype, written by zarr-python."""
    extra = {"zarr_format": 2} if ZARR3 else {}
    chunks = tuple(max(1, (n + 2) // 3) for n in data.shape)  # Edge chunks included.
    return zarr.create(store=str(path), shape=data.shape, chunks=chunks, dtype=data.dtype,
                       compressor=compressor, filters=filters, order=order, fill_value=0,
                       overwrite=True, **extra)


def read_zarr(path):
    return zarr.open_array(str(path), mode="r")[...]


def read_ours(binary, path):
    out = path.parent / f"{path.name}.ours.npy"
    cli(binary, "-q", "zarr", "read", path, "--output", out, "--overwrite")
    return np.load(out)


def sample(dtype, shape, seed):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype) == bool:
        return rng.random(shape) < 0.3
    smooth = np.add.outer(np.linspace(0, 50, shape[0]), np.linspace(0, 20, shape[1]))
    values = smooth + rng.random(shape) * 4
    return values.astype(dtype)


def cases():
    """(name, data, compressor, filters, order, lossless)."""
    shape = (23, 17)
    return [
        ("zlib", sample("<u2", shape, 1), numcodecs.Zlib(level=1), None, "C", True),
        ("zlib9_f", sample("<i8", shape, 2), numcodecs.Zlib(level=9), None, "F", True),
        ("lz4", sample("<i4", shape, 3), numcodecs.LZ4(acceleration=1), None, "C", True),
        ("lz4_big", sample(">f4", shape, 4), numcodecs.LZ4(acceleration=3), None, "C", True),
        ("bz2", sample("<f8", shape, 5), numcodecs.BZ2(level=5), None, "C", True),
        ("lzma", sample("|u1", shape, 6), numcodecs.LZMA(), None, "C", True),
        ("lzma_preset", sample("<u4", shape, 7), numcodecs.LZMA(preset=1), None, "F", True),
        ("delta", sample("<i4", shape, 8), numcodecs.Zlib(1), [numcodecs.Delta("<i4")], "C", True),
        ("delta_astype_f", sample("<u2", shape, 9), numcodecs.LZ4(),
         [numcodecs.Delta("<u2", astype="<i4")], "F", True),
        ("delta_big", sample(">i4", shape, 10), None, [numcodecs.Delta(">i4")], "C", True),
        ("fixedscaleoffset", sample("<f8", shape, 11) / 7 + 1000, numcodecs.BZ2(1),
         [numcodecs.FixedScaleOffset(offset=1000, scale=100, dtype="<f8", astype="<u2")], "C", False),
        ("fixedscaleoffset_f4", sample("<f4", shape, 12) / 3, None,
         [numcodecs.FixedScaleOffset(offset=2.5, scale=10.0, dtype="<f4", astype="|u1")], "C", False),
        ("quantize", sample("<f8", shape, 13) / 9, numcodecs.Zlib(1),
         [numcodecs.Quantize(digits=2, dtype="<f8")], "C", False),
        ("quantize_f4", sample("<f8", shape, 14) / 9, None,
         [numcodecs.Quantize(digits=3, dtype="<f8", astype="<f4")], "C", False),
        ("packbits", sample(bool, shape, 15), numcodecs.Zlib(1), [numcodecs.PackBits()], "C", True),
        ("packbits_f", sample(bool, shape, 16), None, [numcodecs.PackBits()], "F", True),
        ("astype", sample("<f8", shape, 17), numcodecs.LZMA(),
         [numcodecs.AsType(encode_dtype="<i2", decode_dtype="<f8")], "C", False),
        ("shuffle", sample("<f8", shape, 18), numcodecs.Zlib(1), [numcodecs.Shuffle(elementsize=8)],
         "C", True),
        ("shuffle_delta", sample("<i4", shape, 19), numcodecs.BZ2(),
         [numcodecs.Delta("<i4", astype="<i2"), numcodecs.Shuffle(elementsize=2)], "C", True),
    ]


def check_theirs(checks, binary, work):
    for name, data, compressor, filters, order, lossless in cases():
        path = work / f"theirs_{name}.zarr"
        array = create(path, data, compressor, filters, order)
        array[...] = data
        theirs = read_zarr(path)
        if lossless:
            checks.expect(np.array_equal(theirs, data), f"{name}: zarr-python reads its own data back")
        try:
            ours = read_ours(binary, path)
        except RuntimeError as error:
            checks.expect(False, f"{name}: chunkwise reads zarr-python's array ({error})")
            continue
        checks.expect(ours.dtype == theirs.dtype.newbyteorder("=") or ours.dtype == theirs.dtype,
                      f"{name}: dtype {ours.dtype} vs {theirs.dtype}")
        checks.expect(np.array_equal(ours, theirs), f"{name}: chunkwise reads what zarr-python reads")


def check_ours(checks, binary, work):
    for name, data, compressor, filters, order, _ in cases():
        # What zarr-python itself would store and read back for this data.
        reference_path = work / f"reference_{name}.zarr"
        create(reference_path, data, compressor, filters, order)[...] = data
        expected = read_zarr(reference_path)
        path = work / f"ours_{name}.zarr"
        create(path, data, compressor, filters, order)
        source = work / f"ours_{name}.input.npy"
        np.save(source, data.astype(data.dtype.newbyteorder("<")))
        try:
            cli(binary, "-q", "zarr", "write", path, "--input", source)
        except RuntimeError as error:
            checks.expect(False, f"{name}: chunkwise writes into zarr-python's array ({error})")
            continue
        checks.expect(np.array_equal(read_zarr(path), expected),
                      f"{name}: zarr-python reads what chunkwise wrote")


def check_created(checks, binary, work):
    data = sample("<u2", (40, 30), 20)
    source = work / "created.input.npy"
    np.save(source, data)
    for codec, compressor_id in [("zlib:5", "zlib"), ("lz4", "lz4"), ("bz2:9", "bz2"),
                                 ("lzma", "lzma"), ("lzma:1", "lzma")]:
        path = work / f"created_{codec.replace(':', '_')}.zarr"
        cli(binary, "-q", "zarr", "create", path, "--shape", "40,30", "--dtype", "uint16",
            "--chunk", "16,16", "--format", "2", "--codec", codec, "--overwrite")
        cli(binary, "-q", "zarr", "write", path, "--input", source)
        zarray = json.loads((path / ".zarray").read_text())
        checks.expect(zarray["compressor"]["id"] == compressor_id, f"create --codec {codec}: {zarray['compressor']}")
        checks.expect(np.array_equal(read_zarr(path), data), f"create --codec {codec}: zarr-python reads it")


def check_unsupported(checks, binary, work):
    # A string array: zarr-python writes dtype "|O" with a vlen-utf8 filter.
    # Once unreadable, it is now read; the zfpy array below still is not.
    path = work / "strings.zarr"
    extra = {"zarr_format": 2} if ZARR3 else {"object_codec": numcodecs.VLenUTF8()}
    strings = zarr.create(store=str(path), shape=(5, 4), chunks=(2, 4), dtype=str, overwrite=True, **extra)
    strings[...] = np.array([[f"s{i}{j}" for j in range(4)] for i in range(5)], dtype=object)
    dtype = json.loads((path / ".zarray").read_text())["dtype"]
    # An array whose compressor chunkwise lacks, its metadata as numcodecs writes it.
    unknown = work / "unknown_codec.zarr"
    create(unknown, np.zeros((6, 6), "<f4"), numcodecs.Zlib(1), None)[...] = 1
    zarray = json.loads((unknown / ".zarray").read_text())
    zarray["compressor"] = {"id": "zfpy", "mode": 4, "tolerance": 0.5}
    (unknown / ".zarray").write_text(json.dumps(zarray))
    # Text has no fixed-size elements, yet info says it is read: as a unicode .npy.
    described = json.loads(cli(binary, "zarr", "info", path, "--json", ok=True).stdout)
    checks.expect(described["shape"] == [5, 4] and described["dtype"] == dtype
                  and described.get("readable") is True and "unsupported" not in described,
                  f"info {path.name}: readable {described.get('readable')}, dtype {described.get('dtype')}")
    cli(binary, "zarr", "read", path, "--output", work / "strings.npy", "--overwrite", ok=True)
    checks.expect(np.load(work / "strings.npy").tolist() == [[str(x) for x in row] for row in strings[...]],
                  f"read {path.name}: the .npy holds zarr-python's strings")
    for target, named, shape, chunks in [(unknown, "numcodecs.zfpy", [6, 6], [2, 2])]:
        info = cli(binary, "zarr", "info", target, "--json", ok=True)
        described = json.loads(info.stdout)
        checks.expect(described["shape"] == shape and described["chunks"] == chunks,
                      f"info {target.name}: shape {described.get('shape')}, chunks {described.get('chunks')}")
        checks.expect(described.get("readable") is False and named in described.get("unsupported", ""),
                      f"info {target.name}: says it cannot be read, naming {named}: {described.get('unsupported')}")
        text = cli(binary, "zarr", "info", target).stdout
        checks.expect("[" + ", ".join(map(str, shape)) + "]" in text or "[" + ",".join(map(str, shape)) + "]" in text,
                      f"info {target.name} (text) shows the shape: {text.splitlines()[1] if text else ''}")
        failed = cli(binary, "zarr", "read", target, "--output", work / "unsupported.npy", "--overwrite", ok=False)
        checks.expect("Unsupported" in failed.stderr and named in failed.stderr,
                      f"read {target.name}: {failed.stderr.strip()}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunkwise", required=True, type=pathlib.Path)
    parser.add_argument("--workdir", required=True, type=pathlib.Path)
    args = parser.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    args.workdir.mkdir(parents=True)
    print(f"zarr {zarr.__version__}, numcodecs {numcodecs.__version__}")
    checks = Checks()
    for check in (check_theirs, check_ours, check_created, check_unsupported):
        try:
            check(checks, args.chunkwise, args.workdir)
        except (RuntimeError, KeyError, ValueError) as error:  # A command failed: the rest of it cannot run.
            checks.expect(False, f"{check.__name__}: {error}")
    checks.finish()


if __name__ == "__main__":
    main()
