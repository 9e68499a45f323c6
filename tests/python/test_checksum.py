"""Checksums by default (#44): the zarr v3 arrays the module makes end their
(inner) chunk chain with crc32c unless `checksum=None`, so a bit flipped in a
stored chunk raises CorruptionError naming its key; zarr v2 arrays, codec
documents, a convert without codecs and the stream writer keep their codecs.
The CLI's --checksum is the same facade field: both doors write the same
bytes.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess

import numpy as np
import pytest

import chunkwise

Path = pathlib.Path


def chunk_codecs(path: Path) -> list[str]:
    """The names of the (inner) chunks' codecs in an array's zarr.json."""
    codecs = json.loads((path / "zarr.json").read_text())["codecs"]
    if codecs[0]["name"] == "sharding_indexed":
        codecs = codecs[0]["configuration"]["codecs"]
    return [codec["name"] for codec in codecs]


def flip(path: Path, at: int) -> None:
    data = bytearray(path.read_bytes())
    data[at] ^= 1
    path.write_bytes(bytes(data))


RAMP = np.arange(64 * 64, dtype="uint16").reshape(64, 64)


@pytest.mark.parametrize("shards", [None, [32, 32]])
def test_a_default_array_ends_its_chunks_with_crc32c(tmp_path: Path, shards) -> None:
    a = chunkwise.create(str(tmp_path / "a.zarr"), data=RAMP, chunks=[8, 8], shards=shards)
    assert chunk_codecs(tmp_path / "a.zarr") == ["bytes", "zstd", "crc32c"]
    assert (a[:] == RAMP).all()


def test_checksum_none_opts_out_and_zstd_uses_the_frames(tmp_path: Path) -> None:
    chunkwise.create(str(tmp_path / "n.zarr"), data=RAMP, chunks=[32, 32], checksum=None)
    assert chunk_codecs(tmp_path / "n.zarr") == ["bytes", "zstd"]
    chunkwise.create(str(tmp_path / "s.zarr"), data=RAMP, chunks=[32, 32], checksum="none")
    assert chunk_codecs(tmp_path / "s.zarr") == ["bytes", "zstd"]
    chunkwise.create(str(tmp_path / "z.zarr"), data=RAMP, chunks=[32, 32], checksum="zstd")
    codecs = json.loads((tmp_path / "z.zarr" / "zarr.json").read_text())["codecs"]
    assert codecs[1]["configuration"]["checksum"] is True
    with pytest.raises(chunkwise.InvalidArgumentError, match="accepted: default, none, crc32c"):
        chunkwise.create(str(tmp_path / "bad.zarr"), shape=[4], dtype="u1", chunks=[4],
                         checksum="md5")


def test_v2_arrays_and_codec_documents_are_left_as_given(tmp_path: Path) -> None:
    chunkwise.create(str(tmp_path / "v2.zarr"), data=RAMP, chunks=[32, 32], zarr_format=2)
    zarray = json.loads((tmp_path / "v2.zarr" / ".zarray").read_text())
    assert zarray["compressor"]["id"] == "zstd" and zarray["filters"] is None
    with pytest.raises(chunkwise.InvalidArgumentError, match="crc32c"):
        chunkwise.create(str(tmp_path / "v2crc.zarr"), shape=[4], dtype="u1", chunks=[4],
                         zarr_format=2, checksum="crc32c")
    documents = [{"name": "gzip", "configuration": {"level": 1}}]
    chunkwise.create(str(tmp_path / "d.zarr"), data=RAMP, chunks=[32, 32], codecs=documents)
    assert chunk_codecs(tmp_path / "d.zarr") == ["bytes", "gzip"]
    with pytest.raises(chunkwise.InvalidArgumentError, match="codec documents"):
        chunkwise.create(str(tmp_path / "dc.zarr"), shape=[4], dtype="u1", chunks=[4],
                         codecs=documents, checksum="crc32c")


@pytest.mark.parametrize("shards", [None, [64, 64]])
def test_a_flipped_bit_is_a_corruption_error_naming_the_key(tmp_path: Path, shards) -> None:
    url = str(tmp_path / "f.zarr")
    chunkwise.create(url, data=RAMP, chunks=[32, 32], shards=shards)
    flip(tmp_path / "f.zarr" / "c" / "0" / "0", 3)
    with pytest.raises(chunkwise.CorruptionError, match="c/0/0") as caught:
        chunkwise.open(url)[:]
    assert caught.value.code == "Corruption"
    assert "crc32c" in str(caught.value)
    assert isinstance(caught.value, OSError)


def test_convert_and_the_imports_take_the_same_default(tmp_path: Path) -> None:
    chunkwise.create(str(tmp_path / "src.zarr"), data=RAMP, chunks=[32, 32], checksum=None)
    chunkwise.convert(str(tmp_path / "src.zarr"), str(tmp_path / "gz.zarr"), codecs="gzip:1")
    assert chunk_codecs(tmp_path / "gz.zarr") == ["bytes", "gzip", "crc32c"]
    chunkwise.convert(str(tmp_path / "src.zarr"), str(tmp_path / "gzn.zarr"), codecs="gzip:1",
                      checksum=None)
    assert chunk_codecs(tmp_path / "gzn.zarr") == ["bytes", "gzip"]
    chunkwise.convert(str(tmp_path / "src.zarr"), str(tmp_path / "kept.zarr"))
    assert chunk_codecs(tmp_path / "kept.zarr") == ["bytes", "zstd"]
    with pytest.raises(chunkwise.InvalidArgumentError, match="destination's codecs"):
        chunkwise.convert(str(tmp_path / "src.zarr"), str(tmp_path / "no.zarr"),
                          checksum="crc32c")
    np.save(tmp_path / "ramp.npy", RAMP)
    chunkwise.import_npy(tmp_path / "ramp.npy", str(tmp_path / "npy.zarr"), chunks=[32, 32])
    assert chunk_codecs(tmp_path / "npy.zarr") == ["bytes", "zstd", "crc32c"]
    chunkwise.import_(tmp_path / "ramp.npy", str(tmp_path / "vol.zarr"), chunks=[32, 32],
                      checksum=None)
    assert chunk_codecs(tmp_path / "vol.zarr") == ["bytes", "zstd"]


def test_the_stream_writer_adds_none_unless_asked(tmp_path: Path) -> None:
    for name, checksum, want in [("plain", "default", ["bytes", "zstd"]),
                                 ("crc", "crc32c", ["bytes", "zstd", "crc32c"])]:
        with chunkwise.StreamWriter(str(tmp_path / name), shape=[0, 64], dtype="uint16",
                                    chunks=[8, 8], tiles_per_shard=[2, 2],
                                    checksum=checksum) as writer:
            writer.append(RAMP)
        assert chunk_codecs(tmp_path / name) == want


def test_both_doors_write_the_same_default_bytes(tmp_path: Path) -> None:
    cli = os.environ.get("CHUNKWISE_CLI", "")
    if not cli or not os.access(cli, os.X_OK):
        pytest.fail(f"CHUNKWISE_CLI is {cli!r}: set it to the chunkwise binary")
    np.save(tmp_path / "ramp.npy", RAMP)
    subprocess.run([cli, "-q", "import", str(tmp_path / "ramp.npy"), str(tmp_path / "cli.zarr"),
                    "--chunk", "8,8", "--shard", "32,32"], check=True, timeout=120)
    chunkwise.import_(tmp_path / "ramp.npy", str(tmp_path / "py.zarr"), chunks=[8, 8],
                      shards=[32, 32])
    cli_files = sorted(p.relative_to(tmp_path / "cli.zarr")
                       for p in (tmp_path / "cli.zarr").rglob("*") if p.is_file())
    py_files = sorted(p.relative_to(tmp_path / "py.zarr")
                      for p in (tmp_path / "py.zarr").rglob("*") if p.is_file())
    assert cli_files == py_files
    for name in cli_files:
        assert (tmp_path / "cli.zarr" / name).read_bytes() == (tmp_path / "py.zarr" / name).read_bytes()
    assert chunk_codecs(tmp_path / "cli.zarr") == ["bytes", "zstd", "crc32c"]
