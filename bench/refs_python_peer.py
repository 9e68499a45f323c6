"""The peers of bench/refs_bench.cc: fsspec (and kerchunk) on the same
reference sets, as their users open and write them.

usage: python refs_python_peer.py json REFS.json RUNS
       python refs_python_peer.py parquet REFS.parq REFS_V0.json KEY OUT_DIR RUNS

json: load = `fsspec.filesystem("reference", fo=REFS.json,
remote_protocol="file")`, which parses the file with json.load and builds the
reference file system (its references dict); write = `ujson.dumps` of the
parsed set written to a file, as kerchunk writes JSON. Prints
{"load_seconds", "write_seconds", "references"}. Runs under Debian's
python3 (fsspec 2022.11, without ujson: write_seconds is then empty) too.

parquet: write = kerchunk's `refs_to_dataframe` of the set (REFS_V0.json
parsed untimed) into OUT_DIR, record_size 100000 (its default, and ours);
load = fsspec's lazy Parquet references opened on REFS.parq (the directory
refs_bench wrote) and every reference taken through
`fs.references.values()`; lookup = the same opened afresh and KEY looked
up. Prints {"write_seconds", "load_seconds", "lookup_seconds",
"references"}.
"""
import gc
import json
import os
import shutil
import sys
import time

import fsspec


def open_references(fo):
    return fsspec.filesystem("reference", fo=fo, remote_protocol="file", skip_instance_cache=True)


def json_peer(path, runs):
    load, write, count = [], [], 0
    try:
        import ujson
    except ImportError:
        ujson = None
    for _ in range(runs):
        gc.collect()
        start = time.perf_counter()
        fs = open_references(path)
        load.append(time.perf_counter() - start)
        count = len(fs.references)
        del fs
    if ujson is not None:
        with open(path, "rb") as f:
            refs = ujson.load(f)
        for _ in range(runs):
            start = time.perf_counter()
            with open(path + ".peer", "w") as f:
                f.write(ujson.dumps(refs))
            write.append(time.perf_counter() - start)
        del refs
    if os.path.exists(path + ".peer"):
        os.remove(path + ".peer")
    return {"load_seconds": load, "write_seconds": write, "references": count}


def parquet_peer(parq_dir, json_v0, key, out_dir, runs):
    import ujson
    from kerchunk.df import refs_to_dataframe

    with open(json_v0, "rb") as f:
        refs = ujson.load(f)
    expected = len(refs)
    write = []
    for _ in range(runs):
        shutil.rmtree(out_dir, ignore_errors=True)
        gc.collect()
        start = time.perf_counter()
        refs_to_dataframe(refs, out_dir, record_size=100_000)
        write.append(time.perf_counter() - start)
    shutil.rmtree(out_dir, ignore_errors=True)
    del refs
    load, count = [], 0
    for _ in range(runs):
        gc.collect()
        start = time.perf_counter()
        values = list(open_references(parq_dir).references.values())
        load.append(time.perf_counter() - start)
        count = len(values)
        del values
    lookup = []
    for _ in range(runs):
        start = time.perf_counter()
        reference = open_references(parq_dir).references[key]
        lookup.append(time.perf_counter() - start)
        if not isinstance(reference, list) or len(reference) != 3:
            raise SystemExit(f"fsspec found {reference!r} for {key}")
    if count < expected:
        raise SystemExit(f"fsspec loaded {count} references of {expected}")
    return {"write_seconds": write, "load_seconds": load, "lookup_seconds": lookup,
            "references": count}


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "json" and len(sys.argv) == 4:
        result = json_peer(sys.argv[2], int(sys.argv[3]))
    elif mode == "parquet" and len(sys.argv) == 7:
        result = parquet_peer(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6]))
    else:
        raise SystemExit(__doc__)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
