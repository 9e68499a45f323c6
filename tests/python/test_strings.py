"""Variable-length strings that zarr-python 3 writes (#43): v3 "string" arrays
with the vlen-utf8 codec and v2 "|O" arrays with a vlen-utf8 filter.

chunkwise.open gives them as a StringArray whose reads are numpy StringDType
arrays equal to zarr-python's own (whole, boxes, steps, chunks left to the
fill value); chunkwise.create(dtype=str) makes one, and writes into it,
that zarr-python 3 reads value-exact. Variable-length bytes (v3
"variable_length_bytes" + vlen-bytes, v2 "|O" + vlen-bytes) likewise, as a
BytesArray of object arrays of bytes (dtype=bytes).
"""

from __future__ import annotations

import os
import pathlib
import subprocess

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
    with pytest.raises(ValueError, match="read-only"):
        array[0, 0] = "no"


@pytest.mark.parametrize("zarr_format", [3, 2])
@pytest.mark.parametrize("dtype", [str, np.dtypes.StringDType(), object])
def test_created_strings_read_value_exact_by_zarr_python(tmp_path: pathlib.Path, zarr_format: int,
                                                          dtype) -> None:
    path = tmp_path / "ours.zarr"
    array = chunkwise.create(str(path), shape=(3, 3), dtype=dtype, chunks=(2, 2), fill_value="f",
                             dimension_names=["y", "x"], zarr_format=zarr_format)
    assert isinstance(array, chunkwise.StringArray)
    array[...] = DATA.astype(object) if dtype is object else DATA
    theirs = zarr.open_array(str(path), mode="r")
    assert theirs.fill_value == "f"
    assert theirs[...].tolist() == DATA.tolist()
    # The chunk (1, 1) holds only the fill value: not stored, as zarr-python leaves it.
    key = ("c/1/1" if zarr_format == 3 else "1.1")
    assert not (path / key).exists()
    # In part, with steps: the other elements stay.
    array[::2, 0] = ["s", "été"]
    expected = DATA.copy()
    expected[::2, 0] = ["s", "été"]
    assert zarr.open_array(str(path), mode="r")[...].tolist() == expected.tolist()
    assert chunkwise.open(str(path))[...].tolist() == expected.tolist()
    # zarr-python writes into ours, and we read what it wrote.
    theirs = zarr.open_array(str(path), mode="r+")
    theirs[2, 2] = "theirs 😀"
    expected[2, 2] = "theirs 😀"
    assert chunkwise.open(str(path), mode="r")[...].tolist() == expected.tolist()


def test_create_with_string_data(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "data.zarr"
    array = chunkwise.create(str(path), data=np.array(["", "bé", "c"], dtype=object),
                             chunks=(2,), codecs="gzip:1", checksum=None)
    assert zarr.open_array(str(path), mode="r")[...].tolist() == ["", "bé", "c"]
    assert array.fill_value == ""
    with pytest.raises(ValueError, match="shard"):
        chunkwise.create(str(tmp_path / "sh.zarr"), shape=(4,), dtype=str, chunks=(2,),
                         shards=(4,), zarr_format=2)
    with pytest.raises(ValueError, match="data.zarr"):
        chunkwise.create(str(path), shape=(3,), dtype=str, chunks=(2,))


def test_a_failed_create_with_string_data_leaves_no_array(tmp_path: pathlib.Path) -> None:
    # A lone surrogate has no UTF-8: the write fails after the metadata went.
    path = tmp_path / "bad.zarr"
    with pytest.raises(UnicodeEncodeError):
        chunkwise.create(str(path), data=np.array(["a", "\ud800"], dtype=object), chunks=(1,))
    with pytest.raises(FileNotFoundError):
        chunkwise.open(str(path), mode="r")


BYTES = np.empty((3, 3), dtype=object)
BYTES[...] = [[b"a", b"\x00\xff", b""], [b"\x00", b"x" * 1000, b"f\x00"], [b"f\x00"] * 3]


def _variable_length_bytes():
    from zarr.core.dtype import VariableLengthBytes
    return VariableLengthBytes()


@pytest.mark.filterwarnings("ignore::UserWarning")  # The dtype is "unstable" in zarr-python.
@pytest.mark.parametrize("zarr_format", [3, 2])
@pytest.mark.parametrize("compressors", ["auto", None])
def test_zarr_python_variable_length_bytes_read_as_object_arrays(
        tmp_path: pathlib.Path, zarr_format: int, compressors) -> None:
    path = tmp_path / "b.zarr"
    written = zarr.create_array(str(path), shape=BYTES.shape, dtype=_variable_length_bytes(),
                                chunks=(2, 2), fill_value=b"f\x00", zarr_format=zarr_format,
                                compressors=compressors)
    written[...] = BYTES
    expected = zarr.open_array(str(path), mode="r")[...]
    array = chunkwise.open(str(path), mode="r")
    assert isinstance(array, chunkwise.BytesArray)
    assert array.shape == (3, 3) and array.fill_value == b"f\x00" and array.dtype == object
    whole = array[...]
    assert whole.dtype == expected.dtype == object
    assert whole.tolist() == expected.tolist() == BYTES.tolist()
    assert all(type(x) is bytes for x in whole.flat)
    assert array[1:, 1:].tolist() == BYTES[1:, 1:].tolist()
    assert array[::2, 1].tolist() == BYTES[::2, 1].tolist()
    assert array[0, 1] == b"\x00\xff"
    with pytest.raises(ValueError, match="read-only"):
        array[0, 0] = b"no"


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("zarr_format", [3, 2])
def test_created_variable_length_bytes_read_value_exact_by_zarr_python(
        tmp_path: pathlib.Path, zarr_format: int) -> None:
    path = tmp_path / "ours.zarr"
    array = chunkwise.create(str(path), shape=(3, 3), dtype=bytes, chunks=(2, 2),
                             fill_value=b"f\x00", zarr_format=zarr_format)
    assert isinstance(array, chunkwise.BytesArray)
    array[...] = BYTES
    theirs = zarr.open_array(str(path), mode="r")
    assert theirs.fill_value == b"f\x00"
    assert theirs[...].tolist() == BYTES.tolist()
    assert not (path / ("c/1/1" if zarr_format == 3 else "1.1")).exists()  # Only fill value.
    array[::2, 0] = [b"s", b"\xfe\x00"]
    expected = BYTES.copy()
    expected[::2, 0] = [b"s", b"\xfe\x00"]
    assert zarr.open_array(str(path), mode="r")[...].tolist() == expected.tolist()
    theirs = zarr.open_array(str(path), mode="r+")
    theirs[2:, 2:] = np.array([[b"theirs\x00"]], dtype=object)  # It refuses a bytes scalar.
    expected[2, 2] = b"theirs\x00"
    assert chunkwise.open(str(path), mode="r")[...].tolist() == expected.tolist()
    with pytest.raises(TypeError, match="bytes"):
        array[0, 0] = "text"
    # Object data all of bytes makes a bytes array too.
    made = chunkwise.create(str(tmp_path / "data.zarr"), data=BYTES, chunks=(2, 2),
                            zarr_format=zarr_format)
    assert isinstance(made, chunkwise.BytesArray)
    assert zarr.open_array(str(tmp_path / "data.zarr"), mode="r")[...].tolist() == BYTES.tolist()


def test_variable_length_bytes_chunks_are_numcodecs_vlen_bytes(tmp_path: pathlib.Path) -> None:
    numcodecs = pytest.importorskip("numcodecs")
    path = tmp_path / "raw.zarr"
    array = chunkwise.create(str(path), shape=(3,), dtype=bytes, chunks=(3,), codecs=None,
                             checksum=None, zarr_format=2)
    values = np.array([b"", b"\x00\xff", b"abc"], dtype=object)
    array[...] = values
    assert (path / "0").read_bytes() == numcodecs.VLenBytes().encode(values)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_a_damaged_variable_length_bytes_chunk_is_corruption_naming_its_key(
        tmp_path: pathlib.Path) -> None:
    path = tmp_path / "d.zarr"
    written = zarr.create_array(str(path), shape=(4,), dtype=_variable_length_bytes(),
                                chunks=(2,), compressors=None)
    written[...] = np.array([b"a", b"b", b"c", b"d"], dtype=object)
    (path / "c" / "1").write_bytes(b"\x02\x00\x00\x00\x09\x00\x00\x00a")
    array = chunkwise.open(str(path), mode="r")
    assert array[:2].tolist() == [b"a", b"b"]
    with pytest.raises(chunkwise.CorruptionError, match=r"c/1.*vlen-bytes"):
        array[...]


@pytest.mark.parametrize("index_location", ["end", "start"])
def test_sharded_strings_both_ways(tmp_path: pathlib.Path, index_location: str) -> None:
    from zarr.codecs import ShardingCodec, VLenUTF8Codec, ZstdCodec
    theirs_path = tmp_path / "theirs.zarr"
    theirs = zarr.create_array(
        str(theirs_path), shape=DATA.shape, dtype=str, chunks=(4, 2), fill_value="f",
        serializer=ShardingCodec(chunk_shape=(2, 1), codecs=[VLenUTF8Codec(), ZstdCodec()],
                                 index_location=index_location), compressors=None)
    theirs[...] = DATA
    array = chunkwise.open(str(theirs_path), mode="r+")
    assert array[...].tolist() == DATA.tolist()
    array[2, :] = ["\u00e9", "", "f"]
    expected = DATA.copy()
    expected[2, :] = ["\u00e9", "", "f"]
    assert zarr.open_array(str(theirs_path), mode="r")[...].tolist() == expected.tolist()
    ours_path = tmp_path / "ours.zarr"
    ours = chunkwise.create(str(ours_path), shape=DATA.shape, dtype=str, chunks=(1, 2),
                            shards=(2, 2), fill_value="f")
    ours[...] = DATA
    assert zarr.open_array(str(ours_path), mode="r")[...].tolist() == DATA.tolist()
    assert not (ours_path / "c" / "1" / "1").exists()  # Only fill value there.


@pytest.mark.parametrize("zarr_format", [3, 2])
def test_f_order_strings_read_and_written(tmp_path: pathlib.Path, zarr_format: int) -> None:
    path = tmp_path / "f.zarr"
    if zarr_format == 2:
        theirs = zarr.create_array(str(path), shape=DATA.shape, dtype=str, chunks=(2, 2),
                                   order="F", zarr_format=2)
    else:
        from zarr.codecs import TransposeCodec
        theirs = zarr.create_array(str(path), shape=DATA.shape, dtype=str, chunks=(2, 2),
                                   filters=[TransposeCodec(order=(1, 0))])
    theirs[...] = DATA
    array = chunkwise.open(str(path))
    assert array[...].tolist() == DATA.tolist()
    array[0, 1:] = ["p", "q"]
    expected = DATA.copy()
    expected[0, 1:] = ["p", "q"]
    assert zarr.open_array(str(path), mode="r")[...].tolist() == expected.tolist()


def test_chunks_are_numcodecs_vlen_utf8_bytes(tmp_path: pathlib.Path) -> None:
    numcodecs = pytest.importorskip("numcodecs")
    path = tmp_path / "raw.zarr"
    array = chunkwise.create(str(path), shape=(3,), dtype=str, chunks=(3,), codecs=None,
                             checksum=None, zarr_format=2)
    values = ["", "h\u00e9", "\U0001f600"]
    array[...] = values
    assert (path / "0").read_bytes() == numcodecs.VLenUTF8().encode(np.array(values, object))


def test_strings_through_chunkwise_zarr_store_and_codec_pipeline(tmp_path: pathlib.Path) -> None:
    chunkwise_zarr = pytest.importorskip("chunkwise.zarr")
    values = np.array(["a", "h\u00e9", ""], dtype=np.dtypes.StringDType())
    path = tmp_path / "store.zarr"
    theirs = zarr.create_array(store=chunkwise_zarr.Store(str(path)), shape=(3,), chunks=(2,),
                               dtype=str)
    theirs[...] = values
    assert chunkwise.open(str(path), mode="r")[...].tolist() == values.tolist()
    with zarr.config.set({"codec_pipeline.path": "chunkwise.zarr.CodecPipeline"}):
        piped = zarr.open_array(str(path), mode="r+")
        piped[1:] = ["", "z"]
        assert piped[...].tolist() == ["a", "", "z"]
    assert chunkwise.open(str(path), mode="r")[...].tolist() == ["a", "", "z"]


def _cli() -> str:
    """The CLI this build made (tests/CMakeLists.txt sets CHUNKWISE_CLI)."""
    cli = os.environ.get("CHUNKWISE_CLI", "")
    if not cli:
        pytest.fail(f"CHUNKWISE_CLI is {cli!r}: set it to the chunkwise binary")
    return cli


@pytest.mark.parametrize("order", ["C", "F"])
def test_cli_zarr_write_of_a_unicode_npy_is_read_value_exact_by_zarr_python(
        tmp_path: pathlib.Path, order: str) -> None:
    """`zarr write` takes a '<U' .npy (#43), as `zarr read` writes one."""
    values = np.array([["a", "h\u00e9llo", ""], ["\U0001f600 wide", "x" * 300, "in\x00side"]])
    np.save(tmp_path / "in.npy", np.asfortranarray(values) if order == "F" else values)
    path = str(tmp_path / "s.zarr")
    subprocess.run([_cli(), "-q", "zarr", "create", path, "--shape", "2,3", "--chunk", "1,2",
                    "--shard", "2,2", "--dtype", "string"], check=True)
    subprocess.run([_cli(), "-q", "zarr", "write", path, "--input", str(tmp_path / "in.npy")],
                   check=True)
    assert zarr.open_array(path, mode="r")[...].tolist() == values.tolist()
    subprocess.run([_cli(), "-q", "zarr", "read", path, "--output", str(tmp_path / "out.npy")],
                   check=True)
    back = np.load(tmp_path / "out.npy")
    assert back.dtype == values.dtype and back.tolist() == values.tolist()


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_cli_zarr_write_of_a_bytes_npy_into_zarr_pythons_bytes_array(
        tmp_path: pathlib.Path) -> None:
    """A '|S' .npy goes into a variable-length bytes array, a '<U' one is refused."""
    path = str(tmp_path / "b.zarr")
    zarr.create_array(path, shape=(4,), dtype=_variable_length_bytes(), chunks=(3,),
                      fill_value=b"?")
    values = np.array([b"a\x00b", b"\xff", b"", b"wide\x00"])  # numpy drops the trailing NUL.
    np.save(tmp_path / "in.npy", values)
    subprocess.run([_cli(), "-q", "zarr", "write", path, "--input", str(tmp_path / "in.npy")],
                   check=True)
    assert zarr.open_array(path, mode="r")[...].tolist() == [b"a\x00b", b"\xff", b"", b"wide"]
    np.save(tmp_path / "text.npy", np.array(["a", "b", "c", "d"]))
    refused = subprocess.run([_cli(), "zarr", "write", path, "--input",
                              str(tmp_path / "text.npy")], capture_output=True, text=True)
    assert refused.returncode == 1
    assert "its dtype <U1 does not fit the variable-length bytes array" in refused.stderr
    assert zarr.open_array(path, mode="r")[...].tolist() == [b"a\x00b", b"\xff", b"", b"wide"]
