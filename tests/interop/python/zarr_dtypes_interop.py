"""The NumPy data types zarr-python 3 writes beyond the numeric set (#43):
datetime64/timedelta64 ("numpy.datetime64"/"numpy.timedelta64" in v3,
'<M8[ns]' in v2), fixed-length bytes ("null_terminated_bytes", '|S5') and
fixed-length text ("fixed_length_utf32", '<U5'), in both zarr formats.

Both ways, value-exact: zarr-python writes each array (a chunk left to the
fill value included) and `chunkwise zarr read` gives the same values and
dtype in its .npy; `chunkwise zarr create --dtype ... --fill ...` and
`zarr write` make an array that zarr-python opens with the same dtype, fill
value and elements, and whose metadata names the type as zarr-python does.

Variable-length strings ("string" + vlen-utf8, v2 "|O"): `zarr info` names
them and `zarr read` writes them as a fixed-width '<U' .npy equal to
np.array(zarr-python's strings) (--raw is refused: no fixed element size);
variable-length bytes stay Unsupported for `zarr read`, naming the type;
`zarr create --dtype string --fill F` makes an array zarr-python 3 opens as
strings, every element F, and writes into.

Needs zarr 3: run it with the pinned .venv python.
usage: .venv/bin/python zarr_dtypes_interop.py --chunkwise build/chunkwise --workdir DIR
"""
import json
import warnings

import numpy as np

from interop_check import Checks, command_line, run

# (name, data, fill value): every array has 7 elements in chunks of 2, the
# last chunk's elements equal to the fill value so that it is left unwritten.
CASES = [
    ("datetime_ns", np.array(["2020-01-01T00:00:00.123456789", "NaT", "1970-01-01", "2262-04-11",
                              "1677-09-22", "NaT", "NaT"], dtype="M8[ns]"), np.datetime64("NaT", "ns")),
    ("datetime_10s", np.array([1, 2, -3, 4, 5, 7, 7], dtype="M8[10s]"), np.datetime64(7 * 10, "s")),
    ("datetime_days", np.array(["2020-01-01", "NaT", "1999-12-31", "0001-01-01", "9999-12-31",
                                "2001-02-03", "2001-02-03"], dtype="M8[D]"), np.datetime64("2001-02-03")),
    ("timedelta_ms", np.array([1, -2, 3, 0, 2**62, -5, -5], dtype="m8[ms]"), np.timedelta64(-5, "ms")),
    ("bytes5", np.array([b"ab", b"hello", b"", b"\x01\xff\x00z", b"x", b"xy", b"xy"], dtype="S5"), b"xy"),
    ("text5", np.array(["ab", "h\u00e9llo", "", "\U0001f600x", "z", "h\u00e9", "h\u00e9"], dtype="<U5"),
     "h\u00e9"),
]


def same(actual, expected):
    """Equal dtype and elements; datetimes compared as their int64 counts (NaT included)."""
    if actual.dtype != expected.dtype or actual.shape != expected.shape:
        return False
    if expected.dtype.kind in "Mm":
        return np.array_equal(actual.view(np.int64), expected.view(np.int64))
    return np.array_equal(actual, expected)


def write_zarr_python(path, data, fill, zarr_format):
    import zarr
    with warnings.catch_warnings():  # null_terminated_bytes is "unstable" in zarr-python.
        warnings.simplefilter("ignore")
        array = zarr.create_array(str(path), shape=data.shape, dtype=data.dtype, chunks=(2,),
                                  fill_value=fill, zarr_format=zarr_format, overwrite=True)
        array[:] = data


def read_zarr_python(path):
    import zarr
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        array = zarr.open_array(str(path), mode="r")
        return array[...], array.fill_value


def fill_text(fill, dtype):
    if dtype.kind in "Mm":
        return str(int(np.asarray(fill, dtype=dtype).view(np.int64)))
    return fill.decode("latin-1") if isinstance(fill, bytes) else fill


def metadata_of(path, zarr_format):
    name = "zarr.json" if zarr_format == 3 else ".zarray"
    metadata = json.loads((path / name).read_text())
    return metadata["data_type"] if zarr_format == 3 else metadata["dtype"], metadata["fill_value"]


def theirs_to_ours(checks, binary, work, name, data, fill, zarr_format):
    path = work / f"{name}.theirs.v{zarr_format}.zarr"
    write_zarr_python(path, data, fill, zarr_format)
    chunks = path / "c" if zarr_format == 3 else path
    chunk_keys = sorted(p.name for p in chunks.iterdir() if not p.name.startswith("."))
    checks.expect(chunk_keys == ["0", "1", "2"], f"v{zarr_format} {name}: zarr-python left the fill chunk out")
    out = work / f"{name}.v{zarr_format}.npy"
    run([binary, "-q", "zarr", "read", path, "--output", out, "--overwrite"])
    ours = np.load(out)
    checks.expect(same(ours, data), f"v{zarr_format} {name}: zarr read gives zarr-python's {data.dtype.str} values "
                                    f"(got {ours.dtype.str} {ours.tolist() if not same(ours, data) else ''})")
    info = json.loads(run([binary, "zarr", "info", path, "--json"]).stdout)
    checks.expect(info["dtype"] == data.dtype.str, f"v{zarr_format} {name}: zarr info names {data.dtype.str} "
                                                   f"(got {info['dtype']})")


def ours_to_theirs(checks, binary, work, name, data, fill, zarr_format):
    path = work / f"{name}.ours.v{zarr_format}.zarr"
    source = work / f"{name}.input.npy"
    np.save(source, data)
    run([binary, "-q", "zarr", "create", path, "--shape", str(len(data)), "--chunk", "2",
         "--dtype", data.dtype.str, "--fill", fill_text(fill, data.dtype), "--format", str(zarr_format),
         "--overwrite"])
    run([binary, "-q", "zarr", "write", path, "--input", source])
    theirs, their_fill = read_zarr_python(path)
    checks.expect(same(theirs, data), f"v{zarr_format} {name}: zarr-python reads our {data.dtype.str} values "
                                      f"(got {theirs.dtype.str} {theirs.tolist() if not same(theirs, data) else ''})")
    expected_fill = np.asarray(fill, dtype=data.dtype)
    checks.expect(same(np.asarray(their_fill, dtype=data.dtype).reshape(1), expected_fill.reshape(1)),
                  f"v{zarr_format} {name}: zarr-python reads our fill value {fill!r} (got {their_fill!r})")
    # The metadata names the type as zarr-python's own array of it does.
    reference = work / f"{name}.reference.v{zarr_format}.zarr"
    write_zarr_python(reference, data, fill, zarr_format)
    checks.expect(metadata_of(path, zarr_format) == metadata_of(reference, zarr_format),
                  f"v{zarr_format} {name}: data type and fill value spelled as zarr-python's "
                  f"{metadata_of(reference, zarr_format)} (ours {metadata_of(path, zarr_format)})")


def strings_through_the_cli(checks, binary, work, zarr_format):
    """Variable-length strings: `zarr info` names them, `zarr read` makes a '<U' .npy of them."""
    import zarr
    path = work / f"strings.v{zarr_format}.zarr"
    array = zarr.create_array(str(path), shape=(3,), dtype=str, chunks=(2,), zarr_format=zarr_format,
                              overwrite=True)
    array[:] = np.array(["a", "h\u00e9", ""], dtype=np.dtypes.StringDType())
    named = "string" if zarr_format == 3 else "|O"
    info = json.loads(run([binary, "zarr", "info", path, "--json"]).stdout)
    checks.expect(info["dtype"] == named and info["shape"] == [3],
                  f"v{zarr_format} strings: zarr info names {named} (got {info['dtype']})")
    run([binary, "zarr", "read", path, "--output", work / "strings.npy", "--overwrite"])
    exported = np.load(work / "strings.npy")
    expected = np.array(zarr.open_array(str(path), mode="r")[...].tolist())
    checks.expect(exported.dtype == expected.dtype == np.dtype("<U2")
                  and exported.tolist() == expected.tolist() == ["a", "h\u00e9", ""],
                  f"v{zarr_format} strings: zarr read writes the '<U' .npy numpy would "
                  f"(got {exported.dtype} {exported.tolist()!r})")
    with warnings.catch_warnings():  # VariableLengthBytes is "unstable" in zarr-python.
        warnings.simplefilter("ignore")
        from zarr.core.dtype import VariableLengthBytes
        zarr.create_array(str(work / "bytes.zarr"), shape=(1,), dtype=VariableLengthBytes(),
                          chunks=(1,), zarr_format=zarr_format, overwrite=True)
    failed = run([binary, "zarr", "read", work / "bytes.zarr", "--output", work / "bytes.npy",
                  "--overwrite"], expect_success=False)
    checks.expect("Unsupported" in failed.stderr and "variable-length" in failed.stderr
                  and "BytesArray" in failed.stderr,
                  f"v{zarr_format} bytes: zarr read is Unsupported naming what reads it: "
                  f"{failed.stderr.strip()}")
    # Ours: zarr-python opens it as a string array of the fill value and writes into it.
    ours = work / f"strings.ours.v{zarr_format}.zarr"
    run([binary, "zarr", "create", ours, "--shape", "3", "--chunk", "2", "--dtype", "string",
         "--fill", "h\u00e9", "--format", str(zarr_format)])
    theirs = zarr.open_array(str(ours), mode="r+")
    checks.expect(theirs.fill_value == "h\u00e9" and theirs[...].tolist() == ["h\u00e9"] * 3,
                  f"v{zarr_format} strings: zarr-python reads our created string array as its "
                  f"fill value (got {theirs.fill_value!r}, {theirs[...].tolist()!r})")
    theirs[1:] = ["", "z"]
    checks.expect(zarr.open_array(str(ours), mode="r")[...].tolist() == ["h\u00e9", "", "z"],
                  f"v{zarr_format} strings: zarr-python writes into our created string array")


def main():
    args, work = command_line("--chunkwise")
    checks = Checks()
    for zarr_format in (3, 2):
        for name, data, fill in CASES:
            for direction in (theirs_to_ours, ours_to_theirs):
                try:
                    direction(checks, args.chunkwise, work, name, data, fill, zarr_format)
                except Exception as error:  # One failing case is reported, the others still run.
                    checks.expect(False, f"v{zarr_format} {name} {direction.__name__}: {error}")
        try:
            strings_through_the_cli(checks, args.chunkwise, work, zarr_format)
        except Exception as error:  # noqa: BLE001 - reported as a failed check
            checks.expect(False, f"v{zarr_format} strings: {error}")
    checks.finish()


if __name__ == "__main__":
    main()
