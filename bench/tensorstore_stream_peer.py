"""A peer of bench/stream_bench.cc and bench/cuda/cuda_stream_bench.cc:
TensorStore writing the same frames in the same layout (zarr v3, shards of
128x512x512 holding 32x128x128 chunks, index at the end with crc32c) with the
same codec, as its users stream with it: a context with a cache pool and its
data copy and file I/O concurrency limited to THREADS, frames gathered into
one shard slab (128 frames) per `write()`, and each write's commit left to
finish while the next slab is gathered (at most two in flight).

usage: python tensorstore_stream_peer.py FRAMES.npy GIB CODEC KVSTORE DIR RUNS [THREADS]
FRAMES.npy: the distinct frames (stream_bench writes them; cuda_stream_bench
--write-frames), repeated to GIB GiB. CODEC: "none", "zstd:L",
"blosc:CNAME:CLEVEL:SHUFFLE" (CNAME lz4 or zstd; SHUFFLE noshuffle, shuffle
or bitshuffle) or "blosc:lz4" (clevel 5, shuffle). KVSTORE: "memory" (no
I/O, the discard sink's peer) or "file" (under DIR). THREADS: default the
machine's cores. Each run is timed from the open to the last commit, after an
untimed run of a quarter of the frames (as stream_bench warms its own paths).
Prints one JSON line: {"seconds": [...], "bytes": N, "gb_per_s": median}.
"""
import json
import os
import shutil
import statistics
import sys
import time

import numpy as np
import tensorstore as ts

SLAB = 128
CACHE_POOL_BYTES = 256 << 20
IN_FLIGHT = 2


def inner_codecs(codec):
    codecs = [{"name": "bytes", "configuration": {"endian": "little"}}]
    parts = codec.split(":")
    if codec == "blosc:lz4":
        parts = ["blosc", "lz4", "5", "shuffle"]
    if parts[0] == "zstd" and len(parts) == 2:
        codecs.append({"name": "zstd", "configuration": {"level": int(parts[1]), "checksum": False}})
    elif parts[0] == "blosc" and len(parts) == 4:
        codecs.append({"name": "blosc", "configuration": {
            "cname": parts[1], "clevel": int(parts[2]), "shuffle": parts[3], "typesize": 2,
            "blocksize": 0}})
    elif codec != "none":
        raise SystemExit(f"unknown codec {codec}")
    return codecs


def spec(frames, side, codec, kvstore, directory):
    store = {"driver": "memory"} if kvstore == "memory" else {"driver": "file", "path": directory}
    return {
        "driver": "zarr3",
        "kvstore": store,
        "metadata": {
            "shape": [frames, side, side],
            "data_type": "uint16",
            "chunk_grid": {"name": "regular",
                           "configuration": {"chunk_shape": [SLAB, 512, 512]}},
            "codecs": [{"name": "sharding_indexed", "configuration": {
                "chunk_shape": [32, 128, 128],
                "codecs": inner_codecs(codec),
                "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                                 {"name": "crc32c"}],
                "index_location": "end"}}],
        },
        "create": True,
        "delete_existing": True,
    }


def write_once(distinct, frames, codec, kvstore, directory, threads):
    shutil.rmtree(directory, ignore_errors=True)
    side = distinct.shape[1]
    context = ts.Context({
        "cache_pool": {"total_bytes_limit": CACHE_POOL_BYTES},
        "data_copy_concurrency": {"limit": threads},
        "file_io_concurrency": {"limit": threads},
    })
    start = time.perf_counter()
    array = ts.open(spec(frames, side, codec, kvstore, directory), context=context).result()
    slab = np.empty((SLAB, side, side), dtype=np.uint16)
    commits = []
    for first in range(0, frames, SLAB):
        n = min(SLAB, frames - first)
        for f in range(n):
            slab[f] = distinct[(first + f) % len(distinct)]
        written = array[first:first + n].write(slab[:n])
        written.copy.result()  # The slab may be refilled once TensorStore has copied it.
        commits.append(written.commit)
        if len(commits) > IN_FLIGHT:
            commits.pop(0).result()
    for commit in commits:
        commit.result()
    seconds = time.perf_counter() - start
    shutil.rmtree(directory, ignore_errors=True)
    return seconds


def main():
    if len(sys.argv) not in (7, 8):
        raise SystemExit(__doc__)
    frames_path, gib, codec, kvstore, directory, runs = sys.argv[1:7]
    threads = int(sys.argv[7]) if len(sys.argv) == 8 else os.cpu_count()
    distinct = np.load(frames_path)
    frame_bytes = distinct[0].nbytes
    frames = max(len(distinct), int(float(gib) * (1 << 30) / frame_bytes))
    write_once(distinct, max(len(distinct), frames // 4), codec, kvstore, directory, threads)
    seconds = [write_once(distinct, frames, codec, kvstore, directory, threads)
               for _ in range(int(runs))]
    total = frames * frame_bytes
    print(json.dumps({"seconds": seconds, "bytes": total,
                      "gb_per_s": total / 1e9 / statistics.median(seconds)}))


if __name__ == "__main__":
    main()
