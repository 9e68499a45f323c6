"""chunkwise.dask: dask arrays written to and read from chunkwise arrays.

``to_zarr`` never lets two tasks write one shard: every task writes whole
shards (whole chunks when unsharded), so no task reads, merges and rewrites
an object another task is writing, the race that loses data when dask chunks
cut zarr-python's shards. The array appears whole or not at all: the driver
creates it unpublished, each task joins it by its metadata and writes its
block with the GIL released, and the metadata is written once every task
has succeeded. ``from_zarr`` reads one task per shard. See docs/python.md,
"Dask", and docs/scale.md.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import _core, _extras, _progress

try:
    import dask
    import dask.array as da
except ModuleNotFoundError as _missing:
    _extras.explain_missing(_missing, "dask", "dask")
    raise
from ._array import Array, _create_request
from ._array import open as _open
from ._cancel import CancelToken

__all__ = ["export_shards", "from_zarr", "mesh", "skeletonize", "to_precomputed", "to_zarr"]


def to_zarr(
    darr: Any,
    url: str,
    *,
    chunks: Sequence[int] | None = None,
    shards: Sequence[int] | None = None,
    codecs: str | Sequence[dict[str, Any]] | None = "zstd:3",
    checksum: str | None = "default",
    fill_value: Any = None,
    overwrite: bool = False,
    rechunk: bool = True,
    dimension_names: Sequence[str] | None = None,
    attributes: dict[str, Any] | None = None,
    compute: bool = True,
) -> Any:
    """Writes the dask array `darr` to a new zarr v3 array at `url`.

    `shards` (a multiple of `chunks`) makes it sharded; `chunks` defaults to
    the shard shape, or to dask's largest chunk when unsharded. Each task
    writes whole shards (chunks when unsharded): dask chunks that cut them
    are rechunked to shard boundaries, or with ``rechunk=False`` refused with
    a ValueError naming the first misaligned axis. The array is published
    (its zarr.json written) only after every task has succeeded; a failed
    run leaves no array at `url` (``overwrite=True`` clears what it left).
    `codecs` and `checksum` are `chunkwise.create`'s (crc32c last by
    default; ``checksum=None`` opts out).

    Returns the written `chunkwise.Array`, or with ``compute=False`` a
    ``dask.delayed`` that writes, publishes and returns it.
    """
    darr = da.asarray(darr)
    if any(math.isnan(extent) for extent in darr.shape):
        raise ValueError("to_zarr needs known chunk sizes (see dask's compute_chunk_sizes)")
    shape = tuple(int(extent) for extent in darr.shape)
    chunk_shape = _default_chunks(darr, chunks, shards)
    grid = tuple(operator.index(n) for n in (shards if shards is not None else chunk_shape))
    if len(grid) != darr.ndim:
        raise ValueError(f"{'shards' if shards is not None else 'chunks'} has rank {len(grid)}; "
                         f"the dask array's is {darr.ndim}")
    misaligned = _first_misaligned_axis(darr.chunks, grid)
    if misaligned is not None:
        axis, boundary = misaligned
        unit = "shard" if shards is not None else "chunk"
        if not rechunk:
            raise ValueError(
                f"dask chunks along axis {axis} end at {boundary}, inside a {unit}: "
                f"the {unit} size along axis {axis} is {grid[axis]}; rechunk the array "
                f"to multiples of {grid[axis]} (or pass rechunk=True)"
            )
        darr = darr.rechunk(_aligned_chunks(darr, grid))

    request = _create_request(
        shape, darr.dtype, chunk_shape, shards, codecs, fill_value, dimension_names,
        attributes, 3, "end", checksum,
    )
    created = _core.Array.create(str(url), request, overwrite, publish=False)
    metadata_json = created.metadata_json
    codec = codecs if isinstance(codecs, str) else None
    if codecs is None:
        codec = "none"

    writes = []
    starts = [np.cumsum((0,) + tuple(c[:-1])) for c in darr.chunks]
    for index, block in zip(np.ndindex(*darr.numblocks), darr.to_delayed().ravel()):
        start = [int(starts[axis][i]) for axis, i in enumerate(index)]
        stop = [a + darr.chunks[axis][i] for axis, (a, i) in enumerate(zip(start, index))]
        writes.append(
            dask.delayed(_write_block, pure=False)(block, str(url), metadata_json, codec,
                                                   start, stop)
        )
    publish = dask.delayed(_publish, pure=False)(str(url), metadata_json, codec, writes)
    if not compute:
        return publish
    dask.compute(*writes)
    # Only here, on the driver, once every task has succeeded.
    created.publish()
    return Array(_core.Array.open(str(url)))


def from_zarr(url: str, chunks: Any = None) -> da.Array:
    """A dask array over the chunkwise array at `url`.

    One task per shard (per chunk when unsharded) unless `chunks` (anything
    ``dask.array.from_array`` takes) says otherwise; each task reads its box
    through ``chunkwise.open``.
    """
    array = _open(str(url))
    if chunks is None:
        chunks = array.shards if array.shards is not None else array.chunks
    source = _ArraySource(str(url), array.shape, array.dtype)
    return da.from_array(
        source, chunks=chunks, lock=False, asarray=False, fancy=False,
        name=f"chunkwise-from-zarr-{dask.base.tokenize(str(url), array.metadata)}",
        meta=np.empty((0,) * array.ndim, array.dtype),
    )


def export_shards(
    labelmap: str,
    spec: str,
    dest_url: str,
    *,
    client: Any = None,
    tasks: int | None = None,
    workers: int = 1,
    version: int = 0,
    num_scales: int = 0,
    overwrite: bool = False,
    resume: bool = False,
    cancel: CancelToken | None = None,
) -> dict[str, Any]:
    """DVID's export-shards of the labelmap database at `labelmap`, one task per output shard.

    `spec` is the export spec (a neuroglancer info with sharded scales) by
    path or URL; `dest_url` gets the export (the CLI's ``dvid export-shards``
    writes the same bytes). `tasks` defaults to one per shard of scale 0; task
    i writes the shards ``number % tasks == i`` of every scale, each with
    `workers` threads, reading the database read-only (it must be on a file
    system every worker sees). The driver prepares `dest_url` first and writes
    ``info`` (which makes the export visible) only after every task has
    succeeded; after a failure ``resume=True`` keeps the complete shards.
    Runs on `client` (a ``distributed.Client``), else dask's current scheduler.
    Returns the job's summary (the tasks' figures added up), with its text
    under "log". `cancel` stops the tasks that run in this process (dask's
    threaded and synchronous schedulers) between blocks: they raise
    CancelledError and nothing is published; on a cluster, cancel the futures.
    """
    import json

    labelmap, spec, dest_url = str(labelmap), str(spec), str(dest_url)
    token = _progress.token(cancel)
    parts = tasks if tasks is not None else _core.export_shard_count(spec)
    if parts < 1:
        raise ValueError(f"tasks must be at least 1, not {parts}")
    _core.export_shards_prepare(dest_url, overwrite, resume)
    jobs = [
        dask.delayed(_core_export_part, pure=False)(
            labelmap, spec, dest_url, part, parts, workers, version, num_scales, resume, token
        )
        for part in range(parts)
    ]
    summaries = client.gather(client.compute(jobs)) if client is not None else dask.compute(*jobs)
    summary, log = _core.export_shards_publish(
        labelmap, spec, dest_url, list(summaries), version, num_scales
    )
    result: dict[str, Any] = json.loads(summary)
    result["log"] = log
    return result


def to_precomputed(
    export_url: str,
    dest_url: str,
    *,
    spec: str | None = None,
    client: Any = None,
    tasks: int | None = None,
    threads: int = 1,
    scales: Sequence[int] = (),
    supervoxels: bool = False,
    data_encoding: str = "gzip",
    gzip_level: int = 6,
    overwrite: bool = False,
    resume: bool = False,
) -> dict[str, Any]:
    """An export-shards output as a neuroglancer precomputed volume, one task per shard.

    Each Arrow shard of the export becomes one sharded precomputed shard of a
    compressed_segmentation volume at `dest_url` (the CLI's ``dvid
    to-precomputed`` writes the same bytes). `spec` is the export spec by path
    or URL (default: the export's own ``info``; DVID's exports need it).
    `tasks` defaults to one per Arrow shard; task i converts the shards
    ``number % tasks == i`` (numbered in key order, scale after scale), each
    on `threads` threads. The driver prepares `dest_url` first and writes
    ``info`` (which makes the volume visible) only after every task has
    succeeded; after a failure ``resume=True`` keeps the complete shards.
    Runs on `client` (a ``distributed.Client``), else dask's current
    scheduler. Returns the job's summary (the tasks' figures added up), with
    its text under "log".
    """
    import json

    export_url, dest_url, spec_url = str(export_url), str(dest_url), str(spec or "")
    request = _precomputed_request(scales, threads, supervoxels, data_encoding, gzip_level,
                                   overwrite, resume)
    parts = (tasks if tasks is not None
             else _core.to_precomputed_count(export_url, spec_url, request))
    if parts < 1:
        raise ValueError(f"tasks must be at least 1, not {parts}")
    _core.to_precomputed_prepare(export_url, dest_url, spec_url, request)
    jobs = [
        dask.delayed(_core_precomputed_part, pure=False)(
            export_url, dest_url, spec_url, part, parts, list(scales), threads, supervoxels,
            data_encoding, gzip_level, resume
        )
        for part in range(parts)
    ]
    summaries = client.gather(client.compute(jobs)) if client is not None else dask.compute(*jobs)
    summary, log = _core.to_precomputed_publish(export_url, dest_url, spec_url,
                                                list(summaries), request)
    result: dict[str, Any] = json.loads(summary)
    result["log"] = log
    return result


def mesh(
    source: str,
    dest: str,
    *,
    tasks: int = 1,
    client: Any = None,
    **options: Any,
) -> dict[str, Any]:
    """``chunkwise.mesh(source, dest, **options)`` as a job of `tasks` dask tasks.

    The same meshes, segment properties and infos, byte for byte, in three
    rounds (docs/scale.md, "Meshes"): task i meshes part i of the chunk grid
    and writes its pieces of each label to scratch objects under
    ``dest/mesh/.chunkwise-scratch/``; then task i welds, simplifies and
    writes the meshes of the labels it owns (multires-sharded: whole shard
    files); then the driver writes the segment properties and the infos, the
    segmentation's last, and erases the scratch objects. Every task must see
    `source` and `dest` (a shared file system or an object store). `options`
    are ``chunkwise.mesh``'s (``format``, ``labels``, ``names``,
    ``overwrite``, ``threads`` per task, ``lods``, ``chunk``,
    ``simplification_factor``, ``max_simplification_error``); with
    ``format="vectors"`` the scratch objects go under
    ``dest/.chunkwise-scratch/`` and the driver writes the whole zarr-vectors
    store, every level, as one process would. A failed task
    leaves nothing: the driver erases what the job wrote and re-raises.
    Runs on `client` (a ``distributed.Client``), else dask's current
    scheduler. Returns ``chunkwise.mesh``'s counts.
    """
    unknown = set(options) - set(_MESH_OPTIONS)
    if unknown:
        raise TypeError(f"mesh() got unexpected options: {', '.join(sorted(unknown))}")
    request = _mesh_request(options)
    return _split_job(
        str(source), str(dest), tasks, client, options, _mesh_request,
        ("mesh_job_part", "mesh_job_merge"),
        lambda source, dest, parts: _core.mesh_job_finish(source, dest, parts, request),
        lambda source, dest, parts, merged: _core.mesh_job_abandon(dest, parts, request, merged))


def skeletonize(
    source: str,
    dest: str,
    *,
    tasks: int = 1,
    client: Any = None,
    **options: Any,
) -> dict[str, Any]:
    """``chunkwise.skeletonize(source, dest, **options)`` as a job of `tasks` dask tasks.

    The same skeleton files and infos, byte for byte, in three rounds
    (docs/scale.md, "Skeletons"): task i scans part i of the source's chunk
    grid and writes each label's bounding box and voxel count to a scratch
    object under the skeleton folder (``dest/skeletons/.chunkwise-scratch/``);
    then task i skeletonizes the labels it owns (balanced by bounding-box
    volume; precomputed-sharded: whole shard files), each from the voxels
    under its bounding box padded by one voxel, and writes their files; then
    the driver writes the skeleton info and the segmentation's info last and
    erases the scratch objects. Every task must see `source` and `dest` (a
    shared file system or an object store). `options` are
    ``chunkwise.skeletonize``'s (``format``, ``labels``, ``scale``,
    ``const``, ``voxel_size``, ``overwrite``, ``directory``, ``threads`` per
    task, ``max_memory``, ``chunk_shape``); with ``format="vectors"`` the
    scratch objects go under ``dest/.chunkwise-scratch/``, the second round
    keeps each part's skeletons there, and the driver writes the whole
    zarr-vectors store as one process would. A failed task leaves nothing:
    the driver erases what the job wrote and re-raises. Runs on `client` (a
    ``distributed.Client``), else dask's current scheduler. Returns
    ``chunkwise.skeletonize``'s counts.
    """
    unknown = set(options) - set(_SKELETON_OPTIONS)
    if unknown:
        raise TypeError(f"skeletonize() got unexpected options: {', '.join(sorted(unknown))}")
    request = _skeleton_request(options)
    return _split_job(
        str(source), str(dest), tasks, client, options, _skeleton_request,
        ("skeleton_job_scan", "skeleton_job_part"),
        lambda source, dest, parts: _core.skeleton_job_finish(source, dest, parts, request),
        lambda source, dest, parts, second: _core.skeleton_job_abandon(source, dest, parts, request,
                                                                       second))


def _split_job(source: str, dest: str, tasks: int, client: Any, options: dict[str, Any],
               request: Callable[[dict[str, Any]], Any], steps: tuple[str, str], finish: Any,
               abandon: Any) -> dict[str, Any]:
    """A facade job split into parts (mesh_jobs.h, skeleton_jobs.h) on dask:
    two rounds, ``_core.<steps[0]>`` then ``_core.<steps[1]>``, a task a part
    each, then `finish` on the driver; a failed round calls `abandon` (told
    whether the second round ran) and re-raises."""
    parts = int(tasks)
    if parts < 1:
        raise ValueError(f"tasks must be at least 1, not {parts}")

    def run(step: str) -> None:
        jobs = [dask.delayed(_task, pure=False)(step, request, source, dest, part, parts, options)
                for part in range(parts)]
        if client is not None:
            client.gather(client.compute(jobs))
        else:
            dask.compute(*jobs)

    for step, started_second in ((steps[0], False), (steps[1], True)):
        try:
            run(step)
        except BaseException:
            abandon(source, dest, parts, started_second)
            raise
    result: dict[str, Any] = finish(source, dest, parts)
    return result


# --- the tasks ---------------------------------------------------------------


_SKELETON_OPTIONS = ("format", "labels", "scale", "const", "voxel_size", "overwrite", "directory",
                     "threads", "max_memory", "chunk_shape")


def _skeleton_request(options: dict[str, Any]) -> Any:
    request = _core.SkeletonRequest()
    for name, value in options.items():
        if name == "labels":
            value = [int(label) for label in (value or [])]
        elif name in ("voxel_size", "chunk_shape") and value is not None:
            value = [float(v) for v in value]
        elif name == "const":
            name, value = "constant", float(value)
        elif name == "scale":
            value = float(value)
        setattr(request, name, value)
    return request


def _task(step: str, request: Callable[[dict[str, Any]], Any], source: str, dest: str, part: int,
          parts: int, options: dict[str, Any]) -> None:
    """One task of a split job's round: ``_core.<step>`` for part `part`, its
    request made where the task runs (the options pickle; the request does not)."""
    getattr(_core, step)(source, dest, part, parts, request(options))


_MESH_OPTIONS = ("format", "labels", "names", "overwrite", "threads", "lods", "chunk",
                 "simplification_factor", "max_simplification_error")


def _mesh_request(options: dict[str, Any]) -> Any:
    request = _core.MeshRequest()
    for name, value in options.items():
        if name == "labels" and value is not None:
            value = [int(label) for label in value]
        elif name == "chunk" and value is not None:
            value = [int(c) for c in value]
        setattr(request, name, value)
    return request


def _precomputed_request(scales: Sequence[int], threads: int, supervoxels: bool,
                         data_encoding: str, gzip_level: int, overwrite: bool,
                         resume: bool) -> Any:
    request = _core.PrecomputedRequest()
    request.scales = [int(s) for s in scales]
    request.threads = int(threads)
    request.supervoxels = bool(supervoxels)
    request.data_encoding = str(data_encoding)
    request.gzip_level = int(gzip_level)
    request.overwrite = bool(overwrite)
    request.resume = bool(resume)
    return request


def _core_precomputed_part(export_url: str, dest_url: str, spec_url: str, part: int, parts: int,
                           scales: list[int], threads: int, supervoxels: bool, data_encoding: str,
                           gzip_level: int, resume: bool) -> str:
    """One task of to_precomputed: its part's shards; its summary as JSON."""
    request = _precomputed_request(scales, threads, supervoxels, data_encoding, gzip_level,
                                   False, resume)
    return _core.to_precomputed_part(export_url, dest_url, spec_url, part, parts, request)



def _core_export_part(labelmap: str, spec: str, dest_url: str, part: int, parts: int,
                      workers: int, version: int, num_scales: int, resume: bool,
                      cancel: Any = None) -> str:
    """One task of export_shards: its part's shards; its summary as JSON."""
    return _core.export_shards_part(labelmap, spec, dest_url, part, parts, workers, version,
                                    num_scales, resume, cancel)



def _write_block(block: np.ndarray, url: str, metadata_json: str, codec: str | None,
                 start: list[int], stop: list[int]) -> int:
    """One task: joins the unpublished array and writes its block (whole shards)."""
    array = _core.Array.join_unpublished(url, metadata_json, codec)
    # Host order for the library, whatever the array's byte order.
    data = np.ascontiguousarray(block, dtype=np.dtype(array.dtype).newbyteorder("="))
    array.write(start, stop, data)
    return data.size


def _publish(url: str, metadata_json: str, codec: str | None, written: list[int]) -> Array:
    """The last task of a delayed to_zarr: runs only once every write succeeded."""
    _core.Array.join_unpublished(url, metadata_json, codec).publish()
    return Array(_core.Array.open(url))


class _ArraySource:
    """What from_zarr hands to dask: picklable, opening the array once per process."""

    def __init__(self, url: str, shape: tuple[int, ...], dtype: np.dtype[Any]) -> None:
        self.url = url
        self.shape = shape
        self.dtype = dtype
        self.ndim = len(shape)
        self._array: Array | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {"url": self.url, "shape": self.shape, "dtype": self.dtype}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["url"], state["shape"], state["dtype"])  # type: ignore[misc]

    def __getitem__(self, selection: Any) -> np.ndarray:
        if self._array is None:
            self._array = _open(self.url)
        return self._array[selection]


# --- alignment ---------------------------------------------------------------


def _default_chunks(darr: da.Array, chunks: Sequence[int] | None,
                    shards: Sequence[int] | None) -> tuple[int, ...]:
    if chunks is not None:
        return tuple(operator.index(n) for n in chunks)
    if shards is not None:
        return tuple(operator.index(n) for n in shards)
    return tuple(max(1, max(c) if c else 1) for c in darr.chunks)


def _first_misaligned_axis(dask_chunks: tuple[tuple[int, ...], ...],
                           grid: tuple[int, ...]) -> tuple[int, int] | None:
    """(axis, boundary) of the first dask block boundary inside a grid cell."""
    for axis, (sizes, unit) in enumerate(zip(dask_chunks, grid)):
        boundary = 0
        for size in sizes[:-1]:
            boundary += size
            if boundary % unit:
                return axis, boundary
    return None


def _aligned_chunks(darr: da.Array, grid: tuple[int, ...]) -> tuple[int, ...]:
    """Per axis, the whole number of grid cells nearest dask's chunk size."""
    return tuple(
        max(unit, round(max(sizes) / unit) * unit) if sizes else unit
        for sizes, unit in zip(darr.chunks, grid)
    )
