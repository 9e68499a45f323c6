"""The peer of bench/bcolz_bench.cc: python3-blosc compressing the same float64
data, chunk by chunk, with the same cparams (lz4, clevel 5, byte shuffle,
typesize 8).

usage: /usr/bin/python3 bcolz_python_peer.py DATA.bin CHUNK_BYTES RUNS
Prints one JSON line: {"one_thread_seconds": [...], "default_seconds": [...],
"default_threads": N, "compressed_bytes": N}. "default" is python3-blosc's own
thread count (the number of cores), as bcolz would use it.
"""
import json
import sys
import time

import blosc


def compress_all(data, chunk_bytes):
    """Seconds to compress every chunk of `data`, and the compressed total."""
    view = memoryview(data)
    start = time.perf_counter()
    total = 0
    for at in range(0, len(data), chunk_bytes):
        total += len(blosc.compress(view[at:at + chunk_bytes], typesize=8, clevel=5,
                                    shuffle=blosc.SHUFFLE, cname="lz4"))
    return time.perf_counter() - start, total


def main():
    path, chunk_bytes, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    with open(path, "rb") as f:
        data = f.read()
    default_threads = blosc.set_nthreads(1)  # Returns the previous (default) setting.
    # An untimed pass first: a fresh process would otherwise time its first
    # touches of new memory, which the bench's own loop has long paid.
    compress_all(data, chunk_bytes)
    one, default, compressed = [], [], 0
    for _ in range(runs):
        blosc.set_nthreads(1)
        seconds, compressed = compress_all(data, chunk_bytes)
        one.append(seconds)
        blosc.set_nthreads(default_threads)
        default.append(compress_all(data, chunk_bytes)[0])
    print(json.dumps({"one_thread_seconds": one, "default_seconds": default,
                      "default_threads": default_threads, "compressed_bytes": compressed}))


if __name__ == "__main__":
    main()
