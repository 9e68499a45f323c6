"""chunkwise.refs: reference sets built by the library, read by fsspec,
kerchunk's readers and zarr-python 3, and through chunkwise's own store.
"""

from __future__ import annotations

import json
import pathlib

import fsspec
import numpy as np
import pytest
import zarr
import zarr.storage

import chunkwise
import chunkwise.refs


@pytest.fixture
def volume(tmp_path: pathlib.Path) -> tuple[pathlib.Path, np.ndarray]:
    data = np.random.default_rng(3).integers(0, 60000, (20, 30, 17), dtype="uint16")
    path = tmp_path / "volume.zarr"
    chunkwise.create(str(path), data=data, chunks=[8, 16, 8], codecs="zstd:3", zarr_format=2)
    return path, data


@pytest.fixture
def sharded(tmp_path: pathlib.Path) -> tuple[pathlib.Path, np.ndarray]:
    data = np.random.default_rng(4).integers(0, 60000, (20, 30, 17), dtype="uint16")
    path = tmp_path / "sharded.zarr"
    chunkwise.create(str(path), data=data, chunks=[4, 8, 8], shards=[8, 16, 16], codecs="zstd:3")
    return path, data


@pytest.mark.parametrize("format", ["json", "json-v1", "parquet"])
def test_build_then_read_through_our_mapping_equals_fsspecs_reader(
    tmp_path: pathlib.Path, sharded: tuple[pathlib.Path, np.ndarray], format: str
) -> None:
    source, data = sharded
    dest = tmp_path / ("refs.parq" if format == "parquet" else "refs.json")
    summary = chunkwise.refs.build(str(source), str(dest), format=format)
    assert summary["ranges"] == 5 * 4 * 3  # one byte range per inner chunk of the shards
    assert summary["whole_files"] == 0 and summary["arrays"] == [""]
    refs = chunkwise.refs.open(str(dest))
    # fsspec's own reader of the same set, the independent reader.
    theirs = fsspec.filesystem("reference", fo=str(dest), remote_protocol="file")
    their_keys = {key for key in theirs.find("", withdirs=False)} if format != "parquet" else None
    keys = set(refs)
    # Parquet nests the one array under the source's stem, as `refs build` does (#38).
    prefix = "sharded/" if format == "parquet" else ""
    assert prefix + ".zarray" in keys and prefix + "0.0.0" in keys and prefix + "4.3.2" in keys
    if their_keys is not None:
        assert keys == their_keys
    for key in keys:
        assert refs[key] == theirs.cat_file(key), key
    with pytest.raises(KeyError):
        refs["9.9.9"]
    assert "9.9.9" not in refs and len(refs) == len(keys)
    # zarr-python 3 over our mapping's filesystem reads the volume value-exact.
    store = zarr.storage.FsspecStore.from_mapper(refs.filesystem().get_mapper(""), read_only=True)
    array = zarr.open_array(store=store, path=prefix.rstrip("/") or None, mode="r")
    np.testing.assert_array_equal(array[...], data)


def test_the_filesystem_lists_reads_ranges_and_refuses_writes(
    tmp_path: pathlib.Path, volume: tuple[pathlib.Path, np.ndarray]
) -> None:
    source, _ = volume
    summary = chunkwise.refs.build(str(source), str(tmp_path / "r.json"))
    assert summary["whole_files"] == 3 * 2 * 3  # an unsharded v2 array: one file per chunk
    refs = chunkwise.refs.open(str(tmp_path / "r.json"))
    fs = refs.fs
    assert isinstance(fs, fsspec.AbstractFileSystem)
    names = fs.ls("", detail=False)
    assert ".zarray" in names and "1.0.2" in names
    info = fs.info("1.0.2")
    assert info["type"] == "file" and info["size"] == len(refs["1.0.2"])
    whole = fs.cat_file("1.0.2")
    assert fs.cat_file("1.0.2", start=3, end=10) == whole[3:10]
    assert fs.cat_file("1.0.2", start=-4) == whole[-4:]
    assert refs.get_range("1.0.2", 5) == whole[5:]
    with fs.open("1.0.2", "rb") as f:
        assert f.read() == whole
    assert json.loads(fs.cat_file(".zarray"))["shape"] == [20, 30, 17]
    with pytest.raises(FileNotFoundError):
        fs.info("nope")
    with pytest.raises(PermissionError):
        fs.pipe_file("x", b"1")


def test_a_v3_group_is_referenced_and_errors_name_the_set(tmp_path: pathlib.Path) -> None:
    group = zarr.open_group(str(tmp_path / "g.zarr"), mode="w")
    a = group.create_array("a", shape=(10,), chunks=(4,), dtype="int32")
    a[:] = np.arange(10, dtype="int32")
    chunkwise.refs.build(str(tmp_path / "g.zarr"), str(tmp_path / "g.json"))
    refs = chunkwise.refs.open(str(tmp_path / "g.json"))
    assert "a/c/0" in refs or "a/0" in refs
    with pytest.raises(chunkwise.InvalidArgumentError, match="g.json"):
        chunkwise.refs.build(str(tmp_path / "g.zarr"), str(tmp_path / "g.json"))
    chunkwise.refs.build(str(tmp_path / "g.zarr"), str(tmp_path / "g.json"), overwrite=True)
    with pytest.raises(FileNotFoundError, match="missing.json"):
        chunkwise.refs.open(str(tmp_path / "missing.json"))
    with pytest.raises(ValueError, match="xml"):
        chunkwise.refs.build(str(tmp_path / "g.zarr"), str(tmp_path / "h.json"), format="xml")


def test_targets_outside_the_allowed_roots_are_refused(tmp_path: pathlib.Path,
                                                       volume: tuple[pathlib.Path, np.ndarray]
                                                       ) -> None:
    source, data = volume
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    chunkwise.refs.build(str(source), str(elsewhere / "r.json"))
    refs = chunkwise.refs.open(str(elsewhere / "r.json"))
    with pytest.raises(chunkwise.ChunkwiseError):
        refs["0.0.0"]
    allowed = chunkwise.refs.open(str(elsewhere / "r.json"), roots=[str(tmp_path)])
    assert len(allowed["0.0.0"]) > 0


def test_a_cancelled_build_writes_no_set(tmp_path: pathlib.Path,
                                         volume: tuple[pathlib.Path, np.ndarray]) -> None:
    source, _ = volume
    token = chunkwise.CancelToken()
    token.cancel()
    with pytest.raises(chunkwise.CancelledError):
        chunkwise.refs.build(str(source), str(tmp_path / "never.json"), cancel=token)
    assert not (tmp_path / "never.json").exists()
    counts: list[tuple[int, int | None]] = []
    chunkwise.refs.build(str(source), str(tmp_path / "r.json"),
                         progress=lambda done, total: counts.append((done, total)))
    assert counts and counts[-1] == (18, None)  # chunks referenced; no total known ahead


def test_a_set_is_opened_by_url_and_its_targets_follow_the_remote_rule(
    tmp_path: pathlib.Path, volume: tuple[pathlib.Path, np.ndarray], http_base: str
) -> None:
    source, data = volume
    chunkwise.refs.build(str(source), str(tmp_path / "remote.json"),
                         url_base=f"{http_base}/volume.zarr/")
    chunkwise.refs.build(str(source), str(tmp_path / "local.json"))
    refs = chunkwise.refs.open(f"{http_base}/remote.json", allow_remote=True)
    assert refs.url == f"{http_base}/remote.json"
    stored = (source / "0.0.0").read_bytes()
    assert bytes(refs["0.0.0"]) == stored
    store = zarr.storage.FsspecStore.from_mapper(refs.fs.get_mapper(""), read_only=True)
    np.testing.assert_array_equal(zarr.open_array(store=store, mode="r")[...], data)
    with pytest.raises(chunkwise.ChunkwiseError, match="remote"):
        chunkwise.refs.open(f"{http_base}/remote.json")["0.0.0"]
    # A set that is not local may not point at local files.
    with pytest.raises(chunkwise.ChunkwiseError, match="local"):
        chunkwise.refs.open(f"{http_base}/local.json", allow_remote=True)["0.0.0"]
    with pytest.raises(chunkwise.NotFoundError, match="missing.json"):
        chunkwise.refs.open(f"{http_base}/missing.json")  # http cannot list: still not found



@pytest.mark.parametrize("name", ["g.json", "g.parq"])
def test_an_array_inside_a_group_reference_set_opens_by_its_path(
    tmp_path: pathlib.Path, name: str
) -> None:
    group = tmp_path / "g.zarr"
    group.mkdir()
    (group / "zarr.json").write_text('{"zarr_format": 3, "node_type": "group", "attributes": {}}')
    data = np.arange(24, dtype="uint16").reshape(4, 6)
    chunkwise.create(str(group / "v"), data=data, chunks=[2, 3])
    dest = tmp_path / name
    chunkwise.refs.build(str(group), str(dest), format="parquet" if name == "g.parq" else "json-v1")
    # The path names the array v inside the set, as g.zarr/v names it in the directory.
    np.testing.assert_array_equal(chunkwise.open(f"{dest}/v")[1:3, 2:5], data[1:3, 2:5])
    with pytest.raises(chunkwise.NotFoundError):
        chunkwise.open(f"{dest}/absent")
