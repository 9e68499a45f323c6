"""Cold reads of whole 64³ inner chunks, one at a time: a loop to profile (#42).

Reads every 64³ chunk of a 512³ uint16 sharded volume (as random_read_bench
writes it) once per pass, in a shuffled order, so that every read misses the
chunk cache: what a read costs that must fetch and decode one inner chunk
(the shard's index is read once per shard and pass). Between passes the
peer's cache is emptied. Prints the p50 and p99 latency of one read, CPU
milliseconds per read (user and system, every thread of the process) and
minor page faults per read.

  cw  chunkwise's module, chunkwise.set_cache_bytes(1 GiB), emptied by
      set_cache_bytes(0) between passes
  off chunkwise's module with the cache off
  ts  TensorStore, zarr3 driver, a Context with a 1 GiB cache_pool, new each pass

usage: PYTHONPATH=build/python .venv/bin/python bench/python/cold_chunk_reads.py \\
           VOLUME.zarr {cw,off,ts} [PASSES]
(VOLUME.zarr: e.g. random_read_bench's, kept with --dir; under perf: perf record -g ...)
"""

from __future__ import annotations

import os
import resource
import sys
import time

import numpy as np

CHUNK = 64


def opener(path: str, peer: str):
    """A function that empties the peer's cache and returns a box reader."""
    if peer in ("cw", "off"):
        import chunkwise

        array = chunkwise.open(path, mode="r")

        def fresh():
            chunkwise.set_cache_bytes(0)
            if peer == "cw":
                chunkwise.set_cache_bytes(1 << 30)
            return lambda o: array[o[0] : o[0] + CHUNK, o[1] : o[1] + CHUNK, o[2] : o[2] + CHUNK]

        return fresh
    import tensorstore as ts

    def fresh():
        context = ts.Context({"cache_pool": {"total_bytes_limit": 1 << 30}})
        spec = {"driver": "zarr3", "kvstore": {"driver": "file", "path": path},
                "recheck_cached_data": "open"}
        array = ts.open(spec, context=context, open=True, read=True).result()
        return lambda o: array[o[0] : o[0] + CHUNK, o[1] : o[1] + CHUNK,
                               o[2] : o[2] + CHUNK].read().result()

    return fresh


def main() -> int:
    if len(sys.argv) < 3 or sys.argv[2] not in ("cw", "off", "ts"):
        print(__doc__, file=sys.stderr)
        return 2
    path, peer = sys.argv[1], sys.argv[2]
    passes = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    origins = [[z * CHUNK, y * CHUNK, x * CHUNK] for z in range(8) for y in range(8)
               for x in range(8)]
    np.random.default_rng(1).shuffle(origins)
    fresh = opener(path, peer)
    seconds, cpu, faults = [], 0.0, 0
    for _ in range(passes):
        read = fresh()
        before = resource.getrusage(resource.RUSAGE_SELF)
        for origin in origins:
            start = time.perf_counter()
            read(origin)
            seconds.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_SELF)
        cpu += after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        faults += after.ru_minflt - before.ru_minflt
    n = len(seconds)
    seconds.sort()
    print(f"{peer}: p50 {seconds[n // 2] * 1e3:.3f} ms  p99 {seconds[int(0.99 * (n - 1))] * 1e3:.3f} ms"
          f"  cpu/rd {cpu / n * 1e3:.3f} ms  minflt/rd {faults / n:.1f}"
          f"  load {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
