"""chunkwise.dvid: labelmap ingest/map/versions/read, export-shards, and the
export read back (ArrowShardReader, ExportedVolume, TensorStore), each
compared value for value with numpy and with pyarrow reading the files."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pyarrow as pa
import pytest

import chunkwise
import chunkwise.dvid as dvid

# A segmentation of (z, y, x) = (64, 100, 130) at voxel offset (0, 10, 20): it
# covers blocks 0..1 in y and 0..2 in x (2 x 3 chunks), partly.
OFFSET = (0, 10, 20)
GRID = (64, 128, 192)  # The whole blocks around it.
SCALE1 = np.s_[0:32, 0:64, 0:96]  # Scale 1 of the grid.


def segmentation(seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    volume = rng.integers(1, 6, size=(64, 100, 130)).astype(np.uint64)
    volume[:, :, :10] = 0
    volume[3, 4, 5:9] = [2**63 + 5, 2**40, 7, 9]  # Large ids survive.
    return volume


def padded(volume: np.ndarray) -> np.ndarray:
    full = np.zeros(GRID, np.uint64)
    full[:, OFFSET[1]:OFFSET[1] + 100, OFFSET[2]:OFFSET[2] + 130] = volume
    return full


def mode_downsample(volume: np.ndarray) -> np.ndarray:
    """Each 2x2x2 cell's most frequent label, ties to the smaller (the library's rule)."""
    z, y, x = (d // 2 for d in volume.shape)
    cells = volume.reshape(z, 2, y, 2, x, 2).transpose(0, 2, 4, 1, 3, 5).reshape(-1, 8)
    cells = np.sort(cells, axis=1)
    counts = (cells[:, :, None] == cells[:, None, :]).sum(axis=2)
    return cells[np.arange(len(cells)), np.argmax(counts, axis=1)].reshape(z, y, x)


def spec(preshift_bits: int = 6) -> dict:
    """Two scales, one shard each (identity hash: named by its origin, 0_0_0)."""
    sharding = {"@type": "neuroglancer_uint64_sharded_v1", "preshift_bits": preshift_bits,
                "hash": "identity", "minishard_bits": 0, "shard_bits": 0}
    return {"@type": "neuroglancer_multiscale_volume", "data_type": "uint64", "num_channels": 1,
            "type": "segmentation",
            "scales": [{"key": key, "size": size, "resolution": [r, r, r],
                        "chunk_sizes": [[64, 64, 64]], "encoding": "compressed_segmentation",
                        "sharding": sharding}
                       for key, size, r in (("s0", [192, 128, 64], 8), ("s1", [96, 64, 32], 16))]}


@pytest.fixture
def labelmap(tmp_path: pathlib.Path) -> dvid.Labelmap:
    lm = dvid.Labelmap(tmp_path / "seg.db", create=True)
    summary = lm.ingest(segmentation(), offset=OFFSET, scales=1)
    assert summary["version"] == 1
    assert summary["blocks_written"] == [6, 2]
    yield lm
    lm.close()


def test_ingest_then_read_is_exact(labelmap: dvid.Labelmap) -> None:
    volume = segmentation()
    box = np.s_[0:64, 10:110, 20:150]
    np.testing.assert_array_equal(labelmap.read(box), volume)
    assert labelmap.stored_extent() == ((0, 0, 0), GRID)
    np.testing.assert_array_equal(labelmap.read(), padded(volume))  # open ends: whole blocks
    np.testing.assert_array_equal(labelmap.read(np.s_[5:9, :, 20:21]), padded(volume)[5:9, :, 20:21])
    assert labelmap.read(np.s_[0:2, 0:2, -3:0]).tolist() == np.zeros((2, 2, 3)).tolist()
    assert labelmap.num_scales == 2
    assert labelmap.stored_extent(scale=1) == ((0, 0, 0), (64, 64, 128))  # whole blocks
    coarse = labelmap.read(scale=1)
    np.testing.assert_array_equal(coarse[SCALE1], mode_downsample(padded(volume)))
    assert coarse.shape == (64, 64, 128) and not coarse[32:].any() and not coarse[:, :, 96:].any()


def test_ingest_takes_any_non_negative_integer_dtype(tmp_path: pathlib.Path) -> None:
    with dvid.Labelmap(tmp_path / "db", create=True) as lm:
        volume = np.arange(8 * 8 * 8, dtype=np.int32).reshape(8, 8, 8)
        lm.ingest(np.asfortranarray(volume), offset=(64, -64, 3))
        np.testing.assert_array_equal(lm.read(np.s_[64:72, -64:-56, 3:11]), volume)
    assert lm.closed


def test_merge_split_and_versions(labelmap: dvid.Labelmap) -> None:
    volume = segmentation()
    box = np.s_[0:64, 10:110, 20:150]
    assert labelmap.commit(note="ingested") == 1
    assert labelmap.branch(1, note="proofreading") == 2
    labelmap.merge(100, [1, 2])
    labelmap.split([3])
    labelmap.map({4: 200})
    assert labelmap.mapping() == {1: 100, 2: 100, 3: 0, 4: 200}
    assert labelmap.mapping(version=1) == {}
    expected = volume.copy()
    for supervoxel, label in ((1, 100), (2, 100), (3, 0), (4, 200)):
        expected[volume == supervoxel] = label
    np.testing.assert_array_equal(labelmap.read(box, mapped=True), expected)
    np.testing.assert_array_equal(labelmap.read(box, mapped=True, version=1), volume)
    np.testing.assert_array_equal(labelmap.read(box), volume)  # supervoxels unchanged
    assert [(v["id"], v["parent"], v["committed"], v["note"]) for v in labelmap.versions()] == [
        (1, None, True, "ingested"), (2, 1, False, "proofreading")]
    assert labelmap.newest == 2 and labelmap.newest_open == 2


@pytest.mark.parametrize(("format", "index"), [("file", "rec"), ("stream", "offsets")])
def test_export_reads_back_through_the_shard_reader(labelmap: dvid.Labelmap,
                                                    tmp_path: pathlib.Path, format: str,
                                                    index: str) -> None:
    labelmap.merge(100, [1, 2])
    summary = dvid.export_shards(labelmap, spec(), tmp_path / "export", format=format,
                                 index=index, threads=2)
    assert [s["blocks_written"] for s in summary["scales"]] == [6, 2]
    assert summary["version"] == 1 and "total" in summary["text"]

    full = padded(segmentation())
    mapped = np.where((full == 1) | (full == 2), np.uint64(100), full)
    shard = dvid.ArrowShardReader(tmp_path / "export" / "s0" / "0_0_0.arrow")
    assert shard.is_file_format == (format == "file")
    assert shard.index_form == index
    assert sorted(shard.list_chunks()) == sorted((x, y, 0) for x in range(3) for y in range(2))
    for x, y, z in shard.list_chunks():
        sel = np.s_[z * 64:(z + 1) * 64, y * 64:(y + 1) * 64, x * 64:(x + 1) * 64]
        np.testing.assert_array_equal(shard.get_block(x, y, z, supervoxels=True), full[sel])
        np.testing.assert_array_equal(shard.get_block(x, y, z), mapped[sel])
        labels, supervoxels = shard.get_labels_for_chunk(x, y, z)
        assert supervoxels.dtype == np.uint64 and labels.dtype == np.uint64
        assert sorted(supervoxels.tolist()) == np.unique(full[sel]).tolist()
        assert labels.tolist() == [100 if s in (1, 2) else s for s in supervoxels.tolist()]
    assert shard.get_chunk(7, 7, 7) is None and shard.get_labels_for_chunk(7, 7, 7) is None


def test_get_chunk_is_the_row_pyarrow_reads(labelmap: dvid.Labelmap,
                                            tmp_path: pathlib.Path) -> None:
    dvid.export_shards(labelmap, json.dumps(spec()), tmp_path / "export")
    path = tmp_path / "export" / "s0" / "0_0_0.arrow"
    with pa.ipc.open_file(path) as file:
        table = file.read_all()
    index = {tuple(map(int, line.split(",")[:3])): int(line.split(",")[3])
             for line in (path.with_suffix(".csv")).read_text().splitlines()[1:]}
    shard = dvid.ArrowShardReader(path)
    for (x, y, z), rec in index.items():
        ours = shard.get_chunk(x, y, z)
        assert isinstance(ours, pa.Table) and ours.num_rows == 1
        assert ours.schema.names == table.schema.names
        assert ours.to_pylist()[0] == table.slice(rec, 1).to_pylist()[0]
        record = shard.get_record(x, y, z)
        assert record["dvid_compressed_block"] == table["dvid_compressed_block"][rec].as_py()


def test_the_exported_volume_reads_any_box(labelmap: dvid.Labelmap, tmp_path: pathlib.Path) -> None:
    labelmap.split([5])
    dvid.export_shards(str(labelmap.path), spec(), tmp_path / "export")  # by path, read-only
    full = padded(segmentation())
    volume = dvid.open_export(tmp_path / "export")
    assert volume.shape == GRID and volume.num_scales == 2
    np.testing.assert_array_equal(volume.read(supervoxels=True), full)
    np.testing.assert_array_equal(volume[3:60, 5:77, 60:190],
                                  np.where(full == 5, np.uint64(0), full)[3:60, 5:77, 60:190])
    np.testing.assert_array_equal(volume[10:12], np.where(full == 5, np.uint64(0), full)[10:12])
    np.testing.assert_array_equal(volume.read(scale=1, supervoxels=True),
                                  labelmap.read(SCALE1, scale=1))


def test_export_to_memory_and_read_by_memory_url(labelmap: dvid.Labelmap) -> None:
    dvid.export_shards(labelmap, spec(), "memory://dvid-export")
    shard = dvid.ArrowShardReader("memory://dvid-export/s1/0_0_0.arrow")
    assert shard.list_chunks() == [(0, 0, 0), (1, 0, 0)]
    np.testing.assert_array_equal(shard.get_block(1, 0, 0, supervoxels=True),
                                  labelmap.read(np.s_[0:64, 0:64, 64:128], scale=1))
    np.testing.assert_array_equal(dvid.open_export("memory://dvid-export").read(supervoxels=True),
                                  padded(segmentation()))


def test_tensorstore_view_equals_numpy(labelmap: dvid.Labelmap, tmp_path: pathlib.Path) -> None:
    dvid.export_shards(labelmap, spec(), tmp_path / "export")
    full = padded(segmentation())
    view = dvid.tensorstore_view(tmp_path / "export", supervoxels=True)
    assert tuple(view.shape) == GRID and view.dtype.name == "uint64"
    np.testing.assert_array_equal(view.read().result(), full)
    np.testing.assert_array_equal(view[3:60, 70:128, 1:190].read().result(), full[3:60, 70:128, 1:190])
    coarse = dvid.tensorstore_view(tmp_path / "export", scale=1, supervoxels=True)
    np.testing.assert_array_equal(coarse.read().result(), labelmap.read(SCALE1, scale=1))


# Errors: the exception class, and the path or key the message names.

def test_a_missing_labelmap_is_file_not_found(tmp_path: pathlib.Path) -> None:
    with pytest.raises(FileNotFoundError) as caught:
        dvid.Labelmap(tmp_path / "absent")
    assert isinstance(caught.value, chunkwise.NotFoundError)
    assert str(tmp_path / "absent") in str(caught.value)


def test_bad_writes_and_reads_are_refused(labelmap: dvid.Labelmap) -> None:
    labelmap.commit()
    with pytest.raises(chunkwise.NotFoundError, match="every version is committed"):
        labelmap.merge(9, [1])
    with pytest.raises(chunkwise.InvalidArgumentError, match="version 1"):
        labelmap.ingest(np.ones((4, 4, 4), np.uint64), version=1)
    with pytest.raises(chunkwise.NotFoundError, match="version 7 does not exist") as caught:
        labelmap.read(np.s_[0:1, 0:1, 0:1], version=7)
    assert labelmap.path in str(caught.value)
    with pytest.raises(chunkwise.InvalidArgumentError, match="scale 4 is not built"):
        labelmap.read(np.s_[0:1, 0:1, 0:1], scale=4)
    with pytest.raises(ValueError, match="must not be negative"):
        labelmap.ingest(-np.ones((2, 2, 2), np.int64))
    with pytest.raises(ValueError, match="3-d"):
        labelmap.ingest(np.ones((2, 2), np.uint64))
    with pytest.raises(ValueError, match="no steps"):
        labelmap.read(np.s_[0:4:2, 0:1, 0:1])


def test_export_errors_name_the_key(labelmap: dvid.Labelmap, tmp_path: pathlib.Path) -> None:
    dest = tmp_path / "export"
    dvid.export_shards(labelmap, spec(), dest)
    with pytest.raises(chunkwise.InvalidArgumentError) as caught:
        dvid.export_shards(labelmap, spec(), dest)
    assert str(dest / "info") in str(caught.value)
    dvid.export_shards(labelmap, spec(), dest, overwrite=True, scales=1)
    assert dvid.open_export(dest).num_scales == 1
    with pytest.raises(ValueError, match="format must be"):
        dvid.export_shards(labelmap, spec(), tmp_path / "other", format="parquet")
    with pytest.raises(FileNotFoundError) as missing:
        dvid.export_shards(labelmap, tmp_path / "no" / "spec.json", tmp_path / "other")
    assert str(tmp_path / "no") in str(missing.value)
    bad = spec()
    bad["scales"][0]["chunk_sizes"] = [[32, 32, 32]]
    with pytest.raises(chunkwise.InvalidArgumentError, match="chunk_sizes"):
        dvid.export_shards(labelmap, bad, tmp_path / "other")
    assert not (tmp_path / "other").exists()


def test_shard_errors_name_the_file_and_chunk(labelmap: dvid.Labelmap,
                                             tmp_path: pathlib.Path) -> None:
    dvid.export_shards(labelmap, spec(), tmp_path / "export")
    arrow = tmp_path / "export" / "s0" / "0_0_0.arrow"
    shard = dvid.ArrowShardReader(arrow)
    with pytest.raises(KeyError) as caught:
        shard.get_block(5, 6, 7)
    assert "chunk x,y,z 5,6,7" in str(caught.value) and str(arrow) in str(caught.value)
    with pytest.raises(FileNotFoundError, match="nope.csv"):
        dvid.ArrowShardReader(arrow.with_name("nope.arrow"))
    csv = arrow.with_suffix(".csv")
    csv.write_text(csv.read_text() + "1,2\n")
    with pytest.raises(chunkwise.CorruptionError) as corrupt:
        dvid.ArrowShardReader(arrow)
    assert str(csv) in str(corrupt.value)
    with pytest.raises(chunkwise.CorruptionError, match="0_0_0.csv"):
        dvid.open_export(tmp_path / "export").read()
    with pytest.raises(FileNotFoundError, match="info"):
        dvid.open_export(tmp_path / "export" / "s0")


def test_a_shard_pyarrow_writes_reads_back(labelmap: dvid.Labelmap, tmp_path: pathlib.Path) -> None:
    """pyarrow rewrites our rows as one batch of six rows, in the file and the
    stream format; the reader finds each row through a rec index numbering rows."""
    dvid.export_shards(labelmap, spec(), tmp_path / "export")
    with pa.ipc.open_file(tmp_path / "export" / "s0" / "0_0_0.arrow") as file:
        table = file.read_all().combine_chunks()
    rows = table.to_pylist()[::-1]  # another order than ours
    batch = pa.RecordBatch.from_pylist(rows, schema=table.schema)
    full = padded(segmentation())
    for name, writer in (("file", pa.ipc.new_file), ("stream", pa.ipc.new_stream)):
        arrow = tmp_path / f"{name}.arrow"
        with writer(arrow, table.schema) as out:
            out.write_batch(batch)
        arrow.with_suffix(".csv").write_text("x,y,z,rec\n" + "".join(
            f"{r['chunk_x']},{r['chunk_y']},{r['chunk_z']},{i}\n" for i, r in enumerate(rows)))
        shard = dvid.ArrowShardReader(arrow)
        assert shard.num_record_batches == 1 and shard.is_file_format == (name == "file")
        for x, y, z in shard.list_chunks():
            np.testing.assert_array_equal(shard.get_block(x, y, z, supervoxels=True),
                                          full[:, y * 64:(y + 1) * 64, x * 64:(x + 1) * 64])


def test_threads_share_a_reader(labelmap: dvid.Labelmap, tmp_path: pathlib.Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    dvid.export_shards(labelmap, spec(), tmp_path / "export")
    shard = dvid.ArrowShardReader(tmp_path / "export" / "s0" / "0_0_0.arrow")
    chunks = shard.list_chunks() * 8
    full = padded(segmentation())
    with ThreadPoolExecutor(4) as pool:
        blocks = list(pool.map(lambda c: shard.get_block(*c, supervoxels=True), chunks))
    for (x, y, _), block in zip(chunks, blocks, strict=True):
        np.testing.assert_array_equal(block, full[:, y * 64:(y + 1) * 64, x * 64:(x + 1) * 64])


def test_block_bytes_move_between_labelmaps_and_stats_count_them(
        labelmap: dvid.Labelmap, tmp_path: pathlib.Path) -> None:
    import gzip

    block = labelmap.get_block_bytes((0, 1, 2))  # z, y, x
    stored = labelmap.get_block_bytes((0, 1, 2), stored=True)
    assert stored[0] == 0x40 and gzip.decompress(stored[1:]) == block
    assert labelmap.get_block_bytes((5, 5, 5)) is None
    with dvid.Labelmap(tmp_path / "copy.db", create=True) as copy:
        copy.put_block_bytes((-1, 0, 3), block)
        copy.put_block_bytes((-1, 0, 4), gzip.compress(block))
        expected = padded(segmentation())[:, 64:128, 128:192]
        np.testing.assert_array_equal(copy.read(np.s_[-64:0, 0:64, 192:256]), expected)
        np.testing.assert_array_equal(copy.read(np.s_[-64:0, 0:64, 256:320]), expected)
        stats = copy.stats()
        assert stats["scales"][0]["block_entries"] == 2 and stats["mapping_entries"] == 0
        assert stats["scales"][0]["visible_blocks"] == {1: 2}
        with pytest.raises(chunkwise.CorruptionError) as caught:
            copy.put_block_bytes((0, 0, 0), b"not a block")
        assert copy.path in str(caught.value)
    assert labelmap.stats()["scales"][1]["block_entries"] == 2


def _read_in_child(db: str, export: str) -> tuple[bytes, bytes]:
    with dvid.Labelmap(db, read_only=True) as lm:
        labels = lm.read(np.s_[0:64, 0:128, 0:192]).tobytes()
    return labels, dvid.open_export(export).read(supervoxels=True).tobytes()


@pytest.mark.filterwarnings("ignore:This process .* is multi-threaded")
def test_a_forked_child_reads_after_the_parent_did(labelmap: dvid.Labelmap,
                                                   tmp_path: pathlib.Path) -> None:
    """A child forked after the parent's pools started (multiprocessing, dask) still reads:
    their threads are gone there, and the library's loops must not wait for them."""
    import multiprocessing

    dvid.export_shards(labelmap, spec(), tmp_path / "export")
    expected = padded(segmentation())
    np.testing.assert_array_equal(labelmap.read(), expected)  # the parent's pools run
    np.testing.assert_array_equal(dvid.open_export(tmp_path / "export").read(supervoxels=True),
                                  expected)
    with multiprocessing.get_context("fork").Pool(1) as pool:
        labels, exported = pool.apply_async(
            _read_in_child, (labelmap.path, str(tmp_path / "export"))).get(timeout=120)
    assert labels == expected.tobytes() and exported == expected.tobytes()


def test_without_a_spec_the_export_covers_the_stored_blocks(labelmap: dvid.Labelmap,
                                                            tmp_path: pathlib.Path) -> None:
    made = dvid.default_spec(labelmap, resolution=(4, 4, 40))
    assert [s["size"] for s in made["scales"]] == [[192, 128, 64], [96, 64, 32]]
    assert made["scales"][1]["resolution"] == [8.0, 8.0, 80.0]
    # 3 x 2 x 1 chunks: 3 Morton bits, all preshift (one minishard, one shard).
    assert made["scales"][0]["sharding"]["preshift_bits"] == 3
    assert made["scales"][0]["sharding"]["shard_bits"] == 0
    summary = dvid.export_shards(labelmap, None, tmp_path / "export")
    assert [s["blocks_written"] for s in summary["scales"]] == [6, 2]
    np.testing.assert_array_equal(dvid.open_export(tmp_path / "export").read(supervoxels=True),
                                  padded(segmentation()))


def test_the_default_spec_is_the_clis(labelmap: dvid.Labelmap) -> None:
    import os
    import subprocess

    cli = os.environ["CHUNKWISE_CLI"]
    labelmap.close()
    path = str(labelmap.path)
    printed = subprocess.run([cli, "dvid", "spec", path, "--resolution", "4,4,40"],
                             capture_output=True, text=True, check=True).stdout
    assert json.loads(printed) == dvid.default_spec(path, resolution=(4, 4, 40))


def test_a_default_spec_of_an_empty_labelmap_names_the_database(tmp_path: pathlib.Path) -> None:
    empty = dvid.Labelmap(tmp_path / "empty.db", create=True)
    with pytest.raises(chunkwise.NotFoundError, match="empty.db.*stores no block at scale 0"):
        dvid.default_spec(empty)
