"""The CLI's whole-array zarr jobs, from Python: `zarr info` and `convert`,
each one call of the same facade function
with the same options and defaults (docs/python.md, "Whole-array jobs").
"""

from __future__ import annotations

import json
import operator
from collections.abc import Sequence
from typing import Any

from . import _core, _progress
from ._array import Array
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
    checksum: str = "none",
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
    ``"gzip:6"``; `checksum` ``"crc32c"`` or ``"zstd"`` needs them). The
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
    request.checksum = checksum
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
