"""Regenerates the bad-input corpus under tests/corpus/ (see run_corpus.py for
its layout). Valid bases are written with the chunkwise CLI and then damaged
in one named way each; the cases.tsv files are written alongside. Run it only
to add or change cases, then commit the result.

usage: .venv/bin/python tests/corpus/make_corpus.py --chunkwise build/chunkwise [GROUP...]
"""
import argparse
import json
import pathlib
import shutil
import struct
import subprocess
import tempfile

import numpy as np

CORPUS = pathlib.Path(__file__).resolve().parent
DEEP = 50_000  # Far past the limit of 256; deep enough for a recursive copy to need MBs of stack.


def deep_json(depth=DEEP):
    return "[" * depth + "]" * depth


def run(binary, *args):
    subprocess.run([str(binary), "-q", *map(str, args)], check=True, capture_output=True)


class Reader:
    """One corpus directory: its command and its cases."""

    def __init__(self, name, command):
        self.root = CORPUS / name
        shutil.rmtree(self.root, ignore_errors=True)
        self.root.mkdir(parents=True)
        (self.root / "command.txt").write_text(command + "\n")
        self.lines = []

    def case(self, name, code, why):
        self.lines.append(f"{name}\t{code}\t{why}")
        return self.root / name

    def finish(self):
        (self.root / "cases.tsv").write_text("\n".join(self.lines) + "\n")


def v3_array(shape, chunks, dtype="uint16", codecs=None, attributes=None):
    return {"zarr_format": 3, "node_type": "array", "shape": shape, "data_type": dtype,
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunks}},
            "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
            "fill_value": 0, "codecs": codecs or [{"name": "bytes", "configuration": {"endian": "little"}}],
            "attributes": attributes or {}}


def sharded(shape, shard, inner):
    return v3_array(shape, shard, codecs=[{"name": "sharding_indexed", "configuration": {
        "chunk_shape": inner, "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
        "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}],
        "index_location": "end"}}])


def write_json_text(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def zarr_cases(binary, work):
    info = Reader("zarr-info", "zarr info {input}")
    base = json.dumps(v3_array([8, 8], [4, 4], attributes={"deep": "@DEEP@"}))
    write_json_text(info.case("deep-attributes.zarr", "Corruption",
                              "zarr.json's attributes nested 50000 deep")
                    / "zarr.json", base.replace('"@DEEP@"', deep_json()))
    deep_v2 = info.case("deep-zattrs.zarr", "Corruption", ".zattrs nested 50000 deep")
    write_json_text(deep_v2 / ".zarray", json.dumps({
        "zarr_format": 2, "shape": [8], "chunks": [4], "dtype": "<u2", "compressor": None,
        "fill_value": 0, "filters": None, "order": "C"}))
    write_json_text(deep_v2 / ".zattrs", deep_json())
    write_json_text(info.case("not-json.zarr", "Corruption", "zarr.json is not JSON") / "zarr.json",
                    '{"zarr_format": 3,')
    # info lists the stored keys instead of walking the declared grid: a grid of 2^60 chunks
    # with none or two stored is cheap (a key outside the grid is not counted).
    write_json_text(info.case("huge-2p60.zarr", "OK",
                              "2^60 elements in 2^30 chunks, none stored: info lists the stored "
                              "keys, it does not walk the grid")
                    / "zarr.json", json.dumps(v3_array([1 << 20] * 3, [1024] * 3)))
    write_json_text(info.case("huge-grid.zarr", "OK",
                              "2^60 grid chunks, none stored: info lists the stored keys, it does "
                              "not walk the grid")
                    / "zarr.json", json.dumps(v3_array([1 << 20] * 3, [1] * 3)))
    sparse = info.case("sparse-huge-grid.zarr", "OK",
                       "2^60 grid chunks, two stored and a stray key outside the grid")
    write_json_text(sparse / "zarr.json", json.dumps(v3_array([1 << 20] * 3, [1] * 3)))
    for key in ("c/5/6/7", "c/1048575/0/1048575", "c/1048576/0/0"):
        (sparse / key).parent.mkdir(parents=True, exist_ok=True)
        (sparse / key).write_bytes(b"\x01\x00")
    write_json_text(info.case("huge-shard-index.zarr", "ResourceExhausted",
                              "a shard of 2^36 inner chunks: its index would need 1 TB")
                    / "zarr.json", json.dumps(sharded([1 << 12] * 3, [1 << 12] * 3, [1] * 3)))
    # Lists whose length multiplies later work are refused before they are walked.
    bytes_codec = {"name": "bytes", "configuration": {"endian": "little"}}
    write_json_text(info.case("many-codecs.zarr", "Corruption",
                              "100 codecs, each of which every chunk would pass through")
                    / "zarr.json",
                    json.dumps(v3_array([8, 8], [4, 4], codecs=[bytes_codec] + [{"name": "crc32c"}] * 99)))
    write_json_text(info.case("rank-1000.zarr", "Corruption",
                              "a shape of 1000 dimensions (of extent 1)")
                    / "zarr.json", json.dumps(v3_array([1] * 1000, [1] * 1000)))
    info.finish()

    read = Reader("zarr-read", "zarr read {input} --output {out}")
    good = work / "sharded.zarr"
    run(binary, "zarr", "create", good, "--shape", "16,16", "--chunk", "4,4", "--shard", "8,8",
        "--dtype", "uint16")
    np.save(work / "ramp.npy", np.arange(256, dtype=np.uint16).reshape(16, 16))
    run(binary, "zarr", "write", good, "--input", work / "ramp.npy")
    shards = sorted(p for p in (good / "c").rglob("*") if p.is_file())
    case = read.case("shard-is-a-directory.zarr", "Corruption",
                     "a shard's path is a directory: must not read as fill")
    shutil.copytree(good, case)
    victim = case / shards[0].relative_to(good)
    victim.unlink()
    victim.mkdir()
    (victim / "stray").write_bytes(b"x")
    case = read.case("truncated-shard.zarr", "Corruption", "a shard cut in half")
    shutil.copytree(good, case)
    victim = case / shards[-1].relative_to(good)
    victim.write_bytes(victim.read_bytes()[: victim.stat().st_size // 2])
    case = read.case("bad-index-checksum.zarr", "Corruption", "a shard index whose crc32c is wrong")
    shutil.copytree(good, case)
    victim = case / shards[1].relative_to(good)
    data = bytearray(victim.read_bytes())
    data[-5] ^= 0xFF
    victim.write_bytes(bytes(data))
    write_json_text(read.case("huge-region.zarr", "ResourceExhausted",
                              "reading 2^36 uint16 elements (128 GiB) under a 4 GiB limit")
                    / "zarr.json", json.dumps(v3_array([1 << 12] * 3, [256] * 3)))
    read.finish()


def bcolz_cases(binary, work):
    info = Reader("bcolz-info", "bcolz info {input}")
    table = np.zeros(10, dtype=[("a", "<i4"), ("b", "<f8")])
    np.save(work / "table.npy", table)
    good = work / "good.bcolz"
    run(binary, "bcolz", "create", good, "--input", work / "table.npy")
    case = info.case("deep-attrs.bcolz", "Corruption", "a column's __attrs__ nested 50000 deep")
    shutil.copytree(good, case)
    (case / "a" / "__attrs__").write_text(deep_json())
    case = info.case("deep-storage.bcolz", "Corruption", "meta/storage nested 50000 deep")
    shutil.copytree(good, case)
    (case / "b" / "meta" / "storage").write_text(deep_json())
    case = info.case("deep-rootdirs.bcolz", "Corruption", "__rootdirs__ nested 50000 deep")
    shutil.copytree(good, case)
    (case / "__rootdirs__").write_text(deep_json())
    # Columns of different lengths are what an append cut short leaves (docs/formats/bcolz.md,
    # crash safety): the rows every column holds are read.
    longer = work / "longer.bcolz"
    np.save(work / "table30.npy", np.zeros(30, dtype=[("a", "<i4"), ("b", "<f8")]))
    run(binary, "bcolz", "create", longer, "--input", work / "table30.npy")
    case = info.case("interrupted-append.bcolz", "OK",
                     "a holds 30 rows, b 10: an append cut short reads the 10 rows both hold")
    shutil.copytree(good, case)
    shutil.rmtree(case / "a")
    shutil.copytree(longer / "a", case / "a")
    info.finish()


def export_cases(binary, work):
    spec = Reader("export-spec", "dvid export-shards {input}.db {input} {out}")
    write_json_text(spec.case("deep-spec.json", "InvalidArgument", "the spec nested 50000 deep"), deep_json())
    write_json_text(spec.case("deep-scale.json", "InvalidArgument", "a scale nested 50000 deep"),
                    '{"@type": "neuroglancer_multiscale_volume", "scales": [' + deep_json() + "]}")
    spec.finish()

    # A small export to damage.
    labels = (np.indices((64, 64, 128)).sum(axis=0) // 16 + 1).astype(np.uint64)
    np.save(work / "labels.npy", labels)
    run(binary, "dvid", "ingest", work / "labels.db", "--input", work / "labels.npy")
    scale = {"key": "s0", "size": [128, 64, 64], "resolution": [8, 8, 8], "chunk_sizes": [[64, 64, 64]],
             "encoding": "compressed_segmentation",
             "sharding": {"@type": "neuroglancer_uint64_sharded_v1", "preshift_bits": 0, "hash": "identity",
                          "minishard_bits": 0, "shard_bits": 0, "minishard_index_encoding": "gzip",
                          "data_encoding": "gzip"}}
    (work / "spec.json").write_text(json.dumps({
        "@type": "neuroglancer_multiscale_volume", "type": "segmentation", "data_type": "uint64",
        "num_channels": 1, "scales": [scale]}))
    export = work / "export"
    run(binary, "dvid", "export-shards", work / "labels.db", work / "spec.json", export)
    arrow = sorted((export / "s0").glob("*.arrow"))[0]

    read = Reader("export-read", "dvid read-shards {input} --output {out}")
    case = read.case("deep-info", "InvalidArgument", "the export's info nested 50000 deep")
    shutil.copytree(export, case)
    (case / "info").write_text(deep_json())
    case = read.case("index-omits-a-chunk", "Corruption",
                     "the CSV leaves out a record the .arrow holds: it would read as zeros")
    shutil.copytree(export, case)
    csv = case / "s0" / arrow.with_suffix(".csv").name
    lines = csv.read_text().splitlines()
    rows = [i for i, line in enumerate(lines) if line[:1].isdigit()]
    csv.write_text("\n".join(line for i, line in enumerate(lines) if i != rows[-1]) + "\n")
    case = read.case("index-row-past-the-records", "Corruption", "a CSV row names a record past the end")
    shutil.copytree(export, case)
    csv = case / "s0" / arrow.with_suffix(".csv").name
    with open(csv, "a") as f:
        f.write(f"9,9,9,{len(rows)}\n")
    case = read.case("index-row-outside-the-volume", "Corruption",
                     "a CSV row's chunk renamed to 9,9,9, past the 2 x 1 x 1 grid: the chunk it "
                     "named would read as zeros")
    shutil.copytree(export, case)
    csv = case / "s0" / arrow.with_suffix(".csv").name
    lines = csv.read_text().splitlines()
    lines[rows[-1]] = "9,9,9," + lines[rows[-1]].split(",", 3)[3]
    csv.write_text("\n".join(lines) + "\n")
    read.finish()

    shard = Reader("dvid-shard", "dvid shard {input}/shard.arrow --list")
    case = shard.case("index-omits-a-chunk", "Corruption", "the CSV leaves out a record")
    case.mkdir()
    shutil.copy(arrow, case / "shard.arrow")
    lines = arrow.with_suffix(".csv").read_text().splitlines()
    (case / "shard.csv").write_text("\n".join(line for i, line in enumerate(lines) if i != rows[-1]) + "\n")
    case = shard.case("index-points-at-another-chunk", "Corruption",
                      "two CSV rows swapped: --list reads a record of another chunk, prints the error, exits 1")
    case.mkdir()
    shutil.copy(arrow, case / "shard.arrow")
    swapped = list(lines)
    a, b = rows[0], rows[1]
    head_a, head_b = swapped[a].split(",", 3), swapped[b].split(",", 3)
    swapped[a] = ",".join(head_b[:3] + head_a[3:])
    swapped[b] = ",".join(head_a[:3] + head_b[3:])
    (case / "shard.csv").write_text("\n".join(swapped) + "\n")
    shard.finish()


def vectors_cases(binary, work):
    info = Reader("vectors-info", "vectors info {input}")
    points = np.random.default_rng(0).uniform(0, 10, (50, 3)).astype(np.float32)
    np.save(work / "points.npy", points)
    good = work / "points.zarr"
    run(binary, "vectors", "write", good, "--type", "points", "--input", work / "points.npy",
        "--chunk-shape", "5,5,5", "--layout", "0.8")
    case = info.case("deep-root-attributes.zarr", "Corruption", "the root zarr.json nested 50000 deep")
    shutil.copytree(good, case)
    root = json.loads((case / "zarr.json").read_text())
    root["attributes"]["deep"] = "@DEEP@"
    (case / "zarr.json").write_text(json.dumps(root).replace('"@DEEP@"', deep_json()))
    info.finish()

    def forged_root(reader, name, why, field, text, base=good):
        """A copy of `base` whose root zarr_vectors[field] is the JSON text `text`."""
        case = reader.case(name, "Corruption", why)
        shutil.copytree(base, case)
        root = json.loads((case / "zarr.json").read_text())
        root["attributes"]["zarr_vectors"][field] = "@FORGED@"
        (case / "zarr.json").write_text(json.dumps(root).replace('"@FORGED@"', text))

    # Read back with a region, so the reader probes the chunk keys chunk_shape gives.
    region = Reader("vectors-region", "vectors read {input} --region 0:10,0:10,0:10 --output {out}.csv")
    forged_root(region, "chunk-shape-inf.zarr", "chunk_shape [1e999, 5, 5]: infinity, which would put "
                "every vertex in chunk 0", "chunk_shape", "[1e999, 5, 5]")
    forged_root(region, "chunk-shape-zero.zarr", "chunk_shape [5, 0, 5]", "chunk_shape", "[5, 0, 5]")
    forged_root(region, "chunk-shape-negative.zarr", "chunk_shape [5, 5, -5]", "chunk_shape",
                "[5, 5, -5]")
    forged_root(region, "chunk-shape-halved.zarr", "chunk_shape [2.5, 2.5, 2.5] where the chunks "
                "are of 5: the vertices lie outside the cells it gives", "chunk_shape", "[2.5, 2.5, 2.5]")
    forged_root(region, "bounds-inverted.zarr", "bounds min 10 above max 0 on x", "bounds",
                "[[10, 0, 0], [0, 10, 10]]")
    forged_root(region, "bounds-not-finite.zarr", "bounds max 1e999 on y", "bounds",
                "[[0, 0, 0], [10, 1e999, 10]]")
    forged_root(region, "bounds-exclude-vertices.zarr", "bounds [0, 1] on every axis, the vertices "
                "reach 10", "bounds", "[[0, 0, 0], [1, 1, 1]]")
    region.finish()

    validate = Reader("vectors-validate", "vectors validate {input}")
    forged_root(validate, "chunk-shape-doubled.zarr", "chunk_shape [10, 10, 10] where the chunks are "
                "of 5: chunks off the origin hold vertices outside their cells", "chunk_shape",
                "[10, 10, 10]")
    forged_root(validate, "chunk-shape-inf.zarr", "chunk_shape [5, 1e999, 5]", "chunk_shape",
                "[5, 1e999, 5]")
    case = validate.case("vertex-count-forged.zarr", "Corruption",
                         "level 0's vertex_count says 500, the chunks hold 50")
    shutil.copytree(good, case)
    level = json.loads((case / "0" / "zarr.json").read_text())
    level["attributes"]["zarr_vectors_level"]["vertex_count"] = 500
    (case / "0" / "zarr.json").write_text(json.dumps(level))
    validate.finish()

    read = Reader("vectors-read", "vectors read {input} --output {out}.csv")
    n = 24
    nodes = np.random.default_rng(1).uniform(0, 20, (n, 3))
    (work / "nodes.csv").write_text("x,y,z\n" + "".join("%f,%f,%f\n" % tuple(p) for p in nodes))
    (work / "edges.csv").write_text("source,target\n" + "".join(f"{i},{i + 1}\n" for i in range(n - 1)))
    graph = work / "graph.zarr"
    run(binary, "vectors", "write", graph, "--type", "graph", "--input", work / "nodes.csv",
        "--edges", work / "edges.csv", "--chunk-shape", "10,10,10", "--layout", "0.8")
    case = read.case("cell-blob-k0-with-records.zarr", "Corruption",
                     "a cross-chunk cell blob saying K=0 followed by 3 records: links would vanish")
    shutil.copytree(graph, case)
    from numcodecs import Zstd
    cell = sorted(p.parent.parent for p in (case / "0" / "cross_chunk_links" / "0").glob("*/c/0"))[0]
    blob = struct.pack("<q", 0) + b"".join(struct.pack("<qqq", 0, i, i + 1) for i in range(3))
    (cell / "c" / "0").write_bytes(Zstd(level=3).encode(blob))
    metadata = json.loads((cell / "zarr.json").read_text())
    metadata["shape"] = metadata["chunk_grid"]["configuration"]["chunk_shape"] = [len(blob)]
    (cell / "zarr.json").write_text(json.dumps(metadata))
    read.finish()


def refs_cases(binary, work):
    cat = Reader("refs-cat", "refs cat {input} data/0.0")
    source = work / "data.zarr"  # The array's name in the references: "data".
    run(binary, "zarr", "create", source, "--shape", "40,50", "--chunk", "1,1", "--dtype", "uint8",
        "--format", "2", "--codec", "none")
    np.save(work / "bytes.npy", np.arange(2000, dtype=np.uint8).reshape(40, 50))
    run(binary, "zarr", "write", source, "--input", work / "bytes.npy")
    parquet = work / "refs.parq"
    run(binary, "refs", "build", source, "--output", parquet, "--format", "parquet", "--record-size", "100")
    case = cat.case("lost-record-file.parq", "Corruption",
                    "refs.0.parq deleted: .zmetadata lists it, so the key is not just missing")
    shutil.copytree(parquet, case)
    next(case.rglob("refs.0.parq")).unlink()
    gen = {"version": 1, "refs": {".zgroup": '{"zarr_format": 2}'},
           "gen": [{"key": "data/{{i}}", "url": "file.bin", "offset": "{{i}}", "length": "1",
                    "dimensions": {"i": {"stop": (1 << 31) - 1}}}]}
    write_json_text(cat.case("gen-2p31.json", "ResourceExhausted",
                             "a gen dimension of 2^31 - 1 values: counted and refused before any is made"),
                    json.dumps(gen))
    write_json_text(cat.case("deep-templates.json", "Corruption", "templates nested 50000 deep"),
                    '{"version": 1, "templates": ' + deep_json() + ', "refs": {}}')
    write_json_text(cat.case("deep-gen.json", "Corruption", "gen nested 50000 deep"),
                    '{"version": 1, "gen": ' + deep_json() + ', "refs": {}}')
    cat.finish()

    group = Reader("zarr-group", "refs build {input} --output {out}")
    case = group.case("deep-group-attributes.zarr", "Corruption",
                      "a group's zarr.json nested 50000 deep")
    write_json_text(case / "zarr.json", '{"zarr_format": 3, "node_type": "group", "attributes": {"a": '
                    + deep_json() + "}}")
    write_json_text(case / "arr" / "zarr.json", json.dumps(v3_array([4], [2])))
    group.finish()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunkwise", required=True, type=pathlib.Path)
    parser.add_argument("groups", nargs="*", help="zarr bcolz export vectors refs (default: all)")
    args = parser.parse_args()
    binary = args.chunkwise.resolve()
    groups = {"zarr": zarr_cases, "bcolz": bcolz_cases, "export": export_cases,
              "vectors": vectors_cases, "refs": refs_cases}
    with tempfile.TemporaryDirectory() as scratch:
        work = pathlib.Path(scratch)
        for name, make in groups.items():
            if not args.groups or name in args.groups:
                make(binary, work)
    print(f"wrote {CORPUS}")


if __name__ == "__main__":
    main()
