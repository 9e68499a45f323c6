"""chunkwise.dask.skeletonize: the skeleton job split into dask tasks
(facade/skeleton_jobs.h) writes the bytes chunkwise.skeletonize writes in one
process, and a failed task leaves nothing behind."""

from __future__ import annotations

import json
from pathlib import Path

import chunkwise
import chunkwise.dask as cwd
import dask
import numpy as np
import pytest


def _segmentation(path: Path, shape_zyx: tuple[int, int, int]) -> str:
    """An empty precomputed segmentation (only its info) of the given size."""
    path.mkdir()
    info = {
        "@type": "neuroglancer_multiscale_volume",
        "type": "segmentation",
        "data_type": "uint64",
        "num_channels": 1,
        "scales": [{"key": "s0", "size": list(reversed(shape_zyx)), "resolution": [8, 8, 30],
                    "voxel_offset": [0, 0, 0], "chunk_sizes": [[8, 8, 8]], "encoding": "raw"}],
    }
    (path / "info").write_text(json.dumps(info))
    return str(path)


def _files(root: str) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in Path(root).rglob("*") if p.is_file()}


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
    whole = _segmentation(tmp_path / "whole", (24, 32, 32))
    expected = chunkwise.skeletonize(source, whole, **options)
    assert expected["labels"] > 4096
    split = _segmentation(tmp_path / "split", (24, 32, 32))
    with dask.config.set(scheduler="threads"):
        summary = cwd.skeletonize(source, split, tasks=3, **options)
    assert summary == expected
    want, got = _files(whole), _files(split)
    assert sorted(got) == sorted(want)  # No scratch object is left.
    assert [name for name in want if got[name] != want[name]] == []
    if format == "precomputed-sharded":
        assert "skeletons/1.shard" in want


def test_a_failed_task_leaves_nothing(source: str, tmp_path: Path) -> None:
    dest = _segmentation(tmp_path / "seg", (24, 32, 32))
    before = _files(dest)
    # The tube needs more than 10 kB (a small label 2640 bytes): the task that owns it
    # refuses, naming it.
    with dask.config.set(scheduler="sync"), pytest.raises(chunkwise.ResourceExhaustedError,
                                                          match="label 70001 needs"):
        cwd.skeletonize(source, dest, tasks=2, max_memory=10000)
    assert _files(dest) == before
    with pytest.raises(chunkwise.UnsupportedError, match="vectors"):
        cwd.skeletonize(source, str(tmp_path / "v"), tasks=2, format="vectors")
    with pytest.raises(TypeError, match="colour"):
        cwd.skeletonize(source, dest, tasks=2, colour="red")
    with pytest.raises(ValueError, match="tasks"):
        cwd.skeletonize(source, dest, tasks=0)
