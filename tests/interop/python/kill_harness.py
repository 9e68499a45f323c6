"""Kill harness: every writer of the CLI is SIGKILLed at 5 random moments of
a run; after each kill its output is read back with independent decoders
(zarr-python 3, TensorStore, pyarrow, numcodecs' Blosc, fsspec's reference file system)
and must be either absent or readable, every stored value whole and equal to
what the input says it should be: a kill may lose work, never corrupt it.
Then the writer runs again over the debris with --overwrite and must finish,
remove the dead writer's temporary files (.X.tmp.PID.N) and produce the whole
output.

The moments are drawn uniformly from the middle 90% of a measured full run
(seeded; --seed to replay). Bounded to a few minutes: inputs are small.

Needs zarr 3 and pyarrow: run it with the pinned .venv python.
usage: .venv/bin/python kill_harness.py --chunkwise build/chunkwise --workdir DIR [--kills 5]
"""
import argparse
import json
import pathlib
import random
import shutil
import signal
import subprocess
import time

import numpy as np

from interop_check import Checks


def run(args, **kwargs):
    result = subprocess.run([str(a) for a in args], capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, args))} failed ({result.returncode}): {result.stderr}")
    return result


def temporaries(root):
    """Names of the form .X.tmp.PID.N under `root` (a writer's temporary files)."""
    root = pathlib.Path(root)
    if not root.exists():
        return []
    return [str(p.relative_to(root)) for p in root.rglob("*")
            if p.name.startswith(".") and ".tmp." in p.name and p.is_file()]


# ------------------------------------------------------------------ independent readers

def read_zarr(path):
    import zarr
    return zarr.open_array(str(path), mode="r")


def stored_chunk_mask(array, path):
    """For a v2 array: which chunks have a file (the rest read as fill)."""
    grid = [-(-s // c) for s, c in zip(array.shape, array.chunks)]
    present = np.zeros(grid, dtype=bool)
    for index in np.ndindex(*grid):
        present[index] = (pathlib.Path(path) / ".".join(map(str, index))).exists()
    return present


def blosc_decompress(data):
    from numcodecs import blosc
    return blosc.decompress(data)


def read_bcolz_column(root):
    """A bcolz carray read from its files per the bcolz 1.x layout (numcodecs' Blosc)."""
    storage = json.loads((root / "meta" / "storage").read_text())
    sizes = json.loads((root / "meta" / "sizes").read_text())
    dtype = np.dtype(storage["dtype"])
    length, chunklen = sizes["shape"][0], storage["chunklen"]
    parts = []
    for i in range(-(-length // chunklen)):
        raw = blosc_decompress((root / "data" / f"__{i}.blp").read_bytes()[16:])
        rows = min(chunklen, length - i * chunklen)
        if len(raw) < rows * dtype.itemsize:
            raise ValueError(f"{root}/data/__{i}.blp holds {len(raw)} bytes, fewer than {rows} rows")
        parts.append(np.frombuffer(raw, dtype=dtype, count=rows))
    return np.concatenate(parts) if parts else np.zeros(0, dtype)


# ------------------------------------------------------------------ the writers

class Writer:
    """One CLI writer: how to run it, and what its output must be."""
    name = ""

    def command(self, out):
        raise NotImplementedError

    def check(self, out, complete):
        """Problems with `out` (empty: fine). `complete`: the run finished, so all must be there."""
        raise NotImplementedError


def refusals(out):
    """Which readers open `out` as an array though it has no zarr.json (each must refuse)."""
    import tensorstore as ts
    import zarr
    opened = []
    try:
        zarr.open_array(str(out), mode="r")
        opened.append("zarr-python")
    except Exception:  # FileNotFoundError / ArrayNotFoundError: refused, as it must be.
        pass
    try:
        ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(out)}},
                read=True).result()
        opened.append("TensorStore")
    except Exception:  # NotFound: refused.
        pass
    return opened


class ZarrStream(Writer):
    name = "zarr stream"

    def __init__(self, binary, work):
        self.binary = binary
        rng = np.random.default_rng(1)
        self.frames = rng.integers(0, 4000, (96, 192, 200), dtype=np.uint16)
        self.input = work / "frames.npy"
        np.save(self.input, self.frames)
        self.refused_after_kill = 0  # Kills that left no zarr.json, refused by every reader.

    def command(self, out):
        return [self.binary, "-q", "zarr", "stream", out, "--shape", "0,192,200", "--dtype", "uint16",
                "--chunk", "4,64,64", "--tiles-per-shard", "2,2,2", "--codec", "zstd:3",
                "--input", self.input, "--threads", "2", "--overwrite"]

    def check(self, out, complete):
        if not (out / "zarr.json").exists():
            if complete:
                return ["no zarr.json after a finished run"]
            # Killed before it published: no reader may open what it left.
            problems = [f"{reader} opens a killed stream that has no zarr.json" for reader in refusals(out)]
            info = subprocess.run([str(self.binary), "-q", "zarr", "info", str(out)], capture_output=True,
                                  text=True)
            if info.returncode == 0 or "zarr.json" not in info.stderr:
                problems.append(f"chunkwise zarr info does not refuse it naming zarr.json: {info.stderr[-200:]}")
            self.refused_after_kill += not problems
            return problems
        # zarr.json is written last (a kill may land after it): then the whole input is there.
        array = read_zarr(out)
        data = array[...]  # Every shard present must decode.
        problems = []
        if data.shape[0] != len(self.frames) or not np.array_equal(data, self.frames):
            problems.append(f"zarr.json stands ({'finished' if complete else 'killed'} run) "
                            f"but the array ({data.shape[0]} frames) differs from the input")
        shard = array.shards or array.chunks
        missing = [index for index in np.ndindex(*[-(-s // c) for s, c in zip(array.shape, shard)])
                   if not (out / "c" / "/".join(map(str, index))).exists()]
        if missing:
            problems.append(f"{len(missing)} shards missing beside zarr.json, e.g. {missing[0]}")
        return problems


class ZarrImport(ZarrStream):
    """zarr import: the same frames from their .npy file, as a sharded array; published last too."""
    name = "zarr import"

    def __init__(self, binary, stream):
        self.binary, self.frames, self.input = binary, stream.frames, stream.input
        self.refused_after_kill = 0

    def command(self, out):
        return [self.binary, "-q", "zarr", "import", self.input, out, "--chunk", "4,64,64", "--shard", "8,128,128",
                "--codec", "zstd:3", "--threads", "2", "--overwrite"]


class ZarrConvert(Writer):
    name = "zarr convert"

    def __init__(self, binary, work, source):
        self.binary, self.source = binary, source
        self.expected = read_zarr(source)[...]

    def command(self, out):
        return [self.binary, "-q", "zarr", "convert", self.source, out, "--format", "2",
                "--chunk", "4,32,40", "--codec", "zstd:5", "--overwrite"]

    def check(self, out, complete):
        if not (out / ".zarray").exists():
            return ["no .zarray after a finished run"] if complete else []
        array = read_zarr(out)
        data = array[...]  # Every chunk file present must decode.
        present = stored_chunk_mask(array, out)
        problems = []
        # convert writes .zarray last: once it is there, every chunk is.
        if not present.all():
            problems.append(f"{(~present).sum()} chunks missing beside .zarray "
                            f"({'finished' if complete else 'killed'} run)")
        for index in zip(*np.nonzero(present)):
            box = tuple(slice(i * c, (i + 1) * c) for i, c in zip(index, array.chunks))
            if not np.array_equal(data[box], self.expected[box]):
                problems.append(f"chunk {'.'.join(map(str, index))} differs from the source")
                break
        return problems


class BcolzCreate(Writer):
    name = "bcolz create"

    def __init__(self, binary, work):
        self.binary = binary
        rows = 1_500_000
        self.table = np.zeros(rows, dtype=[("id", "<i8"), ("x", "<f8"), ("n", "<u2")])
        self.table["id"] = np.arange(rows)
        self.table["x"] = np.sin(np.arange(rows) / 7.0)
        self.table["n"] = np.arange(rows) % 1000
        self.input = work / "table.npy"
        np.save(self.input, self.table)

    def command(self, out):
        return [self.binary, "-q", "bcolz", "create", out, "--input", self.input, "--chunklen", "16384",
                "--threads", "2", "--overwrite"]

    def check(self, out, complete):
        rootdirs = out / "__rootdirs__"
        names = self.table.dtype.names
        if not rootdirs.exists() or not all((out / n / "meta" / "sizes").exists() for n in names):
            return ["an incomplete ctable after a finished run"] if complete else []
        columns = {n: read_bcolz_column(out / n) for n in names}
        length = min(len(c) for c in columns.values())
        problems = []
        if complete and length != len(self.table):
            problems.append(f"{length} rows of {len(self.table)} after a finished run")
        for n, column in columns.items():
            if not np.array_equal(column[:length], self.table[n][:length]):
                problems.append(f"column {n}: the {length} kept rows differ from the input's first rows")
        # Our own reader must agree (columns cut to the shortest, as documented).
        got = out.parent / "bcolz-read.npy"
        run([self.binary, "-q", "bcolz", "read", out, "--output", got, "--overwrite"])
        ours = np.load(got)
        if len(ours) != length or not np.array_equal(ours, self.table[:length]):
            problems.append(f"chunkwise reads {len(ours)} rows, the files hold {length}")
        return problems


class RefsBuild(Writer):
    def __init__(self, binary, work, source, fmt):
        self.binary, self.source, self.fmt = binary, source, fmt
        self.name = f"refs build --format {fmt}"

    def command(self, out):
        extra = ["--record-size", "50"] if self.fmt == "parquet" else []
        return [self.binary, "-q", "refs", "build", self.source, "--output", out, "--format", self.fmt,
                *extra, "--overwrite"]

    def check(self, out, complete):
        import fsspec
        marker = out / ".zmetadata" if self.fmt == "parquet" else out
        if not marker.exists():
            return ["no output after a finished run"] if complete else []
        # fsspec's reference file system (its LazyReferenceMapper for Parquet)
        # serves every file of the source array, byte for byte.
        fs = fsspec.filesystem("reference", fo=str(out), remote_protocol="file")
        # Parquet sets hold no root-level chunks: the array is named after the source.
        prefix = f"{self.source.stem}/" if self.fmt == "parquet" else ""
        for path in sorted(self.source.iterdir()):
            if not path.is_file():
                continue
            got = fs.cat(prefix + path.name)
            if path.name.startswith("."):  # Metadata: Parquet sets keep it as JSON objects.
                if json.loads(got) != json.loads(path.read_bytes()):
                    return [f"key {path.name}: the metadata differs from the source's"]
            elif got != path.read_bytes():
                return [f"key {path.name}: {len(got)} bytes, the source file has {path.stat().st_size}"]
        return []


class ExportShards(Writer):
    name = "dvid export-shards"

    def __init__(self, binary, work):
        self.binary = binary
        n = 192
        z, y, x = np.indices((n, n, n))
        self.labels = ((z // 24) * 64 + (y // 24) * 8 + (x // 24) + 1).astype(np.uint64)
        np.save(work / "labels.npy", self.labels)
        self.db = work / "labels.db"
        run([binary, "-q", "dvid", "ingest", self.db, "--input", work / "labels.npy"])
        scale = {"key": "s0", "size": [n] * 3, "resolution": [8] * 3, "chunk_sizes": [[64] * 3],
                 "encoding": "compressed_segmentation",
                 "sharding": {"@type": "neuroglancer_uint64_sharded_v1", "preshift_bits": 0,
                              "hash": "identity", "minishard_bits": 1, "shard_bits": 3,
                              "minishard_index_encoding": "gzip", "data_encoding": "gzip"}}
        self.spec = work / "spec.json"
        self.spec.write_text(json.dumps({"@type": "neuroglancer_multiscale_volume", "type": "segmentation",
                                         "data_type": "uint64", "num_channels": 1, "scales": [scale]}))

    def command(self, out):
        return [self.binary, "-q", "dvid", "export-shards", self.db, self.spec, out, "--workers", "2",
                "--overwrite"]

    def check(self, out, complete):
        import pyarrow.ipc as ipc
        if not out.exists():
            return ["no output after a finished run"] if complete else []
        if not (out / "info").exists():
            # Unfinished and marked so (readers refuse it: no info); the next run replaces it.
            if not complete and (out / ".chunkwise-incomplete").exists():
                return []
            return [f"{out} exists without its info or its incomplete marker"]
        problems = []
        for arrow in sorted((out / "s0").glob("*.arrow")):
            with open(arrow, "rb") as f:
                head = f.read(6)
            reader = ipc.open_file if head == b"ARROW1" else ipc.open_stream
            table = reader(str(arrow)).read_all()
            csv_rows = len([l for l in arrow.with_suffix(".csv").read_text().splitlines()
                            if l and l[0].isdigit()])
            if csv_rows != table.num_rows:
                problems.append(f"{arrow.name}: {table.num_rows} records, its CSV lists {csv_rows}")
        got = out.parent / "export-read.npy"
        run([self.binary, "-q", "dvid", "read-shards", out, "--output", got, "--overwrite"])
        if not np.array_equal(np.load(got), self.labels):
            problems.append("dvid read-shards differs from the ingested labels")
        return problems


class VectorsWrite(Writer):
    """A graph (vertices and links), so that a kill can land between the
    vertex arrays and the link arrays. The root zarr.json is published last:
    after a kill either it is absent (zarr-python and chunkwise refuse the
    store) or the store is whole (validate passes, every vertex and link)."""
    name = "vectors write"

    def __init__(self, binary, work):
        self.binary = binary
        self.refused_after_kill = 0
        rng = np.random.default_rng(3)
        self.points = rng.uniform(0, 100, (200_000, 3)).astype(np.float32)
        self.edges = np.stack([np.arange(199_999), np.arange(1, 200_000)], axis=1).astype(np.int64)
        self.input = work / "graph-points.npy"
        self.edges_path = work / "graph-edges.npy"
        np.save(self.input, self.points)
        np.save(self.edges_path, self.edges)

    def command(self, out):
        return [self.binary, "-q", "vectors", "write", out, "--type", "graph", "--input", self.input,
                "--edges", self.edges_path, "--chunk-shape", "20,20,20", "--overwrite",
                "--layout", "0.8"]  # 0.8: the check runs vectors validate.

    def check(self, out, complete):
        import zarr
        if not (out / "zarr.json").exists():
            if complete:
                return ["no zarr.json after a finished run"]
            if not out.exists():
                return []
            problems = []
            try:
                zarr.open_group(str(out), mode="r")
                problems.append("zarr-python opens a store without its root zarr.json")
            except Exception:
                pass
            info = subprocess.run([str(self.binary), "-q", "vectors", "info", str(out)],
                                  capture_output=True, text=True)
            if info.returncode == 0:
                problems.append("vectors info opens a store without its root zarr.json")
            if not (out / ".chunkwise-incomplete").exists():
                problems.append(f"{out} has no zarr.json and no incomplete marker")
            self.refused_after_kill += not problems
            return problems
        group = zarr.open_group(str(out), mode="r")

        def visit(node):
            for _, member in node.members():
                if isinstance(member, zarr.Array):
                    member[...]  # Every stored chunk must decode.
                else:
                    visit(member)
        visit(group)
        # A root zarr.json stands only beside a whole store, killed or not.
        problems = []
        result = subprocess.run([str(self.binary), "-q", "vectors", "validate", str(out)],
                                capture_output=True, text=True)
        if result.returncode != 0:
            problems.append(f"vectors validate: {(result.stdout + result.stderr)[-300:]}")
        info = subprocess.run([str(self.binary), "-q", "vectors", "info", "--json", str(out)],
                              capture_output=True, text=True)
        if info.returncode != 0:
            return problems + [f"vectors info: {info.stderr[-300:]}"]
        levels = json.loads(info.stdout)["levels"]
        if not levels or levels[0]["vertices"] != len(self.points):
            problems.append(f"level 0 holds {levels[0]['vertices'] if levels else 0} vertices, "
                            f"not {len(self.points)}")
        if not (out / "0" / "links").is_dir():
            problems.append("level 0 has no links/")
        return problems


# ------------------------------------------------------------------ the harness

def kill_at(command, delay):
    """Runs `command`, SIGKILLs it after `delay` s; True if it was still running."""
    process = subprocess.Popen([str(a) for a in command], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
    try:
        process.wait(timeout=delay)
        return False
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGKILL)
        process.wait()
        return True


def exercise(checks, writer, out, kills, rng):
    start = time.monotonic()
    run(writer.command(out))
    full = time.monotonic() - start
    problems = writer.check(out, complete=True)
    checks.expect(not problems, f"{writer.name}: a full run ({full:.2f} s) reads back whole {problems[:2]}")
    killed_runs = 0
    for k in range(kills):
        delay = rng.uniform(0.05, 0.95) * full
        killed = kill_at(writer.command(out), delay)
        killed_runs += killed
        try:
            problems = writer.check(out, complete=not killed)
        except Exception as error:  # A decoder refusing a torn value is the failure looked for.
            problems = [f"{type(error).__name__}: {error}"]
        checks.expect(not problems, f"{writer.name}: killed at {delay:.2f} s "
                      f"({'mid-run' if killed else 'after it finished'}): absent or whole {problems[:2]}")
        debris = temporaries(out)
        start = time.monotonic()
        result = subprocess.run([str(a) for a in writer.command(out)], capture_output=True, text=True)
        problems = [] if result.returncode == 0 else [result.stderr.strip()[-300:]]
        if not problems:
            problems = writer.check(out, complete=True)
            left = [t for t in temporaries(out) if t in debris]
            if left:
                problems.append(f"{len(left)} temporary files of the killed writer remain, e.g. {left[0]}")
        checks.expect(not problems, f"{writer.name}: the next run over the debris "
                      f"({len(debris)} temporary files) finishes whole and clean {problems[:2]}")
    refused = getattr(writer, "refused_after_kill", None)
    print(f"     {writer.name}: {killed_runs} of {kills} kills landed mid-run"
          + (f"; {refused} left no zarr.json, refused by the independent readers and chunkwise"
             if refused is not None else ""))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunkwise", required=True, type=pathlib.Path)
    parser.add_argument("--workdir", required=True, type=pathlib.Path)
    parser.add_argument("--kills", type=int, default=5)
    parser.add_argument("--seed", type=int, default=int(time.time()) % 100000)
    parser.add_argument("--only", help="run only the writers whose name contains this")
    args = parser.parse_args()
    print(f"kill harness: seed {args.seed} (--seed {args.seed} replays it)")
    rng = random.Random(args.seed)
    work = args.workdir
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    binary = args.chunkwise.resolve()
    checks = Checks()

    stream = ZarrStream(binary, work)
    source = work / "source.zarr"
    run(stream.command(source))  # The array the converters and reference builders read.
    v2 = work / "source-v2.zarr"
    run([binary, "-q", "zarr", "convert", source, v2, "--format", "2", "--chunk", "8,48,50",
         "--codec", "zstd:1"])
    writers = [stream, ZarrImport(binary, stream), ZarrConvert(binary, work, source), BcolzCreate(binary, work),
               RefsBuild(binary, work, v2, "json"), RefsBuild(binary, work, v2, "parquet"),
               ExportShards(binary, work)]
    # vectors write is run only when asked (--only vectors): one case takes
    # minutes, past what make test allows this harness (docs/reliability.md).
    if args.only and args.only in VectorsWrite.name:
        writers.append(VectorsWrite(binary, work))
    for writer in writers:
        if args.only and args.only not in writer.name:
            continue
        out = work / ("out-" + writer.name.replace(" ", "-").replace("--", ""))
        if writer.name.startswith("refs build --format json"):
            out = out.with_suffix(".json")
        exercise(checks, writer, out, args.kills, rng)
    checks.finish()


if __name__ == "__main__":
    main()
