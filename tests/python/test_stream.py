"""chunkwise.StreamWriter writes the array its frames make, as zarr-python reads it."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest
import zarr

import chunkwise


def frames(count: int) -> np.ndarray:
    return np.random.default_rng(11).integers(0, 4000, (count, 24, 20), dtype="uint16")


def test_frames_appended_in_pieces_make_the_array(tmp_path: pathlib.Path) -> None:
    data = frames(37)
    path = str(tmp_path / "s.zarr")
    with chunkwise.StreamWriter(path, shape=[0, 24, 20], dtype="uint16", chunks=[4, 8, 10],
                                tiles_per_shard=[2, 3, 2], codecs="zstd:1") as writer:
        assert writer.memory["total"] > 0
        writer.append(data[:5])
        writer.append(data[5:6].tobytes()[:100])  # a frame split anywhere
        writer.append(memoryview(data[5:6].tobytes()[100:]))
        writer.append(data[6:])
    stats = writer.stats()
    assert stats["frames"] == 37 and stats["bytes_in"] == data.nbytes
    assert writer.closed
    np.testing.assert_array_equal(chunkwise.open(path)[:], data)
    np.testing.assert_array_equal(zarr.open_array(path, mode="r")[:], data)
    assert chunkwise.open(path).shards == (8, 24, 20)


def test_a_bounded_stream_takes_no_more_than_its_shape(memory_url: str) -> None:
    writer = chunkwise.StreamWriter(memory_url, shape=[4, 6], dtype="int32", chunks=[2, 3])
    writer.append(np.arange(24, dtype="int32").reshape(4, 6))
    with pytest.raises(chunkwise.InvalidArgumentError):
        writer.append(np.zeros((1, 6), "int32"))
    writer.abort()


def test_input_ending_inside_a_frame_is_reported(memory_url: str) -> None:
    writer = chunkwise.StreamWriter(memory_url, shape=[0, 6], dtype="int32", chunks=[2, 3])
    writer.append(np.arange(9, dtype="int32"))
    with pytest.raises(chunkwise.InvalidArgumentError):
        writer.close()
    np.testing.assert_array_equal(chunkwise.open(memory_url)[:], [np.arange(6)])


def test_an_exception_in_the_block_discards_the_open_shards_and_publishes_nothing(
        tmp_path: pathlib.Path) -> None:
    path = str(tmp_path / "s.zarr")
    with pytest.raises(RuntimeError, match="camera"):
        with chunkwise.StreamWriter(path, shape=[0, 4], dtype="uint8", chunks=[2, 4],
                                    tiles_per_shard=[4, 1]) as writer:
            writer.append(np.ones((3, 4), "uint8"))
            raise RuntimeError("camera unplugged")
    assert writer.closed
    assert not (tmp_path / "s.zarr" / "zarr.json").exists()
    with pytest.raises(chunkwise.NotFoundError, match="zarr.json"):
        chunkwise.open(path)


def test_the_memory_estimate_and_its_limit(memory_url: str) -> None:
    estimate = chunkwise.StreamWriter.memory_estimate(
        shape=[0, 512, 512], dtype="uint16", chunks=[16, 128, 128], tiles_per_shard=[4, 4, 4])
    assert estimate["total"] == sum(
        estimate[k] for k in ("staging", "compressed", "aggregated", "shard_indexes", "pinned"))
    assert estimate["staging"] >= 2 * 16 * 512 * 512 * 2  # two batches of a tile's frames
    with pytest.raises(chunkwise.ResourceExhaustedError, match="over the memory limit"):
        chunkwise.StreamWriter(memory_url, shape=[0, 512, 512], dtype="uint16",
                               chunks=[16, 128, 128], tiles_per_shard=[4, 4, 4],
                               max_memory=estimate["total"] // 2)


def test_the_gpu_backend_is_refused_with_the_reason(memory_url: str) -> None:
    with pytest.raises(chunkwise.ChunkwiseError, match="without the CUDA backend"):
        chunkwise.StreamWriter(memory_url, shape=[0, 8], dtype="uint8", chunks=[2, 8],
                               backend="cuda", codecs="blosc:lz4det")


def test_levels_make_a_multiscale_group_reduced_while_streaming(tmp_path: pathlib.Path) -> None:
    data = frames(8)
    path = tmp_path / "s.zarr"
    with chunkwise.StreamWriter(str(path), shape=[0, 24, 20], dtype="uint16", chunks=[4, 8, 10],
                                dimension_names=["z", "y", "x"], levels=1, downsample="max",
                                downsample_factors=[2, 2, 2], voxel_size=[3.0, 0.5, 0.5],
                                unit="micrometer") as writer:
        assert writer.memory["levels"] > 0
        writer.append(data)
    np.testing.assert_array_equal(chunkwise.open(str(path / "0"))[:], data)
    expected = data.reshape(4, 2, 12, 2, 10, 2).max(axis=(1, 3, 5))
    np.testing.assert_array_equal(chunkwise.open(str(path / "1"))[:], expected)
    ome = json.loads((path / "zarr.json").read_text())["attributes"]["ome"]["multiscales"][0]
    assert [axis.get("unit") for axis in ome["axes"]] == ["micrometer"] * 3
    assert ome["datasets"][1]["coordinateTransformations"][0]["scale"] == [6.0, 1.0, 1.0]


@pytest.mark.parametrize("bad", [
    {"levels": 1, "downsample": "median"},           # no such method
    {"levels": 1, "downsample_factors": [2, 2]},     # one factor short
    {"levels": 1, "voxel_size": [1.0, 1.0, 1.0, 1.0]},  # one voxel size too many
    {"levels": 0, "downsample_factors": [1, 2, 2]},  # factors without levels
    {"levels": 0, "unit": "micrometer"},             # a unit without levels
])
def test_bad_levels_options_are_invalid_arguments(memory_url: str, bad: dict[str, object]) -> None:
    with pytest.raises(chunkwise.InvalidArgumentError) as raised:
        chunkwise.StreamWriter(memory_url, shape=[0, 24, 20], dtype="uint16", chunks=[4, 8, 10],
                               **bad)  # type: ignore[arg-type]
    assert raised.value.code == "InvalidArgument"
