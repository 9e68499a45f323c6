"""chunkwise.dvid: DVID labelmaps, export-shards, and reading exports back.

    lm = chunkwise.dvid.Labelmap("seg.db", create=True)
    lm.ingest(volume, offset=(0, 0, 0))          # uint64 (z, y, x)
    lm.merge(100, [1, 2]); lm.commit(note="proofread")
    chunkwise.dvid.export_shards(lm, spec, "export/")
    shard = chunkwise.dvid.ArrowShardReader("export/s0/0_0_0.arrow")
    block = shard.get_block(0, 0, 0)             # (64, 64, 64) uint64, z, y, x

Every voxel array is numpy uint64 in C order with axes (z, y, x), the
library's order; chunk coordinates (the export's chunk_x/y/z and the CSV
index) are given as x, y, z, as DVID and the seed's reader give them.
Decoding runs in C++ with the GIL released. See docs/python.md.
"""

from __future__ import annotations

import json
import operator
import os
from collections.abc import Iterable, Mapping, Sequence
from types import TracebackType
from typing import Any, NamedTuple

import numpy as np

from . import _core, _progress
from ._cancel import CancelToken
from ._progress import Progress
from ._errors import ChunkwiseError, InvalidArgumentError, NotFoundError

Box = Sequence[slice] | None


def _error(cls: type[ChunkwiseError], message: str) -> ChunkwiseError:
    """A library-style error raised by the Python side, with its status code."""
    error = cls(message)
    error.code = {InvalidArgumentError: "InvalidArgument", NotFoundError: "NotFound"}[cls]
    return error


def _labels(values: Any, name: str) -> np.ndarray:
    """`values` as C-contiguous uint64, refusing negative or non-integer labels."""
    array = np.asarray(values)
    if array.size == 0:
        return np.zeros(array.shape, np.uint64)
    if array.dtype.kind not in "ui":
        raise _error(InvalidArgumentError, f"{name}: labels must be integers, not {array.dtype}")
    if array.dtype.kind == "i" and array.min() < 0:
        raise _error(InvalidArgumentError, f"{name}: labels must not be negative")
    return np.ascontiguousarray(array, dtype=np.uint64)


def _resolve_box(
    box: Box, default: tuple[Sequence[int], Sequence[int]] | None, what: str
) -> tuple[list[int], list[int]]:
    """(offset, shape) of a (z, y, x) tuple of slices; open ends from `default`."""
    if box is None:
        box = (slice(None),) * 3
    if not isinstance(box, tuple):
        box = tuple(box)
    if len(box) != 3 or not all(isinstance(s, slice) for s in box):
        raise _error(InvalidArgumentError,
                     f"{what}: a box is three slices (z, y, x), e.g. np.s_[0:64, 0:64, 0:64]")
    offset, shape = [], []
    for d, part in enumerate(box):
        if part.step not in (None, 1):
            raise _error(InvalidArgumentError, f"{what}: a box takes no steps")
        if (part.start is None or part.stop is None) and default is None:
            raise _error(InvalidArgumentError,
                         f"{what}: nothing is stored, so the box needs explicit bounds")
        start = operator.index(part.start) if part.start is not None else default[0][d]
        stop = (operator.index(part.stop) if part.stop is not None
                else default[0][d] + default[1][d])
        if stop < start:
            raise _error(InvalidArgumentError,
                         f"{what}: dimension {d} stops ({stop}) before it starts ({start})")
        offset.append(start)
        shape.append(stop - start)
    return offset, shape


class Labelmap:
    """A DVID-style versioned labelmap in an embedded RocksDB database at `path`.

    `create=True` makes a new one (one open root version) when none exists;
    `read_only=True` opens without the write lock, beside a writer. Versions
    are numbered from 1; `version=None` means the newest open version for
    writes and the newest version for reads. Closing (or leaving a ``with``
    block) releases the database.
    """

    def __init__(self, path: str | os.PathLike[str], create: bool = False,
                 read_only: bool = False) -> None:
        self._core = _core.Labelmap(os.fspath(path), create, read_only)

    @property
    def path(self) -> str:
        return self._core.path

    @property
    def num_scales(self) -> int:
        """Scales 0 .. num_scales - 1 are built (scale s is 2^s coarser)."""
        return self._core.num_scales

    def versions(self) -> list[dict[str, Any]]:
        """Every version: id, parent (None for the root), committed, note."""
        return self._core.versions()

    @property
    def newest(self) -> int:
        return self._core.newest

    @property
    def newest_open(self) -> int:
        """The newest version that is still open (0 if every one is committed)."""
        return self._core.newest_open

    def ingest(self, volume: Any, offset: Sequence[int] = (0, 0, 0), *, version: int | None = None,
               scales: int = 0, progress: Progress = None,
               cancel: CancelToken | None = None) -> dict[str, Any]:
        """Stores a 3-d (z, y, x) integer volume whose first voxel is at `offset`.

        Blocks it covers in part keep their other voxels; all-zero blocks are
        not stored. `scales` builds scales 1..N by 2x downsampling. Returns
        the blocks written, deleted and skipped, per scale. `progress` counts
        blocks (of every scale); `cancel` (or Ctrl-C) stops it between
        blocks: every block stored is whole, scales not reached are not built.
        """
        volume = _labels(volume, self.path)
        return self._core.ingest(volume, [operator.index(o) for o in offset], version or 0, scales,
                                 progress=_progress.callback(progress, "dvid ingest"),
                                 cancel=_progress.token(cancel))

    def map(self, pairs: Mapping[int, int] | Iterable[Sequence[int]] | np.ndarray, *,
            version: int | None = None) -> None:
        """Sets supervoxel → label entries: a dict or (n, 2) pairs. Label 0 splits."""
        if isinstance(pairs, Mapping):
            pairs = list(pairs.items())
        array = _labels(pairs, self.path)
        if array.size == 0:
            array = array.reshape(0, 2)
        self._core.set_mappings(array, version or 0)

    def merge(self, label: int, supervoxels: Iterable[int], *, version: int | None = None) -> None:
        """Maps every supervoxel in `supervoxels` to `label`."""
        self._core.merge(operator.index(label), _labels(list(supervoxels), self.path).reshape(-1),
                         version or 0)

    def split(self, supervoxels: Iterable[int], *, version: int | None = None) -> None:
        """Maps every supervoxel in `supervoxels` to 0 (split off its body)."""
        self._core.split(_labels(list(supervoxels), self.path).reshape(-1), version or 0)

    def mapping(self, *, version: int | None = None) -> dict[int, int]:
        """Every supervoxel → label entry visible at the version."""
        supervoxels, labels = self._core.mapping(version or 0)
        return dict(zip(supervoxels.tolist(), labels.tolist(), strict=True))

    def commit(self, version: int | None = None, *, note: str = "") -> int:
        """Makes the version (default: newest open) read-only; returns its id."""
        return self._core.commit(version or 0, note)

    def branch(self, parent: int, *, note: str = "") -> int:
        """A new open version, child of committed `parent`; returns its id."""
        return self._core.branch(operator.index(parent), note)

    def stored_extent(self, *, version: int | None = None,
                      scale: int = 0) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
        """(offset, shape), z, y, x, of the whole blocks stored; None if none."""
        extent = self._core.stored_extent(version or 0, scale)
        if extent is None:
            return None
        return tuple(extent[0]), tuple(extent[1])

    def read(self, box: Box = None, *, version: int | None = None, scale: int = 0,
             mapped: bool = False, progress: Progress = None,
             cancel: CancelToken | None = None) -> np.ndarray:
        """The labels of `box` (three slices, z, y, x, at `scale`) as uint64.

        Open ends default to the stored extent (whole blocks); blocks not
        stored read as 0. `mapped=True` applies the version's mapping.
        `progress` counts the result's bytes; `cancel` (or Ctrl-C) stops the
        read between rows of blocks.
        """
        default = None
        if box is None or any(not isinstance(s, slice) or s.start is None or s.stop is None
                              for s in box):
            if not 0 <= scale < self.num_scales:
                raise _error(InvalidArgumentError, f"{self.path}: scale {scale} is not built "
                             f"(scales 0..{self.num_scales - 1})")
            default = self.stored_extent(version=version, scale=scale)
            if default is None:
                raise _error(NotFoundError, f"{self.path}: no blocks stored at scale {scale} "
                             "(give explicit bounds to read zeros)")
        offset, shape = _resolve_box(box, default, self.path)
        return self._core.read(offset, shape, version or 0, scale, mapped,
                               progress=_progress.callback(progress, "dvid read"),
                               cancel=_progress.token(cancel))

    def stats(self) -> dict[str, Any]:
        """Per scale: block entries, tombstones, stored bytes, and visible
        blocks per version; and the mapping entries (the CLI's ``dvid info``)."""
        return self._core.stats()

    def get_block_bytes(self, block: Sequence[int], *, scale: int = 0, version: int | None = None,
                        stored: bool = False) -> bytes | None:
        """Block `block` (block coordinates z, y, x) as DVID's compressed label
        block, or with `stored=True` as the database holds it (0x40 + gzip);
        None if no block is visible there."""
        return self._core.get_block_bytes([operator.index(c) for c in block], scale,
                                          version or 0, stored)

    def put_block_bytes(self, block: Sequence[int], data: bytes, *, scale: int = 0,
                        version: int | None = None) -> None:
        """Stores a DVID compressed label block (raw or gzip) as block `block`
        (z, y, x); refused unless it decodes as a 64³ block."""
        self._core.put_block_bytes([operator.index(c) for c in block], bytes(data), scale,
                                   version or 0)

    def close(self) -> None:
        self._core.close()

    @property
    def closed(self) -> bool:
        return self._core.closed

    def __enter__(self) -> Labelmap:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"chunkwise.dvid.Labelmap({self.path!r})"


def _spec(spec: Any) -> _core.ExportSpec:
    if isinstance(spec, _core.ExportSpec):
        return spec
    if isinstance(spec, Mapping):
        return _core.ExportSpec.parse(json.dumps(spec), "spec")
    text = os.fspath(spec)
    if text.lstrip().startswith("{"):
        return _core.ExportSpec.parse(text, "spec")
    return _core.ExportSpec.read(text)


def _labelmap_core(labelmap: Labelmap | str | os.PathLike[str]) -> _core.Labelmap:
    if isinstance(labelmap, Labelmap):
        return labelmap._core
    return _core.Labelmap(os.fspath(labelmap), False, True)


def default_spec(
    labelmap: Labelmap | str | os.PathLike[str],
    *,
    version: int | None = None,
    resolution: tuple[float, float, float] = (8.0, 8.0, 8.0),
) -> dict[str, Any]:
    """The export spec `export_shards` uses when given none, as a dict to edit.

    It covers voxel 0 to the far corner of the blocks stored at scale 0 of
    `version` (default: the newest), with as many scales as the labelmap has
    built, 64³ chunks and `resolution` nm per voxel (x, y, z) at scale 0.
    Every scale is sharded with the identity hash, 9 preshift and 6
    minishard bits, and the rest of its Morton bits as shard bits: shards of
    at most 32³ chunks (2048³ voxels), as FlyEM's exports are sized. Raises
    chunkwise.NotFoundError naming the database when the version stores no block.
    Same as `chunkwise dvid spec DB`.
    """
    spec = _core.default_export_spec(_labelmap_core(labelmap), version or 0,
                                     tuple(float(v) for v in resolution))
    return json.loads(spec.info_json)


def export_shards(
    labelmap: Labelmap | str | os.PathLike[str],
    spec: Mapping[str, Any] | str | os.PathLike[str] | None,
    dest_url: str | os.PathLike[str],
    *,
    scales: int = 0,
    version: int | None = None,
    threads: int = 0,
    format: str = "file",
    index: str = "rec",
    overwrite: bool = False,
    progress: Progress = None,
    cancel: CancelToken | None = None,
) -> dict[str, Any]:
    """Exports a labelmap as neuroglancer-sharded Arrow IPC files with CSV indexes.

    `labelmap` is a Labelmap or the path of one (opened read-only). `spec` is
    the neuroglancer info with sharded scales: a dict, JSON text, or a path
    or URL; None takes `default_spec(labelmap, version=version)`. `dest_url` is a directory or any store URL; it appears whole or
    not at all, and an existing export is refused unless `overwrite`.
    `scales` exports at most that many (0: all), `format` is the Arrow IPC
    "file" or "stream" format, `index` the CSV form "rec" (x,y,z,rec) or
    "offsets" (DVID's x,y,z,offset,size,batch_idx). Returns the summary:
    per scale blocks read, written and skipped, shards and bytes. `progress`
    counts the blocks each scale has scanned (total None); `cancel` (or
    Ctrl-C) stops the export, which then publishes nothing.
    """
    source = _labelmap_core(labelmap)
    parsed = (_core.default_export_spec(source, version or 0, (8.0, 8.0, 8.0)) if spec is None
              else _spec(spec))
    return _core.export_shards(source, parsed, os.fspath(dest_url), scales, version or 0,
                               threads, format, index, overwrite,
                               progress=_progress.callback(progress, "dvid export"),
                               cancel=_progress.token(cancel))


class ChunkLabels(NamedTuple):
    """A chunk's mapped labels and, parallel to them, its supervoxels (the block's palette)."""

    labels: np.ndarray
    supervoxels: np.ndarray


def _export_schema() -> Any:
    import pyarrow as pa

    return pa.schema([
        pa.field("chunk_x", pa.int32(), nullable=False),
        pa.field("chunk_y", pa.int32(), nullable=False),
        pa.field("chunk_z", pa.int32(), nullable=False),
        pa.field("labels", pa.list_(pa.uint64()), nullable=False),
        pa.field("supervoxels", pa.list_(pa.uint64()), nullable=False),
        pa.field("dvid_compressed_block", pa.binary(), nullable=False),
        pa.field("uncompressed_size", pa.uint32(), nullable=False),
    ])


class ArrowShardReader:
    """One export shard (`<stem>.arrow` with its `<stem>.csv` index), read by chunk.

    `path_or_url` names the .arrow (a path, or any store URL; the .csv lies
    beside it). Only the record batch holding a chunk is read. Chunk
    coordinates are x, y, z (the CSV's order); decoded blocks are (z, y, x).
    `read_whole=True` reads the whole file once (for object stores).
    """

    def __init__(self, path_or_url: str | os.PathLike[str], *, read_whole: bool = False) -> None:
        self._core = _core.ArrowShardReader(os.fspath(path_or_url), read_whole)

    @property
    def url(self) -> str:
        return self._core.url

    @property
    def is_file_format(self) -> bool:
        """True for the Arrow IPC file format, False for the stream format."""
        return self._core.is_file_format

    @property
    def index_form(self) -> str:
        """"rec" (x,y,z,rec) or "offsets" (x,y,z,offset,size,batch_idx)."""
        return self._core.index_form

    @property
    def num_record_batches(self) -> int:
        return self._core.num_record_batches

    def list_chunks(self) -> list[tuple[int, int, int]]:
        """The chunk coordinates (x, y, z) the index lists, in index order."""
        return [tuple(xyz) for xyz in self._core.list_chunks()]

    def get_record(self, x: int, y: int, z: int) -> dict[str, Any] | None:
        """The chunk's row as a dict (labels and supervoxels as uint64 arrays), or None."""
        return self._core.get_chunk(x, y, z)

    def get_chunk(self, x: int, y: int, z: int) -> Any:
        """The chunk's row: a one-row pyarrow.Table of the export schema when
        pyarrow is installed, else a dict; None if the index does not list it."""
        record = self._core.get_chunk(x, y, z)
        if record is None:
            return None
        try:
            import pyarrow as pa
        except ImportError:
            return record
        columns = {name: [value] for name, value in record.items()}
        columns["labels"] = [record["labels"].tolist()]
        columns["supervoxels"] = [record["supervoxels"].tolist()]
        return pa.Table.from_pydict(columns, schema=_export_schema())

    def get_labels_for_chunk(self, x: int, y: int, z: int) -> ChunkLabels | None:
        """(labels, supervoxels) of the chunk as uint64 arrays, or None if not listed."""
        record = self._core.get_chunk(x, y, z)
        if record is None:
            return None
        return ChunkLabels(record["labels"], record["supervoxels"])

    def get_block(self, x: int, y: int, z: int, *, supervoxels: bool = False) -> np.ndarray:
        """The decoded 64³ block of chunk (x, y, z) as uint64 with axes (z, y, x).

        Mapped labels, or the stored supervoxels with `supervoxels=True`.
        NotFoundError (a KeyError) naming the shard and chunk if not listed.
        """
        return self._core.get_block(x, y, z, supervoxels)

    def __iter__(self) -> Any:
        return iter(self.list_chunks())

    def __len__(self) -> int:
        return len(self._core.list_chunks())

    def __repr__(self) -> str:
        return f"chunkwise.dvid.ArrowShardReader({self.url!r})"


class ExportedVolume:
    """An export-shards output read by box: `url` is the export's directory or store URL.

    `read(box, scale=, supervoxels=)` and `volume[z0:z1, y0:y1, x0:x1]`
    decode the blocks a box touches; chunks the export skipped read as 0.
    """

    def __init__(self, url: str | os.PathLike[str]) -> None:
        self._core = _core.ExportedVolume(os.fspath(url))

    @property
    def url(self) -> str:
        return self._core.url

    @property
    def num_scales(self) -> int:
        return self._core.num_scales

    @property
    def shape(self) -> tuple[int, int, int]:
        """Scale 0's voxels (z, y, x)."""
        return self.shape_at(0)

    def shape_at(self, scale: int) -> tuple[int, int, int]:
        return tuple(self._core.shape(scale))

    def read(self, box: Box = None, *, scale: int = 0, supervoxels: bool = False,
             progress: Progress = None, cancel: CancelToken | None = None) -> np.ndarray:
        """The labels of `box` (three slices, z, y, x; open ends: the whole scale).
        `progress` counts 64³ blocks read (total None); `cancel` stops the read
        between blocks (CancelledError)."""
        shape = self.shape_at(scale)
        offset, size = _resolve_box(box, ((0, 0, 0), shape), self.url)
        return self._core.read(scale, offset, size, supervoxels,
                               progress=_progress.callback(progress, "export read"),
                               cancel=_progress.token(cancel))

    def __getitem__(self, box: Any) -> np.ndarray:
        """Scale 0's mapped labels of slices z, y, x (missing ones: all, no steps)."""
        box = box if isinstance(box, tuple) else (box,)
        return self.read(box + (slice(None),) * (3 - len(box)))

    def __repr__(self) -> str:
        return f"chunkwise.dvid.ExportedVolume({self.url!r})"


def open_export(url: str | os.PathLike[str]) -> ExportedVolume:
    """The export at `url` (a directory or store URL holding its `info`)."""
    return ExportedVolume(url)


def tensorstore_view(export_dir: str | os.PathLike[str], *, scale: int = 0,
                     supervoxels: bool = False, context: Any = None) -> Any:
    """A read-only TensorStore over an export: `ts.virtual_chunked` with 64³ chunks.

    Each chunk TensorStore asks for is looked up through the shards' CSV
    indexes and decoded in C++ (GIL released). Axes are z, y, x. Needs the
    tensorstore package.
    """
    import tensorstore as ts

    volume = _core.ExportedVolume(os.fspath(export_dir))
    shape = list(volume.shape(scale))

    def read_chunk(domain: Any, array: np.ndarray, _params: Any) -> None:
        offset = [d.inclusive_min for d in domain]
        size = [d.exclusive_max - d.inclusive_min for d in domain]
        if array.flags.c_contiguous and array.dtype == np.uint64:
            volume.read_into(scale, offset, size, supervoxels, array)
        else:
            array[...] = volume.read(scale, offset, size, supervoxels)

    return ts.virtual_chunked(
        read_function=read_chunk,
        dtype=ts.uint64,
        domain=ts.IndexDomain(shape=shape, labels=["z", "y", "x"]),
        chunk_layout=ts.ChunkLayout(read_chunk_shape=[64, 64, 64]),
        context=context if context is not None else ts.Context(),
    )


__all__ = [
    "ArrowShardReader",
    "ChunkLabels",
    "ExportedVolume",
    "Labelmap",
    "default_spec",
    "export_shards",
    "open_export",
    "tensorstore_view",
]
