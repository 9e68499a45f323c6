"""chunkwise.open/create and numpy indexing, asserted against numpy."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess

import numpy as np
import pytest

import chunkwise

LAYOUTS = [
    pytest.param({"chunks": [4, 5, 3]}, id="chunked"),
    pytest.param({"chunks": [2, 5, 3], "shards": [4, 10, 6]}, id="sharded"),
    pytest.param({"chunks": [3, 4, 5], "codecs": "blosc:lz4:5:shuffle"}, id="blosc"),
    pytest.param({"chunks": [3, 4, 5], "codecs": None}, id="uncompressed"),
    pytest.param({"chunks": [3, 4, 5], "codecs": "gzip:6+crc32c"}, id="gzip-crc32c"),
    pytest.param({"chunks": [3, 4, 5], "zarr_format": 2}, id="v2"),
]

SELECTIONS = [
    np.s_[...],
    np.s_[:],
    np.s_[3],
    np.s_[-1],
    np.s_[2:7, 3],
    np.s_[1:9, 2:11, 4:8],
    np.s_[::2, ::3, ::4],
    np.s_[8:1:-3, :, 5],
    np.s_[..., 1:4],
    np.s_[4, ..., 2],
    np.s_[0, 0, 0],
    np.s_[5:5],
    np.s_[:, 12:2],
    np.s_[::-1, ::-1, ::-1],
]


def sample(shape: tuple[int, ...], dtype: str) -> np.ndarray:
    rng = np.random.default_rng(7)
    if np.dtype(dtype) == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if np.dtype(dtype).kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_selection_reads_as_numpy_does(tmp_path: pathlib.Path, layout: dict) -> None:
    expected = sample((10, 13, 9), "uint16")
    array = chunkwise.create(str(tmp_path / "a.zarr"), shape=expected.shape, dtype="uint16", **layout)
    array[...] = expected
    reopened = chunkwise.open(str(tmp_path / "a.zarr"))
    for selection in SELECTIONS:
        got = reopened[selection]
        np.testing.assert_array_equal(got, expected[selection], err_msg=str(selection))
        assert got.shape == expected[selection].shape
        assert got.dtype == expected.dtype


@pytest.mark.parametrize(
    "dtype",
    ["bool", "int8", "uint8", "int16", "uint32", "int64", "uint64", "float16", "float32",
     "float64", "complex64", "complex128"],
)
def test_every_dtype_round_trips(memory_url: str, dtype: str) -> None:
    expected = sample((6, 7), dtype)
    array = chunkwise.create(memory_url, shape=expected.shape, dtype=dtype, chunks=[4, 4], shards=[4, 8])
    array[:] = expected
    assert array.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(chunkwise.open(memory_url)[:], expected)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_writes_to_every_selection_land_as_numpys(tmp_path: pathlib.Path, layout: dict) -> None:
    shape = (10, 13, 9)
    expected = np.zeros(shape, "int32")
    array = chunkwise.create(str(tmp_path / "a.zarr"), shape=shape, dtype="int32", **layout)
    for number, selection in enumerate(SELECTIONS, start=1):
        value = sample(expected[selection].shape, "int32") if expected[selection].ndim else number
        expected[selection] = value
        array[selection] = value
        np.testing.assert_array_equal(array[...], expected, err_msg=str(selection))


def test_scalars_broadcast_and_values_are_cast(memory_url: str) -> None:
    array = chunkwise.create(memory_url, shape=[4, 6], dtype="float32", chunks=[2, 4], fill_value=1.5)
    np.testing.assert_array_equal(array[:], np.full((4, 6), 1.5, "float32"))
    array[1:3] = 7
    array[:, 0] = np.arange(4)  # int64 in, float32 stored
    expected = np.full((4, 6), 1.5, "float32")
    expected[1:3] = 7
    expected[:, 0] = np.arange(4)
    np.testing.assert_array_equal(array[:], expected)


def test_writes_take_any_c_contiguous_buffer(memory_url: str) -> None:
    array = chunkwise.create(memory_url, shape=[2, 3], dtype="uint16", chunks=[2, 2])
    values = np.arange(6, dtype="uint16").reshape(2, 3)
    array[:] = values.tobytes()
    np.testing.assert_array_equal(array[:], values)
    array[1] = memoryview(np.array([9, 8, 7], "uint16"))
    array[0] = bytearray(np.array([1, 2, 3], "uint16").tobytes())
    np.testing.assert_array_equal(array[:], [[1, 2, 3], [9, 8, 7]])
    with pytest.raises(ValueError, match="a buffer of 4 bytes"):
        array[0] = b"\x00" * 4


def test_reads_fill_the_result_in_place(memory_url: str) -> None:
    array = chunkwise.create(memory_url, shape=[8, 8], dtype="int16", chunks=[3, 3])
    array[:] = np.arange(64, dtype="int16").reshape(8, 8)
    result = array[2:6, 1]
    np.testing.assert_array_equal(result, [17, 25, 33, 41])
    # The library decoded into the module's own buffer; the result views it, no copy.
    assert result.flags.c_contiguous and result.flags.writeable
    buffer = result.base
    while isinstance(buffer, np.ndarray) and buffer.base is not None:
        buffer = buffer.base
    assert buffer is not None and not isinstance(buffer, np.ndarray)  # not numpy's allocation
    assert np.shares_memory(result, result.base)
    out = np.empty((4, 8), "int16")
    assert array.read(np.s_[4:], out=out) is out
    np.testing.assert_array_equal(out, np.arange(32, 64, dtype="int16").reshape(4, 8))
    strided_out = np.zeros((4,), "int16")
    array.read(np.s_[::2, 3], out=strided_out)
    np.testing.assert_array_equal(strided_out, [3, 19, 35, 51])


def test_out_must_fit_the_selection(memory_url: str) -> None:
    array = chunkwise.create(memory_url, shape=[4, 4], dtype="int16", chunks=[2, 2])
    with pytest.raises(ValueError, match="out has shape"):
        array.read(np.s_[:2], out=np.empty((4, 4), "int16"))
    with pytest.raises(ValueError, match="out has dtype int32"):
        array.read(out=np.empty((4, 4), "int32"))
    with pytest.raises(ValueError, match="C-contiguous"):
        array.read(out=np.empty((4, 4), "int16", order="F"))
    with pytest.raises(TypeError, match="numpy array"):
        array.read(out=bytearray(32))


def test_properties_describe_the_array(tmp_path: pathlib.Path) -> None:
    path = str(tmp_path / "a.zarr")
    array = chunkwise.create(
        path, shape=[100, 64], dtype="uint8", chunks=[10, 16], shards=[20, 64],
        codecs="zstd:5", fill_value=3, dimension_names=["y", "x"], attributes={"unit": "nm"},
    )
    array[:30] = 1
    opened = chunkwise.open(path)
    assert (opened.shape, opened.chunks, opened.shards) == ((100, 64), (10, 16), (20, 64))
    assert (opened.dtype, opened.ndim, opened.size, len(opened)) == (np.uint8, 2, 6400, 100)
    assert opened.attrs == {"unit": "nm"}
    info = opened.info
    assert info["zarr_format"] == 3 and info["fill_value"] == 3
    assert info["dimension_names"] == ["y", "x"]
    assert info["codecs"][0]["name"] == "sharding_indexed"
    inner = [codec["name"] for codec in info["codecs"][0]["configuration"]["codecs"]]
    assert inner == ["bytes", "zstd", "crc32c"]  # crc32c last by default (#44).
    on_disk = json.loads((tmp_path / "a.zarr" / "zarr.json").read_text())
    assert on_disk["codecs"] == info["codecs"]
    storage = opened.storage_info()
    assert storage["stored_keys"] == 2 and storage["grid_chunks"] == 5
    assert storage["stored_inner_chunks"] == 12 and storage["grid_inner_chunks"] == 40
    np.testing.assert_array_equal(np.asarray(opened)[29:31, 0], [1, 3])
    assert "shards=(20, 64)" in repr(opened)


def test_info_is_what_the_cli_prints(tmp_path: pathlib.Path) -> None:
    # One facade function gives both doors their info (#38): the same keys,
    # in the same order, with the same values, for the same array.
    path = str(tmp_path / "a.zarr")
    array = chunkwise.create(
        path, shape=[100, 64], dtype="uint16", chunks=[10, 16], shards=[20, 64],
        fill_value=3, dimension_names=["y", None], attributes={"unit": "nm"},
    )
    array[:30] = 1
    cli = os.environ["CHUNKWISE_CLI"]
    printed = subprocess.run([cli, "zarr", "info", path, "--json"], check=True,
                             capture_output=True, text=True).stdout
    info = chunkwise.open(path).info
    assert list(info) == list(json.loads(printed))
    assert info == json.loads(printed)
    assert (info["path"], info["shape"], info["dtype"]) == (path, [100, 64], "uint16")
    assert (info["chunks"], info["shards"], info["fill_value"]) == ([10, 16], [20, 64], 3)
    assert (info["nchunks"], info["nchunks_initialized"]) == (5, 2)
    assert (info["ninner_chunks"], info["ninner_chunks_initialized"]) == (40, 12)
    assert (info["nbytes"], info["attributes"]) == (100 * 64 * 2, {"unit": "nm"})


def test_a_dimension_name_may_be_none(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "named.zarr"
    array = chunkwise.create(str(path), shape=[4, 6], dtype="uint8", chunks=[2, 3],
                             dimension_names=["y", None])
    written = json.loads((path / "zarr.json").read_text())
    assert written["dimension_names"] == ["y", None]
    assert array.info["dimension_names"] == ["y", None]
    v2 = tmp_path / "named2.zarr"
    chunkwise.create(str(v2), shape=[4, 6], dtype="uint8", chunks=[2, 3],
                     dimension_names=[None, "x"], zarr_format=2)
    assert json.loads((v2 / ".zattrs").read_text())["_ARRAY_DIMENSIONS"] == [None, "x"]


def test_codecs_may_be_given_as_zarr_documents(memory_url: str) -> None:
    codecs = [{"name": "gzip", "configuration": {"level": 2}}]
    array = chunkwise.create(memory_url, shape=[5], dtype="int64", chunks=[2], codecs=codecs)
    array[:] = [5, 4, 3, 2, 1]
    assert array.info["codecs"][1:] == codecs
    np.testing.assert_array_equal(chunkwise.open(memory_url)[:], [5, 4, 3, 2, 1])


def test_a_zero_dimensional_array(memory_url: str) -> None:
    array = chunkwise.create(memory_url, shape=[], dtype="float64", chunks=[])
    array[...] = 2.5
    assert array[()] == 2.5 and array[...].shape == ()


def test_file_urls_and_paths_name_the_same_array(tmp_path: pathlib.Path) -> None:
    array = chunkwise.create(f"file://{tmp_path}/a.zarr", shape=[3], dtype="uint8", chunks=[3])
    array[:] = [1, 2, 3]
    np.testing.assert_array_equal(chunkwise.open(str(tmp_path / "a.zarr"))[:], [1, 2, 3])


def test_the_gil_is_released_while_the_library_reads(
    tmp_path: pathlib.Path, http_base: str
) -> None:
    # The array is served over HTTP by a thread of this interpreter: the
    # read finishes only if the library lets that thread run.
    
    expected = sample((64, 64), "uint16")
    chunkwise.create(str(tmp_path / "a.zarr"), shape=[64, 64], dtype="uint16", chunks=[16, 16])[:] = expected
    np.testing.assert_array_equal(chunkwise.open(f"{http_base}/a.zarr")[:], expected)


@pytest.mark.filterwarnings("ignore:This process .* is multi-threaded")
def test_a_forked_child_reads_over_http_through_the_parents_array(
        tmp_path: pathlib.Path, http_base: str) -> None:
    """The parent's reads start the HTTP store's event loop (a thread of its
    own); a forked child has none of the parent's threads, yet reads through
    the very same array object: the store starts a loop for the child
    (src/store/http_transport.cc). A child left waiting on the parent's loop
    would hang, so it is given 60 s before SIGALRM ends it."""
    import signal

    data = sample((64, 64), "uint16")
    chunkwise.create(str(tmp_path / "f.zarr"), shape=[64, 64], dtype="uint16",
                     chunks=[16, 16])[:] = data
    remote = chunkwise.open(f"{http_base}/f.zarr")
    np.testing.assert_array_equal(remote[:], data)  # the parent's loop runs
    pid = os.fork()
    if pid == 0:
        code = 3
        try:
            signal.alarm(60)
            code = 0 if remote[0:32, 16:48].tobytes() == data[0:32, 16:48].tobytes() else 4
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    np.testing.assert_array_equal(remote[32:, :], data[32:, :])  # and the parent's still does


def _read_in_child(url: str) -> bytes:
    return chunkwise.open(url)[...].tobytes()


@pytest.mark.filterwarnings("ignore:This process .* is multi-threaded")
def test_a_forked_child_reads_on_the_module_pool_the_parent_started(
        tmp_path: pathlib.Path) -> None:
    """The module Context's pool runs in the parent before the fork, and the child has
    none of its threads: the child still reads (its Context starts a pool of its own,
    tests/api/context_api_test.cc)."""
    import multiprocessing

    data = np.arange(32 * 32 * 32, dtype="uint16").reshape(32, 32, 32)
    url = str(tmp_path / "forked.zarr")
    chunkwise.create(url, shape=data.shape, dtype=data.dtype, chunks=[8, 8, 8])[...] = data
    np.testing.assert_array_equal(chunkwise.open(url)[...], data)  # the parent's pool runs
    with multiprocessing.get_context("fork").Pool(1) as pool:
        back = pool.apply_async(_read_in_child, (url,)).get(timeout=60)
    assert back == data.tobytes()
