"""The peer of bench/zarr_bench.cc: python3-zarr 2.13 writing and reading the same
volume as a v2 array with 64³ chunks and the same codec.

usage: /usr/bin/python3 zarr_python_peer.py VOLUME.npy STORE_DIR CODEC RUNS
CODEC: "zstd:1" or "blosc:lz4:5:shuffle". Prints one JSON line:
{"write_seconds": [...], "read_seconds": [...], "bytes": N, "plane_seconds": [...],
"planes": P}: plane_seconds are each run's reads of one z plane in every 64-deep
layer of chunks (plane 21 of each), as zarr_bench times its own.
"""
import json
import shutil
import sys
import time

import numcodecs
import numpy as np
import zarr


def main():
    volume_path, store_dir, codec, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    data = np.load(volume_path)
    if codec == "zstd:1":
        compressor = numcodecs.Zstd(level=1)
    elif codec == "blosc:lz4:5:shuffle":
        compressor = numcodecs.Blosc(cname="lz4", clevel=5, shuffle=1)
    else:
        raise SystemExit(f"unknown codec {codec}")
    writes, reads, plane_reads = [], [], []
    planes = range(21, data.shape[0], 64)
    for _ in range(runs):
        shutil.rmtree(store_dir, ignore_errors=True)
        array = zarr.open(store_dir, mode="w", shape=data.shape, chunks=(64, 64, 64), dtype=data.dtype,
                          compressor=compressor, fill_value=0)
        start = time.perf_counter()
        array[:] = data
        writes.append(time.perf_counter() - start)
        start = time.perf_counter()
        back = zarr.open(store_dir, mode="r")[:]
        reads.append(time.perf_counter() - start)
        assert np.array_equal(back, data)
        array = zarr.open(store_dir, mode="r")
        start = time.perf_counter()
        read_planes = [array[z] for z in planes]
        plane_reads.append(time.perf_counter() - start)
        assert all(np.array_equal(plane, data[z]) for plane, z in zip(read_planes, planes))
    shutil.rmtree(store_dir, ignore_errors=True)
    print(json.dumps({"write_seconds": writes, "read_seconds": reads, "bytes": data.nbytes,
                      "plane_seconds": plane_reads, "planes": len(planes)}))


if __name__ == "__main__":
    main()
