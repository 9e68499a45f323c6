"""End-to-end checksums: arrays written with --checksum crc32c and --checksum
zstd open in zarr-python 3 and TensorStore with the same values; a flipped
byte in a stored chunk is then refused by all three readers instead of read
as wrong data. Without --checksum a zarr v3 array gets crc32c (the default,
#44) and a stream gets none; zarr v2 output refuses crc32c (its readers lack
the codec).

Needs zarr 3 and TensorStore: run it with the pinned .venv python.
usage: .venv/bin/python checksum_interop.py --chunkwise build/chunkwise --workdir DIR
"""
import argparse
import json
import pathlib
import shutil
import subprocess

import numpy as np

from interop_check import Checks, run


def codecs_of(path):
    metadata = json.loads((path / "zarr.json").read_text())
    codecs = metadata["codecs"]
    if codecs[0]["name"] == "sharding_indexed":
        codecs = codecs[0]["configuration"]["codecs"]
    return codecs


def read_tensorstore(path):
    import tensorstore as ts
    return ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(path)}}).result().read().result()


def read_zarr(path):
    import zarr
    return zarr.open_array(str(path), mode="r")[...]


def flip_a_byte(path):
    chunk = max((p for p in (path / "c").rglob("*") if p.is_file()), key=lambda p: p.stat().st_size)
    data = bytearray(chunk.read_bytes())
    data[len(data) // 3] ^= 0x5A
    chunk.write_bytes(bytes(data))
    return chunk


def refused(reader, path):
    try:
        reader(path)
        return False
    except Exception:  # Each library raises its own error type for a bad checksum.
        return True


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunkwise", required=True, type=pathlib.Path)
    parser.add_argument("--workdir", required=True, type=pathlib.Path)
    args = parser.parse_args()
    work = args.workdir
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    binary = args.chunkwise
    checks = Checks()
    data = (np.arange(48 * 64 * 40, dtype=np.uint16).reshape(48, 64, 40) * 7) % 1013
    np.save(work / "data.npy", data)

    # No flag: crc32c by default (#44), which both readers verify too.
    cases = [("the default", [], "crc32c"),
             ("--checksum crc32c", ["--checksum", "crc32c"], "crc32c"),
             ("--checksum zstd", ["--checksum", "zstd"], "zstd")]
    for name, flag, kind in cases:
        for sharded in (False, True):
            path = work / f"{kind}-{'sharded' if sharded else 'chunked'}-{len(flag)}.zarr"
            shard = ["--shard", "16,32,40"] if sharded else []
            run([binary, "-q", "zarr", "create", path, "--shape", "48,64,40", "--chunk", "8,16,20",
                 "--dtype", "uint16", "--codec", "zstd:3", *shard, *flag])
            run([binary, "-q", "zarr", "write", path, "--input", work / "data.npy"])
            codecs = codecs_of(path)
            has = (codecs[-1]["name"] == "crc32c") if kind == "crc32c" else \
                any(c["name"] == "zstd" and c["configuration"].get("checksum") for c in codecs)
            what = f"{name}, {'sharded' if sharded else 'chunked'}"
            checks.expect(has, f"{what}: zarr.json carries the {kind} checksum")
            checks.expect(np.array_equal(read_zarr(path), data), f"{what}: zarr-python 3 reads it")
            checks.expect(np.array_equal(read_tensorstore(path), data), f"{what}: TensorStore reads it")
            chunk = flip_a_byte(path)
            ours = subprocess.run([str(binary), "zarr", "read", str(path), "--output", str(work / "x.npy"),
                                   "--overwrite"], capture_output=True, text=True)
            checks.expect(ours.returncode == 1 and "Corruption" in ours.stderr,
                          f"{what}: a flipped byte in {chunk.name}: chunkwise refuses it "
                          f"({ours.stderr.strip()[:100]})")
            checks.expect(refused(read_zarr, path), f"{what}: zarr-python 3 refuses the flipped byte")
            checks.expect(refused(read_tensorstore, path), f"{what}: TensorStore refuses the flipped byte")

    # The stream writer takes the same choice.
    streamed = work / "streamed.zarr"
    run([binary, "-q", "zarr", "stream", streamed, "--shape", "0,64,40", "--dtype", "uint16", "--chunk", "8,16,20",
         "--tiles-per-shard", "2,2,2", "--input", work / "data.npy", "--checksum", "crc32c"])
    checks.expect(codecs_of(streamed)[-1]["name"] == "crc32c", "zarr stream --checksum crc32c")
    checks.expect(np.array_equal(read_tensorstore(streamed), data), "zarr stream: TensorStore reads it")
    checks.expect(np.array_equal(read_zarr(streamed), data), "zarr stream: zarr-python 3 reads it")
    plain = work / "plain.zarr"
    run([binary, "-q", "zarr", "stream", plain, "--shape", "0,64,40", "--dtype", "uint16", "--chunk", "8,16,20",
         "--tiles-per-shard", "2,2,2", "--input", work / "data.npy"])
    checks.expect(all(c["name"] != "crc32c" for c in codecs_of(plain)), "zarr stream: no checksum by default")

    # zarr v2: zarr 2.13 and numcodecs lack crc32c, so asking for it is refused.
    v2 = work / "v2.zarr"
    run([binary, "-q", "zarr", "create", v2, "--shape", "48,64,40", "--chunk", "8,16,20", "--dtype", "uint16",
         "--format", "2"])
    zarray = json.loads((v2 / ".zarray").read_text())
    checks.expect(not zarray.get("filters"), "zarr v2: no checksum filter by default")
    result = subprocess.run([str(binary), "zarr", "create", str(work / "v2c.zarr"), "--shape", "8", "--chunk", "4",
                             "--dtype", "uint16", "--format", "2", "--checksum", "crc32c"],
                            capture_output=True, text=True)
    checks.expect(result.returncode == 1, f"zarr v2 --checksum crc32c is refused ({result.stderr.strip()[:100]})")
    checks.finish()


if __name__ == "__main__":
    main()
