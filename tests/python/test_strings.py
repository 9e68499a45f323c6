"""Variable-length strings that zarr-python 3 writes (#43): v3 "string" arrays
with the vlen-utf8 codec and v2 "|O" arrays with a vlen-utf8 filter.

chunkwise.open gives them as a read-only StringArray whose reads are numpy
StringDType arrays equal to zarr-python's own (whole, boxes, steps, chunks
left to the fill value); writing is refused, naming the array.
"""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

import chunkwise

zarr = pytest.importorskip("zarr")

DATA = np.array([["a", "h\u00e9llo", ""], ["\U0001f600 wide", "x" * 1000, "f"], ["f", "f", "f"]],
                dtype=np.dtypes.StringDType())


@pytest.mark.parametrize("zarr_format", [3, 2])
@pytest.mark.parametrize("compressors", ["auto", None])
def test_zarr_python_strings_read_as_string_dtype(tmp_path: pathlib.Path, zarr_format: int,
                                                  compressors) -> None:
    path = tmp_path / "s.zarr"
    written = zarr.create_array(str(path), shape=DATA.shape, dtype=str, chunks=(2, 2),
                                fill_value="f", zarr_format=zarr_format, compressors=compressors)
    written[...] = DATA
    expected = zarr.open_array(str(path), mode="r")[...]
    array = chunkwise.open(str(path), mode="r")
    assert isinstance(array, chunkwise.StringArray)
    assert array.shape == (3, 3) and array.chunks == (2, 2) and array.fill_value == "f"
    whole = array[...]
    assert whole.dtype == expected.dtype == np.dtypes.StringDType()
    assert whole.tolist() == expected.tolist() == DATA.tolist()
    assert array[1:, 1:].tolist() == DATA[1:, 1:].tolist()
    assert array[::2, 2].tolist() == DATA[::2, 2].tolist()
    assert array[1, 0] == DATA[1, 0]
    with pytest.raises(chunkwise.UnsupportedError, match="s.zarr"):
        array[0, 0] = "no"


def test_a_string_array_that_is_not_vlen_utf8_stays_unsupported(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "b.zarr"
    from zarr.core.dtype import VariableLengthBytes
    zarr.create_array(str(path), shape=(2,), dtype=VariableLengthBytes(), chunks=(2,))
    with pytest.raises(chunkwise.UnsupportedError, match="variable_length_bytes"):
        chunkwise.open(str(path), mode="r")
