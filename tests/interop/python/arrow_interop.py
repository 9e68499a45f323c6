"""Arrow IPC interop: apache-arrow (JS, node) reads every .arrow chunkwise writes, in
the file and the stream format, and chunkwise reads what apache-arrow writes; the
schema (with field metadata), the batch row counts and every value must agree.
Export shards (.arrow + .csv) are also checked through their CSV index in both
forms, including DVID's range-read recipe (schema bytes + one message).

usage: /usr/bin/python3 arrow_interop.py --tool build/tests/interop/arrow_interop_tool
           --node-script tests/interop/node/arrow_dump.mjs --workdir DIR
"""
import argparse
import csv
import json
import pathlib
import shutil

from interop_check import Checks, run

SEED_FIELDS = [  # The export-shards schema (docs/formats/arrow-ipc.md): name, type, children's type.
    ("chunk_x", "int32"), ("chunk_y", "int32"), ("chunk_z", "int32"),
    ("labels", "list"), ("supervoxels", "list"),
    ("dvid_compressed_block", "binary"), ("uncompressed_size", "uint32"),
]


def dump_ours(tool, path):
    return json.loads(run([tool, "dump", path]).stdout)


def dump_node(node, path):
    return json.loads(run(["node", node, "dump", path]).stdout)


def first_difference(a, b, where="$"):
    if type(a) is not type(b):
        return f"{where}: {a!r} vs {b!r}"
    if isinstance(a, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                return f"{where}.{key}: present on one side only"
            found = first_difference(a[key], b[key], f"{where}.{key}")
            if found:
                return found
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{where}: {len(a)} vs {len(b)} items"
        for i, (x, y) in enumerate(zip(a, b)):
            found = first_difference(x, y, f"{where}[{i}]")
            if found:
                return found
        return None
    return None if a == b else f"{where}: {a!r} vs {b!r}"


def expect_same(checks, ours, theirs, what):
    difference = first_difference(ours, theirs)
    checks.expect(difference is None, what + ("" if difference is None else f" ({difference})"))


def check_export_schema(checks, dump, name):
    fields = dump["schema"]["fields"]
    checks.expect([(f["name"], f["type"]) for f in fields] == SEED_FIELDS, f"{name}: seed field names and types")
    checks.expect(all(f["nullable"] is False for f in fields), f"{name}: every top-level field non-nullable")
    lists = [f for f in fields if f["type"] == "list"]
    checks.expect(all(len(f["children"]) == 1 and f["children"][0]["type"] == "uint64" for f in lists),
                  f"{name}: labels and supervoxels are list<uint64>")
    block = fields[5]
    checks.expect(block["metadata"] == {"compression": "true", "codec": "zstd"},
                  f"{name}: dvid_compressed_block field metadata {block['metadata']}")


def row_of(dump, row):
    return {name: values[row] for name, values in dump["columns"].items()}


def check_shard_row(checks, row, chunk, entry, what):
    expected = {"labels": entry["labels"], "supervoxels": entry["supervoxels"],
                "dvid_compressed_block": entry["block"], "uncompressed_size": entry["uncompressed_size"],
                "chunk": [str(c) for c in chunk]}
    actual = {"labels": row["labels"], "supervoxels": row["supervoxels"],
              "dvid_compressed_block": row["dvid_compressed_block"],
              "uncompressed_size": row["uncompressed_size"],
              "chunk": [row["chunk_x"], row["chunk_y"], row["chunk_z"]]}
    expect_same(checks, actual, expected, what)


def check_shard(checks, tool, node, work, stem):
    arrow_path, csv_path = work / f"{stem}.arrow", work / f"{stem}.csv"
    theirs = dump_node(node, arrow_path)
    check_export_schema(checks, theirs, stem)
    checks.expect(all(n == 1 for n in theirs["batches"]), f"{stem}: one block per record batch")
    ours = json.loads(run([tool, "shard-dump", arrow_path]).stdout)
    lines = csv_path.read_text().splitlines()
    schema_size = None
    if lines[0].startswith("#"):
        schema_size = int(lines[0].split("=", 1)[1])
        lines = lines[1:]
    rows = list(csv.DictReader(lines))
    chunks = [(int(r["x"]), int(r["y"]), int(r["z"])) for r in rows]
    checks.expect(chunks == sorted(chunks, key=lambda c: (c[2], c[1], c[0])), f"{stem}: CSV rows sorted by z, y, x")
    checks.expect(len(rows) == len(ours) == sum(theirs["batches"]), f"{stem}: CSV lists every record")
    data = arrow_path.read_bytes()
    for r, chunk in zip(rows, chunks):
        entry = ours[",".join(map(str, chunk))]
        if "rec" in r:
            check_shard_row(checks, row_of(theirs, int(r["rec"])), chunk, entry,
                            f"{stem}: rec {r['rec']} in apache-arrow = chunkwise lookup of {chunk}")
            continue
        # DVID's recipe: [0, schema_size) + [offset, offset + size) is a two-message stream.
        head = data[:schema_size]
        if head.startswith(b"ARROW1"):
            head = head[8:]
        spliced = work / f"{stem}.{'_'.join(map(str, chunk))}.arrows"
        spliced.write_bytes(head + data[int(r["offset"]):int(r["offset"]) + int(r["size"])])
        piece = dump_node(node, spliced)
        check_shard_row(checks, row_of(piece, int(r["batch_idx"])), chunk, entry,
                        f"{stem}: apache-arrow reads the spliced range of {chunk}")


def check_bad_inputs(checks, tool, work):
    good = (work / "ours-file.arrow").read_bytes()
    cut = work / "truncated.arrow"
    cut.write_bytes(good[:len(good) // 2])
    result = run([tool, "dump", cut], expect_success=False)
    checks.expect("truncated.arrow" in result.stderr and "Corruption" in result.stderr,
                  f"truncated file refused naming it: {result.stderr.strip()}")
    for suffix in ("arrow", "csv"):
        shutil.copy(work / f"shard-file-rec.{suffix}", work / f"bad-rec.{suffix}")
    with open(work / "bad-rec.csv", "a") as f:
        f.write("1,2,3,12\n")
    result = run([tool, "shard-dump", work / "bad-rec.arrow"], expect_success=False)
    checks.expect("bad-rec.csv:14" in result.stderr and "past the 12 records" in result.stderr,
                  f"CSV row past the record count refused with file:line: {result.stderr.strip()}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tool", required=True)
    parser.add_argument("--node-script", required=True)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--chunkwise")  # Accepted for chunkwise_interop_test; unused.
    args = parser.parse_args()
    work = pathlib.Path(args.workdir)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    checks = Checks()

    run([args.tool, "write", work])
    for name in ("ours-file.arrow", "ours-stream.arrows"):
        ours, theirs = dump_ours(args.tool, work / name), dump_node(args.node_script, work / name)
        expect_same(checks, theirs, ours, f"apache-arrow reads our {name} exactly as we do")
        checks.expect(theirs["batches"] == [6, 0, 25, 1], f"{name}: batch row counts {theirs['batches']}")
        checks.expect(theirs["format"] == ("file" if name.endswith(".arrow") else "stream"), f"{name}: format")
    for stem in ("shard-file-rec", "shard-file-offsets", "shard-stream-rec", "shard-stream-offsets"):
        expect_same(checks, dump_node(args.node_script, work / f"{stem}.arrow"),
                    dump_ours(args.tool, work / f"{stem}.arrow"), f"apache-arrow reads our {stem}.arrow as we do")
        check_shard(checks, args.tool, args.node_script, work, stem)

    run(["node", args.node_script, "write", work])
    for name in ("node-file.arrow", "node-stream.arrows"):
        theirs = dump_node(args.node_script, work / name)
        expect_same(checks, dump_ours(args.tool, work / name), theirs, f"we read apache-arrow's {name} exactly")
        checks.expect(sum(theirs["batches"]) == 19 and theirs["columns"]["i64"][1] is None,
                      f"{name}: apache-arrow's own reading has the expected rows and nulls")

    check_bad_inputs(checks, args.tool, work)
    checks.finish()


if __name__ == "__main__":
    main()
