"""bcolz interop: the carray/ctable directories chunkwise writes are read by an
independent reader written here from the spec (numpy + python3-blosc; bcolz
itself is not packaged for Debian), field by field; directories this script
writes to bcolz's layout are read by chunkwise; a SIGKILLed append leaves every
flushed row intact; damaged directories give errors naming the file.

Spec: docs/formats/bcolz.md (bcolz 1.x layout, Blosc1 chunks).

usage: /usr/bin/python3 bcolz_interop.py --chunkwise build/chunkwise --workdir DIR
"""
import argparse
import json
import math
import os
import pathlib
import shutil
import signal
import struct
import subprocess
import time

import blosc
import numpy as np

from interop_check import Checks, run

CODEC_FORMAT = {"blosclz": 0, "lz4": 1, "lz4hc": 1, "snappy": 2, "zlib": 3, "zstd": 4}
BLP_HEADER = b"blpk" + bytes([1, 0, 0, 0]) + struct.pack("<q", 1)


def bcolz_chunklen(expectedlen, atomsize):
    """bcolz 1.2 utils.calc_chunksize, restated from the spec."""
    size_mb = min(max(expectedlen * atomsize / float(1 << 20), 1e-4), 1e4)
    zone = int(math.log10(size_mb))
    chunksize = 4096 * int(2 ** (math.log10(10 ** zone) + 6))
    return max(chunksize // atomsize, 1)


def blosc_typesize(dtype):
    if dtype.kind == "S":
        return 1
    if dtype.kind == "U":
        return 4
    return dtype.itemsize if 0 < dtype.itemsize <= 255 else 1


def parse_dtype(text):
    return np.dtype(eval(text)) if text.startswith("[") else np.dtype(text)  # noqa: S307 (test data)


# ---------------------------------------------------------------- independent reader

def read_carray(checks, root, what, strict=True):
    """Reads a carray directory per the spec, checking every field; returns the array."""
    meta = json.loads((root / "meta" / "storage").read_text())
    sizes = json.loads((root / "meta" / "sizes").read_text())
    if strict:
        checks.expect((root / "meta" / "storage").read_text().endswith("}\n"), f"{what}: storage ends in a newline")
        checks.expect(set(meta) == {"dtype", "cparams", "chunklen", "expectedlen", "dflt"}, f"{what}: storage fields {sorted(meta)}")
        checks.expect(set(meta["cparams"]) == {"clevel", "shuffle", "cname", "quantize"}, f"{what}: cparams fields")
        checks.expect(isinstance(meta["cparams"]["shuffle"], int) and not isinstance(meta["cparams"]["shuffle"], bool),
                      f"{what}: shuffle written as an integer")
        checks.expect(meta["cparams"]["quantize"] == 0, f"{what}: quantize 0")
        checks.expect(set(sizes) == {"shape", "nbytes", "cbytes"}, f"{what}: sizes fields")
        checks.expect((root / "__attrs__").is_file(), f"{what}: __attrs__ exists")
        checks.expect((root / "data").is_dir(), f"{what}: data/ is a directory")
    dtype = parse_dtype(meta["dtype"])
    shape = tuple(sizes["shape"])
    atom = dtype.itemsize * int(np.prod(shape[1:], dtype=np.int64))
    checks.expect(sizes["nbytes"] == atom * shape[0], f"{what}: nbytes = prod(shape) * itemsize")
    chunklen = meta["chunklen"]
    cname = meta["cparams"].get("cname", "blosclz")
    data = bytearray()
    nfull, leftover = divmod(shape[0], chunklen)
    for i in range(nfull + (1 if leftover else 0)):
        blp = (root / "data" / f"__{i}.blp").read_bytes()
        rows = chunklen if i < nfull else leftover
        ok_header = blp[:16] == BLP_HEADER
        version, versionlz, flags, typesize, nbytes, blocksize, cbytes = struct.unpack("<BBBBiii", blp[16:32])
        decoded = blosc.decompress(blp[16:])
        if strict:
            checks.expect(ok_header and cbytes == len(blp) - 16 and nbytes == rows * atom and
                          typesize == blosc_typesize(dtype) and version == 2 and
                          (flags & 2 or flags >> 5 == CODEC_FORMAT[cname]) and len(decoded) == nbytes,
                          f"{what}: data/__{i}.blp header and Blosc chunk")
        data += decoded[: rows * atom]
    if strict:
        stale = sorted(p.name for p in (root / "data").iterdir()
                       if p.name.startswith("__") and int(p.name[2:-4]) >= nfull + (1 if leftover else 0))
        checks.expect(not stale, f"{what}: no stale chunk files ({stale})")
    return np.frombuffer(bytes(data), dtype=dtype).reshape(shape), meta, sizes


def read_ctable(checks, root, what, strict=True):
    names = json.loads((root / "__rootdirs__").read_text())["names"]
    columns = {name: read_carray(checks, root / name, f"{what}/{name}", strict)[0] for name in names}
    return names, columns


# ---------------------------------------------------------------- reference writer

def write_carray(root, array, chunklen, cname="lz4", clevel=5, shuffle=1, old_style=False):
    """Writes `array` as bcolz 1.x does (its leftover flushed); old_style drops cname and writes shuffle as a bool."""
    shutil.rmtree(root, ignore_errors=True)
    (root / "data").mkdir(parents=True)
    (root / "meta").mkdir()
    dtype = array.dtype
    cparams = {"clevel": clevel, "shuffle": bool(shuffle) if old_style else shuffle}
    if not old_style:
        cparams.update(cname=cname, quantize=0)
    dflt = np.zeros((), dtype=dtype).tolist()
    if isinstance(dflt, bytes):
        dflt = dflt.decode("ascii")
    storage = {"dtype": str(dtype), "cparams": cparams, "chunklen": chunklen, "expectedlen": len(array), "dflt": dflt}
    (root / "meta" / "storage").write_text(json.dumps(storage) + "\n")
    raw = np.ascontiguousarray(array).tobytes()
    atom = len(raw) // max(len(array), 1)
    for i in range(0, len(array), chunklen):
        part = raw[i * atom:(i + chunklen) * atom]
        chunk = blosc.compress(part, typesize=blosc_typesize(dtype), clevel=clevel, shuffle=shuffle,
                               cname="blosclz" if old_style else cname)
        (root / "data" / f"__{i // chunklen}.blp").write_bytes(BLP_HEADER + chunk)
    sizes = {"shape": list(array.shape), "nbytes": len(raw), "cbytes": 0}
    (root / "meta" / "sizes").write_text(json.dumps(sizes) + "\n")
    (root / "__attrs__").write_text(json.dumps({"temp": 22.5, "pressure": 999.2}) + "\n")


def write_ctable(root, records, chunklen, **kwargs):
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    for name in records.dtype.names:
        write_carray(root / name, np.ascontiguousarray(records[name]), chunklen, **kwargs)
    (root / "__rootdirs__").write_text(json.dumps({"names": list(records.dtype.names)}) + "\n")
    (root / "__attrs__").write_text("{}\n")


# ---------------------------------------------------------------- checks

def sample_arrays():
    rng = np.random.default_rng(11)
    return {
        "int32-ramp": (np.arange(100_003, dtype="<i4") * 3 - 5000, None),
        "float64-nd": (rng.normal(size=(5000, 3, 2)), 700),
        "bool": (rng.integers(0, 2, 3001).astype(bool), 1000),
        "uint8-short": (np.arange(7, dtype="u1"), None),
        "big-endian-i4": (np.arange(20_000, dtype=">i4"), 4096),
        "bytes-S5": (np.array([b"ab%d" % (i % 97) for i in range(4000)], dtype="S5"), 1500),
        "unicode-U3": (np.array(["x%d" % (i % 50) for i in range(2500)], dtype="<U3"), 1000),
        "datetime-ns": (np.arange(3000, dtype="<i8").view("<M8[ns]"), 1024),
        "complex128": (rng.normal(size=1500) + 1j * rng.normal(size=1500), 512),
        "float16": (rng.normal(size=2000).astype("<f2"), None),
        "void-V300": (np.frombuffer(rng.integers(0, 4, 300 * 40, dtype="u1").tobytes(), dtype="V300"), 16),
        "record-nd": (np.zeros((600, 2), dtype=[("a", "<i4"), ("b", "<f8", (2,))]), 256),
    }


def check_we_write(checks, cli, work):
    settings = [("lz4", 5, 1), ("zstd", 3, 2), ("blosclz", 9, 0), ("zlib", 1, 1), ("lz4hc", 4, 1)]
    for k, (name, (array, chunklen)) in enumerate(sample_arrays().items()):
        cname, clevel, shuffle = settings[k % len(settings)]
        source, root = work / f"{name}.npy", work / "ours" / name
        np.save(source, array)
        args = [cli, "--quiet", "bcolz", "create", root, "--input", source, "--cname", cname,
                "--clevel", clevel, "--shuffle", shuffle, "--overwrite"]
        run(args + (["--chunklen", chunklen] if chunklen else []))
        got, meta, sizes = read_carray(checks, root, f"ours {name}")
        checks.expect(got.dtype == array.dtype and got.shape == array.shape and got.tobytes() == array.tobytes(),
                      f"ours {name}: rows decode to the input")
        atom = array.dtype.itemsize * int(np.prod(array.shape[1:]))
        checks.expect(meta["chunklen"] == (chunklen or bcolz_chunklen(len(array), atom)),
                      f"ours {name}: chunklen {meta['chunklen']} is bcolz's")
        checks.expect(meta["cparams"] == {"clevel": clevel, "shuffle": shuffle, "cname": cname, "quantize": 0},
                      f"ours {name}: cparams")
        checks.expect(meta["expectedlen"] == len(array) and sizes["shape"] == list(array.shape),
                      f"ours {name}: expectedlen and shape")
        checks.expect(np.zeros((), array.dtype.base).tolist() in (meta["dflt"], b"") or meta["dflt"] in ("", 0, [0, 0.0]),
                      f"ours {name}: dflt {meta['dflt']!r} is the dtype's zero")
        checks.expect((root / "__attrs__").read_text() == "{}\n", f"ours {name}: __attrs__ is {{}}")


def check_ctable_and_csv(checks, cli, work):
    records = np.zeros(7000, dtype=[("id", "<i8"), ("x", "<f8"), ("tag", "S4"), ("v", "<u2", (2,))])
    records["id"] = np.arange(7000)
    records["x"] = records["id"] / 7.0
    records["tag"] = [b"t%d" % (i % 3) for i in range(7000)]
    records["v"][:, 0] = records["id"] % 1000
    source, root = work / "records.npy", work / "ours" / "ctable"
    np.save(source, records)
    run([cli, "--quiet", "bcolz", "create", root, "--input", source, "--chunklen", 1000, "--overwrite"])
    names, columns = read_ctable(checks, root, "ours ctable")
    checks.expect(names == ["id", "x", "tag", "v"], "ours ctable: __rootdirs__ column order")
    checks.expect(all(columns[n].tobytes() == np.ascontiguousarray(records[n]).tobytes() for n in names),
                  "ours ctable: every column decodes")
    out = work / "where.npy"
    run([cli, "--quiet", "bcolz", "read", root, "--where", "(id >= 100) & (x < 500) & ~(tag == 't1') | id == 6999",
         "--columns", "id,v", "--output", out, "--overwrite"])
    mask = ((records["id"] >= 100) & (records["x"] < 500) & ~(records["tag"] == b"t1")) | (records["id"] == 6999)
    got = np.load(out)
    checks.expect(got.dtype.names == ("id", "v") and np.array_equal(got["id"], records["id"][mask]) and
                  np.array_equal(got["v"], records["v"][mask]), f"where filter matches numpy ({mask.sum()} rows)")
    csv_in = work / "table.csv"
    csv_in.write_text("name,count,score,ok\n" + "".join(f"\"n,{i}\",{i},{i / 3},{'True' if i % 2 else 'False'}\n"
                                                         for i in range(300)))
    csv_root = work / "ours" / "csv"
    run([cli, "--quiet", "bcolz", "create", csv_root, "--input", csv_in, "--overwrite"])
    run([cli, "--quiet", "bcolz", "append", csv_root, "--input", csv_in])
    names, columns = read_ctable(checks, csv_root, "ours csv")
    checks.expect(names == ["name", "count", "score", "ok"] and columns["count"].dtype == np.dtype("<i8") and
                  list(columns["count"]) == list(range(300)) * 2 and columns["name"][1] == b"n,1" and
                  np.allclose(columns["score"][:300], np.arange(300) / 3) and columns["ok"].dtype == np.bool_,
                  "CSV becomes a ctable with inferred column dtypes; append adds its rows")
    csv_out = work / "back.csv"
    run([cli, "--quiet", "bcolz", "read", csv_root, "--slice", "298:302", "--output", csv_out, "--overwrite"])
    checks.expect(csv_out.read_text() == "name,count,score,ok\n\"n,298\",298,99.333333333333329,False\n"
                  "\"n,299\",299,99.666666666666671,True\n\"n,0\",0,0,False\n\"n,1\",1,0.33333333333333331,True\n",
                  "read --slice writes CSV that reads back exactly")


def check_we_read(checks, cli, work):
    rng = np.random.default_rng(5)
    cases = {
        "int32-leftover": (np.arange(10_007, dtype="<i4"), 4096, {}),
        "float64-nd-zstd": (rng.normal(size=(999, 4)), 100, {"cname": "zstd", "shuffle": 2}),
        "old-style-bool-shuffle": (np.arange(5000, dtype="<f4"), 2048, {"old_style": True}),
        "bytes-S3": (np.array([b"q%d" % (i % 10) for i in range(777)], dtype="S3"), 256, {}),
        "unicode-U4": (np.array(["\u00e9%d" % (i % 10) for i in range(300)], dtype="<U4"), 64, {}),
        "big-endian-f8": (rng.normal(size=3000).astype(">f8"), 1000, {"clevel": 0}),
        "uint64-one-chunk": (np.arange(50, dtype="<u8"), 64, {}),
        "empty": (np.zeros(0, dtype="<i2"), 16, {}),
    }
    for name, (array, chunklen, kwargs) in cases.items():
        root = work / "theirs" / name
        write_carray(root, array, chunklen, **kwargs)
        out = work / f"theirs-{name}.npy"
        run([cli, "--quiet", "bcolz", "read", root, "--output", out, "--overwrite"])
        got = np.load(out)
        checks.expect(got.dtype == array.dtype and got.shape == array.shape and got.tobytes() == array.tobytes(),
                      f"we read their carray {name}")
        if len(array) > 10:
            run([cli, "--quiet", "bcolz", "read", root, "--slice", "3:-2", "--output", out, "--overwrite"])
            checks.expect(np.load(out).tobytes() == array[3:-2].tobytes(), f"we read a slice of their {name}")
    info = run([cli, "bcolz", "info", work / "theirs" / "int32-leftover"]).stdout
    checks.expect("shape (10007)" in info and "chunklen 4096" in info and "pressure" in info,
                  "info shows shape, chunklen and attrs")
    records = np.zeros(3000, dtype=[("a", "<i4"), ("b", "<f8"), ("c", "S2")])
    records["a"] = np.arange(3000)
    records["b"] = np.sqrt(np.arange(3000))
    records["c"] = b"zz"
    write_ctable(work / "theirs" / "ctable", records, 700)
    out = work / "theirs-ctable.npy"
    run([cli, "--quiet", "bcolz", "read", work / "theirs" / "ctable", "--where", "(b > 10) & (a <= 2000)",
         "--output", out, "--overwrite"])
    mask = (records["b"] > 10) & (records["a"] <= 2000)
    checks.expect(np.load(out).tobytes() == records[mask].tobytes(), "we filter their ctable")
    # Appending to their directory keeps their layout readable by the reference reader.
    extra = work / "extra.npy"
    np.save(extra, np.arange(5000, dtype="<i4"))
    run([cli, "--quiet", "bcolz", "append", work / "theirs" / "int32-leftover", "--input", extra])
    got, _, _ = read_carray(checks, work / "theirs" / "int32-leftover", "appended to theirs", strict=False)
    checks.expect(got.tobytes() == np.concatenate([np.arange(10_007, dtype="<i4"), np.arange(5000, dtype="<i4")]).tobytes(),
                  "append to their carray: the reference reader sees old and new rows")


def check_crash(checks, cli, work):
    """SIGKILLs an append of a big input; the flushed rows must survive, and every chunk the
    sizes file counts must decode."""
    root, first, big = work / "crash", work / "crash-first.npy", work / "crash-big.npy"
    initial = np.arange(1000, dtype="<i8") * 7
    np.save(first, initial)
    rng = np.random.default_rng(3)
    appended = rng.integers(0, 1 << 40, size=24_000_000, dtype="<i8")
    np.save(big, appended)
    run([cli, "--quiet", "bcolz", "create", root, "--input", first, "--chunklen", 65536, "--cname", "zstd",
         "--clevel", 9, "--overwrite"])
    process = subprocess.Popen([str(cli), "--quiet", "bcolz", "append", str(root), "--input", str(big)])
    sizes_file, killed = root / "meta" / "sizes", False
    deadline = time.time() + 120
    while time.time() < deadline and process.poll() is None:
        try:
            shape = json.loads(sizes_file.read_text())["shape"][0]
        except (ValueError, OSError):
            shape = 0
        if shape > 3 * 65536:  # Several chunks are on disk; more are being written.
            os.kill(process.pid, signal.SIGKILL)
            killed = True
            break
        time.sleep(0.002)
    process.wait()
    checks.expect(killed, "the append was killed while writing")
    got, _, sizes = read_carray(checks, root, "after SIGKILL", strict=False)
    expected = np.concatenate([initial, appended])
    checks.expect(1000 <= len(got) < len(expected) and got.tobytes() == expected[: len(got)].tobytes(),
                  f"after SIGKILL the reference reader sees {len(got)} intact rows")
    out = work / "crash-read.npy"
    run([cli, "--quiet", "bcolz", "read", root, "--output", out, "--overwrite"])
    checks.expect(np.load(out).tobytes() == expected[: len(got)].tobytes(), "after SIGKILL chunkwise opens and reads it")
    run([cli, "--quiet", "bcolz", "append", root, "--input", first])
    got, _, _ = read_carray(checks, root, "append after crash", strict=False)
    checks.expect(got.tobytes() == np.concatenate([expected[: len(got) - 1000], initial]).tobytes(),
                  "appending after the crash continues from the surviving rows")


def check_ctable_crash(checks, cli, work):
    """The same for a ctable: after a SIGKILL every column holds at least the common rows,
    and chunkwise reads the rows all columns hold, intact."""
    root, first, big = work / "crash-table", work / "crash-table-first.npy", work / "crash-table-big.npy"
    rows = np.zeros(6_000_000, dtype=[("a", "<i8"), ("b", "<f8")])
    rows["a"] = np.random.default_rng(9).integers(0, 1 << 40, len(rows))
    rows["b"] = rows["a"] * 0.5
    np.save(first, rows[:1000])
    np.save(big, rows[1000:])
    run([cli, "--quiet", "bcolz", "create", root, "--input", first, "--chunklen", 32768, "--cname", "zstd",
         "--clevel", 9, "--overwrite"])
    process = subprocess.Popen([str(cli), "--quiet", "bcolz", "append", str(root), "--input", str(big)])
    killed, deadline = False, time.time() + 120
    while time.time() < deadline and process.poll() is None:
        try:
            shape = json.loads((root / "b" / "meta" / "sizes").read_text())["shape"][0]
        except (ValueError, OSError):
            shape = 0
        if shape > 2 * 32768:
            os.kill(process.pid, signal.SIGKILL)
            killed = True
            break
        time.sleep(0.002)
    process.wait()
    checks.expect(killed, "the ctable append was killed while writing")
    out = work / "crash-table.npy"
    run([cli, "--quiet", "bcolz", "read", root, "--output", out, "--overwrite"])
    got = np.load(out)
    checks.expect(1000 <= len(got) < len(rows) and got.tobytes() == rows[: len(got)].tobytes(),
                  f"after SIGKILL chunkwise reads {len(got)} intact ctable rows")
    names, columns = read_ctable(checks, root, "ctable after SIGKILL", strict=False)
    checks.expect(all(len(columns[n]) >= len(got) and np.array_equal(columns[n][: len(got)], rows[n][: len(got)])
                      for n in names), "after SIGKILL the reference reader sees every column's rows intact")


def expect_error(checks, cli, args, fragment, what):
    result = run([cli] + args, expect_success=False)
    checks.expect(result.returncode == 1 and fragment in result.stderr and "chunkwise: error:" in result.stderr,
                  f"{what}: exit 1 naming {fragment!r} ({result.stderr.strip()[:160]})")


def check_bad_input(checks, cli, work):
    base = work / "bad-base"
    write_carray(base, np.arange(10_000, dtype="<i4"), 4096)
    out = work / "bad.npy"

    def damaged(name, damage):
        root = work / f"bad-{name}"
        shutil.rmtree(root, ignore_errors=True)
        shutil.copytree(base, root)
        damage(root)
        return root

    root = damaged("no-sizes", lambda r: (r / "meta" / "sizes").unlink())
    expect_error(checks, cli, ["bcolz", "read", root, "--output", out, "--overwrite"], str(root / "meta" / "sizes"), "missing meta/sizes")
    root = damaged("truncated", lambda r: (r / "data" / "__1.blp").write_bytes((r / "data" / "__1.blp").read_bytes()[:-5]))
    expect_error(checks, cli, ["bcolz", "read", root, "--output", out, "--overwrite"], str(root / "data" / "__1.blp"), "truncated .blp")
    root = damaged("dtype", lambda r: (r / "meta" / "storage").write_text(
        (r / "meta" / "storage").read_text().replace('"int32"', '"object"')))
    expect_error(checks, cli, ["bcolz", "info", root], str(root / "meta" / "storage"), "unmappable dtype")
    root = damaged("sizes", lambda r: (r / "meta" / "sizes").write_text('{"shape": [20000], "nbytes": 80000, "cbytes": 0}\n'))
    expect_error(checks, cli, ["bcolz", "read", root, "--output", out, "--overwrite"], str(root / "data" / "__4.blp"), "sizes name a missing chunk file")
    root = damaged("sizes-short", lambda r: (r / "meta" / "sizes").write_text('{"shape": [12000], "nbytes": 48000, "cbytes": 0}\n'))
    expect_error(checks, cli, ["bcolz", "read", root, "--output", out, "--overwrite"], str(root / "data" / "__2.blp") + ": chunk holds 7232 bytes",
                 "sizes disagree with a chunk file")
    root = damaged("blosc2", lambda r: (r / "data" / "__0.blp").write_bytes(
        (lambda b: b[:18] + bytes([b[18] | 5]) + b[19:])((r / "data" / "__0.blp").read_bytes())))
    expect_error(checks, cli, ["bcolz", "read", root, "--output", out, "--overwrite"], "__0.blp", "Blosc2 chunk")
    expect_error(checks, cli, ["bcolz", "create", base, "--input", out], str(base), "existing root without --overwrite")
    other = work / "not-bcolz"
    other.mkdir(exist_ok=True)
    (other / "precious.txt").write_text("keep me")
    np.save(out, np.arange(10))
    expect_error(checks, cli, ["bcolz", "create", other, "--input", out, "--overwrite"], "not a bcolz", "--overwrite of a foreign directory")
    checks.expect((other / "precious.txt").read_text() == "keep me", "a foreign directory is left alone")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunkwise", required=True, type=pathlib.Path)
    parser.add_argument("--workdir", required=True, type=pathlib.Path)
    args = parser.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    args.workdir.mkdir(parents=True)
    checks = Checks()
    check_we_write(checks, args.chunkwise, args.workdir)
    check_ctable_and_csv(checks, args.chunkwise, args.workdir)
    check_we_read(checks, args.chunkwise, args.workdir)
    check_bad_input(checks, args.chunkwise, args.workdir)
    check_crash(checks, args.chunkwise, args.workdir)
    check_ctable_crash(checks, args.chunkwise, args.workdir)
    shutil.rmtree(args.workdir, ignore_errors=True)
    checks.finish()


if __name__ == "__main__":
    main()
