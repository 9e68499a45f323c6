"""Deterministic blosc-lz4 interop: chunks written by chunkwise's deterministic
encoder (shorthand blosc:lz4det) are decoded by python-blosc and numcodecs;
a sharded zarr v3 array written with it is read by zarrita (node) with the
values checked; its inner chunks are exactly what `codec encode` gives; and
writing the same data again, or converting into it, gives the same shard bytes.

usage: /usr/bin/python3 blosc_lz4_deterministic_interop.py --chunkwise build/chunkwise --node-script tests/interop/node/zarr_tool.mjs --workdir DIR
"""
import argparse
import json
import pathlib
import shutil
import struct

import blosc
import numcodecs
import numpy as np

from interop_check import Checks, run

SHUFFLES = {"noshuffle": blosc.NOSHUFFLE, "shuffle": blosc.SHUFFLE}


def sample_arrays():
    rng = np.random.default_rng(11)
    y, x = np.mgrid[0:300, 0:512]
    microscopy = 1800 + 600 * np.sin(x / 17.0) * np.cos(y / 23.0) + rng.normal(0, 40, x.shape)
    return {
        "uint16-microscopy": microscopy.clip(0, 4095).astype("<u2"),
        "uint8-random": rng.integers(0, 256, 200_001, dtype="u1"),
        "int32-ramp": np.arange(70_001, dtype="<i4") * 3 - 5000,
        "float64-smooth": np.sin(np.arange(40_000) / 300.0).astype("<f8"),
        "uint64-constant": np.full(9_999, 123456789, dtype="<u8"),
        "uint32-tiny": np.arange(5, dtype="<u4"),  # under 128 bytes: stored memcpyed
        "uint16-126-bytes": np.frombuffer(bytes(range(127)) + b"\0", dtype="<u2")[:63],
        "bytes3-odd": np.frombuffer(rng.integers(0, 4, 3 * 5_001, dtype="u1").tobytes(), dtype="V3"),
    }


def encode(cli, spec, typesize, source, target):
    run([cli, "--quiet", "codec", "encode", "--codec", spec, "--typesize", typesize, "--overwrite", source, target])
    return target.read_bytes()


def check_chunks(checks, cli, work):
    for name, array in sample_arrays().items():
        raw = array.tobytes()
        source = work / f"{name}.raw"
        source.write_bytes(raw)
        for shuffle in SHUFFLES:
            spec = f"blosc:lz4det:5:{shuffle}"
            chunk = encode(cli, spec, array.itemsize, source, work / f"{name}.{shuffle}.blosc")
            again = encode(cli, spec, array.itemsize, source, work / f"{name}.{shuffle}.again.blosc")
            checks.expect(chunk == again, f"{spec} {name}: the same bytes twice")
            checks.expect(blosc.get_clib(chunk) == "LZ4", f"{spec} {name}: python-blosc sees an LZ4 chunk")
            checks.expect(chunk[3] == array.itemsize, f"{spec} {name}: typesize {array.itemsize} in the header")
            checks.expect_equal_bytes(blosc.decompress(chunk), raw, f"python-blosc decodes our {spec} {name}")
            codec = numcodecs.Blosc(cname="lz4", clevel=5, shuffle=SHUFFLES[shuffle])
            checks.expect_equal_bytes(codec.decode(chunk), raw, f"numcodecs decodes our {spec} {name}")
            if shuffle == "shuffle" and len(raw) > 10_000 and name != "uint8-random":
                checks.expect(len(chunk) < len(raw), f"{spec} {name}: compresses ({len(raw)} -> {len(chunk)})")
    refused = run([cli, "--quiet", "codec", "encode", "--codec", "blosc:lz4det:5:bitshuffle", "--typesize", 2,
                   "--overwrite", work / "uint16-microscopy.raw", work / "refused.blosc"], expect_success=False)
    checks.expect("deterministic encoder" in refused.stderr,
                  f"blosc:lz4det:5:bitshuffle is refused clearly ({refused.stderr.strip()[:160]})")


def shard_chunk(path, index_in_shard, chunks_per_shard):
    """Bytes of one inner chunk of a shard whose index (uint64 offset, size pairs + crc32c) is at the end."""
    data = path.read_bytes()
    index = data[len(data) - 16 * chunks_per_shard - 4:len(data) - 4]
    offset, size = struct.unpack_from("<QQ", index, 16 * index_in_shard)
    return data[offset:offset + size]


def shard_files(array_dir):
    return {p.relative_to(array_dir): p.read_bytes() for p in sorted((array_dir / "c").rglob("*")) if p.is_file()}


def check_sharded_array(checks, cli, node_script, work):
    rng = np.random.default_rng(3)
    z, y, x = np.mgrid[0:20, 0:150, 0:130]
    data = (1500 + 500 * np.sin(x / 9.0) * np.cos(y / 13.0 + z / 5.0) + rng.normal(0, 20, x.shape))
    data = data.clip(0, 4095).astype("<u2")
    np.save(work / "volume.npy", data)
    layout = ["--shape", "20,150,130", "--dtype", "uint16", "--chunk", "8,64,64", "--shard", "16,128,128"]
    arrays = {}
    for name, codec, encoder in (("det", "blosc:lz4det:5:shuffle", "deterministic"),
                                 ("det-again", "blosc:lz4det:5:shuffle", "deterministic"),
                                 ("cblosc", "blosc:lz4:5:shuffle", "c-blosc")):
        path = work / f"{name}.zarr"
        # No crc32c (zarr create's default since #44): the stream and the GPU write none.
        run([cli, "--quiet", "zarr", "create", path, *layout, "--codec", codec, "--checksum", "none"])
        run([cli, "--quiet", "zarr", "write", path, "--input", work / "volume.npy", "--blosc-encoder", encoder])
        arrays[name] = path
    meta = json.loads((arrays["det"] / "zarr.json").read_text())
    inner = meta["codecs"][0]["configuration"]["codecs"]
    checks.expect(inner[1] == {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5, "shuffle": "shuffle",
                                                                   "typesize": 2, "blocksize": 0}},
                  f"the metadata is plain blosc lz4 ({inner[1]})")
    checks.expect(json.loads((arrays["cblosc"] / "zarr.json").read_text()) == meta,
                  "the metadata is the same whichever encoder writes")
    manifest = [{"dir": str(p), "out": str(work / f"{n}.zarrita.bin")} for n, p in arrays.items()]
    (work / "manifest.json").write_text(json.dumps(manifest))
    results = {r["dir"]: r for r in map(json.loads, run(["node", node_script, "read", work / "manifest.json"]).stdout.splitlines())}
    for name, path in arrays.items():
        result = results[str(path)]
        checks.expect("error" not in result, f"zarrita opens the {name} array {result.get('error', '')}")
        if "error" not in result:
            got = (work / f"{name}.zarrita.bin").read_bytes()
            checks.expect_equal_bytes(got, data.tobytes(), f"zarrita reads the {name} array's values")
    det, again, cblosc = (shard_files(arrays[n]) for n in ("det", "det-again", "cblosc"))
    checks.expect(len(det) == 8 and det == again, f"writing again gives the same {len(det)} shard files, byte for byte")
    checks.expect(det != cblosc, "c-blosc's shards differ (the encoder really changed)")
    # The first inner chunk of shard (0,0,0) is exactly `codec encode --codec blosc:lz4det` of its elements.
    first = np.ascontiguousarray(data[0:8, 0:64, 0:64])
    (work / "first.raw").write_bytes(first.tobytes())
    expected = encode(cli, "blosc:lz4det:5:shuffle", 2, work / "first.raw", work / "first.blosc")
    got = shard_chunk(arrays["det"] / "c" / "0" / "0" / "0", 0, 2 * 2 * 2)
    checks.expect_equal_bytes(got, expected, "a shard's inner chunk is the deterministic encoder's chunk")
    converted = work / "converted.zarr"
    run([cli, "--quiet", "zarr", "convert", arrays["cblosc"], converted, "--shard", "16,128,128",
         "--codec", "blosc:lz4det:5:shuffle", "--checksum", "none"])
    checks.expect(shard_files(converted) == det, "zarr convert --codec blosc:lz4det gives the same shards")
    refused = run([cli, "--quiet", "zarr", "write", arrays["det"], "--input", work / "volume.npy",
                   "--blosc-encoder", "deterministic-ish"], expect_success=False)
    checks.expect("deterministic" in refused.stderr, f"a bad --blosc-encoder is refused ({refused.stderr.strip()[:120]})")
    # The stream writer takes the same shorthand and writes the same shards.
    streamed = work / "streamed.zarr"
    run([cli, "--quiet", "zarr", "stream", streamed, "--shape", "0,150,130", "--dtype", "uint16",
         "--chunk", "8,64,64", "--tiles-per-shard", "2,2,2", "--codec", "blosc:lz4det:5:shuffle",
         "--input", work / "volume.npy"])
    checks.expect(shard_files(streamed) == det,
                  "zarr stream --codec blosc:lz4det writes the same shards as zarr write")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunkwise", required=True, type=pathlib.Path)
    parser.add_argument("--workdir", required=True, type=pathlib.Path)
    parser.add_argument("--node-script", required=True, type=pathlib.Path)
    args = parser.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    args.workdir.mkdir(parents=True)
    checks = Checks()
    check_chunks(checks, args.chunkwise, args.workdir)
    check_sharded_array(checks, args.chunkwise, args.node_script, args.workdir)
    checks.finish()


if __name__ == "__main__":
    main()
