"""`chunkwise import` of a TIFF stack and an HDF5 dataset into a sharded zarr
v3 array, next to the tools users would use for the same job (#43).

Inputs, generated once into --dir (kept there and reused by a later run of
the same size): a uint16 volume of PLANES x 2048 x 2048 (--gib 4: 512 planes
of 8 MiB), microscopy-like (a smooth pattern that drifts from plane to plane
plus 5 bits of noise: zstd 3 packs it to about 60%), written as

  tiff  one BigTIFF by tifffile (`TiffWriter(bigtiff=True)`, one
        uncompressed page a plane, `contiguous=True`: one series)
  hdf5  one dataset "/volume" by h5py, chunked 64x64x64 with gzip level 4
        (`compression="gzip"`, h5py's default level; no shuffle), as labs
        write them

Every tool writes the same array: zarr v3, shards 64x512x512 of 64^3 inner
chunks, bytes (little endian) + zstd level 3 inside, index at the end with
crc32c, fill value 0, with the same threads (--threads, default one per
core). Each runs in a process of its own; wall time and CPU seconds (user +
system, `getrusage` of the child) are measured around the process:

  ours   `chunkwise -q import SRC DEST --chunk 64,64,64 --shard 64,512,512
         --codec zstd:3 --threads N` (SRC for HDF5 is FILE.h5:/volume)
  zp3    tifffile / h5py reading 64-plane slabs (`TiffFile.asarray(key=
         range(z0, z1))`, `dataset[z0:z1]`), zarr-python 3 writing each
         (`arr[z0:z1] = slab`) into `zarr.create_array(..., chunks=64^3,
         shards=(64,512,512), compressors=ZstdCodec(level=3))`; its default
         pipeline, `threading.max_workers` = N, `async.concurrency` 64
  zarrs  the same with zarr-python's zarrs codec pipeline (zarrs 0.2.3,
         `chunk_concurrent_maximum` = N, `strict`)
  ts     TensorStore: the same slabs read by tifffile / h5py into numpy and
         written by `array[z0:z1].write(slab)` into a zarr3 driver array
         with `sharding_indexed` metadata, one write in flight while the
         next slab is read; a context with `data_copy_concurrency` and
         `file_io_concurrency` = N

Each output is then checked value-exact against the input on a sample of
boxes (read back by zarr-python, outside the timing). The limit rows,
measured in the same run, are the parts of the job no tool can skip, each
in a process of its own: reading the input file's bytes (64 MiB reads), for
HDF5 inflating its chunks (`read_direct_chunk` + zlib, N threads), and
zstd-3 compressing the 64^3 chunks alone (python-zstandard, N threads).
Their CPU-s/GB add up to the least CPU an import can spend.

Printed per input: wall seconds, GB/s (GB = 10^9 bytes of the array),
CPU-s/GB (the primary figure on a shared machine), and ours over each tool
(GB/s: ours / theirs; CPU: theirs / ours; above 1 ours is ahead). Medians
over --runs; the tools run in turn within each run. docs/benchmarks.md
("import_bench") has the command and the latest table.

usage: .venv/bin/python bench/python/import_bench.py [--chunkwise build/chunkwise]
           [--gib 4] [--runs 3] [--threads N] [--inputs tiff,hdf5]
           [--tools ours,zp3,zarrs,ts] [--dir DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

PLANE = (2048, 2048)  # y, x of one plane: 8 MiB of uint16
SLAB = 64  # planes per slab: the shards' depth
CHUNKS = (64, 64, 64)
SHARDS = (64, 512, 512)
ZSTD_LEVEL = 3
GZIP_LEVEL = 4  # h5py's default
H5_CHUNKS = (64, 64, 64)
DATASET = "/volume"
TOOLS = ["ours", "zp3", "zarrs", "ts"]
ASYNC_CONCURRENCY = 64
CHECK_BOXES = 12


# ---------------------------------------------------------------- inputs


def plane_values(z: int, pattern: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Plane z: the smooth pattern drifted by z plus 5 bits of noise."""
    shifted = np.roll(pattern, (3 * z) % PLANE[1], axis=1)
    return shifted + rng.integers(0, 32, PLANE, dtype=np.uint16)


def planes_of(count: int):
    """The volume's planes in order, the same for every input."""
    y = np.linspace(0, 12 * np.pi, PLANE[0], dtype=np.float32)[:, None]
    x = np.linspace(0, 9 * np.pi, PLANE[1], dtype=np.float32)[None, :]
    pattern = (1200 + 500 * np.sin(y) * np.cos(x) + 300 * np.sin(0.37 * x + 0.21 * y))
    pattern = pattern.astype(np.uint16)
    rng = np.random.default_rng(43)
    for z in range(count):
        yield plane_values(z, pattern, rng)


def write_tiff(path: pathlib.Path, count: int) -> None:
    import tifffile

    with tifffile.TiffWriter(path, bigtiff=True) as tif:
        for plane in planes_of(count):
            tif.write(plane, contiguous=True, photometric="minisblack")


def write_hdf5(path: pathlib.Path, count: int) -> None:
    import h5py

    with h5py.File(path, "w") as f:
        dataset = f.create_dataset(DATASET, shape=(count, *PLANE), dtype="uint16",
                                   chunks=tuple(min(c, n) for c, n in zip(H5_CHUNKS, (count, *PLANE))),
                                   compression="gzip",
                                   compression_opts=GZIP_LEVEL)
        slab = []
        z0 = 0
        for plane in planes_of(count):
            slab.append(plane)
            if len(slab) == SLAB:
                dataset[z0:z0 + SLAB] = np.stack(slab)
                z0 += SLAB
                slab = []
        if slab:
            dataset[z0:z0 + len(slab)] = np.stack(slab)


def make_input(kind: str, work: pathlib.Path, count: int) -> pathlib.Path:
    path = work / (f"volume-{count}.tif" if kind == "tiff" else f"volume-{count}.h5")
    if path.exists():
        return path
    partial = path.with_name(path.name + ".partial")
    start = time.perf_counter()
    (write_tiff if kind == "tiff" else write_hdf5)(partial, count)
    partial.rename(path)
    print(f"# wrote {path} ({path.stat().st_size / 1e9:.2f} GB) in "
          f"{time.perf_counter() - start:.0f} s", flush=True)
    return path


# ---------------------------------------------------------------- readers


class SlabReader:
    """Slabs of planes from the input, as tifffile / h5py users read them."""

    def __init__(self, kind: str, path: str):
        self.kind = kind
        if kind == "tiff":
            import tifffile

            self.handle = tifffile.TiffFile(path)
            self.shape = (len(self.handle.pages), *self.handle.pages[0].shape)
        else:
            import h5py

            self.handle = h5py.File(path, "r")
            self.dataset = self.handle[DATASET]
            self.shape = self.dataset.shape

    def read(self, z0: int, z1: int) -> np.ndarray:
        if self.kind == "tiff":
            return self.handle.asarray(key=range(z0, z1)).reshape(z1 - z0, *self.shape[1:])
        return self.dataset[z0:z1]

    def box(self, box: tuple[slice, ...]) -> np.ndarray:
        if self.kind == "tiff":  # Uncompressed and contiguous: a memory map.
            import tifffile

            if not hasattr(self, "mapped"):
                self.mapped = tifffile.memmap(self.handle.filehandle.path, mode="r")
            return np.asarray(self.mapped[box])
        return self.dataset[box]

    def close(self) -> None:
        self.handle.close()


def reader_config(kind: str) -> str:
    if kind == "tiff":
        return "tifffile.TiffFile(SRC).asarray(key=range(z0, z1)) per 64-plane slab"
    return f"h5py.File(SRC)['{DATASET}'][z0:z1] per 64-plane slab (libhdf5 inflates)"


# ---------------------------------------------------------------- peers


def zarr_python_peer(kind: str, src: str, dest: str, threads: int, pipeline: str) -> dict:
    import zarr
    from zarr.codecs import BytesCodec, ZstdCodec
    from zarr.storage import LocalStore

    settings = {"threading.max_workers": threads, "async.concurrency": ASYNC_CONCURRENCY}
    if pipeline == "zarrs":
        import zarrs  # noqa: F401  (registers the pipeline)

        settings["codec_pipeline"] = {"path": "zarrs.ZarrsCodecPipeline",
                                      "chunk_concurrent_maximum": threads,
                                      "validate_checksums": True, "strict": True}
    zarr.config.set(settings)
    reader = SlabReader(kind, src)
    array = zarr.create_array(store=LocalStore(dest), shape=reader.shape, dtype="uint16",
                              chunks=CHUNKS, shards=SHARDS,
                              serializer=BytesCodec(endian="little"),
                              compressors=[ZstdCodec(level=ZSTD_LEVEL, checksum=False)],
                              fill_value=0, overwrite=True)
    for z0 in range(0, reader.shape[0], SLAB):
        z1 = min(z0 + SLAB, reader.shape[0])
        array[z0:z1] = reader.read(z0, z1)
    reader.close()
    return {"config": f"{reader_config(kind)}; zarr {zarr.__version__}"
                      f"{' + zarrs pipeline' if pipeline == 'zarrs' else ' default pipeline'}, "
                      f"config {json.dumps(settings)}; zarr.create_array(chunks={CHUNKS}, "
                      f"shards={SHARDS}, BytesCodec, ZstdCodec(level={ZSTD_LEVEL})); "
                      "array[z0:z1] = slab"}


def tensorstore_peer(kind: str, src: str, dest: str, threads: int) -> dict:
    import tensorstore as ts

    reader = SlabReader(kind, src)
    context = ts.Context({"data_copy_concurrency": {"limit": threads},
                          "file_io_concurrency": {"limit": threads}})
    metadata = {
        "shape": list(reader.shape), "data_type": "uint16",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(SHARDS)}},
        "fill_value": 0,
        "codecs": [{"name": "sharding_indexed", "configuration": {
            "chunk_shape": list(CHUNKS),
            "codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                       {"name": "zstd", "configuration": {"level": ZSTD_LEVEL,
                                                          "checksum": False}}],
            "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                             {"name": "crc32c"}],
            "index_location": "end"}}],
    }
    spec = {"driver": "zarr3", "kvstore": {"driver": "file", "path": dest},
            "metadata": metadata}
    array = ts.open(spec, context=context, create=True, delete_existing=True).result()
    pending = None
    for z0 in range(0, reader.shape[0], SLAB):
        z1 = min(z0 + SLAB, reader.shape[0])
        slab = reader.read(z0, z1)
        if pending is not None:
            pending.result()
        pending = array[z0:z1].write(slab)
    if pending is not None:
        pending.result()
    reader.close()
    return {"config": f"{reader_config(kind)}; tensorstore (pinned 0.1.86) zarr3 driver, "
                      f"context data_copy_concurrency = file_io_concurrency = {threads}; "
                      "sharding_indexed, bytes + zstd inside, index bytes + crc32c at the "
                      "end; array[z0:z1].write(slab), one write in flight while the next "
                      "slab is read"}


# ---------------------------------------------------------------- limits


def limit_read(src: str, threads: int) -> dict:
    """The input file's bytes, read whole in 64 MiB reads."""
    buffer = bytearray(64 << 20)
    view = memoryview(buffer)
    before = time.perf_counter(), time.process_time()
    with open(src, "rb", buffering=0) as f:
        while f.readinto(view):
            pass
    return {"config": "the input file read whole in 64 MiB reads (os read into one buffer)",
            "seconds": time.perf_counter() - before[0], "cpu": time.process_time() - before[1]}


def limit_inflate(src: str, threads: int) -> dict:
    """The HDF5 dataset's stored chunks, inflated alone with zlib on N threads."""
    import zlib
    from concurrent.futures import ThreadPoolExecutor

    import h5py

    seconds = cpu = 0.0
    with h5py.File(src, "r") as f:
        dataset = f[DATASET]
        chunks = dataset.chunks
        offsets = list(_chunk_origins(dataset.shape, chunks))
        with ThreadPoolExecutor(threads) as pool:
            for z0 in range(0, dataset.shape[0], chunks[0]):
                stored = [dataset.id.read_direct_chunk(o)[1] for o in offsets if o[0] == z0]
                before = time.perf_counter(), time.process_time()
                list(pool.map(zlib.decompress, stored))
                seconds += time.perf_counter() - before[0]
                cpu += time.process_time() - before[1]
    return {"config": f"h5py read_direct_chunk (untimed: the read row has the file's bytes) + "
                      f"zlib.decompress, {threads} threads", "seconds": seconds, "cpu": cpu}


def limit_zstd(kind: str, src: str, threads: int) -> dict:
    """zstd level 3 on the 64^3 chunks of the same values, alone, on N threads
    (the slabs are read and cut untimed: the child's CPU time counts only the
    compression, its wall time is measured around it)."""
    from concurrent.futures import ThreadPoolExecutor

    import zstandard

    reader = SlabReader(kind, src)
    seconds = 0.0
    cpu = 0.0
    local = threading.local()

    def compress(chunk: bytes) -> int:
        if not hasattr(local, "c"):
            local.c = zstandard.ZstdCompressor(level=ZSTD_LEVEL)
        return len(local.c.compress(chunk))

    stored = 0
    with ThreadPoolExecutor(threads) as pool:
        for z0 in range(0, reader.shape[0], SLAB):
            z1 = min(z0 + SLAB, reader.shape[0])
            slab = reader.read(z0, z1)
            chunks = [slab[:, y:y + CHUNKS[1], x:x + CHUNKS[2]].tobytes()
                      for y in range(0, slab.shape[1], CHUNKS[1])
                      for x in range(0, slab.shape[2], CHUNKS[2])]
            before = time.perf_counter(), time.process_time()
            stored += sum(pool.map(compress, chunks))
            seconds += time.perf_counter() - before[0]
            cpu += time.process_time() - before[1]
    reader.close()
    size = reader.shape[0] * PLANE[0] * PLANE[1] * 2
    return {"config": f"python-zstandard {zstandard.__version__} level {ZSTD_LEVEL} per 64^3 "
                      f"chunk, {threads} threads", "seconds": seconds, "cpu": cpu,
            "ratio": stored / size}


def _chunk_origins(shape, chunks):
    for z in range(0, shape[0], chunks[0]):
        for y in range(0, shape[1], chunks[1]):
            for x in range(0, shape[2], chunks[2]):
                yield (z, y, x)


def child(args: list[str]) -> int:
    """One tool or limit in this process: prints one JSON line."""
    what, kind, src, dest, threads = args[0], args[1], args[2], args[3], int(args[4])
    if what == "zp3":
        result = zarr_python_peer(kind, src, dest, threads, "default")
    elif what == "zarrs":
        result = zarr_python_peer(kind, src, dest, threads, "zarrs")
    elif what == "ts":
        result = tensorstore_peer(kind, src, dest, threads)
    elif what == "read":
        result = limit_read(src, threads)
    elif what == "inflate":
        result = limit_inflate(src, threads)
    elif what == "zstd":
        result = limit_zstd(kind, src, threads)
    else:
        raise SystemExit(f"unknown child {what}")
    print(json.dumps(result), flush=True)
    return 0


# ---------------------------------------------------------------- driver


def timed(command: list[str]) -> tuple[float, float, str]:
    """Runs `command`; its wall seconds, CPU seconds (user + system of the
    child and what it waited for) and stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{command[:4]} failed with {done.returncode}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def check_output(kind: str, src: pathlib.Path, dest: pathlib.Path, shape, seed: int) -> None:
    """The output read by zarr-python equals the input on a sample of boxes
    (and the last corner), and has the layout every tool was asked for."""
    import zarr

    array = zarr.open_array(str(dest), mode="r")
    if tuple(array.shape) != tuple(shape) or array.dtype != np.uint16:
        raise RuntimeError(f"{dest}: shape {array.shape} dtype {array.dtype}")
    if tuple(array.shards) != SHARDS or tuple(array.chunks) != CHUNKS:
        raise RuntimeError(f"{dest}: shards {array.shards} chunks {array.chunks}")
    source = SlabReader(kind, f"{src}" if kind == "tiff" else str(src))
    rng = random.Random(seed)
    boxes = []
    for _ in range(CHECK_BOXES):
        size = [rng.randint(1, min(n, cap)) for n, cap in zip(shape, (70, 600, 600))]
        origin = [rng.randint(0, n - s) for n, s in zip(shape, size)]
        boxes.append(tuple(slice(o, o + s) for o, s in zip(origin, size)))
    boxes.append(tuple(slice(max(0, n - 5), n) for n in shape))
    for box in boxes:
        if not np.array_equal(array[box], source.box(box)):
            raise RuntimeError(f"{dest}: values differ from the input in {box}")
    source.close()


def run_tool(tool: str, kind: str, src: pathlib.Path, dest: pathlib.Path, args) -> tuple:
    shutil.rmtree(dest, ignore_errors=True)
    if tool == "ours":
        source = str(src) + (f":{DATASET}" if kind == "hdf5" else "")
        command = [args.chunkwise, "-q", "import", source, str(dest),
                   "--chunk", ",".join(map(str, CHUNKS)), "--shard", ",".join(map(str, SHARDS)),
                   "--codec", f"zstd:{ZSTD_LEVEL}", "--threads", str(args.threads)]
        wall, cpu, _ = timed(command)
        config = " ".join(command[:2] + ["import", "SRC", "DEST"] + command[5:])
    else:
        wall, cpu, out = timed([sys.executable, __file__, "--child", tool, kind, str(src),
                                str(dest), str(args.threads)])
        config = json.loads(out.strip().splitlines()[-1])["config"]
    return wall, cpu, config


def run_limit(what: str, kind: str, src: pathlib.Path, args) -> tuple:
    wall, cpu, out = timed([sys.executable, __file__, "--child", what, kind, str(src), "-",
                            str(args.threads)])
    result = json.loads(out.strip().splitlines()[-1])
    if "seconds" in result:  # Only the part it measured itself.
        wall, cpu = result["seconds"], result["cpu"]
    return wall, cpu, result


def bench_input(kind: str, work: pathlib.Path, planes: int, args) -> None:
    src = make_input(kind, work, planes)
    shape = (planes, *PLANE)
    size = planes * PLANE[0] * PLANE[1] * 2
    gb = size / 1e9
    walls = {t: [] for t in args.tools}
    cpus = {t: [] for t in args.tools}
    configs = {}
    limits = ["read"] + (["inflate"] if kind == "hdf5" else []) + ["zstd"]
    limit_walls = {w: [] for w in limits}
    limit_cpus = {w: [] for w in limits}
    ratio = None
    for run in range(args.runs):
        for tool in args.tools:
            dest = work / f"out-{kind}-{tool}.zarr"
            wall, cpu, configs[tool] = run_tool(tool, kind, src, dest, args)
            walls[tool].append(wall)
            cpus[tool].append(cpu)
            check_output(kind, src, dest, shape, seed=run)
            shutil.rmtree(dest, ignore_errors=True)
            print(f"# {kind} run {run + 1}: {tool} {wall:.1f} s, {cpu:.1f} CPU-s "
                  f"(load {os.getloadavg()[0]:.1f})", flush=True)
        for what in limits:
            wall, cpu, result = run_limit(what, kind, src, args)
            limit_walls[what].append(wall)
            limit_cpus[what].append(cpu)
            configs["limit " + what] = result["config"]
            ratio = result.get("ratio", ratio)
            print(f"# {kind} run {run + 1}: limit {what} {wall:.1f} s, {cpu:.1f} CPU-s "
                  f"(load {os.getloadavg()[0]:.1f})", flush=True)
    stored = src.stat().st_size
    print(f"\n{kind}: {gb:.2f} GB uint16 {shape[0]}x{shape[1]}x{shape[2]}; input "
          f"{stored / 1e9:.2f} GB on disk; threads {args.threads}; medians of {args.runs}; "
          f"zstd {ZSTD_LEVEL} ratio {ratio:.3f}")
    for tool in args.tools:
        print(f"  {tool:6} {configs[tool]}")
    for what in limits:
        print(f"  limit {what}: {configs['limit ' + what]}")
    ours_wall = statistics.median(walls["ours"]) if "ours" in walls else None
    ours_cpu = statistics.median(cpus["ours"]) if "ours" in cpus else None
    print(f"{'tool':14} {'wall s':>8} {'GB/s':>7} {'CPU-s/GB':>9} {'ours/GB/s':>10} "
          f"{'ours/CPU':>9}")
    for tool in args.tools:
        wall, cpu = statistics.median(walls[tool]), statistics.median(cpus[tool])
        speed = f"{wall / ours_wall:10.2f}" if ours_wall else f"{'-':>10}"
        thrift = f"{cpu / ours_cpu:9.2f}" if ours_cpu else f"{'-':>9}"
        print(f"{tool:14} {wall:8.1f} {gb / wall:7.3f} {cpu / gb:9.2f} {speed} {thrift}")
    total_cpu = 0.0
    for what in limits:
        wall, cpu = statistics.median(limit_walls[what]), statistics.median(limit_cpus[what])
        total_cpu += cpu
        print(f"{'limit ' + what:14} {wall:8.1f} {gb / wall:7.3f} {cpu / gb:9.2f}")
    print(f"{'limit sum':14} {'':8} {gb / (total_cpu / args.threads):7.3f} {total_cpu / gb:9.2f}"
          "   (GB/s: the summed CPU spread over the threads)")
    print(f"# load average after {kind}: {' '.join(f'{v:.1f}' for v in os.getloadavg())}",
          flush=True)


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        return child(sys.argv[2:])
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunkwise", default="build/chunkwise")
    parser.add_argument("--gib", type=float, default=4.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--inputs", default="tiff,hdf5")
    parser.add_argument("--tools", default=",".join(TOOLS))
    parser.add_argument("--dir", help="inputs and outputs (kept there; default a temp dir)")
    args = parser.parse_args()
    args.tools = args.tools.split(",")
    planes = max(1, round(args.gib * (1 << 30) / (PLANE[0] * PLANE[1] * 2)))
    work = pathlib.Path(args.dir) if args.dir else pathlib.Path(tempfile.mkdtemp())
    work.mkdir(parents=True, exist_ok=True)
    print(f"# import_bench {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
          f"{' '.join(sys.argv)}; load {' '.join(f'{v:.1f}' for v in os.getloadavg())}",
          flush=True)
    try:
        for kind in args.inputs.split(","):
            bench_input(kind, work, planes, args)
    finally:
        if not args.dir:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
