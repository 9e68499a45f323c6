"""Interop on the GPU machine only (scripts/gpu-check runs
it; Debian has no TensorStore and CI has no GPU): `chunkwise zarr stream
--backend cuda` writes one array per GPU codec, and TensorStore, an
independent reader, must read back exactly the frames written.

The frames end inside a tile epoch and a shard epoch, the frame edges cut
tiles, and ten all-zero frames make tiles equal to the fill value, which
the shards leave out.

usage: cuda_stream_tensorstore.py CHUNKWISE WORKDIR
"""
import shutil
import subprocess
import sys

import numpy as np
import tensorstore as ts


def frames_to_write():
    depth, height, width = 83, 300, 260
    z, y, x = np.indices((depth, height, width))
    noise = np.random.default_rng(9).integers(0, 64, (depth, height, width))
    frames = (z * 7 + y * 3 + x + noise).astype(np.uint16)
    frames[10:20] = 0
    return frames


def main():
    chunkwise, work = sys.argv[1], sys.argv[2]
    frames = frames_to_write()
    np.save(f"{work}/frames-in.npy", frames)
    failures = 0
    for codec in ["none", "blosc:lz4det"]:
        out = f"{work}/cuda-{codec.replace(':', '-')}.zarr"
        shutil.rmtree(out, ignore_errors=True)
        subprocess.run([chunkwise, "-q", "zarr", "stream", out, "--backend", "cuda",
                        "--shape", f"0,{frames.shape[1]},{frames.shape[2]}", "--dtype", "uint16",
                        "--chunk", "16,64,64", "--tiles-per-shard", "2,2,3", "--codec", codec,
                        "--input", f"{work}/frames-in.npy"], check=True)
        array = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": out}}).result()
        got = array.read().result()
        same = got.shape == frames.shape and np.array_equal(got, frames)
        print(f"tensorstore reads what --backend cuda wrote with {codec}: "
              f"{'the same frames' if same else 'DIFFERENT frames'} {got.shape}")
        failures += 0 if same else 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
