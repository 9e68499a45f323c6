"""chunkwise.dask.mesh: the meshing job split into dask tasks (facade/mesh_jobs.h)
writes the bytes chunkwise.mesh writes in one process, and a failed task
leaves nothing behind."""

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
                    "voxel_offset": [3, 0, -2], "chunk_sizes": [[8, 8, 8]], "encoding": "raw"}],
    }
    (path / "info").write_text(json.dumps(info))
    return str(path)


def _files(root: str) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in Path(root).rglob("*") if p.is_file()}


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
    whole = _segmentation(tmp_path / "whole", (32, 32, 32))
    expected = chunkwise.mesh(source, whole, **options)
    assert expected["segments"] > 4096
    split = _segmentation(tmp_path / "split", (32, 32, 32))
    with dask.config.set(scheduler="threads"):
        summary = cwd.mesh(source, split, tasks=3, **options)
    assert summary == expected
    want, got = _files(whole), _files(split)
    assert sorted(got) == sorted(want)  # No scratch object is left.
    assert [name for name in want if got[name] != want[name]] == []
    if format == "multires-sharded":
        assert "mesh/1.shard" in want


def test_tasks_write_the_vectors_store_of_one_process(source: str, tmp_path: Path) -> None:
    """A zarr-vectors mesh store (#41), both levels, byte for byte; no scratch object left."""
    options = {"format": "vectors", "chunk": [8, 8, 8], "lods": 2, "threads": 1}
    whole, split = str(tmp_path / "whole.zarrvectors"), str(tmp_path / "split.zarrvectors")
    expected = chunkwise.mesh(source, whole, **options)
    with dask.config.set(scheduler="threads"):
        summary = cwd.mesh(source, split, tasks=3, **options)
    assert summary == expected
    want, got = _files(whole), _files(split)
    assert "1/zarr.json" in want
    assert sorted(got) == sorted(want)
    assert [name for name in want if got[name] != want[name]] == []


def test_a_failed_task_leaves_nothing(source: str, tmp_path: Path) -> None:
    dest = _segmentation(tmp_path / "seg", (32, 32, 32))
    before = _files(dest)
    # A chunk shape of 0 is refused by every task of the first round.
    with dask.config.set(scheduler="sync"), pytest.raises(chunkwise.InvalidArgumentError,
                                                          match="chunk"):
        cwd.mesh(source, dest, tasks=2, chunk=[0, 8, 8])
    assert _files(dest) == before
    with pytest.raises(TypeError, match="colour"):
        cwd.mesh(source, dest, tasks=2, colour="red")
    with pytest.raises(ValueError, match="tasks"):
        cwd.mesh(source, dest, tasks=0)
