"""A peer of bench/zarr_bench.cc: TensorStore writing and reading the same
volume in the same layout (zarr v3, shards of 256³ holding 64³ chunks, index
at the end with crc32c) with the same codec, from and into one numpy array.
It runs where TensorStore is installed (the GPU machine's Python); Debian 12
has none.

usage: python3 tensorstore_zarr_peer.py VOLUME.npy STORE_DIR CODEC RUNS THREADS
CODEC: "zstd:1" or "blosc:lz4:5:shuffle". THREADS bounds TensorStore's copy
and file I/O concurrency, as the pool does ours. Prints one JSON line:
{"write_seconds": [...], "read_seconds": [...], "bytes": N}.
"""
import json
import shutil
import sys
import time

import numpy as np
import tensorstore as ts


def inner_codecs(codec):
    codecs = [{"name": "bytes", "configuration": {"endian": "little"}}]
    if codec == "zstd:1":
        codecs.append({"name": "zstd", "configuration": {"level": 1, "checksum": False}})
    elif codec == "blosc:lz4:5:shuffle":
        codecs.append({"name": "blosc", "configuration": {
            "cname": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": 2, "blocksize": 0}})
    else:
        raise SystemExit(f"unknown codec {codec}")
    return codecs


def spec(shape, codec, directory, threads, create):
    result = {
        "driver": "zarr3",
        "kvstore": {"driver": "file", "path": directory},
        "context": {"data_copy_concurrency": {"limit": threads},
                    "file_io_concurrency": {"limit": threads}},
    }
    if create:
        result["metadata"] = {
            "shape": list(shape),
            "data_type": "uint16",
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [256, 256, 256]}},
            "codecs": [{"name": "sharding_indexed", "configuration": {
                "chunk_shape": [64, 64, 64],
                "codecs": inner_codecs(codec),
                "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                                 {"name": "crc32c"}],
                "index_location": "end"}}],
        }
        result["create"] = True
        result["delete_existing"] = True
    return result


def main():
    volume_path, store_dir, codec = sys.argv[1], sys.argv[2], sys.argv[3]
    runs, threads = int(sys.argv[4]), int(sys.argv[5])
    data = np.load(volume_path)
    # Reads go into one array allocated and touched once, as ours do: a
    # TensorStore view of it is the target of each read.
    back = np.zeros_like(data)
    target = ts.array(back, copy=False, write=True)
    writes, reads = [], []
    for _ in range(runs):
        shutil.rmtree(store_dir, ignore_errors=True)
        array = ts.open(spec(data.shape, codec, store_dir, threads, True)).result()
        start = time.perf_counter()
        array.write(data).result()
        writes.append(time.perf_counter() - start)
        array = ts.open(spec(data.shape, codec, store_dir, threads, False)).result()
        start = time.perf_counter()
        target.write(array).result()
        reads.append(time.perf_counter() - start)
        if not np.array_equal(back, data):
            raise SystemExit("tensorstore read back differs from what it wrote")
    shutil.rmtree(store_dir, ignore_errors=True)
    print(json.dumps({"write_seconds": writes, "read_seconds": reads, "bytes": data.nbytes}))


if __name__ == "__main__":
    main()
