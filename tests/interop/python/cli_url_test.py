"""The CLI on URLs: a zarr array written to an s3:// URL on the test S3
server (moto, the CTest fixture "s3_server") and read back with the CLI,
values asserted; info, store ls, convert to a local copy, refs build pointing
at the object URLs, serve over s3://, an error that names the URL, and DVID
database commands refusing s3:// (a database is local) but taking file://.

Standard library only: the CLI is configured through the environment the AWS
tools read (AWS_ENDPOINT_URL_S3, AWS_ACCESS_KEY_ID, ...), taken from --state.

usage: cli_url_test.py --chunkwise BIN --state STATE --workdir DIR
"""
import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from interop_check import Checks  # noqa: E402
from s3_test_env import BUCKET, aws_environment, unique_root  # noqa: E402

SHAPE = (6, 10)


def values():
    return [(i * 7 + 3) % 65536 for i in range(SHAPE[0] * SHAPE[1])]


def read_npy_u2(path):
    data = Path(path).read_bytes()
    assert data[:6] == b"\x93NUMPY", f"{path} is not .npy"
    header_len = struct.unpack("<H", data[8:10])[0]
    header = data[10:10 + header_len].decode()
    assert "'<u2'" in header, header
    body = data[10 + header_len:]
    return list(struct.unpack(f"<{len(body) // 2}H", body))


def write_npy_u2(path, shape, flat):
    header = f"{{'descr': '<u2', 'fortran_order': False, 'shape': {tuple(shape)}, }}"
    header += " " * (-(10 + len(header) + 1) % 64) + "\n"
    body = struct.pack(f"<{len(flat)}H", *flat)
    Path(path).write_bytes(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header))
                          + header.encode() + body)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunkwise", required=True)
    parser.add_argument("--state", required=True)
    parser.add_argument("--workdir", required=True)
    args = parser.parse_args()
    state = json.loads(Path(args.state).read_text())
    work = Path(args.workdir)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    env = dict(os.environ, **aws_environment(state, work))
    checks = Checks()

    def cw(*argv, expect=0):
        result = subprocess.run([args.chunkwise, *map(str, argv)], env=env, capture_output=True,
                                text=True, timeout=120)
        if result.returncode != expect:
            print(f"chunkwise {' '.join(map(str, argv))} exited {result.returncode}: {result.stderr}")
        checks.expect(result.returncode == expect, f"chunkwise {argv[0]} {argv[1]} exits {expect}")
        return result

    url = f"s3://{BUCKET}/{unique_root('cli')}a.zarr"
    raw = work / "in.raw"
    raw.write_bytes(struct.pack(f"<{len(values())}H", *values()))
    cw("zarr", "create", url, "--shape", "6,10", "--dtype", "uint16", "--chunk", "2,5",
       "--shard", "6,10", "--codec", "zstd:1")
    cw("zarr", "write", url, "--input", raw, "--dtype", "<u2", "--shape", "6,10")
    cw("zarr", "read", url, "--output", work / "all.npy")
    checks.expect(read_npy_u2(work / "all.npy") == values(), "s3:// array reads back every value")
    cw("zarr", "read", url, "--region", "2:4,3:6", "--output", work / "part.npy")
    expected_part = [values()[r * 10 + c] for r in range(2, 4) for c in range(3, 6)]
    checks.expect(read_npy_u2(work / "part.npy") == expected_part, "a region of the s3:// array")

    info = cw("zarr", "info", url)
    checks.expect("6, 10" in info.stdout or "6,10" in info.stdout, "zarr info shows the shape")
    listing = cw("store", "ls", url)
    checks.expect(listing.stdout.split() == ["c/0/0", "zarr.json"], "store ls lists the bucket's keys")

    cw("zarr", "convert", url, work / "copy.zarr")
    cw("zarr", "read", work / "copy.zarr", "--output", work / "copy.npy")
    checks.expect(read_npy_u2(work / "copy.npy") == values(), "convert s3:// to a directory")

    cw("refs", "build", url, "--output", work / "refs.json")
    refs = json.loads((work / "refs.json").read_text())
    text = json.dumps(refs)
    checks.expect(url + "/c/0/0" in text or "s3://chunkwise-test/" in text,
                  "references point at the object URLs")

    missing = url.replace("a.zarr", "missing.zarr")
    failed = cw("zarr", "info", missing, expect=1)
    checks.expect(missing in failed.stderr, "the error names the missing URL")
    bad = cw("zarr", "info", "ftp://host/a.zarr", expect=1)
    checks.expect("unknown URL scheme" in bad.stderr and "ftp://host/a.zarr" in bad.stderr,
                  "an unknown scheme is named")

    # A DVID labelmap database is a local RocksDB directory: file:// works, s3:// is refused.
    db_url = url.replace("a.zarr", "labels.db")
    write_npy_u2(work / "labels.npy", (2, 6, 10), [v % 5 for v in values() * 2])
    for command in (["info", db_url], ["ingest", db_url, "--input", work / "labels.npy"]):
        refused = cw("dvid", *command, expect=1)
        checks.expect("a DVID labelmap database is a local RocksDB directory" in refused.stderr
                      and db_url in refused.stderr and "export-shards" in refused.stderr,
                      f"dvid {command[0]} on s3:// is refused, naming the URL and export-shards")
    cw("dvid", "ingest", f"file://{work}/labels.db", "--input", work / "labels.npy")
    described = cw("dvid", "info", f"file://{work}/labels.db", "--json")
    checks.expect(described.stdout.lstrip().startswith("{"), "dvid info takes a file:// database")
    checks.expect((work / "labels.db").is_dir(), "a file:// database is the local directory")

    # serve s3://: its first line names the HTTP URL; the array's metadata comes through.
    server = subprocess.Popen([args.chunkwise, "serve", url, "--port", "0"], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = server.stdout.readline().split()
        base = first[-1] if first else ""
        checks.expect(base.startswith("http://"), f"serve names its URL ({' '.join(first)})")
        if base.startswith("http://"):
            with urllib.request.urlopen(base.rstrip("/") + "/zarr.json", timeout=30) as response:
                metadata = json.loads(response.read())
            checks.expect(metadata.get("shape") == [6, 10], "serve s3:// serves zarr.json")
    finally:
        server.terminate()
        server.wait(timeout=30)
    checks.finish()


if __name__ == "__main__":
    main()
