"""HDF5 datasets in (`chunkwise import FILE.h5:/path`, `chunkwise.import_`),
checked by today's readers (the pinned .venv).

h5py writes the inputs: chunked + gzip, chunked + shuffle + gzip,
contiguous, uint8, uint16, int32, float32, float64 and big-endian >u2, 2-d
and 3-d, shapes that are not a multiple of the chunk, nested groups. Each is
imported by the CLI and by the Python module into a sharded zarr v3 array;
zarr-python 3 and TensorStore read both outputs back, and each must equal
the array h5py was given, value for value (NaN where it put NaN). The
default zarr chunks must be the dataset's own, and its numeric and string
attributes must be the array's. Bad inputs (a missing file, a file that is
not HDF5, a group, a missing path, a compound dtype, a filter Debian's
libhdf5 lacks: h5py's LZF, a truncated file) must fail naming the file and
dataset, with a non-zero exit and no DEST left; a chunk damaged in place
fails the import part-way, naming the rows, and leaves no file under DEST.

usage: .venv/bin/python hdf5_import_interop.py --chunkwise build/chunkwise --workdir DIR
"""
import argparse
import importlib.metadata
import json
import pathlib
import shutil
import subprocess
import sys

import h5py
import numpy as np
import tensorstore as ts
import zarr

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "python"))
from interop_check import Checks, run  # noqa: E402

# name, dataset path, shape, dtype, h5py create_dataset options, --shard
CASES = [
    ("gzip_uint16_3d", "/volumes/raw", (13, 37, 29), "uint16",
     {"chunks": (4, 16, 16), "compression": "gzip"}, "8,32,32"),
    ("shuffle_gzip_int32_3d", "/a/b/c/labels", (9, 21, 17), "int32",
     {"chunks": (3, 8, 8), "compression": "gzip", "compression_opts": 9, "shuffle": True},
     "6,16,16"),
    ("contiguous_float32_2d", "/image", (45, 33), "float32", {}, None),
    ("gzip_float64_2d", "/f8", (30, 19), "float64",
     {"chunks": (7, 5), "compression": "gzip", "shuffle": True}, "14,10"),
    ("contiguous_uint8_3d", "/u8", (5, 40, 24), "uint8", {}, None),
    ("big_endian_u2_3d", "/be", (6, 11, 13), ">u2", {"chunks": (4, 4, 4), "compression": "gzip"},
     "4,8,8"),
]


def versions():
    names = ["h5py", "zarr", "tensorstore", "numpy"]
    return ", ".join(f"{n} {importlib.metadata.version(n)}" for n in names) + \
        f", libhdf5 {h5py.version.hdf5_version} (h5py's)"


def volume(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    kind = np.dtype(dtype).kind
    if kind == "f":
        values = rng.standard_normal(shape) * 1000
        values.flat[:3] = [np.nan, np.inf, -0.0]
        return values.astype(dtype)
    native = np.dtype(dtype).newbyteorder("=")
    info = np.iinfo(native)
    return rng.integers(info.min, info.max, shape, dtype=native, endpoint=True).astype(dtype)


def same(actual, expected):
    """Equal values and shape; the dtype equal up to byte order."""
    return actual.dtype == expected.dtype.newbyteorder("=") and actual.shape == expected.shape \
        and np.array_equal(actual, expected, equal_nan=expected.dtype.kind == "f")


def read_tensorstore(dest):
    store = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(dest)}},
                    read=True).result()
    return store.read().result()


def check_case(checks, binary, work, case, seed):
    import chunkwise

    name, path, shape, dtype, options, shard = case
    data = volume(shape, dtype, seed)
    source = work / f"{name}.h5"
    with h5py.File(source, "w") as f:
        dataset = f.create_dataset(path, data=data, **options)
        dataset.attrs["case"] = name
        dataset.attrs["scale"] = np.array(dataset_scale(shape))
        dataset.attrs["index"] = np.int32(seed)
        hdf5_chunks = dataset.chunks
    with h5py.File(source, "r") as f:
        expected = f[path][...]
    checks.expect(expected.dtype == data.dtype and
                  np.array_equal(expected, data, equal_nan=data.dtype.kind == "f"),
                  f"{name}: h5py reads back what it wrote, {expected.dtype} as given")
    cli_dest, py_dest = work / f"{name}.cli.zarr", work / f"{name}.py.zarr"
    args = [binary, "--quiet", "import", f"{source}:{path}", cli_dest]
    if shard:
        args += ["--shard", shard]
    run(args)
    chunkwise.import_(source, str(py_dest), dataset=path,
                      shards=None if shard is None else [int(n) for n in shard.split(",")])
    for who, dest in (("CLI", cli_dest), ("Python", py_dest)):
        array = zarr.open_array(str(dest), mode="r")
        checks.expect(same(array[...], data),
                      f"{name}: {who}'s import read by zarr {array.dtype} {array.shape} equals "
                      f"h5py's {data.dtype} {data.shape}")
        checks.expect(same(read_tensorstore(dest), data),
                      f"{name}: {who}'s import read by TensorStore equals h5py's")
        want_shards = None if shard is None else tuple(int(n) for n in shard.split(","))
        checks.expect(array.shards == want_shards, f"{name}: {who}'s shards {array.shards}")
        # A contiguous dataset (under 1 MiB here) is one chunk by default.
        want_chunks = shape if hdf5_chunks is None else hdf5_chunks
        checks.expect(array.chunks == want_chunks,
                      f"{name}: {who}'s chunks {array.chunks}, the dataset's {hdf5_chunks}")
        attributes = dict(array.attrs)
        checks.expect(attributes == {"case": name, "scale": dataset_scale(shape),
                                     "index": seed},
                      f"{name}: {who}'s attributes {attributes}")
    cli_meta = json.loads((cli_dest / "zarr.json").read_text())
    py_meta = json.loads((py_dest / "zarr.json").read_text())
    checks.expect(cli_meta == py_meta, f"{name}: the CLI and Python write the same zarr.json")


def dataset_scale(shape):
    return [1.5, 2.0][: len(shape) - 1] + [0.25]


def expect_refused(checks, binary, work, name, source, words, error_type):
    """The CLI exits 1 naming `words`; Python raises `error_type`; neither leaves DEST."""
    import chunkwise

    cli_dest, py_dest = work / f"{name}.cli.zarr", work / f"{name}.py.zarr"
    result = subprocess.run([str(binary), "--quiet", "import", str(source), str(cli_dest)],
                            capture_output=True, text=True)
    stderr = result.stderr.strip()
    checks.expect(result.returncode == 1 and all(w in stderr for w in words),
                  f"{name}: the CLI exits {result.returncode} with {stderr!r}")
    checks.expect(not cli_dest.exists(), f"{name}: the CLI left no {cli_dest.name}")
    try:
        chunkwise.import_(source, str(py_dest))
        checks.expect(False, f"{name}: Python imported it")
    except error_type as error:
        checks.expect(all(w in str(error) for w in words),
                      f"{name}: Python raises {type(error).__name__}: {error}")
    checks.expect(not py_dest.exists(), f"{name}: Python left no {py_dest.name}")


def check_bad_inputs(checks, binary, work):
    import chunkwise

    source = work / "bad.h5"
    with h5py.File(source, "w") as f:
        f.create_dataset("group/data", data=np.zeros((4, 4), "uint8"))
        f.create_dataset("table", data=np.zeros(3, dtype=[("a", "<i4"), ("b", "<f8")]))
        f.create_dataset("lzf", data=np.zeros((8, 8), "uint16"), chunks=(4, 4), compression="lzf")
    absent = work / "absent.h5"
    expect_refused(checks, binary, work, "missing_file", f"{absent}:/group/data",
                   [f"{absent}:/group/data: no such file"], chunkwise.NotFoundError)
    notes = work / "notes.h5"
    notes.write_text("not an HDF5 file\n")
    expect_refused(checks, binary, work, "not_hdf5", f"{notes}:/group/data",
                   [f"{notes}:/group/data: {notes} is not an HDF5 file"],
                   chunkwise.InvalidArgumentError)
    expect_refused(checks, binary, work, "group", f"{source}:/group",
                   [f"{source}:/group: a group, not a dataset"], chunkwise.InvalidArgumentError)
    expect_refused(checks, binary, work, "missing_path", f"{source}:/group/absent",
                   [f"{source}:/group/absent: no such dataset"], chunkwise.NotFoundError)
    expect_refused(checks, binary, work, "compound", f"{source}:/table",
                   [f"{source}:/table: a dataset of compound values"], chunkwise.UnsupportedError)
    expect_refused(checks, binary, work, "lzf", f"{source}:/lzf",
                   [f"{source}:/lzf: stored with HDF5 filter 32000"], chunkwise.UnsupportedError)
    truncated = work / "truncated.h5"
    with h5py.File(truncated, "w") as f:
        f.create_dataset("data", data=volume((16, 64, 64), "uint16", 9), chunks=(4, 32, 32),
                         compression="gzip")
    with open(truncated, "r+b") as f:
        f.truncate(truncated.stat().st_size // 2)
    expect_refused(checks, binary, work, "truncated", f"{truncated}:/data",
                   [f"{truncated}:/data: "], chunkwise.CorruptionError)


def check_damaged_chunk(checks, binary, work):
    """A chunk that no longer inflates fails the import part-way: Corruption naming the file,
    dataset and rows, and what was written is erased (no file left under DEST)."""
    import chunkwise

    source = work / "damaged.h5"
    with h5py.File(source, "w") as f:
        f.create_dataset("data", data=volume((16, 64, 64), "uint16", 4), chunks=(4, 64, 64),
                         compression="gzip")
        info = f["data"].id.get_chunk_info(2)  # Rows 8..12.
    with open(source, "r+b") as f:
        f.seek(info.byte_offset)
        f.write(b"\x5a" * info.size)
    words = [f"{source}:/data: rows 8..", "libhdf5 cannot read them: inflate() failed"]
    cli_dest, py_dest = work / "damaged.cli.zarr", work / "damaged.py.zarr"
    result = subprocess.run([str(binary), "--quiet", "import", f"{source}:/data", str(cli_dest),
                             "--shard", "4,64,64"], capture_output=True, text=True)
    stderr = result.stderr.strip()
    checks.expect(result.returncode == 1 and "Corruption: " in stderr and
                  all(w in stderr for w in words),
                  f"damaged: the CLI exits {result.returncode} with {stderr!r}")
    try:
        chunkwise.import_(f"{source}:/data", str(py_dest), shards=[4, 64, 64])
        checks.expect(False, "damaged: Python imported it")
    except chunkwise.CorruptionError as error:
        checks.expect(all(w in str(error) for w in words), f"damaged: Python raises {error}")
    for dest in (cli_dest, py_dest):
        left = [p for p in dest.rglob("*") if p.is_file()] if dest.exists() else []
        checks.expect(not left, f"damaged: no file left under {dest.name}: {left}")


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
    steps.append(lambda: check_bad_inputs(checks, args.chunkwise, args.workdir))
    steps.append(lambda: check_damaged_chunk(checks, args.chunkwise, args.workdir))
    for step in steps:
        try:
            step()
        except Exception as error:  # noqa: BLE001
            checks.expect(False, f"{error}"[:600])
    checks.finish()


if __name__ == "__main__":
    main()
