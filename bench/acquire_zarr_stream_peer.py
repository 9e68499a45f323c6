"""A peer of bench/stream_bench.cc: acquire-zarr streaming the same frames in
the same layout (zarr v3, frames of SIDE x SIDE uint16, chunks 32x128x128,
4x4x4 chunks per shard) with the same codec, as its users stream with it:
one `ZarrStream`, `append()` of one frame at a time, `close()`, with
`max_threads` set to THREADS.

usage: python acquire_zarr_stream_peer.py FRAMES.npy GIB CODEC DIR RUNS THREADS
                                         [S3_ENDPOINT BUCKET]
FRAMES.npy: the distinct frames stream_bench writes, repeated to GIB GiB.
With S3_ENDPOINT and BUCKET (s3_bench), the stream goes to that S3 server
instead, DIR being the key prefix in BUCKET, as acquire-zarr's S3Settings
take it; its credentials come from AWS_ACCESS_KEY_ID and
AWS_SECRET_ACCESS_KEY, which acquire-zarr reads when it is loaded.
CODEC: "none" or "blosc:CNAME:CLEVEL:SHUFFLE" with CNAME lz4 or zstd and
SHUFFLE noshuffle or shuffle: acquire-zarr compresses with blosc only. Each
run is timed from the stream's creation to its close, after an untimed run of
a quarter of the frames (as stream_bench warms its own paths). Prints one
JSON line: {"seconds": [...], "bytes": N, "gb_per_s": median}; exits with
status 3 and a message on a codec acquire-zarr cannot write.
"""
import json
import shutil
import statistics
import sys
import time

import acquire_zarr as aqz
import numpy as np

CODECS = {"lz4": aqz.CompressionCodec.BLOSC_LZ4, "zstd": aqz.CompressionCodec.BLOSC_ZSTD}
SHUFFLES = {"noshuffle": 0, "shuffle": 1}


def compression(codec):
    if codec == "none":
        return None
    parts = codec.split(":")
    if len(parts) != 4 or parts[0] != "blosc" or parts[1] not in CODECS or parts[3] not in SHUFFLES:
        print(f"acquire-zarr writes blosc lz4 or zstd with noshuffle or shuffle only, not {codec}",
              file=sys.stderr)
        sys.exit(3)
    return aqz.CompressionSettings(compressor=aqz.Compressor.BLOSC1, codec=CODECS[parts[1]],
                                   level=int(parts[2]), shuffle=SHUFFLES[parts[3]])


def settings(directory, side, codec, threads, s3=None):
    def dimension(name, kind, size, chunk, shard):
        return aqz.Dimension(name=name, kind=kind, array_size_px=size, chunk_size_px=chunk,
                             shard_size_chunks=shard)

    array = aqz.ArraySettings(
        dimensions=[dimension("z", aqz.DimensionType.SPACE, 0, 32, 4),
                    dimension("y", aqz.DimensionType.SPACE, side, 128, 4),
                    dimension("x", aqz.DimensionType.SPACE, side, 128, 4)],
        data_type=aqz.DataType.UINT16,
        compression=compression(codec))
    if s3 is None:
        return aqz.StreamSettings(store_path=directory, arrays=[array], max_threads=threads,
                                  overwrite=True)
    endpoint, bucket = s3
    return aqz.StreamSettings(store_path=directory, arrays=[array], max_threads=threads,
                              overwrite=True,
                              s3=aqz.S3Settings(endpoint=endpoint, bucket_name=bucket,
                                                region="us-east-1"))


def write_once(distinct, frames, codec, directory, threads, s3=None):
    if s3 is None:
        shutil.rmtree(directory, ignore_errors=True)
    start = time.perf_counter()
    stream = aqz.ZarrStream(settings(directory, distinct.shape[1], codec, threads, s3))
    for f in range(frames):
        stream.append(distinct[f % len(distinct)])
    stream.close()
    seconds = time.perf_counter() - start
    if s3 is None:
        shutil.rmtree(directory, ignore_errors=True)
    return seconds


def main():
    if len(sys.argv) not in (7, 9):
        raise SystemExit(__doc__)
    frames_path, gib, codec, directory, runs, threads = sys.argv[1:7]
    s3 = tuple(sys.argv[7:9]) or None
    compression(codec)  # Refuse an unsupported codec before any work.
    aqz.set_log_level(aqz.LogLevel.ERROR)
    distinct = np.load(frames_path)
    frame_bytes = distinct[0].nbytes
    frames = max(len(distinct), int(float(gib) * (1 << 30) / frame_bytes))
    write_once(distinct, max(len(distinct), frames // 4), codec, directory, int(threads), s3)
    seconds = [write_once(distinct, frames, codec, directory, int(threads), s3)
               for _ in range(int(runs))]
    total = frames * frame_bytes
    print(json.dumps({"seconds": seconds, "bytes": total,
                      "gb_per_s": total / 1e9 / statistics.median(seconds)}))


if __name__ == "__main__":
    main()
