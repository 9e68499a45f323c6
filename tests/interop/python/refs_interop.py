"""Reference-set interop: fsspec's ReferenceFileSystem and zarr-python read the
sets chunkwise writes, and chunkwise reads the sets python writes.

- For zarr v3 arrays (sharded and not, several dtypes and codecs), a zarr v2
  array and a bcolz carray, `chunkwise refs build` writes JSON v0 and JSON v1;
  fsspec 2022.11 + zarr 2.13 open each (`fsspec.filesystem("reference", ...)`,
  `zarr.open(fs.get_mapper(""))`) and must read the whole array equal to the
  source, every chunk included. Sharded arrays are read by zarr-python, which
  knows nothing of sharding: the references point inside the shards.
- Sets written by python (plain json, kerchunk-style: v0 with inline strings,
  base64 and JSON objects; v1 with templates and gen) are read by
  `chunkwise refs cat` and must give the bytes python means.
- `refs combine` concatenates two sets; zarr-python reads the concatenation.
- Security: a set pointing outside its directory is refused unless
  --allow-root; codecs with no v2 form are refused with a clear message.

usage: /usr/bin/python3 refs_interop.py --chunkwise build/chunkwise --workdir DIR
"""
import argparse
import base64
import json
import pathlib
import shutil
from collections.abc import MutableMapping

import fsspec
import numpy as np
import zarr

from interop_check import Checks, run


def cli(binary, *args, ok=True):
    return run([binary, *args], expect_success=ok)


def sample(dtype, shape, seed):
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 200, size=shape)
    data = values.astype(dtype)
    data[: shape[0] // 4] = 0  # Leaves chunks (and inner chunks) empty.
    return data


def write_zarr(binary, work, name, data, *create_args):
    path = work / name
    source = work / f"{name}.input.npy"
    np.save(source, data)
    shape = ",".join(map(str, data.shape))
    cli(binary, "-q", "zarr", "create", path, "--shape", shape, "--dtype", str(data.dtype), *create_args)
    cli(binary, "-q", "zarr", "write", path, "--input", source)
    return path


class NoGetitems(MutableMapping):
    """A mapper without getitems, so that zarr reads one key at a time.

    fsspec 2022.11's ReferenceFileSystem.cat raises KeyError for a key the set
    does not hold when zarr asks for several keys at once (zarr 2.13 always
    does, through FSMap.getitems), instead of leaving it out; zarr then fails
    rather than using fill_value. One key at a time, the KeyError means
    "missing", as it should. Absent keys are how reference sets say "fill
    value" (kerchunk's sets have them too), so sets with absent keys are read
    through this wrapper; sets without are read through the bare mapper.
    """

    def __init__(self, mapper):
        self.mapper = mapper

    def __getitem__(self, key):
        return self.mapper[key]

    def __contains__(self, key):
        return key in self.mapper

    def __iter__(self):
        return iter(self.mapper)

    def __len__(self):
        return len(self.mapper)

    def __setitem__(self, key, value):
        raise PermissionError("read-only")

    def __delitem__(self, key):
        raise PermissionError("read-only")


def read_array(refs):
    """(data, how): the whole array through fsspec + zarr."""
    fs = fsspec.filesystem("reference", fo=str(refs), remote_protocol="file")
    try:
        return zarr.open(fs.get_mapper(""), mode="r")[...], "bare mapper"
    except KeyError:
        return zarr.open(NoGetitems(fs.get_mapper("")), mode="r")[...], "absent keys, one key at a time"


def check_reads(checks, binary, work, name, source, expected):
    for fmt in ("json", "json-v1"):
        refs = work / f"{name}.{fmt}.json"
        cli(binary, "-q", "refs", "build", source, "--output", refs, "--format", fmt)
        try:
            actual, how = read_array(refs)
            checks.expect(actual.dtype == expected.dtype and actual.shape == expected.shape,
                          f"{name} {fmt}: dtype {actual.dtype} shape {actual.shape}")
            checks.expect_equal_bytes(np.ascontiguousarray(actual).tobytes(), expected.tobytes(),
                                      f"{name} {fmt}: fsspec + zarr read every chunk ({how})")
        except Exception as error:  # noqa: BLE001 - any failure is a failed check
            checks.expect(False, f"{name} {fmt}: {error!r}")


def check_arrays(checks, binary, work):
    cases = []
    for i, dtype in enumerate(["uint8", "int16", "uint32", "int64", "float32", "float64"]):
        cases.append((f"sharded_{dtype}", sample(dtype, (37, 29), i),
                      ["--chunk", "8,7", "--shard", "16,14", "--codec", "zstd:3"]))
    for i, codec in enumerate(["none", "gzip:6", "blosc:lz4:5:shuffle", "blosc:zstd:3:bitshuffle"]):
        tag = codec.replace(":", "_")
        cases.append((f"sharded_{tag}", sample("uint16", (40, 33, 7), 50 + i),
                      ["--chunk", "8,8,7", "--shard", "16,24,7", "--codec", codec]))
        cases.append((f"plain_{tag}", sample("uint16", (40, 33, 7), 60 + i),
                      ["--chunk", "16,16,4", "--codec", codec]))
    cases.append(("v2_zstd", sample("float32", (30, 20), 9),
                  ["--format", "2", "--chunk", "8,8", "--codec", "zstd:1"]))
    cases.append(("index_start", sample("int32", (20, 20), 11),
                  ["--chunk", "5,5", "--shard", "10,10", "--index-location", "start", "--codec", "zstd:1"]))
    for name, data, args in cases:
        source = write_zarr(binary, work, name, data, *args)
        check_reads(checks, binary, work, name, source, data)


def check_bcolz(checks, binary, work):
    data = np.arange(10000, dtype="<f8") * 0.5
    source = work / "carray.npy"
    np.save(source, data)
    root = work / "carray"
    cli(binary, "-q", "bcolz", "create", root, "--input", source, "--chunklen", "1024")
    check_reads(checks, binary, work, "bcolz", root, data)


def check_refusals(checks, binary, work):
    # crc32c last (the default since #44) is left out of the v2 view, each
    # reference short of the checksum; crc32c anywhere else has no v2 form.
    data = sample("uint16", (8, 8), 1)
    source = write_zarr(binary, work, "crc", data, "--chunk", "4,4", "--codec", "zstd:1+crc32c")
    check_reads(checks, binary, work, "crc", source, data)
    source = write_zarr(binary, work, "crc_first", data, "--chunk", "4,4", "--codec", "crc32c+zstd:1",
                        "--checksum", "none")
    result = cli(binary, "refs", "build", source, "--output", work / "crc_first.json", ok=False)
    checks.expect("crc32c" in result.stderr and "v2" in result.stderr, f"crc32c refused: {result.stderr.strip()}")


def check_parquet(checks, binary, work):
    """The Parquet layout of a sharded array holds what its JSON set holds, key by key; the
    root-level array sits under its source's name (the layout has no root-level chunks)."""
    source = write_zarr(binary, work, "for_parquet", sample("uint16", (40, 30), 3),
                        "--chunk", "8,6", "--shard", "16,12", "--codec", "zstd:3")
    as_json = work / "for_parquet.json"
    as_parquet = work / "for_parquet.parq"
    cli(binary, "-q", "refs", "build", source, "--output", as_json, "--format", "json")
    cli(binary, "-q", "refs", "build", source, "--output", as_parquet, "--format", "parquet", "--record-size", "7")
    keys = list(json.loads(as_json.read_text()))
    files = sorted(p.name for p in (as_parquet / "for_parquet").glob("refs.*.parq"))
    chunk_keys = [k for k in keys if not k.startswith(".")]
    # A 5 x 5 chunk grid in records of 7 rows: files 0-3.
    checks.expect(files == [f"refs.{n}.parq" for n in range(4)],
                  f"parquet: record files of 7 rows over the 25-chunk grid ({files})")
    same = all(subprocess_bytes(binary, as_parquet, f"for_parquet/{k}") == subprocess_bytes(binary, as_json, k)
               for k in chunk_keys)
    checks.expect(same, f"parquet: every one of {len(chunk_keys)} chunk keys reads the same bytes as the JSON set")
    checks.expect(json.loads(subprocess_bytes(binary, as_parquet, "for_parquet/.zarray"))
                  == json.loads(subprocess_bytes(binary, as_json, ".zarray")), "parquet: the same .zarray")


def check_python_written(checks, binary, work):
    data_dir = work / "py"
    data_dir.mkdir()
    blob = bytes(range(256)) * 4
    (data_dir / "blob.bin").write_bytes(blob)
    for i in range(3):
        (data_dir / f"part{i}.bin").write_bytes(bytes([i]) * 100 + blob[:50])
    v0 = {
        ".zgroup": json.dumps({"zarr_format": 2}),
        "meta/.zattrs": {"a": [1, 2]},
        "x/0": [str(data_dir / "blob.bin"), 10, 20],
        "x/1": [str(data_dir / "blob.bin")],
        "x/2": "base64:" + base64.b64encode(b"\x00\xff\x10binary").decode(),
        "x/3": "plain text \u00e9",
        "rel/0": ["py/blob.bin", 0, 4],
    }
    (work / "py_v0.json").write_text(json.dumps(v0))
    v1 = {
        "version": 1,
        "templates": {"d": str(data_dir)},
        "refs": {"a/0": ["{{d}}/blob.bin", 100, 8], "a/1": "base64:AAE="},
        "gen": [{"key": "g/{{i}}", "url": "{{d}}/part{{i}}.bin", "offset": "{{i * 10 + 95}}",
                 "length": "10", "dimensions": {"i": {"stop": 3}}}],
    }
    (work / "py_v1.json").write_text(json.dumps(v1, indent=1))
    expected = {
        ("py_v0.json", ".zgroup"): json.dumps({"zarr_format": 2}).encode(),
        ("py_v0.json", "x/0"): blob[10:30],
        ("py_v0.json", "x/1"): blob,
        ("py_v0.json", "x/2"): b"\x00\xff\x10binary",
        ("py_v0.json", "x/3"): "plain text \u00e9".encode(),
        ("py_v0.json", "rel/0"): blob[:4],
        ("py_v1.json", "a/0"): blob[100:108],
        ("py_v1.json", "a/1"): b"\x00\x01",
    }
    for i in range(3):
        expected[("py_v1.json", f"g/{i}")] = (bytes([i]) * 100 + blob[:50])[i * 10 + 95: i * 10 + 105]
    for (name, key), value in expected.items():
        data = subprocess_bytes(binary, work / name, key)
        checks.expect_equal_bytes(data, value, f"python-written {name} {key}")
    meta = json.loads(subprocess_bytes(binary, work / "py_v0.json", "meta/.zattrs"))
    checks.expect(meta == {"a": [1, 2]}, "a JSON-object value reads as its JSON text")
    # fsspec agrees on the same files (the test's own consistency check).
    fs = fsspec.filesystem("reference", fo=str(work / "py_v1.json"), remote_protocol="file")
    checks.expect(fs.cat("g/2") == expected[("py_v1.json", "g/2")], "fsspec reads the python v1 set the same")


def subprocess_bytes(binary, refs, key, *extra):
    import subprocess
    result = subprocess.run([str(binary), "refs", "cat", str(refs), key, *map(str, extra)], capture_output=True)
    if result.returncode != 0:
        raise RuntimeError(f"refs cat {refs} {key}: {result.stderr.decode()}")
    return result.stdout


def check_security(checks, binary, work):
    inner = work / "inner"
    inner.mkdir()
    (work / "outside.bin").write_bytes(b"secret")
    (inner / "refs.json").write_text(json.dumps({"k": [str(work / "outside.bin")], "up": ["../outside.bin", 0, 3]}))
    result = cli(binary, "refs", "cat", inner / "refs.json", "k", ok=False)
    checks.expect("--allow-root" in result.stderr, f"outside target refused: {result.stderr.strip()}")
    data = subprocess_bytes(binary, inner / "refs.json", "up", "--allow-root", work)
    checks.expect(data == b"sec", "--allow-root admits the target")
    (inner / "bad.json").write_text(json.dumps({"k": ["../outside.bin", 4, 10]}))
    result = cli(binary, "refs", "cat", inner / "bad.json", "k", "--allow-root", work, ok=False)
    checks.expect("k" in result.stderr and "outside.bin" in result.stderr and "6-byte" in result.stderr,
                  f"range past the end named: {result.stderr.strip()}")


def check_http(checks, binary, work):
    """http(s) targets: read with range requests through libcurl from a local server.

    Python's http.server ignores Range and sends whole files (status 200), the
    case the reader must cut itself; the set also goes through zarr's v2 view.
    """
    import functools
    import http.server
    import threading
    served = work / "served"
    served.mkdir()
    blob = bytes(range(256)) * 8
    (served / "blob.bin").write_bytes(blob)
    class QuietHandler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(QuietHandler, directory=str(served))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        refs = {"r": [f"{base}/blob.bin", 300, 40], "w": [f"{base}/blob.bin"], "m": [f"{base}/none.bin"]}
        (work / "http.json").write_text(json.dumps(refs))
        result = cli(binary, "refs", "cat", work / "http.json", "r", ok=False)
        checks.expect("--allow-remote" in result.stderr, f"remote refused by default: {result.stderr.strip()}")
        checks.expect(subprocess_bytes(binary, work / "http.json", "r", "--allow-remote") == blob[300:340],
                      "http range reference")
        checks.expect(subprocess_bytes(binary, work / "http.json", "w", "--allow-remote") == blob,
                      "http whole-file reference")
        result = cli(binary, "refs", "cat", work / "http.json", "m", "--allow-remote", ok=False)
        checks.expect("404" in result.stderr and "http.json:m" in result.stderr,
                      f"http 404 names the key: {result.stderr.strip()}")
    finally:
        server.shutdown()


def check_combine(checks, binary, work):
    a = sample("int32", (16, 10), 21)
    b = sample("int32", (12, 10), 22)
    for name, data in (("part_a", a), ("part_b", b)):
        source = write_zarr(binary, work, name, data, "--chunk", "8,5", "--shard", "8,10", "--codec", "zstd:1")
        cli(binary, "-q", "refs", "build", source, "--output", work / f"{name}.json")
    cli(binary, "-q", "refs", "combine", work / "part_a.json", work / "part_b.json", "--concat-dim", "0",
        "--output", work / "combined.json", "--format", "json")
    actual, _ = read_array(work / "combined.json")
    checks.expect_equal_bytes(actual.tobytes(), np.concatenate([a, b]).tobytes(), "combine along dim 0")
    c = sample("int32", (16, 9), 23)
    source = write_zarr(binary, work, "part_c", c, "--chunk", "8,5", "--codec", "zstd:1")
    cli(binary, "-q", "refs", "build", source, "--output", work / "part_c.json")
    result = cli(binary, "refs", "combine", work / "part_a.json", work / "part_c.json", "--output",
                 work / "bad_combine.json", ok=False)
    checks.expect("dimension 1" in result.stderr, f"mismatched extent refused: {result.stderr.strip()}")
    info = cli(binary, "refs", "info", work / "combined.json").stdout
    checks.expect("arrays:       1" in info and "ranges:" in info, "refs info summarizes")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunkwise", required=True, type=pathlib.Path)
    parser.add_argument("--workdir", required=True, type=pathlib.Path)
    args = parser.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    args.workdir.mkdir(parents=True)
    checks = Checks()
    check_arrays(checks, args.chunkwise, args.workdir)
    check_bcolz(checks, args.chunkwise, args.workdir)
    check_refusals(checks, args.chunkwise, args.workdir)
    check_parquet(checks, args.chunkwise, args.workdir)
    check_python_written(checks, args.chunkwise, args.workdir)
    check_security(checks, args.chunkwise, args.workdir)
    check_http(checks, args.chunkwise, args.workdir)
    check_combine(checks, args.chunkwise, args.workdir)
    checks.finish()


if __name__ == "__main__":
    main()
