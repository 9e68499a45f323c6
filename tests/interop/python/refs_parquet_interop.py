"""Parquet references interop: hyparquet (node) reads every record file
chunkwise writes, and each row must be what the fsspec layout puts there.

The tool writes a synthetic reference set (every reference kind, holes, a 3-d
array with edge chunks, a nested 0-d array) as Parquet references and the same
set as JSON. This script computes on its own, from the spec (ravel of the chunk
index in C order over ceil(shape / chunks), file n // record_size, row
n % record_size, padding rows with path and raw null and offset = size = 0),
which file and row each key goes to, and compares with what hyparquet reads.
It also checks .zmetadata, the column order and types, and that every file
has exactly record_size rows. Several record sizes are tried. Then the
generic table writer's variants (every codec, data page v2,
PLAIN_DICTIONARY, dictionary fallback, several row groups) are read by
hyparquet and compared value by value with what the tool put in them.

usage: /usr/bin/python3 refs_parquet_interop.py --tool build/tests/interop/refs_parquet_interop_tool
           --node-script tests/interop/node/parquet_dump.mjs --workdir DIR
"""
import argparse
import json
import math
import pathlib
import shutil

from interop_check import Checks, run


def expected_files(refs, record_size):
    """{relative file: [row dict] * record_size} from the spec's mapping."""
    grids = {}
    for key, value in refs.items():
        if key.endswith("/.zarray"):
            zarray = json.loads(value)
            shape, chunks = zarray["shape"], zarray["chunks"]
            grids[key[: -len("/.zarray")]] = [math.ceil(s / c) for s, c in zip(shape, chunks)] or [1]
    files = {}
    for key, value in refs.items():
        if key.rsplit("/", 1)[-1].startswith("."):
            continue
        field, chunk = key.rsplit("/", 1)
        grid = grids[field]
        index = [int(c) for c in chunk.split(".")]
        n = 0
        for i, count in zip(index, grid):
            n = n * count + i
        name = f"{field}/refs.{n // record_size}.parq"
        rows = files.setdefault(
            name, [{"path": None, "offset": "0", "size": "0", "raw": None} for _ in range(record_size)])
        if isinstance(value, dict):
            rows[n % record_size] = {"path": None, "offset": "0", "size": "0", "raw": {"hex": value["inline_hex"]}}
        elif len(value) == 1:
            rows[n % record_size] = {"path": value[0], "offset": "0", "size": "0", "raw": None}
        else:
            rows[n % record_size] = {"path": value[0], "offset": str(value[1]), "size": str(value[2]), "raw": None}
    return files


def check_record_size(checks, args, record_size):
    work = pathlib.Path(args.workdir) / f"record_size_{record_size}"
    refs_json = work.with_suffix(".json")
    run([args.tool, "write", work, refs_json, record_size])
    refs = json.loads(refs_json.read_text())
    tag = f"record_size {record_size}"

    zmetadata = json.loads((work / ".zmetadata").read_text())
    checks.expect(zmetadata.get("record_size") == record_size, f"{tag}: .zmetadata record_size")
    metadata = zmetadata.get("metadata", {})
    wanted_metadata = {k: json.loads(v) for k, v in refs.items() if k.rsplit("/", 1)[-1].startswith(".")}
    checks.expect(metadata == wanted_metadata, f"{tag}: .zmetadata holds every metadata key as an object")

    expected = expected_files(refs, record_size)
    written = sorted(str(p.relative_to(work)) for p in work.rglob("*.parq"))
    checks.expect(written == sorted(expected), f"{tag}: record files {written} == {sorted(expected)}")
    paths = [work / name for name in sorted(expected) if (work / name).exists()]
    dumps = [json.loads(line) for line in run(["node", args.node_script, *paths]).stdout.splitlines()]
    for dump in dumps:
        name = str(pathlib.Path(dump["file"]).relative_to(work))
        names = [(c["name"], c["type"], c["repetition_type"]) for c in dump["schema"]]
        checks.expect(names == [("path", "BYTE_ARRAY", "OPTIONAL"), ("offset", "INT64", "REQUIRED"),
                                ("size", "INT64", "REQUIRED"), ("raw", "BYTE_ARRAY", "OPTIONAL")],
                      f"{tag} {name}: columns path, offset, size, raw ({names})")
        checks.expect(dump["schema"][0]["converted_type"] == "UTF8", f"{tag} {name}: path is UTF8")
        checks.expect(dump["num_rows"] == record_size and len(dump["rows"]) == record_size,
                      f"{tag} {name}: padded to {record_size} rows ({dump['num_rows']})")
        mismatches = [i for i, (got, want) in enumerate(zip(dump["rows"], expected[name])) if got != want]
        detail = ""
        if mismatches:
            i = mismatches[0]
            detail = f": row {i} is {dump['rows'][i]}, expected {expected[name][i]}"
        checks.expect(not mismatches, f"{tag} {name}: every row matches{detail}")


def check_tables(checks, args):
    work = pathlib.Path(args.workdir) / "tables"
    work.mkdir()
    run([args.tool, "tables", work])
    expected = json.loads((work / "expected.json").read_text())
    files = sorted(work.glob("*.parq"))
    checks.expect(len(files) == 8, f"tables: 8 writer variants ({len(files)})")
    for dump in (json.loads(line) for line in run(["node", args.node_script, *files]).stdout.splitlines()):
        name = pathlib.Path(dump["file"]).name
        rows = dump["rows"]
        bad = next((i for i, (got, want) in enumerate(zip(rows, expected)) if got != want), None)
        detail = f": row {bad} is {rows[bad]}, expected {expected[bad]}" if bad is not None else ""
        checks.expect(len(rows) == len(expected) and bad is None,
                      f"tables {name} ({dump['row_groups']} row groups): {len(rows)} rows match{detail}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tool", required=True)
    parser.add_argument("--node-script", required=True)
    parser.add_argument("--workdir", required=True)
    args = parser.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    pathlib.Path(args.workdir).mkdir(parents=True)
    checks = Checks()
    for record_size in (7, 10, 100000):
        check_record_size(checks, args, record_size)
    check_tables(checks, args)
    checks.finish()


if __name__ == "__main__":
    main()
