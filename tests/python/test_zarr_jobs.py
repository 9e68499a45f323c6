"""The CLI's whole-array zarr jobs from Python (#38): chunkwise.info, convert,
import_npy and to_precomputed, and refs.build's root array name. The same
jobs against the CLI, byte for byte, are tests/python/test_two_doors.py's."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

import chunkwise

Path = pathlib.Path


def volume(shape: tuple[int, ...] = (40, 30), dtype: str = "uint16") -> np.ndarray:
    return (np.arange(int(np.prod(shape)), dtype="uint64") * 7 % 1000).astype(dtype).reshape(shape)


# --- info ----------------------------------------------------------------------


def test_info_of_a_group_lists_its_members(tmp_path: Path) -> None:
    group = tmp_path / "group.zarr"
    group.mkdir()
    (group / "zarr.json").write_text('{"zarr_format": 3, "node_type": "group", "attributes": {}}')
    chunkwise.create(str(group / "a"), shape=[4, 6], dtype="uint8", chunks=[2, 3])
    info = chunkwise.info(str(group))
    assert (info["node_type"], info["path"]) == ("group", str(group))
    assert [(m["path"], m["node_type"], m["shape"], m["dtype"], m["chunks"])
            for m in info["members"]] == [("a", "array", [4, 6], "uint8", [2, 3])]


def test_info_of_an_array_is_arrays_info(tmp_path: Path) -> None:
    array = chunkwise.create(str(tmp_path / "a.zarr"), data=volume(), chunks=[8, 16])
    assert chunkwise.info(str(tmp_path / "a.zarr")) == array.info


def test_info_of_nothing_is_not_found(tmp_path: Path) -> None:
    with pytest.raises(chunkwise.NotFoundError) as caught:
        chunkwise.info(str(tmp_path / "missing.zarr"))
    assert caught.value.code == "NotFound"
    assert "missing.zarr" in str(caught.value)


def test_info_of_metadata_that_is_not_json_is_corruption(tmp_path: Path) -> None:
    chunkwise.create(str(tmp_path / "a.zarr"), shape=[4], dtype="uint8", chunks=[2])
    (tmp_path / "a.zarr" / "zarr.json").write_text("{ not json")
    for call in (lambda: chunkwise.info(str(tmp_path / "a.zarr")),
                 lambda: chunkwise.open(str(tmp_path / "a.zarr"))):
        with pytest.raises(chunkwise.CorruptionError) as caught:
            call()
        assert caught.value.code == "Corruption"
        assert "zarr.json" in str(caught.value)
