"""A peer of bench/zarr_bench.cc: zarr-python 3 writing and reading the same
volume in the same layout (zarr v3, shards of 256³ holding 64³ chunks, index
at the end with crc32c) with the same codec, as its users set it up.

usage: python zarr3_peer.py PIPELINE throughput VOLUME.npy STORE_DIR CODEC RUNS THREADS
       python zarr3_peer.py PIPELINE zarrs-case VOLUME.npy SOURCE_DIR STORE_DIR RUNS THREADS
PIPELINE: "default" (zarr-python's own BatchedCodecPipeline) or "zarrs" (the
Rust ZarrsCodecPipeline of the zarrs package). CODEC: "zstd:L" or
"blosc:lz4:5:shuffle". THREADS: zarr's codec thread pool
(threading.max_workers) and, with zarrs, its chunk concurrency, as the pool
does ours. The configuration is `configure` below and docs/benchmarks.md.

throughput: `arr[:] = volume` into a fresh array, then `arr[:]` from a fresh
handle, and one z plane per 64-deep layer of chunks (plane 21 of each), RUNS
times. Prints {"write_seconds", "read_seconds", "bytes", "plane_seconds",
"planes"}.

zarrs-case (the zarrs benchmark's own case): SOURCE_DIR holds an array that
zarr_bench wrote (1024³ uint16, 256³ shards of 64³ chunks, zstd level 0).
"roundtrip": read it whole and write it into a new array with the same
metadata under STORE_DIR; "chunks": read it one 256³ chunk (shard) after
another. An untimed pass first checks every chunk against VOLUME.npy. Prints
{"roundtrip_seconds", "chunk_seconds", "bytes"}.
"""
import json
import shutil
import sys
import time

import numpy as np
import zarr
from zarr.codecs import BloscCodec, BytesCodec, ZstdCodec
from zarr.storage import LocalStore

PLANE_IN_LAYER = 21
CHUNK = 64
SHARD = 256
# zarr-python's default is 10 concurrent chunk (shard) operations. On the
# 2-core VM 10 and 64 measured alike (alternating runs of a 256 MiB volume);
# 64 lets every shard of the 1 GiB volume be in flight at once on larger hosts.
ASYNC_CONCURRENCY = 64


def configure(pipeline, threads):
    settings = {
        "threading.max_workers": threads,
        "async.concurrency": ASYNC_CONCURRENCY,
        "array.write_empty_chunks": False,
    }
    if pipeline == "zarrs":
        import zarrs  # noqa: F401  (registers the pipeline)

        settings["codec_pipeline"] = {
            "path": "zarrs.ZarrsCodecPipeline",
            # The minimum stays at its default, 4: 1 measured slower here.
            "chunk_concurrent_maximum": threads,
            "validate_checksums": True,
            "strict": True,  # Fail rather than fall back to the Python pipeline unseen.
        }
    elif pipeline != "default":
        raise SystemExit(f"unknown pipeline {pipeline}")
    zarr.config.set(settings)


def compressor(codec):
    if codec.startswith("zstd:"):
        return ZstdCodec(level=int(codec.split(":")[1]), checksum=False)
    if codec == "blosc:lz4:5:shuffle":
        return BloscCodec(cname="lz4", clevel=5, shuffle="shuffle", typesize=2, blocksize=0)
    raise SystemExit(f"unknown codec {codec}")


def create(store_dir, shape, codec):
    shutil.rmtree(store_dir, ignore_errors=True)
    return zarr.create_array(
        store=LocalStore(store_dir), shape=shape, dtype="uint16", chunks=(CHUNK,) * 3,
        shards=(SHARD,) * 3, serializer=BytesCodec(endian="little"),
        compressors=[compressor(codec)], fill_value=0, overwrite=True)


def throughput(volume_path, store_dir, codec, runs):
    data = np.load(volume_path)
    planes = range(PLANE_IN_LAYER, data.shape[0], CHUNK)
    writes, reads, plane_reads = [], [], []
    for _ in range(runs):
        array = create(store_dir, data.shape, codec)
        start = time.perf_counter()
        array[:] = data
        writes.append(time.perf_counter() - start)
        array = zarr.open_array(LocalStore(store_dir, read_only=True), mode="r")
        start = time.perf_counter()
        back = array[:]
        reads.append(time.perf_counter() - start)
        if not np.array_equal(back, data):
            raise SystemExit("zarr-python read back other values than it wrote")
        del back
        array = zarr.open_array(LocalStore(store_dir, read_only=True), mode="r")
        start = time.perf_counter()
        read_planes = [array[z:z + 1][0] for z in planes]  # A slice: zarrs refuses integer indexing.
        plane_reads.append(time.perf_counter() - start)
        if not all(np.array_equal(p, data[z]) for p, z in zip(read_planes, planes)):
            raise SystemExit("zarr-python read other plane values than it wrote")
    shutil.rmtree(store_dir, ignore_errors=True)
    return {"write_seconds": writes, "read_seconds": reads, "bytes": data.nbytes,
            "plane_seconds": plane_reads, "planes": len(planes)}


def chunk_boxes(shape):
    for z in range(0, shape[0], SHARD):
        for y in range(0, shape[1], SHARD):
            for x in range(0, shape[2], SHARD):
                yield (slice(z, z + SHARD), slice(y, y + SHARD), slice(x, x + SHARD))


def zarrs_case(volume_path, source_dir, store_dir, runs):
    volume = np.load(volume_path, mmap_mode="r")
    source = zarr.open_array(LocalStore(source_dir, read_only=True), mode="r")
    for box in chunk_boxes(source.shape):  # Untimed: every chunk has our values.
        if not np.array_equal(source[box], volume[box]):
            raise SystemExit(f"zarr-python read other values than zarr_bench wrote at {box}")
    roundtrips, chunk_reads = [], []
    for _ in range(runs):
        shutil.rmtree(store_dir, ignore_errors=True)
        start = time.perf_counter()
        source = zarr.open_array(LocalStore(source_dir, read_only=True), mode="r")
        data = source[:]
        target = zarr.create_array(store=LocalStore(store_dir), shape=source.shape,
                                   dtype=source.dtype, chunks=source.chunks, shards=source.shards,
                                   serializer=source.serializer, compressors=source.compressors,
                                   fill_value=source.fill_value, overwrite=True)
        target[:] = data
        roundtrips.append(time.perf_counter() - start)
        if not np.array_equal(data, volume):
            raise SystemExit("zarr-python round trip read other values")
        del data
        source = zarr.open_array(LocalStore(source_dir, read_only=True), mode="r")
        start = time.perf_counter()
        for box in chunk_boxes(source.shape):
            source[box]
        chunk_reads.append(time.perf_counter() - start)
    shutil.rmtree(store_dir, ignore_errors=True)
    return {"roundtrip_seconds": roundtrips, "chunk_seconds": chunk_reads,
            "bytes": volume.nbytes}


def main():
    if len(sys.argv) != 8:
        raise SystemExit(__doc__)
    pipeline, mode = sys.argv[1], sys.argv[2]
    runs, threads = int(sys.argv[6]), int(sys.argv[7])
    configure(pipeline, threads)
    if mode == "throughput":
        result = throughput(sys.argv[3], sys.argv[4], sys.argv[5], runs)
    elif mode == "zarrs-case":
        result = zarrs_case(sys.argv[3], sys.argv[4], sys.argv[5], runs)
    else:
        raise SystemExit(f"unknown mode {mode}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
