"""chunkwise.mesh: surface meshes and segment properties of labels, as `chunkwise mesh`."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from . import _core, _progress
from ._cancel import CancelToken


def mesh(
    source: str,
    dest: str,
    *,
    format: str = "legacy",
    labels: Iterable[int] | None = None,
    names: str | None = None,
    overwrite: bool = False,
    threads: int = 0,
    lods: int = 3,
    chunk: Iterable[int] | None = None,
    simplification_factor: float = 100,
    max_simplification_error: float = 40,
    progress: _progress.Progress = None,
    cancel: CancelToken | None = None,
) -> dict[str, Any]:
    """Meshes every label of ``source`` into the precomputed segmentation ``dest``.

    ``source`` is a 3-d zarr array (z, y, x) or a precomputed segmentation of
    unsigned integer labels (it may be ``dest`` itself). ``dest`` gets
    neuroglancer's meshes in ``mesh/`` (``format``: ``"legacy"``, one
    fragment per segment, ``"multires"``, up to ``lods`` levels of detail
    in Draco fragments, or ``"multires-sharded"``, the same in shard files) and segment properties (voxel
    counts; names and tags from the CSV file ``names``, rows ``id,name[,tags]``)
    in ``segment_properties/``, and its ``info`` names both. ``labels`` limits
    the labels meshed; ``chunk`` (z, y, x) is the box meshed at a time and,
    for multires, the finest fragments (default 128 a side).
    Each mesh (multires: LOD 0, and each coarser LOD at twice the error of the one below) is simplified by edge collapses down to
    1/``simplification_factor`` of its triangles, or until a further collapse
    would move a vertex more than ``max_simplification_error`` (physical
    units, nm) from the surface; ``max_simplification_error=0`` writes
    unsimplified marching-cubes meshes. ``progress`` counts voxels meshed (True: a tqdm bar). Existing meshes are refused unless ``overwrite``.
    Returns the counts: segments, vertices, triangles, bytes, voxels, and the
    two folders. ``format="vectors"`` instead writes a new zarr-vectors mesh
    store at ``dest`` (layout 0.9, ``lods`` resolution levels: level 0 the
    legacy meshes' vertices and triangles, each coarser level simplified
    further; object id = label, chunks of ``chunk`` voxels; no ``names``;
    docs/formats/vectors-meshes.md). Errors are those of the
    CLI's ``chunkwise mesh``.
    """
    wanted = None if labels is None else [int(label) for label in labels]
    return _core.mesh(
        str(source),
        str(dest),
        format,
        wanted,
        names,
        overwrite,
        threads,
        lods=int(lods),
        chunk=None if chunk is None else [int(c) for c in chunk],
        simplification_factor=float(simplification_factor),
        max_simplification_error=float(max_simplification_error),
        progress=_progress.callback(progress, "mesh"),
        cancel=_progress.token(cancel),
    )
