"""Two doors, one job (issue #38, "Proof"): each job done through the CLI
(a subprocess of $CHUNKWISE_CLI) and through the Python module, on the same
input, gives byte-identical outputs, and the same bad input gives the same
status code from both (the CLI's `chunkwise: error: <Code>: ...` and exit 1;
the module's exception's `.code`).

The table is JOBS: one row per job, each with the job done by both doors and
one bad input. A row where one door lacks the job, or where the two differ, is
marked xfail(strict=True) with the difference named: those are the seam's
remaining defects, and a fix turns the row into an XPASS failure, so the mark
must then go.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pytest

import chunkwise

Path = pathlib.Path


# --- the two doors ----------------------------------------------------------


@pytest.fixture(scope="module")
def cli() -> str:
    """The CLI this build made (tests/CMakeLists.txt sets CHUNKWISE_CLI). A
    missing one fails every row: a table that runs one door proves nothing."""
    path = os.environ.get("CHUNKWISE_CLI", "")
    if not path or not os.access(path, os.X_OK):
        pytest.fail(f"CHUNKWISE_CLI is {path!r}: set it to the chunkwise binary")
    return path


def run_cli(cli: str, *args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([cli, "-q", *map(str, args)], capture_output=True, text=True,
                          timeout=120)


def cli_ok(cli: str, *args: object) -> str:
    done = run_cli(cli, *args)
    assert done.returncode == 0, f"chunkwise {args}: {done.stderr}"
    return done.stdout


_ERROR = re.compile(r"^chunkwise: error: (\w+): ", re.MULTILINE)


def cli_code(cli: str, *args: object) -> str:
    """The status code the CLI reports for a failing command (exit status 1)."""
    done = run_cli(cli, *args)
    assert done.returncode == 1, f"chunkwise {args}: exit {done.returncode}: {done.stderr}"
    found = _ERROR.search(done.stderr)
    assert found, f"chunkwise {args}: no 'chunkwise: error: <Code>:' in {done.stderr!r}"
    return found.group(1)


def py_code(call: Callable[[], object]) -> str:
    """The status code of the chunkwise exception `call` raises (any other
    exception, or none, fails the row)."""
    with pytest.raises(chunkwise.ChunkwiseError) as raised:
        call()
    return raised.value.code


def stored(root: Path) -> dict[str, bytes | None]:
    """Every file under `root` (or `root` itself, a file) by relative path,
    key by key; directories as None (bcolz's empty data/ directories count)."""
    if root.is_file():
        return {"": root.read_bytes()}
    assert root.is_dir(), f"{root} was not written"
    return {str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None)
            for p in sorted(root.rglob("*"))}


def assert_same_store(by_cli: Path, by_py: Path,
                      normalise: Callable[[str, bytes], bytes] | None = None) -> None:
    ours, theirs = stored(by_cli), stored(by_py)
    assert sorted(ours) == sorted(theirs), "the two doors stored different keys"
    for key in ours:
        a, b = ours[key], theirs[key]
        if normalise is not None and a is not None and b is not None:
            a, b = normalise(key, a), normalise(key, b)
        assert a == b, f"{key}: the CLI stored {len(a or b'')} bytes, Python {len(b or b'')}"


def assert_same_array(npy_by_cli: Path, by_py: np.ndarray) -> None:
    """A .npy the CLI wrote against the array Python returned: dtype, shape, bytes."""
    ours = np.load(npy_by_cli)
    assert (ours.dtype.str, ours.dtype.names, ours.shape) == \
        (by_py.dtype.str, by_py.dtype.names, by_py.shape)
    assert ours.tobytes() == np.ascontiguousarray(by_py).tobytes()


# --- shared inputs ----------------------------------------------------------


def volume(shape: tuple[int, ...] = (40, 30), dtype: str = "uint16") -> np.ndarray:
    return (np.arange(int(np.prod(shape)), dtype="uint64") * 7 % 1000).astype(dtype).reshape(shape)


def source_array(tmp: Path, name: str = "src.zarr", **layout: object) -> Path:
    """A written zarr array both doors read."""
    path = tmp / name
    options = {"chunks": [8, 16], "shards": None, **layout}
    chunkwise.create(str(path), data=volume(), **options)
    return path


def labelmap_db(tmp: Path) -> tuple[Path, Path]:
    """A DVID labelmap (2 x 1 x 1 blocks of 64³) and a sharded export spec."""
    import chunkwise.dvid

    db = tmp / "labels.db"
    seg = np.arange(64 * 64 * 128, dtype=np.uint64).reshape(64, 64, 128) // 3000 + 1
    with chunkwise.dvid.Labelmap(str(db), create=True) as labelmap:
        labelmap.ingest(seg, scales=1)
        labelmap.merge(100, [1, 2])
    sharding = {"@type": "neuroglancer_uint64_sharded_v1", "preshift_bits": 0,
                "hash": "identity", "minishard_bits": 1, "shard_bits": 1}
    spec = {"@type": "neuroglancer_multiscale_volume", "data_type": "uint64",
            "num_channels": 1, "type": "segmentation",
            "scales": [{"key": f"s{s}", "size": [128 >> s, 64 >> s, 64 >> s],
                        "resolution": [8 << s] * 3, "chunk_sizes": [[64, 64, 64]],
                        "encoding": "compressed_segmentation", "sharding": sharding}
                       for s in range(2)]}
    spec_path = tmp / "spec.json"
    spec_path.write_text(json.dumps(spec))
    return db, spec_path


# export.log is the export's summary for people, ending each scale's line with
# the seconds it took and the blocks per second ("0.0 s, 580 blocks/s"): those
# two figures are the only bytes two identical exports may differ in, so they
# alone are blanked; every other figure of the log must agree.
_TIMES = re.compile(r"\d+(\.\d+)? s, \d+(\.\d+)? blocks/s")


def without_times(key: str, data: bytes) -> bytes:
    if key != "export.log":
        return data
    return _TIMES.sub("<time>", data.decode()).encode()


# --- the table --------------------------------------------------------------


@dataclass
class Job:
    name: str
    # Does the job through both doors in tmp and asserts the same outputs.
    same_output: Callable[[str, Path], None]
    # Returns (CLI code, Python code) for one bad input (None: the row is
    # about an option of a job another row already fails with bad input).
    same_error: Callable[[str, Path], tuple[str, str]] | None
    output_defect: str | None = None  # why the outputs differ (xfail), if they do
    error_defect: str | None = None   # why the codes differ (xfail), if they do
    marks: list[object] = field(default_factory=list)


# zarr create -----------------------------------------------------------------

def create_output(cli: str, tmp: Path) -> None:
    cli_ok(cli, "zarr", "create", tmp / "cli.zarr", "--shape", "40,30", "--dtype", "uint16",
           "--chunk", "8,16", "--shard", "16,32", "--fill", "3", "--dimension-names", "y,")
    chunkwise.create(str(tmp / "py.zarr"), shape=[40, 30], dtype="uint16", chunks=[8, 16],
                     shards=[16, 32], fill_value=3, dimension_names=["y", None])
    assert_same_store(tmp / "cli.zarr", tmp / "py.zarr")


def create_error(cli: str, tmp: Path) -> tuple[str, str]:
    # A chunk of the wrong rank.
    return (cli_code(cli, "zarr", "create", tmp / "cli.zarr", "--shape", "40,30",
                     "--dtype", "uint16", "--chunk", "8"),
            py_code(lambda: chunkwise.create(str(tmp / "py.zarr"), shape=[40, 30],
                                             dtype="uint16", chunks=[8])))


def create_attributes_output(cli: str, tmp: Path) -> None:
    cli_ok(cli, "zarr", "create", tmp / "cli.zarr", "--shape", "40,30", "--dtype", "uint16",
           "--chunk", "8,16", "--attributes", '{"unit": "nm"}')
    chunkwise.create(str(tmp / "py.zarr"), shape=[40, 30], dtype="uint16", chunks=[8, 16],
                     attributes={"unit": "nm"})
    assert_same_store(tmp / "cli.zarr", tmp / "py.zarr")


def create_0d_output(cli: str, tmp: Path) -> None:
    cli_ok(cli, "zarr", "create", tmp / "cli.zarr", "--shape", "", "--chunk", "",
           "--dtype", "float64")
    chunkwise.create(str(tmp / "py.zarr"), shape=[], chunks=[], dtype="float64")
    assert_same_store(tmp / "cli.zarr", tmp / "py.zarr")


def create_0d_error(cli: str, tmp: Path) -> tuple[str, str]:
    # A 0-d array with a 1-d chunk.
    return (cli_code(cli, "zarr", "create", tmp / "cli.zarr", "--shape", "", "--chunk", "4",
                     "--dtype", "float64"),
            py_code(lambda: chunkwise.create(str(tmp / "py.zarr"), shape=[], chunks=[4],
                                             dtype="float64")))


# zarr write ------------------------------------------------------------------

def write_output(cli: str, tmp: Path) -> None:
    for name in ("cli.zarr", "py.zarr"):
        chunkwise.create(str(tmp / name), shape=[40, 30], dtype="uint16", chunks=[8, 16],
                         shards=[16, 32])
    data = volume((20, 17))
    np.save(tmp / "data.npy", data)
    cli_ok(cli, "zarr", "write", tmp / "cli.zarr", "--input", tmp / "data.npy",
           "--offset", "5,3")
    chunkwise.open(str(tmp / "py.zarr"))[5:25, 3:20] = data
    assert_same_store(tmp / "cli.zarr", tmp / "py.zarr")


def write_error(cli: str, tmp: Path) -> tuple[str, str]:
    # No array there.
    np.save(tmp / "data.npy", volume((4, 4)))

    def by_py() -> None:
        chunkwise.open(str(tmp / "missing.zarr"))[0:4, 0:4] = volume((4, 4))

    return (cli_code(cli, "zarr", "write", tmp / "missing.zarr", "--input", tmp / "data.npy"),
            py_code(by_py))


# zarr read -------------------------------------------------------------------

def read_output(cli: str, tmp: Path) -> None:
    src = source_array(tmp, shards=[16, 32])
    cli_ok(cli, "zarr", "read", src, "--region", "4:20,3:17", "--output", tmp / "cli.npy")
    cli_ok(cli, "zarr", "read", src, "--region", "4:20,3:17", "--output", tmp / "cli.raw",
           "--raw")
    by_py = chunkwise.open(str(src))[4:20, 3:17]
    assert_same_array(tmp / "cli.npy", by_py)
    assert (tmp / "cli.raw").read_bytes() == by_py.tobytes()


def read_error(cli: str, tmp: Path) -> tuple[str, str]:
    # A chunk whose bytes are not zstd.
    src = source_array(tmp)
    (src / "c" / "0" / "0").write_bytes(b"not a zstd frame at all")
    return (cli_code(cli, "zarr", "read", src, "--output", tmp / "cli.npy"),
            py_code(lambda: chunkwise.open(str(src))[...]))


# zarr info -------------------------------------------------------------------

def info_output(cli: str, tmp: Path) -> None:
    src = source_array(tmp, shards=[16, 32], fill_value=3, dimension_names=["y", None],
                       attributes={"unit": "nm"})
    printed = cli_ok(cli, "zarr", "info", src, "--json")
    info = chunkwise.open(str(src)).info
    # The same keys in the same order with the same values; the CLI's text is
    # nlohmann's compact dump, which Python's json.dumps does not reproduce
    # digit for digit for floats, so the objects are compared, not the text.
    assert list(json.loads(printed)) == list(info)
    assert json.loads(printed) == info


def info_error(cli: str, tmp: Path) -> tuple[str, str]:
    # zarr.json that is not JSON.
    src = source_array(tmp)
    (src / "zarr.json").write_text("{ not json")
    return (cli_code(cli, "zarr", "info", src, "--json"),
            py_code(lambda: chunkwise.open(str(src)).info))


def info_group_output(cli: str, tmp: Path) -> None:
    group = tmp / "group.zarr"
    group.mkdir()
    (group / "zarr.json").write_text('{"zarr_format": 3, "node_type": "group", "attributes": {}}')
    source_array(group, "a")
    printed = json.loads(cli_ok(cli, "zarr", "info", group, "--json"))
    assert printed["node_type"] == "group"
    by_py = chunkwise.info(str(group))
    assert list(printed) == list(by_py)
    assert printed == by_py
    # An array's info is the same dict through either Python door.
    assert chunkwise.info(str(group / "a")) == chunkwise.open(str(group / "a")).info


def info_group_error(cli: str, tmp: Path) -> tuple[str, str]:
    return (cli_code(cli, "zarr", "info", tmp / "missing.zarr"),
            py_code(lambda: chunkwise.info(str(tmp / "missing.zarr"))))


# zarr convert ----------------------------------------------------------------

def convert_output(cli: str, tmp: Path) -> None:
    src = source_array(tmp, shards=[16, 32])
    cli_ok(cli, "zarr", "convert", src, tmp / "cli.zarr", "--chunk", "4,16", "--codec", "gzip:6")
    chunkwise.convert(str(src), str(tmp / "py.zarr"), chunks=[4, 16], codecs="gzip:6")
    assert_same_store(tmp / "cli.zarr", tmp / "py.zarr")


def convert_error(cli: str, tmp: Path) -> tuple[str, str]:
    # Chunks that do not divide the source's shards.
    src = source_array(tmp, shards=[16, 32])
    return (cli_code(cli, "zarr", "convert", src, tmp / "cli.zarr", "--chunk", "5,16"),
            py_code(lambda: chunkwise.convert(str(src), str(tmp / "py.zarr"), chunks=[5, 16])))


# zarr import (.npy) ----------------------------------------------------------

def import_output(cli: str, tmp: Path) -> None:
    np.save(tmp / "data.npy", volume())
    cli_ok(cli, "zarr", "import", tmp / "data.npy", tmp / "cli.zarr", "--chunk", "8,16",
           "--shard", "16,32")
    chunkwise.import_npy(str(tmp / "data.npy"), str(tmp / "py.zarr"), chunks=[8, 16],
                         shards=[16, 32])
    assert_same_store(tmp / "cli.zarr", tmp / "py.zarr")


def import_as_create_output(cli: str, tmp: Path) -> None:
    # What a Python user does instead: load the file, create with data=. The
    # stored bytes agree with the CLI's import (the job is the same array).
    np.save(tmp / "data.npy", volume())
    cli_ok(cli, "zarr", "import", tmp / "data.npy", tmp / "cli.zarr", "--chunk", "8,16",
           "--shard", "16,32")
    chunkwise.create(str(tmp / "py.zarr"), data=np.load(tmp / "data.npy"), chunks=[8, 16],
                     shards=[16, 32])
    assert_same_store(tmp / "cli.zarr", tmp / "py.zarr")


def import_error(cli: str, tmp: Path) -> tuple[str, str]:
    # A .npy whose header is cut short: the module's import reads it with the
    # library's reader, as the CLI does (np.load would raise numpy's ValueError).
    (tmp / "bad.npy").write_bytes(b"\x93NUMPY\x01\x00\x76\x00{'descr': '<u2'")
    return (cli_code(cli, "zarr", "import", tmp / "bad.npy", tmp / "cli.zarr", "--chunk", "8,8"),
            py_code(lambda: chunkwise.import_npy(tmp / "bad.npy", str(tmp / "py.zarr"),
                                                 chunks=[8, 8])))


# zarr stream (frames) --------------------------------------------------------

STREAM = {"shape": [0, 16, 24], "dtype": "uint16", "chunks": [4, 8, 8],
          "tiles_per_shard": [2, 2, 3]}


def stream_output(cli: str, tmp: Path) -> None:
    frames = volume((22, 16, 24))
    np.save(tmp / "frames.npy", frames)
    cli_ok(cli, "zarr", "stream", tmp / "cli.zarr", "--shape", "0,16,24", "--dtype", "uint16",
           "--chunk", "4,8,8", "--tiles-per-shard", "2,2,3", "--input", tmp / "frames.npy")
    with chunkwise.StreamWriter(str(tmp / "py.zarr"), **STREAM) as writer:
        for start in range(0, 22, 5):
            writer.append(frames[start:start + 5])
    assert_same_store(tmp / "cli.zarr", tmp / "py.zarr")


def stream_error(cli: str, tmp: Path) -> tuple[str, str]:
    # A tile of the wrong rank.
    np.save(tmp / "frames.npy", volume((4, 16, 24)))
    return (cli_code(cli, "zarr", "stream", tmp / "cli.zarr", "--shape", "0,16,24",
                     "--dtype", "uint16", "--chunk", "4,8", "--input", tmp / "frames.npy"),
            py_code(lambda: chunkwise.StreamWriter(str(tmp / "py.zarr"), shape=[0, 16, 24],
                                                   dtype="uint16", chunks=[4, 8])))


def stream_names_output(cli: str, tmp: Path) -> None:
    frames = volume((8, 16, 24))
    np.save(tmp / "frames.npy", frames)
    cli_ok(cli, "zarr", "stream", tmp / "cli.zarr", "--shape", "0,16,24", "--dtype", "uint16",
           "--chunk", "4,8,8", "--dimension-names", "t,,x", "--input", tmp / "frames.npy")
    with chunkwise.StreamWriter(str(tmp / "py.zarr"), shape=[0, 16, 24], dtype="uint16",
                                chunks=[4, 8, 8], dimension_names=["t", None, "x"]) as writer:
        writer.append(frames)
    assert json.loads((tmp / "py.zarr" / "zarr.json").read_text())["dimension_names"] == \
        ["t", None, "x"]
    assert_same_store(tmp / "cli.zarr", tmp / "py.zarr")


def stream_levels_output(cli: str, tmp: Path) -> None:
    frames = volume((16, 16, 24))
    np.save(tmp / "frames.npy", frames)
    cli_ok(cli, "zarr", "stream", tmp / "cli.zarr", "--shape", "0,16,24", "--dtype", "uint16",
           "--chunk", "4,8,8", "--input", tmp / "frames.npy", "--levels", "1")
    with chunkwise.StreamWriter(str(tmp / "py.zarr"), levels=1,
                                shape=[0, 16, 24], dtype="uint16", chunks=[4, 8, 8]) as writer:
        writer.append(frames)
    assert_same_store(tmp / "cli.zarr", tmp / "py.zarr")


def stream_levels_error(cli: str, tmp: Path) -> tuple[str, str]:
    np.save(tmp / "frames.npy", volume((4, 16, 24)))
    return (cli_code(cli, "zarr", "stream", tmp / "cli.zarr", "--shape", "0,16,24",
                     "--dtype", "uint16", "--chunk", "4,8,8", "--input", tmp / "frames.npy",
                     "--levels", "1", "--downsample", "median"),
            py_code(lambda: chunkwise.StreamWriter(
                str(tmp / "py.zarr"), shape=[0, 16, 24], dtype="uint16", chunks=[4, 8, 8],
                levels=1, downsample="median")))


# dvid export-shards ----------------------------------------------------------

def export_output(cli: str, tmp: Path) -> None:
    import chunkwise.dvid

    db, spec = labelmap_db(tmp)
    cli_ok(cli, "dvid", "export-shards", db, spec, tmp / "cli-export")
    chunkwise.dvid.export_shards(str(db), str(spec), str(tmp / "py-export"))
    assert_same_store(tmp / "cli-export", tmp / "py-export", without_times)


def export_error(cli: str, tmp: Path) -> tuple[str, str]:
    import chunkwise.dvid

    # A spec whose scale is not sharded.
    db, spec = labelmap_db(tmp)
    unsharded = json.loads(spec.read_text())
    for scale in unsharded["scales"]:
        del scale["sharding"]
    spec.write_text(json.dumps(unsharded))
    return (cli_code(cli, "dvid", "export-shards", db, spec, tmp / "cli-export"),
            py_code(lambda: chunkwise.dvid.export_shards(str(db), str(spec),
                                                         str(tmp / "py-export"))))


# dvid to-precomputed ---------------------------------------------------------

def dvid_precomputed_output(cli: str, tmp: Path) -> None:
    import chunkwise.dask
    import chunkwise.dvid

    db, spec = labelmap_db(tmp)
    chunkwise.dvid.export_shards(str(db), str(spec), str(tmp / "export"))
    cli_ok(cli, "dvid", "to-precomputed", tmp / "export", tmp / "cli-volume")
    summary = chunkwise.dask.to_precomputed(str(tmp / "export"), str(tmp / "py-volume"))
    assert summary["scales"][0]["shards_written"] >= 1
    assert_same_store(tmp / "cli-volume", tmp / "py-volume")


def dvid_precomputed_error(cli: str, tmp: Path) -> tuple[str, str]:
    import chunkwise.dask

    # No export there.
    return (cli_code(cli, "dvid", "to-precomputed", tmp / "missing", tmp / "cli-volume"),
            py_code(lambda: chunkwise.dask.to_precomputed(str(tmp / "missing"),
                                                          str(tmp / "py-volume"))))


# zarr to-precomputed ---------------------------------------------------------

def zarr_precomputed_output(cli: str, tmp: Path) -> None:
    src = tmp / "src.zarr"
    chunkwise.create(str(src), data=volume((32, 32, 32), "uint8"), chunks=[16, 16, 16])
    cli_ok(cli, "zarr", "to-precomputed", src, tmp / "cli-volume", "--chunk", "16,16,16")
    chunkwise.to_precomputed(str(src), str(tmp / "py-volume"), chunk=[16, 16, 16])
    assert_same_store(tmp / "cli-volume", tmp / "py-volume")


def zarr_precomputed_error(cli: str, tmp: Path) -> tuple[str, str]:
    return (cli_code(cli, "zarr", "to-precomputed", tmp / "missing.zarr", tmp / "cli-volume"),
            py_code(lambda: chunkwise.to_precomputed(str(tmp / "missing.zarr"),
                                                     str(tmp / "py-volume"))))


# refs build ------------------------------------------------------------------

def refs_output(cli: str, tmp: Path) -> None:
    import chunkwise.refs

    src = source_array(tmp, zarr_format=2)
    cli_ok(cli, "refs", "build", src, "--output", tmp / "cli.json")
    chunkwise.refs.build(str(src), str(tmp / "py.json"))
    assert_same_store(tmp / "cli.json", tmp / "py.json")


def refs_parquet_output(cli: str, tmp: Path) -> None:
    import chunkwise.refs

    src = source_array(tmp, zarr_format=2)
    cli_ok(cli, "refs", "build", src, "--output", tmp / "cli.parquet", "--format", "parquet")
    chunkwise.refs.build(str(src), str(tmp / "py.parquet"), format="parquet")
    assert_same_store(tmp / "cli.parquet", tmp / "py.parquet")


def refs_error(cli: str, tmp: Path) -> tuple[str, str]:
    import chunkwise.refs

    return (cli_code(cli, "refs", "build", tmp / "missing.zarr", "--output", tmp / "cli.json"),
            py_code(lambda: chunkwise.refs.build(str(tmp / "missing.zarr"),
                                                 str(tmp / "py.json"))))


# vectors write / read --------------------------------------------------------

def points() -> np.ndarray:
    return np.random.default_rng(3).uniform(0, 100, (2000, 3)).astype("float32")


def vectors_write_output(cli: str, tmp: Path) -> None:
    import chunkwise.vectors

    np.save(tmp / "points.npy", points())
    cli_ok(cli, "vectors", "write", tmp / "cli.zv", "--type", "points", "--input",
           tmp / "points.npy", "--chunk-shape", "25,25,25")
    chunkwise.vectors.write(str(tmp / "py.zv"), points(), chunk_shape=(25, 25, 25))
    assert_same_store(tmp / "cli.zv", tmp / "py.zv")


def vectors_write_error(cli: str, tmp: Path) -> tuple[str, str]:
    import chunkwise.vectors

    # A chunk of no extent.
    np.save(tmp / "points.npy", points())
    return (cli_code(cli, "vectors", "write", tmp / "cli.zv", "--type", "points", "--input",
                     tmp / "points.npy", "--chunk-shape", "0,25,25"),
            py_code(lambda: chunkwise.vectors.write(str(tmp / "py.zv"), points(),
                                                    chunk_shape=(0, 25, 25))))


def vectors_read_output(cli: str, tmp: Path) -> None:
    import chunkwise.vectors

    chunkwise.vectors.write(str(tmp / "store.zv"), points(), chunk_shape=(25, 25, 25))
    cli_ok(cli, "vectors", "read", tmp / "store.zv", "--region", "10:60,0:50,20:",
           "--output", tmp / "cli.npy")
    geometry = chunkwise.vectors.read(str(tmp / "store.zv"), region="10:60,0:50,20:")
    assert len(geometry.positions) > 100
    assert_same_array(tmp / "cli.npy", geometry.positions)


def vectors_read_error(cli: str, tmp: Path) -> tuple[str, str]:
    import chunkwise.vectors

    return (cli_code(cli, "vectors", "read", tmp / "missing.zv", "--output", tmp / "cli.npy"),
            py_code(lambda: chunkwise.vectors.read(str(tmp / "missing.zv"))))


# bcolz create / read ---------------------------------------------------------

ROWS = np.array([(i, i * 0.5, i % 7) for i in range(3000)],
                dtype=[("id", "<i8"), ("x", "<f8"), ("tag", "<i4")])


def bcolz_create_output(cli: str, tmp: Path) -> None:
    import chunkwise.bcolz

    np.save(tmp / "signal.npy", np.arange(50000, dtype="<f4"))
    np.save(tmp / "rows.npy", ROWS)
    for name in ("signal", "rows"):
        cli_ok(cli, "bcolz", "create", tmp / f"cli-{name}.bcolz", "--input", tmp / f"{name}.npy")
        chunkwise.bcolz.import_file(str(tmp / f"py-{name}.bcolz"), tmp / f"{name}.npy")
        assert_same_store(tmp / f"cli-{name}.bcolz", tmp / f"py-{name}.bcolz")
    # And from an array in memory, the same dataset.
    chunkwise.bcolz.write(str(tmp / "py-rows-write.bcolz"), ROWS)
    assert_same_store(tmp / "cli-rows.bcolz", tmp / "py-rows-write.bcolz")


def bcolz_create_error(cli: str, tmp: Path) -> tuple[str, str]:
    import chunkwise.bcolz

    # A dataset already there, without --overwrite.
    np.save(tmp / "rows.npy", ROWS)
    chunkwise.bcolz.write(str(tmp / "rows.bcolz"), ROWS)
    return (cli_code(cli, "bcolz", "create", tmp / "rows.bcolz", "--input", tmp / "rows.npy"),
            py_code(lambda: chunkwise.bcolz.import_file(str(tmp / "rows.bcolz"),
                                                        tmp / "rows.npy")))


def bcolz_read_output(cli: str, tmp: Path) -> None:
    import chunkwise.bcolz

    chunkwise.bcolz.write(str(tmp / "rows.bcolz"), ROWS, chunklen=256)
    chunkwise.bcolz.write(str(tmp / "signal.bcolz"), np.arange(50000, dtype="<f4"))
    cli_ok(cli, "bcolz", "read", tmp / "signal.bcolz", "--slice", "100:-7",
           "--output", tmp / "signal.npy")
    assert_same_array(tmp / "signal.npy",
                      chunkwise.bcolz.read(str(tmp / "signal.bcolz"), slice="100:-7"))
    cli_ok(cli, "bcolz", "read", tmp / "rows.bcolz", "--columns", "id,tag",
           "--where", "(x > 100) & (tag == 3)", "--output", tmp / "rows.npy")
    assert_same_array(tmp / "rows.npy",
                      chunkwise.bcolz.read(str(tmp / "rows.bcolz"), columns=["id", "tag"],
                                           where="(x > 100) & (tag == 3)"))


def bcolz_read_error(cli: str, tmp: Path) -> tuple[str, str]:
    import chunkwise.bcolz

    # A filter on a column the table does not have.
    chunkwise.bcolz.write(str(tmp / "rows.bcolz"), ROWS)
    return (cli_code(cli, "bcolz", "read", tmp / "rows.bcolz", "--where", "nope > 1",
                     "--output", tmp / "out.npy"),
            py_code(lambda: chunkwise.bcolz.read(str(tmp / "rows.bcolz"), where="nope > 1")))


# Not a difference of the doors but a regression both share, marked so that the
# table runs green until it is fixed (the row then XPASSes: remove the mark).
# The same rows passed byte for byte on a build before the wt-shard-store merge.
JOBS = [
    Job("zarr-create", create_output, create_error),
    Job("zarr-create-attributes", create_attributes_output, None),
    Job("zarr-create-0d", create_0d_output, create_0d_error),
    Job("zarr-write", write_output, write_error),
    Job("zarr-read", read_output, read_error),
    Job("zarr-info", info_output, info_error),
    Job("zarr-info-group", info_group_output, info_group_error),
    Job("zarr-convert", convert_output, convert_error),
    Job("zarr-import", import_output, import_error),
    Job("zarr-import-as-create", import_as_create_output, import_error),
    Job("zarr-stream", stream_output, stream_error),
    Job("zarr-stream-dimension-names", stream_names_output, None),
    Job("zarr-stream-levels", stream_levels_output, stream_levels_error),
    Job("dvid-export-shards", export_output, export_error),
    Job("dvid-to-precomputed", dvid_precomputed_output, dvid_precomputed_error),
    Job("zarr-to-precomputed", zarr_precomputed_output, zarr_precomputed_error),
    Job("refs-build", refs_output, refs_error),
    Job("refs-build-parquet", refs_parquet_output, refs_error),
    Job("vectors-write", vectors_write_output, vectors_write_error),
    Job("vectors-read", vectors_read_output, vectors_read_error),
    Job("bcolz-create", bcolz_create_output, bcolz_create_error),
    Job("bcolz-read", bcolz_read_output, bcolz_read_error),
]


def _rows(kind: str) -> list[object]:
    rows = []
    for job in JOBS:
        if kind == "error" and job.same_error is None:
            continue
        defect = job.output_defect if kind == "output" else job.error_defect
        marks = [pytest.mark.xfail(strict=True, reason=defect)] if defect else []
        rows.append(pytest.param(job, id=job.name, marks=marks))
    return rows


@pytest.mark.parametrize("job", _rows("output"))
def test_same_output(job: Job, cli: str, tmp_path: Path) -> None:
    job.same_output(cli, tmp_path)


@pytest.mark.parametrize("job", _rows("error"))
def test_same_error(job: Job, cli: str, tmp_path: Path) -> None:
    assert job.same_error is not None
    by_cli, by_py = job.same_error(cli, tmp_path)
    assert by_cli == by_py, f"the CLI reports {by_cli}, Python {by_py}"
