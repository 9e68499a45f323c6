"""Where the slowest reads of random_read_bench lose their time (#42).

random_read_bench's local peers read the same random 64³ boxes of the same
volume, cold then warm, each in a process of its own; this script records,
for every read, what the kernel counts for the thread that read it
(getrusage RUSAGE_THREAD) and for the process (RUSAGE_SELF) between the
read's start and end:

  cpu     the reading thread's CPU time (user + system), ms
  pcpu    the process's (every thread's: a pool's or a peer's own workers), ms
  flt     minor page faults of the process (fresh memory, or memory the
          allocator gave back and takes again)
  vcs     voluntary context switches of the reading thread: it slept, waiting
          for a lock, a condition variable, a future or I/O
  pvcs    the same for the whole process (pool threads woken and waiting)
  ivcs    involuntary context switches of the reading thread: it was runnable
          and the kernel ran another task instead (preemption; on a loaded
          machine, it then waits in the run queue)

For each peer and pass it prints p50 and p99 latency, p50 and p99 of the
process's CPU time per read (which the machine's load stretches far less
than latency), then the means of those counts per read over all reads and
over the slowest 1 % (those at or above p99). A tail whose reads sleep (vcs, pvcs) waits for other threads;
one whose reads fault (flt) maps memory; one whose reads are preempted
(ivcs) with a CPU time near p50's waits for a CPU: the machine's load, not
the read's work.

usage: PYTHONPATH=build/python .venv/bin/python bench/python/read_tail_causes.py \
           [--size-mib 256] [--reads 1000] [--cache-mib 1024] [--peers cw,ts] [--dir DIR]
"""

from __future__ import annotations

import argparse
import json
import pathlib
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import random_read_bench as bench

LOCAL_PEERS = ["cw", "cw-off", "cw-co", "ts", "zp-3", "zp-zarrs"]
COUNTS = ["cpu", "pcpu", "flt", "vcs", "pvcs", "ivcs"]


def usage() -> tuple[float, float, int, int, int, int]:
    """CPU seconds of this thread and of the process, minor faults, voluntary
    switches of this thread and of the process, and involuntary switches of
    this thread, as `COUNTS` orders them."""
    # The CPU clocks, not getrusage's times: a thread's are brought up to date
    # only at the scheduler's tick, so a read's would be off by up to a tick.
    thread = resource.getrusage(resource.RUSAGE_THREAD)
    process = resource.getrusage(resource.RUSAGE_SELF)
    return (time.thread_time(), time.process_time(), process.ru_minflt, thread.ru_nvcsw,
            process.ru_nvcsw, thread.ru_nivcsw)


def run_peer(peer: str, path: pathlib.Path, origins: list[list[int]], cache_bytes: int) -> dict:
    """Both passes: per read, its seconds and the counts of COUNTS."""
    read = bench.reader(peer, path, cache_bytes, None)
    passes = {}
    for name in ("cold", "warm"):
        rows = []
        for origin in origins:
            before = usage()
            start = time.perf_counter()
            box = read(origin)
            seconds = time.perf_counter() - start
            after = usage()
            rows.append([seconds] + [end - begin for begin, end in zip(before, after)])
            # Untimed, as random_read_bench's checksum: the same work between reads.
            int(np.asarray(box, dtype=np.uint64).sum())
        passes[name] = rows
    return passes


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def report(peer: str, name: str, rows: list[list[float]]) -> str:
    walls = [row[0] for row in rows]
    p99 = percentile(walls, 0.99)
    slowest = [row for row in rows if row[0] >= p99]
    process_cpu = [row[2] for row in rows]

    def means(group: list[list[float]]) -> str:
        cpu = [statistics.fmean(row[i] for row in group) * 1e3 for i in (1, 2)]
        counts = [statistics.fmean(row[i] for row in group) for i in range(3, 7)]
        return "".join(f"{ms:8.3f}" for ms in cpu) + "".join(f"{count:8.2f}" for count in counts)

    wall = statistics.fmean(row[0] for row in slowest) * 1e3
    return (f"{peer:<9}{name:<6}{percentile(walls, 0.5) * 1e3:8.3f}{p99 * 1e3:8.2f}"
            f"{percentile(process_cpu, 0.5) * 1e3:8.3f}{percentile(process_cpu, 0.99) * 1e3:8.3f} | "
            f"{means(rows)} | {len(slowest):4d}{wall:8.2f}{means(slowest)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size-mib", type=int, default=256)
    parser.add_argument("--reads", type=int, default=1000)
    parser.add_argument("--cache-mib", type=int, default=1024)
    parser.add_argument("--peers", default="cw,ts")
    parser.add_argument("--dir", type=pathlib.Path, default=None)
    parser.add_argument("--peer", help=argparse.SUPPRESS)  # A child: run one peer, print JSON.
    parser.add_argument("--path", type=pathlib.Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    origins = bench.boxes_of(bench.shape_for(args.size_mib), args.reads)
    if args.peer:
        print(json.dumps(run_peer(args.peer, args.path, origins, args.cache_mib << 20)))
        return 0
    peers = args.peers.split(",")
    for peer in peers:
        if peer not in LOCAL_PEERS:
            raise SystemExit(f"unknown peer {peer!r}; local peers: {', '.join(LOCAL_PEERS)}")
    work = pathlib.Path(tempfile.mkdtemp(prefix="read_tail_causes.", dir=args.dir))
    try:
        path = work / "volume.zarr"
        bench.write_volume(path, bench.shape_for(args.size_mib))
        print(f"{args.reads} random 64^3 reads of a {args.size_mib} MiB volume per pass; "
              "(ms of wall and of the process's CPU per read), then means per read, "
              "of all reads and of the slowest 1 %")
        columns = "".join(f"{column:>8}" for column in COUNTS)
        print(f"{'peer':<9}{'pass':<6}{'p50 ms':>8}{'p99 ms':>8}{'cpu p50':>8}{'cpu p99':>8} | "
              f"{columns} | "
              f"{'n':>4}{'wall ms':>8}{columns}")
        for peer in peers:
            child = subprocess.run(
                [sys.executable, __file__, "--peer", peer, "--path", str(path), "--size-mib",
                 str(args.size_mib), "--reads", str(args.reads), "--cache-mib",
                 str(args.cache_mib)], capture_output=True, text=True)
            if child.returncode != 0:
                print(f"{peer}: failed\n{child.stderr}", file=sys.stderr)
                return 1
            passes = json.loads(child.stdout.strip().splitlines()[-1])
            for name in ("cold", "warm"):
                print(report(peer, name, passes[name]), flush=True)
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
