"""zarr-python 3 with chunkwise's codec pipeline, next to every peer, in one run.

Same volume (uint16, 256³ shards of 64³ chunks, index at the end with
crc32c), same codec (zstd level 1, then blosc lz4 level 5 with byte shuffle),
same threads, on files in the same directory:

  cw-pipe  zarr-python 3 + chunkwise.zarr.CodecPipeline (LocalStore)
  zarrs    zarr-python 3 + zarrs.ZarrsCodecPipeline (LocalStore)
  zp-3     zarr-python 3's default BatchedCodecPipeline (LocalStore)
  zp-fused zarr-python 3's opt-in FusedCodecPipeline (LocalStore)
  ts       TensorStore (zarr3 driver, file kvstore, a cache pool, read())
  cw       chunkwise's own module: chunkwise.open(path)[...]
  c++      the C++ library on the same work, through the facade (chunkwise.h):
           bench/python/zarr_facade_peer.cc, its own process, timed inside it

Cases: a full write into a fresh array, a full read into fresh memory, and
64³ sub-chunk reads (one inner chunk of a shard each, at random) with 8 in
flight. The readers read the files cw wrote. Every peer runs every case in
a fresh process of its own, timed inside it (--one-process: all in this one,
where each meets the memory the peers before it left). Each case runs --runs times,
every peer in turn within each run (all writes, then all reads, then all
sub-chunk reads), and the median is printed, as GB/s of
uncompressed data and as the ratio of each peer's time to cw-pipe's (above 1:
cw-pipe is ahead), and the module's time over the library's (cw/c++: 1.10
or less is the issue's goal, "within 10 %"). Configuration of every peer: docs/benchmarks.md,
"zarr_pipeline_bench".

usage: PYTHONPATH=build/python .venv/bin/python bench/python/zarr_pipeline_bench.py \
           [--size-mib 1024] [--runs 3] [--reads 256] [--threads N] [--dir DIR]
           [--cxx-peer build/bench/zarr_facade_peer]
           [--peers cw-pipe,zarrs,...] [--cases write,read,64^3 reads] [--settle 3]
           [--one-process]

--peers and --cases run part of the table (the whole one takes about 25
minutes at 1 GiB on a shared 2-core machine): ratios are then to the first
peer named, and cw/c++ is printed when both are run.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

import numpy as np
import tensorstore as ts
import zarr
import zarr.codecs as zc
import zarr.storage

import chunkwise
import chunkwise.zarr

CHUNK = 64
SHARD = 256
CONCURRENCY = 8
CACHE_POOL_BYTES = 256 << 20
CODECS = ["zstd:1", "blosc:lz4:5:shuffle"]
PEERS = ["cw-pipe", "zarrs", "zp-3", "zp-fused", "ts", "cw", "c++"]
CASES = ["write", "read", "64^3 reads"]
REPOSITORY = pathlib.Path(__file__).resolve().parents[2]


def volume(size_mib: int) -> np.ndarray:
    """A compressible uint16 volume: 256³ shards laid out z, y, x as evenly as a power of two allows."""
    shards = size_mib * (1 << 20) // (2 * SHARD**3)
    if shards < 1 or shards & (shards - 1) or size_mib * (1 << 20) != shards * 2 * SHARD**3:
        raise SystemExit("--size-mib must be 32 (one shard) times a power of two")
    grid = [1, 1, 1]
    for i in range(shards.bit_length() - 1):
        grid[2 - i % 3] *= 2
    shape = tuple(g * SHARD for g in grid)
    z, y, x = np.ogrid[: shape[0], : shape[1], : shape[2]]
    rng = np.random.default_rng(0)
    data = ((z // 8) * 37 + (y // 16) * 11 + x // 4).astype(np.uint16) % 4096
    return data + rng.integers(0, 16, shape, dtype=np.uint16)


def zarr_compressor(codec: str) -> zc.BytesBytesCodec:
    if codec == "zstd:1":
        return zc.ZstdCodec(level=1)
    return zc.BloscCodec(cname="lz4", clevel=5, shuffle="shuffle", typesize=2)


def zarr_config(peer: str, threads: int) -> dict:
    common = {"threading.max_workers": threads, "async.concurrency": 64}
    if peer == "cw-pipe":
        return {**common, "codec_pipeline.path": "chunkwise.zarr.CodecPipeline"}
    if peer == "zarrs":
        return {**common, "codec_pipeline.path": "zarrs.ZarrsCodecPipeline",
                "codec_pipeline.chunk_concurrent_maximum": threads,
                "codec_pipeline.validate_checksums": True, "codec_pipeline.strict": True}
    if peer == "zp-fused":
        return {**common, "codec_pipeline.path": "zarr.core.codec_pipeline.FusedCodecPipeline",
                "codec_pipeline.max_workers": threads}
    return {**common, "codec_pipeline.path": "zarr.core.codec_pipeline.BatchedCodecPipeline"}


def ts_context(threads: int) -> ts.Context:
    return ts.Context({"cache_pool": {"total_bytes_limit": CACHE_POOL_BYTES},
                       "data_copy_concurrency": {"limit": threads},
                       "file_io_concurrency": {"limit": threads}})


def ts_metadata(shape: tuple[int, ...], codec: str) -> dict:
    inner = [{"name": "bytes", "configuration": {"endian": "little"}}]
    if codec == "zstd:1":
        inner.append({"name": "zstd", "configuration": {"level": 1, "checksum": False}})
    else:
        inner.append({"name": "blosc", "configuration": {
            "cname": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": 2, "blocksize": 0}})
    return {"shape": list(shape), "data_type": "uint16", "fill_value": 0,
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [SHARD] * 3}},
            "codecs": [{"name": "sharding_indexed", "configuration": {
                "chunk_shape": [CHUNK] * 3, "codecs": inner,
                "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                                 {"name": "crc32c"}],
                "index_location": "end"}}]}


def ts_open(path: pathlib.Path, threads: int, metadata: dict | None = None) -> ts.TensorStore:
    spec = {"driver": "zarr3", "kvstore": {"driver": "file", "path": str(path)},
            "recheck_cached_data": "open"}
    if metadata is None:
        return ts.open(spec, context=ts_context(threads), open=True).result()
    spec["metadata"] = metadata
    return ts.open(spec, context=ts_context(threads), create=True, delete_existing=True).result()


def boxes_of(shape: tuple[int, ...], count: int) -> list[tuple[slice, ...]]:
    """`count` 64³ inner chunks at random (the same for every peer)."""
    rng = np.random.default_rng(1)
    grid = [n // CHUNK for n in shape]
    picks = [tuple(int(rng.integers(0, g)) for g in grid) for _ in range(count)]
    return [tuple(slice(c * CHUNK, (c + 1) * CHUNK) for c in pick) for pick in picks]


# --- each peer's three operations ---------------------------------------------
class Peer:
    def __init__(self, name: str, threads: int) -> None:
        self.name, self.threads = name, threads
        # The c++ peer's files and its own timing (its process's start and the
        # loading of the volume are not part of the work).
        self.cxx: "CxxPeer | None" = None
        self.reported: float | None = None
        # Each Python peer runs each case in a process of its own, as c++ does:
        # in one shared process a peer paid for the memory the peers before it
        # had left fragmented (see "Each peer in its own process" in the docs).
        self.isolated = False

    def write(self, path: pathlib.Path, data: np.ndarray, codec: str) -> None:
        shutil.rmtree(path, ignore_errors=True)
        if self.isolated:
            self.reported, _ = self.cxx.child(self, "write", path, codec)
        elif self.name == "c++":
            self.reported = self.cxx.run("write", self.cxx.raw, path, codec,
                                         *map(str, data.shape), self.threads)
        elif self.name == "ts":
            ts_open(path, self.threads, ts_metadata(data.shape, codec)).write(data).result()
        elif self.name == "cw":
            array = chunkwise.create(str(path), shape=data.shape, dtype="uint16",
                                     chunks=(CHUNK,) * 3, shards=(SHARD,) * 3, codecs=codec,
                                     fill_value=0)
            array[...] = data
        else:
            with zarr.config.set(zarr_config(self.name, self.threads)):
                array = zarr.create_array(zarr.storage.LocalStore(path), shape=data.shape,
                                          dtype="uint16", chunks=(CHUNK,) * 3,
                                          shards=(SHARD,) * 3, fill_value=0,
                                          compressors=zarr_compressor(codec))
                array[:] = data

    def read(self, path: pathlib.Path) -> np.ndarray | None:
        if self.isolated:
            self.reported, out = self.cxx.child(self, "read", path)
            return out
        if self.name == "c++":
            dump = self.cxx.dump if self.cxx.check else None
            self.reported = self.cxx.run("read", path, self.threads, *([dump] if dump else []))
            return self.cxx.load(dump, self.cxx.shape) if dump else None
        if self.name == "ts":
            return ts_open(path, self.threads).read().result()
        if self.name == "cw":
            return chunkwise.open(str(path))[...]
        with zarr.config.set(zarr_config(self.name, self.threads)):
            return zarr.open_array(zarr.storage.LocalStore(path), mode="r")[:]

    def read_boxes(self, path: pathlib.Path, boxes: list[tuple[slice, ...]]) -> list | None:
        if self.isolated:
            self.reported, out = self.cxx.child(self, "boxes", path)
            return None if out is None else list(out)
        if self.name == "c++":
            dump = self.cxx.dump if self.cxx.check else None
            self.reported = self.cxx.run("boxes", path, self.cxx.boxes, CONCURRENCY, self.threads,
                                         *([dump] if dump else []))
            return list(self.cxx.load(dump, (len(boxes),) + (CHUNK,) * 3)) if dump else None
        if self.name == "ts":
            array = ts_open(path, self.threads)
            out, pending = [], []
            for box in boxes:  # A window of CONCURRENCY reads in flight.
                pending.append(array[box].read())
                if len(pending) == CONCURRENCY:
                    out.append(pending.pop(0).result())
            return out + [future.result() for future in pending]
        if self.name == "cw":
            array = chunkwise.open(str(path))
            with concurrent.futures.ThreadPoolExecutor(CONCURRENCY) as pool:
                return list(pool.map(lambda box: array[box], boxes))
        with zarr.config.set(zarr_config(self.name, self.threads)):
            return asyncio.run(self._zarr_read_boxes(path, boxes))

    @staticmethod
    async def _zarr_read_boxes(path: pathlib.Path, boxes: list) -> list[np.ndarray]:
        array = await zarr.api.asynchronous.open_array(store=zarr.storage.LocalStore(path),
                                                       mode="r")
        gate = asyncio.Semaphore(CONCURRENCY)

        async def one(box: tuple[slice, ...]) -> np.ndarray:
            async with gate:
                return await array.getitem(box)

        return list(await asyncio.gather(*(one(box) for box in boxes)))


class CxxPeer:
    """The files zarr_facade_peer reads and writes, in the bench's directory."""

    def __init__(self, binary: pathlib.Path, work: pathlib.Path, data: np.ndarray,
                 boxes: list[tuple[slice, ...]]) -> None:
        self.binary, self.shape, self.check = binary, data.shape, False
        self.raw, self.dump, self.boxes = work / "volume.raw", work / "read.raw", work / "boxes.txt"
        data.tofile(self.raw)
        self.boxes.write_text("".join(f"{b[0].start} {b[1].start} {b[2].start}\n" for b in boxes))

    def run(self, *args: object) -> float:
        done = subprocess.run([str(self.binary), *map(str, args)], capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"zarr_pipeline_bench: zarr_facade_peer {args[0]}: {done.stderr}")
        return float(done.stdout.split()[-1])

    @staticmethod
    def load(path: pathlib.Path, shape: tuple[int, ...]) -> np.ndarray:
        return np.fromfile(path, dtype=np.uint16).reshape(shape)

    def child(self, peer: Peer, case: str, path: pathlib.Path,
              codec: str = "") -> tuple[float, np.ndarray | None]:
        """`peer`'s `case` in a fresh Python process: its time, and what it read when checking."""
        dump = self.dump.with_suffix(".npy") if self.check and case in ("read", "boxes") else None
        job = {"peer": peer.name, "case": case, "path": str(path), "codec": codec,
               "threads": peer.threads, "raw": str(self.raw), "shape": list(self.shape),
               "boxes": str(self.boxes), "dump": str(dump) if dump else None}
        done = subprocess.run([sys.executable, __file__, "--child", json.dumps(job)],
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"zarr_pipeline_bench: {peer.name} {case} (own process): "
                             f"{done.stderr.strip()}")
        return float(done.stdout.split()[-1]), np.load(dump) if dump else None


def fault_in(nbytes: int, threads: int) -> None:
    """What every whole read pays besides decoding: a fresh output, written once per page.

    As a read does, `threads` threads each fault in a part (numpy lets go of the GIL).
    """
    output = np.empty(nbytes, dtype=np.uint8)  # numpy advises huge pages, as the library does.
    part = -(-nbytes // threads)
    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        list(pool.map(lambda start: output[start:start + part:4096].fill(1),
                      range(0, nbytes, part)))


def run_child(job: dict) -> int:
    """One peer's one case, timed in this process (the parent's `--child`)."""
    peer = Peer(job["peer"], job["threads"])
    path = pathlib.Path(job["path"])
    if job["case"] == "write":
        data = CxxPeer.load(pathlib.Path(job["raw"]), tuple(job["shape"]))
        elapsed, out = timed(lambda: peer.write(path, data, job["codec"]))
    elif job["case"] == "read":
        elapsed, out = timed(lambda: peer.read(path))
    elif job["case"] == "touch":
        elapsed, out = timed(lambda: fault_in(2 * int(np.prod(job["shape"])), job["threads"]))
    else:
        lines = pathlib.Path(job["boxes"]).read_text().split("\n")
        boxes = [tuple(slice(int(c), int(c) + CHUNK) for c in line.split()) for line in lines
                 if line]
        elapsed, out = timed(lambda: peer.read_boxes(path, boxes))
    if job["dump"]:
        np.save(job["dump"], np.asarray(out))
    print(f"seconds {elapsed}")
    return 0


def timed(operation: Callable[[], object]) -> tuple[float, object]:
    start = time.perf_counter()
    result = operation()
    return time.perf_counter() - start, result


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        return run_child(json.loads(sys.argv[2]))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size-mib", type=int, default=1024)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--reads", type=int, default=256, help="64³ sub-chunk reads per run")
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--dir", default=None, help="where the arrays go (default: $TMPDIR)")
    parser.add_argument("--cxx-peer", type=pathlib.Path,
                        default=REPOSITORY / "build" / "bench" / "zarr_facade_peer",
                        help="the C++ library's row (bench/python/zarr_facade_peer.cc)")
    parser.add_argument("--peers", type=_names_of(PEERS), default=PEERS,
                        help="comma-separated, of " + ",".join(PEERS))
    parser.add_argument("--cases", type=_names_of(CASES), default=CASES,
                        help="comma-separated, of " + ",".join(CASES))
    parser.add_argument("--settle", type=float, default=3.0,
                        help="seconds of rest before each timed case, so that every peer "
                             "starts on memory in the same state (default 3)")
    parser.add_argument("--one-process", action="store_true",
                        help="run the Python peers in this process, one after another, as "
                             "before: each then meets the memory the others left")
    args = parser.parse_args()
    if args.threads != os.cpu_count():
        print(f"note: chunkwise's pool has one thread per core ({os.cpu_count()}); "
              f"the peers get {args.threads}", file=sys.stderr)

    data = volume(args.size_mib)
    boxes = boxes_of(data.shape, args.reads)
    peers = [Peer(name, args.threads) for name in args.peers]
    for peer in peers:
        peer.isolated = peer.name != "c++" and not args.one_process
    if "c++" in args.peers and not args.cxx_peer.is_file():
        raise SystemExit(f"zarr_pipeline_bench: no {args.cxx_peer} (cmake --build build "
                         "--target zarr_facade_peer); the c++ row cannot run")
    work = pathlib.Path(tempfile.mkdtemp(prefix="zarr-pipeline-bench-", dir=args.dir))
    print(f"zarr pipeline bench: {data.nbytes / 2**30:.2f} GiB uint16 {list(data.shape)}, "
          f"shards {SHARD}^3 of chunks {CHUNK}^3, {args.threads} threads, medians of "
          f"{args.runs} runs; {args.reads} reads of one {CHUNK}^3 chunk, {CONCURRENCY} in flight")
    print(f"versions: zarr {zarr.__version__}, zarrs {_version('zarrs')}, "
          f"tensorstore {_version("tensorstore")}, chunkwise {chunkwise.__version__}")
    try:
        cxx = CxxPeer(args.cxx_peer, work, data, boxes)
        for peer in peers:
            peer.cxx = cxx
        for codec in CODECS:
            run_codec(codec, data, boxes, peers, work, args.runs, args.cases, args.settle)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def run_codec(codec: str, data: np.ndarray, boxes: list, peers: list[Peer],
              work: pathlib.Path, runs: int, cases: list[str], settle: float) -> None:
    source = work / "source"
    Peer("cw", peers[0].threads).write(source, data, codec)
    seconds: dict[tuple[str, str], list[float]] = {}
    floor = Peer("floor", peers[0].threads)

    def fault_in_floor() -> None:
        floor.reported, _ = peers[0].cxx.child(floor, "touch", source)

    def measure(peer: Peer, case: str, operation: Callable[[], object]) -> object:
        # Memory a process frees is handed back to the host after about 2 s on a
        # VM with free page reporting; the next process to touch it faults it
        # in from the host again. Without a pause, whichever peer ran right
        # after a large one got warm memory or cold by luck of the order.
        time.sleep(settle)
        peer.reported = None
        elapsed, result = timed(operation)
        elapsed = peer.reported if peer.reported is not None else elapsed
        seconds.setdefault((peer.name, case), []).append(elapsed)
        return result

    # Case by case, every peer in turn, so that one case's conditions (the
    # writes' pages still being flushed, say) fall on every peer alike.
    for run in range(runs):
        peers[0].cxx.check = run == 0  # The c++ peer hands back what it read, to be checked.
        for peer in peers if "write" in cases else []:
            target = work / peer.name
            measure(peer, "write", lambda: peer.write(target, data, codec))
            if run == 0:  # Each peer's array must hold the volume (checked once, untimed).
                check(np.array_equal(chunkwise.open(str(target))[...], data),
                      f"{peer.name} wrote a wrong array")
            shutil.rmtree(target, ignore_errors=True)
        os.sync()
        if "read" in cases:
            measure(floor, "read", fault_in_floor)
        for peer in peers if "read" in cases else []:
            out = measure(peer, "read", lambda: peer.read(source))
            if run == 0:
                check(np.array_equal(np.asarray(out), data), f"{peer.name} read wrong values")
            del out
        for peer in peers if "64^3 reads" in cases else []:
            parts = measure(peer, "64^3 reads", lambda: peer.read_boxes(source, boxes))
            if run == 0:
                check(all(np.array_equal(np.asarray(p), data[b]) for p, b in zip(parts, boxes)),
                      f"{peer.name} read wrong sub-chunks")
    report(codec, data.nbytes, len(boxes) * CHUNK**3 * 2, seconds, [p.name for p in peers],
           cases)


def report(codec: str, volume_bytes: int, box_bytes: int,
           seconds: dict[tuple[str, str], list[float]], names: list[str],
           cases: list[str]) -> None:
    base, both = names[0], "cw" in names and "c++" in names
    print(f"\n{codec}: GB/s of uncompressed data (median); ratio = peer's time / {base}'s")
    print(f"{'case':<12}" + "".join(f"{name:>10}" for name in names)
          + "".join(f"{'/' + name:>10}" for name in names[1:])
          + (f"{'cw/c++':>10}" if both else ""))
    for case in (case for case in CASES if case in cases):
        nbytes = box_bytes if case == "64^3 reads" else volume_bytes
        median = {name: statistics.median(seconds[(name, case)]) for name in names}
        line = f"{case:<12}" + "".join(f"{nbytes / median[name] / 1e9:>10.3f}" for name in names)
        line += "".join(f"{median[name] / median[base]:>9.2f}x" for name in names[1:])
        if both:
            line += f"{median['cw'] / median['c++']:>9.2f}x"
        print(line, flush=True)
    if ("floor", "read") in seconds:
        floor = statistics.median(seconds[("floor", "read")])
        print(f"{'limit':<12}{volume_bytes / floor / 1e9:>10.3f} GB/s: a whole read's fresh output "
              f"faulted in (own process, same rest), {floor:.3f} s; no read is faster", flush=True)


def _names_of(known: list[str]) -> Callable[[str], list[str]]:
    """An argparse type: a comma-separated list of some of `known`, in `known`'s order."""

    def parse(text: str) -> list[str]:
        names = [name.strip() for name in text.split(",") if name.strip()]
        unknown = [name for name in names if name not in known]
        if unknown or not names:
            raise argparse.ArgumentTypeError(f"{','.join(unknown) or text!r}: not one of "
                                             + ",".join(known))
        return [name for name in known if name in names]

    return parse


def check(condition: bool, message: str) -> None:
    if not condition:
        raise SystemExit(f"zarr_pipeline_bench: {message}")


def _version(package: str) -> str:
    from importlib.metadata import version

    return version(package)


if __name__ == "__main__":
    sys.exit(main())
