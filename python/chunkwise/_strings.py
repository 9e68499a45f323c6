"""chunkwise.StringArray: a zarr array of variable-length strings, read as numpy.

zarr-python 3 writes str and numpy StringDType data as a v3 "string" array
with the vlen-utf8 codec, or a v2 "|O" array with a vlen-utf8 filter. Their
elements have no fixed size, so chunkwise.open gives such an array as this
class, and chunkwise.create makes one for dtype=str, StringDType or object;
reads return numpy StringDType arrays, as zarr-python 3's do, and writes take
anything numpy turns into strings.

Variable-length bytes (zarr-python 3's VariableLengthBytes: v3
"variable_length_bytes" with the vlen-bytes codec, v2 "|O" with a vlen-bytes
filter) lay out their chunks the same way; they open as a BytesArray, whose
reads are numpy object arrays of bytes, as zarr-python 3's are.
"""

from __future__ import annotations

import json
import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import _core
from ._array import Selection, _Box
from ._errors import UnsupportedError


class StringArray:
    """A zarr v3 "string" or v2 vlen-utf8 array, read and written whole or by box."""

    def __init__(self, url: str, *, read_only: bool = False,
                 described: dict[str, Any] | None = None) -> None:
        if described is None:
            described = _core.describe_string_array(url)
        self._url = url
        self._read_only = read_only
        self._shape = tuple(described["shape"])
        self._chunks = tuple(described["chunks"])
        self._zarr_format = described["zarr_format"]
        self._fill_value = described["fill_value"]

    @property
    def url(self) -> str:
        return self._url

    @property
    def shape(self) -> tuple[int, ...]:
        return self._shape

    @property
    def dtype(self) -> np.dtype[Any]:
        return np.dtypes.StringDType()

    @property
    def ndim(self) -> int:
        return len(self._shape)

    @property
    def size(self) -> int:
        return math.prod(self._shape)

    @property
    def chunks(self) -> tuple[int, ...]:
        return self._chunks

    @property
    def zarr_format(self) -> int:
        return self._zarr_format

    @property
    def fill_value(self) -> str:
        return self._fill_value

    def read(self, selection: Selection = Ellipsis) -> np.ndarray:
        """The elements `selection` picks (ints, slices with steps, '...'): StringDType text,
        or in a BytesArray an object array of bytes."""
        box = _Box(selection, self._shape)
        if box.empty:
            return np.empty(box.shape, self.dtype)
        covering = self._read_box(box).reshape(box.box_shape)
        return covering[box.view] if box.strided else covering.reshape(box.shape)

    def _read_box(self, box: _Box) -> np.ndarray:
        """The elements of the box that covers the selection, flat in C order."""
        return np.array(_core.read_strings(self._url, box.start, box.stop), dtype=self.dtype)

    def __getitem__(self, selection: Selection) -> np.ndarray:
        return self.read(selection)

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        data = self.read()
        return data if dtype is None else data.astype(dtype, copy=False)

    @property
    def read_only(self) -> bool:
        return self._read_only

    def write(self, selection: Selection, value: Any) -> None:
        """Writes `value` (broadcast) over `selection`: strings, or what numpy makes strings
        of; in a BytesArray, bytes or bytes-likes."""
        if self._read_only:
            raise ValueError(f"{self._url}: the array was opened read-only (mode 'r')")
        box = _Box(selection, self._shape)
        if box.empty:
            return
        data = self._elements(value)
        if box.strided:  # Only the picked elements change: read the box, set them, write it.
            covering = self.read(tuple(slice(a, b) for a, b in zip(box.start, box.stop)))
            covering[box.view] = data
            data = covering
        else:
            data = np.broadcast_to(data, box.shape).reshape(box.box_shape)
        self._write_box(box, data.reshape(-1))

    def _elements(self, value: Any) -> np.ndarray:
        """`value` as this array's elements."""
        data = np.asarray(value)
        if data.dtype.kind in "SV":
            raise TypeError(f"{self._url}: a string array takes text, not {data.dtype} values")
        return data.astype(self.dtype)

    def _write_box(self, box: _Box, flat: np.ndarray) -> None:
        _core.write_strings(self._url, box.start, box.stop, [str(s) for s in flat])

    def __setitem__(self, selection: Selection, value: Any) -> None:
        self.write(selection, value)

    def __len__(self) -> int:
        if not self._shape:
            raise TypeError("len() of a 0-d array")
        return self._shape[0]

    def __repr__(self) -> str:
        return (f"<chunkwise.{type(self).__name__} {self._url!r} shape={self._shape} "
                f"dtype={self.dtype!r} chunks={self._chunks}>")


class BytesArray(StringArray):
    """A zarr v3 "variable_length_bytes" or v2 vlen-bytes array: elements are bytes."""

    @property
    def dtype(self) -> np.dtype[Any]:
        return np.dtype(object)

    @property
    def fill_value(self) -> bytes:
        return self._fill_value

    def _read_box(self, box: _Box) -> np.ndarray:
        values = _core.read_bytes(self._url, box.start, box.stop)
        flat = np.empty(len(values), object)
        flat[:] = values
        return flat

    def _elements(self, value: Any) -> np.ndarray:
        # dtype=object keeps each bytes whole (an "S" array would drop trailing NULs).
        return np.asarray(value, dtype=object)

    def _write_box(self, box: _Box, flat: np.ndarray) -> None:
        _core.write_bytes(self._url, box.start, box.stop,
                          [_as_bytes(self._url, x) for x in flat])


def _as_bytes(url: str, value: Any) -> bytes:
    """`value` as bytes; TypeError for what is not bytes-like (a str, an int)."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    raise TypeError(f"{url}: a bytes array takes bytes, not {type(value).__name__} values")


def open_variable_length(url: str, *, read_only: bool) -> StringArray:
    """The StringArray, or BytesArray, at `url`."""
    described = _core.describe_string_array(url)
    kind = BytesArray if described["bytes"] else StringArray
    return kind(url, read_only=read_only, described=described)


def create_strings(
    url: str,
    *,
    shape: Sequence[int],
    chunks: Sequence[int],
    shards: Sequence[int] | None,
    codecs: Any,
    checksum: str | None,
    fill_value: Any,
    dimension_names: Sequence[str | None] | None,
    attributes: dict[str, Any] | None,
    zarr_format: int,
    overwrite: bool,
    bytes_elements: bool = False,
) -> StringArray:
    """What chunkwise.create does for a string dtype (its keywords, codecs a shorthand);
    with `bytes_elements` a BytesArray of variable-length bytes (fill_value bytes)."""
    if codecs is not None and not isinstance(codecs, str):
        raise UnsupportedError(f"{url}: a string array takes its codecs as a shorthand "
                               "such as 'zstd:3', not codec documents")
    described = _core.create_string_array(
        str(url),
        [operator.index(n) for n in shape],
        [operator.index(n) for n in chunks],
        None if shards is None else [operator.index(n) for n in shards],
        "none" if codecs is None else codecs,
        _fill_bytes(fill_value, bytes_elements),
        list(dimension_names or []),
        json.dumps({} if attributes is None else attributes),
        zarr_format,
        "none" if checksum is None else checksum,
        overwrite,
        bytes_elements,
    )
    return (BytesArray if bytes_elements else StringArray)(str(url), described=described)


def _fill_bytes(fill_value: Any, bytes_elements: bool) -> bytes:
    """The fill value as the library takes it: text's UTF-8, or the bytes."""
    if fill_value is None:
        return b""
    if bytes_elements:
        return _as_bytes("fill_value", fill_value)
    return str(fill_value).encode("utf-8")
