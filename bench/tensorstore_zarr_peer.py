"""A peer of bench/zarr_bench.cc: TensorStore writing and reading the same
volume in the same layout (zarr v3, shards of 256³ holding 64³ chunks, index
at the end with crc32c) with the same codec, as its users set it up: a
context with a cache pool and its data copy and file I/O concurrency limited
to THREADS (as the pool does ours), and `write()` / `read()` futures.

usage: python tensorstore_zarr_peer.py throughput VOLUME.npy STORE_DIR CODEC RUNS THREADS
       python tensorstore_zarr_peer.py zarrs-case VOLUME.npy SOURCE_DIR STORE_DIR RUNS THREADS
CODEC: "zstd:L" or "blosc:lz4:5:shuffle".

throughput: `write(volume)` into a fresh array, `read()` of all of it from a
fresh handle (a new context, so nothing comes from the cache pool), and one
z plane per 64-deep layer of chunks (plane 21 of each), RUNS times. Prints
{"write_seconds", "read_seconds", "bytes", "plane_seconds", "planes"}.

zarrs-case (the zarrs benchmark's own case): SOURCE_DIR holds an array that
zarr_bench wrote (1024³ uint16, 256³ shards of 64³ chunks, zstd level 0).
"roundtrip": `read()` it whole and `write()` it into a new array with the
same metadata under STORE_DIR; "chunks": `read()` one 256³ chunk (shard)
after another. An untimed pass first checks every chunk against VOLUME.npy.
Prints {"roundtrip_seconds", "chunk_seconds", "bytes"}.
"""
import json
import shutil
import sys
import time

import numpy as np
import tensorstore as ts

PLANE_IN_LAYER = 21
CHUNK = 64
SHARD = 256
CACHE_POOL_BYTES = 256 << 20  # Holds a few shards' indexes and chunks; reads are from fresh contexts.


def context(threads):
    return ts.Context({
        "cache_pool": {"total_bytes_limit": CACHE_POOL_BYTES},
        "data_copy_concurrency": {"limit": threads},
        "file_io_concurrency": {"limit": threads},
    })


def inner_codecs(codec):
    codecs = [{"name": "bytes", "configuration": {"endian": "little"}}]
    if codec.startswith("zstd:"):
        codecs.append({"name": "zstd",
                       "configuration": {"level": int(codec.split(":")[1]), "checksum": False}})
    elif codec == "blosc:lz4:5:shuffle":
        codecs.append({"name": "blosc", "configuration": {
            "cname": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": 2, "blocksize": 0}})
    else:
        raise SystemExit(f"unknown codec {codec}")
    return codecs


def metadata(shape, codec):
    return {
        "shape": list(shape),
        "data_type": "uint16",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [SHARD] * 3}},
        "codecs": [{"name": "sharding_indexed", "configuration": {
            "chunk_shape": [CHUNK] * 3,
            "codecs": inner_codecs(codec),
            "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                             {"name": "crc32c"}],
            "index_location": "end"}}],
    }


def open_array(directory, threads, create_metadata=None):
    spec = {"driver": "zarr3", "kvstore": {"driver": "file", "path": directory},
            "recheck_cached_data": "open"}
    if create_metadata is None:
        return ts.open(spec, context=context(threads), open=True).result()
    shutil.rmtree(directory, ignore_errors=True)
    spec["metadata"] = create_metadata
    return ts.open(spec, context=context(threads), create=True, delete_existing=True).result()


def throughput(volume_path, store_dir, codec, runs, threads):
    data = np.load(volume_path)
    planes = range(PLANE_IN_LAYER, data.shape[0], CHUNK)
    writes, reads, plane_reads = [], [], []
    for _ in range(runs):
        array = open_array(store_dir, threads, metadata(data.shape, codec))
        start = time.perf_counter()
        array.write(data).result()
        writes.append(time.perf_counter() - start)
        array = open_array(store_dir, threads)
        start = time.perf_counter()
        back = array.read().result()
        reads.append(time.perf_counter() - start)
        if not np.array_equal(back, data):
            raise SystemExit("tensorstore read back other values than it wrote")
        del back
        array = open_array(store_dir, threads)
        start = time.perf_counter()
        read_planes = [array[z].read().result() for z in planes]
        plane_reads.append(time.perf_counter() - start)
        if not all(np.array_equal(p, data[z]) for p, z in zip(read_planes, planes)):
            raise SystemExit("tensorstore read other plane values than it wrote")
    shutil.rmtree(store_dir, ignore_errors=True)
    return {"write_seconds": writes, "read_seconds": reads, "bytes": data.nbytes,
            "plane_seconds": plane_reads, "planes": len(planes)}


def chunk_boxes(shape):
    for z in range(0, shape[0], SHARD):
        for y in range(0, shape[1], SHARD):
            for x in range(0, shape[2], SHARD):
                yield (slice(z, z + SHARD), slice(y, y + SHARD), slice(x, x + SHARD))


def zarrs_case(volume_path, source_dir, store_dir, runs, threads):
    volume = np.load(volume_path, mmap_mode="r")
    source = open_array(source_dir, threads)
    for box in chunk_boxes(source.shape):  # Untimed: every chunk has our values.
        if not np.array_equal(source[box].read().result(), volume[box]):
            raise SystemExit(f"tensorstore read other values than zarr_bench wrote at {box}")
    roundtrips, chunk_reads = [], []
    for _ in range(runs):
        start = time.perf_counter()
        source = open_array(source_dir, threads)
        data = source.read().result()
        target = open_array(store_dir, threads, source.spec().to_json()["metadata"])
        target.write(data).result()
        roundtrips.append(time.perf_counter() - start)
        if not np.array_equal(data, volume):
            raise SystemExit("tensorstore round trip read other values")
        del data
        source = open_array(source_dir, threads)
        start = time.perf_counter()
        for box in chunk_boxes(source.shape):
            source[box].read().result()
        chunk_reads.append(time.perf_counter() - start)
    shutil.rmtree(store_dir, ignore_errors=True)
    return {"roundtrip_seconds": roundtrips, "chunk_seconds": chunk_reads,
            "bytes": volume.nbytes}


def main():
    if len(sys.argv) != 7:
        raise SystemExit(__doc__)
    mode, runs, threads = sys.argv[1], int(sys.argv[5]), int(sys.argv[6])
    if mode == "throughput":
        result = throughput(sys.argv[2], sys.argv[3], sys.argv[4], runs, threads)
    elif mode == "zarrs-case":
        result = zarrs_case(sys.argv[2], sys.argv[3], sys.argv[4], runs, threads)
    else:
        raise SystemExit(f"unknown mode {mode}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
