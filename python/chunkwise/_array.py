"""chunkwise.Array: a zarr array read and written with numpy indexing.

Indexing is translated here into one box of the array (start, stop); the
library reads the box straight into a numpy array allocated here, or writes
it from the caller's buffer, with the GIL released.
"""

from __future__ import annotations

import json
import math
import operator
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from . import _core, _progress
from ._attributes import Node
from ._cancel import CancelToken
from ._errors import UnsupportedError
from ._progress import Progress

if TYPE_CHECKING:
    from ._strings import StringArray

Selection = Any  # An int, slice, Ellipsis, or a tuple of them.


class _Box:
    """A numpy selection as the box that covers it and a view into that box."""

    def __init__(self, key: Selection, shape: tuple[int, ...]) -> None:
        if not isinstance(key, tuple):
            key = (key,)
        key = _expand_ellipsis(key, len(shape))
        self.start: list[int] = []
        self.stop: list[int] = []
        view: list[int | slice] = []
        result_shape: list[int] = []
        self.strided = False
        for axis, (item, extent) in enumerate(zip(key, shape)):
            if isinstance(item, slice):
                steps = range(*item.indices(extent))
                if len(steps) == 0:
                    self.start.append(0)
                    self.stop.append(0)
                    view.append(slice(0, 0))
                else:
                    low, high = min(steps[0], steps[-1]), max(steps[0], steps[-1]) + 1
                    self.start.append(low)
                    self.stop.append(high)
                    view.append(slice(steps[0] - low, None, steps.step))
                    self.strided |= steps.step != 1
                result_shape.append(len(steps))
                continue
            index = _as_index(item, axis)
            if not -extent <= index < extent:
                raise IndexError(
                    f"index {index} is out of bounds for axis {axis} with size {extent}"
                )
            index %= extent
            self.start.append(index)
            self.stop.append(index + 1)
            view.append(0)
        self.view = tuple(view)
        self.shape = tuple(result_shape)  # The selection's shape, as numpy gives it.
        self.box_shape = tuple(b - a for a, b in zip(self.start, self.stop))
        self.empty = math.prod(self.box_shape) == 0


def _expand_ellipsis(key: tuple[Any, ...], rank: int) -> tuple[Any, ...]:
    ellipses = [i for i, item in enumerate(key) if item is Ellipsis]
    if len(ellipses) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if ellipses:
        i = ellipses[0]
        key = key[:i] + (slice(None),) * (rank - len(key) + 1) + key[i + 1 :]
    if len(key) > rank:
        raise IndexError(
            f"too many indices for array: array is {rank}-dimensional, "
            f"but {len(key)} were indexed"
        )
    return key + (slice(None),) * (rank - len(key))


def _as_index(item: Any, axis: int) -> int:
    if isinstance(item, (bool, np.bool_)):
        raise IndexError(f"axis {axis}: boolean indices are not supported")
    try:
        return operator.index(item)
    except TypeError:
        raise IndexError(
            f"axis {axis}: chunkwise arrays take integers, slices and '...', "
            f"not {type(item).__name__}"
        ) from None


class Array(Node):
    """A zarr v3 or v2 array in a chunkwise store (a path or a URL)."""

    def __init__(self, core: _core.Array, *, read_only: bool = False) -> None:
        self._opened = core
        self._opened_in = os.getpid()
        self._read_only = read_only
        # In the chunks' byte order (">u2" for a big-endian array), as numpy
        # keeps it; the library reads and writes elements in host order.
        self._dtype = np.dtype(core.dtype)
        self._native = self._dtype.newbyteorder("=")
        self._shape = tuple(core.shape)

    @property
    def _core(self) -> _core.Array:
        # An array opened before os.fork() holds the parent's thread pool, whose
        # threads stayed in the parent; in the child that pool runs everything
        # on the calling thread. The child opens the array again, on pools of
        # its own with workers.
        if self._opened_in != os.getpid():
            self._opened = _core.Array.open(self._opened.url)
            self._opened_in = os.getpid()
        return self._opened

    # --- what the array is -------------------------------------------------
    @property
    def url(self) -> str:
        return self._core.url

    @property
    def shape(self) -> tuple[int, ...]:
        return self._shape

    @property
    def dtype(self) -> np.dtype[Any]:
        return self._dtype

    @property
    def ndim(self) -> int:
        return len(self._shape)

    @property
    def size(self) -> int:
        return math.prod(self._shape)

    @property
    def nbytes(self) -> int:
        return self.size * self._dtype.itemsize

    @property
    def chunks(self) -> tuple[int, ...]:
        """The chunk shape (the inner chunk when sharded)."""
        return tuple(self._core.chunks)

    @property
    def shards(self) -> tuple[int, ...] | None:
        """The shard shape, or None when the array is not sharded."""
        shards = self._core.shards
        return None if shards is None else tuple(shards)

    @property
    def metadata(self) -> dict[str, Any]:
        """The metadata as a zarr v3 zarr.json document (v2 arrays translated)."""
        return json.loads(self._core.metadata_json)

    @property
    def info(self) -> dict[str, Any]:
        """What the array is and stores, as `chunkwise zarr info --json` prints it.

        The same keys and values from both (docs/python.md): path (the URL),
        node_type, zarr_format, shape, dtype, chunks, shards, fill_value,
        codecs, dimension_names, attributes, nbytes, nbytes_stored, nchunks,
        nchunks_initialized, ninner_chunks, ninner_chunks_initialized. Counting
        what is stored lists the store (one request per shard when sharded).
        """
        return json.loads(self._core.info_json())

    def storage_info(self) -> dict[str, int]:
        """What is stored: keys and bytes present against the grid (lists the store)."""
        return self._core.stats()

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        # Pickled as its URL (dask sends arrays between processes); a memory://
        # URL names a store of the process that opens it.
        return (open, (self.url,))

    def __len__(self) -> int:
        if not self._shape:
            raise TypeError("len() of a 0-d array")
        return self._shape[0]

    def __repr__(self) -> str:
        shards = f", shards={self.shards}" if self.shards else ""
        return (
            f"<chunkwise.Array {self.url!r} shape={self.shape} dtype={self.dtype} "
            f"chunks={self.chunks}{shards}>"
        )

    # --- reading -----------------------------------------------------------
    def read(
        self,
        selection: Selection = Ellipsis,
        *,
        out: np.ndarray | None = None,
        progress: Progress = None,
        cancel: CancelToken | None = None,
    ) -> np.ndarray:
        """The elements `selection` picks, as numpy; into `out` when given.

        `out` must be C-contiguous, of the array's dtype and of the
        selection's shape. Without steps the library decodes straight into
        the result; a selection with steps reads the box that covers it.
        `progress` (a callable (done, total) in bytes, or True for a tqdm bar)
        and `cancel` (a CancelToken) are described in docs/python.md; Ctrl-C
        stops the read and raises KeyboardInterrupt.
        """
        hooks = {"progress": _progress.callback(progress, "read"),
                 "cancel": _progress.token(cancel)}
        box = _Box(selection, self._shape)
        if out is not None:
            self._check_out(out, box.shape)
        if box.empty:
            return np.empty(box.shape, self._dtype) if out is None else out
        if not box.strided and out is not None:
            self._core.read_into(box.start, box.stop, _raw(out.view(self._native)), **hooks)
            return self._in_byte_order(out)
        # Decoded straight into a buffer the module allocates (not numpy's:
        # see read_new), viewed here as the dtype and shape without a copy.
        fresh = self._in_byte_order(
            self._core.read_new(box.start, box.stop, **hooks).view(self._native))
        if not box.strided:
            return fresh.reshape(box.shape)
        covering = fresh.reshape(box.box_shape)
        if out is None:
            return covering[box.view]
        out[...] = covering[box.view]
        return out

    def read_chunk(self, coords: int | Sequence[int]) -> np.ndarray:
        """The decoded chunk at grid coordinates `coords`, as a read-only view without a copy.

        `coords` index the grid of chunks (of inner chunks when sharded:
        ``array.chunks``), so chunk (1, 0) holds the elements from
        ``(chunks[0], 0)``. With the chunk cache on (``set_cache_bytes``) the
        result views the cache's own decoded buffer: two reads of a chunk it
        holds share memory, and nothing is copied or decoded. Otherwise the
        chunk is decoded (into the cache when it is on). The result is
        read-only (``flags.writeable`` is False) and keeps its buffer alive
        after the cache drops it or the array is gone. At the array's edge it
        is the chunk's part inside the array (a view of the sub-box). Its
        elements are in host byte order: for a big-endian array (``>u2``)
        the dtype is the native one, the values ``array[box]``'s. Coordinates
        outside the grid raise InvalidArgumentError (a ValueError) naming
        them and the grid.
        """
        chunk = ([operator.index(coords)] if np.ndim(coords) == 0
                 else [operator.index(c) for c in coords])
        raw = self._core.read_chunk(chunk)  # Checks the coordinates against the grid.
        chunks = self.chunks
        whole = raw.view(self._native).reshape(chunks)
        inside = tuple(slice(0, min(n, extent - c * n))
                       for c, n, extent in zip(chunk, chunks, self._shape))
        return whole[inside]

    def __getitem__(self, selection: Selection) -> np.ndarray:
        return self.read(selection)

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        data = self.read()
        return data if dtype is None else data.astype(dtype, copy=False)

    def _in_byte_order(self, data: np.ndarray) -> np.ndarray:
        """`data`, whose memory holds host-order elements, as the array's dtype (in place)."""
        if self._dtype == self._native:
            return data
        return data.byteswap(inplace=True).view(self._dtype)

    def _check_out(self, out: Any, shape: tuple[int, ...]) -> None:
        if not isinstance(out, np.ndarray):
            raise TypeError(f"out must be a numpy array, not {type(out).__name__}")
        if out.dtype != self._dtype:
            raise ValueError(f"out has dtype {out.dtype}; the array's is {self._dtype}")
        if out.shape != shape:
            raise ValueError(f"out has shape {out.shape}; the selection's is {shape}")
        if not out.flags.c_contiguous or not out.flags.writeable:
            raise ValueError("out must be C-contiguous and writeable")

    # --- writing -----------------------------------------------------------
    def write(
        self,
        value: Any,
        selection: Selection = Ellipsis,
        *,
        progress: Progress = None,
        cancel: CancelToken | None = None,
    ) -> None:
        """Writes `value` over `selection` (as ``array[selection] = value``).

        A C-contiguous value of the array's dtype and the selection's shape
        (a numpy array, or any buffer: bytes, memoryview, ...) is written as it
        is; anything else is converted and broadcast first. A selection with
        steps reads the box that covers it, changes it and writes it back.
        Cancelled (Ctrl-C, `cancel`), the chunks written are whole and the
        others untouched.
        """
        self._check_writable()
        hooks = {"progress": _progress.callback(progress, "write"),
                 "cancel": _progress.token(cancel)}
        box = _Box(selection, self._shape)
        if box.empty:
            return
        if box.strided:
            covering = np.empty(box.box_shape, self._native)
            self._core.read_into(box.start, box.stop, _raw(covering), cancel=hooks["cancel"])
            covering[box.view] = self._converted(value)
            self._core.write(box.start, box.stop, _raw(covering), **hooks)
            return
        self._core.write(box.start, box.stop, _raw(self._as_elements(value, box.shape)), **hooks)

    def __setitem__(self, selection: Selection, value: Any) -> None:
        self.write(value, selection)

    # --- changing the shape ------------------------------------------------
    def resize(self, new_shape: int | Sequence[int]) -> None:
        """Gives the array `new_shape` (as zarr-python's resize).

        Chunks wholly outside it are erased; chunks the new edge cuts keep
        their elements, so that growing again shows them, as in zarr-python.
        """
        self._check_writable()
        shape = (new_shape,) if isinstance(new_shape, int) else tuple(new_shape)
        self._core.resize([operator.index(n) for n in shape])
        self._shape = tuple(self._core.shape)

    def append(self, data: Any, axis: int = 0) -> tuple[int, ...]:
        """Grows the array along `axis` by `data` and writes it there; the new shape.

        Every other dimension of `data` must match the array's (ValueError), as
        in zarr-python.
        """
        self._check_writable()
        if not hasattr(data, "shape"):
            data = np.asanyarray(data)
        axis = operator.index(axis)
        if not -self.ndim <= axis < self.ndim:
            raise IndexError(f"axis {axis} is out of bounds for an array of rank {self.ndim}")
        axis %= self.ndim
        kept = tuple(n for i, n in enumerate(self._shape) if i != axis)
        given = tuple(n for i, n in enumerate(data.shape) if i != axis)
        if len(data.shape) != self.ndim or kept != given:
            raise ValueError(
                f"shape of data to append {tuple(data.shape)} is not compatible with the "
                f"array's {self._shape}: every dimension but {axis} must match"
            )
        old = self._shape
        self.resize([n + data.shape[i] if i == axis else n for i, n in enumerate(old)])
        where = tuple(slice(old[i], None) if i == axis else slice(None) for i in range(self.ndim))
        self[where] = data
        return self._shape

    def _as_elements(self, value: Any, shape: tuple[int, ...]) -> np.ndarray:
        """`value` as C-contiguous host-order elements of `shape`, for the library."""
        if isinstance(value, (bytes, bytearray, memoryview)):
            flat = np.frombuffer(value, dtype=self._dtype)  # Bytes in the array's dtype.
            if flat.size != math.prod(shape):
                raise ValueError(
                    f"a buffer of {flat.nbytes} bytes for a selection of shape {shape} "
                    f"({math.prod(shape) * self._dtype.itemsize} bytes)"
                )
            data = flat.reshape(shape)
        else:
            data = np.broadcast_to(self._converted(value), shape)
        return np.ascontiguousarray(data, dtype=self._native)

    def _converted(self, value: Any) -> np.ndarray:
        """`value` as the array's dtype, converted as zarr-python 3 converts an assignment.

        A scalar or a sequence goes through numpy with the dtype, so a Python
        int the dtype cannot hold raises OverflowError (-1 into uint16) and a
        float is truncated (7.9 into an integer array is 7); a numpy array is
        cast as ``astype`` casts it (an int64 -1 wraps). docs/python.md.
        """
        if np.isscalar(value) or not hasattr(value, "shape"):
            return np.asarray(value, dtype=self._dtype)
        data = np.asarray(value)
        return data if data.dtype == self._dtype else data.astype(self._dtype)


_MODES = ("r", "r+", "a", "w", "w-")


def open(url: str, mode: str = "a", **create_options: Any) -> Any:  # noqa: A001
    """Opens the zarr array at `url`: a path, file://, memory://, s3://, gs://, http(s)://.

    `mode` as zarr-python's: "r" read-only (writes raise ValueError), "r+"
    read and write, both of an existing array (FileNotFoundError otherwise);
    "a" (the default) the existing array, else one created from
    `create_options` (``create``'s keywords); "w" a new array, replacing what
    is there; "w-" a new array, FileExistsError when one is there.
    An array of variable-length strings (v3 "string", v2 "|O" with vlen-utf8)
    opens as a StringArray whose reads are numpy StringDType arrays; one of
    variable-length bytes (v3 "variable_length_bytes", v2 "|O" with
    vlen-bytes) as a BytesArray whose reads are object arrays of bytes.
    """
    if mode not in _MODES:
        raise ValueError(f"Invalid mode: {mode}, expected one of {_MODES}")
    url = str(url)
    if mode == "w-" and _exists_node(url):
        raise FileExistsError(f"{url}: an array or group is already there (mode 'w-'); "
                              "mode 'w' replaces it, 'a' opens it")
    if mode in ("w", "w-"):
        return create(url, overwrite=mode == "w", **create_options)
    try:
        return Array(_core.Array.open(url), read_only=mode == "r")
    except FileNotFoundError:
        if mode != "a" or not create_options:
            raise
    except UnsupportedError:
        # Variable-length strings have no fixed-size elements: read as text (bytes).
        from ._strings import open_variable_length
        try:
            return open_variable_length(url, read_only=mode == "r")
        except UnsupportedError:
            pass
        raise
    return create(url, **create_options)


def _exists_node(url: str) -> bool:
    """True when an array or a group is at `url` (what mode "w-" refuses to replace)."""
    for opener in (_core.Array.open, _core.Group.open):
        try:
            opener(url)
        except FileNotFoundError:
            continue
        except Exception:  # noqa: BLE001 - something is there, if not this kind
            return True
        return True
    return False


def create(
    url: str,
    *,
    shape: Sequence[int] | None = None,
    dtype: Any = None,
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
    data: Any = None,
    progress: Progress = None,
    cancel: CancelToken | None = None,
) -> Array | StringArray:
    """Creates an empty zarr array at `url` and returns it.

    `codecs` are the bytes-to-bytes codecs of each (inner) chunk: a shorthand
    such as ``"zstd:3"``, ``"blosc:lz4:5:shuffle"`` or ``"gzip:6+crc32c"``, a
    list of zarr v3 codec documents, or None for no compression. `checksum`
    adds an end-to-end checksum to a shorthand's chain: ``"default"`` is
    ``"crc32c"`` (a crc32c codec last) on zarr v3 and none on v2,
    ``"zstd"`` is zstd's frame checksum, ``None`` or ``"none"`` opts out;
    codec documents are taken as given. A flipped bit in a stored chunk is
    then refused with CorruptionError naming its key. `shards`,
    a multiple of `chunks`, stores the chunks in shards (zarr v3 sharding).
    `dimension_names` has one entry per dimension; None leaves a dimension
    unnamed (null in zarr.json). An existing array or group at `url` is
    refused unless `overwrite`.

    With `data` (array-like; `shape` and `dtype` default to its own) the
    array is written in one call and its metadata last: if the write fails
    or is cancelled (Ctrl-C, `cancel`), no array appears at `url`, and a later
    `create(..., overwrite=True)` replaces what was left. `progress` reports
    the write's bytes (docs/python.md).

    `dtype` str, numpy StringDType or object (or `data` of those) makes a
    StringArray of variable-length UTF-8 strings, as zarr-python 3 writes
    them (v3 "string" with vlen-utf8, v2 "|O" with a vlen-utf8 filter);
    `fill_value` is then text, "" by default, and `codecs` a shorthand.
    `dtype=bytes` (or object `data` all of bytes) makes a BytesArray of
    variable-length bytes as zarr-python 3's VariableLengthBytes (v3
    "variable_length_bytes" with vlen-bytes, v2 "|O" with a vlen-bytes
    filter); `fill_value` is then bytes, b"" by default.
    """
    bytes_elements = _is_bytes_dtype(dtype, data)  # Walks object data once.
    if bytes_elements or _is_string_dtype(
            dtype if dtype is not None or data is None else np.asarray(data).dtype):
        return _create_string_array(
            url, shape=shape, dtype=dtype, chunks=chunks, shards=shards, codecs=codecs,
            checksum=checksum, fill_value=fill_value, dimension_names=dimension_names,
            attributes=attributes, zarr_format=zarr_format, overwrite=overwrite, data=data,
            bytes_elements=bytes_elements,
        )
    if data is not None:
        data = np.asarray(data)
        shape = data.shape if shape is None else shape
        dtype = data.dtype if dtype is None else dtype
        # The library takes elements in host order, whatever the array's byte order.
        data = np.ascontiguousarray(data, dtype=np.dtype(dtype).newbyteorder("="))
        if tuple(data.shape) != tuple(shape):
            data = np.ascontiguousarray(np.broadcast_to(data, tuple(shape)))
    if shape is None or dtype is None:
        raise TypeError("create() needs shape and dtype, or data")
    request = _create_request(
        shape, dtype, chunks, shards, codecs, fill_value, dimension_names, attributes,
        zarr_format, index_location, checksum,
    )
    if data is None:
        return Array(_core.Array.create(str(url), request, overwrite))
    return Array(
        _core.Array.create(
            str(url), request, overwrite, data=_raw(data),
            progress=_progress.callback(progress, "write"), cancel=_progress.token(cancel),
        )
    )


def _is_bytes_dtype(dtype: Any, data: Any) -> bool:
    """True for what is stored as variable-length bytes: dtype=bytes, or object data of bytes."""
    if dtype is bytes:
        return True
    if dtype is not None or data is None:
        return False
    data = np.asarray(data)  # A list of bytes is an "S" array, as before.
    return (data.dtype.kind == "O" and data.size > 0
            and all(isinstance(x, bytes) for x in data.flat))


def _is_string_dtype(dtype: Any) -> bool:
    """True for what zarr-python 3 stores as variable-length strings: str, StringDType, object."""
    if dtype is str:
        return True
    try:
        kind = np.dtype(dtype).kind
    except TypeError:
        return False
    return kind in "TO" or np.dtype(dtype) == np.dtype(str)  # np.dtype(str) is "<U0".


def _create_string_array(url: str, *, data: Any, dtype: Any, shape: Any,
                         **options: Any) -> Any:
    """`create` for a string dtype: the array, then `data` written into it."""
    from ._strings import create_strings
    if data is not None:
        data = np.asarray(data)
        shape = data.shape if shape is None else shape
    if shape is None:
        raise TypeError("create() needs shape and dtype, or data")
    existed = _exists_node(str(url))
    array = create_strings(str(url), shape=shape, **options)
    if data is not None:
        try:
            array[...] = data
        except BaseException:
            # Its metadata went first: taken back (it first), so that a failed
            # create leaves no array, as a numeric one's does.
            if not existed:
                _erase_array(str(url))
            raise
    return array


def _erase_array(url: str) -> None:
    """Erases what a failed create wrote at `url`: the metadata, then every key."""
    store = _core.Store.open(url, False)
    for key in ["zarr.json", ".zarray", ".zattrs", *store.list("")]:
        if store.exists(key):
            store.erase(key)


def _create_request(
    shape: Sequence[int],
    dtype: Any,
    chunks: Sequence[int],
    shards: Sequence[int] | None,
    codecs: str | Sequence[dict[str, Any]] | None,
    fill_value: Any,
    dimension_names: Sequence[str | None] | None,
    attributes: dict[str, Any] | None,
    zarr_format: int,
    index_location: str,
    checksum: str | None = "default",
) -> _core.CreateRequest:
    """What `create` asks the library for (chunkwise.dask creates through it too)."""
    request = _core.CreateRequest()
    request.shape = [operator.index(n) for n in shape]
    dtype = np.dtype(dtype)
    # datetime64/timedelta64 and fixed-length strings by typestr ("<M8[ns]",
    # "|S5", "<U3"): numpy's names for them ("bytes40") are not the library's.
    request.dtype = dtype.newbyteorder("<").str if dtype.kind in _RAW_KINDS else dtype.name
    # Kept, as the bytes codec's endian (docs/python.md); str spells it even when native.
    request.byte_order = "big" if dtype.str[0] == ">" else "little"
    request.chunks = [operator.index(n) for n in chunks]
    request.shards = None if shards is None else [operator.index(n) for n in shards]
    if codecs is None:
        request.codec = "none"
    elif isinstance(codecs, str):
        request.codec = codecs
    else:
        request.codecs_json = json.dumps(list(codecs))
    request.fill_value = None if fill_value is None else _fill_text(fill_value, dtype)
    request.dimension_names = list(dimension_names or [])
    # Only None means none: an empty list is refused as any list is.
    request.attributes_json = json.dumps({} if attributes is None else attributes)
    request.zarr_format = zarr_format
    request.index_location = index_location
    request.checksum = "none" if checksum is None else checksum
    return request


_RAW_KINDS = "MmSU"


def _raw(data: np.ndarray) -> np.ndarray:
    """`data` (C-contiguous) as its bytes when numpy cannot hand its dtype over as a buffer.

    datetime64/timedelta64 and 'S'/'U' strings have no buffer-protocol or DLPack
    form; the library takes their elements as bytes (a view, so reads fill `data`).
    """
    if data.dtype.kind not in _RAW_KINDS:
        return data
    return data.reshape(-1).view(np.uint8)


def _fill_text(value: Any, dtype: Any = None) -> str:
    kind = "" if dtype is None else np.dtype(dtype).kind
    if kind in ("M", "m"):  # The count of units; NaT is the smallest int64.
        return str(int(np.asarray(value, dtype=dtype).view(np.int64)))
    if kind == "S":  # The bytes themselves, which the library takes as UTF-8 text.
        data = value if isinstance(value, bytes) else np.asarray(value, dtype=dtype).item()
        return data.decode("utf-8")
    if kind == "U":
        return str(value)
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (float, np.floating)):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(float(value))
    return str(value)
