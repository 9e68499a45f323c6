#!/usr/bin/env python3
"""MPI scaling: export-shards, to-precomputed, zarr convert, zarr import and refs build at 1, 2 and 3 ranks.

One process (no mpirun) is the baseline; then `mpirun -np N` for N in
--ranks, each rank with --workers-per-rank threads (default 1, so N ranks use
N cores). Prints, per command and N: the median wall time of --repeats runs,
the rate, the speedup over one process and the parallel efficiency
(speedup / N), and checks that every output file is byte-identical to the
one-process output (export.log, which holds timings, aside).

On the 2-core development machine, 3 ranks oversubscribe the cores: the
efficiency at N = 3 measures the machine, not the code. The physical limit is
min(N, cores) x the one-rank rate.

zarr convert has no thread option: each rank runs its thread pool over all cores.
to-precomputed converts the export-shards output; zarr import reads the
convert source as one .npy file; refs build references the converted
(sharded) array. --only picks commands (comma-separated names).

usage: bench/mpi_scale.py --chunkwise build/chunkwise [--workdir DIR] [--tiles 1,4,4] [--ranks 1,2,3]
                          [--only "export-shards,to-precomputed"]
"""
import argparse
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import time

import numpy as np

ENV = {**os.environ, "OMPI_MCA_btl_vader_single_copy_mechanism": "none"}


def run(args):
    result = subprocess.run([str(a) for a in args], capture_output=True, text=True, env=ENV)
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(map(str, args))} failed:\n{result.stderr}")


def files(root):
    root = pathlib.Path(root)
    if root.is_file():
        return {"(the file)": root.read_bytes()}
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != "export.log" and ".tmp." not in p.name}


def job_rate(out):
    """The export's own blocks/s (export.log, the job's time without the launcher's start)."""
    log = pathlib.Path(out) / "export.log"
    if not log.exists():
        return ""
    total = [line for line in log.read_text().splitlines() if line.startswith("total:")]
    return f"  in-job {total[0].rsplit(', ', 1)[-1]}" if total else ""


def timed(command, out, repeats):
    times = []
    for _ in range(repeats):
        shutil.rmtree(out, ignore_errors=True)
        pathlib.Path(out).unlink(missing_ok=True)
        start = time.perf_counter()
        run(command)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunkwise", default="build/chunkwise")
    parser.add_argument("--mpirun", default=shutil.which("mpirun") or "mpirun")
    parser.add_argument("--workdir", default="/tmp/chunkwise-mpi-scale")
    parser.add_argument("--tiles", default="2,4,4", help="z,y,x tiles of 256^3 voxels (export)")
    parser.add_argument("--convert-tiles", default="1,2,2", help="z,y,x tiles of the zarr convert source")
    parser.add_argument("--ranks", default="1,2,3")
    parser.add_argument("--workers-per-rank", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", default="", help="commands to run, e.g. to-precomputed,refs build")
    args = parser.parse_args()
    binary = pathlib.Path(args.chunkwise).resolve()
    work = pathlib.Path(args.workdir)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    # A generated segmentation tile (`chunkwise generate`), ingested and written at
    # offsets to tile a bigger volume without a big .npy.
    tile = 256
    tiles = [int(t) for t in args.tiles.split(",")]
    shape = [tile * t for t in tiles]
    run([binary, "-q", "generate", "--shape", f"{tile},{tile},{tile}", "--neurons", "60",
         "--labels", work / "tile.npy"])
    db = work / "labels.db"
    source = work / "source.zarr"
    convert_tiles = [int(t) for t in args.convert_tiles.split(",")]
    convert_shape = [tile * t for t in convert_tiles]
    run([binary, "-q", "zarr", "create", source, "--shape", ",".join(map(str, convert_shape)),
         "--chunk", "64,64,64", "--dtype", "uint64", "--codec", "zstd:1"])
    for index in np.ndindex(*tiles):
        offset = ",".join(str(i * tile) for i in index)
        run([binary, "-q", "dvid", "ingest", db, "--input", work / "tile.npy", "--offset", offset])
    for index in np.ndindex(*convert_tiles):
        offset = ",".join(str(i * tile) for i in index)
        run([binary, "-q", "zarr", "write", source, "--input", work / "tile.npy", "--offset", offset])
    blocks = int(np.prod([s // 64 for s in shape]))
    nbytes = int(np.prod(convert_shape)) * 8
    # Box shards of 4x4x4 blocks (DVID's layout), named by origin.
    grid_bits = sum((s // 64 - 1).bit_length() for s in shape)
    spec = {"@type": "neuroglancer_multiscale_volume", "type": "segmentation", "data_type": "uint64",
            "num_channels": 1,
            "scales": [{"key": "s0", "size": shape[::-1], "resolution": [8] * 3, "chunk_sizes": [[64] * 3],
                        "encoding": "compressed_segmentation",
                        "sharding": {"@type": "neuroglancer_uint64_sharded_v1", "preshift_bits": 3,
                                     "hash": "identity", "minishard_bits": 3,
                                     "shard_bits": max(grid_bits - 6, 1),
                                     "minishard_index_encoding": "gzip", "data_encoding": "gzip"}}]}
    (work / "spec.json").write_text(json.dumps(spec))
    n = "x".join(map(str, shape))

    run([binary, "-q", "zarr", "read", source, "--output", work / "source.npy"])
    threads = ["--threads", str(args.workers_per_rank)]
    # Later commands read what earlier ones wrote (the one-process outputs).
    jobs = {
        "export-shards": (lambda out: ["dvid", "export-shards", db, work / "spec.json", out,
                                       "--workers", str(args.workers_per_rank)], blocks, "blocks/s"),
        "to-precomputed": (lambda out: ["dvid", "to-precomputed", work / "export-shards-one", out,
                                        *threads], blocks, "blocks/s"),
        "zarr convert": (lambda out: ["zarr", "convert", source, out, "--shard", "128,128,128",
                                      "--codec", "zstd:3"], nbytes / 1e6, "MB/s"),
        "zarr import": (lambda out: ["zarr", "import", work / "source.npy", out, "--chunk", "64,64,64",
                                     "--shard", "128,128,128", "--codec", "zstd:3", *threads],
                        nbytes / 1e6, "MB/s"),
        "refs build": (lambda out: ["refs", "build", work / "zarr_convert-one", "--output", out],
                       nbytes / 1e6, "MB/s"),
    }
    wanted = [name.strip() for name in args.only.split(",") if name.strip()]
    needed = set(wanted) | ({"export-shards"} if "to-precomputed" in wanted else set()) \
        | ({"zarr convert"} if "refs build" in wanted else set())
    print(f"export: {n} (z,y,x), {blocks} blocks; convert: {'x'.join(map(str, convert_shape))} uint64, "
          f"{nbytes / 1e6:.0f} MB; {os.cpu_count()} cores; "
          f"{args.workers_per_rank} thread(s) per rank; median of {args.repeats}")
    print(f"{'command':14} {'ranks':>5} {'seconds':>8} {'rate':>12} {'speedup':>8} {'efficiency':>10} identical")
    for name, (command, units, unit) in jobs.items():
        if wanted and name not in needed:
            continue
        reference = work / f"{name.replace(' ', '_')}-one"
        if wanted and name not in wanted:  # Only an input of a wanted command.
            run([binary, "-q", *command(reference)])
            continue
        base = timed([binary, "-q", *command(reference)], reference, args.repeats)
        expected = files(reference)
        print(f"{name:14} {'1*':>5} {base:8.2f} {units / base:10.0f} {unit} {1.0:8.2f} {1.0:10.2f} (one process){job_rate(reference)}")
        for ranks in [int(r) for r in args.ranks.split(",")]:
            out = work / f"{name.replace(' ', '_')}-{ranks}"
            launcher = [args.mpirun, "--oversubscribe", "--allow-run-as-root", "-np", str(ranks)]
            seconds = timed([*launcher, binary, "-q", *command(out)], out, args.repeats)
            speedup = base / seconds
            same = files(out) == expected
            print(f"{name:14} {ranks:5} {seconds:8.2f} {units / seconds:10.0f} {unit} {speedup:8.2f} "
                  f"{speedup / ranks:10.2f} {'yes' if same else 'NO'}{job_rate(out)}")


if __name__ == "__main__":
    main()
