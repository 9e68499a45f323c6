"""The chunkwise command line as a user meets it: help and version, every
command on real inputs with results checked by numpy, and clear errors with
non-zero exits on bad input.

usage: /usr/bin/python3 cli_interop.py --chunkwise build/chunkwise --workdir DIR
"""
import argparse
import pathlib
import subprocess

import numpy as np

from interop_check import Checks, run

COMMANDS = ["codec", "codec list", "codec encode", "codec decode", "codec measure", "crc32c", "npy", "npy info",
            "npy convert", "store", "store ls", "store get", "store put", "store rm", "grid", "morton", "generate",
            "gpu-info", "dvid", "dvid ingest", "dvid map", "dvid info", "dvid branch", "dvid commit", "dvid read",
            "dvid get-block", "dvid put-block"]


def cli(binary, *args, ok=True):
    return run([binary, *args], expect_success=ok)


def check_help_and_version(checks, binary):
    checks.expect(cli(binary, "--version").stdout.strip().startswith("chunkwise "), "--version prints the version")
    for command in COMMANDS:
        result = cli(binary, *command.split(), "--help")
        checks.expect("Usage" in result.stdout, f"chunkwise {command} --help")
    result = subprocess.run([str(binary)], capture_output=True, text=True)
    checks.expect(result.returncode == 2, "no subcommand is a usage error (exit 2)")
    result = subprocess.run([str(binary), "grid", "--shape", "10"], capture_output=True, text=True)
    checks.expect(result.returncode == 2 and "--chunk" in result.stderr, "a missing required option names it (exit 2)")


def check_generate(checks, binary, work):
    labels, frames = work / "labels.npy", work / "frames.npy"
    cli(binary, "generate", "--shape", "32,48,64", "--neurons", "12", "--labels", labels, "--frames", frames, "--overwrite")
    volume = np.load(labels)
    checks.expect(volume.dtype == np.dtype("<u8") and volume.shape == (32, 48, 64), "generated labels: uint64 32x48x64")
    checks.expect(len(np.unique(volume)) >= 5, f"generated labels hold several neurons ({len(np.unique(volume))} ids)")
    images = np.load(frames)
    checks.expect(images.dtype == np.dtype("<u2") and images.max() <= 4095, "generated frames: uint16, 12-bit range")
    membrane = images[volume != np.roll(volume, 1, axis=2)].mean()
    inside = images[(volume != 0) & (volume == np.roll(volume, 1, axis=2))].mean()
    checks.expect(membrane < inside, "frames are dark at label boundaries (membranes)")
    again = work / "labels2.npy"
    cli(binary, "generate", "--shape", "32,48,64", "--neurons", "12", "--labels", again, "--overwrite")
    checks.expect(labels.read_bytes() == again.read_bytes(), "generation is deterministic for a seed")
    result = cli(binary, "generate", "--shape", "32,48,64", "--labels", labels, ok=False)
    checks.expect(result.returncode == 1 and str(labels) in result.stderr and "--overwrite" in result.stderr,
                  "an existing output is refused without --overwrite, naming it")


def check_npy(checks, binary, work):
    fortran = np.asfortranarray(np.arange(24, dtype=">i4").reshape(2, 3, 4))
    np.save(work / "fortran.npy", fortran)
    info = cli(binary, "npy", "info", work / "fortran.npy").stdout
    checks.expect(">i4" in info and "2,3,4" in info and "Fortran" in info, "npy info reports dtype, shape and order")
    cli(binary, "npy", "convert", work / "fortran.npy", work / "c.npy", "--overwrite")
    converted = np.load(work / "c.npy")
    checks.expect(np.array_equal(converted, fortran) and converted.flags.c_contiguous, "npy convert: Fortran to C order")
    cli(binary, "npy", "convert", work / "c.npy", work / "c.raw", "--raw", "--overwrite")
    checks.expect((work / "c.raw").read_bytes() == np.ascontiguousarray(fortran).astype("<i4").tobytes(),
                  "npy convert --raw writes C-order little-endian bytes")
    cli(binary, "npy", "convert", work / "c.raw", work / "back.npy", "--dtype", "<i4", "--shape", "0,3,4", "--overwrite")
    checks.expect(np.array_equal(np.load(work / "back.npy"), fortran), "raw -> .npy with an inferred dim 0")
    (work / "broken.npy").write_bytes((work / "c.npy").read_bytes()[:70])
    result = cli(binary, "npy", "info", work / "broken.npy", ok=False)
    checks.expect("broken.npy" in result.stderr, "a truncated .npy is refused, naming the file")
    result = cli(binary, "npy", "convert", work / "c.raw", work / "x.npy", "--dtype", "<i4", "--shape", "5,5",
                 "--overwrite", ok=False)
    checks.expect(result.returncode == 1 and "c.raw" in result.stderr, "a raw file of the wrong size is refused")


def check_store(checks, binary, work):
    root = work / "store"
    value = work / "value.bin"
    value.write_bytes(bytes(range(256)) * 4)
    cli(binary, "store", "put", root, "a/b/c", value, "--overwrite")
    cli(binary, "store", "put", root, "a/d", value, "--overwrite")
    checks.expect(cli(binary, "store", "ls", root).stdout.split() == ["a/b/c", "a/d"], "store ls lists keys sorted")
    checks.expect(cli(binary, "store", "ls", root, "--prefix", "a/b").stdout.split() == ["a/b/c"], "store ls --prefix")
    got = subprocess.run([str(binary), "store", "get", root, "a/b/c", "--range", "10:20"], capture_output=True).stdout
    checks.expect(got == bytes(range(10, 20)), "store get --range reads bytes 10:20")
    got = subprocess.run([str(binary), "store", "get", root, "a/b/c", "--range", "-4"], capture_output=True).stdout
    checks.expect(got == bytes([252, 253, 254, 255]), "store get --range -4 reads the suffix")
    result = cli(binary, "store", "get", root, "a/b/c", "--range", "1000:2000", ok=False)
    checks.expect("a/b/c" in result.stderr, "a range past the end is refused, naming the key")
    result = cli(binary, "store", "put", root, "../escape", value, ok=False)
    checks.expect(result.returncode == 1 and not (work / "escape").exists(), "a key with .. is refused")
    result = cli(binary, "store", "put", root, "a/d", value, ok=False)
    checks.expect("already exists" in result.stderr, "store put refuses to replace a key without --overwrite")
    cli(binary, "store", "rm", root, "a/b/c")
    checks.expect(cli(binary, "store", "ls", root).stdout.split() == ["a/d"], "store rm erases the key")
    checks.expect(not (root / "a" / "b").exists(), "store rm prunes the emptied directory")


def check_codecs_and_crc(checks, binary, work):
    (work / "check.txt").write_bytes(b"123456789")
    checks.expect(cli(binary, "crc32c", work / "check.txt").stdout.startswith("e3069283"), "crc32c check value")
    zeros = work / "zeros.raw"
    zeros.write_bytes(bytes(10_000_000))
    cli(binary, "codec", "encode", "--codec", "zstd:3", zeros, work / "zeros.zst", "--overwrite")
    result = cli(binary, "codec", "decode", "--codec", "zstd", "--max-bytes", "1000000", work / "zeros.zst",
                 work / "zeros.out", "--overwrite", ok=False)
    checks.expect("OutOfRange" in result.stderr and not (work / "zeros.out").exists(),
                  "decoding past --max-bytes is refused (decompression bomb)")
    result = cli(binary, "codec", "encode", "--codec", "brotli:9", zeros, work / "zeros.x", ok=False)
    checks.expect("brotli" in result.stderr, "an unknown codec is named in the error")
    result = cli(binary, "codec", "decode", "--codec", "gzip", work / "missing.gz", work / "m.out", ok=False)
    checks.expect(result.returncode == 1 and "missing.gz" in result.stderr, "a missing input is named in the error")
    np.save(work / "ramp.npy", np.arange(1 << 18, dtype="<u4"))
    table = cli(binary, "codec", "measure", "--input", work / "ramp.npy", "--codec", "blosc:lz4:5:shuffle",
                "--codec", "zstd:1", "--repetitions", "1").stdout
    checks.expect("blosc:lz4:5:shuffle" in table and "zstd:1" in table, "codec measure prints a row per codec")


def check_grid(checks, binary):
    out = cli(binary, "grid", "--shape", "100,70", "--chunk", "32,32", "--region", "30:40,60:").stdout
    checks.expect("4,3 (12 chunks)" in out and "touches 4 chunks" in out, "grid: chunk counts and region overlap")
    out = cli(binary, "grid", "--shape", "2132,2048,2048,3", "--chunk", "32,128,128,1", "--tiles-per-shard",
              "16,4,4,3").stdout
    checks.expect("active shards      16" in out and "shard index bytes  12292" in out,
                  "grid: the streaming writer benchmark geometry (16 active shards, 12292-byte index)")
    out = cli(binary, "morton", "--grid", "1471,1224,2103", "--coord", "1470,1223,2102").stdout
    checks.expect(out.strip() == "0x2c16ad3fa", "morton: the mCNS test vector")
    out = cli(binary, "morton", "--grid", "1471,1224,2103", "--decode", "--code", str(0x2C16AD3FA)).stdout
    checks.expect(out.strip() == "1470,1223,2102", "morton --decode inverts it")
    result = cli(binary, "grid", "--shape", "10,10", "--chunk", "0,5", ok=False)
    checks.expect(result.returncode == 1 and "chunk" in result.stderr, "a zero chunk extent is refused")


def check_refused_threads(checks, binary, work):
    """--threads 250-300 under a 1 GB address-space cap: the system refuses some
    threads (each reserves its stack); the command fails with a clear error
    instead of aborting."""
    import resource

    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    table = np.zeros(100_000, dtype=[("a", "<i4"), ("b", "<f8")])
    np.save(work / "threads.npy", table)
    np.save(work / "frames.npy", np.zeros((64, 64, 64), dtype=np.uint16))
    for name, command in [
            ("bcolz create", ["bcolz", "create", work / "threads.bcolz", "--input", work / "threads.npy",
                              "--threads", "250", "--overwrite"]),
            ("zarr stream", ["zarr", "stream", work / "threads.zarr", "--shape", "0,64,64", "--dtype", "uint16",
                             "--chunk", "8,32,32", "--input", work / "frames.npy", "--threads", "300",
                             "--overwrite"])]:
        result = subprocess.run([str(binary), "-q", *map(str, command)], capture_output=True, text=True,
                                preexec_fn=cap)
        checks.expect(result.returncode == 1 and "error: ResourceExhausted: " in result.stderr
                      and "cannot start a thread" in result.stderr,
                      f"{name} --threads 250+ under a memory cap: exit {result.returncode}, "
                      f"{result.stderr.strip()[:160]}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunkwise", required=True, type=pathlib.Path)
    parser.add_argument("--workdir", required=True, type=pathlib.Path)
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    checks = Checks()
    check_help_and_version(checks, args.chunkwise)
    check_generate(checks, args.chunkwise, args.workdir)
    check_npy(checks, args.chunkwise, args.workdir)
    check_store(checks, args.chunkwise, args.workdir)
    check_codecs_and_crc(checks, args.chunkwise, args.workdir)
    check_grid(checks, args.chunkwise)
    check_refused_threads(checks, args.chunkwise, args.workdir)
    checks.finish()


if __name__ == "__main__":
    main()
