"""A peer of bench/precomputed_bench.cc: TensorStore writing a uint64 label
volume, held in one numpy array, as a sharded compressed_segmentation
neuroglancer precomputed volume with the info chunkwise wrote (male CNS
sharding, gzip data and minishard indexes) — as braid's pipeline has
TensorStore write it.

usage: python3 tensorstore_precomputed_peer.py VOLUME.raw Z,Y,X INFO STORE_DIR RUNS THREADS
VOLUME.raw is the z,y,x C-order uint64 volume; it is loaded before timing.
THREADS bounds TensorStore's data-copy and file-I/O concurrency, as the pool
does ours; a cache pool is given as its users configure it. Prints one JSON
line: {"write_seconds": [...]}.
"""
import json
import pathlib
import shutil
import sys
import time

import numpy as np
import tensorstore as ts


def main():
    raw, shape_text, info_path, directory, runs, threads = sys.argv[1:7]
    shape = tuple(int(v) for v in shape_text.split(","))
    volume = np.fromfile(raw, dtype="<u8").reshape(shape)
    info = json.loads(pathlib.Path(info_path).read_text())
    threads = int(threads)
    seconds = []
    for _ in range(int(runs)):
        shutil.rmtree(directory, ignore_errors=True)
        pathlib.Path(directory).mkdir(parents=True)
        (pathlib.Path(directory) / "info").write_text(json.dumps(info))
        start = time.perf_counter()
        store = ts.open({
            "driver": "neuroglancer_precomputed",
            "kvstore": {"driver": "file", "path": directory + "/"},
            "scale_index": 0,
            "open": True,
            "context": {"data_copy_concurrency": {"limit": threads},
                        "file_io_concurrency": {"limit": threads},
                        "cache_pool": {"total_bytes_limit": 1 << 30}},
        }).result()
        store[..., 0].write(volume.transpose(2, 1, 0)).result()
        seconds.append(time.perf_counter() - start)
    shutil.rmtree(directory, ignore_errors=True)
    print(json.dumps({"write_seconds": seconds}))


if __name__ == "__main__":
    main()
