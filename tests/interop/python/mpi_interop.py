"""MPI: `mpirun -np 3 chunkwise ...` writes the same bytes as one process.

For `dvid export-shards` and `zarr convert`, with Debian's
OpenMPI on this machine (--oversubscribe: 3 ranks on 2 cores):
  * three ranks give output byte-identical to one process, every file compared
    (export.log holds timings: its block totals are compared instead);
  * a rank that fails (CHUNKWISE_TEST_RANK_FAULT=<rank>:<shards>:fail) fails the
    job on every rank, and the message names the rank and the shard;
  * a rank SIGKILLed midway (...:kill) leaves no visible partial shard: no info,
    and every visible file is byte-identical to the one-process output;
  * after either, `--resume` under mpirun completes the job identically;
  * ranks of a box-sharded export read only their shards' key ranges, yet a
    block outside the spec's volume still fails the job, named;
  * `zarr convert` by 3 ranks, sharded v3 and unsharded v2, is byte-identical
    to one process, and reads back as the data;
  * `zarr convert` with a rank (or the one process) killed or failing part-way
    publishes no zarr.json, leaves only whole shards, refuses a plain rerun as
    unfinished (offering --resume), and `--resume` writes only the missing
    shards, byte-identical to one process, read equal by zarr-python and
    TensorStore;
  * `zarr convert` of a sparse array (a grid of 2^40 chunks, three stored) by 3
    ranks writes the same three shards as one process, visiting only those.
  * `refs build` by 3 ranks (a sharded v3 array, a v2 group of two arrays, a
    bcolz carray, export shards) writes JSON v0, JSON v1 and Parquet sets
    byte-identical to one process's, and a failure on any rank fails the job;
  * `refs build` with a rank failing (or killed) before it saves its part
    writes no output, keeps the other ranks' saved parts, refuses a plain rerun
    and a resume from another source, and `--resume` builds only the missing
    parts, to the one-process set (compared byte for byte, and read through
    fsspec by zarr-python);
  * `zarr import` of a .npy file by 3 ranks (sharded v3, unsharded v2, big-endian,
    Fortran order) is byte-identical to one process and reads back as the data;
  * `zarr import` with a rank (or the one process) killed or failing part-way
    publishes no zarr.json, leaves only whole shards, names the failed rank and
    shard, and `--resume` writes only the missing shards (the kept ones are not
    rewritten) to the bytes of a clean run; another layout is refused;
  * `dvid to-precomputed` by 3 ranks (box and hashed shards) is byte-identical to
    one process; a damaged Arrow shard fails the job naming the rank and the shard,
    publishes no info, and `--resume` by 3 ranks completes it identically; so
    does a rank killed (or failing, named) after its first shard, and the
    resume does not rewrite the shards kept.
  * `chunkwise mesh` by 2 ranks (legacy, and multires-sharded with two shards)
    is byte-identical to one process and leaves no scratch object; existing
    meshes are refused by every rank; so is a zarr-vectors mesh store (every
    level) by 2 ranks, and an existing store is refused.
  * `chunkwise skeletonize` by 2 ranks (precomputed, precomputed-sharded with two
    shards, a zarr-vectors store) is byte-identical to one process and leaves no
    scratch object; what is there is refused by every rank.

usage: python3 mpi_interop.py --chunkwise build/chunkwise --mpirun /usr/bin/mpirun
    --chunkwise-test-faults build/tests/chunkwise-test-faults --workdir DIR
       [--peer-python .venv/bin/python]
"""
import argparse
import json
import os
import pathlib
import re
import shutil
import subprocess

import numpy as np

from interop_check import Checks

RANKS = 3


def run(args, env=None, expect_success=True, timeout=None):
    result = subprocess.run([str(a) for a in args], capture_output=True, text=True,
                            env={**os.environ, **(env or {})}, timeout=timeout)
    if expect_success and result.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, args))} failed ({result.returncode}):\n"
                           f"{result.stdout}\n{result.stderr}")
    return result


def visible_files(root):
    """Every file under `root` but a writer's temporaries (.X.tmp.PID.N), as relative paths."""
    root = pathlib.Path(root)
    return sorted(str(p.relative_to(root)) for p in root.rglob("*")
                  if p.is_file() and not (p.name.startswith(".") and ".tmp." in p.name))


def compare_trees(checks, got, expected, what, skip=("export.log",), partial=False):
    """Every file of `got` byte-identical to `expected`'s (and, unless partial, the same set)."""
    got_files = [f for f in visible_files(got) if f not in skip]
    expected_files = [f for f in visible_files(expected) if f not in skip]
    if not partial:
        checks.expect(got_files == expected_files,
                      f"{what}: the same {len(expected_files)} files "
                      f"(missing {sorted(set(expected_files) - set(got_files))[:3]}, "
                      f"extra {sorted(set(got_files) - set(expected_files))[:3]})")
    else:
        extra = sorted(set(got_files) - set(expected_files))
        checks.expect(not extra, f"{what}: no file the one-process output lacks {extra[:3]}")
    differing = [f for f in got_files if f in expected_files and
                 (pathlib.Path(got) / f).read_bytes() != (pathlib.Path(expected) / f).read_bytes()]
    checks.expect(not differing, f"{what}: {len(got_files)} files byte-identical "
                                 f"(differ: {differing[:3]})")


def total_blocks(log_path):
    match = re.search(r"^total: (\d+) blocks read, (\d+) written", pathlib.Path(log_path).read_text(), re.M)
    return (int(match.group(1)), int(match.group(2))) if match else None


class Job:
    def __init__(self, args):
        self.chunkwise = pathlib.Path(args.chunkwise).resolve()
        # The same CLI with the test fault hook; the shipped one ignores CHUNKWISE_TEST_RANK_FAULT.
        self.test_faults = pathlib.Path(args.chunkwise_test_faults).resolve()
        self.peer_python = args.peer_python
        self.mpirun = [args.mpirun, "--oversubscribe", "--allow-run-as-root", "-np", str(RANKS)]
        # Containers often forbid the cross-memory attach of the shared-memory transport.
        self.env = {"OMPI_MCA_btl_vader_single_copy_mechanism": "none", "OMPI_MCA_rmaps_base_oversubscribe": "1"}

    def binary(self, env):
        return self.test_faults if "CHUNKWISE_TEST_RANK_FAULT" in (env or {}) else self.chunkwise

    def one(self, args, env=None, expect_success=True, timeout=None):
        return run([self.binary(env), "-q", *args], {**self.env, **(env or {})}, expect_success,
                   timeout)

    def ranks(self, args, env=None, expect_success=True, timeout=None):
        return run([*self.mpirun, self.binary(env), "-q", *args], {**self.env, **(env or {})},
                   expect_success, timeout)


def make_labelmap(job, work):
    # 256³ voxels = 4³ blocks in scale 0, 2³ in scale 1; labels that change
    # within blocks, and one all-zero corner (skipped blocks: shards without files).
    n = 256
    z, y, x = np.indices((n, n, n), dtype=np.uint64)
    labels = (z // 40) * 100 + (y // 40) * 10 + (x // 40) + 1
    labels[:64, :64, :64] = 0
    np.save(work / "labels.npy", labels)
    db = work / "labels.db"
    job.one(["dvid", "ingest", db, "--input", work / "labels.npy", "--scales", "1"])
    return db


def spec_file(work, hashed):
    # Identity: 8 box shards of 2³ blocks at s0. Murmur: shards by hash (hex names).
    def scale(key, size, res):
        return {"key": key, "size": [size] * 3, "resolution": [res] * 3, "chunk_sizes": [[64] * 3],
                "encoding": "compressed_segmentation",
                "sharding": {"@type": "neuroglancer_uint64_sharded_v1", "preshift_bits": 2 if not hashed else 0,
                             "hash": "murmurhash3_x86_128" if hashed else "identity",
                             "minishard_bits": 1, "shard_bits": 3,
                             "minishard_index_encoding": "gzip", "data_encoding": "gzip"}}
    spec = {"@type": "neuroglancer_multiscale_volume", "type": "segmentation", "data_type": "uint64",
            "num_channels": 1, "scales": [scale("s0", 256, 8), scale("s1", 128, 16)]}
    path = work / ("spec-murmur.json" if hashed else "spec.json")
    path.write_text(json.dumps(spec))
    return path


def check_export(checks, job, work, db, spec, name):
    reference = work / f"{name}-one"
    # One chunk handler: with several, the records of a hash-sharded shard reach its writer
    # in the order the handlers finish, which varies from run to run (one process or many).
    job.one(["dvid", "export-shards", db, spec, reference, "--workers", "1"])
    shards = [f for f in visible_files(reference) if f.endswith(".arrow")]
    checks.expect(len(shards) >= 6, f"{name}: one process wrote {len(shards)} shards (enough to deal to 3 ranks)")

    out = work / f"{name}-ranks"
    result = job.ranks(["dvid", "export-shards", db, spec, out, "--workers", "1"])
    compare_trees(checks, out, reference, f"{name}: {RANKS} ranks vs one process")
    checks.expect(total_blocks(out / "export.log") == total_blocks(reference / "export.log"),
                  f"{name}: the job's summary adds the ranks' blocks {total_blocks(out / 'export.log')}")
    checks.expect(result.stdout.count("exported") == 0, f"{name}: -q prints no summary")

    again = job.ranks(["dvid", "export-shards", db, spec, out, "--workers", "1"], expect_success=False)
    checks.expect(again.returncode != 0 and "exists" in again.stderr,
                  f"{name}: an existing export is refused on every rank ({again.returncode})")

    for mode, rank in (("fail", 1), ("kill", 2)):
        broken = work / f"{name}-{mode}"
        fault = {"CHUNKWISE_TEST_RANK_FAULT": f"{rank}:1:{mode}"}
        failed = job.ranks(["dvid", "export-shards", db, spec, broken, "--workers", "1"], fault,
                           expect_success=False)
        checks.expect(failed.returncode != 0, f"{name}/{mode}: the job fails (exit {failed.returncode})")
        if mode == "fail":
            named = re.search(rf"rank {rank} of {RANKS}: .*s\d/[0-9a-f_]+\.arrow: rank {rank} fails here",
                              failed.stderr)
            # mpirun aborts the job at the first rank's exit, so some ranks may not get to print:
            # every error printed names the failed rank.
            errors = [l for l in failed.stderr.splitlines() if l.startswith("chunkwise: error:")]
            checks.expect(named is not None and errors
                          and all(f"rank {rank} of {RANKS}" in l for l in errors),
                          f"{name}/{mode}: every rank's error names rank {rank} and its shard: "
                          f"{failed.stderr.strip().splitlines()[:1]}")
        checks.expect(not (broken / "info").exists(), f"{name}/{mode}: no info is published")
        checks.expect((broken / ".chunkwise-incomplete").exists(),
                      f"{name}/{mode}: the unfinished export is marked (.chunkwise-incomplete)")
        compare_trees(checks, broken, reference, f"{name}/{mode}: what is visible is whole",
                      skip=("export.log", ".chunkwise-incomplete"), partial=True)
        kept = len([f for f in visible_files(broken) if f.endswith(".csv")])
        if mode == "fail":
            again = job.ranks(["dvid", "export-shards", db, spec, broken, "--workers", "1"],
                              expect_success=False)
            checks.expect(again.returncode != 0 and "pass --resume to finish it" in again.stderr
                          and "pass --overwrite to replace it" in again.stderr,
                          f"{name}/{mode}: the unfinished export is left; the error offers --resume and --overwrite")
        job.ranks(["dvid", "export-shards", db, spec, broken, "--workers", "1", "--resume"])
        compare_trees(checks, broken, reference, f"{name}/{mode}: --resume (kept {kept} shards) completes it")
        log = (broken / "export.log").read_text()
        checks.expect("kept from before" in log or kept == 0,
                      f"{name}/{mode}: the resumed summary counts the kept shards")

    # One process resumes too, and a complete export resumed is republished unchanged.
    job.one(["dvid", "export-shards", db, spec, out, "--resume", "--workers", "1"])
    compare_trees(checks, out, reference, f"{name}: --resume of a complete export by one process")


def check_outside_volume(checks, job, work, db):
    """Ranks that read only their shards' key ranges still refuse a block outside the spec."""
    spec = json.loads(spec_file(work, hashed=False).read_text())
    spec["scales"] = spec["scales"][:1]
    spec["scales"][0]["size"] = [192, 256, 256]  # x: 3 blocks; the database has 4.
    path = work / "spec-small.json"
    path.write_text(json.dumps(spec))
    for launcher, what in ((job.one, "one process"), (job.ranks, f"{RANKS} ranks")):
        out = work / f"outside-{what.replace(' ', '-')}"
        failed = launcher(["dvid", "export-shards", db, path, out, "--workers", "1"], expect_success=False)
        checks.expect(failed.returncode != 0 and "block x,y,z 3," in failed.stderr and
                      "lies outside the spec's volume" in failed.stderr and not (out / "info").exists(),
                      f"{what}: a block outside the spec's volume fails the export, named: "
                      f"{failed.stderr.strip().splitlines()[:1]}")


def check_convert(checks, job, work):
    """zarr convert into sharded v3 (zstd), and into unsharded v2: 3 ranks vs one process."""
    rng = np.random.default_rng(29)
    data = (rng.integers(0, 7, (96, 160, 130)) * np.arange(130, dtype=np.uint16)).astype(np.uint16)
    np.save(work / "convert.npy", data)
    source = work / "convert-source.zarr"
    job.one(["zarr", "create", source, "--shape", "96,160,130", "--dtype", "uint16", "--chunk", "16,32,32"])
    job.one(["zarr", "write", source, "--input", work / "convert.npy"])
    layouts = {"sharded-v3": ["--chunk", "16,16,16", "--shard", "32,32,48", "--codec", "zstd:3"],
               "chunks-v2": ["--format", "2", "--chunk", "24,40,40", "--codec", "blosc:lz4det:5:shuffle"]}
    for name, layout in layouts.items():
        reference = work / f"convert-{name}-one"
        job.one(["zarr", "convert", source, reference, *layout])
        out = work / f"convert-{name}-ranks"
        job.ranks(["zarr", "convert", source, out, *layout])
        objects = len(visible_files(reference))
        checks.expect(objects >= 6, f"zarr convert {name}: one process wrote {objects} objects")
        compare_trees(checks, out, reference, f"zarr convert {name}: {RANKS} ranks vs one process", skip=())
        refused = job.ranks(["zarr", "convert", source, out, *layout], expect_success=False)
        checks.expect(refused.returncode != 0 and "already" in refused.stderr,
                      f"zarr convert {name}: an existing array is refused ({refused.stderr.strip()[:80]})")
        job.ranks(["zarr", "convert", source, out, *layout, "--overwrite"])
        compare_trees(checks, out, reference, f"zarr convert {name}: --overwrite by {RANKS} ranks", skip=())
    read = work / "convert-read.npy"
    job.one(["zarr", "read", work / "convert-sharded-v3-ranks", "--output", read])
    checks.expect(np.array_equal(np.load(read), data), "zarr convert: the ranks' array reads back as the data")


def check_convert_sparse(checks, job, work):
    """A grid of 2^40 chunks with three stored: every rank lists the source and writes only
    the stored shards it owns, byte-identical to one process (each run gets 300 s; a walk of
    the grid would take days)."""
    n = 1 << 22
    source = work / "sparse-source.zarr"
    job.one(["zarr", "create", source, "--shape", f"{n},{n}", "--dtype", "uint16", "--chunk", "4,4"])
    corners = [(0, 8), (n // 2, 1000), (n - 4, n - 4)]
    for i, (y, x) in enumerate(corners):
        np.save(work / f"sparse-{i}.npy", np.full((4, 4), i + 1, np.uint16))
        job.one(["zarr", "write", source, "--input", work / f"sparse-{i}.npy", "--offset", f"{y},{x}"])
    layout = ["--chunk", "8,8", "--shard", "16,16"]
    reference = work / "sparse-one"
    job.one(["zarr", "convert", source, reference, *layout], timeout=300)
    out = work / "sparse-ranks"
    job.ranks(["zarr", "convert", source, out, *layout], timeout=300)
    shards = [f for f in visible_files(reference) if f.startswith("c/")]
    checks.expect(len(shards) == 3, f"sparse zarr convert: one process wrote 3 shards ({shards})")
    compare_trees(checks, out, reference, f"sparse zarr convert: {RANKS} ranks vs one process", skip=())
    read = work / "sparse-read.npy"
    y, x = corners[1]
    job.one(["zarr", "read", out, "--region", f"{y}:{y + 4},{x - 1}:{x + 4}", "--output", read])
    expected = np.zeros((4, 5), np.uint16)
    expected[:, 1:] = 2
    checks.expect(np.array_equal(np.load(read), expected),
                  "sparse zarr convert: the ranks' array reads back a stored block and its fill")
# Today's readers (the pinned .venv) compare two zarr arrays, or two reference sets.
PEER_COMPARE_ARRAYS = """
import sys, numpy as np, zarr, tensorstore as ts
a, b = sys.argv[1:3]
za, zb = zarr.open_array(a, mode="r")[...], zarr.open_array(b, mode="r")[...]
spec = lambda p: {"driver": "zarr3", "kvstore": {"driver": "file", "path": p}}
ta, tb = ts.open(spec(a)).result().read().result(), ts.open(spec(b)).result().read().result()
assert np.array_equal(za, zb) and np.array_equal(ta, tb) and np.array_equal(za, ta), "arrays differ"
print(f"zarr-python and TensorStore read {za.shape} {za.dtype}, equal")
"""
PEER_COMPARE_REFERENCES = """
import sys, numpy as np, zarr, kerchunk
a, b = sys.argv[1:3]
def arrays(path):
    node = zarr.open("reference://", mode="r", zarr_format=2,
                     storage_options={"fo": path, "remote_protocol": "file"})
    if isinstance(node, zarr.Array):
        return {"": node[...]}
    return {name: array[...] for name, array in node.arrays()}
ma, mb = arrays(a), arrays(b)
assert ma and ma.keys() == mb.keys(), f"arrays {sorted(ma)} vs {sorted(mb)}"
assert all(np.array_equal(ma[k], mb[k]) for k in ma), "the sets read differently"
print(f"fsspec + zarr-python (kerchunk {kerchunk.__version__} installed) read {sorted(ma)}, equal")
"""


def peer_compare(checks, job, script, a, b, what):
    """Runs a PEER_COMPARE_* script in the pinned .venv; a missing venv fails the check."""
    if not job.peer_python or not os.access(job.peer_python, os.X_OK):
        checks.expect(False, f"{what}: the pinned .venv python ({job.peer_python}) is missing: "
                             f"run scripts/install-deps")
        return
    result = run([job.peer_python, "-c", script, a, b], expect_success=False)
    checks.expect(result.returncode == 0, f"{what}: {(result.stdout + result.stderr).strip()[-300:]}")


def check_resume(checks, job, work, command, source, layout, reference, run_options):
    """`zarr COMMAND` killed or failing part-way (one rank of 3, or one process), then --resume.

    run_options: the fault's shard count, extra flags of the stopped run, the
    stopped rank's shard key pattern, the text a plain rerun's refusal holds,
    and whether to compare the result with the peer readers too.
    """
    for how, mode, rank in (("ranks", "kill", 1), ("ranks", "fail", 2), ("one", "kill", 0)):
        name = f"zarr {command} {how}/{mode}"
        launch = job.ranks if how == "ranks" else job.one
        broken = work / f"{command}-resume-{how}-{mode}"
        fault = {"CHUNKWISE_TEST_RANK_FAULT": f"{rank}:{run_options['shards']}:{mode}"}
        failed = launch(["zarr", command, source, broken, *layout, *run_options["flags"]], fault,
                        expect_success=False)
        checks.expect(failed.returncode != 0, f"{name}: the {command} fails (exit {failed.returncode})")
        if mode == "fail":
            named = re.search(rf"rank {rank} of {RANKS}: .*{run_options['key']}: rank {rank} fails here",
                              failed.stderr)
            checks.expect(named is not None, f"{name}: the error names rank {rank} and its shard: "
                                             f"{failed.stderr.strip().splitlines()[:1]}")
        checks.expect(not (broken / "zarr.json").exists() and (broken / ".chunkwise-incomplete").exists(),
                      f"{name}: no zarr.json is published; the unfinished array is marked")
        compare_trees(checks, broken, reference, f"{name}: what is visible is whole",
                      skip=(".chunkwise-incomplete",), partial=True)
        kept = {f: (broken / f).stat().st_mtime_ns for f in visible_files(broken)
                if f != ".chunkwise-incomplete"}
        # The fault stops the rank at a shard; the one before may still be in
        # flight on the pool's other thread when it does, so one is certain.
        checks.expect(len(kept) >= 1, f"{name}: {len(kept)} shards were written before it stopped")
        again = launch(["zarr", command, source, broken, *layout], expect_success=False)
        checks.expect(again.returncode != 0 and all(text in again.stderr for text in run_options["refusal"]),
                      f"{name}: without --resume the unfinished array is refused "
                      f"({again.stderr.strip().splitlines()[-1:]})")
        other = launch(["zarr", command, source, broken, *layout[:2], "--resume"], expect_success=False)
        checks.expect(other.returncode != 0 and "begun with other metadata" in other.stderr,
                      f"{name}: --resume with another layout is refused "
                      f"({other.stderr.strip().splitlines()[-1:]})")
        launch(["zarr", command, source, broken, *layout, "--resume"])
        compare_trees(checks, broken, reference, f"{name}: --resume completes it", skip=())
        rewritten = [f for f, at in kept.items() if (broken / f).stat().st_mtime_ns != at]
        checks.expect(not rewritten, f"{name}: --resume kept the {len(kept)} stored shards unwritten "
                                     f"(rewrote {rewritten[:3]})")
        if run_options["peers"]:
            peer_compare(checks, job, PEER_COMPARE_ARRAYS, broken, reference,
                         f"{name}: the resumed array against the one-shot {command}")
    # A complete array resumed is republished unchanged.
    done = work / f"{command}-resume-ranks-kill"
    job.ranks(["zarr", command, source, done, *layout, "--resume"])
    compare_trees(checks, done, reference, f"zarr {command}: --resume of a complete array", skip=())


def check_convert_resume(checks, job, work):
    """zarr convert stopped part-way, then --resume; read by the peers too."""
    check_resume(checks, job, work, "convert", work / "convert-source.zarr",
                 ["--chunk", "16,16,16", "--shard", "32,32,48", "--codec", "zstd:3"],
                 work / "convert-sharded-v3-one",
                 {"shards": 2, "flags": ["--threads", "1"], "key": r"c/\d+/\d+/\d+",
                  "refusal": ("of an unfinished array", "pass --resume to finish it"), "peers": True})


def check_refs(checks, job, work):
    """refs build by 3 ranks against one process: every output file compared, in every format."""
    rng = np.random.default_rng(31)
    data = rng.integers(0, 1000, (40, 50, 60)).astype(np.int32)
    np.save(work / "refs.npy", data)
    sources = {}
    sharded = work / "refs-sharded.zarr"
    job.one(["zarr", "create", sharded, "--shape", "40,50,60", "--dtype", "int32",
             "--chunk", "8,10,12", "--shard", "16,20,24", "--codec", "zstd:3"])
    job.one(["zarr", "write", sharded, "--input", work / "refs.npy"])
    sources["sharded-v3"] = sharded
    group = work / "refs-group.zarr"
    group.mkdir()
    (group / ".zgroup").write_text(json.dumps({"zarr_format": 2}))
    for name, chunk in (("a", "8,8,8"), ("b", "20,25,30")):
        job.one(["zarr", "create", group / name, "--format", "2", "--shape", "40,50,60",
                 "--dtype", "int32", "--chunk", chunk])
        job.one(["zarr", "write", group / name, "--input", work / "refs.npy"])
    sources["group-v2"] = group
    rows = np.arange(10_000, dtype=np.float64) * 0.5
    np.save(work / "refs-rows.npy", rows)
    carray = work / "refs.bcolz"
    job.one(["bcolz", "create", carray, "--input", work / "refs-rows.npy", "--chunklen", "700"])
    sources["bcolz"] = carray
    sources["export"] = work / "export-identity-one"
    formats = {"json-v1": "refs.json", "json": "refs-v0.json", "parquet": "refs.parq"}
    for name, source in sources.items():
        for form, output in formats.items():
            if name == "export" and form == "parquet":
                continue  # Parquet sets place keys in a zarr chunk grid; export keys have none.
            one = work / f"refs-{name}-{form}-one"
            ranks = work / f"refs-{name}-{form}-ranks"
            one.mkdir()
            ranks.mkdir()
            layout = ["--format", form] + (["--record-size", "50"] if form == "parquet" else [])
            job.one(["refs", "build", source, "--output", one / output, *layout])
            result = job.ranks(["refs", "build", source, "--output", ranks / output, *layout])
            compare_trees(checks, ranks, one, f"refs build {name} {form}: {RANKS} ranks vs one process",
                          skip=())
            checks.expect(result.stdout.strip() == "", f"refs build {name} {form}: -q prints nothing")
        refused = job.ranks(["refs", "build", source, "--output",
                             work / f"refs-{name}-json-v1-ranks" / "refs.json"], expect_success=False)
        checks.expect(refused.returncode != 0 and "exist" in refused.stderr,
                      f"refs build {name}: an existing output is refused ({refused.stderr.strip()[:80]})")
    parquet = len(visible_files(work / "refs-group-v2-parquet-one"))
    checks.expect(parquet >= 4, f"refs build: the Parquet sets have several files ({parquet})")
    # A damaged shard of the sharded array: its owner fails, and so does the job, naming it.
    shards = sorted(p for p in sharded.rglob("*") if p.is_file() and p.name != "zarr.json")
    shards[-1].write_bytes(b"not a shard")
    failed = job.ranks(["refs", "build", sharded, "--output", work / "refs-damaged.json"],
                       expect_success=False)
    owner = (len(shards) - 1) % RANKS
    checks.expect(failed.returncode != 0 and not (work / "refs-damaged.json").exists()
                  and f"rank {owner} of {RANKS}" in failed.stderr
                  and str(shards[-1].relative_to(sharded)) in failed.stderr,
                  f"refs build: a damaged shard fails the job, naming the rank and the shard, "
                  f"and writes nothing: {failed.stderr.strip().splitlines()[:1]}")


def check_refs_resume(checks, job, work):
    """refs build by 3 ranks with one failing or killed before its part is saved, then --resume."""
    source = work / "refs-group.zarr"
    cases = (("fail", 2, "json-v1", "refs.json", []),
             ("kill", 1, "parquet", "refs.parq", ["--record-size", "50"]))
    for mode, rank, form, output, extra in cases:
        name = f"refs build {form}/{mode}"
        reference = work / f"refs-group-v2-{form}-one"
        out_dir = work / f"refs-resume-{mode}"
        out_dir.mkdir()
        out = out_dir / output
        parts = out_dir / (output + ".chunkwise-parts")
        layout = ["--format", form, *extra]
        failed = job.ranks(["refs", "build", source, "--output", out, *layout],
                           {"CHUNKWISE_TEST_RANK_FAULT": f"{rank}:0:{mode}"}, expect_success=False)
        saved = sorted(p.name for p in parts.glob("part-*.json")) if parts.exists() else []
        checks.expect(failed.returncode != 0 and not out.exists() and (parts / "job.json").exists()
                      and f"part-{rank}-of-{RANKS}.json" not in saved,
                      f"{name}: rank {rank} stops the job (exit {failed.returncode}): no output, "
                      f"the work prefix holds the parts saved {saved}")
        if mode == "fail":
            checks.expect(re.search(rf"rank {rank} of {RANKS}: .*part-{rank}-of-{RANKS}\.json: "
                                    rf"rank {rank} fails here", failed.stderr) is not None
                          and len(saved) == RANKS - 1,
                          f"{name}: the error names rank {rank} and its part, and the other ranks "
                          f"saved theirs: {failed.stderr.strip().splitlines()[:1]}")
            again = job.ranks(["refs", "build", source, "--output", out, *layout], expect_success=False)
            checks.expect(again.returncode != 0 and "unfinished reference build" in again.stderr
                          and "pass --resume to finish it" in again.stderr,
                          f"{name}: without --resume the unfinished build is refused, offering --resume "
                          f"({again.stderr.strip().splitlines()[-1:]})")
            other = job.ranks(["refs", "build", work / "refs.bcolz", "--output", out, *layout, "--resume"],
                              expect_success=False)
            checks.expect(other.returncode != 0 and "begun from another source" in other.stderr,
                          f"{name}: --resume from another source is refused "
                          f"({other.stderr.strip().splitlines()[-1:]})")
        resumed = run([*job.mpirun, job.chunkwise, "refs", "build", source, "--output", out, *layout,
                       "--resume"], job.env)
        checks.expect(f"{len(saved)} of {RANKS} parts kept from before" in resumed.stdout,
                      f"{name}: the resumed job kept the {len(saved)} saved parts "
                      f"({resumed.stdout.strip()[:160]})")
        checks.expect(not parts.exists(), f"{name}: the work prefix is removed once the set is written")
        compare_trees(checks, out_dir, reference, f"{name}: --resume gives the one-process set", skip=())
        peer_compare(checks, job, PEER_COMPARE_REFERENCES, out, reference / output,
                     f"{name}: the resumed set against the one-process set")


def check_import(checks, job, work):
    """zarr import of a .npy file: 3 ranks, each reading only its boxes, vs one process."""
    rng = np.random.default_rng(37)
    data = rng.integers(0, 5000, (70, 90, 50)).astype(np.uint16)
    inputs = {"little": data, "big": data.astype(">u2"), "fortran": np.asfortranarray(data),
              "flat": data.reshape(-1)[:20000]}
    def layouts(ndim):
        chunk, shard, small = (("10,15,25", "20,30,50", "16,16,16") if ndim == 3 else ("1000", "3000", "1600"))
        return {"sharded-v3": ["--chunk", chunk, "--shard", shard, "--codec", "zstd:3"],
                "chunks-v2": ["--format", "2", "--chunk", small, "--codec", "blosc:lz4det:5:shuffle"]}
    for form, array in inputs.items():
        path = work / f"import-{form}.npy"
        np.save(path, array)
        for name, layout in layouts(array.ndim).items():
            reference = work / f"import-{form}-{name}-one"
            out = work / f"import-{form}-{name}-ranks"
            job.one(["zarr", "import", path, reference, *layout])
            job.ranks(["zarr", "import", path, out, *layout])
            compare_trees(checks, out, reference,
                          f"zarr import {form} {name}: {RANKS} ranks vs one process", skip=())
        read = work / f"import-{form}-read.npy"
        job.one(["zarr", "read", work / f"import-{form}-sharded-v3-ranks", "--output", read])
        checks.expect(np.array_equal(np.load(read), array),
                      f"zarr import {form}: the ranks' array reads back as the data")
    objects = len(visible_files(work / "import-little-sharded-v3-one"))
    checks.expect(objects >= 12, f"zarr import: one process wrote {objects} objects (enough for 3 ranks)")
    refused = job.ranks(["zarr", "import", work / "import-little.npy", work / "import-little-sharded-v3-ranks",
                         "--chunk", "10,15,25"], expect_success=False)
    checks.expect(refused.returncode != 0 and "already" in refused.stderr,
                  f"zarr import: an existing array is refused on every rank ({refused.stderr.strip()[:80]})")


def check_import_resume(checks, job, work):
    """zarr import stopped part-way, then --resume."""
    check_resume(checks, job, work, "import", work / "import-little.npy",
                 ["--chunk", "10,15,25", "--shard", "20,30,50", "--codec", "zstd:3"],
                 work / "import-little-sharded-v3-one",
                 {"shards": 1, "flags": [], "key": r"c/\d+/\d+/0", "refusal": ("already holds",),
                  "peers": False})


def check_to_precomputed(checks, job, work):
    """dvid to-precomputed of the exports above: 3 ranks vs one process, failure and --resume."""
    for name in ("export-identity", "export-murmur"):
        export = work / f"{name}-one"
        reference = work / f"pc-{name}-one"
        out = work / f"pc-{name}-ranks"
        job.one(["dvid", "to-precomputed", export, reference])
        result = job.ranks(["dvid", "to-precomputed", export, out])
        shards = [f for f in visible_files(reference) if f.endswith(".shard")]
        checks.expect(len(shards) >= 6 and (reference / "info").exists(),
                      f"to-precomputed {name}: one process wrote {len(shards)} shards and info")
        compare_trees(checks, out, reference, f"to-precomputed {name}: {RANKS} ranks vs one process", skip=())
        checks.expect(result.stdout.strip() == "", f"to-precomputed {name}: -q prints nothing")
        refused = job.ranks(["dvid", "to-precomputed", export, out], expect_success=False)
        checks.expect(refused.returncode != 0 and "exists already" in refused.stderr,
                      f"to-precomputed {name}: an existing volume is refused ({refused.stderr.strip()[:80]})")
        job.ranks(["dvid", "to-precomputed", export, out, "--overwrite"])
        compare_trees(checks, out, reference, f"to-precomputed {name}: --overwrite by {RANKS} ranks", skip=())
    # A damaged Arrow shard (a copy of the export): its rank fails the job, naming it.
    damaged = work / "pc-damaged-export"
    shutil.copytree(work / "export-identity-one", damaged)
    arrows = sorted(p.relative_to(damaged) for p in damaged.rglob("*.arrow"))
    victim = arrows[len(arrows) // 2]
    original = (damaged / victim).read_bytes()
    (damaged / victim).write_bytes(b"not an arrow file")
    owner = arrows.index(victim) % RANKS
    broken = work / "pc-damaged"
    failed = job.ranks(["dvid", "to-precomputed", damaged, broken], expect_success=False)
    checks.expect(failed.returncode != 0 and f"rank {owner} of {RANKS}" in failed.stderr
                  and victim.name in failed.stderr and not (broken / "info").exists(),
                  f"to-precomputed: a damaged Arrow shard fails the job, naming rank {owner} and "
                  f"the shard, and publishes no info: {failed.stderr.strip().splitlines()[:1]}")
    compare_trees(checks, broken, work / "pc-export-identity-one",
                  "to-precomputed: what the failed job left is whole", partial=True, skip=())
    (damaged / victim).write_bytes(original)
    job.ranks(["dvid", "to-precomputed", damaged, broken, "--resume"])
    compare_trees(checks, broken, work / "pc-export-identity-one",
                  f"to-precomputed: --resume by {RANKS} ranks completes it", skip=())
    # A rank killed (or failing) after its first shard: no info, whole shards only, and
    # --resume converts only the rest, to the bytes of a clean run.
    reference = work / "pc-export-identity-one"
    for mode, rank in (("kill", 1), ("fail", 2)):
        stopped = work / f"pc-{mode}"
        failed = job.ranks(["dvid", "to-precomputed", work / "export-identity-one", stopped],
                           {"CHUNKWISE_TEST_RANK_FAULT": f"{rank}:1:{mode}"}, expect_success=False)
        checks.expect(failed.returncode != 0 and not (stopped / "info").exists(),
                      f"to-precomputed/{mode}: rank {rank} stops the job (exit {failed.returncode}) "
                      f"and no info is published")
        if mode == "fail":
            checks.expect(re.search(rf"rank {rank} of {RANKS}: .*\.arrow: rank {rank} fails here",
                                    failed.stderr) is not None,
                          f"to-precomputed/{mode}: the error names rank {rank} and its Arrow shard: "
                          f"{failed.stderr.strip().splitlines()[:1]}")
        compare_trees(checks, stopped, reference, f"to-precomputed/{mode}: what is visible is whole",
                      partial=True, skip=())
        kept = {f: (stopped / f).stat().st_mtime_ns for f in visible_files(stopped)}
        checks.expect(len(kept) >= 1, f"to-precomputed/{mode}: {len(kept)} shards were written first")
        job.ranks(["dvid", "to-precomputed", work / "export-identity-one", stopped, "--resume"])
        compare_trees(checks, stopped, reference,
                      f"to-precomputed/{mode}: --resume by {RANKS} ranks completes it", skip=())
        rewritten = [f for f, at in kept.items() if (stopped / f).stat().st_mtime_ns != at]
        checks.expect(not rewritten, f"to-precomputed/{mode}: --resume kept the {len(kept)} shards "
                                     f"unwritten (rewrote {rewritten[:3]})")


def label_volume(job, work, name, labels):
    """A zarr array of `labels` (uint32, chunks of 16^3) made by one process; its path."""
    raw = work / f"{name}.bin"
    labels.astype(np.uint32).tofile(raw)
    source = work / f"{name}.zarr"
    shape = ",".join(str(n) for n in labels.shape)
    job.one(["zarr", "create", source, "--shape", shape, "--dtype", "uint32", "--chunk", "16,16,16"])
    job.one(["zarr", "write", source, "--input", raw, "--dtype", "uint32", "--shape", shape])
    return source


def check_two_ranks_equal_one(checks, job, command, source, reference, out, options, what):
    """`chunkwise COMMAND SOURCE DEST OPTIONS` by 2 ranks writes `reference`'s
    bytes (one process's) at `out`, prints nothing with -q, and a second run
    on `out` is refused (overwrite) by every rank, leaving it as it was."""
    two = [job.mpirun[0], *job.mpirun[1:-2], "-np", "2"]
    job.one([command, source, reference, *options])
    result = run([*two, job.chunkwise, "-q", command, source, out, *options], job.env)
    compare_trees(checks, out, reference, f"{what}: 2 ranks vs one process", skip=())
    checks.expect(result.stdout.strip() == "", f"{what}: -q prints nothing")
    refused = run([*two, job.chunkwise, "-q", command, source, out, *options], job.env,
                  expect_success=False)
    checks.expect(refused.returncode != 0 and "overwrite" in refused.stderr,
                  f"{what}: what is there is refused by every rank ({refused.stderr.strip()[:80]})")
    compare_trees(checks, out, reference, f"{what}: a refused job leaves it", skip=())


def check_mesh(checks, job, work):
    """chunkwise mesh under mpirun -np 2 vs one process: legacy, multires-sharded, vectors."""
    z, y, x = np.indices((40, 40, 40))
    # Labels of 2 x 2 x 2 voxels (some 7000 of them, so that a sharded folder has two
    # shards), gaps of background, and a ball of one label across every rank's chunks.
    labels = (z // 2) * 400 + (y // 2) * 20 + (x // 2) + 1
    labels[(x + 2 * y + 3 * z) % 13 == 0] = 0
    labels[(z - 20) ** 2 + (y - 18) ** 2 + (x - 21) ** 2 < 100] = 90001
    source = label_volume(job, work, "mesh-labels", labels)
    for fmt in ("legacy", "multires-sharded"):
        reference, out = work / f"mesh-{fmt}-one", work / f"mesh-{fmt}-ranks"
        for seg in (reference, out):
            job.one(["zarr", "to-precomputed", source, seg, "--resolution", "8,8,30"])
        check_two_ranks_equal_one(checks, job, "mesh", source, reference, out,
                                  ["--format", fmt, "--chunk", "16,16,16"], f"mesh {fmt}")
        meshes = [f for f in visible_files(reference) if f.startswith("mesh/")]
        checks.expect(len(meshes) >= 3 and "mesh" in (reference / "info").read_text(),
                      f"mesh {fmt}: one process wrote {len(meshes)} mesh files")
        if fmt == "multires-sharded":
            checks.expect("mesh/1.shard" in meshes, f"mesh {fmt}: two shards ({meshes[:4]})")
    # A zarr-vectors mesh store (#41), every level, as one process writes it.
    reference, out = work / "mesh-vectors-one.zarrvectors", work / "mesh-vectors-ranks.zarrvectors"
    check_two_ranks_equal_one(checks, job, "mesh", source, reference, out,
                              ["--format", "vectors", "--chunk", "16,16,16", "--lods", "3"],
                              "mesh vectors")
    levels = sorted(f for f in visible_files(reference) if f.endswith("zarr.json") and f.count("/") == 1)
    checks.expect(levels == ["0/zarr.json", "1/zarr.json", "2/zarr.json"],
                  f"mesh vectors: one process wrote levels {levels}")


def check_skeletons(checks, job, work):
    """chunkwise skeletonize under mpirun -np 2 vs one process: unsharded, sharded, vectors."""
    z, y, x = np.indices((32, 32, 32))
    # Labels of 2 x 2 x 1 voxels (some 5000 of them, so that a sharded folder has two
    # shards), gaps of background, and a tube of one label across both ranks' chunks.
    labels = (z // 2) * 1024 + (y // 2) * 32 + x + 1
    labels[(x + 2 * y + 3 * z) % 13 == 0] = 0
    labels[z < 12] = 0
    labels[(z - 5) ** 2 + (y - 17) ** 2 < 12] = 90001
    source = label_volume(job, work, "skeleton-labels", labels)
    for fmt in ("precomputed", "precomputed-sharded"):
        reference, out = work / f"skeletons-{fmt}-one", work / f"skeletons-{fmt}-ranks"
        for seg in (reference, out):
            job.one(["zarr", "to-precomputed", source, seg, "--resolution", "8,8,30"])
        check_two_ranks_equal_one(checks, job, "skeletonize", source, reference, out,
                                  ["--format", fmt, "--const", "20"], f"skeletonize {fmt}")
        files = [f for f in visible_files(reference) if f.startswith("skeletons/")]
        checks.expect(len(files) >= 2 and "skeletons" in (reference / "info").read_text(),
                      f"skeletonize {fmt}: one process wrote {len(files)} skeleton files")
        if fmt == "precomputed-sharded":
            checks.expect("skeletons/1.shard" in files, f"skeletonize {fmt}: two shards "
                          f"({files[:4]})")
    # A zarr-vectors skeleton store (#41), as one process writes it.
    reference = work / "skeletons-vectors-one.zarrvectors"
    out = work / "skeletons-vectors-ranks.zarrvectors"
    check_two_ranks_equal_one(checks, job, "skeletonize", source, reference, out,
                              ["--format", "vectors", "--const", "20", "--chunk-shape", "64,64,240"],
                              "skeletonize vectors")
    chunks = [f for f in visible_files(reference) if "/c/" in f]
    checks.expect(len(chunks) >= 2, f"skeletonize vectors: one process wrote {len(chunks)} chunks")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunkwise", required=True)
    parser.add_argument("--mpirun", required=True)
    parser.add_argument("--chunkwise-test-faults", required=True,
                        help="the CLI built with the test fault hook (tests/CMakeLists.txt)")
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--peer-python", default="",
                        help="the pinned .venv's python: zarr-python 3, TensorStore, fsspec, kerchunk")
    args = parser.parse_args()
    work = pathlib.Path(args.workdir)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    checks = Checks()
    job = Job(args)
    check_mesh(checks, job, work)
    check_skeletons(checks, job, work)
    db = make_labelmap(job, work)
    check_export(checks, job, work, db, spec_file(work, hashed=False), "export-identity")
    check_export(checks, job, work, db, spec_file(work, hashed=True), "export-murmur")
    check_outside_volume(checks, job, work, db)
    check_convert(checks, job, work)
    check_convert_resume(checks, job, work)
    check_convert_sparse(checks, job, work)
    check_refs(checks, job, work)
    check_refs_resume(checks, job, work)
    check_import(checks, job, work)
    check_import_resume(checks, job, work)
    check_to_precomputed(checks, job, work)
    checks.finish()


if __name__ == "__main__":
    main()
