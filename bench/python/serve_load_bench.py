"""`chunkwise serve` under many viewers, next to static file servers (#42).

32 clients (by default) replay what a neuroglancer viewer asks for while a
user pans, zooms and scrolls through an image: for each view, the chunks of
the three cross-sections (xy, xz, yz; 480x270 pixels each) at the scale that
matches the zoom, nearest the centre first, each chunk once per client (the
viewer keeps what it has). Each client is one keep-alive connection (a new
one per request where the server closes it) that waits for each response
before the next request; clients run as threads in a few processes, so that
a slow server, not the client, is what the figures show. Every client walks
its own path (seeded by its number); every server gets the same paths.

Two workloads on one generated uint16 volume (microscopy-like frames of
`chunkwise generate`), both written by chunkwise:

  chunks  an unsharded precomputed image with 3 scales of 64^3 chunks: one
          GET per chunk file (512 KiB)
  ranges  a sharded zarr v3 array (shards 64x256x256 of 64^3 chunks, zstd 3,
          crc32c): a Range GET of a shard's index when a client first needs
          that shard, then one Range GET per inner chunk, as neuroglancer's
          zarr3 source reads shards

Servers, each as its users run it:

  cw      `chunkwise serve DIR --port 0` (its defaults: 16 threads,
          keep-alive, Range)
  nginx   Debian's nginx-light: `worker_processes auto`, `sendfile on`,
          `tcp_nopush on`, keep-alive 65 s, `access_log off`, root DIR
          (skipped, and said so, where /usr/sbin/nginx is not installed)
  py      `python3 -m http.server --bind 127.0.0.1` (ThreadingHTTPServer,
          HTTP/1.0: one connection per request; it has no Range support, so
          it serves only the chunks workload)

Printed per workload and server: requests, median (p50) and 99th percentile
(p99) latency of one request, requests and MB per second over the run,
errors, and cw's p50 and p99 over the server's (below 1: cw is faster; the
goal is cw's p99 within 2x the static server's). The limit row is one
reader of the same files from the page cache (no network, no server): what
a server could at best hand over per second. docs/benchmarks.md
("serve_load_bench") has the command and the latest table.

usage: .venv/bin/python bench/python/serve_load_bench.py [--chunkwise build/chunkwise]
           [--clients 32] [--steps 12] [--processes 4] [--servers cw,nginx,py]
           [--shape 128,1024,1024] [--dir DIR]
"""

from __future__ import annotations

import argparse
import http.client
import json
import math
import multiprocessing
import os
import pathlib
import random
import re
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time

CHUNK = 64
SCALES = 3
PANEL = (480, 270)  # pixels of each cross-section panel
SHARD = (64, 256, 256)  # z, y, x of the ranges workload's shards
SERVERS = ["cw", "nginx", "py"]
NGINX = "/usr/sbin/nginx"


def run(command: list[str]) -> None:
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)


def make_data(chunkwise: str, work: pathlib.Path, shape: str) -> None:
    """The frames as a precomputed image (chunks) and as a sharded zarr v3 array (ranges)."""
    data = work / "data"
    data.mkdir()
    run([chunkwise, "-q", "generate", "--shape", shape, "--neurons", "4",
         "--labels", str(work / "labels.npy"), "--frames", str(work / "frames.npy")])
    (work / "labels.npy").unlink()
    run([chunkwise, "-q", "import", str(work / "frames.npy"), str(data / "frames.zarr"),
         "--chunk", f"{CHUNK},{CHUNK},{CHUNK}", "--shard", ",".join(map(str, SHARD))])
    (work / "frames.npy").unlink()
    run([chunkwise, "-q", "zarr", "to-precomputed", str(data / "frames.zarr"),
         str(data / "image"), "--type", "image", "--chunk", f"{CHUNK},{CHUNK},{CHUNK}",
         "--scales", str(SCALES), "--resolution", "8,8,8"])


class Volume:
    """What the clients need to know of the two outputs: sizes and shard indexes."""

    def __init__(self, data: pathlib.Path):
        info = json.loads((data / "image" / "info").read_text())
        self.sizes = [scale["size"] for scale in info["scales"]]  # x, y, z per scale
        self.keys = [scale["key"] for scale in info["scales"]]
        meta = json.loads((data / "frames.zarr" / "zarr.json").read_text())
        self.shape = meta["shape"]  # z, y, x
        self.shard_index = {}  # shard key: (index range, [(offset, size)] per inner chunk)
        per_shard = [s // CHUNK for s in SHARD]
        entries = per_shard[0] * per_shard[1] * per_shard[2]
        index_bytes = 16 * entries + 4  # offset and size per chunk, then crc32c
        for path in sorted((data / "frames.zarr" / "c").rglob("*")):
            if not path.is_file():
                continue
            raw = path.read_bytes()
            index = raw[-index_bytes:-4]
            pairs = [struct.unpack_from("<QQ", index, 16 * i) for i in range(entries)]
            key = "/".join(path.relative_to(data / "frames.zarr").parts)
            self.shard_index[key] = ((len(raw) - index_bytes, len(raw)), pairs)

    def chunk_requests(self, scale: int, chunk: tuple[int, int, int]) -> list[tuple[str, tuple | None]]:
        """The chunks workload: one GET of the chunk file (x, y, z chunk indices)."""
        size = self.sizes[scale]
        bounds = [f"{c * CHUNK}-{min((c + 1) * CHUNK, n)}" for c, n in zip(chunk, size)]
        return [(f"/image/{self.keys[scale]}/{'_'.join(bounds)}", None)]

    def range_requests(self, chunk: tuple[int, int, int], seen_shards: set) -> list:
        """The ranges workload (scale 0 only: one array): the shard's index
        once, then the inner chunk's bytes; nothing for an empty chunk."""
        x, y, z = chunk
        per = [s // CHUNK for s in SHARD]
        shard = (z // per[0], y // per[1], x // per[2])
        key = f"c/{shard[0]}/{shard[1]}/{shard[2]}"
        index_range, pairs = self.shard_index[key]
        requests = []
        if key not in seen_shards:
            seen_shards.add(key)
            requests.append((f"/frames.zarr/{key}", index_range))
        inner = ((z % per[0]) * per[1] + (y % per[1])) * per[2] + (x % per[2])
        offset, size = pairs[inner]
        if offset != 2**64 - 1:
            requests.append((f"/frames.zarr/{key}", (offset, offset + size)))
        return requests


def view_chunks(volume: Volume, scale: int, centre: list[float]) -> list[tuple[int, int, int]]:
    """The chunks (x, y, z indices at `scale`) under the three panels centred
    at `centre` (scale-0 voxels, x, y, z), nearest the centre first."""
    factor = 2**scale
    size = volume.sizes[scale]
    at = [c / factor for c in centre]
    half_w, half_h = PANEL[0] / 2, PANEL[1] / 2  # one panel pixel is one voxel of this scale
    chunks = set()
    planes = ((0, 1, 2), (0, 2, 1), (1, 2, 0))  # (across, down, fixed axis)
    for across, down, fixed in planes:
        ranges = {across: (at[across] - half_w, at[across] + half_w),
                  down: (at[down] - half_h, at[down] + half_h),
                  fixed: (at[fixed], at[fixed] + 1)}
        spans = []
        for axis in range(3):
            lo, hi = ranges[axis]
            lo, hi = max(0, int(lo) // CHUNK), min(math.ceil(size[axis] / CHUNK), math.ceil(hi / CHUNK))
            spans.append(range(lo, hi))
        chunks.update((x, y, z) for x in spans[0] for y in spans[1] for z in spans[2])
    return sorted(chunks, key=lambda c: sum(((i + 0.5) * CHUNK - a) ** 2 for i, a in zip(c, at)))


def client_trace(volume: Volume, workload: str, client: int, steps: int) -> list:
    """Client `client`'s requests: a path of pans, zooms and scrolls."""
    rng = random.Random(client)
    extent = volume.sizes[0]
    centre = [rng.uniform(0, extent[axis]) for axis in range(3)]
    scale = 0 if workload == "ranges" else rng.randrange(SCALES)
    seen, seen_shards, requests = set(), set(), []
    for _ in range(steps):
        for chunk in view_chunks(volume, scale, centre):
            if (scale, chunk) in seen:
                continue
            seen.add((scale, chunk))
            if workload == "chunks":
                requests += volume.chunk_requests(scale, chunk)
            else:
                requests += volume.range_requests(chunk, seen_shards)
        move = rng.random()
        step = 120 * 2**scale
        if move < 0.6:  # pan
            axis = rng.randrange(2)
            centre[axis] = min(max(centre[axis] + rng.choice((-step, step)), 0), extent[axis] - 1)
        elif move < 0.8 and workload == "chunks":  # zoom in or out
            scale = min(max(scale + rng.choice((-1, 1)), 0), SCALES - 1)
        else:  # scroll through z
            centre[2] = min(max(centre[2] + rng.choice((-8, 8)) * 2**scale, 0), extent[2] - 1)
    return requests


def fetch(port: int, trace: list, results: list) -> None:
    """One client: each request on a kept-alive connection, waited for."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    for path, byte_range in trace:
        headers = {} if byte_range is None else {"Range": f"bytes={byte_range[0]}-{byte_range[1] - 1}"}
        started = time.perf_counter()
        try:
            connection.request("GET", path, headers=headers)
            response = connection.getresponse()
            body = response.read()
            expected = 200 if byte_range is None else 206
            ok = response.status == expected and (
                byte_range is None or len(body) == byte_range[1] - byte_range[0])
            if response.will_close:
                connection.close()
        except (OSError, http.client.HTTPException):
            connection.close()
            ok, body = False, b""
        results.append((time.perf_counter() - started, len(body), ok))
    connection.close()


def client_process(port: int, traces: list, queue) -> None:
    """Several clients as threads of one process; their results go to `queue`."""
    results = [[] for _ in traces]
    threads = [threading.Thread(target=fetch, args=(port, trace, out))
               for trace, out in zip(traces, results)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    queue.put([item for out in results for item in out])


def replay(port: int, traces: list, processes: int) -> dict:
    """All clients at once; latency percentiles and rates over the run."""
    queue = multiprocessing.Queue()
    groups = [traces[i::processes] for i in range(processes)]
    workers = [multiprocessing.Process(target=client_process, args=(port, group, queue))
               for group in groups if group]
    started = time.perf_counter()
    for worker in workers:
        worker.start()
    results = [item for _ in workers for item in queue.get()]
    elapsed = time.perf_counter() - started
    for worker in workers:
        worker.join()
    seconds = sorted(r[0] for r in results if r[2])
    errors = sum(1 for r in results if not r[2])
    if not seconds:
        return {"requests": len(results), "errors": errors}
    p99 = seconds[min(len(seconds) - 1, int(round(0.99 * (len(seconds) - 1))))]
    return {"requests": len(results), "errors": errors, "p50": statistics.median(seconds) * 1e3,
            "p99": p99 * 1e3, "rps": len(results) / elapsed,
            "mbps": sum(r[1] for r in results) / elapsed / 1e6}


def wait_for_port(port: int, process: subprocess.Popen, name: str) -> None:
    for _ in range(200):
        if process.poll() is not None:
            raise SystemExit(f"{name} exited with {process.returncode} before it listened")
        try:
            http.client.HTTPConnection("127.0.0.1", port, timeout=1).connect()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"{name} did not listen on 127.0.0.1:{port}")


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_server(name: str, chunkwise: str, data: pathlib.Path, work: pathlib.Path):
    """The server's process and port, or None where it is not installed."""
    if name == "cw":
        process = subprocess.Popen([chunkwise, "serve", str(data), "--port", "0"],
                                   stdout=subprocess.PIPE, text=True)
        port = int(re.search(r"127\.0\.0\.1:(\d+)", process.stdout.readline()).group(1))
    elif name == "py":
        port = free_port()
        process = subprocess.Popen([sys.executable, "-m", "http.server", "--bind", "127.0.0.1",
                                    "--directory", str(data), str(port)],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    else:
        if not os.access(NGINX, os.X_OK):
            return None
        port = free_port()
        prefix = work / "nginx"
        prefix.mkdir(exist_ok=True)
        temp = " ".join(f"{kind}_temp_path {prefix / kind};"
                        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
        (prefix / "nginx.conf").write_text(
            f"daemon off; worker_processes auto; pid {prefix / 'nginx.pid'};\n"
            f"error_log {prefix / 'error.log'};\nevents {{}}\n"
            f"http {{ access_log off; sendfile on; tcp_nopush on; keepalive_timeout 65;\n"
            f"  default_type application/octet-stream; {temp}\n"
            f"  server {{ listen 127.0.0.1:{port}; root {data}; }} }}\n")
        process = subprocess.Popen([NGINX, "-p", str(prefix), "-c", str(prefix / "nginx.conf")],
                                   stderr=subprocess.DEVNULL)
    wait_for_port(port, process, name)
    return process, port


def page_cache_limit(data: pathlib.Path, traces: list) -> float:
    """MB/s of one reader of the traces' unique byte ranges from the page cache."""
    wanted = {(path, byte_range) for trace in traces for path, byte_range in trace}
    started, total = time.perf_counter(), 0
    for path, byte_range in wanted:
        with open(data / path.lstrip("/"), "rb") as file:
            if byte_range is None:
                total += len(file.read())
            else:
                file.seek(byte_range[0])
                total += len(file.read(byte_range[1] - byte_range[0]))
    return total / (time.perf_counter() - started) / 1e6


def print_table(workload: str, rows: dict, limit: float) -> None:
    print(f"\n{workload}: page-cache limit {limit:,.0f} MB/s (one reader, no server)")
    print(f"{'server':8} {'requests':>8} {'p50 ms':>8} {'p99 ms':>8} {'req/s':>8} {'MB/s':>8} "
          f"{'errors':>6} {'cw/p50':>7} {'cw/p99':>7} {'MB/s/limit':>10}")
    cw = rows.get("cw")
    for name, row in rows.items():
        if row is None or "p50" not in row:
            reason = "not installed" if row is None else f"{row['errors']} errors, no answers"
            print(f"{name:8} {reason}")
            continue
        ratio = lambda key: f"{cw[key] / row[key]:.2f}" if cw and "p50" in cw else "-"
        print(f"{name:8} {row['requests']:8d} {row['p50']:8.2f} {row['p99']:8.2f} "
              f"{row['rps']:8.0f} {row['mbps']:8.0f} {row['errors']:6d} {ratio('p50'):>7} "
              f"{ratio('p99'):>7} {row['mbps'] / limit:10.2f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chunkwise", default="build/chunkwise")
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--servers", default=",".join(SERVERS))
    parser.add_argument("--shape", default="128,1024,1024", help="z,y,x of the volume")
    parser.add_argument("--dir", type=pathlib.Path, default=None)
    args = parser.parse_args()
    servers = args.servers.split(",")
    for name in servers:
        if name not in SERVERS:
            raise SystemExit(f"unknown server {name!r}; known: {', '.join(SERVERS)}")
    chunkwise = str(pathlib.Path(args.chunkwise).resolve())
    work = pathlib.Path(tempfile.mkdtemp(prefix="serve_load_bench.", dir=args.dir))
    work.chmod(0o755)  # nginx's workers run as another user (www-data) where we are root
    try:
        started = time.perf_counter()
        make_data(chunkwise, work, args.shape)
        data = work / "data"
        volume = Volume(data)
        print(f"wrote {data}: uint16 {args.shape} (z,y,x) as a precomputed image ({SCALES} scales "
              f"of {CHUNK}^3) and a sharded zarr v3 array, in {time.perf_counter() - started:.1f} s; "
              f"{args.clients} clients, {args.steps} views each, {args.processes} client processes, "
              f"{os.cpu_count()} cores", flush=True)
        for workload in ("chunks", "ranges"):
            traces = [client_trace(volume, workload, client, args.steps)
                      for client in range(args.clients)]
            limit = page_cache_limit(data, traces)
            rows = {}
            for name in servers:
                if name == "py" and workload == "ranges":
                    continue  # http.server answers a Range request with the whole file.
                server = start_server(name, chunkwise, data, work)
                if server is None:
                    rows[name] = None
                    continue
                process, port = server
                try:
                    rows[name] = replay(port, traces, args.processes)
                finally:
                    process.terminate()
                    process.wait(timeout=30)
            print_table(workload, rows, limit)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
