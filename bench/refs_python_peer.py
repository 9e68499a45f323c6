"""The peer of bench/refs_bench.cc: python3 json.load + fsspec's reference
filesystem construction on the same JSON reference file, as a user would open it.

usage: /usr/bin/python3 refs_python_peer.py REFS.json RUNS
Prints one JSON line: {"load_seconds": [...], "references": N}.
"""
import gc
import json
import sys
import time

import fsspec


def main():
    path, runs = sys.argv[1], int(sys.argv[2])
    seconds = []
    count = 0
    for _ in range(runs):
        gc.collect()
        start = time.perf_counter()
        with open(path, "rb") as f:
            obj = json.load(f)
        fs = fsspec.filesystem("reference", fo=obj, remote_protocol="file", skip_instance_cache=True)
        seconds.append(time.perf_counter() - start)
        count = len(fs.references)
        del fs, obj
    print(json.dumps({"load_seconds": seconds, "references": count}))


if __name__ == "__main__":
    main()
