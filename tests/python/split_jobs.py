"""What the tests of the jobs split into dask tasks (chunkwise.dask.mesh,
chunkwise.dask.skeletonize) share: a job in N tasks equals one process, its
summary and every file of its output, byte for byte; and the empty
segmentation those and the one-process mesh tests write into."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import dask


def segmentation(path: Path, shape_zyx: tuple[int, int, int],
                 voxel_offset: tuple[int, int, int] = (0, 0, 0),
                 resolution: tuple[float, float, float] = (8, 8, 30)) -> str:
    """An empty precomputed segmentation (only its info) of the given size."""
    path.mkdir()
    info = {
        "@type": "neuroglancer_multiscale_volume",
        "type": "segmentation",
        "data_type": "uint64",
        "num_channels": 1,
        "scales": [{"key": "s0", "size": list(reversed(shape_zyx)), "resolution": list(resolution),
                    "voxel_offset": list(voxel_offset), "chunk_sizes": [[8, 8, 8]],
                    "encoding": "raw"}],
    }
    (path / "info").write_text(json.dumps(info))
    return str(path)


def files(root: str) -> dict[str, bytes]:
    """Every file under `root` by its path relative to it, with its bytes."""
    return {str(p.relative_to(root)): p.read_bytes() for p in Path(root).rglob("*") if p.is_file()}


def assert_tasks_equal_one_process(one_process: Callable[[str], dict[str, Any]],
                                   in_tasks: Callable[[str, int], dict[str, Any]],
                                   whole: str, split: str, tasks: int = 3) -> dict[str, bytes]:
    """`one_process(whole)` and `in_tasks(split, tasks)` (on dask's threaded
    scheduler) return the same summary and write the same files, byte for
    byte, and no more (no scratch object is left); the files, for more checks."""
    expected = one_process(whole)
    with dask.config.set(scheduler="threads"):
        summary = in_tasks(split, tasks)
    assert summary == expected
    want, got = files(whole), files(split)
    assert want
    assert sorted(got) == sorted(want)
    assert [name for name in want if got[name] != want[name]] == []
    return want
