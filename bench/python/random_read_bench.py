"""Random 64³ reads of a sharded zstd uint16 array, with and without a chunk cache (#42).

What a viewer or a training loop does: one 64³ box at a time at a random,
unaligned place (so most boxes meet 8 inner chunks of one or more shards),
each read waited for before the next. The same boxes are read twice:

  cold  the first pass, in a fresh process: nothing in any peer's cache
        (the files were just written, so the OS page cache holds them: this
        is decode and index cost, not disk cost)
  warm  the second pass over the same boxes, in the same process and order

Peers, each in a process of its own, reading the files chunkwise wrote
(shards 256³ of 64³ inner chunks, zstd level 1, index at the end with crc32c;
with --unsharded, plain 64³ chunks, zstd level 1: a box meets 8 chunk files,
whose GETs the http peers send as one batch):

  cw      chunkwise's module, chunkwise.set_cache_bytes(--cache-mib),
          chunkwise.open(path, mode="r")[box]
  cw-off  the same with the cache off (the default): what the cache saves
  cw-co   cw-off with coalesced reads on the local store too
          (chunkwise.set_read_coalescing(local=True)): the inner chunks of one
          shard a box needs read in few requests, not one each
  http    cw-off through `chunkwise serve` over HTTP on this machine, with
          remote reads coalesced (the default)
  cw-http the same with the cache on, as `cw`
  http-1  the same with coalescing off: one request per inner chunk
  ts      TensorStore, zarr3 driver, file kvstore, a ts.Context with
          cache_pool.total_bytes_limit = --cache-mib (as its users turn the
          cache on) and recheck_cached_data "open"; array[box].read().result()
  zp-3    zarr-python 3, zarr.open_array(LocalStore(path), mode="r")[box]
          (it keeps no decoded chunks)
  zp-zarrs  the same with the zarrs codec pipeline
          (codec_pipeline.path = "zarrs.ZarrsCodecPipeline", as its README sets it)
  ts-http TensorStore as `ts`, on its http kvstore through the same
          `chunkwise serve` as `http` (cache pool on)
From a local S3 server (moto on loopback, tests/support/s3_test_server.py;
the volume's files uploaded once, untimed):
  cw-s3   chunkwise's module, cache on, chunkwise.open("s3://bucket/...")
          with the endpoint in AWS_ENDPOINT_URL
  ts-s3   TensorStore, zarr3 on its s3 kvstore (endpoint set), cache pool on
  zp-obstore  zarr-python 3 on obstore's S3Store (zarr.storage.ObjectStore)

Printed: per peer and pass, the median (p50) and 99th percentile (p99)
latency of one read, reads per second, the peer's p50 over cw's (above
1: cw is ahead), and requests per read (req/rd) where counted: read system
calls of the process for cw-off and cw-co (/proc/self/io), requests the
server logged for http and http-1 (the shard indexes' reads included), and
CPU milliseconds per read (cpu/rd): the peer's process, user and system,
plus for http and http-1 the server's (a loaded machine stretches latency
by its load; CPU time it stretches far less). docs/benchmarks.md
("random_read_bench") has the command and the latest table.

usage: PYTHONPATH=build/python .venv/bin/python bench/python/random_read_bench.py \
           [--size-mib 256] [--reads 200] [--cache-mib 1024] [--peers cw,cw-off,ts,zp-3]
           [--dir DIR] [--chunkwise build/chunkwise] [--unsharded] [--plane]
(--size-mib 1024 for the 1 GiB volume; a multiple of 32, one shard, by a power of two.)
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

import numpy as np

CHUNK = 64
# The box each read asks for: a 64³ block, or with --plane a cross-section
# one voxel thick (64×64 in y and x), as a viewer's 2-D panel asks.
BOX = [CHUNK, CHUNK, CHUNK]
SHARD = 256
PEERS = ["cw", "cw-off", "cw-co", "http", "http-1", "cw-http", "ts", "zp-3", "zp-zarrs", "ts-http",
         "cw-s3", "ts-s3", "zp-obstore"]
HTTP_PEERS = ["http", "http-1", "cw-http", "ts-http"]
S3_PEERS = ["cw-s3", "ts-s3", "zp-obstore"]
BUCKET, KEY_ID, SECRET, REGION = "chunkwise-test", "testing", "testing", "us-east-1"
DEFAULT_PEERS = ["cw", "cw-off", "ts", "zp-3"]


def shape_for(size_mib: int) -> tuple[int, int, int]:
    """A near-cube of 256³ shards of uint16 holding size_mib MiB."""
    shards = size_mib * (1 << 20) // (2 * SHARD**3)
    if shards < 1 or shards & (shards - 1) or shards * 2 * SHARD**3 != size_mib * (1 << 20):
        raise SystemExit("--size-mib must be 32 (one shard) times a power of two")
    grid = [1, 1, 1]
    for i in range(shards.bit_length() - 1):
        grid[2 - i % 3] *= 2
    return (grid[0] * SHARD, grid[1] * SHARD, grid[2] * SHARD)


def write_volume(path: pathlib.Path, shape: tuple[int, int, int], sharded: bool = True) -> None:
    """A compressible uint16 volume (smooth ramps plus a little noise), written a slab at a time."""
    import chunkwise

    array = chunkwise.create(str(path), shape=shape, dtype="uint16", chunks=[CHUNK] * 3,
                             shards=[SHARD] * 3 if sharded else None, codecs="zstd:1")
    rng = np.random.default_rng(0)
    y, x = np.ogrid[: shape[1], : shape[2]]
    for z0 in range(0, shape[0], SHARD):
        z = np.arange(z0, z0 + SHARD)[:, None, None]
        slab = ((z // 8) * 37 + (y // 16) * 11 + x // 4).astype(np.uint16) % 4096
        array[z0 : z0 + SHARD] = slab + rng.integers(0, 16, slab.shape, dtype=np.uint16)


def boxes_of(shape: tuple[int, int, int], count: int) -> list[list[int]]:
    """`count` random origins of BOX, anywhere in the volume (not chunk-aligned)."""
    rng = np.random.default_rng(42)
    return [[int(rng.integers(0, extent - edge + 1)) for extent, edge in zip(shape, BOX)]
            for _ in range(count)]


def box_at(origin: list[int]) -> tuple[slice, ...]:
    """The slices of BOX at `origin`."""
    return tuple(slice(start, start + edge) for start, edge in zip(origin, BOX))


def tensorstore_kvstore(peer: str, path: pathlib.Path, url: str | None) -> dict:
    """The kvstore spec of TensorStore's peer `peer`."""
    if peer == "ts-http":
        return {"driver": "http", "base_url": f"{url}/{path.name}/"}
    if peer == "ts-s3":
        return {"driver": "s3", "bucket": BUCKET, "path": f"{path.name}/", "endpoint": url,
                "aws_region": REGION}
    return {"driver": "file", "path": str(path)}


def zarr_python_store(peer: str, path: pathlib.Path, url: str | None):
    """The store zarr-python's peer `peer` opens."""
    import zarr.storage

    if peer != "zp-obstore":
        return zarr.storage.LocalStore(path)
    import obstore.store

    return zarr.storage.ObjectStore(
        obstore.store.S3Store(BUCKET, prefix=path.name, endpoint=url, region=REGION,
                              access_key_id=KEY_ID, secret_access_key=SECRET,
                              client_options={"allow_http": True}),
        read_only=True)


def reader(peer: str, path: pathlib.Path, cache_bytes: int, url: str | None):
    """A function reading the box at an origin as a numpy array, for `peer`."""
    if peer in S3_PEERS:  # TensorStore and chunkwise look where the AWS tools do.
        os.environ.update({"AWS_ACCESS_KEY_ID": KEY_ID, "AWS_SECRET_ACCESS_KEY": SECRET,
                           "AWS_REGION": REGION})
    if peer in ("cw", "cw-off", "cw-co", "http", "http-1", "cw-http", "cw-s3"):
        import chunkwise

        chunkwise.set_cache_bytes(0 if peer in ("cw-off", "cw-co", "http", "http-1")
                                  else cache_bytes)
        chunkwise.set_read_coalescing(remote=peer != "http-1", local=peer == "cw-co")
        where = str(path)
        if peer in HTTP_PEERS:
            where = f"{url}/{path.name}"
        elif peer == "cw-s3":
            os.environ["AWS_ENDPOINT_URL"] = url
            where = f"s3://{BUCKET}/{path.name}"
        array = chunkwise.open(where, mode="r")
        return lambda o: array[box_at(o)]
    if peer.startswith("ts"):
        import tensorstore as ts

        context = ts.Context({"cache_pool": {"total_bytes_limit": cache_bytes}})
        spec = {"driver": "zarr3", "kvstore": tensorstore_kvstore(peer, path, url),
                "recheck_cached_data": "open"}
        array = ts.open(spec, context=context, open=True, read=True).result()
        return lambda o: array[box_at(o)].read().result()
    import zarr

    if peer == "zp-zarrs":
        zarr.config.set({"codec_pipeline.path": "zarrs.ZarrsCodecPipeline"})
    array = zarr.open_array(zarr_python_store(peer, path, url), mode="r")
    return lambda o: array[box_at(o)]


def request_counter(peer: str, log: pathlib.Path | None, url: str | None = None):
    """A function giving the requests made so far, for the peers that count them."""
    if peer in HTTP_PEERS and log is not None:
        return lambda: sum(1 for line in log.read_text().splitlines() if line.startswith("GET "))
    if peer in S3_PEERS and url is not None:  # moto counts what it served, by method.
        def served() -> int:
            with urllib.request.urlopen(url + "/__counts__") as reply:
                return json.load(reply).get("GET", 0)
        return served
    if peer in ("cw-off", "cw-co") and os.path.exists("/proc/self/io"):
        def read_calls() -> int:
            with open("/proc/self/io") as io:
                return next(int(line.split()[1]) for line in io if line.startswith("syscr:"))
        return read_calls
    return None


def cpu_seconds(pid: int | None = None) -> float:
    """User plus system CPU seconds of this process, or of process `pid`."""
    if pid is None:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return usage.ru_utime + usage.ru_stime
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_peer(peer: str, path: pathlib.Path, origins: list[list[int]], cache_bytes: int,
             url: str | None = None, log: pathlib.Path | None = None,
             server_pid: int | None = None) -> dict:
    """Both passes in this process: each read's seconds, the requests and the
    CPU seconds (this process's, and the server's when given) of each pass,
    and a checksum of what was read."""
    read = reader(peer, path, cache_bytes, url)
    count = request_counter(peer, log, url)
    passes, requests, cpu, checksum = {}, {}, {}, 0
    for name in ("cold", "warm"):
        seconds, reading = [], 0.0
        before = count() if count else 0
        server_before = cpu_seconds(server_pid) if server_pid else 0.0
        for origin in origins:
            cpu_start = cpu_seconds()
            start = time.perf_counter()
            box = read(origin)
            seconds.append(time.perf_counter() - start)
            reading += cpu_seconds() - cpu_start
            checksum = (checksum + int(np.asarray(box, dtype=np.uint64).sum())) % (1 << 61)
        passes[name] = seconds
        requests[name] = (count() - before) / len(origins) if count else None
        served = cpu_seconds(server_pid) - server_before if server_pid else 0.0
        cpu[name] = (reading + served) / len(origins)
    return {"passes": passes, "requests": requests, "cpu": cpu, "checksum": checksum}


def summary(seconds: list[float]) -> tuple[float, float, float]:
    ordered = sorted(seconds)
    p99 = ordered[min(len(ordered) - 1, int(round(0.99 * (len(ordered) - 1))))]
    return statistics.median(ordered) * 1e3, p99 * 1e3, len(ordered) / sum(ordered)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size-mib", type=int, default=256)
    parser.add_argument("--reads", type=int, default=200)
    parser.add_argument("--cache-mib", type=int, default=1024)
    parser.add_argument("--peers", default=",".join(DEFAULT_PEERS))
    parser.add_argument("--dir", type=pathlib.Path, default=None)
    parser.add_argument("--chunkwise", type=pathlib.Path, default=pathlib.Path("build/chunkwise"),
                        help="the CLI that serves the volume to the http peers")
    parser.add_argument("--plane", action="store_true",
                        help="read 1x64x64 planes (one voxel thick), not 64^3 boxes")
    parser.add_argument("--unsharded", action="store_true",
                        help="plain 64^3 chunks, no shards")
    parser.add_argument("--peer", help=argparse.SUPPRESS)  # A child: run one peer, print JSON.
    parser.add_argument("--path", type=pathlib.Path, help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--log", type=pathlib.Path, help=argparse.SUPPRESS)
    parser.add_argument("--server-pid", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.plane:
        BOX[0] = 1
    shape = shape_for(args.size_mib)
    origins = boxes_of(shape, args.reads)
    cache_bytes = args.cache_mib << 20
    if args.peer:
        print(json.dumps(run_peer(args.peer, args.path, origins, cache_bytes, args.url,
                                  args.log, args.server_pid)))
        return 0

    peers = args.peers.split(",")
    for peer in peers:
        if peer not in PEERS:
            raise SystemExit(f"unknown peer {peer!r}; known: {', '.join(PEERS)}")
    work = pathlib.Path(tempfile.mkdtemp(prefix="random_read_bench.", dir=args.dir))
    server = None
    s3_state = work / "s3.json"
    s3_url = None
    try:
        path = work / "volume.zarr"
        started = time.perf_counter()
        write_volume(path, shape, not args.unsharded)
        layout = f"{CHUNK}^3 chunks" if args.unsharded else f"shards {SHARD}^3 of {CHUNK}^3 chunks"
        print(f"wrote {path}: uint16 {shape[0]}x{shape[1]}x{shape[2]} ({args.size_mib} MiB), "
              f"{layout}, zstd 1, in "
              f"{time.perf_counter() - started:.1f} s", flush=True)
        results = {}
        for peer in peers:
            command = [sys.executable, __file__, "--peer", peer, "--path", str(path),
                       "--size-mib", str(args.size_mib), "--reads", str(args.reads),
                       "--cache-mib", str(args.cache_mib)] + (["--plane"] if args.plane else [])
            if peer in HTTP_PEERS:
                if server is not None:
                    server.terminate()
                    server.wait()
                server, url, log = serve(args.chunkwise, work, peer)
                command += ["--url", url, "--log", str(log), "--server-pid", str(server.pid)]
            elif peer in S3_PEERS:
                if s3_url is None:
                    s3_url = start_s3(s3_state, path)
                command += ["--url", s3_url]
            child = subprocess.run(command, capture_output=True, text=True, env=os.environ)
            if child.returncode != 0:
                print(f"{peer}: failed\n{child.stderr}", file=sys.stderr)
                return 1
            results[peer] = json.loads(child.stdout.strip().splitlines()[-1])
        checksums = {results[peer]["checksum"] for peer in results}
        if len(checksums) != 1:
            print(f"the peers read different values: {results}", file=sys.stderr)
            return 1
        print(f"random {'x'.join(map(str, BOX))} reads, one at a time: {args.reads} boxes, "
              "read twice; "
              f"cache {args.cache_mib} MiB where the peer has one")
        print(f"{'peer':<11}{'pass':<6}{'p50 ms':>9}{'p99 ms':>9}{'reads/s':>10}{'p50/cw':>8}"
              f"{'req/rd':>8}{'cpu/rd':>8}")
        for name in ("cold", "warm"):
            base = summary(results["cw"]["passes"][name])[0] if "cw" in results else None
            for peer in peers:
                p50, p99, rate = summary(results[peer]["passes"][name])
                ratio = f"{p50 / base:8.2f}" if base else f"{'':>8}"
                counted = results[peer].get("requests", {}).get(name)
                requests = f"{counted:8.1f}" if counted is not None else f"{'-':>8}"
                cpu = results[peer]["cpu"][name] * 1e3
                print(f"{peer:<11}{name:<6}{p50:9.2f}{p99:9.2f}{rate:10.1f}{ratio}{requests}"
                      f"{cpu:8.2f}")
        return 0
    finally:
        if server is not None:
            server.terminate()
            server.wait()
        if s3_url is not None:
            subprocess.run([sys.executable, str(S3_SERVER), "stop", "--state", str(s3_state)],
                           check=False)
        shutil.rmtree(work, ignore_errors=True)


S3_SERVER = pathlib.Path(__file__).resolve().parents[2] / "tests" / "support" / "s3_test_server.py"


def start_s3(state: pathlib.Path, volume: pathlib.Path) -> str:
    """Starts the loopback S3 server and uploads the volume's files to its
    bucket under the volume's name (untimed): the endpoint."""
    import boto3

    subprocess.run([sys.executable, str(S3_SERVER), "start", "--state", str(state)], check=True,
                   stdout=subprocess.DEVNULL)
    endpoint = json.loads(state.read_text())["endpoint"]
    s3 = boto3.client("s3", endpoint_url=endpoint, region_name=REGION, aws_access_key_id=KEY_ID,
                      aws_secret_access_key=SECRET)
    for file in sorted(volume.rglob("*")):
        if file.is_file():
            key = f"{volume.name}/{file.relative_to(volume).as_posix()}"
            s3.put_object(Bucket=BUCKET, Key=key, Body=file.read_bytes())
    return endpoint


def serve(cli: pathlib.Path, work: pathlib.Path, peer: str):
    """`chunkwise serve` of `work` on a free port, logging each request to a
    file: the server, its URL and the log."""
    log = work / f"{peer}.log"
    server = subprocess.Popen([str(cli), "--quiet", "serve", str(work), "--port", "0", "--log"],
                              stdout=subprocess.PIPE, stderr=log.open("w"), text=True)
    first = server.stdout.readline().split()
    if len(first) < 4 or first[0] != "serving":
        server.kill()
        raise SystemExit(f"{cli} serve did not start: {first}")
    return server, first[-1].rstrip("/"), log


if __name__ == "__main__":
    sys.exit(main())
