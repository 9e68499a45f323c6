"""chunkwise and TensorStore reading the same random 64³ boxes in one process, read by read (#42).

random_read_bench runs each peer in a process of its own, one after the
other, so on a shared machine its p99s compare the load of different
minutes: the same peer's warm p99 moved from 0.3 to 8 ms between two of its
rows. Here both readers live in one process and take turns: box k is read
by one, then by the other (which goes first alternates), so that both meet
the same load, and their p99s can be compared in one run. Between reads,
as in random_read_bench, the box is summed (untimed).

Peers: `cw` (chunkwise's module, chunkwise.set_cache_bytes(--cache-mib)) and
`ts` (TensorStore's zarr3 driver with a cache pool of --cache-mib), both as
random_read_bench sets them up; with --http, both read through one
`chunkwise serve` of the volume (cw-http and ts-http). The volume is
random_read_bench's (sharded, or with --unsharded plain 64³ chunks); the
cold pass comes first, then the warm one over the same boxes.

usage: PYTHONPATH=build/python .venv/bin/python bench/python/paired_read_bench.py \
           [--size-mib 256] [--reads 1000] [--cache-mib 1024] [--unsharded] [--http]
           [--chunkwise build/chunkwise] [--dir DIR]
"""

from __future__ import annotations

import argparse
import pathlib
import shutil
import statistics
import sys
import tempfile
import time

import numpy as np

import random_read_bench as bench


def percentile(seconds: list[float], fraction: float) -> float:
    ordered = sorted(seconds)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size-mib", type=int, default=256)
    parser.add_argument("--reads", type=int, default=1000)
    parser.add_argument("--cache-mib", type=int, default=1024)
    parser.add_argument("--unsharded", action="store_true", help="plain 64^3 chunks, no shards")
    parser.add_argument("--http", action="store_true", help="both through `chunkwise serve`")
    parser.add_argument("--chunkwise", type=pathlib.Path, default=pathlib.Path("build/chunkwise"),
                        help="the CLI that serves the volume with --http")
    parser.add_argument("--dir", type=pathlib.Path, default=None)
    args = parser.parse_args()
    shape = bench.shape_for(args.size_mib)
    origins = bench.boxes_of(shape, args.reads)
    work = pathlib.Path(tempfile.mkdtemp(prefix="paired_read_bench.", dir=args.dir))
    server = None
    try:
        path = work / "volume.zarr"
        bench.write_volume(path, shape, not args.unsharded)
        url = None
        peers = ["cw", "ts"]
        if args.http:
            server, url, _ = bench.serve(args.chunkwise, work, "paired")
            peers = ["cw-http", "ts-http"]
        readers = {peer: bench.reader(peer, path, args.cache_mib << 20, url) for peer in peers}
        layout = "plain 64^3 chunks" if args.unsharded else "shards 256^3 of 64^3 chunks"
        print(f"{args.reads} random 64^3 reads of a {args.size_mib} MiB volume ({layout}) per "
              f"pass, {' and '.join(peers)} taking turns in one process; ms")
        print(f"{'pass':<6}" + "".join(f"{peer + ' p50':>13}{peer + ' p99':>13}" for peer in peers)
              + f"{'p50 ratio':>11}{'p99 ratio':>11}")
        for name in ("cold", "warm"):
            seconds: dict[str, list[float]] = {peer: [] for peer in peers}
            for k, origin in enumerate(origins):
                for peer in peers if k % 2 == 0 else peers[::-1]:
                    start = time.perf_counter()
                    box = readers[peer](origin)
                    seconds[peer].append(time.perf_counter() - start)
                    int(np.asarray(box, dtype=np.uint64).sum())
            p50 = {peer: statistics.median(seconds[peer]) * 1e3 for peer in peers}
            p99 = {peer: percentile(seconds[peer], 0.99) * 1e3 for peer in peers}
            ours, theirs = peers
            print(f"{name:<6}" + "".join(f"{p50[peer]:13.3f}{p99[peer]:13.2f}" for peer in peers)
                  + f"{p50[theirs] / p50[ours]:11.2f}{p99[theirs] / p99[ours]:11.2f}", flush=True)
        return 0
    finally:
        if server is not None:
            server.terminate()
            server.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
