"""chunkwise.set_cache_bytes: the decoded-chunk cache the module's arrays share.

Hits and misses are the cache's own counters (chunkwise.cache_stats); the
values read are asserted against numpy, with the cache on and off.
"""

from __future__ import annotations

import pathlib
import threading
from collections.abc import Iterator

import numpy as np
import pytest

import chunkwise


@pytest.fixture(autouse=True)
def _cache_off_after() -> Iterator[None]:
    yield
    chunkwise.set_cache_bytes(0)
    chunkwise.reset_cache_stats()


def _sharded(path: pathlib.Path, data: np.ndarray) -> chunkwise.Array:
    array = chunkwise.create(
        str(path), shape=data.shape, dtype=data.dtype, chunks=[8, 8, 8], shards=[16, 16, 16]
    )
    array[...] = data
    return array


def test_off_by_default_and_keeps_nothing(tmp_path: pathlib.Path) -> None:
    data = np.arange(32 * 32 * 16, dtype=np.uint16).reshape(32, 32, 16)
    array = _sharded(tmp_path / "a.zarr", data)
    assert chunkwise.cache_stats()["limit_bytes"] == 0
    np.testing.assert_array_equal(array[1:9, 2:10, 3:11], data[1:9, 2:10, 3:11])
    np.testing.assert_array_equal(array[1:9, 2:10, 3:11], data[1:9, 2:10, 3:11])
    stats = chunkwise.cache_stats()
    assert stats["hits"] == 0
    assert stats["entries"] == 0


def test_a_second_read_of_the_same_chunks_hits_only(tmp_path: pathlib.Path) -> None:
    data = np.arange(32 * 32 * 16, dtype=np.uint16).reshape(32, 32, 16)
    array = _sharded(tmp_path / "a.zarr", data)
    chunkwise.set_cache_bytes(64 << 20)
    np.testing.assert_array_equal(array[1:9, 2:10, 3:11], data[1:9, 2:10, 3:11])
    chunkwise.reset_cache_stats()
    np.testing.assert_array_equal(array[1:9, 2:10, 3:11], data[1:9, 2:10, 3:11])
    stats = chunkwise.cache_stats()
    assert stats["misses"] == 0
    assert stats["hits"] == 9  # 2×2×2 inner chunks of one shard, and its index.
    assert 0 < stats["bytes"] <= 64 << 20


def test_a_read_after_a_write_sees_the_write(tmp_path: pathlib.Path) -> None:
    data = np.arange(32 * 32 * 16, dtype=np.uint16).reshape(32, 32, 16)
    array = _sharded(tmp_path / "a.zarr", data)
    chunkwise.set_cache_bytes(64 << 20)
    np.testing.assert_array_equal(array[...], data)
    # Through another handle of the same directory.
    other = chunkwise.open(str(tmp_path / "a.zarr"), mode="r+")
    other[3:5, 3:5, 3:5] = 60000
    data[3:5, 3:5, 3:5] = 60000
    np.testing.assert_array_equal(array[...], data)
    assert chunkwise.cache_stats()["invalidations"] > 0


def test_the_cache_stays_within_its_limit(tmp_path: pathlib.Path) -> None:
    data = np.arange(32 * 32 * 16, dtype=np.uint16).reshape(32, 32, 16)
    array = _sharded(tmp_path / "a.zarr", data)
    chunkwise.set_cache_bytes(4000)  # Under 4 inner chunks of 1 KiB.
    for _ in range(2):
        np.testing.assert_array_equal(array[...], data)
    stats = chunkwise.cache_stats()
    assert stats["bytes"] <= 4000
    assert stats["evictions"] > 0
    with pytest.raises(ValueError, match="nbytes"):
        chunkwise.set_cache_bytes(-1)


def test_threads_reading_and_writing_read_correct_values(tmp_path: pathlib.Path) -> None:
    data = np.zeros((32, 32, 16), dtype=np.uint16)
    array = _sharded(tmp_path / "a.zarr", data)
    chunkwise.set_cache_bytes(1 << 20)
    errors: list[str] = []

    def work(t: int) -> None:
        # Thread t owns the shard at rows 16·(t // 2), columns 16·(t % 2).
        rows = slice(16 * (t // 2), 16 * (t // 2) + 16)
        cols = slice(16 * (t % 2), 16 * (t % 2) + 16)
        for value in range(1, 21):
            array[rows, cols, :] = t * 100 + value
            back = array[rows, cols, :]
            if not np.all(back == t * 100 + value):
                errors.append(f"thread {t} round {value}")

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []


def test_read_coalescing_settings_round_trip_and_reads_match(tmp_path: pathlib.Path) -> None:
    defaults = chunkwise.read_coalescing()
    assert defaults == {"remote": True, "local": False, "max_gap": 1 << 20, "max_waste": 0.5,
                        "max_request": 32 << 20, "small_gap": 64 << 10}
    data = np.arange(32 * 32 * 16, dtype=np.uint16).reshape(32, 32, 16)
    _sharded(tmp_path / "a.zarr", data)
    try:
        for local in (False, True):
            chunkwise.set_read_coalescing(local=local, max_gap=4096, small_gap=0)
            assert chunkwise.read_coalescing()["local"] is local
            assert chunkwise.read_coalescing()["max_gap"] == 4096
            array = chunkwise.open(str(tmp_path / "a.zarr"), mode="r")
            np.testing.assert_array_equal(array[1:30, 2:17, 3:11], data[1:30, 2:17, 3:11])
        with pytest.raises(ValueError, match="max_waste"):
            chunkwise.set_read_coalescing(max_waste=1.5)
    finally:
        chunkwise.set_read_coalescing()
    assert chunkwise.read_coalescing() == defaults
