"""chunkwise.StreamWriter: frames in, a sharded zarr v3 array out, in bounded memory.

    with chunkwise.StreamWriter("out.zarr", shape=[0, 512, 512], dtype="uint16",
                                chunks=[16, 128, 128], tiles_per_shard=[4, 4, 4]) as w:
        for frames in camera:
            w.append(frames)

The library's streaming shard writer (the CLI's ``zarr stream``): compression
and shard writes run on its threads while the caller appends.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from types import TracebackType
from typing import Any

import numpy as np

from . import _core, _progress
from ._array import _fill_text
from ._cancel import CancelToken
from ._progress import Progress


def _request(
    shape: Sequence[int],
    dtype: Any,
    chunks: Sequence[int],
    tiles_per_shard: Sequence[int] | None,
    codecs: str | None,
    fill_value: Any,
    dimension_names: Sequence[str | None] | None,
    index_location: str,
    backend: str,
    threads: int,
    max_memory: int,
    levels: int = 0,
    downsample: str = "mean",
    downsample_factors: Sequence[int] | None = None,
    voxel_size: Sequence[float] | None = None,
    unit: str | None = None,
    checksum: str | None = "default",
) -> _core.StreamRequest:
    request = _core.StreamRequest()
    request.shape = [operator.index(n) for n in shape]
    request.dtype = np.dtype(dtype).name
    request.chunks = [operator.index(n) for n in chunks]
    if tiles_per_shard is not None:
        request.tiles_per_shard = [operator.index(n) for n in tiles_per_shard]
    request.codec = "none" if codecs is None else codecs
    request.checksum = "none" if checksum is None else checksum
    request.fill_value = None if fill_value is None else _fill_text(fill_value)
    # None is a dimension without a name; the writer spells it "" (written as null).
    request.dimension_names = ["" if name is None else name for name in dimension_names or []]
    request.index_location = index_location
    request.backend = backend
    request.threads = threads
    request.max_memory = max_memory
    request.levels = operator.index(levels)
    request.downsample = downsample
    request.downsample_factors = [operator.index(n) for n in downsample_factors or []]
    request.voxel_size = [float(v) for v in voxel_size or []]
    request.unit = unit or ""
    return request


class StreamWriter:
    """Writes frames (indexes of dimension 0) into a new sharded zarr v3 array.

    `shape[0]` of 0 leaves dimension 0 unbounded: it ends at the frames
    appended. `chunks` is the tile (inner chunk); a shard holds
    `tiles_per_shard` tiles per dimension. `codecs` is a shorthand
    (``"zstd:1"``, ``"blosc:lz4:5:shuffle"``, ``None``); `checksum`
    ``"crc32c"`` or ``"zstd"`` adds an end-to-end checksum to every tile
    (``"default"``: none for a stream, which keeps the GPU writer open to it;
    ``None`` or ``"none"``: none). `max_memory` (bytes)
    refuses a plan whose estimate exceeds it. `backend` is ``"cpu"`` or
    ``"auto"`` (the CPU here).

    `levels` > 0 writes an OME-Zarr image group instead, as the CLI's
    ``zarr stream --levels``: arrays "0" (the frames) to "<levels>", each
    reduced from the one above while the frames stream, by `downsample`
    (``"mean"``, ``"mode"``, ``"min"`` or ``"max"``) over a window of
    `downsample_factors` (default 2 along space axes, 1 along time and
    channel); `voxel_size` (level 0's, space axes, slowest first) and `unit`
    (an OME-NGFF unit name) go into its multiscales metadata. Closing on leaving a ``with`` block finishes the
    array and then writes its zarr.json; an exception inside it discards the
    shards still open and publishes nothing (no array appears at `url`).

    `progress` is told the bytes appended (of the total when shape[0] is
    set); `cancel` (a CancelToken) or Ctrl-C stops an append at its next
    frame: the shards finished stay, without a zarr.json, so no reader opens
    them; ``overwrite=True`` replaces them.
    """

    def __init__(
        self,
        url: str,
        *,
        shape: Sequence[int],
        dtype: Any,
        chunks: Sequence[int],
        tiles_per_shard: Sequence[int] | None = None,
        codecs: str | None = "zstd:1",
        checksum: str | None = "default",
        fill_value: Any = None,
        dimension_names: Sequence[str | None] | None = None,
        index_location: str = "end",
        backend: str = "cpu",
        threads: int = 0,
        max_memory: int = 0,
        levels: int = 0,
        downsample: str = "mean",
        downsample_factors: Sequence[int] | None = None,
        voxel_size: Sequence[float] | None = None,
        unit: str | None = None,
        overwrite: bool = False,
        progress: Progress = None,
        cancel: CancelToken | None = None,
    ) -> None:
        self.url = str(url)
        self.dtype = np.dtype(dtype)
        request = _request(shape, dtype, chunks, tiles_per_shard, codecs, fill_value,
                           dimension_names, index_location, backend, threads, max_memory,
                           levels, downsample, downsample_factors, voxel_size, unit, checksum)
        self._writer = _core.StreamWriter(
            self.url, request, overwrite,
            progress=_progress.callback(progress, "stream"), cancel=_progress.token(cancel),
        )

    @staticmethod
    def memory_estimate(
        *,
        shape: Sequence[int],
        dtype: Any,
        chunks: Sequence[int],
        tiles_per_shard: Sequence[int] | None = None,
        codecs: str | None = "zstd:1",
        threads: int = 0,
        backend: str = "cpu",
        levels: int = 0,
        downsample: str = "mean",
        downsample_factors: Sequence[int] | None = None,
    ) -> dict[str, int]:
        """The bytes a writer of this configuration will use at most, by buffer."""
        request = _request(shape, dtype, chunks, tiles_per_shard, codecs, None, None, "end",
                           backend, threads, 0, levels, downsample, downsample_factors)
        return _core.stream_memory_estimate(request)

    @property
    def memory(self) -> dict[str, int]:
        """This writer's memory estimate, by buffer, in bytes."""
        return self._writer.memory

    @property
    def closed(self) -> bool:
        return self._writer.closed

    def describe(self) -> str:
        """The plan: shapes, counts, batch and memory, as the CLI prints it."""
        return self._writer.describe()

    def append(self, data: Any) -> None:
        """Appends the next elements in C order: any C-contiguous buffer.

        A numpy array of another dtype is converted first; frames may be split
        anywhere across calls.
        """
        if isinstance(data, np.ndarray):
            if data.dtype != self.dtype:
                data = data.astype(self.dtype)
            data = np.ascontiguousarray(data)
        elif not isinstance(data, (bytes, bytearray, memoryview)):
            data = np.ascontiguousarray(data, dtype=self.dtype)
        if not isinstance(data, np.ndarray):
            data = np.frombuffer(data, dtype=np.uint8)
        self._writer.append(data.reshape(-1).view(np.uint8))

    def flush(self) -> None:
        """Waits until every whole batch appended so far is written; publishes nothing."""
        self._writer.flush()

    def close(self) -> dict[str, Any]:
        """Finishes the array and returns the run's figures (frames, bytes, shards)."""
        return self._writer.close()

    def abort(self) -> None:
        """Stops without finishing: the shards still open are discarded."""
        self._writer.abort()

    def stats(self) -> dict[str, Any]:
        return self._writer.stats()

    def __enter__(self) -> StreamWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._writer.closed:
            return
        if exc_type is None:
            self._writer.close()
        else:
            self._writer.abort()
