"""zarr-vectors stores: geometry in and out as numpy arrays.

    chunkwise.vectors.write("cells.zarr", positions, type="point_cloud",
                            chunk_shape=(100, 100, 100), object_ids=ids)
    g = chunkwise.vectors.read("cells.zarr", region="0:50,0:50,:")
    g.positions, g.links, g.object_ids, g.vertex_attributes

`positions` is (N, 3) float32 (x, y, z, world units); `links` is (M, w)
int64 vertex indices, w = 2 for graphs, polylines and skeletons ([child,
parent] for skeletons) and 3 for triangle meshes, none for point clouds. The
store is the zarr-vectors layout (docs/formats/vectors.md) that the
zarr-vectors package reads.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import _core, _progress
from ._cancel import CancelToken
from ._progress import Progress


@dataclass
class Geometry:
    """One level of a store: vertices, links and their attributes, as numpy."""

    type: str
    positions: np.ndarray
    links: np.ndarray
    object_ids: np.ndarray | None = None
    vertex_attributes: dict[str, np.ndarray] = field(default_factory=dict)
    link_attributes: dict[str, np.ndarray] = field(default_factory=dict)


def write(
    url: str,
    positions: Any,
    *,
    type: str = "point_cloud",  # noqa: A002 - the format's word
    links: Any = None,
    object_ids: Any = None,
    vertex_attributes: Mapping[str, Any] | None = None,
    link_attributes: Mapping[str, Any] | None = None,
    chunk_shape: Sequence[float],
    overwrite: bool = False,
    layout: str = "0.9",
    progress: Progress = None,
    cancel: CancelToken | None = None,
) -> dict[str, int]:
    """Writes a new store at `url` holding the geometry as level 0.

    `type` is ``"point_cloud"``, ``"graph"``, ``"polyline"``, ``"skeleton"``
    or ``"mesh"``. Vertex attributes are one float32 per vertex; link
    attributes (M,) or (M, channels) float32. `chunk_shape` is the spatial
    chunk in world units. `layout` is the zarr-vectors on-disk layout:
    ``"0.9"`` (the default; a polyline's or skeleton's link attributes
    raise, code Unsupported) or
    ``"0.8"`` (every geometry; what ``pyramid`` and ``validate`` take).
    Returns the vertices and chunks written.
    `progress` counts vertices written; `cancel` (or Ctrl-C) stops the write
    between chunks, before the level's metadata: reading level 0 is then
    refused (``overwrite=True`` replaces the store).
    """
    request = _core.VectorsWriteRequest()
    request.type = type
    request.chunk_shape = [float(c) for c in chunk_shape]
    request.overwrite = overwrite
    request.layout = layout
    vertex = {name: np.ascontiguousarray(v, dtype="<f4").reshape(-1)
              for name, v in (vertex_attributes or {}).items()}
    link = {name: np.ascontiguousarray(v, dtype="<f4") for name, v in (link_attributes or {}).items()}
    request.vertex_attribute_names = list(vertex)
    request.link_attribute_names = list(link)
    request.link_attribute_channels = [1 if v.ndim == 1 else int(v.shape[1]) for v in link.values()]
    return _core.vectors_write(
        str(url),
        request,
        np.ascontiguousarray(positions, dtype="<f4").reshape(-1, 3),
        None if links is None else np.ascontiguousarray(links, dtype="<i8").reshape(-1),
        None if object_ids is None else np.ascontiguousarray(object_ids, dtype="<i8").reshape(-1),
        list(vertex.values()),
        [v.reshape(-1) for v in link.values()],
        progress=_progress.callback(progress, "vectors"),
        cancel=_progress.token(cancel),
    )


def read(
    url: str, *, level: int = 0, region: str | None = None, object_id: int | None = None,
    progress: Progress = None, cancel: CancelToken | None = None
) -> Geometry:
    """The geometry of `level`: all of it, or the vertices inside `region`
    ("x0:x1,y0:y1,z0:z1", world units, open ends allowed) or of `object_id`,
    with the links among them. `progress` counts chunks read (total None);
    `cancel` stops the read between chunks (CancelledError)."""
    read = _core.vectors_read(str(url), level, region or "", object_id,
                              progress=_progress.callback(progress, "vectors"),
                              cancel=_progress.token(cancel))
    return Geometry(**read)


def convert(
    source: str, destination: str, *, layout: str = "0.9", overwrite: bool = False,
    progress: Progress = None, cancel: CancelToken | None = None
) -> dict[str, int]:
    """Writes the single-level store at `source` as a new store at
    `destination` in `layout` (``"0.9"``, the default, or ``"0.8"``): the same
    vertices, links and attributes, the same chunk shape. The new store is
    published whole or not at all; a store already at `destination` is
    refused unless `overwrite`. A source with a pyramid, or a geometry the
    layout cannot hold, raises (code Unsupported). Returns the vertices and
    chunks written; `progress` counts vertices written."""
    return _core.vectors_convert(str(source), str(destination), layout, overwrite,
                                 progress=_progress.callback(progress, "vectors"),
                                 cancel=_progress.token(cancel))


__all__ = ["Geometry", "convert", "read", "write"]
