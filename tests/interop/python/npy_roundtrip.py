"""The numpy half of the .npy interop test: numpy writes, chunkwise reads, and back.

Run with Debian's interpreter (/usr/bin/python3, which has numpy). The C++ half
is tests/interop/npy_interop_tool.cc. The whole sequence, for a work dir DIR:

  /usr/bin/python3 tests/interop/python/npy_roundtrip.py write-numpy DIR
  npy_interop_tool check DIR/from_numpy
  npy_interop_tool write DIR/from_chunkwise
  /usr/bin/python3 tests/interop/python/npy_roundtrip.py verify-chunkwise DIR

or all four in one step (what CTest runs):

  /usr/bin/python3 tests/interop/python/npy_roundtrip.py all DIR --tool PATH/npy_interop_tool

write-numpy saves many dtypes (every numeric type in both byte orders, long
double, strings, datetimes, void, structured with padding, sub-arrays, nested
records, titles, quoted and non-ASCII names), C and Fortran order, 0-d and
empty arrays, and format versions 1.0, 2.0 and 3.0 (chosen by numpy and
forced) into DIR/from_numpy/, with expected.json giving each file's shape,
descr (repr of numpy's dtype_to_descr), fortran_order, version and the
zlib.crc32 of its data in C order; plus malformed files under "errors" with the
StatusCode name chunkwise must report. verify-chunkwise loads every file the
tool wrote, checks the same fields, the values of "arange" files, and that
numpy re-saving the loaded array gives the file's bytes exactly. Each mode
ends with "N passed, M failed" and exits 1 on a failure.
"""
import argparse
import io
import json
import pathlib
import subprocess
import sys
import warnings
import zlib

import numpy as np
from numpy.lib import format as npformat

from interop_check import Checks

warnings.simplefilter("ignore")  # numpy warns when it picks format 2.0 or 3.0.


def descr_of(dtype):
    return repr(npformat.dtype_to_descr(dtype))


def c_order_bytes(array):
    """The elements in C order, padding bytes included: numpy's own copies of a
    structured array leave padding uninitialized, so copy whole items as void."""
    items = array.view(np.dtype((np.void, array.dtype.itemsize)))
    return np.ascontiguousarray(items).tobytes()


def serialize(array, version=None):
    buffer = io.BytesIO()
    npformat.write_array(buffer, array, version=version)
    return buffer.getvalue()


def random_array(rng, dtype, shape, fortran):
    dtype = np.dtype(dtype)
    count = int(np.prod(shape, dtype=np.int64))
    raw = rng.integers(0, 256, count * dtype.itemsize, dtype=np.uint8).tobytes()
    array = np.frombuffer(raw, dtype=dtype).reshape(shape).copy()
    if dtype.kind == "b":
        array = (np.frombuffer(raw, np.uint8) & 1).astype(dtype).reshape(shape)
    return np.asfortranarray(array) if fortran else array


def numpy_cases(rng):
    """Yields (file name, array, forced version or None)."""
    for kind in ["b1", "i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8", "f2", "f4", "f8", "c8",
                 "c16", "f16", "c32"]:
        for order in "<>":
            name = f"{kind}_{'le' if order == '<' else 'be'}"
            yield f"{name}_c.npy", random_array(rng, order + kind, (3, 4), False), None
            yield f"{name}_f.npy", random_array(rng, order + kind, (2, 3, 5), True), None
    yield "scalar.npy", np.array(2.5, ">f8"), None
    yield "empty.npy", np.zeros((0, 3), "<i8"), None
    yield "empty_f.npy", np.asfortranarray(np.zeros((4, 0, 2), ">u2")), None
    yield "strings.npy", np.array([b"ab", b"cdefg", b""], "S5"), None
    yield "unicode.npy", np.asfortranarray(np.array([["ab", "c"], ["\u03c0", "xyz"]], ">U3")), None
    yield "datetime.npy", np.array([0, 1, 2], "<M8[ns]"), None
    yield "datetime_generic.npy", np.array(["NaT"], "M8"), None
    yield "timedelta.npy", np.array([[5, 6], [7, 8]], ">m8[10s]"), None
    yield "void.npy", random_array(rng, "V6", (3,), False), None
    aligned = np.dtype([("a", "<i4"), ("b", ">f8", (2, 3)), ("c", [("x", "u1"), ("y", "<u2")])],
                       align=True)
    yield "aligned.npy", random_array(rng, aligned, (2, 3), True), None
    nested = np.dtype([("p", [("q", [("r", "<c8", (2,))]), ("s", "S3")], (2,)), ("t", "<M8[us]")])
    yield "nested.npy", random_array(rng, nested, (4,), False), None
    titled = np.dtype({"names": ["a", "b"], "formats": ["<i2", ">f4"], "titles": ["Alpha", None],
                       "offsets": [0, 4], "itemsize": 12})
    yield "titled.npy", random_array(rng, titled, (3,), False), None
    quoted = np.dtype([("it's", "<u2"), ('a"b\\', "u1"), ("tab\there\x01", "u1")])
    yield "quoted.npy", random_array(rng, quoted, (2,), False), None
    yield "latin1.npy", random_array(rng, [("\xe9t\xe9", "<f4")], (2,), False), None
    yield "utf8_v3.npy", random_array(rng, [("\u03c0", "<f4"), ("\U0001f600", "i1")], (2,), False), None
    wide = np.dtype([(f"field_{i}", "u1") for i in range(4000)])
    yield "wide_v2.npy", random_array(rng, wide, (2,), False), None
    for version in [(1, 0), (2, 0), (3, 0)]:
        yield f"forced_v{version[0]}.npy", random_array(rng, "<i4", (2, 5), True), version
    for dim in range(1, 70):  # Header lengths across a whole 64-byte period.
        yield f"shape_{dim}.npy", random_array(rng, "<u1", (dim,) * (1 + dim % 4), False), None


def error_cases():
    """Yields (file name, bytes, StatusCode name chunkwise must report)."""
    good = serialize(np.arange(6, dtype="<u2").reshape(2, 3))
    yield "truncated_data.npy", good[:-1], "Corruption"
    yield "extra_data.npy", good + b"\0", "Corruption"
    yield "truncated_header.npy", good[:40], "Corruption"
    yield "bad_magic.npy", b"\x93NUMPX" + good[6:], "Corruption"
    yield "version_9.npy", good[:6] + b"\x09\x00" + good[8:], "Unsupported"
    yield "object.npy", serialize(np.array([1, "a"], dtype=object)), "Unsupported"
    yield "bad_header.npy", good.replace(b"'shape'", b"'shapE'"), "Corruption"
    yield "negative_shape.npy", good.replace(b"(2, 3)", b"(-2, 3)"), "Corruption"


def write_numpy(directory):
    out = pathlib.Path(directory) / "from_numpy"
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(20240601)
    files, errors = [], []
    for name, array, version in numpy_cases(rng):
        data = serialize(array, version)
        (out / name).write_bytes(data)
        files.append({"file": name, "shape": list(array.shape), "descr": descr_of(array.dtype),
                      "fortran_order": bool(array.flags.f_contiguous and not array.flags.c_contiguous),
                      "version": data[6], "crc32": zlib.crc32(c_order_bytes(array))})
    for name, data, code in error_cases():
        (out / name).write_bytes(data)
        errors.append({"file": name, "code": code})
    (out / "expected.json").write_text(json.dumps({"files": files, "errors": errors}, indent=1))
    print(f"wrote {len(files)} arrays and {len(errors)} malformed files to {out}")
    versions = {entry["version"] for entry in files}
    return 0 if versions == {1, 2, 3} else 1


def verify_one(path, entry, checks):
    name = entry["file"]
    try:
        array = np.load(path, max_header_size=1 << 30)
    except Exception as error:  # noqa: BLE001 - any failure to load is the finding.
        checks.expect(False, f"{name} loads: {error}")
        return
    data = path.read_bytes()
    checks.expect(list(array.shape) == entry["shape"], f"{name} shape {array.shape}")
    checks.expect(descr_of(array.dtype) == entry["descr"], f"{name} descr {descr_of(array.dtype)}")
    fortran = bool(array.flags.f_contiguous and not array.flags.c_contiguous)
    checks.expect(fortran == entry["fortran_order"], f"{name} fortran_order")
    checks.expect(data[6] == entry["version"], f"{name} version {data[6]}")
    checks.expect(zlib.crc32(c_order_bytes(array)) == entry["crc32"], f"{name} crc32")
    if entry.get("formula") == "arange":
        expected = np.arange(array.size).astype(array.dtype).reshape(array.shape)
        checks.expect(np.array_equal(array, expected), f"{name} values are arange")
    checks.expect_equal_bytes(data, serialize(array, (data[6], 0)), f"{name} bytes match numpy's")


def verify_chunkwise(directory):
    source = pathlib.Path(directory) / "from_chunkwise"
    expected = json.loads((source / "expected.json").read_text())
    checks = Checks()
    for entry in expected["files"]:
        verify_one(source / entry["file"], entry, checks)
    checks.expect(checks.passed > 0, "found files to verify")
    checks.finish()


def run_all(directory, tool):
    directory = pathlib.Path(directory)
    if write_numpy(directory) != 0:
        return 1
    for args in (["check", directory / "from_numpy"], ["write", directory / "from_chunkwise"]):
        result = subprocess.run([str(tool)] + [str(a) for a in args], capture_output=True, text=True)
        print(result.stdout, end="")
        if result.returncode != 0:
            print(f"FAIL npy_interop_tool {args[0]} exited {result.returncode}: {result.stderr}")
            print("0 passed, 1 failed")
            return 1
    verify_chunkwise(directory)
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("mode", choices=["write-numpy", "verify-chunkwise", "all"])
    parser.add_argument("directory")
    parser.add_argument("--tool", help="npy_interop_tool executable (mode all)")
    args = parser.parse_args()
    if args.mode == "write-numpy":
        sys.exit(write_numpy(args.directory))
    if args.mode == "verify-chunkwise":
        verify_chunkwise(args.directory)
    if not args.tool:
        parser.error("mode all needs --tool")
    sys.exit(run_all(args.directory, args.tool))


if __name__ == "__main__":
    main()
