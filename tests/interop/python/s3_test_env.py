"""The S3 test servers (tests/support/s3_test_server.py) as each client sees them.

One place for the endpoint, credentials and region that the CLI (through the
environment the AWS tools read), boto3, s3fs, zarr-python and TensorStore are
given. Standard library only at import time: the peers are imported where a
function needs them, so scripts run by Debian's python3 can use it too.
"""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

BUCKET = "chunkwise-test"
SERVER = Path(__file__).resolve().parents[2] / "support" / "s3_test_server.py"


def load_state(state_path, start=False):
    """The servers' state file; with start, starts them first if none runs."""
    if start and not Path(state_path).exists():
        subprocess.run([sys.executable, SERVER, "start", "--state", state_path], check=True,
                       stdout=subprocess.DEVNULL)
    return json.loads(Path(state_path).read_text())


def aws_environment(state, home):
    """The variables the AWS tools (and our CLI) read, HOME set to `home` so
    that no ~/.aws of the user's is read."""
    return {"AWS_ENDPOINT_URL_S3": state["endpoint"],
            "AWS_ACCESS_KEY_ID": state["access_key_id"],
            "AWS_SECRET_ACCESS_KEY": state["secret_access_key"],
            "AWS_REGION": state["region"], "HOME": str(home)}


def unique_root(name):
    """A key prefix no other run of any test uses."""
    return f"{name}-{os.getpid()}-{int(time.time() * 1000)}/"


def s3fs_options(state):
    """Storage options as zarr-python's and fsspec's users pass them."""
    return {"endpoint_url": state["endpoint"], "key": state["access_key_id"],
            "secret": state["secret_access_key"],
            "client_kwargs": {"region_name": state["region"]}}


def s3fs_filesystem(state):
    import s3fs
    return s3fs.S3FileSystem(skip_instance_cache=True, **s3fs_options(state))


def boto3_client(state):
    import boto3
    return boto3.client("s3", endpoint_url=state["endpoint"], region_name=state["region"],
                        aws_access_key_id=state["access_key_id"],
                        aws_secret_access_key=state["secret_access_key"])


def tensorstore_kvstore(state, path, bucket=BUCKET):
    """TensorStore's s3 kvstore with an endpoint override; credentials from the environment."""
    return {"driver": "s3", "bucket": bucket, "path": path, "endpoint": state["endpoint"],
            "aws_region": state["region"], "aws_credentials": {"type": "environment"}}
