"""Object storage interop on moto's S3 server: independent clients read what
chunkwise writes to a bucket, and chunkwise reads what they write.

  we write, they read   raw values of 0 B to 65 MiB (the largest a multipart
                        upload) read by boto3 and s3fs; zarr v3 arrays (sharded
                        and not) opened by zarr-python 3 through s3fs and by
                        TensorStore's s3 kvstore with an endpoint override;
                        export shards (.arrow + .csv) read by pyarrow through s3fs.
  they write, we read   boto3 PUT and multipart upload, s3fs pipe; a sharded
                        array written by zarr-python 3; listings compared with boto3's.

Our side is s3_interop_tool, configured only through the environment the AWS
tools read (AWS_ENDPOINT_URL_S3, AWS_ACCESS_KEY_ID, ...). Runs with .venv's
Python; the servers come from --state (tests/support/s3_test_server.py), or are
started here when the file does not exist.

usage: s3_interop.py --tool TOOL --state STATE --workdir DIR
"""
import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow.ipc
import tensorstore as ts
import zarr
from boto3.s3.transfer import TransferConfig

sys.path.insert(0, str(Path(__file__).parent))
from interop_check import Checks  # noqa: E402
from s3_test_env import (BUCKET, aws_environment, boto3_client, load_state,  # noqa: E402
                         s3fs_filesystem, s3fs_options, tensorstore_kvstore)

SHAPE = (96, 80, 70)
MiB = 1 << 20


def expected_volume():
    z, y, x = np.meshgrid(*(np.arange(n) for n in SHAPE), indexing="ij")
    return ((z * 131 + y * 17 + x * 3) % 65536).astype("<u2")


class Tool:
    def __init__(self, path, env):
        self.path, self.env = path, env

    def __call__(self, *args, expect=0):
        result = subprocess.run([self.path, *map(str, args)], env=self.env, capture_output=True, text=True)
        if result.returncode != expect:
            raise RuntimeError(f"s3_interop_tool {' '.join(map(str, args))} exited {result.returncode}: "
                               f"{result.stderr.strip()}")
        return result.stdout


def raw_values(checks, tool, s3, fs, root, work):
    rng = np.random.default_rng(1)
    for size in (0, 1000, 6 * MiB, 65 * MiB + 3):
        data = rng.integers(0, 256, size, dtype=np.uint8).tobytes()
        local = work / f"value-{size}"
        local.write_bytes(data)
        tool("put", f"s3://{BUCKET}/{root}raw", f"ours-{size}", local)
        key = f"{root}raw/ours-{size}"
        got = s3.get_object(Bucket=BUCKET, Key=key)["Body"].read()
        checks.expect_equal_bytes(got, data, f"boto3 reads our {size}-byte value")
        checks.expect_equal_bytes(fs.cat(f"{BUCKET}/{key}"), data, f"s3fs reads our {size}-byte value")
        if size > 64 * MiB:  # Past the multipart threshold, in parts of 8 MiB.
            etag = s3.head_object(Bucket=BUCKET, Key=key)["ETag"]
            checks.expect(etag.strip('"').endswith("-9"), f"our {size}-byte value went up in 9 parts ({etag})")
    theirs = {
        "boto3-small": rng.integers(0, 256, 5000, dtype=np.uint8).tobytes(),
        "boto3-multipart": rng.integers(0, 256, 12 * MiB + 7, dtype=np.uint8).tobytes(),
        "s3fs": rng.integers(0, 256, 70000, dtype=np.uint8).tobytes(),
    }
    s3.put_object(Bucket=BUCKET, Key=f"{root}raw/boto3-small", Body=theirs["boto3-small"])
    with open(work / "multipart.bin", "wb") as out:
        out.write(theirs["boto3-multipart"])
    s3.upload_file(str(work / "multipart.bin"), BUCKET, f"{root}raw/boto3-multipart",
                   Config=TransferConfig(multipart_threshold=5 * MiB, multipart_chunksize=5 * MiB))
    fs.pipe(f"{BUCKET}/{root}raw/s3fs", theirs["s3fs"])
    for name, data in theirs.items():
        out = work / f"got-{name}"
        tool("get", f"s3://{BUCKET}/{root}raw", name, out)
        checks.expect_equal_bytes(out.read_bytes(), data, f"we read {name}'s value")
    tool("get", f"s3://{BUCKET}/{root}raw", "absent", work / "absent", expect=3)
    checks.expect(True, "an absent key reads as absent (exit 3)")
    ours = tool("list", f"s3://{BUCKET}/{root}raw").split()
    listed = [o["Key"][len(root) + 4:] for o in
              s3.list_objects_v2(Bucket=BUCKET, Prefix=f"{root}raw/").get("Contents", [])]
    checks.expect(sorted(ours) == sorted(listed) and len(ours) == 7,
                  f"our listing matches boto3's ({len(ours)} keys)")


def zarr_arrays(checks, tool, root, work, state):
    url = f"s3://{BUCKET}/{root}zarr"
    tool("write-zarr", url)
    expected = expected_volume()
    # As zarr-python's users open a bucket: a URL and s3fs's storage options.
    options = s3fs_options(state)
    for name in ("sharded", "plain"):
        array = zarr.open_array(store=f"{url}/{name}", mode="r", storage_options=options)
        checks.expect(array.shape == SHAPE and array.dtype == np.uint16, f"zarr-python opens our {name} array")
        checks.expect(np.array_equal(array[:], expected), f"zarr-python reads our {name} array's values")
        checks.expect(array.attrs.get("written_by") == "chunkwise", f"zarr-python reads our {name} attributes")
        spec = {"driver": "zarr3",
                "kvstore": tensorstore_kvstore(state, f"{root}zarr/{name}/")}
        opened = ts.open(spec, read=True).result()
        checks.expect(np.array_equal(opened.read().result(), expected),
                      f"TensorStore's s3 kvstore reads our {name} array")
    theirs = (np.arange(50 * 60 * 70, dtype=np.uint32) % 65521).astype("<u2").reshape(50, 60, 70)
    array = zarr.create_array(store=f"{url}/theirs", storage_options=options, shape=theirs.shape, chunks=(16, 16, 16), shards=(32, 32, 32),
                              dtype="uint16", compressors=zarr.codecs.ZstdCodec(level=3))
    array[:] = theirs
    out = work / "theirs.raw"
    tool("read-zarr", url, "theirs/", out)
    checks.expect_equal_bytes(out.read_bytes(), theirs.tobytes(), "we read zarr-python's sharded array")


def export_shards(checks, tool, fs, root, work):
    tool("write-export", work / "export-work", f"s3://{BUCKET}/{root}export")
    arrows = sorted(fs.glob(f"{BUCKET}/{root}export/s0/*.arrow"))
    checks.expect(len(arrows) > 1, f"the export's {len(arrows)} shards are in the bucket")
    rows = 0
    for path in arrows:
        with fs.open(path, "rb") as file:
            table = pyarrow.ipc.open_file(file).read_all()
        csv_lines = fs.cat(path[:-len(".arrow")] + ".csv").decode().strip().splitlines()
        records = [line for line in csv_lines if line and line[0].isdigit() or line.startswith("-")]
        names = set(table.column_names)
        if not {"chunk_x", "chunk_y", "chunk_z", "labels", "dvid_compressed_block"} <= names:
            checks.expect(False, f"{path} has the export schema ({sorted(names)})")
            return
        if table.num_rows != len(records):
            checks.expect(False, f"{path}: {table.num_rows} rows but {len(records)} index lines")
            return
        rows += table.num_rows
    checks.expect(rows == 2 * 3 * 3, f"pyarrow reads every export shard through s3fs ({rows} blocks)")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tool", required=True)
    parser.add_argument("--state", required=True)
    parser.add_argument("--workdir", required=True)
    args = parser.parse_args()
    state = load_state(args.state, start=True)
    work = Path(args.workdir)
    shutil.rmtree(work, ignore_errors=True)
    (work / ".aws").mkdir(parents=True)
    # An empty profile of our own, so that no one reads the user's (TensorStore logs missing files).
    (work / ".aws" / "config").write_text("[default]\n")
    (work / ".aws" / "credentials").write_text("")
    env = {"PATH": os.environ.get("PATH", "/usr/bin"), **aws_environment(state, work)}
    os.environ.update(env)
    tool = Tool(args.tool, env)
    s3 = boto3_client(state)
    fs = s3fs_filesystem(state)
    root = f"interop-{os.getpid()}/"
    checks = Checks()
    for part in (lambda: raw_values(checks, tool, s3, fs, root, work),
                 lambda: zarr_arrays(checks, tool, root, work, state),
                 lambda: export_shards(checks, tool, fs, root, work)):
        try:
            part()
        except Exception as error:  # One part's failure is reported; the others still run.
            checks.expect(False, f"{type(error).__name__}: {error}")
    checks.finish()


if __name__ == "__main__":
    main()
