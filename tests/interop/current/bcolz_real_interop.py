"""bcolz interop with the real bcolz 1.2.1 (built into .venv by scripts/build-bcolz).

Ours, read by bcolz: carrays of every dtype we write (integers, floats,
float16, bool, big-endian, complex, datetime, fixed bytes and unicode, n-d
rows) with every compressor (blosclz, lz4, lz4hc, zlib, zstd)
and shuffle (0, 1, 2), chunk lengths with and without a leftover, and
carrays we appended to; ctables from structured .npy and from CSV.
`bcolz.open` must give the same rows, dtype, cparams and chunklen. bcolz
then appends to one of our carrays and ctables, and we read the result.

Theirs, read by us: carrays and ctables bcolz writes (the same dtypes but
complex, which bcolz 1.2.1 cannot persist: its meta/storage writer passes the
complex default value to json.dumps; the same cparams; default and explicit
chunklen; appended in several steps; with attrs), read by `chunkwise bcolz
read` (whole, a slice, ctable columns and a where filter).

tests/interop/python/bcolz_interop.py keeps the spec-written reader and the
damage and kill tests.

usage: .venv/bin/python bcolz_real_interop.py --chunkwise build/chunkwise --workdir DIR
"""
import argparse
import json
import pathlib
import shutil
import sys
import warnings

import numpy as np

warnings.simplefilter("ignore")  # bcolz 1.2.1's vendored arrayprint imports numpy.core.
import bcolz  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "python"))
from interop_check import Checks, run  # noqa: E402

SETTINGS = [("lz4", 5, 1), ("zstd", 3, 2), ("blosclz", 9, 0), ("zlib", 1, 1), ("lz4hc", 4, 2)]


def sample_arrays():
    """name: (array, chunklen or None for bcolz's default)."""
    rng = np.random.default_rng(21)
    return {
        "int8": (rng.integers(-128, 128, 7001).astype("i1"), 1000),
        "int16": (rng.integers(-3000, 3000, 5003).astype("<i2"), None),
        "int32-ramp": (np.arange(100_003, dtype="<i4") * 3 - 5000, None),
        "int64": (rng.integers(-2**60, 2**60, 9000).astype("<i8"), 2048),
        "uint8-short": (np.arange(7, dtype="u1"), None),
        "uint16": (rng.integers(0, 2**16, 4500).astype("<u2"), 1024),
        "uint32": (rng.integers(0, 2**32, 4500).astype("<u4"), 1000),
        "uint64": (rng.integers(0, 2**63, 3000).astype("<u8"), 700),
        "float16": (rng.normal(size=2000).astype("<f2"), None),
        "float32": (rng.normal(size=6000).astype("<f4"), 1500),
        "float64-nd": (rng.normal(size=(5000, 3, 2)), 700),
        "bool": (rng.integers(0, 2, 3001).astype(bool), 1000),
        "big-endian-i4": (np.arange(20_000, dtype=">i4"), 4096),
        "complex128": (rng.normal(size=1500) + 1j * rng.normal(size=1500), 512),
        "datetime-ns": (np.arange(3000, dtype="<i8").view("<M8[ns]"), 1024),
        "bytes-S5": (np.array([b"ab%d" % (i % 97) for i in range(4000)], dtype="S5"), 1500),
        "unicode-U3": (np.array(["x%d" % (i % 50) for i in range(2500)], dtype="<U3"), 1000),
    }


def cli(binary, *args, ok=True):
    return run([binary, "--quiet", *args], expect_success=ok)


def same(actual, expected):
    actual = np.asarray(actual)
    return actual.dtype == expected.dtype and actual.shape == expected.shape and \
        actual.tobytes() == expected.tobytes()


def read_ours(binary, root, *args):
    out = root.parent / f"{root.name}.read.npy"
    cli(binary, "bcolz", "read", root, *args, "--output", out, "--overwrite")
    return np.load(out)


def records(n, offset=0):
    table = np.zeros(n, dtype=[("id", "<i8"), ("x", "<f8"), ("tag", "S4"), ("v", "<u2", (2,)), ("ok", "?")])
    table["id"] = np.arange(offset, offset + n)
    table["x"] = table["id"] / 7.0
    table["tag"] = [b"t%d" % (i % 3) for i in range(offset, offset + n)]
    table["v"][:, 0] = table["id"] % 1000
    table["v"][:, 1] = table["id"] % 7
    table["ok"] = table["id"] % 5 == 0
    return table


# ---- ours, read by bcolz ------------------------------------------------------------------------

def check_bcolz_reads_ours(checks, binary, work):
    for k, (name, (array, chunklen)) in enumerate(sample_arrays().items()):
        cname, clevel, shuffle = SETTINGS[k % len(SETTINGS)]
        source, root = work / f"{name}.npy", work / "ours" / name
        np.save(source, array)
        args = ["bcolz", "create", root, "--input", source, "--cname", cname, "--clevel", clevel,
                "--shuffle", shuffle, "--overwrite"]
        cli(binary, *args, *(["--chunklen", chunklen] if chunklen else []))
        try:
            theirs = bcolz.open(str(root), mode="r")
            params = theirs.cparams
            checks.expect(same(theirs[:], array) and len(theirs) == len(array),
                          f"bcolz reads our {name} carray ({cname}:{clevel} shuffle {shuffle}, chunklen "
                          f"{theirs.chunklen}, {theirs.nchunks} chunks + {len(array) % theirs.chunklen} rows)")
            checks.expect((params.cname, params.clevel, params.shuffle) == (cname, clevel, shuffle)
                          and (chunklen is None or theirs.chunklen == chunklen),
                          f"bcolz sees our {name} cparams and chunklen")
            if len(array) > 10:
                checks.expect(same(theirs[3:len(array) - 4:3], array[3:len(array) - 4:3]),
                              f"bcolz reads a strided slice of our {name}")
        except Exception as error:  # noqa: BLE001 - any failure is a failed check
            checks.expect(False, f"bcolz reads our {name}: {error!r}"[:300])


def check_appended(checks, binary, work):
    """We append to our carray; bcolz reads it, appends itself; we read that."""
    first = np.arange(10_000, dtype="<f8") * 0.25
    more = np.arange(3_333, dtype="<f8") * -1.0
    np.save(work / "first.npy", first)
    np.save(work / "more.npy", more)
    root = work / "ours" / "appended"
    cli(binary, "bcolz", "create", root, "--input", work / "first.npy", "--chunklen", "1000", "--overwrite")
    cli(binary, "bcolz", "append", root, "--input", work / "more.npy")
    both = np.concatenate([first, more])
    checks.expect(same(bcolz.open(str(root), mode="r")[:], both), "bcolz reads our carray after our append")
    theirs = bcolz.open(str(root), mode="a")
    tail = np.linspace(0, 1, 2_501)
    theirs.append(tail)
    theirs.flush()
    checks.expect(same(read_ours(binary, root), np.concatenate([both, tail])),
                  "we read our carray after bcolz appended to it")


def check_ctables(checks, binary, work):
    table = records(7000)
    np.save(work / "records.npy", table)
    root = work / "ours" / "ctable"
    cli(binary, "bcolz", "create", root, "--input", work / "records.npy", "--chunklen", "1000", "--overwrite")
    theirs = bcolz.open(str(root), mode="r")
    checks.expect(isinstance(theirs, bcolz.ctable) and list(theirs.names) == list(table.dtype.names),
                  f"bcolz opens our ctable with its columns in order ({list(theirs.names)})")
    checks.expect(same(theirs[:], table), "bcolz reads every row of our ctable (structured .npy)")
    checks.expect(all(same(theirs.cols[n][:], np.ascontiguousarray(table[n])) for n in table.dtype.names),
                  "bcolz reads each column of our ctable")
    where = list(theirs.where("(id > 100) & (x < 300)", outcols=["id"]))
    want = table["id"][(table["id"] > 100) & (table["x"] < 300)]
    checks.expect([r.id for r in where] == want.tolist(), f"bcolz's where over our ctable ({len(where)} rows)")

    csv = work / "table.csv"
    csv.write_text("name,count,score,flag\n" + "".join(f"n{i % 13},{i},{i / 4},{'true' if i % 2 else 'false'}\n"
                                                      for i in range(2500)))
    root = work / "ours" / "ctable_csv"
    cli(binary, "bcolz", "create", root, "--input", csv, "--overwrite")
    theirs = bcolz.open(str(root), mode="r")
    rows = theirs[:]
    checks.expect(list(theirs.names) == ["name", "count", "score", "flag"] and
                  rows["name"].tolist() == [b"n%d" % (i % 13) for i in range(2500)] and
                  rows["count"].tolist() == list(range(2500)) and
                  rows["score"].tolist() == [i / 4 for i in range(2500)] and
                  rows["flag"].tolist() == [bool(i % 2) for i in range(2500)],
                  f"bcolz reads our ctable made from CSV ({rows.dtype})")

    theirs = bcolz.open(str(work / "ours" / "ctable"), mode="a")
    extra = records(1234, offset=7000)
    theirs.append(extra)
    theirs.flush()
    checks.expect(same(read_ours(binary, work / "ours" / "ctable"), np.concatenate([table, extra])),
                  "we read our ctable after bcolz appended to it")


# ---- theirs, read by us -------------------------------------------------------------------------

def check_we_read_bcolz(checks, binary, work):
    for k, (name, (array, chunklen)) in enumerate(sample_arrays().items()):
        if array.dtype.kind == "c":
            continue  # bcolz 1.2.1 cannot persist complex carrays: json.dumps of the complex dflt fails.
        cname, clevel, shuffle = SETTINGS[(k + 2) % len(SETTINGS)]
        root = work / "theirs" / name
        kwargs = {"chunklen": chunklen} if chunklen else {}
        made = bcolz.carray(array, rootdir=str(root), mode="w",
                            cparams=bcolz.cparams(clevel=clevel, shuffle=shuffle, cname=cname), **kwargs)
        made.attrs["origin"] = "bcolz 1.2.1"
        made.flush()
        try:
            checks.expect(same(read_ours(binary, root), array),
                          f"we read bcolz's {name} carray ({cname}:{clevel} shuffle {shuffle}, chunklen "
                          f"{made.chunklen})")
            if len(array) > 20:
                checks.expect(same(read_ours(binary, root, "--slice", "5:-7"), array[5:-7]),
                              f"we read a slice of bcolz's {name}")
        except Exception as error:  # noqa: BLE001
            checks.expect(False, f"we read bcolz's {name}: {error}"[:300])

    root = work / "theirs" / "appended"
    parts = [np.arange(i * 1000, i * 1000 + 777 + 100 * i, dtype="<i4") for i in range(5)]
    made = bcolz.carray(parts[0], rootdir=str(root), mode="w", chunklen=512)
    for part in parts[1:]:
        made.append(part)
    made.flush()
    checks.expect(same(read_ours(binary, root), np.concatenate(parts)),
                  "we read a carray bcolz appended to in five steps")

    table = records(5000)
    root = work / "theirs" / "ctable"
    made = bcolz.ctable(table, rootdir=str(root), mode="w", chunklen=800)
    made.append(records(321, offset=5000))
    made.attrs["note"] = "written by bcolz"
    made.flush()
    want = np.concatenate([table, records(321, offset=5000)])
    checks.expect(same(read_ours(binary, root), want), "we read bcolz's ctable (5 columns, appended)")
    got = read_ours(binary, root, "--columns", "tag,id", "--where", "(id >= 4000) & (tag == 't1')")
    mask = (want["id"] >= 4000) & (want["tag"] == b"t1")
    checks.expect(got.dtype.names == ("tag", "id") and np.array_equal(got["id"], want["id"][mask]) and
                  np.array_equal(got["tag"], want["tag"][mask]),
                  f"we filter bcolz's ctable by columns and a where ({int(mask.sum())} rows)")
    checks.expect(json.loads((root / "__attrs__").read_text()) == {"note": "written by bcolz"},
                  "bcolz's attrs are where the layout says")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunkwise", required=True, type=pathlib.Path)
    parser.add_argument("--workdir", required=True, type=pathlib.Path)
    args = parser.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    (args.workdir / "ours").mkdir(parents=True)
    (args.workdir / "theirs").mkdir()
    print(f"     bcolz {bcolz.__version__} (c-blosc {bcolz.blosc_version()[0]}), numpy {np.__version__}")
    checks = Checks()
    check_bcolz_reads_ours(checks, args.chunkwise, args.workdir)
    check_appended(checks, args.chunkwise, args.workdir)
    check_ctables(checks, args.chunkwise, args.workdir)
    check_we_read_bcolz(checks, args.chunkwise, args.workdir)
    checks.finish()


if __name__ == "__main__":
    main()
