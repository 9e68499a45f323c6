"""Skeletons of a label volume: chunkwise.skeletonize and chunkwise.read_skeleton.

    chunkwise.skeletonize("labels.zarr", "segmentation", voxel_size=(8, 8, 40))
    s = chunkwise.read_skeleton("segmentation", 17)
    s["vertices"], s["edges"], s["radii"]

The same call as `chunkwise skeletonize SRC DEST` (facade/skeletons.h); the
formats are described in docs/formats/precomputed-skeletons.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import _core, _progress
from ._cancel import CancelToken
from ._progress import Progress


def skeletonize(
    source: str,
    dest: str,
    *,
    format: str = "precomputed",  # noqa: A002 - the CLI's word
    labels: Sequence[int] | None = None,
    scale: float = 1.5,
    const: float = 300.0,
    voxel_size: Sequence[float] | None = None,
    overwrite: bool = False,
    directory: str = "skeletons",
    chunk_shape: Sequence[float] | None = None,
    threads: int = 0,
    max_memory: int = 0,
    progress: Progress = None,
    cancel: CancelToken | None = None,
) -> dict[str, Any]:
    """TEASAR skeletons of the 3-d label volume at `source` (a zarr array or a
    precomputed segmentation), written to `dest` as neuroglancer precomputed
    skeletons (into the segmentation there, whose info then names them;
    ``format="precomputed-sharded"``: the same in neuroglancer_uint64_sharded_v1
    shard files), as one ``<label>.swc`` per label (``format="swc"``), or as
    a new zarr-vectors skeleton store at `dest` (``format="vectors"``, its
    chunks `chunk_shape` x, y, z nm, default 128 voxels a side).

    `labels`: the labels to skeletonize (default all). `scale` and `const`:
    the invalidation ball, scale times the distance to the boundary plus
    const nanometres (kimimaro's defaults). `voxel_size`: x, y, z in nm
    (default a precomputed source's resolution, else 1, 1, 1). Skeletons
    already at `dest` are refused unless `overwrite`. The volume is never read
    whole: a scan finds each label's bounding box, and each label is
    skeletonized from the voxels under its box padded by one voxel;
    `max_memory` (bytes, 0: 1 GiB) is the most one label may hold: a label
    whose box needs more goes in overlapping blocks that fit, merged into one
    tree (a limit under the smallest block, about 183 KiB, is
    chunkwise.ResourceExhaustedError naming the label). `chunkwise.dask.skeletonize` splits
    the same job over dask tasks. `progress` counts voxels
    of the labels done. Returns the counts: labels, voxels, vertices, edges,
    cable_length (nm), files, bytes, prefix.
    """
    return _core.skeletonize(
        str(source),
        str(dest),
        format,
        [int(label) for label in (labels or [])],
        float(scale),
        float(const),
        None if voxel_size is None else [float(v) for v in voxel_size],
        bool(overwrite),
        directory,
        None if chunk_shape is None else [float(v) for v in chunk_shape],
        int(threads),
        int(max_memory),
        progress=_progress.callback(progress, "skeletonize"),
        cancel=_progress.token(cancel),
    )


def read_skeleton(url: str, label: int) -> dict[str, Any]:
    """The precomputed skeleton of `label` at `url` (a segmentation whose info
    names its skeletons, or a skeleton directory; sharded or not): vertices (N, 3) float32
    x, y, z nm, edges (M, 2) uint32, radii (N,) float32."""
    return _core.read_skeleton(str(url), int(label))
