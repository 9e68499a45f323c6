"""The CLI's whole-array zarr jobs, from Python: `zarr info`, `convert`,
`zarr import`, `import` and `to-precomputed`, each one call of the same facade function
with the same options and defaults (docs/python.md, "Whole-array jobs").
"""

from __future__ import annotations

import json
import operator
import os
from collections.abc import Sequence
from typing import Any

from . import _core, _progress
from ._array import Array, _create_request
from ._cancel import CancelToken
from ._progress import Progress


def info(url: str) -> dict[str, Any]:
    """What the zarr array or group at `url` is: the dict `chunkwise zarr info
    URL --json` prints, made by the same library function.

    For an array, the keys of `Array.info`; for a group, ``path``,
    ``node_type`` (``"group"``) and ``members`` (each with ``path``,
    ``node_type``, ``zarr_format``, and for arrays ``shape``, ``dtype``,
    ``chunks``, ``shards``). NotFoundError when neither is there;
    CorruptionError for metadata that is not JSON.
    """
    return json.loads(_core.zarr_info_json(str(url)))


def convert(
    source: str,
    dest: str,
    *,
    chunks: Sequence[int] | None = None,
    shards: Sequence[int] | str | None = None,
    codecs: str | None = None,
    checksum: str | None = "default",
    index_location: str = "end",
    zarr_format: int = 3,
    overwrite: bool = False,
    resume: bool = False,
    blosc_encoder: str = "c-blosc",
    threads: int | None = None,
    progress: Progress = None,
    cancel: CancelToken | None = None,
) -> Array:
    """Copies the array at `source` into a new array at `dest`: `chunkwise
    zarr convert SRC DST`, with its flags as keywords and its defaults.

    What is not given is the source's: its `chunks`, its `shards` (``"none"``
    writes none; zarr v2 has none), its `codecs` (a shorthand such as
    ``"gzip:6"``). `checksum` is added to the `codecs` given: ``"default"``
    is crc32c on a zarr v3 destination, ``None`` opts out; without `codecs`
    the source's are kept as they are (``"crc32c"`` or ``"zstd"`` needs
    them). The
    destination is zarr v3 unless `zarr_format=2`. An array at `dest` is
    refused unless `overwrite`; `resume` finishes an unpublished convert of
    the same source and layout. The metadata is written last. Returns the
    new array. InvalidArgumentError naming the field for a layout that does
    not fit (chunks that do not divide the source's shards).
    """
    request = _core.ConvertRequest()
    request.chunks = None if chunks is None else [operator.index(n) for n in chunks]
    if isinstance(shards, str):
        if shards != "none":
            raise ValueError(f'shards must be a shape, None or "none", not {shards!r}')
        request.unsharded = True
    elif shards is not None:
        request.shards = [operator.index(n) for n in shards]
    request.codecs = codecs
    request.checksum = "none" if checksum is None else checksum
    request.index_location = index_location
    request.zarr_format = zarr_format
    request.overwrite = overwrite
    request.resume = resume
    request.blosc_encoder = blosc_encoder
    request.threads = threads or 0
    return Array(
        _core.Array.convert(
            str(source), str(dest), request,
            progress=_progress.callback(progress, "convert"), cancel=_progress.token(cancel),
        )
    )


def _import_requests(
    chunks: Sequence[int],
    shards: Sequence[int] | None,
    codecs: str | Sequence[dict[str, Any]] | None,
    fill_value: Any,
    dimension_names: Sequence[str | None] | None,
    attributes: dict[str, Any] | None,
    zarr_format: int,
    index_location: str,
    checksum: str | None,
    overwrite: bool,
    blosc_encoder: str,
    threads: int | None,
) -> tuple[Any, Any]:
    """The layout and the request of an import: the shape and dtype are the source's."""
    layout = _create_request(
        [], "uint8", chunks, shards, codecs, fill_value, dimension_names, attributes,
        zarr_format, index_location, checksum,
    )
    layout.dtype = ""
    request = _core.ImportRequest()
    request.overwrite = overwrite
    request.blosc_encoder = blosc_encoder
    request.threads = threads or 0
    return layout, request


def import_npy(
    path: str | os.PathLike[str],
    url: str,
    *,
    chunks: Sequence[int],
    shards: Sequence[int] | None = None,
    codecs: str | Sequence[dict[str, Any]] | None = "zstd:3",
    checksum: str | None = "default",
    fill_value: Any = None,
    dimension_names: Sequence[str | None] | None = None,
    attributes: dict[str, Any] | None = None,
    zarr_format: int = 3,
    index_location: str = "end",
    overwrite: bool = False,
    resume: bool = False,
    blosc_encoder: str = "c-blosc",
    threads: int | None = None,
    progress: Progress = None,
    cancel: CancelToken | None = None,
) -> Array:
    """Imports the .npy file at `path` as a new array at `url`: `chunkwise
    zarr import FILE DEST`, with its flags as keywords and its defaults.

    The shape and dtype are the file's (its header); the layout options are
    `create`'s. The file is streamed one slab of shards at a time, never
    loaded whole, and the metadata is written last: a failed or cancelled
    import leaves no array, and `resume` finishes one of the same file and
    layout. A damaged .npy raises the library's error naming the file
    (CorruptionError or InvalidArgumentError), not numpy's. Returns the array.
    """
    layout, request = _import_requests(
        chunks, shards, codecs, fill_value, dimension_names, attributes, zarr_format,
        index_location, checksum, overwrite, blosc_encoder, threads,
    )
    request.resume = resume
    return Array(
        _core.Array.import_npy(
            os.fspath(path), str(url), layout, request,
            progress=_progress.callback(progress, "import"), cancel=_progress.token(cancel),
        )
    )


def import_(
    src: str | os.PathLike[str],
    dest: str,
    *,
    chunks: Sequence[int] | None = None,
    shards: Sequence[int] | None = None,
    codecs: str | Sequence[dict[str, Any]] | None = "zstd:3",
    checksum: str | None = "default",
    fill_value: Any = None,
    dimension_names: Sequence[str | None] | None = None,
    attributes: dict[str, Any] | None = None,
    zarr_format: int = 3,
    index_location: str = "end",
    overwrite: bool = False,
    blosc_encoder: str = "c-blosc",
    threads: int | None = None,
    dataset: str | None = None,
    progress: Progress = None,
    cancel: CancelToken | None = None,
) -> Array:
    """Imports the volume at `src` as a new array at `dest`: `chunkwise
    import SRC DEST`, with its flags as keywords and its defaults.

    `src` is a .npy file, a TIFF or BigTIFF file whose pages are the z
    planes, a folder of single-plane .tif/.tiff files taken in natural
    order (plane2 before plane10), a dataset of an HDF5 file, named as
    ``"FILE.h5:/path/to/dataset"`` or by `dataset` (``"/path/to/dataset"``),
    an N5 dataset (its folder or a store URL; raw, gzip, zstd, blosc, bzip2
    or xz blocks; or its container with `dataset` ``"/raw/s0"``) or a zarr
    v2 or v3 array (copied as `convert` does); the
    shape and dtype are the source's ((z, y, x) for TIFF; an N5 dataset's
    dimensions reversed, so N5's (x, y, z) is (z, y, x)), the layout options
    `create`'s. `chunks` is needed but for an HDF5 or N5 dataset or a zarr
    array, whose own chunks (an N5 blockSize reversed) are the default
    (about 1 MiB of an HDF5 dataset's shape if it has none); an HDF5
    dataset's simple attributes and an N5 dataset's non-structural ones
    become the array's, under `attributes` (a zarr array keeps its own, and
    `attributes`, `fill_value` and `dimension_names` are refused for it). The source is streamed one slab of shards at a time
    and the metadata written last; a TIFF, HDF5 or N5 import that fails leaves
    nothing at `dest`. An OME-TIFF stating PhysicalSizeX/Y/Z makes `dest` an
    OME-Zarr image whose level ``0`` is the returned array, with the sizes as
    its scale. Errors name the file and plane or dataset (InvalidArgumentError
    for planes of another shape or dtype, a file that is not HDF5 or a group;
    NotFoundError for a missing file or dataset; CorruptionError for a
    truncated file or an N5 block shorter than its header or its stated
    size, naming the block; UnsupportedError for RGB, a compound dtype or an
    N5 compression such as lz4).
    """
    layout, request = _import_requests(
        [] if chunks is None else chunks, shards, codecs, fill_value, dimension_names, attributes,
        zarr_format, index_location, checksum, overwrite, blosc_encoder, threads,
    )
    request.dataset = dataset or ""
    return Array(
        _core.Array.import_volume(
            os.fspath(src), str(dest), layout, request,
            progress=_progress.callback(progress, "import"), cancel=_progress.token(cancel),
        )
    )


def to_precomputed(
    source: str,
    dest: str,
    *,
    type: str | None = None,  # noqa: A002 - the CLI's flag
    encoding: str | None = None,
    chunk: Sequence[int] = (64, 64, 64),
    resolution: Sequence[float] = (1, 1, 1),
    scales: int = 1,
    sharded: bool = False,
    sharding: dict[str, Any] | str | None = None,
    gzip_level: int = 6,
    overwrite: bool = False,
    threads: int | None = None,
    progress: Progress = None,
    cancel: CancelToken | None = None,
) -> dict[str, Any]:
    """Converts the 3-d zarr array (z, y, x) at `source` into a neuroglancer
    precomputed volume at `dest`: `chunkwise zarr to-precomputed SRC DEST`,
    with its flags as keywords and its defaults.

    `type` is ``"segmentation"`` (the default for uint32/uint64) or
    ``"image"``; `encoding` ``"raw"`` or ``"compressed_segmentation"`` (by
    default by type). `chunk` and `resolution` are x, y, z; `scales` halves
    each scale from the last (1..32). `sharded` picks sharding bits per
    scale; `sharding` (a neuroglancer_uint64_sharded_v1 spec, dict or JSON
    text) gives one for every scale. A volume at `dest` is refused unless
    `overwrite`. Returns ``chunks_per_scale``, ``bytes_read`` and ``seconds``.
    """
    request = _core.ZarrToPrecomputedRequest()
    request.type = type
    request.encoding = encoding
    request.chunk = [operator.index(n) for n in chunk]
    request.resolution = [float(r) for r in resolution]
    request.num_scales = scales
    request.sharded = sharded
    if sharding is not None:
        request.sharding_json = sharding if isinstance(sharding, str) else json.dumps(sharding)
    request.gzip_level = gzip_level
    request.overwrite = overwrite
    request.threads = threads or 0
    return _core.zarr_to_precomputed(
        str(source), str(dest), request,
        progress=_progress.callback(progress, "to-precomputed"), cancel=_progress.token(cancel),
    )
