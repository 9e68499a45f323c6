"""chunkwise.dask.skeletonize: the skeleton job split into dask tasks
(facade/skeleton_jobs.h) writes the bytes chunkwise.skeletonize writes in one
process, and a failed task leaves nothing behind."""

from __future__ import annotations

from pathlib import Path

import chunkwise
import chunkwise.dask as cwd
import dask
import numpy as np
import pytest
from split_jobs import assert_tasks_equal_one_process, files, segmentation


@pytest.fixture
def source(tmp_path: Path) -> str:
    # Labels of 2 x 2 x 1 voxels, some 5000 of them (a sharded folder has two shards),
    # background between some, a tube across the volume touching three of its faces.
    z, y, x = np.indices((24, 32, 32))
    labels = ((z // 2) * 512 + (y // 2) * 32 + x + 1).astype(np.uint32)
    labels[(x + 2 * y + 3 * z) % 13 == 0] = 0
    labels[z < 4] = 0
    labels[(z - 1) ** 2 + (y - 17) ** 2 < 5] = 70001
    url = str(tmp_path / "labels.zarr")
    array = chunkwise.create(url, shape=labels.shape, dtype="uint32", chunks=[8, 16, 16])
    array[...] = labels
    return url


@pytest.mark.parametrize("format", ["precomputed", "precomputed-sharded"])
def test_tasks_write_the_bytes_of_one_process(source: str, tmp_path: Path, format: str) -> None:
    options = {"format": format, "voxel_size": [8, 8, 30], "const": 20, "threads": 1}
    want = assert_tasks_equal_one_process(
        lambda dest: chunkwise.skeletonize(source, dest, **options),
        lambda dest, tasks: cwd.skeletonize(source, dest, tasks=tasks, **options),
        segmentation(tmp_path / "whole", (24, 32, 32)),
        segmentation(tmp_path / "split", (24, 32, 32)))
    assert sum(name.startswith("skeletons/") for name in want) >= 2
    if format == "precomputed-sharded":
        assert "skeletons/1.shard" in want


def test_tasks_write_the_vectors_store_of_one_process(source: str, tmp_path: Path) -> None:
    """A zarr-vectors skeleton store (#41), byte for byte; no scratch object left."""
    options = {"format": "vectors", "voxel_size": [8, 8, 30], "const": 20, "threads": 1,
               "chunk_shape": [64, 64, 240]}
    counts = []

    def one_process(dest: str) -> dict:
        counts.append(chunkwise.skeletonize(source, dest, **options))
        return counts[-1]

    want = assert_tasks_equal_one_process(
        one_process, lambda dest, tasks: cwd.skeletonize(source, dest, tasks=tasks, **options),
        str(tmp_path / "whole.zarrvectors"), str(tmp_path / "split.zarrvectors"))
    assert counts[0]["labels"] > 4096 and counts[0]["files"] > 1
    assert "zarr.json" in want and not any(".chunkwise-scratch" in name for name in want)


def test_a_failed_task_leaves_nothing(source: str, tmp_path: Path) -> None:
    dest = segmentation(tmp_path / "seg", (24, 32, 32))
    before = files(dest)
    # The tube needs more than 10 kB (a small label 2640 bytes): the task that owns it
    # refuses, naming it.
    with dask.config.set(scheduler="sync"), pytest.raises(chunkwise.ResourceExhaustedError,
                                                          match="label 70001 needs"):
        cwd.skeletonize(source, dest, tasks=2, max_memory=10000)
    assert files(dest) == before
    # A vectors store already there is refused by the first round, naming it.
    store = str(tmp_path / "v.zarrvectors")
    chunkwise.skeletonize(source, store, format="vectors", labels=[70001])
    before = files(store)
    with dask.config.set(scheduler="sync"), pytest.raises(chunkwise.InvalidArgumentError,
                                                          match="v.zarrvectors.*overwrite"):
        cwd.skeletonize(source, store, tasks=2, format="vectors")
    assert files(store) == before
    with pytest.raises(TypeError, match="colour"):
        cwd.skeletonize(source, dest, tasks=2, colour="red")
    with pytest.raises(ValueError, match="tasks"):
        cwd.skeletonize(source, dest, tasks=0)
