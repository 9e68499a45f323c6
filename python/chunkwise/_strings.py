"""chunkwise.StringArray: a zarr array of variable-length strings, read as numpy.

zarr-python 3 writes str and numpy StringDType data as a v3 "string" array
with the vlen-utf8 codec, or a v2 "|O" array with a vlen-utf8 filter. Their
elements have no fixed size, so chunkwise.open gives such an array as this
read-only class; reads return numpy StringDType arrays, as zarr-python 3's do.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import _core
from ._array import Selection, _Box
from ._errors import UnsupportedError


class StringArray:
    """A zarr v3 "string" or v2 vlen-utf8 array, read whole or by box (read only)."""

    def __init__(self, url: str) -> None:
        described = _core.describe_string_array(url)
        self._url = url
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
        """The strings `selection` picks (ints, slices with steps, '...'), as StringDType."""
        box = _Box(selection, self._shape)
        if box.empty:
            return np.empty(box.shape, self.dtype)
        strings = _core.read_strings(self._url, box.start, box.stop)
        covering = np.array(strings, dtype=self.dtype).reshape(box.box_shape)
        return covering[box.view] if box.strided else covering.reshape(box.shape)

    def __getitem__(self, selection: Selection) -> np.ndarray:
        return self.read(selection)

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        data = self.read()
        return data if dtype is None else data.astype(dtype, copy=False)

    def __setitem__(self, selection: Selection, value: Any) -> None:
        raise UnsupportedError(f"{self._url}: writing variable-length strings is not supported "
                               "(chunkwise reads them only)")

    def __len__(self) -> int:
        if not self._shape:
            raise TypeError("len() of a 0-d array")
        return self._shape[0]

    def __repr__(self) -> str:
        return (f"<chunkwise.StringArray {self._url!r} shape={self._shape} dtype=StringDType() "
                f"chunks={self._chunks}>")
