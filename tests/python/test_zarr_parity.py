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
import zarr  # the peer is pinned in the lock: missing, the test fails rather than skips

import chunkwise


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
        # The elements, then the crc32c chunkwise appends by default (#44).
        stored = (url / "c" / "0" / "0").read_bytes()
        assert stored[:-4] == data[:2, :3].tobytes() and len(stored) == 2 * 6 + 4

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


# --- 3. attributes ----------------------------------------------------------------


@pytest.mark.parametrize("zarr_format", [3, 2])
def test_attrs_are_written_and_kept(tmp_path: pathlib.Path, zarr_format: int) -> None:
    ours = chunkwise.create(tmp_path / "ours.zarr", shape=[4], dtype="uint8", chunks=[2],
                            attributes={"unit": "nm"}, zarr_format=zarr_format)
    theirs = zarr.create_array(tmp_path / "theirs.zarr", shape=(4,), dtype="uint8",
                               chunks=(2,), attributes={"unit": "nm"}, zarr_format=zarr_format)
    for array in (ours, theirs):
        array.attrs["x"] = 1
        array.attrs.update({"y": [1, 2], "z": {"deep": None}})
        del array.attrs["unit"]
    assert ours.attrs.asdict() == theirs.attrs.asdict() == {"x": 1, "y": [1, 2],
                                                            "z": {"deep": None}}
    assert _outcome(lambda: ours.attrs["unit"]) == _outcome(lambda: theirs.attrs["unit"])
    assert _outcome(lambda: ours.attrs.__delitem__("no")) == \
        _outcome(lambda: theirs.attrs.__delitem__("no")) == KeyError
    # Kept in the store: each reads the other's, opened again.
    for path in ("ours.zarr", "theirs.zarr"):
        assert chunkwise.open(tmp_path / path).attrs.asdict() == \
            dict(zarr.open_array(tmp_path / path, mode="r").attrs) == ours.attrs.asdict()
    assert len(ours.attrs) == 3 and sorted(ours.attrs) == ["x", "y", "z"]


# --- 4. modes, and a store only read ----------------------------------------------

def _both(tmp_path: pathlib.Path, name: str, **options: Any) -> tuple[Any, Any]:
    ours = chunkwise.create(tmp_path / f"ours-{name}", shape=[4], dtype="uint8", chunks=[2],
                            **options)
    theirs = zarr.create_array(tmp_path / f"theirs-{name}", shape=(4,), dtype="uint8",
                               chunks=(2,))
    return ours, theirs


def test_read_only_mode_refuses_writes(tmp_path: pathlib.Path) -> None:
    _both(tmp_path, "a.zarr")
    ours = chunkwise.open(tmp_path / "ours-a.zarr", mode="r")
    theirs = zarr.open_array(tmp_path / "theirs-a.zarr", mode="r")
    writes = [
        lambda a: a.__setitem__(Ellipsis, 1),
        lambda a: a.__setitem__(slice(None, None, 2), 1),
        lambda a: a.attrs.__setitem__("x", 1),
        lambda a: a.attrs.update({"x": 1}),
        lambda a: a.resize((8,)),
        lambda a: a.append(np.zeros(2, "uint8")),
    ]
    for write in writes:
        assert _outcome(lambda: write(ours)) == _outcome(lambda: write(theirs)) == ValueError
    # Nothing was written (zarr-python's array in hand may have taken the
    # attributes in memory: it is opened again).
    theirs = zarr.open_array(tmp_path / "theirs-a.zarr", mode="r")
    assert ours[...].tolist() == theirs[...].tolist() == [0] * 4
    assert ours.shape == theirs.shape == (4,)
    assert ours.attrs.asdict() == theirs.attrs.asdict() == {}
    assert chunkwise.open(tmp_path / "ours-a.zarr").attrs.asdict() == {}


def test_modes(tmp_path: pathlib.Path) -> None:
    ours, theirs = _both(tmp_path, "a.zarr")
    ours[...] = 5
    theirs[...] = 5
    create = {"shape": [3], "dtype": "int16", "chunks": [3]}
    zcreate = {"shape": (3,), "dtype": "int16", "chunks": (3,)}

    def opened(opener: Any, name: str, mode: str, **options: Any) -> Any:
        return _outcome(lambda: opener(tmp_path / name, mode=mode, **options)[...])

    for mode in ("r", "r+", "a"):  # An existing array, as it is.
        assert opened(chunkwise.open, "ours-a.zarr", mode) == \
            opened(zarr.open_array, "theirs-a.zarr", mode) == [5] * 4
    for mode in ("r", "r+"):  # Nothing there.
        assert opened(chunkwise.open, "ours-none.zarr", mode) == \
            opened(zarr.open_array, "theirs-none.zarr", mode) == FileNotFoundError
    assert opened(chunkwise.open, "ours-a.zarr", "w-", **create) == \
        opened(zarr.open_array, "theirs-a.zarr", "w-", **zcreate) == FileExistsError
    assert opened(chunkwise.open, "ours-a.zarr", "w", **create) == \
        opened(zarr.open_array, "theirs-a.zarr", "w", **zcreate) == [0] * 3
    assert opened(chunkwise.open, "ours-new.zarr", "a", **create) == \
        opened(zarr.open_array, "theirs-new.zarr", "a", **zcreate) == [0] * 3
    assert opened(chunkwise.open, "ours-a.zarr", "x") == \
        opened(zarr.open_array, "theirs-a.zarr", "x") == ValueError
    assert not (tmp_path / "ours-none.zarr").exists()


def test_store_only_read_creates_nothing(tmp_path: pathlib.Path) -> None:
    import chunkwise.zarr

    ours = tmp_path / "typo.zarr"
    theirs = tmp_path / "their-typo.zarr"
    outcome = _outcome(lambda: zarr.open_array(chunkwise.zarr.Store(str(ours)), mode="r"))
    assert outcome == _outcome(lambda: zarr.open_array(zarr.storage.LocalStore(theirs),
                                                       mode="r")) == FileNotFoundError
    assert not ours.exists() and not theirs.exists()
    with pytest.raises(FileNotFoundError, match="typo.zarr"):
        chunkwise.zarr.Store(str(ours), read_only=True)
    assert not ours.exists()
    # The first write creates it.
    zarr.create_array(chunkwise.zarr.Store(str(ours)), shape=(2,), dtype="uint8", chunks=(2,))
    assert (ours / "zarr.json").exists()


# --- 5. resize and append ----------------------------------------------------------

def test_resize_and_append_as_zarr_python(tmp_path: pathlib.Path) -> None:
    data = np.arange(30, dtype="int32").reshape(5, 6)
    ours = chunkwise.create(tmp_path / "ours.zarr", data=data, chunks=[2, 4])
    theirs = zarr.create_array(tmp_path / "theirs.zarr", data=data, chunks=(2, 4))
    steps = [
        lambda a: a.resize((3, 5)),
        lambda a: a.resize((7, 9)),       # The cut chunks' elements come back.
        lambda a: a.append(np.full((2, 9), -1, "int32")),
        lambda a: a.append(np.full((9, 1), -2, "int32"), axis=1),
        lambda a: a.append(np.zeros((2, 3), "int32")),   # ValueError: shapes differ.
        lambda a: a.resize(4, 4),         # TypeError: one shape.
        lambda a: a.resize((4, 4)),
        lambda a: a.resize(3),            # Another rank: refused.
    ]
    for step in steps:
        assert _outcome(lambda: step(ours)) == _outcome(lambda: step(theirs))
        assert ours.shape == theirs.shape
        np.testing.assert_array_equal(ours[...], theirs[...])
    assert chunkwise.open(tmp_path / "ours.zarr").shape == (4, 4)
    np.testing.assert_array_equal(zarr.open_array(tmp_path / "ours.zarr", mode="r")[...],
                                  ours[...])
    # Chunks wholly outside the shape are gone.
    assert sorted(p.name for p in (tmp_path / "ours.zarr" / "c").iterdir()) == ["0", "1"]


# --- 6. groups -------------------------------------------------------------------------

@pytest.mark.parametrize("zarr_format", [3, 2])
def test_groups_as_zarr_python(tmp_path: pathlib.Path, zarr_format: int) -> None:
    ours = chunkwise.open_group(tmp_path / "ours.zarr", mode="w", attributes={"a": 1},
                                zarr_format=zarr_format)
    theirs = zarr.open_group(tmp_path / "theirs.zarr", mode="w", attributes={"a": 1},
                             zarr_format=zarr_format)
    for group in (ours, theirs):
        group.create_group("sub").attrs["depth"] = 1
        group.attrs["b"] = 2
    ours.create_array("raw", shape=[4], dtype="uint8", chunks=[2])[...] = 3
    theirs.create_array("raw", shape=(4,), dtype="uint8", chunks=(2,))[...] = 3

    assert ours.zarr_format == theirs.metadata.zarr_format == zarr_format
    assert sorted(ours) == sorted(theirs) == sorted(ours.keys()) == ["raw", "sub"]
    assert list(ours.array_keys()) == list(theirs.array_keys()) == ["raw"]
    assert list(ours.group_keys()) == list(theirs.group_keys()) == ["sub"]
    assert len(ours) == len(theirs) == 2
    assert [name for name, _ in ours.members()] == sorted(name for name, _ in theirs.members())
    assert isinstance(ours["sub"], chunkwise.Group) and isinstance(ours["raw"], chunkwise.Array)
    assert ours["raw"][...].tolist() == theirs["raw"][...].tolist() == [3] * 4
    assert ours["sub"].attrs.asdict() == theirs["sub"].attrs.asdict() == {"depth": 1}
    assert _outcome(lambda: ours["nope"]) == _outcome(lambda: theirs["nope"]) == KeyError
    assert ("raw" in ours, "nope" in ours) == ("raw" in theirs, "nope" in theirs) == (True, False)

    # Each reads the other's group, attributes and members, opened again read-only.
    for path in ("ours.zarr", "theirs.zarr"):
        mine = chunkwise.open_group(tmp_path / path, mode="r")
        zarrs = zarr.open_group(tmp_path / path, mode="r")
        assert mine.attrs.asdict() == dict(zarrs.attrs) == {"a": 1, "b": 2}
        assert sorted(mine) == sorted(zarrs) == ["raw", "sub"]
        assert _outcome(lambda: mine.attrs.__setitem__("c", 3)) == \
            _outcome(lambda: zarrs.attrs.__setitem__("c", 3)) == ValueError
        assert _outcome(lambda: mine["raw"].__setitem__(0, 1)) == \
            _outcome(lambda: zarrs["raw"].__setitem__(0, 1)) == ValueError
    del ours.attrs["a"]
    assert dict(zarr.open_group(tmp_path / "ours.zarr", mode="r").attrs) == {"b": 2}


def test_group_modes(tmp_path: pathlib.Path) -> None:
    def outcome(opener: Any, name: str, mode: str) -> Any:
        return _outcome(lambda: sorted(opener(tmp_path / name, mode=mode).attrs))

    for opener, name in ((chunkwise.open_group, "ours.zarr"), (zarr.open_group, "theirs.zarr")):
        opener(tmp_path / name, mode="w", attributes={"kept": True})
    for mode in ("r", "r+", "a"):
        assert outcome(chunkwise.open_group, "ours.zarr", mode) == \
            outcome(zarr.open_group, "theirs.zarr", mode) == ["kept"]
    for mode in ("r", "r+"):
        assert outcome(chunkwise.open_group, "ours-none.zarr", mode) == \
            outcome(zarr.open_group, "theirs-none.zarr", mode) == FileNotFoundError
    assert outcome(chunkwise.open_group, "ours.zarr", "w-") == \
        outcome(zarr.open_group, "theirs.zarr", "w-") == FileExistsError
    assert outcome(chunkwise.open_group, "ours.zarr", "w") == \
        outcome(zarr.open_group, "theirs.zarr", "w") == []
    assert outcome(chunkwise.open_group, "ours-new.zarr", "a") == \
        outcome(zarr.open_group, "theirs-new.zarr", "a") == []
    assert not (tmp_path / "ours-none.zarr").exists()
