"""The CLI on s3:// URLs, checked by independent clients (#26). Runs in the
pinned .venv against the test S3 server (the CTest fixture "s3_server").

bcolz    `chunkwise bcolz create s3://...` (a carray and a ctable); `bcolz
         info/read/append` on the URL; boto3 downloads the keys into a
         directory that the real bcolz 1.2.1 opens, rows equal to the input;
         the downloaded keys byte-equal to a local `bcolz create` of the same
         input.
refs     `refs build --target-prefix s3://...` on a local zarr array whose
         chunks boto3 then uploads there; fsspec's reference filesystem over
         s3fs and zarr-python 3 read the array through the set, values
         exact; our `refs cat --allow-remote` reads every chunk from the
         bucket byte-exact; `zarr read SET --allow-remote` reads the array
         through the set, and is refused without the flag; `refs
         info/cat/combine` on sets at s3:// URLs.
stream   `zarr stream s3://...` from .npy frames: zarr-python 3 + s3fs reads
         every frame; TensorStore's s3 kvstore (endpoint override) too.
export   `dvid export-shards DB SPEC s3://...`: each shard one PUT (the proxy
         counts them: no shard rewritten), pyarrow + s3fs reads a shard's
         blocks, `dvid read-shards s3://...` gives back the ingested labels,
         `dvid shard s3://.../s0/0_0_0.arrow --list` lists its blocks.
vectors  `vectors write/info/read` on s3://: the skeleton's points back.
http     a carray and a ctable written by the real bcolz 1.2.1, served by the
         test's HTTP server (Range, no listing): `bcolz info/read` on their
         http:// URLs give bcolz's own rows; a write to http:// is refused.

usage: .venv/bin/python cli_url_peers.py --chunkwise BIN --state STATE --workdir DIR
"""
import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import time
import urllib.request
import warnings

import numpy as np
import pyarrow.ipc
import tensorstore as ts

warnings.simplefilter("ignore")  # bcolz 1.2.1's vendored arrayprint imports numpy.core.
import bcolz  # noqa: E402
import fsspec  # noqa: E402
import zarr  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "python"))
from interop_check import Checks  # noqa: E402
from s3_test_env import (BUCKET, aws_environment, boto3_client, s3fs_filesystem,  # noqa: E402
                         s3fs_options, tensorstore_kvstore, unique_root)



class Cli:
    def __init__(self, binary, env, checks):
        self.binary, self.env, self.checks = binary, env, checks

    def __call__(self, *argv, expect=0):
        result = subprocess.run([self.binary, *map(str, argv)], env=self.env, capture_output=True,
                                text=True, timeout=300)
        if result.returncode != expect:
            print(f"chunkwise {' '.join(map(str, argv))} exited {result.returncode}: "
                  f"{result.stderr}")
        self.checks.expect(result.returncode == expect,
                           f"chunkwise {' '.join(map(str, argv[:2]))} exits {expect}")
        return result


def download(s3, prefix, directory):
    """Every key under `prefix` into `directory`, as a user's `aws s3 sync` would."""
    keys = {}
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix=prefix):
        for item in page.get("Contents", []):
            relative = item["Key"][len(prefix):]
            target = directory / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            s3.download_file(BUCKET, item["Key"], str(target))
            keys[relative] = target.read_bytes()
    return keys


def local_keys(directory):
    return {str(p.relative_to(directory)): p.read_bytes()
            for p in directory.rglob("*") if p.is_file()}


def bcolz_on_s3(checks, cw, s3, root, work):
    rows = np.arange(50000, dtype="<i8") * 3 - 7
    table = np.zeros(20000, dtype=[("id", "<i4"), ("x", "<f8"), ("tag", "S3")])
    table["id"] = np.arange(20000)
    table["x"] = np.linspace(0.0, 1.0, 20000)
    table["tag"] = [b"abc", b"de", b"f", b""] * 5000
    np.save(work / "rows.npy", rows)
    np.save(work / "table.npy", table)
    for name, source, data in (("carray", "rows.npy", rows), ("ctable", "table.npy", table)):
        url = f"s3://{BUCKET}/{root}{name}.bcolz"
        cw("bcolz", "create", url, "--input", work / source, "--chunklen", 4096)
        cw("bcolz", "create", work / f"{name}-local.bcolz", "--input", work / source,
           "--chunklen", 4096)
        info = cw("bcolz", "info", url, "--json")
        described = json.loads(info.stdout or "{}")
        checks.expect(described.get("path") == url, f"bcolz info --json on {name} names the URL")
        cw("bcolz", "read", url, "--slice", "100:200", "--output", work / f"{name}-part.npy")
        checks.expect(np.array_equal(np.load(work / f"{name}-part.npy"), data[100:200]),
                      f"bcolz read of the s3:// {name}: rows 100:200 exact")
        fetched = download(s3, f"{root}{name}.bcolz/", work / f"{name}-fetched.bcolz")
        ours = local_keys(work / f"{name}-local.bcolz")
        checks.expect(sorted(fetched) == sorted(ours),
                      f"s3:// {name} has the keys of a local one ({len(fetched)} keys)")
        same = all(fetched[key] == ours.get(key) for key in fetched if "__attrs__" not in key)
        checks.expect(same, f"s3:// {name}: every key byte-equal to the local {name}")
        opened = bcolz.open(str(work / f"{name}-fetched.bcolz"), mode="r")
        checks.expect(np.array_equal(opened[:], data),
                      f"the real bcolz opens the downloaded {name}, every row exact")
    # append on the URL: the real bcolz sees the rows added.
    url = f"s3://{BUCKET}/{root}carray.bcolz"
    more = np.arange(1000, dtype="<i8")
    np.save(work / "more.npy", more)
    cw("bcolz", "append", url, "--input", work / "more.npy")
    shutil.rmtree(work / "carray-fetched.bcolz")
    download(s3, f"{root}carray.bcolz/", work / "carray-fetched.bcolz")
    opened = bcolz.open(str(work / "carray-fetched.bcolz"), mode="r")
    checks.expect(np.array_equal(opened[:], np.concatenate([rows, more])),
                  "bcolz append to s3://: the real bcolz reads every row")
    again = cw("bcolz", "create", url, "--input", work / "rows.npy", expect=1)
    checks.expect(url in again.stderr and "--overwrite" in again.stderr,
                  "bcolz create over an s3:// dataset is refused, naming the URL and --overwrite")
    missing = cw("bcolz", "info", f"s3://{BUCKET}/{root}missing.bcolz", expect=1)
    checks.expect(f"{root}missing.bcolz" in missing.stderr, "a missing s3:// dataset is named")


def stream_on_s3(checks, cw, state, root, work):
    frames = ((np.arange(24 * 40 * 48, dtype="<u4") * 2654435761) >> 20).astype("<u2")
    frames = frames.reshape(24, 40, 48)
    np.save(work / "frames.npy", frames)
    url = f"s3://{BUCKET}/{root}frames.zarr"
    cw("zarr", "stream", url, "--shape", "0,40,48", "--dtype", "uint16", "--chunk", "8,16,16",
       "--tiles-per-shard", "2,2,2", "--codec", "zstd:1", "--input", work / "frames.npy")
    store = zarr.storage.FsspecStore(s3fs_filesystem(state), path=f"{BUCKET}/{root}frames.zarr",
                                     read_only=True)
    checks.expect(np.array_equal(zarr.open_array(store, mode="r")[...], frames),
                  "zarr stream to s3://: zarr-python 3 + s3fs reads every frame")
    opened = ts.open({"driver": "zarr3",
                      "kvstore": tensorstore_kvstore(state, f"{root}frames.zarr/")},
                     read=True).result()
    checks.expect(np.array_equal(opened.read().result(), frames),
                  "zarr stream to s3://: TensorStore's s3 kvstore reads every frame")


EXPORT_SPEC = {"@type": "neuroglancer_multiscale_volume", "type": "segmentation",
               "data_type": "uint64", "num_channels": 1,
               "scales": [{"key": "s0", "size": [128, 128, 64], "resolution": [8, 8, 8],
                           "chunk_sizes": [[64, 64, 64]], "encoding": "compressed_segmentation",
                           "sharding": {"@type": "neuroglancer_uint64_sharded_v1",
                                        "preshift_bits": 0, "hash": "identity",
                                        "minishard_bits": 1, "shard_bits": 1}}]}


def proxy_ops(state):
    with urllib.request.urlopen(state["proxy"] + "/__proxy__/stats", timeout=30) as reply:
        return json.loads(reply.read()).get("ops", {})


def export_on_s3(checks, cw, state, root, work):
    zz, yy, xx = np.meshgrid(np.arange(64), np.arange(128), np.arange(128), indexing="ij")
    labels = (1 + (zz // 20) * 100 + (yy // 30) * 10 + xx // 40).astype("<u8")
    np.save(work / "labels.npy", labels)
    (work / "spec.json").write_text(json.dumps(EXPORT_SPEC))
    cw("dvid", "ingest", work / "labels.db", "--input", work / "labels.npy")
    url = f"s3://{BUCKET}/{root}export"
    # Through the counting proxy: every shard must be uploaded once, whole.
    proxied = Cli(cw.binary, dict(cw.env, AWS_ENDPOINT_URL_S3=state["proxy"]), checks)
    before = proxy_ops(state)
    proxied("dvid", "export-shards", work / "labels.db", work / "spec.json", url)
    after = proxy_ops(state)
    fs = s3fs_filesystem(state)
    shards = sorted(fs.glob(f"{BUCKET}/{root}export/s0/*.arrow"))
    puts = after.get("PutObject", 0) - before.get("PutObject", 0)
    parts = after.get("UploadPart", 0) - before.get("UploadPart", 0)
    objects = len(fs.find(f"{BUCKET}/{root}export"))
    deletes = after.get("DeleteObject", 0) - before.get("DeleteObject", 0)
    # The one PUT and DELETE more are the .chunkwise-incomplete marker's.
    checks.expect(len(shards) >= 2 and parts == 0 and puts == objects + 1 and deletes == 1,
                  f"export-shards to s3://: one PUT per object, no shard rewritten "
                  f"({puts} PUTs and {deletes} DELETE for {objects} objects, {len(shards)} shards)")
    with fs.open(shards[0], "rb") as handle:
        table = pyarrow.ipc.open_file(handle).read_all()
    checks.expect(table.num_rows >= 1 and "labels" in table.column_names,
                  f"pyarrow + s3fs reads the blocks of {shards[0].rsplit('/', 1)[-1]}")
    cw("dvid", "read-shards", url, "--output", work / "from-s3.npy")
    checks.expect(np.array_equal(np.load(work / "from-s3.npy"), labels),
                  "dvid read-shards s3://: the ingested labels back")
    listed = cw("dvid", "shard", f"s3://{shards[0]}", "--list")
    checks.expect(listed.stdout.count("\n") >= table.num_rows,
                  "dvid shard --list on an s3:// shard lists its blocks")


def vectors_on_s3(checks, cw, root, work):
    lines = [f"{i} 3 {i * 2.5:.2f} {10 + i % 7:.2f} {i * 1.5:.2f} 1.0 {i - 1 if i > 1 else -1}"
             for i in range(1, 81)]
    (work / "cell.swc").write_text("\n".join(lines) + "\n")
    url = f"s3://{BUCKET}/{root}cell.zarrvectors"
    cw("vectors", "write", url, "--type", "skeleton", "--input", work / "cell.swc",
       "--chunk-shape", "64,64,64")
    info = cw("vectors", "info", url)
    checks.expect("80" in info.stdout, "vectors info on s3:// counts the 80 points")
    cw("vectors", "read", url, "--output", work / "cell-back.swc")
    back = [line.split() for line in (work / "cell-back.swc").read_text().splitlines()
            if line and not line.startswith("#")]
    checks.expect(len(back) == 80, f"vectors read from s3:// gives the 80 points ({len(back)})")


def bcolz_over_http(checks, cw, state, work):
    """Datasets bcolz itself wrote, read over HTTP, which cannot list keys."""
    served = pathlib.Path(state["http_root"]) / f"bcolz-{os.getpid()}-{int(time.time() * 1000)}"
    rows = np.arange(30000, dtype="<f4") / 7
    table = np.zeros(9000, dtype=[("id", "<i8"), ("v", "<f8")])
    table["id"] = np.arange(9000) * 5
    table["v"] = np.linspace(-1.0, 1.0, 9000)
    served.mkdir(parents=True)
    bcolz.carray(rows, rootdir=str(served / "c.bcolz"), chunklen=2048, mode="w").flush()
    bcolz.ctable(table, rootdir=str(served / "t.bcolz"), chunklen=1024, mode="w").flush()
    base = f"{state['http']}/{served.name}"
    for name, data in (("c", rows), ("t", table)):
        url = f"{base}/{name}.bcolz"
        described = json.loads(cw("bcolz", "info", url, "--json").stdout or "{}")
        checks.expect(described.get("length", described.get("shape", [0])[0]) == len(data),
                      f"bcolz info on bcolz's own {name}.bcolz over http:// gives its length")
        cw("bcolz", "read", url, "--slice", "1000:8500", "--output", work / f"http-{name}.npy")
        checks.expect(np.array_equal(np.load(work / f"http-{name}.npy"), data[1000:8500]),
                      f"bcolz read of bcolz's own {name}.bcolz over http://: rows 1000:8500 exact")
    cw("bcolz", "read", f"{base}/t.bcolz", "--where", "id >= 44000", "--output", work / "http-w.npy")
    checks.expect(np.array_equal(np.load(work / "http-w.npy"), table[table["id"] >= 44000]),
                  "bcolz read --where over http://: the rows numpy selects")
    np.save(work / "http-more.npy", rows[:10])
    for command in ("append", "create"):
        refused = cw("bcolz", command, f"{base}/c.bcolz", "--input", work / "http-more.npy", expect=1)
        checks.expect(f"{base}/c.bcolz: read-only store" in refused.stderr
                      and "import: done" not in refused.stderr,
                      f"bcolz {command} to http:// is refused before any work, naming the URL")
    missing = cw("bcolz", "info", f"{base}/none.bcolz", expect=1)
    checks.expect(f"{base}/none.bcolz" in missing.stderr and "no bcolz" in missing.stderr,
                  "a missing http:// dataset is named")


def refs_target_prefix(checks, cw, s3, state, root, work):
    values = (np.arange(12 * 20, dtype="<u2") * 7 + 3).reshape(12, 20)
    np.save(work / "vol.npy", values)
    local = work / "vol.zarr"
    cw("zarr", "create", local, "--shape", "12,20", "--dtype", "uint16", "--chunk", "4,10",
       "--codec", "zstd:1")
    cw("zarr", "write", local, "--input", work / "vol.npy")
    prefix = f"s3://{BUCKET}/{root}data/vol.zarr/"
    cw("refs", "build", local, "--target-prefix", prefix, "--output", work / "refs.json",
       "--format", "json")
    text = (work / "refs.json").read_text()
    checks.expect(str(local) not in text, "--target-prefix leaves no local path in the set")
    checks.expect(prefix + "c/0/0" in text, "--target-prefix: references name the object URLs")
    for key, data in local_keys(local).items():
        s3.put_object(Bucket=BUCKET, Key=f"{root}data/vol.zarr/{key}", Body=data)
    fs = fsspec.filesystem("reference", fo=str(work / "refs.json"), remote_protocol="s3",
                           remote_options=s3fs_options(state))
    got = zarr.open_array(zarr.storage.FsspecStore(fs, read_only=True, path=""), mode="r")[...]
    checks.expect(np.array_equal(got, values),
                  "fsspec (reference + s3fs) and zarr-python 3 read the uploaded array exactly")
    info = cw("refs", "info", work / "refs.json", "--json")
    summary = json.loads(info.stdout or "{}")
    checks.expect(any(url.startswith(prefix) for url in summary.get("targets", {})),
                  "refs info lists the s3:// targets")
    # Our own reader through the set: every chunk's bytes from the bucket, as uploaded.
    refused = cw("refs", "cat", work / "refs.json", "0.0", expect=1)
    checks.expect("--allow-remote" in refused.stderr, "s3:// targets need --allow-remote")
    # The set presents the array as kerchunk does, zarr v2: chunk c/i/j is key "i.j",
    # its reference stopping short of the 4-byte crc32c the array has by default.
    chunks = {k[2:].replace("/", "."): v[:-4] for k, v in local_keys(local).items()
              if k.startswith("c/")}
    same = all(subprocess.run([cw.binary, "refs", "cat", work / "refs.json", key, "--allow-remote"],
                              env=cw.env, capture_output=True, timeout=60).stdout == data
               for key, data in chunks.items())
    checks.expect(same and len(chunks) == 6,
                  f"refs cat --allow-remote reads each of {len(chunks)} chunks from s3:// exactly")
    # The set as a store of the zarr commands: its s3:// targets need --allow-remote.
    refused = cw("zarr", "read", work / "refs.json", "--output", work / "via-refs.npy", expect=1)
    checks.expect("--allow-remote" in refused.stderr and not (work / "via-refs.npy").exists(),
                  "zarr read of a set with s3:// targets is refused without --allow-remote")
    cw("zarr", "read", work / "refs.json", "--allow-remote", "--output", work / "via-refs.npy")
    checks.expect(np.array_equal(np.load(work / "via-refs.npy"), values),
                  "zarr read --allow-remote through the set: every value from the bucket")
    cw("zarr", "read", work / "refs.json", "--region", "4:12,5:15", "--output",
       work / "via-refs-part.npy", "--allow-remote")
    checks.expect(np.array_equal(np.load(work / "via-refs-part.npy"), values[4:12, 5:15]),
                  "zarr read --region --allow-remote through the set: exact")
    # The set itself in the bucket: info and cat by URL.
    set_url = f"s3://{BUCKET}/{root}refs/vol.json"
    s3.put_object(Bucket=BUCKET, Key=f"{root}refs/vol.json", Body=text.encode())
    remote_info = json.loads(cw("refs", "info", set_url, "--json").stdout or "{}")
    checks.expect(remote_info.get("references") == summary.get("references"),
                  "refs info reads the set from its s3:// URL")
    got = subprocess.run([cw.binary, "refs", "cat", set_url, "2.1", "--allow-remote"],
                         env=cw.env, capture_output=True, timeout=60)
    checks.expect(got.returncode == 0 and got.stdout == chunks.get("2.1"),
                  "refs cat of a set at an s3:// URL reads an s3:// target")
    cw("refs", "combine", set_url, set_url, "--concat-dim", "0", "--output",
       f"s3://{BUCKET}/{root}refs/twice.json")
    twice = json.loads(s3.get_object(Bucket=BUCKET, Key=f"{root}refs/twice.json")["Body"].read())
    shape = json.loads(twice.get("refs", twice).get(".zarray", "{}")).get("shape")
    checks.expect(shape == [24, 20], f"refs combine from and to s3:// URLs: shape {shape}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunkwise", required=True)
    parser.add_argument("--state", required=True)
    parser.add_argument("--workdir", required=True)
    args = parser.parse_args()
    state = json.loads(pathlib.Path(args.state).read_text())
    work = pathlib.Path(args.workdir)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    env = dict(os.environ, **aws_environment(state, work))
    os.environ.update({k: env[k] for k in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")})
    checks = Checks()
    cw = Cli(args.chunkwise, env, checks)
    s3 = boto3_client(state)
    root = unique_root("peers")
    for part in (lambda: bcolz_on_s3(checks, cw, s3, root, work),
                 lambda: stream_on_s3(checks, cw, state, root, work),
                 lambda: export_on_s3(checks, cw, state, root, work),
                 lambda: vectors_on_s3(checks, cw, root, work),
                 lambda: bcolz_over_http(checks, cw, state, work),
                 lambda: refs_target_prefix(checks, cw, s3, state, root, work)):
        try:
            part()
        except Exception as error:  # One part's failure is reported; the others still run.
            checks.expect(False, f"{type(error).__name__}: {error}")
    checks.finish()


if __name__ == "__main__":
    main()
