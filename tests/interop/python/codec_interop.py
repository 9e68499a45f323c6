"""Codec interop: chunks chunkwise encodes are decoded by python3-blosc,
numcodecs and node (numcodecs.js, fzstd, zlib); chunks those libraries encode
are decoded by chunkwise.

usage: /usr/bin/python3 codec_interop.py --chunkwise build/chunkwise --node-script tests/interop/node/decode_stream.mjs --workdir DIR
"""
import argparse
import gzip
import pathlib
import zlib

import blosc
import numcodecs
import numpy as np

from interop_check import Checks, run

BLOSC_SHUFFLES = {"noshuffle": blosc.NOSHUFFLE, "shuffle": blosc.SHUFFLE, "bitshuffle": blosc.BITSHUFFLE}


def sample_arrays():
    rng = np.random.default_rng(7)
    y, x = np.mgrid[0:256, 0:512]
    microscopy = (1800 + 600 * np.sin(x / 17.0) * np.cos(y / 23.0) + rng.normal(0, 80, x.shape))
    return {
        "uint16-microscopy": microscopy.clip(0, 4095).astype("<u2"),
        "int32-ramp": np.arange(100_003, dtype="<i4") * 3 - 5000,
        "float64-noise": rng.normal(size=20_000).astype("<f8"),
        "uint8-short": np.frombuffer(b"chunkwise", dtype="u1"),  # under 128 B: blosc memcpys
        "uint64-labels": np.repeat(np.arange(1_000_000, 1_000_050, dtype="<u8"), 997),
    }


def encode_with_chunkwise(cli, spec, typesize, source, target):
    run([cli, "--quiet", "codec", "encode", "--codec", spec, "--typesize", typesize, "--overwrite", source, target])
    return target.read_bytes()


def decode_with_chunkwise(cli, spec, source, target):
    run([cli, "--quiet", "codec", "decode", "--codec", spec, "--overwrite", source, target])
    return target.read_bytes()


def check_blosc(checks, cli, work, name, array):
    raw = array.tobytes()
    source = work / f"{name}.raw"
    source.write_bytes(raw)
    for cname in sorted(set(blosc.compressor_list()) & {"blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"}):
        for shuffle in BLOSC_SHUFFLES:
            spec = f"blosc:{cname}:5:{shuffle}"
            chunk = encode_with_chunkwise(cli, spec, array.itemsize, source, work / f"{name}.{cname}.{shuffle}.blosc")
            checks.expect_equal_bytes(blosc.decompress(chunk), raw, f"python-blosc decodes our {spec} {name}")
            codec = numcodecs.Blosc(cname=cname, clevel=5, shuffle=BLOSC_SHUFFLES[shuffle])
            checks.expect_equal_bytes(codec.decode(chunk), raw, f"numcodecs decodes our {spec} {name}")
            theirs = work / f"{name}.{cname}.{shuffle}.theirs.blosc"
            theirs.write_bytes(blosc.compress(raw, typesize=array.itemsize, cname=cname, shuffle=BLOSC_SHUFFLES[shuffle]))
            decoded = decode_with_chunkwise(cli, spec, theirs, work / f"{name}.{cname}.{shuffle}.theirs.raw")
            checks.expect_equal_bytes(decoded, raw, f"we decode python-blosc {spec} {name}")


def check_zstd_gzip(checks, cli, node, work, name, array):
    raw = array.tobytes()
    source = work / f"{name}.raw"
    source.write_bytes(raw)
    for level in (1, 3, 19):
        frame = encode_with_chunkwise(cli, f"zstd:{level}", 1, source, work / f"{name}.zstd{level}")
        checks.expect_equal_bytes(numcodecs.Zstd().decode(frame), raw, f"numcodecs decodes our zstd:{level} {name}")
        result = run(["node", node, "zstd", work / f"{name}.zstd{level}", source])
        checks.expect(result.stdout.count("ok ") == 2, f"node (numcodecs.js, fzstd) decodes our zstd:{level} {name}")
    theirs = work / f"{name}.theirs.zstd"
    theirs.write_bytes(numcodecs.Zstd(level=5).encode(raw))
    checks.expect_equal_bytes(decode_with_chunkwise(cli, "zstd", theirs, work / f"{name}.theirs.zstd.raw"), raw,
                              f"we decode numcodecs zstd {name}")
    for level in (1, 6, 9):
        member = encode_with_chunkwise(cli, f"gzip:{level}", 1, source, work / f"{name}.gz{level}")
        checks.expect_equal_bytes(gzip.decompress(member), raw, f"python gzip decodes our gzip:{level} {name}")
        checks.expect(member[:2] == b"\x1f\x8b", f"our gzip:{level} output is a gzip member (RFC 1952)")
        result = run(["node", node, "gzip", work / f"{name}.gz{level}", source])
        checks.expect(result.stdout.count("ok ") == 2, f"node (zlib, numcodecs.js) decodes our gzip:{level} {name}")
    theirs = work / f"{name}.theirs.gz"
    theirs.write_bytes(gzip.compress(raw, compresslevel=4))
    checks.expect_equal_bytes(decode_with_chunkwise(cli, "gzip", theirs, work / f"{name}.theirs.gz.raw"), raw,
                              f"we decode python gzip {name}")


def check_blosc_in_node(checks, node, work):
    for path in sorted(work.glob("uint16-microscopy.lz4.shuffle.blosc")):
        result = run(["node", node, "blosc", path, work / "uint16-microscopy.raw"])
        checks.expect("ok " in result.stdout, f"node numcodecs.js decodes our {path.name}")


def check_corrupt_input_is_refused(checks, cli, work):
    good = (work / "int32-ramp.zstd3").read_bytes()
    bad = work / "corrupt.zstd"
    bad.write_bytes(good[: len(good) // 2])
    result = run([cli, "codec", "decode", "--codec", "zstd", "--overwrite", bad, work / "corrupt.raw"], expect_success=False)
    checks.expect("corrupt.zstd" in result.stderr or "zstd" in result.stderr, "a truncated zstd frame is refused with a message")
    checks.expect(not (work / "corrupt.raw").exists(), "a refused decode leaves no output file")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunkwise", required=True, type=pathlib.Path)
    parser.add_argument("--node-script", required=True, type=pathlib.Path)
    parser.add_argument("--workdir", required=True, type=pathlib.Path)
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    checks = Checks()
    for name, array in sample_arrays().items():
        check_blosc(checks, args.chunkwise, args.workdir, name, array)
        check_zstd_gzip(checks, args.chunkwise, args.node_script, args.workdir, name, array)
    check_blosc_in_node(checks, args.node_script, args.workdir)
    check_corrupt_input_is_refused(checks, args.chunkwise, args.workdir)
    checks.finish()


if __name__ == "__main__":
    main()
