"""The Python peers of bench/s3_bench.cc, against the same loopback S3 server
(moto), on the same data, configured as their own users configure them.

usage: s3_python_peer.py MODE ENDPOINT BUCKET PREFIX RUNS THREADS ARG [INNER SHARD]

MODE and ARG:
  zarr-s3fs VOLUME.npy     zarr-python 3 on s3fs (a store URL and storage_options)
  zarr-obstore VOLUME.npy  zarr-python 3 on obstore (zarr.storage.ObjectStore)
  zarr-zarrs VOLUME.npy    zarr-obstore with zarrs-python's codec pipeline
                           (codec_pipeline.path zarrs.ZarrsCodecPipeline)
  tensorstore VOLUME.npy   TensorStore, zarr3 driver on its s3 kvstore with an
                           endpoint override; default context, data copies
                           limited to THREADS, as our pool is
  boto3-raw KEYS.json      boto3 PUT then GET of the objects that KEYS.json names
                           (taken from the bucket first, untimed), 16 at
                           once: the protocol's ceiling here, with no codec
  obstore-raw KEYS.json    the same with obstore's put/get, all at once (asyncio)
  curl-raw KEYS.json       the same with one curl process (--parallel, 16 at
                           once, keep-alive, --aws-sigv4): a client of little
                           CPU, so what the server alone serves
  export-pyarrow KEYS.json the export's files uploaded through s3fs, then every
                           shard read through s3fs with pyarrow (all record
                           batches) and its CSV index

The volume is zarr v3, uint16, shards of SHARD³ (default 256) holding INNER³
chunks (default 64), zstd level 1, index at the end (bytes + crc32c): the
layout bench/s3_bench.cc writes. SHARD 0: no sharding, plain INNER³ chunks.
Prints one JSON line: {"write_seconds": [...], "read_seconds": [...],
"write_requests": n, "read_requests": n, "read_cpu": [...], "server_cpu": [...]}
(requests as the server counted them, per run; read_cpu the CPU seconds of
each read in this process and its children, server_cpu the server's, from
/proc/PID/stat of S3_BENCH_SERVER_PID when set).
"""
import asyncio
import atexit
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import numpy as np

KEY_ID, SECRET, REGION = "testing", "testing", "us-east-1"
IN_FLIGHT = 16  # Requests at once for the raw transfers, as S3TransferOptions allows ours.


def requests_served(endpoint):
    with urllib.request.urlopen(endpoint + "/__counts__") as reply:
        return sum(json.load(reply).values())


def clear(endpoint, bucket, prefix):
    import boto3
    s3 = boto3.client("s3", endpoint_url=endpoint, region_name=REGION,
                      aws_access_key_id=KEY_ID, aws_secret_access_key=SECRET)
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
        keys = [{"Key": o["Key"]} for o in page.get("Contents", [])]
        if keys:
            s3.delete_objects(Bucket=bucket, Delete={"Objects": keys, "Quiet": True})


def server_cpu():
    """CPU seconds the server's process has used (user and system), or 0."""
    pid = os.environ.get("S3_BENCH_SERVER_PID", "0")
    if pid == "0":
        return 0.0
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def own_cpu():
    """CPU seconds of this process and its finished children (curl-raw's curl)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def timed(endpoint, work, cpu=None):
    before = requests_served(endpoint)
    cpu_before, server_before = own_cpu(), server_cpu()
    start = time.perf_counter()
    result = work()
    seconds = time.perf_counter() - start
    if cpu is not None:
        cpu["read_cpu"].append(own_cpu() - cpu_before)
        cpu["server_cpu"].append(server_cpu() - server_before)
    return seconds, requests_served(endpoint) - before - 1, result  # Less our own count request.


def zarr_peer(mode, endpoint, bucket, prefix, volume, threads, inner, shard):
    import zarr
    from zarr.codecs import ZstdCodec
    if mode == "zarr-zarrs":
        zarr.config.set({"codec_pipeline.path": "zarrs.ZarrsCodecPipeline"})
    if mode == "zarr-s3fs":
        options = {"endpoint_url": endpoint, "key": KEY_ID, "secret": SECRET,
                   "client_kwargs": {"region_name": REGION}}
        def store(read_only):
            return zarr.storage.FsspecStore.from_url(f"s3://{bucket}/{prefix}", storage_options=options,
                                                    read_only=read_only)
    else:
        import obstore.store
        def store(read_only):
            return zarr.storage.ObjectStore(
                obstore.store.S3Store(bucket, prefix=prefix, endpoint=endpoint, region=REGION,
                                      access_key_id=KEY_ID, secret_access_key=SECRET,
                                      client_options={"allow_http": True}),
                read_only=read_only)

    def write():
        array = zarr.create_array(store=store(False), shape=volume.shape, dtype="uint16",
                                  chunks=(inner,) * 3, shards=(shard,) * 3 if shard else None,
                                  compressors=ZstdCodec(level=1), fill_value=0, overwrite=True)
        array[:] = volume

    def read():
        return zarr.open_array(store=store(True), mode="r")[:]
    return write, read


def tensorstore_peer(endpoint, bucket, prefix, volume, threads, inner, shard):
    import tensorstore as ts
    kvstore = {"driver": "s3", "bucket": bucket, "path": prefix, "endpoint": endpoint,
               "aws_region": REGION}
    context = {"data_copy_concurrency": {"limit": threads}}
    inner_codecs = [{"name": "bytes", "configuration": {"endian": "little"}},
                    {"name": "zstd", "configuration": {"level": 1, "checksum": False}}]
    codecs = [{"name": "sharding_indexed", "configuration": {
        "chunk_shape": [inner] * 3,
        "codecs": inner_codecs,
        "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}],
        "index_location": "end"}}] if shard else inner_codecs

    def write():
        array = ts.open({"driver": "zarr3", "kvstore": kvstore, "context": context,
                         "metadata": {"shape": list(volume.shape), "data_type": "uint16",
                                      "chunk_grid": {"name": "regular",
                                                     "configuration": {"chunk_shape": [shard or inner] * 3}},
                                      "codecs": codecs},
                         "create": True, "delete_existing": True}).result()
        array.write(volume).result()

    def read():
        return ts.open({"driver": "zarr3", "kvstore": kvstore, "context": context}, read=True
                       ).result().read().result()
    return write, read


def fetch(endpoint, bucket, keys):
    import boto3
    s3 = boto3.client("s3", endpoint_url=endpoint, region_name=REGION,
                      aws_access_key_id=KEY_ID, aws_secret_access_key=SECRET)
    return {key: s3.get_object(Bucket=bucket, Key=key)["Body"].read() for key in keys}


def boto3_peer(endpoint, bucket, prefix, objects, threads):
    import boto3
    from botocore.config import Config
    s3 = boto3.client("s3", endpoint_url=endpoint, region_name=REGION, aws_access_key_id=KEY_ID,
                      aws_secret_access_key=SECRET,
                      config=Config(max_pool_connections=IN_FLIGHT))
    names = [key.rsplit("/", 1)[-1] + str(i) for i, key in enumerate(objects)]

    def write():
        with ThreadPoolExecutor(IN_FLIGHT) as pool:
            list(pool.map(lambda kv: s3.put_object(Bucket=bucket, Key=prefix + kv[0], Body=kv[1]),
                          zip(names, objects.values())))

    def read():
        with ThreadPoolExecutor(IN_FLIGHT) as pool:
            return list(pool.map(lambda n: s3.get_object(Bucket=bucket, Key=prefix + n)["Body"].read(),
                                 names))
    return write, read


def obstore_peer(endpoint, bucket, prefix, objects, threads):
    import obstore
    import obstore.store
    store = obstore.store.S3Store(bucket, prefix=prefix, endpoint=endpoint, region=REGION,
                                  access_key_id=KEY_ID, secret_access_key=SECRET,
                                  client_options={"allow_http": True})
    names = [key.rsplit("/", 1)[-1] + str(i) for i, key in enumerate(objects)]

    async def put_all():
        await asyncio.gather(*(obstore.put_async(store, n, b) for n, b in zip(names, objects.values())))

    async def get_all():
        results = await asyncio.gather(*(obstore.get_async(store, n) for n in names))
        return [await r.bytes_async() for r in results]
    return (lambda: asyncio.run(put_all())), (lambda: asyncio.run(get_all()))


def curl_peer(endpoint, bucket, prefix, objects, threads):
    names = [key.rsplit("/", 1)[-1] + str(i) for i, key in enumerate(objects)]
    folder = tempfile.mkdtemp(prefix="s3_bench_curl.")
    atexit.register(shutil.rmtree, folder, True)
    urls = [f"{endpoint}/{bucket}/{prefix}{n}" for n in names]
    put_config, get_config = os.path.join(folder, "put"), os.path.join(folder, "get")
    with open(put_config, "w") as put, open(get_config, "w") as get:
        for i, (url, body) in enumerate(zip(urls, objects.values())):
            path = os.path.join(folder, str(i))
            with open(path, "wb") as file:
                file.write(body)
            put.write(f'url = "{url}"\nupload-file = "{path}"\noutput = "/dev/null"\n')
            get.write(f'url = "{url}"\noutput = "/dev/null"\n')

    def curl(config):
        subprocess.run(["curl", "--silent", "--show-error", "--no-progress-meter", "--fail",
                        "--parallel", "--parallel-max", str(IN_FLIGHT),
                        "--aws-sigv4", f"aws:amz:{REGION}:s3", "--user", f"{KEY_ID}:{SECRET}",
                        "--config", config], check=True)
        return True
    return (lambda: curl(put_config)), (lambda: curl(get_config))


def export_peer(endpoint, bucket, prefix, objects, threads):
    import pyarrow.ipc
    import s3fs
    fs = s3fs.S3FileSystem(endpoint_url=endpoint, key=KEY_ID, secret=SECRET,
                           client_kwargs={"region_name": REGION})
    names = [key.split("/export/", 1)[-1] for key in objects]

    def write():
        fs.pipe({f"{bucket}/{prefix}{n}": b for n, b in zip(names, objects.values())})

    def read():
        blocks = 0
        for name in names:
            if name.endswith(".arrow"):
                with fs.open(f"{bucket}/{prefix}{name}", "rb") as file:
                    blocks += pyarrow.ipc.open_file(file).read_all().num_rows
                fs.cat(f"{bucket}/{prefix}{name[:-6]}.csv")
        return blocks
    return write, read


def main():
    mode, endpoint, bucket, prefix, runs, threads, arg = sys.argv[1:8]
    inner, shard = (int(sys.argv[8]), int(sys.argv[9])) if len(sys.argv) > 9 else (64, 256)
    # TensorStore and obstore find credentials where the AWS tools look first.
    os.environ.update({"AWS_ACCESS_KEY_ID": KEY_ID, "AWS_SECRET_ACCESS_KEY": SECRET,
                       "AWS_REGION": REGION})
    runs, threads = int(runs), int(threads)
    result = {"write_seconds": [], "read_seconds": [], "write_requests": 0, "read_requests": 0,
              "read_cpu": [], "server_cpu": []}
    if mode in ("zarr-s3fs", "zarr-obstore", "zarr-zarrs", "tensorstore"):
        volume = np.load(arg)
        check = lambda got: np.array_equal(got, volume)
    else:
        keys = json.load(open(arg))
        objects = fetch(endpoint, bucket, keys)
        check = lambda got: got is not None
    for run in range(runs):
        run_prefix = f"{prefix}{mode}-{run}/"
        if mode in ("zarr-s3fs", "zarr-obstore", "zarr-zarrs"):
            write, read = zarr_peer(mode, endpoint, bucket, run_prefix, volume, threads, inner, shard)
        elif mode == "tensorstore":
            write, read = tensorstore_peer(endpoint, bucket, run_prefix, volume, threads, inner,
                                           shard)
        elif mode == "boto3-raw":
            write, read = boto3_peer(endpoint, bucket, run_prefix, objects, threads)
        elif mode == "obstore-raw":
            write, read = obstore_peer(endpoint, bucket, run_prefix, objects, threads)
        elif mode == "curl-raw":
            write, read = curl_peer(endpoint, bucket, run_prefix, objects, threads)
        elif mode == "export-pyarrow":
            write, read = export_peer(endpoint, bucket, run_prefix, objects, threads)
        else:
            raise SystemExit(f"unknown mode {mode}")
        seconds, requests, _ = timed(endpoint, write)
        result["write_seconds"].append(seconds)
        result["write_requests"] = requests
        seconds, requests, got = timed(endpoint, read, result)
        result["read_seconds"].append(seconds)
        result["read_requests"] = requests
        if run == 0 and not check(got):
            raise SystemExit(f"{mode}: what was read back differs from what was written")
        if mode == "export-pyarrow":
            result["blocks"] = got
        clear(endpoint, bucket, run_prefix)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
