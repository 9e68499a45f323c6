"""Where chunkwise's Python API and zarr-python 3 overlap, they agree.

Each test runs the same operation through chunkwise and through zarr-python
itself (the one in the venv) and asserts the same values or the same
exception type, so that the two cannot drift apart (docs/python.md, "Where
chunkwise behaves like zarr-python 3").
"""

from __future__ import annotations

import json
import pathlib
import warnings
from typing import Any

import numpy as np
import pytest

import chunkwise

zarr = pytest.importorskip("zarr")


def _outcome(action: Any) -> Any:
    """What `action` gives, or the type of what it raises (numpy warnings off).

    The type is the first built-in exception the error is (chunkwise's
    NotFoundError is a FileNotFoundError; zarr-python's errors derive from
    built-ins too): what code written for either catches.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            result = action()
        except Exception as error:  # noqa: BLE001 - the type is the outcome
            return next(kind for kind in type(error).__mro__ if kind.__module__ == "builtins")
    return result.tolist() if isinstance(result, np.ndarray) else result


# --- 1. byte order --------------------------------------------------------------

LAYOUTS = {
    "v3": {"chunks": [2, 3]},
    "sharded": {"chunks": [2, 3], "shards": [4, 6]},
    "v2": {"chunks": [2, 3], "zarr_format": 2},
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_big_endian_dtype_is_kept(tmp_path: pathlib.Path, layout: str) -> None:
    data = (np.arange(24) * 257 + 1).astype(">u2").reshape(4, 6)  # Bytes that differ.
    url = tmp_path / "ours.zarr"
    ours = chunkwise.create(url, shape=data.shape, dtype=">u2", codecs=None, **LAYOUTS[layout])
    ours[...] = data
    ours[1, ::2] = 513
    data[1, ::2] = 513
    theirs = zarr.create_array(tmp_path / "theirs.zarr", shape=data.shape, dtype=">u2",
                               chunks=(2, 3))
    theirs[...] = data

    # The same dtype and values from both, written and read in one session.
    assert ours.dtype == theirs.dtype == np.dtype(">u2")
    assert ours[...].dtype == theirs[...].dtype == np.dtype(">u2")
    np.testing.assert_array_equal(ours[...], theirs[...])

    # Kept in the store: the bytes codec says big, and chunks hold big-endian bytes.
    if layout == "v2":
        assert json.loads((url / ".zarray").read_text())["dtype"] == ">u2"
        assert (url / "0.0").read_bytes() == data[:2, :3].tobytes()
    else:
        codecs = json.loads((url / "zarr.json").read_text())["codecs"]
        if layout == "sharded":
            codecs = codecs[0]["configuration"]["codecs"]
        assert codecs[0] == {"name": "bytes", "configuration": {"endian": "big"}}
    if layout == "v3":
        assert (url / "c" / "0" / "0").read_bytes() == data[:2, :3].tobytes()

    # Opened again, by chunkwise (dtype >u2, into out= too) and by zarr-python.
    again = chunkwise.open(url)
    assert again.dtype == np.dtype(">u2")
    np.testing.assert_array_equal(again[...], data)
    out = np.empty((2, 6), ">u2")
    np.testing.assert_array_equal(again.read(np.s_[1:3], out=out), data[1:3])
    np.testing.assert_array_equal(zarr.open_array(url, mode="r")[...], data)


def test_zarr_pythons_big_endian_array_reads_the_same(tmp_path: pathlib.Path) -> None:
    data = (np.arange(24, dtype="uint16") * 257 + 1).reshape(4, 6)
    theirs = zarr.create_array(tmp_path / "theirs.zarr", shape=data.shape, dtype="uint16",
                               chunks=(2, 3), serializer=zarr.codecs.BytesCodec(endian="big"))
    theirs[...] = data
    ours = chunkwise.open(tmp_path / "theirs.zarr")
    assert ours.dtype == np.dtype(">u2")
    np.testing.assert_array_equal(ours[...], zarr.open_array(tmp_path / "theirs.zarr")[...])


# --- 2. converting what is assigned ---------------------------------------------

ASSIGNED = [
    -1, 70000, 2**64, -1.5, 7.9, np.float64(7.9), np.int64(-1), np.uint64(2**63), True, "5",
    None, float("nan"), [-1, 0, 0, 0, 0, 0], [7.9] * 6, np.array([-1] * 6),
    np.array([7.9] * 6), np.array([70000] * 6), np.array([-1, 1, 2, 3, 4, 5], "int8"),
]


@pytest.mark.parametrize("value", ASSIGNED, ids=repr)
@pytest.mark.parametrize("where", [Ellipsis, slice(None, None, 2)], ids=["all", "strided"])
def test_assignment_converts_as_zarr_python(tmp_path: pathlib.Path, value: Any,
                                            where: Any) -> None:
    ours = chunkwise.create(tmp_path / "ours.zarr", shape=[6], dtype="uint16", chunks=[4])
    theirs = zarr.create_array(tmp_path / "theirs.zarr", shape=(6,), dtype="uint16",
                               chunks=(4,))
    if isinstance(value, (list, np.ndarray)) and where is not Ellipsis:
        value = value[::2]

    def assign(array: Any) -> Any:
        array[where] = value
        return array[...]

    assert _outcome(lambda: assign(ours)) == _outcome(lambda: assign(theirs))


def test_refusals_are_zarr_pythons(tmp_path: pathlib.Path) -> None:
    """The cases issue #39 names, spelled out: refused, or stored as zarr-python stores them."""
    ours = chunkwise.create(tmp_path / "ours.zarr", shape=[4], dtype="uint16", chunks=[4])
    with pytest.raises(OverflowError):
        ours[...] = -1
    ours[...] = 7.9
    assert ours[...].tolist() == [7] * 4  # zarr-python truncates too.
    floats = chunkwise.create(tmp_path / "floats.zarr", shape=[2], dtype="float32", chunks=[2])
    theirs = zarr.create_array(tmp_path / "theirs.zarr", shape=(2,), dtype="float32",
                               chunks=(2,))
    for value in (1e300, np.int64(2**40), 5):
        assert _outcome(lambda: floats.__setitem__(Ellipsis, value) or floats[...]) == \
            _outcome(lambda: theirs.__setitem__(Ellipsis, value) or theirs[...])
