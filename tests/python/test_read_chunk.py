"""Array.read_chunk: one whole decoded chunk as a read-only view, without a copy (#42).

Values are asserted against ``array[box]`` for the chunk's box; with the
cache on, two reads view the cache's one buffer (np.shares_memory).
"""

from __future__ import annotations

import gc
import pathlib
from collections.abc import Iterator

import numpy as np
import pytest

import chunkwise


@pytest.fixture(autouse=True)
def _cache_off_after() -> Iterator[None]:
    yield
    chunkwise.set_cache_bytes(0)
    chunkwise.reset_cache_stats()


DATA = np.arange(20 * 24 * 10, dtype=np.uint16).reshape(20, 24, 10)


def _array(url: str, sharded: bool, data: np.ndarray = DATA) -> chunkwise.Array:
    return chunkwise.create(url, data=data, chunks=[8, 8, 4],
                            shards=[16, 16, 8] if sharded else None, fill_value=3)


@pytest.mark.parametrize("sharded", [True, False])
def test_cache_on_two_reads_view_one_buffer(memory_url: str, sharded: bool) -> None:
    array = _array(memory_url, sharded)
    chunkwise.set_cache_bytes(64 << 20)
    first = array.read_chunk((1, 0, 1))
    chunkwise.reset_cache_stats()
    second = array.read_chunk([1, 0, 1])
    assert chunkwise.cache_stats()["hits"] >= 1
    assert chunkwise.cache_stats()["misses"] == 0
    assert np.shares_memory(first, second)
    assert first.flags.writeable is False
    assert first.shape == (8, 8, 4) and first.dtype == array.dtype
    np.testing.assert_array_equal(first, array[8:16, 0:8, 4:8])
    with pytest.raises(ValueError, match="read-only"):
        first[0, 0, 0] = 1


@pytest.mark.parametrize("sharded", [True, False])
def test_cache_off_reads_the_same_values_in_buffers_of_their_own(memory_url: str,
                                                                 sharded: bool) -> None:
    array = _array(memory_url, sharded)
    first = array.read_chunk((2, 2, 0))
    second = array.read_chunk((2, 2, 0))
    assert not np.shares_memory(first, second)
    assert first.flags.writeable is False
    np.testing.assert_array_equal(first, array[16:20, 16:24, 0:4])
    np.testing.assert_array_equal(first, DATA[16:20, 16:24, 0:4])


@pytest.mark.parametrize("sharded", [True, False])
def test_an_edge_chunk_is_its_part_inside_the_array(memory_url: str, sharded: bool) -> None:
    array = _array(memory_url, sharded)
    chunkwise.set_cache_bytes(64 << 20)
    edge = array.read_chunk((2, 1, 2))  # Rows 16..19, columns 8..15, planes 8..9.
    assert edge.shape == (4, 8, 2)
    assert edge.flags.writeable is False
    np.testing.assert_array_equal(edge, array[16:20, 8:16, 8:10])
    assert np.shares_memory(edge, array.read_chunk((2, 1, 2)))


def test_the_view_outlives_the_array_and_the_cache(tmp_path: pathlib.Path) -> None:
    array = _array(str(tmp_path / "a.zarr"), True)
    chunkwise.set_cache_bytes(64 << 20)
    view = array.read_chunk((0, 2, 1))
    expected = DATA[0:8, 16:24, 4:8].copy()
    del array
    gc.collect()
    chunkwise.set_cache_bytes(0)  # Every entry dropped.
    assert chunkwise.cache_stats()["entries"] == 0
    np.testing.assert_array_equal(view, expected)
    assert int(view.sum()) == int(expected.sum())


def test_a_chunk_not_stored_is_the_fill_value(memory_url: str) -> None:
    array = chunkwise.create(memory_url, shape=[16, 16], dtype="int32", chunks=[8, 8],
                             fill_value=-5)
    chunkwise.set_cache_bytes(64 << 20)
    chunk = array.read_chunk((1, 1))
    assert chunk.shape == (8, 8) and (chunk == -5).all()
    assert chunkwise.cache_stats()["entries"] == 0  # Not kept: a writer elsewhere may add it.


def test_a_big_endian_array_reads_the_same_values_in_host_order(memory_url: str) -> None:
    array = chunkwise.create(memory_url, data=DATA.astype(">u2"), chunks=[8, 8, 4])
    chunkwise.set_cache_bytes(64 << 20)
    chunk = array.read_chunk((1, 1, 1))
    assert chunk.dtype == np.dtype("=u2") and array.dtype == np.dtype(">u2")
    np.testing.assert_array_equal(chunk, array[8:16, 8:16, 4:8])
    assert np.shares_memory(chunk, array.read_chunk((1, 1, 1)))


def test_a_write_drops_what_it_makes_stale_and_the_old_view_keeps_its_values(
        memory_url: str) -> None:
    array = _array(memory_url, True)
    chunkwise.set_cache_bytes(64 << 20)
    before = array.read_chunk((0, 0, 0))
    array[0, 0, 0] = 999
    after = array.read_chunk((0, 0, 0))
    assert after[0, 0, 0] == 999
    assert before[0, 0, 0] == DATA[0, 0, 0]  # The old buffer is not written over.
    assert not np.shares_memory(before, after)


def test_array_getitem_still_returns_a_writeable_copy(memory_url: str) -> None:
    array = _array(memory_url, True)
    chunkwise.set_cache_bytes(64 << 20)
    view = array.read_chunk((0, 0, 0))
    box = array[0:8, 0:8, 0:4]
    assert box.flags.writeable
    assert not np.shares_memory(box, view)


def test_coordinates_outside_the_grid_are_refused_naming_them(memory_url: str) -> None:
    array = _array(memory_url, True)
    with pytest.raises(chunkwise.InvalidArgumentError,
                       match=r"chunk \[3,0,0\] is outside the grid of chunks \[3,3,3\]"):
        array.read_chunk((3, 0, 0))
    with pytest.raises(ValueError, match=r"chunk \[0,-1,0\]"):
        array.read_chunk((0, -1, 0))
    with pytest.raises(ValueError, match=r"chunk \[0,0\] is outside"):
        array.read_chunk((0, 0))
