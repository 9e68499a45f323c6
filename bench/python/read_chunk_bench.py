"""One warm cached chunk read two ways (#42): Array.read_chunk (a read-only view
of the cache's buffer, no copy) against array[chunk box] (a fresh copy).

CPU µs per call (the process's CPU time: the calling thread and any pool
thread a read wakes) and wall µs per call, medians over rounds in which the
two run alternately, with the load average beside them. The chunk is 64³
uint16 (512 KiB), in a sharded array (inner chunk 64³ of 128³ shards) and a
plain one; the cache is on and holds it before the first round.

    .venv/bin/python bench/python/read_chunk_bench.py   # PYTHONPATH=build/python
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

import chunkwise


def _per_call(read, calls: int) -> tuple[float, float]:
    cpu, wall = time.process_time_ns(), time.perf_counter_ns()
    for _ in range(calls):
        read()
    return ((time.process_time_ns() - cpu) / calls / 1e3,
            (time.perf_counter_ns() - wall) / calls / 1e3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    chunkwise.set_cache_bytes(256 << 20)
    data = np.random.default_rng(42).integers(0, 4096, (128, 128, 128), dtype=np.uint16)
    print(f"load average before: {os.getloadavg()}")
    for layout, shards in (("sharded 64³ in 128³", [128, 128, 128]), ("plain 64³", None)):
        array = chunkwise.create(f"memory://read_chunk_bench/{len(layout)}", data=data,
                                 chunks=[64, 64, 64], shards=shards, codecs="zstd:1")
        reads = {
            "read_chunk((1, 0, 1))": lambda: array.read_chunk((1, 0, 1)),
            "array[64:128, 0:64, 64:128]": lambda: array[64:128, 0:64, 64:128],
        }
        for read in reads.values():  # Warm: decoded into the cache.
            read()
        assert np.shares_memory(array.read_chunk((1, 0, 1)), array.read_chunk((1, 0, 1)))
        cpu: dict[str, list[float]] = {name: [] for name in reads}
        wall: dict[str, list[float]] = {name: [] for name in reads}
        for _ in range(args.rounds):
            for name, read in reads.items():  # Alternately, round by round.
                c, w = _per_call(read, args.calls)
                cpu[name].append(c)
                wall[name].append(w)
        medians = {name: statistics.median(values) for name, values in cpu.items()}
        for name in reads:
            print(f"{layout:20s} {name:28s} CPU {medians[name]:8.1f} µs/call  "
                  f"wall {statistics.median(wall[name]):8.1f} µs/call")
        names = list(reads)
        print(f"{layout:20s} CPU ratio array[box] / read_chunk: "
              f"{medians[names[1]] / medians[names[0]]:.1f}x")
    print(f"load average after: {os.getloadavg()}")
    print(f"cache: {chunkwise.cache_stats()}")
    chunkwise.set_cache_bytes(0)


if __name__ == "__main__":
    main()
