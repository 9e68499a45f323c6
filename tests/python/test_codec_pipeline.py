"""chunkwise.zarr.CodecPipeline: zarr-python 3 through our pipeline equals zarr-python's own.

For every codec and sharding layout of the zarr interop tests, the same data
is written once through our pipeline and once through zarr-python's
BatchedCodecPipeline, then each array is read back through both: the values
must agree everywhere, and the stored bytes must agree wherever both encoders
are deterministic and configured alike. Unsupported codecs, stores and
selections must take zarr-python's pipeline and still be right.

zarr-python is this test's peer: without it the test fails (it does not skip).
"""

from __future__ import annotations

import pathlib
import pickle

import numpy as np
import pytest
import zarr
import zarr.codecs as zc
import zarr.storage

import chunkwise.zarr

# zarr-python's advice on [sharding_indexed, zstd]; that layout is tested on purpose.
pytestmark = pytest.mark.filterwarnings("ignore:Combining a `sharding_indexed` codec")

OURS = {"codec_pipeline.path": "chunkwise.zarr.CodecPipeline"}
THEIRS = {"codec_pipeline.path": "zarr.core.codec_pipeline.BatchedCodecPipeline"}

SHAPE = (13, 17)  # No extent divides by a chunk or shard: edge chunks everywhere.


def blosc(cname: str, shuffle: str, clevel: int = 5) -> zc.BloscCodec:
    return zc.BloscCodec(cname=cname, shuffle=shuffle, clevel=clevel)


def sharded(shard: tuple[int, ...], chunk: tuple[int, ...], codecs: list | None = None,
            index_location: str = "end") -> dict:
    """A sharded layout, spelled out so that zarr-python's write order can be set (below)."""
    codecs = codecs if codecs is not None else [zc.BytesCodec(), zc.ZstdCodec(level=1)]
    return {"chunks": shard, "compressors": None, "serializer": zc.ShardingCodec(
        chunk_shape=chunk, codecs=codecs, index_location=index_location)}


def in_c_order(layout: dict) -> dict:
    """`layout` with zarr-python writing a shard's inner chunks in C order, as chunkwise
    does (zarr-python's default is Morton order; the order is not in the metadata and
    either is valid, but byte equality needs the same one)."""
    def c_order(codec: object) -> object:
        if not isinstance(codec, zc.ShardingCodec):
            return codec
        return zc.ShardingCodec(
            chunk_shape=codec.chunk_shape, codecs=[c_order(inner) for inner in codec.codecs],
            index_codecs=codec.index_codecs, index_location=codec.index_location,
            subchunk_write_order="lexicographic")

    if "serializer" not in layout:
        return layout
    return {**layout, "serializer": c_order(layout["serializer"])}


# (id, create_array arguments, whether both pipelines write the same bytes).
# Byte equality holds for zstd, blosc, crc32c and uncompressed chunks (the same
# libraries at the same settings); gzip's streams differ (both valid), and so
# do shards zarr-python writes in its default Morton order.
LAYOUTS = [
    ("zstd-1", {"chunks": (4, 6), "compressors": zc.ZstdCodec(level=1)}, True),
    ("uncompressed", {"chunks": (4, 6), "compressors": None}, True),
    ("gzip-5", {"chunks": (4, 6), "compressors": zc.GzipCodec(level=5)}, False),
    ("blosc-lz4-shuffle", {"chunks": (4, 6), "compressors": blosc("lz4", "shuffle")}, True),
    ("blosc-zstd-bitshuffle", {"chunks": (4, 6), "compressors": blosc("zstd", "bitshuffle")}, True),
    ("blosc-blosclz-noshuffle", {"chunks": (4, 6), "compressors": blosc("blosclz", "noshuffle")},
     True),
    ("blosc-lz4hc-shuffle", {"chunks": (4, 6), "compressors": blosc("lz4hc", "shuffle", 9)}, True),
    ("zstd-crc32c", {"chunks": (4, 6), "compressors": [zc.ZstdCodec(level=3), zc.Crc32cCodec()]},
     True),
    ("crc32c", {"chunks": (4, 6), "compressors": zc.Crc32cCodec()}, True),
    ("transpose-gzip", {"chunks": (4, 6), "filters": zc.TransposeCodec(order=(1, 0)),
                        "compressors": zc.GzipCodec(level=5)}, False),
    ("transpose-zstd", {"chunks": (4, 6), "filters": zc.TransposeCodec(order=(1, 0)),
                        "compressors": zc.ZstdCodec(level=1)}, True),
    ("big-endian-blosc", {"chunks": (4, 6), "serializer": zc.BytesCodec(endian="big"),
                          "compressors": blosc("lz4", "shuffle")}, True),
    ("big-endian-zstd", {"chunks": (4, 6), "serializer": zc.BytesCodec(endian="big"),
                         "compressors": zc.ZstdCodec(level=1)}, True),
    ("sharded-end-zstd", sharded((4, 6), (2, 3)), True),
    ("sharded-edge-shards", sharded((8, 12), (4, 3), [zc.BytesCodec()]), True),
    ("sharded-shorthand", {"chunks": (2, 3), "shards": (4, 6)}, False),  # Morton order.
    ("sharded-start-blosc",
     sharded((8, 12), (4, 6), [zc.BytesCodec(), blosc("lz4", "bitshuffle")], "start"), True),
    ("sharded-start-zstd", sharded((8, 12), (4, 6), index_location="start"), True),
    ("sharded-crc32c", sharded((8, 12), (4, 6), [zc.BytesCodec(), zc.Crc32cCodec()]), True),
    ("transpose-in-shard", sharded((8, 12), (4, 6), [zc.TransposeCodec(order=(1, 0)),
                                                     zc.BytesCodec(), zc.ZstdCodec(level=1)]),
     True),
    ("big-endian-in-shard",
     sharded((8, 12), (4, 6), [zc.BytesCodec(endian="big"), zc.ZstdCodec(level=1)]), True),
    ("shard-then-zstd", {**sharded((8, 12), (4, 6)), "compressors": zc.ZstdCodec(level=1)},
     True),
    ("nested-shards", sharded((8, 12), (4, 6), [zc.ShardingCodec(
        chunk_shape=(2, 3), codecs=[zc.BytesCodec(), zc.ZstdCodec(level=1)])]), True),
    ("v2-zstd", {"chunks": (4, 6), "zarr_format": 2, "compressors": None}, True),
    ("v2-blosc", {"chunks": (4, 6), "zarr_format": 2, "compressors": __import__("numcodecs").Blosc(
        cname="lz4", clevel=5, shuffle=1)}, True),
]

DTYPES = ["bool", "int8", "uint8", "int16", "uint32", "int32", "uint64", "float16", "float32",
          "float64", "complex64"]


def sample(dtype: str, shape: tuple[int, ...], seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    if np.dtype(dtype).kind == "b":
        return rng.integers(0, 2, shape).astype(dtype)
    if np.dtype(dtype).kind == "f":
        return (rng.standard_normal(shape) * 100).astype(dtype)
    # Few distinct values, so that compressors find something to compress.
    return rng.integers(0, 50, shape).astype(dtype)


def create(path: pathlib.Path, pipeline: dict, dtype: str, fill_value: object, layout: dict,
           shape: tuple[int, ...] = SHAPE) -> zarr.Array:
    if pipeline is THEIRS:
        layout = in_c_order(layout)
    with zarr.config.set(pipeline):
        return zarr.create_array(zarr.storage.LocalStore(path), shape=shape, dtype=dtype,
                                 fill_value=fill_value, **layout)


def open_with(path: pathlib.Path, pipeline: dict) -> zarr.Array:
    with zarr.config.set(pipeline):
        return zarr.open_array(zarr.storage.LocalStore(path), mode="r+")


def pipeline_of(array: zarr.Array) -> chunkwise.zarr.CodecPipeline:
    pipeline = array._async_array.codec_pipeline
    assert isinstance(pipeline, chunkwise.zarr.CodecPipeline), type(pipeline)
    return pipeline


def stored_files(path: pathlib.Path) -> dict[str, bytes]:
    return {p.relative_to(path).as_posix(): p.read_bytes()
            for p in sorted(path.rglob("*")) if p.is_file()}


def write_story(array: zarr.Array, data: np.ndarray) -> np.ndarray:
    """Whole, partial, edge, integer and scalar writes; returns what the array must hold."""
    expected = np.full(data.shape, array.fill_value, dtype=data.dtype)
    array[2:11, 1:16] = data[2:11, 1:16]  # Cuts chunks (and shards) on every side.
    expected[2:11, 1:16] = data[2:11, 1:16]
    array[9:, 10:] = data[9:, 10:]  # The corner: partial edge chunks.
    expected[9:, 10:] = data[9:, 10:]
    array[4, 3:9] = data[0, 3:9]  # An integer drops an axis.
    expected[4, 3:9] = data[0, 3:9]
    array[0:4, 0:6] = data[0, 0]  # A scalar over exactly one chunk.
    expected[0:4, 0:6] = data[0, 0]
    return expected


def check_reads(array: zarr.Array, expected: np.ndarray) -> None:
    np.testing.assert_array_equal(array[:], expected)
    np.testing.assert_array_equal(array[3:12, 5:14], expected[3:12, 5:14])
    np.testing.assert_array_equal(array[7, :], expected[7, :])
    np.testing.assert_array_equal(array[:, 16], expected[:, 16])
    assert array[12, 16] == expected[12, 16] or (np.isnan(array[12, 16])
                                                 and np.isnan(expected[12, 16]))


@pytest.mark.parametrize(("name", "layout", "same_bytes"), LAYOUTS, ids=[c[0] for c in LAYOUTS])
def test_our_pipeline_writes_and_reads_as_zarr_pythons_own(
    tmp_path: pathlib.Path, name: str, layout: dict, same_bytes: bool
) -> None:
    data = sample("int32", SHAPE, 1)
    ours = create(tmp_path / "ours", OURS, "int32", 0, layout)
    theirs = create(tmp_path / "theirs", THEIRS, "int32", 0, layout)
    pipeline = pipeline_of(ours)
    assert pipeline.fallback_reason is None
    expected = write_story(ours, data)
    assert write_story(theirs, data).tolist() == expected.tolist()
    assert pipeline.fallback_batches == 0 and pipeline.native_batches == 4

    for path in ("ours", "theirs"):
        for config in (OURS, THEIRS):
            check_reads(open_with(tmp_path / path, config), expected)
    assert pipeline_of(open_with(tmp_path / "theirs", OURS)).fallback_batches == 0

    ours_files, theirs_files = stored_files(tmp_path / "ours"), stored_files(tmp_path / "theirs")
    assert sorted(ours_files) == sorted(theirs_files)  # The same chunks (and shards) left out.
    if same_bytes:
        for key, value in theirs_files.items():
            assert ours_files[key] == value, f"{name}: {key} differs"


@pytest.mark.parametrize(("name", "layout", "same_bytes"), LAYOUTS, ids=[c[0] for c in LAYOUTS])
def test_a_store_only_zarr_python_reaches_gets_the_values_it_fetches_decoded_here(
    name: str, layout: dict, same_bytes: bool
) -> None:
    # zarr's MemoryStore: zarr-python fetches and stores the values, chunkwise does the rest.
    data = sample("int32", SHAPE, 11)
    arrays, stores = [], []
    for config in (OURS, THEIRS):
        store = zarr.storage.MemoryStore()
        with zarr.config.set(config):
            arrays.append(zarr.create_array(store, shape=SHAPE, dtype="int32", fill_value=0,
                                            **(in_c_order(layout) if config is THEIRS
                                               else layout)))
        stores.append(store)
    ours, theirs = arrays
    expected = write_story(ours, data)
    write_story(theirs, data)
    pipeline = pipeline_of(ours)
    assert (pipeline.native_batches, pipeline.fallback_batches) == (4, 0)
    check_reads(ours, expected)
    sharded = "shards" in layout or isinstance(layout.get("serializer"), zc.ShardingCodec)
    # Whole chunks are read here; parts of shards by zarr-python, by range.
    assert pipeline.fallback_batches == (4 if sharded else 0)
    with zarr.config.set(THEIRS):
        check_reads(zarr.open_array(stores[0], mode="r"), expected)
    assert sorted(stores[0]._store_dict) == sorted(stores[1]._store_dict)
    if same_bytes:
        for key, value in stores[1]._store_dict.items():
            assert stores[0]._store_dict[key].to_bytes() == value.to_bytes(), key


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shards", [False, True], ids=["plain", "sharded"])
def test_every_dtype_round_trips_byte_for_byte(tmp_path: pathlib.Path, dtype: str,
                                              shards: bool) -> None:
    layout = {"chunks": (4, 6), "compressors": zc.ZstdCodec(level=1)}
    if shards:
        layout = sharded((8, 12), (4, 6))
    data = sample(dtype, SHAPE, 2)
    ours = create(tmp_path / "ours", OURS, dtype, 0, layout)
    theirs = create(tmp_path / "theirs", THEIRS, dtype, 0, layout)
    ours[:] = data
    theirs[:] = data
    assert pipeline_of(ours).native_batches == 1
    np.testing.assert_array_equal(open_with(tmp_path / "theirs", OURS)[:], data)
    np.testing.assert_array_equal(open_with(tmp_path / "ours", THEIRS)[:], data)
    assert stored_files(tmp_path / "ours") == stored_files(tmp_path / "theirs")


@pytest.mark.parametrize(("dtype", "fill"), [("float32", float("nan")), ("int16", -7),
                                             ("uint8", 255), ("float64", -0.5)])
@pytest.mark.parametrize("shards", [False, True], ids=["plain", "sharded"])
def test_fill_values_and_missing_chunks(tmp_path: pathlib.Path, dtype: str, fill: object,
                                        shards: bool) -> None:
    layout = sharded((8, 12), (4, 6)) if shards else {"chunks": (4, 6)}
    data = sample(dtype, SHAPE, 3)
    ours = create(tmp_path / "ours", OURS, dtype, fill, layout)
    theirs = create(tmp_path / "theirs", THEIRS, dtype, fill, layout)
    for array in (ours, theirs):
        array[1:3, 2:5] = data[1:3, 2:5]  # One chunk only: the rest is never written.
        array[0:4, 6:12] = fill  # A chunk (inner chunk) of fill only: not stored.
    expected = np.full(SHAPE, fill, dtype=dtype)
    expected[1:3, 2:5] = data[1:3, 2:5]
    for path in ("ours", "theirs"):
        for config in (OURS, THEIRS):
            np.testing.assert_array_equal(open_with(tmp_path / path, config)[:], expected)
    assert stored_files(tmp_path / "ours") == stored_files(tmp_path / "theirs")
    assert sorted(stored_files(tmp_path / "ours")) == ["c/0/0", "zarr.json"]

    # Missing chunks are reported as zarr-python reports them.
    with zarr.config.set({**OURS, "array.read_missing_chunks": False}):
        strict = zarr.open_array(zarr.storage.LocalStore(tmp_path / "ours"), mode="r")
        np.testing.assert_array_equal(strict[0:3, 0:5], expected[0:3, 0:5])
        with pytest.raises(zarr.errors.ChunkNotFoundError, match="c/1/1"):
            strict[:]


def test_our_store_and_a_memory_url_take_the_native_path(memory_url: str) -> None:
    data = sample("uint16", (40, 30), 4)
    with zarr.config.set(OURS):
        array = zarr.create_array(chunkwise.zarr.Store(memory_url), shape=data.shape,
                                  dtype="uint16", chunks=(8, 8), shards=(16, 16),
                                  compressors=blosc("lz4", "shuffle"), fill_value=0)
    array[:] = data
    np.testing.assert_array_equal(array[5:37, 3:29], data[5:37, 3:29])
    pipeline = pipeline_of(array)
    assert (pipeline.native_batches, pipeline.fallback_batches) == (2, 0)


def test_a_group_member_is_found_under_its_prefix(tmp_path: pathlib.Path) -> None:
    data = sample("int32", SHAPE, 5)
    with zarr.config.set(OURS):
        group = zarr.create_group(zarr.storage.LocalStore(tmp_path / "g"))
        array = group.create_array("sub/volume", shape=SHAPE, dtype="int32", chunks=(4, 6),
                                   shards=(8, 12))
    array[:] = data
    assert (tmp_path / "g" / "sub" / "volume" / "c" / "1" / "1").is_file()
    with zarr.config.set(THEIRS):
        np.testing.assert_array_equal(zarr.open_array(zarr.storage.LocalStore(tmp_path / "g"),
                                                      path="sub/volume")[:], data)
    assert pipeline_of(array).native_batches == 1


def test_an_unsupported_codec_falls_back_and_stays_right(tmp_path: pathlib.Path) -> None:
    # numcodecs.fletcher32: not ours (numcodecs.bz2 was, before the library read numcodecs' codecs).
    layout = {"chunks": (4, 6), "compressors": zc.Fletcher32()}
    data = sample("int32", SHAPE, 6)
    ours = create(tmp_path / "ours", OURS, "int32", 0, layout)
    theirs = create(tmp_path / "theirs", THEIRS, "int32", 0, layout)
    pipeline = pipeline_of(ours)
    assert "numcodecs.fletcher32" in pipeline.fallback_reason
    expected = write_story(ours, data)
    write_story(theirs, data)
    check_reads(ours, expected)
    assert pipeline.native_batches == 0 and pipeline.fallback_batches > 0
    assert stored_files(tmp_path / "ours") == stored_files(tmp_path / "theirs")


def test_a_string_array_falls_back(tmp_path: pathlib.Path) -> None:
    words = np.array([["a", "bb"], ["ccc", ""], ["dddd", "e"]], dtype=object)
    with zarr.config.set(OURS):
        array = zarr.create_array(zarr.storage.LocalStore(tmp_path / "s"), shape=(3, 2),
                                  chunks=(2, 2), dtype=str)
    array[:] = words
    assert array[:].tolist() == words.tolist()
    pipeline = pipeline_of(array)
    assert pipeline.fallback_reason is not None and pipeline.native_batches == 0


def test_other_stores_selections_and_settings_fall_back(tmp_path: pathlib.Path) -> None:
    data = sample("int32", SHAPE, 7)
    layout = {"chunks": (4, 6), "shards": (8, 12)}
    array = create(tmp_path / "a", OURS, "int32", 0, layout)
    array[:] = data
    pipeline = pipeline_of(array)
    before = pipeline.fallback_batches
    np.testing.assert_array_equal(array[1:12:3, ::2], data[1:12:3, ::2])  # Strided.
    np.testing.assert_array_equal(array.oindex[[0, 5, 12], 3:9], data[[0, 5, 12], 3:9])
    np.testing.assert_array_equal(array.vindex[[0, 5, 12], [1, 2, 3]], data[[0, 5, 12], [1, 2, 3]])
    array.oindex[[1, 2], 0:4] = -1  # A listed write.
    data[[1, 2], 0:4] = -1
    np.testing.assert_array_equal(array[:], data)
    assert pipeline.fallback_batches == before + 4

    with zarr.config.set({**OURS, "array.write_empty_chunks": True}):
        keep_empty = zarr.create_array(zarr.storage.LocalStore(tmp_path / "e"), shape=SHAPE,
                                       dtype="int32", chunks=(4, 6))
    keep_empty[:] = 0
    assert pipeline_of(keep_empty).fallback_batches == 1
    assert (tmp_path / "e" / "c" / "3" / "2").is_file()  # zarr-python stores empty chunks.


def test_the_pipeline_pickles_and_serves_copies(tmp_path: pathlib.Path) -> None:
    data = sample("float32", SHAPE, 8)
    array = create(tmp_path / "a", OURS, "float32", 0, {"chunks": (4, 6)})
    array[:] = data
    copy = pickle.loads(pickle.dumps(array))
    assert isinstance(copy._async_array.codec_pipeline, chunkwise.zarr.CodecPipeline)
    np.testing.assert_array_equal(copy[:], data)


def test_corruption_is_an_error_naming_the_chunk(tmp_path: pathlib.Path) -> None:
    array = create(tmp_path / "a", OURS, "int32", 0, {"chunks": (4, 6), "shards": (8, 12)})
    array[:] = sample("int32", SHAPE, 9)
    shard = tmp_path / "a" / "c" / "1" / "0"
    shard.write_bytes(shard.read_bytes()[:-3])  # The index's checksum and end are cut.
    with pytest.raises(chunkwise.CorruptionError, match="c/1/0"):
        array[:]


@pytest.mark.parametrize("shards", [False, True], ids=["plain", "sharded"])
def test_a_resized_array_keeps_what_its_old_edge_chunks_hold(tmp_path: pathlib.Path,
                                                             shards: bool) -> None:
    # zarr-python keeps an array's pipeline across resize(): the pipeline must not take a
    # chunk at the old edge for whole (and encode it without reading) once the array grew.
    layout = sharded((4, 6), (2, 3)) if shards else {"chunks": (4, 6)}
    array = create(tmp_path / "a", OURS, "int32", -1, layout)
    data = sample("int32", SHAPE, 10)
    array[:] = data
    array.resize((20, 30))
    array[13:16, 0:6] = 9  # The grown part of the old edge chunk (shard) [3, 0] ...
    array[12:13, 0:6] = 8  # ... kept when the old part is written: whole under the old shape.
    array[15:20, 20:30] = 7  # Chunks the old grid did not have.
    expected = np.full((20, 30), -1, dtype="int32")
    expected[:13, :17] = data
    expected[13:16, 0:6] = 9
    expected[12:13, 0:6] = 8
    expected[15:20, 20:30] = 7
    np.testing.assert_array_equal(array[:], expected)
    pipeline = pipeline_of(array)
    assert pipeline.fallback_batches == 4 and pipeline.native_batches == 1
    reopened = open_with(tmp_path / "a", OURS)  # A pipeline for the new shape: native again.
    np.testing.assert_array_equal(reopened[:], expected)
    assert pipeline_of(reopened).native_batches == 1


def test_the_entry_point_pyproject_declares_lets_zarr_find_the_pipeline(
    tmp_path: pathlib.Path,
) -> None:
    # An installed chunkwise is found through its zarr.codec_pipeline entry point, with no
    # import of chunkwise.zarr: a dist-info holding pyproject.toml's entry points stands in.
    import os
    import subprocess
    import sys
    import tomllib

    source = pathlib.Path(os.environ.get("CHUNKWISE_SOURCE_DIR",
                                         pathlib.Path(__file__).resolve().parents[2]))
    project = tomllib.loads((source / "pyproject.toml").read_text())["project"]
    points = project["entry-points"]["zarr.codec_pipeline"]
    dist = tmp_path / "site" / "chunkwise_entry_points-0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: chunkwise-entry-points\n"
                                   "Version: 0\n")
    (dist / "entry_points.txt").write_text(
        "[zarr.codec_pipeline]\n" + "".join(f"{k} = {v}\n" for k, v in points.items()))
    script = (
        "import sys, zarr, zarr.storage, numpy as np\n"
        "zarr.config.set({'codec_pipeline.path': 'chunkwise.zarr.CodecPipeline'})\n"
        "a = zarr.create_array(zarr.storage.LocalStore(sys.argv[1]), shape=(8, 8), chunks=(4, 4),"
        " dtype='int32')\n"
        "a[:] = np.arange(64).reshape(8, 8)\n"
        "p = a._async_array.codec_pipeline\n"
        "print(type(p).__module__, type(p).__name__, p.native_batches)\n"
    )
    env = {**os.environ,
           "PYTHONPATH": os.pathsep.join([str(tmp_path / "site"), *sys.path])}
    result = subprocess.run([sys.executable, "-c", script, str(tmp_path / "a")], env=env,
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["chunkwise.zarr", "CodecPipeline", "1"]


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_a_zero_dimensional_array(tmp_path: pathlib.Path, zarr_format: int) -> None:
    array = create(tmp_path / "a", OURS, "float32", 1.5, {"zarr_format": zarr_format}, shape=())
    assert array[()] == 1.5
    array[()] = 4.25
    assert array[()] == 4.25
    assert open_with(tmp_path / "a", THEIRS)[()] == 4.25
    assert pipeline_of(array).native_batches >= 2
