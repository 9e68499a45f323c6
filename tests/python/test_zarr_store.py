"""zarr-python 3 through chunkwise.zarr.Store equals zarr-python through its own LocalStore.

zarr-python is this test's peer: without it the test fails (it does not skip).
"""

from __future__ import annotations

import asyncio
import pathlib

import numpy as np
import pytest
import zarr
import zarr.storage
from zarr.abc.store import OffsetByteRequest, RangeByteRequest, SuffixByteRequest
from zarr.core.buffer import default_buffer_prototype

import chunkwise
import chunkwise.zarr

# The codecs and sharding layouts of the zarr interop tests, as zarr-python spells them.
LAYOUTS = [
    pytest.param({"chunks": (4, 6)}, id="zstd-default"),
    pytest.param({"chunks": (4, 6), "compressors": None}, id="uncompressed"),
    pytest.param({"chunks": (4, 6), "compressors": zarr.codecs.GzipCodec(level=5)}, id="gzip"),
    pytest.param(
        {"chunks": (4, 6), "compressors": zarr.codecs.BloscCodec(cname="lz4", shuffle="shuffle")},
        id="blosc-lz4",
    ),
    pytest.param({"chunks": (2, 3), "shards": (4, 6)}, id="sharded"),
    pytest.param(
        {"chunks": (2, 3), "shards": (8, 6), "compressors": zarr.codecs.ZstdCodec(level=1)},
        id="sharded-zstd",
    ),
    pytest.param(
        {"chunks": (4, 6), "compressors": [zarr.codecs.ZstdCodec(level=3), zarr.codecs.Crc32cCodec()]},
        id="zstd-crc32c",
    ),
    pytest.param({"chunks": (4, 6), "zarr_format": 2}, id="v2"),
]


def without_gzip_mtime(data: bytes) -> bytes:
    """A gzip member with its header's MTIME (bytes 4..8) zeroed.

    numcodecs stamps each gzip chunk with the clock, so two writes of the same chunk a
    second apart differ there and only there.
    """
    if data[:2] != b"\x1f\x8b" or len(data) < 10:
        return data
    return data[:4] + bytes(4) + data[8:]


def run(coroutine):  # noqa: ANN001, ANN201
    return asyncio.run(coroutine)


async def collect(iterator) -> list[str]:  # noqa: ANN001
    return sorted([key async for key in iterator])


@pytest.mark.parametrize("layout", LAYOUTS)
def test_zarr_python_writes_and_reads_through_our_store_as_through_its_own(
    tmp_path: pathlib.Path, layout: dict
) -> None:
    data = np.random.default_rng(3).integers(0, 1000, (13, 17), dtype="int32")
    ours = zarr.create_array(chunkwise.zarr.Store(str(tmp_path / "ours")), shape=data.shape,
                             dtype="int32", fill_value=0, **layout)
    theirs = zarr.create_array(zarr.storage.LocalStore(tmp_path / "theirs"), shape=data.shape,
                               dtype="int32", fill_value=0, **layout)
    ours[:] = data
    theirs[:] = data
    ours[3:9, 2:5] = -1
    theirs[3:9, 2:5] = -1
    # The same files, byte for byte, and the same values read back either way.
    our_files = sorted(p.relative_to(tmp_path / "ours") for p in (tmp_path / "ours").rglob("*") if p.is_file())
    their_files = sorted(p.relative_to(tmp_path / "theirs") for p in (tmp_path / "theirs").rglob("*") if p.is_file())
    assert our_files == their_files
    for name in our_files:
        assert without_gzip_mtime((tmp_path / "ours" / name).read_bytes()) == without_gzip_mtime(
            (tmp_path / "theirs" / name).read_bytes()
        ), name
    reopened = zarr.open_array(store=chunkwise.zarr.Store(str(tmp_path / "theirs"), read_only=True), mode="r")
    np.testing.assert_array_equal(reopened[:], theirs[:])
    np.testing.assert_array_equal(reopened[1:12:3, ::2], theirs[1:12:3, ::2])
    # And chunkwise's own reader agrees with both.
    np.testing.assert_array_equal(chunkwise.open(str(tmp_path / "ours"))[:], theirs[:])


def test_zarr_python_reads_what_chunkwise_wrote(tmp_path: pathlib.Path) -> None:
    data = np.arange(20 * 30, dtype="uint16").reshape(20, 30)
    array = chunkwise.create(str(tmp_path / "a.zarr"), shape=data.shape, dtype="uint16",
                             chunks=[5, 5], shards=[10, 15], codecs="blosc:zstd:3:bitshuffle")
    array[:] = data
    through_ours = zarr.open_array(store=chunkwise.zarr.Store(str(tmp_path / "a.zarr")), mode="r")
    through_theirs = zarr.open_array(store=zarr.storage.LocalStore(tmp_path / "a.zarr"), mode="r")
    np.testing.assert_array_equal(through_ours[:], data)
    np.testing.assert_array_equal(through_theirs[:], data)


def test_groups_and_memory_urls_work(memory_url: str) -> None:
    root = zarr.open_group(store=chunkwise.zarr.Store(memory_url), mode="w")
    child = root.create_array("labels", shape=(6,), dtype="uint64", chunks=(4,))
    child[:] = [1, 2, 3, 4, 5, 6]
    again = zarr.open_group(store=chunkwise.zarr.Store(memory_url), mode="r")
    assert list(again.array_keys()) == ["labels"]
    np.testing.assert_array_equal(again["labels"][:], [1, 2, 3, 4, 5, 6])


def test_byte_ranges_are_answered_as_local_store_answers_them(tmp_path: pathlib.Path) -> None:
    ours = chunkwise.zarr.Store(str(tmp_path))
    theirs = zarr.storage.LocalStore(tmp_path)
    prototype = default_buffer_prototype()
    value = bytes(range(100))
    run(ours.set("a/b", prototype.buffer.from_bytes(value)))
    requests = [
        None,
        RangeByteRequest(10, 20),
        RangeByteRequest(90, 150),
        RangeByteRequest(120, 130),
        OffsetByteRequest(95),
        OffsetByteRequest(100),
        SuffixByteRequest(7),
        SuffixByteRequest(500),
    ]
    for request in requests:
        got = run(ours.get("a/b", prototype, request))
        want = run(theirs.get("a/b", prototype, request))
        assert got.to_bytes() == want.to_bytes(), request
    assert run(ours.get("a/missing", prototype)) is None
    assert run(ours.get("a/missing", prototype, RangeByteRequest(0, 1))) is None
    pairs = [("a/b", RangeByteRequest(0, 3)), ("a/missing", None), ("a/b", SuffixByteRequest(2))]
    values = run(ours.get_partial_values(prototype, pairs))
    assert [v if v is None else v.to_bytes() for v in values] == [b"\x00\x01\x02", None, b"\x62\x63"]


def test_listing_deleting_and_existence(tmp_path: pathlib.Path) -> None:
    store = chunkwise.zarr.Store(str(tmp_path))
    buffer = default_buffer_prototype().buffer
    for key in ["zarr.json", "c/0/0", "c/0/1", "c/1/0", "d"]:
        run(store.set(key, buffer.from_bytes(key.encode())))
    assert run(collect(store.list())) == ["c/0/0", "c/0/1", "c/1/0", "d", "zarr.json"]
    assert run(collect(store.list_prefix("c/0/"))) == ["c/0/0", "c/0/1"]
    assert run(collect(store.list_dir(""))) == ["c", "d", "zarr.json"]
    assert run(collect(store.list_dir("c"))) == ["0", "1"]
    assert run(store.exists("c/0/1")) and not run(store.exists("c/9"))
    assert run(store.getsize("c/1/0")) == 5
    run(store.delete("c/0/1"))
    run(store.delete("c/never"))
    assert not run(store.exists("c/0/1"))
    assert run(collect(store.list_prefix("c/"))) == ["c/0/0", "c/1/0"]
    run(store.set_if_not_exists("d", buffer.from_bytes(b"new")))
    assert run(store.get("d")).to_bytes() == b"d"


def test_a_read_only_store_refuses_writes(tmp_path: pathlib.Path) -> None:
    store = chunkwise.zarr.Store(str(tmp_path), read_only=True)
    with pytest.raises(ValueError, match="read-only"):
        run(store.set("k", default_buffer_prototype().buffer.from_bytes(b"v")))
    assert store.with_read_only(False) == chunkwise.zarr.Store(str(tmp_path))


def test_invalid_keys_are_the_librarys_value_errors(tmp_path: pathlib.Path) -> None:
    store = chunkwise.zarr.Store(str(tmp_path))
    with pytest.raises(chunkwise.InvalidArgumentError, match=r"\.\."):
        run(store.set("../escape", default_buffer_prototype().buffer.from_bytes(b"v")))
