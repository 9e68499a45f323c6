"""The NumPy data types beyond the numeric set that zarr-python 3 writes (#43).

datetime64/timedelta64 and fixed-length 'S'/'U' strings, in zarr v3 and v2:
what zarr-python writes, chunkwise reads as the same numpy dtype and values
(whole, by slice, with steps, into `out`); what chunkwise writes (create with
data, assignment, a fill value), zarr-python reads value-exact.
"""

from __future__ import annotations

import pathlib
import warnings

import numpy as np
import pytest

import chunkwise

zarr = pytest.importorskip("zarr")

CASES = {
    "datetime_ns": (np.array(["2020-01-01T00:00:00.5", "NaT", "1970-01-01", "2262-04-11", "NaT"],
                             dtype="M8[ns]"), np.datetime64("NaT", "ns")),
    "datetime_10s": (np.array([1, 2, -3, 7, 7], dtype="M8[10s]"), np.datetime64(70, "s")),
    "timedelta_ms": (np.array([1, -2, 2**62, -5, -5], dtype="m8[ms]"), np.timedelta64(-5, "ms")),
    "bytes5": (np.array([b"ab", b"hello", b"\x01\x00z", b"xy", b"xy"], dtype="S5"), b"xy"),
    "text3": (np.array(["ab", "h\u00e9", "\U0001f600", "z", "z"], dtype="<U3"), "z"),
    "text3_big": (np.array(["ab", "h\u00e9", "\U0001f600", "", ""], dtype=">U3"), ""),
}


def _same(actual: np.ndarray, expected: np.ndarray, any_byte_order: bool = False) -> bool:
    if any_byte_order:  # zarr-python 3 names a big-endian v3 array little-endian once opened.
        actual = actual.astype(actual.dtype.newbyteorder("="))
        expected = expected.astype(expected.dtype.newbyteorder("="))
    if actual.dtype != expected.dtype or actual.shape != expected.shape:
        return False
    if expected.dtype.kind in "Mm":  # NaT compared as its count.
        return bool(np.array_equal(actual.view(np.int64), expected.view(np.int64)))
    return bool(np.array_equal(actual, expected))


def _zarr_python_writes(path: pathlib.Path, data: np.ndarray, fill, zarr_format: int) -> None:
    with warnings.catch_warnings():  # null_terminated_bytes is "unstable" in zarr-python.
        warnings.simplefilter("ignore")
        array = zarr.create_array(str(path), shape=data.shape, dtype=data.dtype, chunks=(2,),
                                  fill_value=fill, zarr_format=zarr_format)
        array[:] = data


def _zarr_python_reads(path: pathlib.Path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        array = zarr.open_array(str(path), mode="r")
        return array[...], array.fill_value


@pytest.mark.parametrize("zarr_format", [3, 2])
@pytest.mark.parametrize("name", sorted(CASES))
def test_zarr_python_writes_chunkwise_reads(tmp_path: pathlib.Path, name: str, zarr_format: int) -> None:
    data, fill = CASES[name]
    if zarr_format == 3 and data.dtype.byteorder == ">":
        pytest.skip("zarr-python 3 writes v3 arrays little-endian")
    path = tmp_path / "a.zarr"
    _zarr_python_writes(path, data, fill, zarr_format)
    array = chunkwise.open(str(path), mode="r")
    assert array.dtype == data.dtype
    assert _same(array[...], data)
    assert _same(array[1:4], data[1:4])
    assert _same(array[::2], data[::2])
    out = np.empty(data.shape, data.dtype)
    result = array.read(out=out)
    assert np.shares_memory(result, out) and _same(out, data) and _same(result, data)


@pytest.mark.parametrize("zarr_format", [3, 2])
@pytest.mark.parametrize("name", sorted(CASES))
def test_chunkwise_writes_zarr_python_reads(tmp_path: pathlib.Path, name: str, zarr_format: int) -> None:
    data, fill = CASES[name]
    path = tmp_path / "a.zarr"
    array = chunkwise.create(str(path), data=data, chunks=(2,), fill_value=fill, zarr_format=zarr_format)
    assert array.dtype == data.dtype
    theirs, their_fill = _zarr_python_reads(path)
    assert _same(theirs, data, any_byte_order=True), theirs
    assert _same(np.asarray(their_fill, dtype=data.dtype).reshape(1), np.asarray(fill, dtype=data.dtype).reshape(1))
    # Assignment through the package: a slice, then a strided selection.
    array[1:3] = data[3:5]
    array[::4] = data[2]
    expected = data.copy()
    expected[1:3] = data[3:5]
    expected[::4] = data[2]
    assert _same(_zarr_python_reads(path)[0], expected, any_byte_order=True)


def test_datetime_assignment_converts_as_numpy_does(tmp_path: pathlib.Path) -> None:
    array = chunkwise.create(str(tmp_path / "d.zarr"), shape=(3,), dtype="M8[s]", chunks=(2,))
    array[:] = ["2001-02-03T04:05:06", "NaT", "1970-01-01T00:00:01"]
    assert _same(array[...], np.array(["2001-02-03T04:05:06", "NaT", "1970-01-01T00:00:01"], "M8[s]"))
    assert array.info["dtype"] == "<M8[s]"
