"""export-shards interop with pyarrow (the pinned .venv).

A synthetic segmentation is ingested into a DVID labelmap, given merges, and
exported twice: Arrow IPC *file* shards with the x,y,z,rec CSV index, and
Arrow IPC *stream* shards with DVID's offsets index. Then:

- pyarrow opens every .arrow: `pa.ipc.open_file` the file shards,
  `pa.ipc.open_stream` the stream shards; one record per chunk.
- Each shard's schema equals, field for field and nullability included, the
  pyarrow schema of the export-shards design (SCHEMA below; restated in
  docs/formats/arrow-ipc.md). The only addition is the field metadata DVID's
  own writer puts on the block column ({"compression": "true", "codec":
  "zstd"}); there is no schema metadata.
- The reader API that the export-shards design describes is written here again
  from that description: read a shard and its CSV index into a table and a
  {(x, y, z): record} map, get a chunk by coordinates (labels, supervoxels,
  compressed block, uncompressed size), list the chunks, get the labels of a
  chunk. Through it, every chunk of every scale-0 shard is checked against the
  input volume: the zstd frame holds `uncompressed_size` bytes, and the DVID
  block it holds decodes (tests/interop/python/dvid_interop.decode_block, written
  from the spec) to exactly that chunk of the volume; its labels are the
  mapping of its supervoxels. An absent chunk gives None.
- The stream shards hold the same records as the file shards (compared by
  chunk coordinates), and their CSV's offset/size ranges each hold one record
  batch message that pyarrow reads on its own.

usage: .venv/bin/python arrow_pyarrow_interop.py --chunkwise build/chunkwise --workdir DIR
"""
import argparse
import csv
import importlib.metadata
import json
import os
import pathlib
import shutil
import sys

import numcodecs
import numpy as np
import pyarrow as pa

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "python"))
from dvid_interop import decode_block  # noqa: E402
from interop_check import Checks, run  # noqa: E402

SCHEMA = pa.schema([
    pa.field("chunk_x", pa.int32(), nullable=False),
    pa.field("chunk_y", pa.int32(), nullable=False),
    pa.field("chunk_z", pa.int32(), nullable=False),
    pa.field("labels", pa.list_(pa.uint64()), nullable=False),
    pa.field("supervoxels", pa.list_(pa.uint64()), nullable=False),
    pa.field("dvid_compressed_block", pa.binary(), nullable=False),
    pa.field("uncompressed_size", pa.uint32(), nullable=False),
])
SIZE = 192
SCALES = 2


# ---- the reader API of the export-shards design, written from its description ------------------

def load_shard(arrow_path):
    """(table, {(x, y, z): record number}) from an IPC file shard and the CSV beside it."""
    with pa.OSFile(str(arrow_path), "rb") as source:
        table = pa.ipc.open_file(source).read_all()
    index = {}
    csv_path = os.path.splitext(str(arrow_path))[0] + ".csv"
    if os.path.exists(csv_path):
        with open(csv_path, newline="") as f:
            for row in csv.DictReader(f):
                index[(int(row["x"]), int(row["y"]), int(row["z"]))] = int(row["rec"])
    return table, index


class ShardReader:
    def __init__(self, arrow_path):
        self.table, self.index = load_shard(arrow_path)

    def chunk(self, x, y, z):
        """The chunk at (x, y, z) as a dict, or None if the shard does not hold it."""
        record = self.index.get((x, y, z))
        if record is None:
            return None
        row = {name: self.table.column(name)[record].as_py() for name in self.table.column_names}
        return {"coordinates": (row["chunk_x"], row["chunk_y"], row["chunk_z"]), "labels": row["labels"],
                "supervoxels": row["supervoxels"], "compressed_data": row["dvid_compressed_block"],
                "uncompressed_size": row["uncompressed_size"]}

    def chunks(self):
        return list(self.index)

    def labels(self, x, y, z):
        found = self.chunk(x, y, z)
        return None if found is None else found["labels"]


# ---- the data ---------------------------------------------------------------------------------

def segmentation(n):
    z, y, x = np.ogrid[0:n, 0:n, 0:n]
    a = (z + (5 * np.sin(x / 23.0)).astype(np.int64)) // 16
    b = (y + (5 * np.sin(z / 19.0)).astype(np.int64)) // 20
    c = (x + (5 * np.sin(y / 29.0)).astype(np.int64)) // 24
    volume = ((a + 1) * 10000 + (b + 1) * 100 + (c + 1)).astype(np.uint64)
    volume[:64, :64, :64] = 0  # One block without labels: not stored, not exported.
    return volume


def make_mapping(volume):
    rng = np.random.default_rng(11)
    ids = np.unique(volume)
    chosen = rng.choice(ids[ids != 0], 121, replace=False)
    mapping = {int(sv): 2_000_000_000 + i % 25 for i, sv in enumerate(chosen[:120])}
    mapping[int(chosen[120])] = 0
    return mapping


def spec(n):
    scales = []
    for s in range(SCALES):
        size = -(-n // (1 << s))
        scales.append({"key": f"s{s}", "size": [size] * 3, "resolution": [8 << s] * 3, "chunk_sizes": [[64] * 3],
                       "encoding": "compressed_segmentation",
                       "sharding": {"@type": "neuroglancer_uint64_sharded_v1", "preshift_bits": 0,
                                    "hash": "identity", "minishard_bits": 1, "shard_bits": 3,
                                    "minishard_index_encoding": "gzip", "data_encoding": "gzip"}})
    return {"@type": "neuroglancer_multiscale_volume", "type": "segmentation", "data_type": "uint64",
            "num_channels": 1, "scales": scales}


def cli(binary, *args):
    return run([binary, "--quiet", *args])


def export(binary, work, volume, mapping):
    np.save(work / "labels.npy", volume)
    db = work / "labelmap.db"
    cli(binary, "dvid", "ingest", db, "--input", work / "labels.npy", "--scales", SCALES - 1)
    np.array(sorted(mapping.items()), "<u8").tofile(work / "pairs.bin")
    cli(binary, "dvid", "map", db, "--pairs", work / "pairs.bin")
    (work / "spec.json").write_text(json.dumps(spec(volume.shape[0])))
    file_dest, stream_dest = work / "file-rec", work / "stream-offsets"
    cli(binary, "dvid", "export-shards", db, work / "spec.json", file_dest, "--workers", "2")
    cli(binary, "dvid", "export-shards", db, work / "spec.json", stream_dest, "--workers", "2",
        "--arrow-format", "stream", "--index", "offsets")
    return file_dest, stream_dest


# ---- checks -----------------------------------------------------------------------------------

def check_schema(checks, schema, what):
    """The design's schema exactly (names, types, list children, nullability); besides it only
    DVID's field metadata on the block column (what DVID's own writer adds), no schema metadata."""
    bare = pa.schema([field.remove_metadata() for field in schema])
    fields = [(f.name, str(f.type), f.nullable) for f in schema]
    children = [f.type.value_field.nullable for f in schema if pa.types.is_list(f.type)]
    extra = {f.name: dict(f.metadata) for f in schema if f.metadata}
    checks.expect(bare.equals(SCHEMA, check_metadata=True) and children == [True, True] and not schema.metadata
                  and extra == {"dvid_compressed_block": {b"compression": b"true", b"codec": b"zstd"}},
                  f"{what}: schema equals the export-shards schema, nullability included"
                  + ("" if bare.equals(SCHEMA) else f" (got {fields}, metadata {extra})"))


def check_file_shards(checks, dest, volume, mapping):
    records = {}
    for s in range(SCALES):
        paths = sorted((dest / f"s{s}").glob("*.arrow"))
        checks.expect(bool(paths), f"file shards s{s}: {len(paths)} .arrow files")
        for path in paths:
            with pa.OSFile(str(path), "rb") as source:
                reader = pa.ipc.open_file(source)
                check_schema(checks, reader.schema, f"file {path.parent.name}/{path.name}")
                batches = [reader.get_batch(i) for i in range(reader.num_record_batches)]
            checks.expect(all(b.num_rows == 1 for b in batches),
                          f"file {path.parent.name}/{path.name}: {len(batches)} record batches of one record each")
            shard = ShardReader(path)
            check_reader_api(checks, shard, path, volume if s == 0 else None, mapping)
            for x, y, z in shard.chunks():
                records[(s, x, y, z)] = shard.chunk(x, y, z)
    return records


def check_reader_api(checks, shard, path, volume, mapping):
    chunks = shard.chunks()
    ok = len(chunks) == shard.table.num_rows and len(set(shard.index.values())) == len(chunks)
    zstd = numcodecs.Zstd()
    bad = []
    for x, y, z in chunks:
        chunk = shard.chunk(x, y, z)
        block = zstd.decode(chunk["compressed_data"])
        good = (chunk["coordinates"] == (x, y, z) and len(block) == chunk["uncompressed_size"]
                and shard.labels(x, y, z) == [mapping.get(v, v) for v in chunk["supervoxels"]])
        if volume is not None:
            want = volume[z * 64:z * 64 + 64, y * 64:y * 64 + 64, x * 64:x * 64 + 64]
            good = good and np.array_equal(decode_block(block), want)
            good = good and sorted(chunk["supervoxels"]) == sorted(int(v) for v in np.unique(want))
        if not good:
            bad.append((x, y, z))
    missing = shard.chunk(999, 999, 999) is None and shard.labels(999, 999, 999) is None
    where = f"{path.parent.name}/{path.name}"
    checks.expect(ok and not bad and missing,
                  f"reader API on {where}: {len(chunks)} chunks listed, each got by coordinates"
                  f"{' with the input block decoded' if volume is not None else ''}, labels = mapped supervoxels,"
                  f" absent chunk is None{' (bad: ' + str(bad[:3]) + ')' if bad else ''}")


def offsets_rows(csv_path):
    lines = csv_path.read_text().splitlines()
    header = lines[0]
    return header, list(csv.DictReader(lines[1:] if header.startswith("#") else lines))


def check_stream_shards(checks, dest, file_records):
    seen = 0
    for s in range(SCALES):
        paths = sorted((dest / f"s{s}").glob("*.arrow"))
        checks.expect(bool(paths), f"stream shards s{s}: {len(paths)} .arrow files")
        for path in paths:
            data = path.read_bytes()
            reader = pa.ipc.open_stream(pa.BufferReader(data))
            check_schema(checks, reader.schema, f"stream {path.parent.name}/{path.name}")
            table = reader.read_all()
            header, rows = offsets_rows(path.with_suffix(".csv"))
            same = table.num_rows == len(rows)
            for i in range(table.num_rows):
                row = {n: table.column(n)[i].as_py() for n in table.column_names}
                key = (s, row["chunk_x"], row["chunk_y"], row["chunk_z"])
                want = file_records.get(key)
                same = same and want is not None and want["labels"] == row["labels"] and \
                    want["supervoxels"] == row["supervoxels"] and \
                    want["compressed_data"] == row["dvid_compressed_block"] and \
                    want["uncompressed_size"] == row["uncompressed_size"]
                seen += 1
            # Each CSV row's byte range is one record batch message, read on its own after the schema.
            schema_bytes = pa.ipc.open_stream(pa.BufferReader(data)).schema.serialize()
            ranged = True
            for row in rows:
                start, size = int(row["offset"]), int(row["size"])
                batch = pa.ipc.read_record_batch(pa.py_buffer(data[start:start + size]), reader.schema)
                ranged = ranged and batch.num_rows == 1 and \
                    (batch.column(0)[0].as_py(), batch.column(1)[0].as_py(), batch.column(2)[0].as_py()) == \
                    (int(row["x"]), int(row["y"]), int(row["z"]))
            checks.expect(same and ranged and len(schema_bytes) > 0,
                          f"stream {path.parent.name}/{path.name}: {table.num_rows} records equal the file shards';"
                          f" each CSV offset/size range is one record batch pyarrow reads alone")
    checks.expect(seen == len(file_records),
                  f"the stream shards hold as many records as the file shards ({seen} vs {len(file_records)})")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunkwise", required=True, type=pathlib.Path)
    parser.add_argument("--workdir", required=True, type=pathlib.Path)
    args = parser.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    args.workdir.mkdir(parents=True)
    print(f"     pyarrow {importlib.metadata.version('pyarrow')}, numcodecs {importlib.metadata.version('numcodecs')}")
    checks = Checks()
    volume = segmentation(SIZE)
    mapping = make_mapping(volume)
    file_dest, stream_dest = export(args.chunkwise, args.workdir, volume, mapping)
    records = check_file_shards(checks, file_dest, volume, mapping)
    checks.expect(len(records) > 20, f"{len(records)} chunks exported over {SCALES} scales")
    check_stream_shards(checks, stream_dest, records)
    checks.finish()


if __name__ == "__main__":
    main()
