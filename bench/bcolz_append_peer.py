"""Peers of bench/bcolz_bench.cc: the real bcolz and python-blosc2 appending
the same float64 data to a container on disk, with the same cparams (lz4,
clevel 5, byte shuffle, typesize 8) and threads, as their users append.

usage: python bcolz_append_peer.py bcolz DATA.bin DIR BATCH_ROWS EXPECTEDLEN THREADS
       python bcolz_append_peer.py blosc2 DATA.bin DIR CHUNK_BYTES BATCH_ROWS THREADS

bcolz: `bcolz.carray` created with rootdir DIR, mode "w", the expectedlen
(so it picks the chunklen ours picks) and the cparams, `append()` of
BATCH_ROWS rows at a time, `flush()`; bcolz.set_nthreads(THREADS). Where bcolz
is not importable it prints {"missing": "bcolz: not installed"}.
blosc2: a `blosc2.SChunk` of CHUNK_BYTES chunks stored contiguously in one
file under DIR (its own frame format), `append_data()` of each chunk of each
batch; CParams nthreads THREADS, blocksize chosen by blosc2 as its users leave it.

Each is timed from the container's creation to its flush, after an untimed
first run (a fresh process would otherwise time its first touches of memory,
which the bench's own loop has long paid). Prints one JSON line:
{"append_seconds": S, "compressed_bytes": N, "version": "..."}.
"""
import json
import os
import shutil
import sys
import time

import numpy as np


def bcolz_append(data, directory, batch_rows, expectedlen, threads):
    try:
        import bcolz
    except ImportError:
        return None
    bcolz.set_nthreads(threads)
    cparams = bcolz.cparams(clevel=5, shuffle=bcolz.SHUFFLE, cname="lz4")

    def once():
        shutil.rmtree(directory, ignore_errors=True)
        start = time.perf_counter()
        carray = bcolz.carray(np.empty(0, dtype=np.float64), rootdir=directory, mode="w",
                              expectedlen=expectedlen, cparams=cparams)
        for row in range(0, len(data), batch_rows):
            carray.append(data[row:row + batch_rows])
        carray.flush()
        seconds = time.perf_counter() - start
        if carray.len != len(data):
            raise SystemExit(f"bcolz appended {carray.len} rows of {len(data)}")
        return seconds, carray.cbytes

    once()
    seconds, compressed = once()
    return {"append_seconds": seconds, "compressed_bytes": int(compressed),
            "version": bcolz.__version__}


def blosc2_append(data, directory, chunk_bytes, batch_rows, threads):
    import blosc2

    cparams = blosc2.CParams(codec=blosc2.Codec.LZ4, clevel=5, typesize=8, nthreads=threads,
                             filters=[blosc2.Filter.SHUFFLE])
    raw = data.view(np.uint8)
    batch_bytes = batch_rows * 8
    path = os.path.join(directory, "data.b2frame")

    def once():
        shutil.rmtree(directory, ignore_errors=True)
        os.makedirs(directory)
        start = time.perf_counter()
        schunk = blosc2.SChunk(chunksize=chunk_bytes, urlpath=path, contiguous=True, mode="w",
                               cparams=cparams)
        for at in range(0, len(raw), batch_bytes):
            batch = raw[at:at + batch_bytes]
            for chunk in range(0, len(batch), chunk_bytes):
                schunk.append_data(batch[chunk:chunk + chunk_bytes])
        del schunk  # Closes the frame file.
        seconds = time.perf_counter() - start
        return seconds, os.path.getsize(path)

    once()
    seconds, compressed = once()
    shutil.rmtree(directory, ignore_errors=True)
    return {"append_seconds": seconds, "compressed_bytes": compressed,
            "version": blosc2.__version__}


def main():
    if len(sys.argv) != 7 or sys.argv[1] not in ("bcolz", "blosc2"):
        raise SystemExit(__doc__)
    peer, data_path, directory = sys.argv[1:4]
    first, second, threads = int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
    data = np.fromfile(data_path, dtype=np.float64)
    if peer == "bcolz":
        result = bcolz_append(data, directory, first, second, threads)
        shutil.rmtree(directory, ignore_errors=True)
        if result is None:
            result = {"missing": "bcolz: not installed"}
    else:
        result = blosc2_append(data, directory, first, second, threads)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
