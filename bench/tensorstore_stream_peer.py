"""The peer of bench/cuda/cuda_stream_bench.cc: TensorStore writing the same
frames in the same layout (zarr v3, shards of 128x512x512 holding 32x128x128
chunks, index at the end with crc32c) with the same codec. It runs where
TensorStore is installed (the GPU machine's Python); Debian 12 has none.

usage: python3 tensorstore_stream_peer.py FRAMES.npy GIB CODEC KVSTORE DIR RUNS
FRAMES.npy: the distinct frames (cuda_stream_bench --write-frames), repeated
to GIB GiB. CODEC: "none" or "blosc:lz4" (clevel 5, shuffle). KVSTORE:
"memory" (no I/O, the discard sink's peer) or "file" (under DIR). Frames are
written one shard slab (128 frames) at a time. Prints one JSON line:
{"seconds": [...], "bytes": N, "gb_per_s": median}.
"""
import json
import shutil
import statistics
import sys
import time

import numpy as np
import tensorstore as ts

SLAB = 128


def inner_codecs(codec):
    codecs = [{"name": "bytes", "configuration": {"endian": "little"}}]
    if codec == "blosc:lz4":
        codecs.append({"name": "blosc", "configuration": {
            "cname": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": 2, "blocksize": 0}})
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


def write_once(distinct, frames, codec, kvstore, directory):
    shutil.rmtree(directory, ignore_errors=True)
    side = distinct.shape[1]
    start = time.perf_counter()
    array = ts.open(spec(frames, side, codec, kvstore, directory)).result()
    slab = np.empty((SLAB, side, side), dtype=np.uint16)
    for first in range(0, frames, SLAB):
        n = min(SLAB, frames - first)
        for f in range(n):
            slab[f] = distinct[(first + f) % len(distinct)]
        array[first:first + n].write(slab[:n]).result()
    seconds = time.perf_counter() - start
    shutil.rmtree(directory, ignore_errors=True)
    return seconds


def main():
    frames_path, gib, codec, kvstore, directory, runs = sys.argv[1:7]
    distinct = np.load(frames_path)
    frame_bytes = distinct[0].nbytes
    frames = max(len(distinct), int(float(gib) * (1 << 30) / frame_bytes))
    seconds = [write_once(distinct, frames, codec, kvstore, directory) for _ in range(int(runs))]
    total = frames * frame_bytes
    print(json.dumps({"seconds": seconds, "bytes": total,
                      "gb_per_s": total / 1e9 / statistics.median(seconds)}))


if __name__ == "__main__":
    main()
