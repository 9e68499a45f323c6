"""Library status codes reach Python as exceptions with the library's message."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import chunkwise


def test_a_missing_array_is_file_not_found_naming_the_path(tmp_path: pathlib.Path) -> None:
    missing = tmp_path / "nothing.zarr"
    missing.mkdir()
    with pytest.raises(FileNotFoundError) as caught:
        chunkwise.open(str(missing))
    error = caught.value
    assert isinstance(error, chunkwise.NotFoundError)
    assert isinstance(error, chunkwise.ChunkwiseError)
    assert isinstance(error, KeyError)
    assert error.code == "NotFound"
    assert str(missing) in str(error)


def test_a_missing_directory_is_not_found(tmp_path: pathlib.Path) -> None:
    with pytest.raises(chunkwise.NotFoundError) as caught:
        chunkwise.open(str(tmp_path / "absent"))
    assert "absent" in str(caught.value)


def test_bad_arguments_are_value_errors_with_the_librarys_message(memory_url: str) -> None:
    with pytest.raises(ValueError) as caught:
        chunkwise.create(memory_url, shape=[10, 10], dtype="uint8", chunks=[4, 4], shards=[6, 6])
    assert isinstance(caught.value, chunkwise.InvalidArgumentError)
    assert caught.value.code == "InvalidArgument"
    assert str(caught.value) == "the shard shape [6,6] is not a multiple of the chunk shape [4,4]"


def test_an_unknown_codec_is_a_value_error(memory_url: str) -> None:
    with pytest.raises(chunkwise.InvalidArgumentError, match="brotli"):
        chunkwise.create(memory_url, shape=[4], dtype="uint8", chunks=[2], codecs="brotli")


@pytest.mark.parametrize("attributes", [["nm"], [], ""])
def test_attributes_that_are_not_an_object_are_refused(memory_url: str, attributes) -> None:
    # Before #38 a list was silently stored as {}; now both doors refuse it
    # (the CLI's `zarr create --attributes '[1]'` too, tests/cli/flag_hints_test.sh),
    # an empty one too.
    with pytest.raises(chunkwise.InvalidArgumentError) as caught:
        chunkwise.create(memory_url, shape=[4], dtype="uint8", chunks=[2],
                         attributes=attributes)
    assert caught.value.code == "InvalidArgument"
    assert "the attributes must be a JSON object, not" in str(caught.value)


def test_an_unknown_url_scheme_is_a_value_error_naming_it() -> None:
    with pytest.raises(ValueError, match="ftp://host/a: unknown URL scheme"):
        chunkwise.open("ftp://host/a")


def test_an_existing_array_is_refused_without_overwrite(tmp_path: pathlib.Path) -> None:
    path = str(tmp_path / "a.zarr")
    chunkwise.create(path, shape=[4], dtype="uint8", chunks=[2])
    with pytest.raises(chunkwise.InvalidArgumentError, match="a.zarr"):
        chunkwise.create(path, shape=[4], dtype="uint8", chunks=[2])
    again = chunkwise.create(path, shape=[8], dtype="uint8", chunks=[2], overwrite=True)
    assert again.shape == (8,)


def test_a_damaged_chunk_is_corruption_naming_the_chunk(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "a.zarr"
    array = chunkwise.create(str(path), shape=[8], dtype="uint16", chunks=[4], codecs="zstd:1")
    array[:] = np.arange(8, dtype="uint16")
    (path / "c" / "1").write_bytes(b"not a zstd frame")
    with pytest.raises(OSError) as caught:
        array[:]
    assert isinstance(caught.value, chunkwise.CorruptionError)
    assert caught.value.code == "Corruption"
    assert "c/1" in str(caught.value)
    np.testing.assert_array_equal(array[:4], np.arange(4, dtype="uint16"))


def test_unreadable_metadata_is_an_error_naming_the_key(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "a.zarr"
    path.mkdir()
    (path / "zarr.json").write_text("{ not json")
    with pytest.raises(chunkwise.ChunkwiseError) as caught:
        chunkwise.open(str(path))
    assert "zarr.json" in str(caught.value)
    # Stored bytes that are not JSON are damage: Corruption, as `zarr info`
    # says (#38; InvalidArgument, a ValueError, before).
    assert isinstance(caught.value, chunkwise.CorruptionError)
    assert caught.value.code == "Corruption"


def test_index_errors_are_numpys(memory_url: str) -> None:
    array = chunkwise.create(memory_url, shape=[4, 5], dtype="int32", chunks=[2, 2])
    with pytest.raises(IndexError, match="index 4 is out of bounds for axis 0 with size 4"):
        array[4]
    with pytest.raises(IndexError, match="too many indices"):
        array[0, 0, 0]
    with pytest.raises(IndexError, match="integers, slices and"):
        array[[0, 1]]


def test_a_read_larger_than_memory_is_a_memory_error_naming_it(tmp_path: pathlib.Path) -> None:
    url = str(tmp_path / "big.zarr")
    big = chunkwise.create(url, shape=(100000, 100000, 100000), dtype="uint16",
                           chunks=(64, 64, 64))
    with pytest.raises(chunkwise.ResourceExhaustedError) as caught:
        big[:]
    assert isinstance(caught.value, MemoryError) and caught.value.code == "ResourceExhausted"
    message = str(caught.value)
    assert "reading " + url + " [0:100000,0:100000,0:100000] needs 2e+06 GB" in message
    assert "this process may use" in message


def test_a_path_with_a_nul_byte_is_refused_before_anything_is_made(
        tmp_path: pathlib.Path) -> None:
    with pytest.raises(chunkwise.InvalidArgumentError, match="NUL byte"):
        chunkwise.create(str(tmp_path / "bad\x00name.zarr"), shape=(10,), dtype="uint8",
                         chunks=(5,))
    assert list(tmp_path.iterdir()) == []


_THREADS_UNDER_A_CAP = """
import resource, sys
import numpy as np, chunkwise
source = chunkwise.create(sys.argv[1], data=np.zeros((64, 64, 64), "uint16"), chunks=(8, 32, 32))
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))  # each thread reserves its stack
try:
    chunkwise.convert(sys.argv[1], sys.argv[2], chunks=(8, 8, 8), threads=300)
except chunkwise.ResourceExhaustedError as error:
    print(error.code, isinstance(error, MemoryError), error)
"""


def test_threads_the_system_refuses_are_a_resource_error_naming_them(
        tmp_path: pathlib.Path) -> None:
    # In a child: the address-space cap would hold this interpreter too.
    package_root = str(pathlib.Path(chunkwise.__file__).resolve().parent.parent)
    # One malloc arena: a thread's own arena reserves 64 MiB of the capped
    # address space, and a thread that then cannot get memory for its
    # thread-local data makes glibc abort the process (seen once, rarely).
    env = dict(os.environ, PYTHONPATH=package_root, MALLOC_ARENA_MAX="1")
    result = subprocess.run([sys.executable, "-c", _THREADS_UNDER_A_CAP, str(tmp_path / "a.zarr"),
                             str(tmp_path / "b.zarr")], capture_output=True, text=True, env=env,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("ResourceExhausted True started "), result.stdout
    assert "of 300 threads: cannot start a thread" in result.stdout, result.stdout
    assert not (tmp_path / "b.zarr").exists()
