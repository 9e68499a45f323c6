"""chunkwise.dask.mesh: the meshing job split into dask tasks (facade/mesh_jobs.h)
writes the bytes chunkwise.mesh writes in one process, and a failed task
leaves nothing behind."""

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
    # Labels of 2 x 2 x 1 voxels, some 7000 of them (a sharded folder has two shards),
    # background between some, and a ball of one label across every chunk.
    z, y, x = np.indices((32, 32, 32))
    labels = ((z // 2) * 512 + (y // 2) * 32 + x + 1).astype(np.uint32)
    labels[(x + 2 * y + 3 * z) % 13 == 0] = 0
    labels[(z - 15) ** 2 + (y - 17) ** 2 + (x - 14) ** 2 < 80] = 70001
    url = str(tmp_path / "labels.zarr")
    array = chunkwise.create(url, shape=labels.shape, dtype="uint32", chunks=[16, 16, 16])
    array[...] = labels
    return url


@pytest.mark.parametrize("format", ["legacy", "multires-sharded"])
def test_tasks_write_the_bytes_of_one_process(source: str, tmp_path: Path, format: str) -> None:
    options = {"format": format, "chunk": [8, 8, 8], "lods": 2, "threads": 1}
    want = assert_tasks_equal_one_process(
        lambda dest: chunkwise.mesh(source, dest, **options),
        lambda dest, tasks: cwd.mesh(source, dest, tasks=tasks, **options),
        segmentation(tmp_path / "whole", (32, 32, 32), (3, 0, -2)),
        segmentation(tmp_path / "split", (32, 32, 32), (3, 0, -2)))
    assert sum(name.startswith("mesh/") for name in want) >= 2
    if format == "multires-sharded":
        assert "mesh/1.shard" in want


def test_tasks_write_the_vectors_store_of_one_process(source: str, tmp_path: Path) -> None:
    """A zarr-vectors mesh store (#41), both levels, byte for byte; no scratch object left."""
    options = {"format": "vectors", "chunk": [8, 8, 8], "lods": 2, "threads": 1}
    want = assert_tasks_equal_one_process(
        lambda dest: chunkwise.mesh(source, dest, **options),
        lambda dest, tasks: cwd.mesh(source, dest, tasks=tasks, **options),
        str(tmp_path / "whole.zarrvectors"), str(tmp_path / "split.zarrvectors"))
    assert "1/zarr.json" in want


def test_a_failed_task_leaves_nothing(source: str, tmp_path: Path) -> None:
    dest = segmentation(tmp_path / "seg", (32, 32, 32), (3, 0, -2))
    before = files(dest)
    # A chunk shape of 0 is refused by every task of the first round.
    with dask.config.set(scheduler="sync"), pytest.raises(chunkwise.InvalidArgumentError,
                                                          match="chunk"):
        cwd.mesh(source, dest, tasks=2, chunk=[0, 8, 8])
    assert files(dest) == before
    with pytest.raises(TypeError, match="colour"):
        cwd.mesh(source, dest, tasks=2, colour="red")
    with pytest.raises(ValueError, match="tasks"):
        cwd.mesh(source, dest, tasks=0)
