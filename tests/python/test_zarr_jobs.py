"""The CLI's whole-array zarr jobs from Python (#38): chunkwise.info, convert,
import_npy, import_ (TIFF stacks and HDF5 datasets, #43) and to_precomputed, and refs.build's root array name. The same
jobs against the CLI, byte for byte, are tests/python/test_two_doors.py's."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

import chunkwise
import chunkwise.refs

Path = pathlib.Path


def volume(shape: tuple[int, ...] = (40, 30), dtype: str = "uint16") -> np.ndarray:
    return (np.arange(int(np.prod(shape)), dtype="uint64") * 7 % 1000).astype(dtype).reshape(shape)


# --- info ----------------------------------------------------------------------


def test_info_of_a_group_lists_its_members(tmp_path: Path) -> None:
    group = tmp_path / "group.zarr"
    group.mkdir()
    (group / "zarr.json").write_text('{"zarr_format": 3, "node_type": "group", "attributes": {}}')
    chunkwise.create(str(group / "a"), shape=[4, 6], dtype="uint8", chunks=[2, 3])
    info = chunkwise.info(str(group))
    assert (info["node_type"], info["path"]) == ("group", str(group))
    assert [(m["path"], m["node_type"], m["shape"], m["dtype"], m["chunks"])
            for m in info["members"]] == [("a", "array", [4, 6], "uint8", [2, 3])]


def test_info_of_an_array_is_arrays_info(tmp_path: Path) -> None:
    array = chunkwise.create(str(tmp_path / "a.zarr"), data=volume(), chunks=[8, 16])
    assert chunkwise.info(str(tmp_path / "a.zarr")) == array.info


def test_info_of_nothing_is_not_found(tmp_path: Path) -> None:
    with pytest.raises(chunkwise.NotFoundError) as caught:
        chunkwise.info(str(tmp_path / "missing.zarr"))
    assert caught.value.code == "NotFound"
    assert "missing.zarr" in str(caught.value)


def test_info_of_metadata_that_is_not_json_is_corruption(tmp_path: Path) -> None:
    chunkwise.create(str(tmp_path / "a.zarr"), shape=[4], dtype="uint8", chunks=[2])
    (tmp_path / "a.zarr" / "zarr.json").write_text("{ not json")
    for call in (lambda: chunkwise.info(str(tmp_path / "a.zarr")),
                 lambda: chunkwise.open(str(tmp_path / "a.zarr"))):
        with pytest.raises(chunkwise.CorruptionError) as caught:
            call()
        assert caught.value.code == "Corruption"
        assert "zarr.json" in str(caught.value)


# --- convert -------------------------------------------------------------------


def test_convert_keeps_the_values_and_what_it_is_not_told(tmp_path: Path) -> None:
    src = chunkwise.create(str(tmp_path / "src.zarr"), data=volume(), chunks=[8, 16],
                           shards=[16, 32], attributes={"unit": "nm"})
    dest = chunkwise.convert(str(tmp_path / "src.zarr"), str(tmp_path / "dest.zarr"),
                             chunks=[4, 16])
    assert (dest.chunks, dest.shards, dest.attrs) == ((4, 16), (16, 32), {"unit": "nm"})
    np.testing.assert_array_equal(dest[...], src[...])
    unsharded = chunkwise.convert(str(tmp_path / "src.zarr"), str(tmp_path / "flat.zarr"),
                                  shards="none", codecs="gzip:6")
    assert unsharded.shards is None
    # The codecs given get the default crc32c after them (#44).
    assert [c["name"] for c in unsharded.metadata["codecs"]] == ["bytes", "gzip", "crc32c"]
    np.testing.assert_array_equal(unsharded[...], src[...])


@pytest.mark.parametrize("shards", [[16, 32], "none"])
def test_convert_keeps_a_big_endian_sources_byte_order(tmp_path: Path, shards) -> None:
    data = volume().astype(">u2")
    chunkwise.create(str(tmp_path / "big.zarr"), data=data, chunks=[8, 16], shards=[16, 32])
    dest = chunkwise.convert(str(tmp_path / "big.zarr"), str(tmp_path / "dest.zarr"),
                             chunks=[8, 16], shards=shards, codecs="gzip:6")
    assert dest.dtype == np.dtype(">u2")
    np.testing.assert_array_equal(dest[...], data)
    text = json.dumps(json.loads((tmp_path / "dest.zarr" / "zarr.json").read_text()))
    assert '"endian": "big"' in text


def test_convert_refuses_chunks_that_do_not_divide_the_shards(tmp_path: Path) -> None:
    chunkwise.create(str(tmp_path / "src.zarr"), data=volume(), chunks=[8, 16], shards=[16, 32])
    with pytest.raises(chunkwise.InvalidArgumentError) as caught:
        chunkwise.convert(str(tmp_path / "src.zarr"), str(tmp_path / "dest.zarr"), chunks=[5, 16])
    assert caught.value.code == "InvalidArgument"
    assert not (tmp_path / "dest.zarr" / "zarr.json").exists()


def test_convert_refuses_a_checksum_without_codecs_and_a_taken_destination(
        tmp_path: Path) -> None:
    chunkwise.create(str(tmp_path / "src.zarr"), data=volume(), chunks=[8, 16])
    with pytest.raises(chunkwise.InvalidArgumentError, match="needs the destination's codecs"):
        chunkwise.convert(str(tmp_path / "src.zarr"), str(tmp_path / "d.zarr"), checksum="crc32c")
    chunkwise.convert(str(tmp_path / "src.zarr"), str(tmp_path / "d.zarr"))
    with pytest.raises(chunkwise.InvalidArgumentError, match="overwrite not requested"):
        chunkwise.convert(str(tmp_path / "src.zarr"), str(tmp_path / "d.zarr"))
    with pytest.raises(chunkwise.NotFoundError):
        chunkwise.convert(str(tmp_path / "missing.zarr"), str(tmp_path / "e.zarr"))


# --- import_npy ----------------------------------------------------------------


def test_import_npy_takes_the_files_shape_and_dtype(tmp_path: Path) -> None:
    data = volume((20, 17), "int32")
    np.save(tmp_path / "data.npy", data)
    array = chunkwise.import_npy(tmp_path / "data.npy", str(tmp_path / "a.zarr"), chunks=[8, 8],
                                 shards=[16, 16], attributes={"unit": "nm"},
                                 dimension_names=["y", None])
    assert (array.shape, array.dtype, array.chunks, array.shards) == \
        ((20, 17), np.dtype("int32"), (8, 8), (16, 16))
    assert array.attrs == {"unit": "nm"}
    assert array.metadata["dimension_names"] == ["y", None]
    np.testing.assert_array_equal(array[...], data)


def test_import_npy_of_a_damaged_file_is_the_librarys_error(tmp_path: Path) -> None:
    (tmp_path / "bad.npy").write_bytes(b"\x93NUMPY\x01\x00\x76\x00{'descr': '<u2'")
    with pytest.raises(chunkwise.ChunkwiseError) as caught:
        chunkwise.import_npy(tmp_path / "bad.npy", str(tmp_path / "a.zarr"), chunks=[8])
    assert caught.value.code == "Corruption"
    assert isinstance(caught.value, chunkwise.CorruptionError)
    assert "bad.npy" in str(caught.value)
    assert not (tmp_path / "a.zarr" / "zarr.json").exists()
    with pytest.raises(chunkwise.NotFoundError):
        chunkwise.import_npy(tmp_path / "none.npy", str(tmp_path / "b.zarr"), chunks=[8])


def test_import_npy_refuses_a_checksum_it_would_drop(tmp_path: Path) -> None:
    np.save(tmp_path / "v.npy", volume())
    documents = [{"name": "bytes", "configuration": {"endian": "little"}}]
    with pytest.raises(chunkwise.InvalidArgumentError) as caught:
        chunkwise.import_npy(str(tmp_path / "v.npy"), str(tmp_path / "v.zarr"), chunks=[8, 16],
                             codecs=documents, checksum="crc32c")
    assert caught.value.code == "InvalidArgument"
    assert "a checksum is not added to codec documents" in str(caught.value)
    assert not (tmp_path / "v.zarr").exists()


def test_import_npy_refuses_chunks_of_the_wrong_rank(tmp_path: Path) -> None:
    np.save(tmp_path / "data.npy", volume())
    with pytest.raises(chunkwise.InvalidArgumentError) as caught:
        chunkwise.import_npy(tmp_path / "data.npy", str(tmp_path / "a.zarr"), chunks=[8])
    assert caught.value.code == "InvalidArgument"


# --- import_ (TIFF stacks) -----------------------------------------------------


def test_import_reads_a_tiff_stack_and_reports_its_bytes(tmp_path: Path) -> None:
    import tifffile

    data = volume((6, 20, 30), "uint16")
    tifffile.imwrite(tmp_path / "stack.tif", data, photometric="minisblack", tile=(16, 16))
    seen: list[tuple[int, int | None]] = []
    array = chunkwise.import_(tmp_path / "stack.tif", str(tmp_path / "a.zarr"), chunks=[2, 8, 8],
                              shards=[4, 16, 16], progress=lambda d, t: seen.append((d, t)))
    assert (array.shape, array.dtype, array.shards) == ((6, 20, 30), np.dtype("uint16"),
                                                        (4, 16, 16))
    np.testing.assert_array_equal(array[...], data)
    assert seen and seen[-1] == (data.nbytes, data.nbytes)


def test_import_cancelled_leaves_nothing(tmp_path: Path) -> None:
    import tifffile

    # 32 planes of 1 MiB of noise, each a slab of gzip:9: long enough for progress to be
    # reported (and the token set) while slabs remain.
    noise = np.random.default_rng(3).integers(0, 1000, (32, 512, 1024), dtype="uint16")
    tifffile.imwrite(tmp_path / "stack.tif", noise, photometric="minisblack")
    token = chunkwise.CancelToken()
    seen: list[int] = []

    def cancel(done: int, total: int | None) -> None:
        seen.append(done)
        token.cancel()

    with pytest.raises(chunkwise.CancelledError):
        chunkwise.import_(tmp_path / "stack.tif", str(tmp_path / "a.zarr"), chunks=[1, 512, 1024],
                          codecs="gzip:9", threads=1, progress=cancel, cancel=token)
    assert seen and seen[-1] < noise.nbytes  # It had begun, and stopped before the end.
    out = tmp_path / "a.zarr"
    assert not out.exists() or not [p for p in out.rglob("*") if p.is_file()]


def test_import_of_an_rgb_tiff_is_unsupported_naming_it(tmp_path: Path) -> None:
    import tifffile

    tifffile.imwrite(tmp_path / "rgb.tif", np.zeros((8, 8, 3), "uint8"), photometric="rgb")
    with pytest.raises(chunkwise.UnsupportedError) as caught:
        chunkwise.import_(tmp_path / "rgb.tif", str(tmp_path / "a.zarr"), chunks=[1, 8, 8])
    assert "rgb.tif: page 0: 3 samples per pixel" in str(caught.value)
    assert not (tmp_path / "a.zarr").exists()


# --- import_ (HDF5 datasets) ----------------------------------------------------


def test_import_reads_an_hdf5_dataset_with_its_chunks_and_attributes(tmp_path: Path) -> None:
    import h5py

    data = volume((9, 20, 30), ">u2")  # Big-endian in the file; values in host order here.
    with h5py.File(tmp_path / "in.h5", "w") as f:
        raw = f.create_dataset("volumes/raw", data=data, chunks=(4, 8, 16), compression="gzip")
        raw.attrs["resolution"] = [8.0, 4.0, 4.0]
        raw.attrs["unit"] = "nm"
    seen: list[tuple[int, int | None]] = []
    array = chunkwise.import_(tmp_path / "in.h5", str(tmp_path / "a.zarr"),
                              dataset="/volumes/raw", shards=[8, 16, 32],
                              progress=lambda d, t: seen.append((d, t)))
    assert (array.shape, array.chunks, array.shards) == ((9, 20, 30), (4, 8, 16), (8, 16, 32))
    assert array.dtype == np.dtype("uint16")
    np.testing.assert_array_equal(array[...], data)
    assert array.attrs == {"resolution": [8.0, 4.0, 4.0], "unit": "nm"}
    assert seen and seen[-1] == (data.nbytes, data.nbytes)
    # The same dataset named after the file, with chunks of the caller's.
    again = chunkwise.import_(f"{tmp_path / 'in.h5'}:/volumes/raw", str(tmp_path / "b.zarr"),
                              chunks=[9, 20, 30])
    assert again.chunks == (9, 20, 30)
    np.testing.assert_array_equal(again[...], data)


def test_import_reads_hdf5_scalars_bools_float16_and_empty_datasets(tmp_path: Path) -> None:
    import h5py

    values = {
        "scalar": np.float64(2.5),
        "flags": np.array([True, False, True]),
        "half": np.array([1.5, -2, np.inf, np.nan], dtype="float16"),
        "empty": np.zeros((4, 0), dtype="int16"),
    }
    with h5py.File(tmp_path / "in.h5", "w") as f:
        for name, value in values.items():
            f.create_dataset(name, data=value)
    for name, value in values.items():
        array = chunkwise.import_(f"{tmp_path / 'in.h5'}:/{name}", str(tmp_path / f"{name}.zarr"))
        assert (array.shape, array.dtype) == (value.shape, value.dtype), name
        np.testing.assert_array_equal(array[...], value)


def _bad_hdf5_inputs(tmp_path: Path) -> Path:
    import h5py

    with h5py.File(tmp_path / "in.h5", "w") as f:
        f.create_dataset("group/data", data=np.zeros((4, 4), "uint8"))
        f.create_dataset("table", data=np.zeros(3, dtype=[("a", "i4"), ("b", "f8")]))
    (tmp_path / "notes.h5").write_text("not HDF5")
    return tmp_path / "in.h5"


@pytest.mark.parametrize(
    "source, error, words",
    [
        ("absent.h5:/group/data", chunkwise.NotFoundError, ["absent.h5:/group/data: no such file"]),
        ("notes.h5:/group/data", chunkwise.InvalidArgumentError,
         ["notes.h5:/group/data: ", "notes.h5 is not an HDF5 file"]),
        ("in.h5:/group", chunkwise.InvalidArgumentError,
         ["in.h5:/group: a group, not a dataset (datasets in it: /group/data)"]),
        ("in.h5:/group/absent", chunkwise.NotFoundError,
         ["in.h5:/group/absent: no such dataset (nothing named \"absent\" in /group)"]),
        ("in.h5:/table", chunkwise.UnsupportedError, ["in.h5:/table: a dataset of compound values"]),
    ],
)
def test_import_of_a_bad_hdf5_source_names_the_file_and_dataset(
    tmp_path: Path, source: str, error: type[Exception], words: list[str]
) -> None:
    _bad_hdf5_inputs(tmp_path)
    with pytest.raises(error) as caught:
        chunkwise.import_(f"{tmp_path}/{source}", str(tmp_path / "out.zarr"))
    assert all(word in str(caught.value) for word in words), str(caught.value)
    assert not (tmp_path / "out.zarr").exists()


def test_import_of_a_tiff_stack_still_needs_chunks(tmp_path: Path) -> None:
    import tifffile

    tifffile.imwrite(tmp_path / "stack.tif", np.zeros((2, 8, 8), "uint8"), photometric="minisblack")
    with pytest.raises(chunkwise.InvalidArgumentError) as caught:
        chunkwise.import_(tmp_path / "stack.tif", str(tmp_path / "a.zarr"))
    assert "stack.tif: a TIFF stack's import needs a chunk shape" in str(caught.value)
    assert not (tmp_path / "a.zarr").exists()


# --- to_precomputed ------------------------------------------------------------


def test_to_precomputed_writes_a_volume_of_the_same_voxels(tmp_path: Path) -> None:
    data = volume((32, 32, 32), "uint32")
    chunkwise.create(str(tmp_path / "src.zarr"), data=data, chunks=[16, 16, 16])
    summary = chunkwise.to_precomputed(str(tmp_path / "src.zarr"), str(tmp_path / "vol"),
                                       chunk=[16, 16, 16], resolution=[4, 4, 40], scales=2)
    assert summary["chunks_per_scale"] == [8, 1]
    info = json.loads((tmp_path / "vol" / "info").read_text())
    assert (info["type"], info["data_type"]) == ("segmentation", "uint32")
    assert info["scales"][0]["resolution"] == [4, 4, 40]
    assert info["scales"][0]["encoding"] == "compressed_segmentation"


def test_to_precomputed_refuses_bad_options_as_the_cli_does(tmp_path: Path) -> None:
    chunkwise.create(str(tmp_path / "src.zarr"), data=volume((8, 8, 8), "uint8"), chunks=[8, 8, 8])
    for options in ({"chunk": [0, 16, 16]}, {"chunk": [8192, 16, 16]}, {"scales": 0},
                    {"gzip_level": 10}, {"type": "mesh"}, {"encoding": "jpeg"}):
        with pytest.raises(chunkwise.InvalidArgumentError) as caught:
            chunkwise.to_precomputed(str(tmp_path / "src.zarr"), str(tmp_path / "vol"),
                                     **options)  # type: ignore[arg-type]
        assert caught.value.code == "InvalidArgument", options
    with pytest.raises(chunkwise.NotFoundError):
        chunkwise.to_precomputed(str(tmp_path / "missing.zarr"), str(tmp_path / "vol"))


# --- refs.build's root array name ----------------------------------------------


def test_a_parquet_set_names_its_one_array_after_the_source(tmp_path: Path) -> None:
    chunkwise.create(str(tmp_path / "plane.zarr"), data=volume(), chunks=[8, 16], zarr_format=2)
    chunkwise.refs.build(str(tmp_path / "plane.zarr"), str(tmp_path / "a.parquet"),
                         format="parquet")
    assert "plane/.zarray" in chunkwise.refs.open(str(tmp_path / "a.parquet"))
    assert (tmp_path / "a.parquet" / "plane" / "refs.0.parq").exists()
    chunkwise.refs.build(str(tmp_path / "plane.zarr"), str(tmp_path / "b.parquet"),
                         format="parquet", root_array_name="data")
    assert "data/.zarray" in chunkwise.refs.open(str(tmp_path / "b.parquet"))
