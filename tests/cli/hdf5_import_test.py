"""`chunkwise import` of HDF5 datasets (#43): FILE.h5:/path and --dataset,
the dataset's own chunks as the default --chunk, its simple attributes in
zarr.json, the values read back through `zarr read`; and each input it
cannot import fails with exit 1, the StatusCode, the file and the dataset
path named, and nothing at DEST. h5py (the pinned .venv) writes the inputs.

usage: .venv/bin/python hdf5_import_test.py --chunkwise build/chunkwise --workdir DIR
"""
import argparse
import json
import pathlib
import shutil
import subprocess
import sys

import h5py
import numpy as np

failures = []


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what)
    if not condition:
        failures.append(what)


def cli(binary, *args):
    return subprocess.run([str(binary), *map(str, args)], capture_output=True, text=True)


def write_inputs(work):
    data = (np.arange(5 * 6 * 7, dtype="uint32") * 2654435761 % 65536).astype("uint16")
    data = data.reshape(5, 6, 7)
    path = work / "sample.h5"
    with h5py.File(path, "w") as f:
        raw = f.create_dataset("volumes/raw", data=data, chunks=(2, 3, 4), compression="gzip",
                               shuffle=True)
        raw.attrs["resolution"] = [4.0, 4.0, 40.0]
        raw.attrs["unit"] = "nm"
        raw.attrs["offset"] = np.int64(-3)
        raw.attrs["pair"] = np.array((1, 2.5), dtype=[("a", "i4"), ("b", "f8")])  # Left out.
        f.create_dataset("table", data=np.zeros(3, dtype=[("a", "i4"), ("b", "f8")]))
    (work / "notes.h5").write_text("plain text, not HDF5\n")
    return path, data


def read_back(binary, work, dest, shape, dtype):
    out = work / (dest.name + ".raw")
    result = cli(binary, "zarr", "read", dest, "--output", out, "--raw")
    check(result.returncode == 0, f"zarr read {dest.name}: {result.stderr.strip()}")
    return np.frombuffer(out.read_bytes(), dtype=dtype).reshape(shape)


def check_imports(binary, work, path, data):
    dest = work / "raw.zarr"
    result = cli(binary, "import", f"{path}:/volumes/raw", dest, "--shard", "4,6,8")
    check(result.returncode == 0, f"import FILE:/volumes/raw exits 0: {result.stderr.strip()}")
    check(f"imported {path}:/volumes/raw as zarr v3 array {dest}: uint16 [5,6,7], chunks "
          "[2,3,4] in shards [4,6,8]" in result.stdout, f"its summary: {result.stdout.strip()}")
    metadata = json.loads((dest / "zarr.json").read_text())
    check(metadata["attributes"] == {"resolution": [4.0, 4.0, 40.0], "unit": "nm", "offset": -3},
          f"the dataset's simple attributes are the array's: {metadata['attributes']}")
    check(np.array_equal(read_back(binary, work, dest, data.shape, "<u2"), data),
          "FILE:/volumes/raw reads back as h5py wrote it")

    dest = work / "flag.zarr"
    result = cli(binary, "import", path, dest, "--dataset", "volumes/raw", "--chunk", "5,6,7",
                 "--attributes", '{"unit": "um"}')
    check(result.returncode == 0, f"import FILE --dataset exits 0: {result.stderr.strip()}")
    metadata = json.loads((dest / "zarr.json").read_text())
    check(metadata["chunk_grid"]["configuration"]["chunk_shape"] == [5, 6, 7],
          "--chunk is taken over the dataset's chunks")
    check(metadata["attributes"]["unit"] == "um", "--attributes win over the dataset's")
    check(np.array_equal(read_back(binary, work, dest, data.shape, "<u2"), data),
          "FILE --dataset reads back as h5py wrote it")


def check_refused(binary, work, name, args, code, words):
    dest = work / f"{name}.zarr"
    result = cli(binary, "import", *args, dest)
    stderr = result.stderr.strip()
    check(result.returncode == 1 and f"chunkwise: error: {code}: " in stderr
          and all(w in stderr for w in words), f"{name}: exit {result.returncode}, {stderr!r}")
    check(not dest.exists(), f"{name}: nothing at DEST")


def check_bad_inputs(binary, work, path):
    absent = work / "absent.h5"
    check_refused(binary, work, "missing_file", [f"{absent}:/volumes/raw"], "NotFound",
                  [f"{absent}:/volumes/raw: no such file"])
    notes = work / "notes.h5"
    check_refused(binary, work, "not_hdf5", [f"{notes}:/volumes/raw"], "InvalidArgument",
                  [f"{notes}:/volumes/raw: {notes} is not an HDF5 file"])
    check_refused(binary, work, "group", [f"{path}:/volumes"], "InvalidArgument",
                  [f"{path}:/volumes: a group, not a dataset (datasets in it: /volumes/raw)"])
    check_refused(binary, work, "missing_path", [f"{path}:/volumes/nothing"], "NotFound",
                  [f"{path}:/volumes/nothing: no such dataset (nothing named \"nothing\" in "
                   "/volumes)"])
    check_refused(binary, work, "compound", [f"{path}:/table"], "Unsupported",
                  [f"{path}:/table: a dataset of compound values"])
    check_refused(binary, work, "unnamed", [path], "InvalidArgument",
                  [f"{path}: no dataset named", "/volumes/raw", "; see --dataset"])
    check_refused(binary, work, "two_names", [f"{path}:/volumes/raw", "--dataset", "/table"],
                  "InvalidArgument", [f"{path}:/volumes/raw names the dataset /volumes/raw", "; see --dataset"])
    # A .npy file and a TIFF stack have no chunks of their own: --chunk is still needed.
    npy = work / "v.npy"
    np.save(npy, np.zeros((3, 4), "uint16"))
    check_refused(binary, work, "npy_without_chunk", [npy], "InvalidArgument",
                  [f"{npy}: a .npy file's import needs a chunk shape", "--chunk"])

    tiff = work / "stack.tif"
    tiff.write_bytes(b"II*\x00")
    check_refused(binary, work, "tiff_without_chunk", [tiff], "InvalidArgument",
                  [f"{tiff}: a TIFF stack's import needs a chunk shape", "--chunk"])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunkwise", required=True, type=pathlib.Path)
    parser.add_argument("--workdir", required=True, type=pathlib.Path)
    args = parser.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    args.workdir.mkdir(parents=True)
    print(f"     h5py {h5py.__version__}")
    path, data = write_inputs(args.workdir)
    check_imports(args.chunkwise, args.workdir, path, data)
    check_bad_inputs(args.chunkwise, args.workdir, path)
    print(f"{len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
