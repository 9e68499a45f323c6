"""chunkwise.bcolz: carrays and ctables round-trip through numpy, and the
real bcolz (1.2.1, in .venv) reads what we write and writes what we read.
"""

from __future__ import annotations

import pathlib

import bcolz
import numpy as np
import pytest

import chunkwise
import chunkwise.bcolz


def test_a_carray_round_trips_and_bcolz_reads_it(tmp_path: pathlib.Path) -> None:
    data = np.random.default_rng(1).normal(size=(5000, 3)).astype("<f8")
    url = str(tmp_path / "points.bcolz")
    assert chunkwise.bcolz.write(url, data, cname="zstd", clevel=3, chunklen=512) == 5000
    np.testing.assert_array_equal(chunkwise.bcolz.read(url), data)
    np.testing.assert_array_equal(chunkwise.bcolz.read(url, slice="-10:"), data[-10:])
    theirs = bcolz.open(url, mode="r")
    assert theirs.shape == (5000, 3) and theirs.chunklen == 512
    np.testing.assert_array_equal(theirs[:], data)
    info = chunkwise.bcolz.info(url)
    assert info["kind"] == "carray" and info["length"] == 5000
    assert chunkwise.bcolz.append(url, data[:7]) == 5007
    np.testing.assert_array_equal(bcolz.open(url, mode="r")[-7:], data[:7])
    with pytest.raises(chunkwise.InvalidArgumentError, match="points.bcolz"):
        chunkwise.bcolz.append(url, data[:2].astype("<f4"))
    with pytest.raises(chunkwise.InvalidArgumentError, match="already holds"):
        chunkwise.bcolz.write(url, data)
    assert chunkwise.bcolz.write(url, data[:3], overwrite=True) == 3


def test_a_ctable_round_trips_as_a_structured_array(tmp_path: pathlib.Path) -> None:
    rows = np.zeros(300, dtype=[("id", "<i8"), ("x", "<f4"), ("name", "S6"), ("v", "<u2", (2,))])
    rows["id"] = np.arange(300)
    rows["x"] = np.linspace(0, 1, 300)
    rows["name"] = [f"n{i}".encode() for i in range(300)]
    rows["v"] = np.arange(600).reshape(300, 2)
    url = str(tmp_path / "table.bcolz")
    chunkwise.bcolz.write(url, rows, chunklen=64)
    back = chunkwise.bcolz.read(url)
    assert back.dtype == rows.dtype
    np.testing.assert_array_equal(back, rows)
    picked = chunkwise.bcolz.read(url, columns=["id", "x"], where="id >= 290")
    assert picked.dtype.names == ("id", "x")
    assert picked["id"].tolist() == list(range(290, 300))
    theirs = bcolz.open(url, mode="r")
    assert list(theirs.names) == ["id", "x", "name", "v"]
    np.testing.assert_array_equal(theirs["id"][:], rows["id"])
    np.testing.assert_array_equal(theirs["v"][:], rows["v"])


def test_what_bcolz_writes_is_read(tmp_path: pathlib.Path) -> None:
    path = str(tmp_path / "theirs.bcolz")
    data = np.arange(10000, dtype="<i4")
    bcolz.carray(data, rootdir=path, mode="w", chunklen=1000).flush()
    np.testing.assert_array_equal(chunkwise.bcolz.read(path), data)
    table_path = str(tmp_path / "theirs-table.bcolz")
    bcolz.ctable(columns=[data, data * 0.5], names=["a", "b"], rootdir=table_path,
                 mode="w").flush()
    table = chunkwise.bcolz.read(table_path, where="a < 3")
    assert table["a"].tolist() == [0, 1, 2] and table["b"].tolist() == [0.0, 0.5, 1.0]


def test_missing_datasets_are_not_found(tmp_path: pathlib.Path) -> None:
    with pytest.raises(FileNotFoundError):
        chunkwise.bcolz.read(str(tmp_path / "nothing.bcolz"))


def test_array_files_import_and_append_by_url_and_http_reads_them(
    tmp_path: pathlib.Path, http_base: str
) -> None:
    rows = np.arange(5000, dtype="<f8")
    np.save(tmp_path / "rows.npy", rows)
    url = str(tmp_path / "imported.bcolz")
    summary = chunkwise.bcolz.import_file(url, tmp_path / "rows.npy", cname="zstd", chunklen=1000)
    assert summary == {"kind": "carray", "rows_added": 5000, "length": 5000,
                       "input_bytes": rows.nbytes}
    assert chunkwise.bcolz.append_file(url, tmp_path / "rows.npy")["length"] == 10000
    np.testing.assert_array_equal(chunkwise.bcolz.read(url), np.concatenate([rows, rows]))
    with pytest.raises(chunkwise.InvalidArgumentError, match="overwrite not requested"):
        chunkwise.bcolz.import_file(url, tmp_path / "rows.npy")
    chunkwise.bcolz.import_file(url, tmp_path / "rows.npy", overwrite=True)
    assert chunkwise.bcolz.info(url)["length"] == 5000
    with pytest.raises(chunkwise.NotFoundError):
        chunkwise.bcolz.append_file(str(tmp_path / "absent.bcolz"), tmp_path / "rows.npy")
    memory = "memory://imported-bcolz"
    chunkwise.bcolz.import_file(memory, tmp_path / "rows.npy", overwrite=True)
    np.testing.assert_array_equal(chunkwise.bcolz.read(memory, slice="-2:"), rows[-2:])

    # http cannot list: the facade finds the dataset by its meta files
    np.testing.assert_array_equal(chunkwise.bcolz.read(f"{http_base}/imported.bcolz",
                                                       slice="10:20"), rows[10:20])
    assert chunkwise.bcolz.info(f"{http_base}/imported.bcolz")["length"] == 5000
    with pytest.raises(chunkwise.NotFoundError, match="absent.bcolz"):
        chunkwise.bcolz.read(f"{http_base}/absent.bcolz")
