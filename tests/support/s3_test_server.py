"""S3-protocol servers on loopback for the tests, and a proxy that injects faults.

    s3_test_server.py start --state FILE   start the servers in the background,
                                           write their addresses to FILE (JSON)
    s3_test_server.py stop --state FILE    stop them
    s3_test_server.py serve --state FILE   run in the foreground (what start runs)

What runs (all on 127.0.0.1, ports chosen by the kernel):
  moto     moto's ThreadedMotoServer (a real S3 protocol implementation), which
           also answers GET /__counts__ with the requests it served by method
           ({"GET": n, ...}; the benchmarks count requests with it), with
           the buckets "chunkwise-test", "chunkwise-versioned" (versioning on)
           and "chunkwise-public" (anyone may read and list; it holds
           "public/hello.txt").
  proxy    a keep-alive HTTP/1.1 proxy in front of moto that passes requests on
           unchanged, counts them (per operation) and the client connections,
           and injects the faults the tests ask for (see Faults below).
  signing  a second moto that checks every request's AWS Signature V4 with
           botocore, for the access key it lists; bucket "chunkwise-signed".
  http     a plain HTTP/1.1 file server with Range, HEAD, ETag and If-Match, for
           the files under "http_root" (the state file's name + ".http_root").

The proxy's own endpoints, under /__proxy__/:
  POST /__proxy__/faults   JSON list of rules; each request takes the first
                           rule that matches and still has times left:
                           {"op": "GetObject" | "PutObject" | "UploadPart" | ... | "*",
                            "action": "503" | "500" | "429" | "slowdown" | "reset" |
                                                 "truncate" | "stall" | "reset-after" | "region" |
                                                 "delay",
                            "times": N (default 1), "probability": p (default 1),
                            "seconds": stall or delay time (default 5)}
                           reset: close the connection before answering;
                           reset-after: pass the request on, then close
                           without answering; truncate: send the reply's
                           headers and half its body, then close; stall: send
                           the headers and half the body, then wait `seconds`;
                           delay: wait `seconds` before passing the request on
                           (a round trip to a distant server; with a large
                           "times", the benchmarks' latency);
                           region: answer 301 PermanentRedirect naming the
                           rule's "region" in x-amz-bucket-region, as S3 does
                           for a bucket in another region.
  GET  /__proxy__/stats    {"ops": {op: count}, "connections": n, "faults": n,
                            "regions": {region signed for: count}}
  POST /__proxy__/reset    clears the rules and the counts.
"""
import argparse
import asyncio
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote

REGION = "us-east-1"
BUCKETS = ["chunkwise-test", "chunkwise-versioned", "chunkwise-public"]
PUBLIC_READ = {"Version": "2012-10-17", "Statement": [{
    "Effect": "Allow", "Principal": "*", "Action": ["s3:GetObject", "s3:ListBucket"],
    "Resource": ["arn:aws:s3:::chunkwise-public", "arn:aws:s3:::chunkwise-public/*"]}]}
SIGNED_BUCKET = "chunkwise-signed"


def operation(method, path, query):
    """The S3 operation a request is, by method, path and query (enough for the tests)."""
    names = {kv.split("=", 1)[0] for kv in query.split("&") if kv}
    object_level = path.strip("/").count("/") >= 1
    if method == "POST" and "uploads" in names:
        return "CreateMultipartUpload"
    if method == "POST" and "uploadId" in names:
        return "CompleteMultipartUpload"
    if method == "DELETE" and "uploadId" in names:
        return "AbortMultipartUpload"
    if method == "PUT" and "partNumber" in names:
        return "UploadPart"
    if method == "POST" and "delete" in names:
        return "DeleteObjects"
    if method == "GET" and "list-type" in names:
        return "ListObjectsV2"
    if method == "GET" and "uploads" in names:
        return "ListMultipartUploads"
    if not object_level:
        return {"HEAD": "HeadBucket", "PUT": "CreateBucket", "GET": "ListObjects"}.get(method, method + "Bucket")
    return {"GET": "GetObject", "HEAD": "HeadObject", "PUT": "PutObject", "DELETE": "DeleteObject"}.get(
        method, method + "Object")


class Proxy:
    def __init__(self, upstream_port):
        self.upstream_port = upstream_port
        self.rules = []
        self.ops = {}
        self.connections = 0
        self.faults = 0
        self.regions = {}
        self.lock = threading.Lock()

    def take_rule(self, op):
        with self.lock:
            self.ops[op] = self.ops.get(op, 0) + 1
            for rule in self.rules:
                if rule.get("times", 1) <= 0 or rule.get("op", "*") not in ("*", op):
                    continue
                if random.random() >= rule.get("probability", 1.0):
                    continue
                rule["times"] = rule.get("times", 1) - 1
                self.faults += 1
                return rule
        return None

    async def control(self, method, path, body, writer):
        if path == "/__proxy__/faults" and method == "POST":
            rules = json.loads(body or b"[]")
            if not isinstance(rules, list) or not all(isinstance(rule, dict) for rule in rules):
                writer.write(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
                return
            with self.lock:
                self.rules = rules
            reply = b"{}"
        elif path == "/__proxy__/reset" and method == "POST":
            with self.lock:
                self.rules, self.ops, self.connections, self.faults, self.regions = [], {}, 0, 0, {}
            reply = b"{}"
        elif path == "/__proxy__/stats":
            with self.lock:
                reply = json.dumps({"ops": self.ops, "connections": self.connections,
                                    "faults": self.faults, "regions": self.regions}).encode()
        else:
            writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
            return
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
                     % (len(reply), reply))

    async def forward(self, head_lines, body):
        reader, writer = await asyncio.open_connection("127.0.0.1", self.upstream_port)
        kept = [line for line in head_lines[1:]
                if not line.lower().startswith((b"expect:", b"connection:"))]
        writer.write(b"\r\n".join([head_lines[0]] + kept + [b"Connection: close", b"", b""]) + body)
        await writer.drain()
        reply = await reader.read(-1)
        writer.close()
        head, _, reply_body = reply.partition(b"\r\n\r\n")
        return head.split(b"\r\n"), reply_body

    async def handle(self, reader, writer):
        with self.lock:
            self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head[:-4].split(b"\r\n")
                method, target, _ = lines[0].decode("latin-1").split(" ", 2)
                headers = {}
                for line in lines[1:]:
                    name, _, value = line.decode("latin-1").partition(":")
                    headers[name.strip().lower()] = value.strip()
                length = int(headers.get("content-length", "0"))
                path, _, query = target.partition("?")
                if path.startswith("/__proxy__/"):
                    body = await reader.readexactly(length)
                    await self.control(method, path, body, writer)
                    await writer.drain()
                    continue
                scope = re.search(r"Credential=[^/]+/\d+/([^/]+)/", headers.get("authorization", ""))
                if scope:
                    with self.lock:
                        self.regions[scope.group(1)] = self.regions.get(scope.group(1), 0) + 1
                rule = self.take_rule(operation(method, path, query))
                action = rule["action"] if rule else None
                if action == "reset":
                    writer.transport.abort()
                    return
                if headers.get("expect", "").lower() == "100-continue":
                    writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
                    await writer.drain()
                body = await reader.readexactly(length)
                if action in ("503", "500", "429", "slowdown"):
                    code, text = {"503": (503, "ServiceUnavailable"), "500": (500, "InternalError"),
                                  "429": (429, "TooManyRequests"), "slowdown": (503, "SlowDown")}[action]
                    xml = (f"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>{text}</Code>"
                           f"<Message>injected by the test proxy</Message></Error>").encode()
                    writer.write(b"HTTP/1.1 %d Injected\r\nContent-Type: application/xml\r\n"
                                 b"Content-Length: %d\r\n\r\n%s" % (code, len(xml), xml))
                    await writer.drain()
                    continue
                if action == "region":
                    xml = b"<Error><Code>PermanentRedirect</Code><Message>another region</Message></Error>"
                    writer.write(b"HTTP/1.1 301 Moved Permanently\r\nx-amz-bucket-region: %s\r\n"
                                 b"Content-Type: application/xml\r\nContent-Length: %d\r\n\r\n%s"
                                 % (rule["region"].encode(), len(xml), xml))
                    await writer.drain()
                    continue
                if action == "delay":
                    await asyncio.sleep(float(rule.get("seconds", 5)))
                reply_head, reply_body = await self.forward(lines, body)
                if action == "reset-after":
                    writer.transport.abort()
                    return
                out_head = [line for line in reply_head if not line.lower().startswith(b"connection:")]
                if method != "HEAD" and not any(l.lower().startswith(b"content-length:") for l in out_head):
                    out_head.append(b"Content-Length: %d" % len(reply_body))
                writer.write(b"\r\n".join(out_head) + b"\r\n\r\n")
                if action in ("truncate", "stall") and method != "HEAD":
                    writer.write(reply_body[: len(reply_body) // 2])
                    await writer.drain()
                    if action == "stall":
                        await asyncio.sleep(float(rule.get("seconds", 5)))
                    writer.transport.abort()
                    return
                if method != "HEAD":
                    writer.write(reply_body)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


def start_proxy(upstream_port):
    proxy = Proxy(upstream_port)
    ready = threading.Event()
    box = {}

    def run():
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        server = loop.run_until_complete(asyncio.start_server(proxy.handle, "127.0.0.1", 0))
        box["port"] = server.sockets[0].getsockname()[1]
        ready.set()
        loop.run_forever()

    threading.Thread(target=run, daemon=True).start()
    ready.wait()
    return box["port"]


class RangeFileHandler(BaseHTTPRequestHandler):
    """Serves the files under ROOT with single byte ranges, ETags and If-Match."""
    protocol_version = "HTTP/1.1"
    root = None

    def log_message(self, *args):
        pass

    def send_plain(self, status, body=b"", headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        relative = unquote(self.path.split("?", 1)[0]).lstrip("/")
        path = (self.root / relative).resolve()
        if self.root not in path.parents or not path.is_file():
            return self.send_plain(404, b"not found")
        info = path.stat()
        size = info.st_size
        etag = f'"{size:x}-{info.st_mtime_ns:x}"'
        if_match = self.headers.get("If-Match")
        if if_match and if_match != etag and if_match != "*":
            return self.send_plain(412, b"precondition failed", [("ETag", etag)])
        first, last = 0, size - 1
        status = 200
        ranged = self.headers.get("Range")
        if ranged:
            match = re.fullmatch(r"bytes=(\d*)-(\d*)", ranged.strip())
            if not match or (match.group(1) == "" and match.group(2) == ""):
                return self.send_plain(416, b"", [("Content-Range", f"bytes */{size}")])
            if match.group(1) == "":
                suffix = int(match.group(2))
                first, last = max(0, size - suffix), size - 1
                if suffix == 0 or size == 0:
                    return self.send_plain(416, b"", [("Content-Range", f"bytes */{size}")])
            else:
                first = int(match.group(1))
                last = min(int(match.group(2)), size - 1) if match.group(2) else size - 1
                if first >= size or last < first:
                    return self.send_plain(416, b"", [("Content-Range", f"bytes */{size}")])
            status = 206
        with open(path, "rb") as file:
            file.seek(first)
            body = file.read(last - first + 1)
        headers = [("ETag", etag), ("Accept-Ranges", "bytes"), ("Content-Type", "application/octet-stream")]
        if status == 206:
            headers.append(("Content-Range", f"bytes {first}-{last}/{size}"))
        self.send_plain(status, body, headers)


def start_http_server(root):
    root.mkdir(parents=True, exist_ok=True)
    handler = type("Handler", (RangeFileHandler,), {"root": root.resolve()})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server.server_address[1]


def start_signing_moto():
    """A moto that checks signatures; returns (process, port, key id, secret)."""
    env = dict(os.environ, INITIAL_NO_AUTH_ACTION_COUNT="4")
    process = subprocess.Popen([sys.executable, __file__, "signing-child"], env=env,
                               stdout=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    info = json.loads(line)
    return process, info


def signing_child():
    from moto.server import ThreadedMotoServer
    import boto3
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    port = server.get_host_and_port()[1]
    endpoint = f"http://127.0.0.1:{port}"
    # The first four requests go unchecked: they make the user, its key, its policy and the bucket.
    iam = boto3.client("iam", endpoint_url=endpoint, region_name=REGION,
                       aws_access_key_id="setup", aws_secret_access_key="setup")
    iam.create_user(UserName="chunkwise")
    key = iam.create_access_key(UserName="chunkwise")["AccessKey"]
    iam.put_user_policy(UserName="chunkwise", PolicyName="s3", PolicyDocument=json.dumps(
        {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}))
    s3 = boto3.client("s3", endpoint_url=endpoint, region_name=REGION,
                      aws_access_key_id=key["AccessKeyId"], aws_secret_access_key=key["SecretAccessKey"])
    s3.create_bucket(Bucket=SIGNED_BUCKET)
    print(json.dumps({"port": port, "key_id": key["AccessKeyId"], "secret": key["SecretAccessKey"]}),
          flush=True)
    while True:
        time.sleep(3600)


class CountingApp:
    """moto's WSGI application, counting the requests it serves by method."""

    def __init__(self, app):
        self.app, self.counts, self.lock = app, {}, threading.Lock()
        self.conditional_lock = threading.Lock()

    def __call__(self, environ, start_response):
        if environ.get("PATH_INFO") == "/__counts__":
            with self.lock:
                body = json.dumps(self.counts).encode()
            start_response("200 OK", [("Content-Type", "application/json"),
                                      ("Content-Length", str(len(body)))])
            return [body]
        with self.lock:
            method = environ.get("REQUEST_METHOD", "?")
            self.counts[method] = self.counts.get(method, 0) + 1
        if method in ("PUT", "POST", "DELETE") and (
                "HTTP_IF_MATCH" in environ or "HTTP_IF_NONE_MATCH" in environ):
            # moto compares and writes in two steps, not atomically as S3
            # does; conditional writes take turns so that the compare holds.
            with self.conditional_lock:
                return self.app(environ, start_response)
        return self.app(environ, start_response)


def counting_moto_server():
    from moto.moto_server.threaded_moto_server import ThreadedMotoServer
    from moto.moto_server.werkzeug_app import (DomainDispatcherApplication, MotoRequestHandler,
                                               create_backend_app)
    from werkzeug.serving import make_server

    class CountingMotoServer(ThreadedMotoServer):
        def _server_entry(self):
            app = CountingApp(DomainDispatcherApplication(create_backend_app))
            self._server = make_server(self._ip_address, self._port, app, True,
                                       request_handler=MotoRequestHandler)
            self._server_ready_event.set()
            self._server.serve_forever()

    return CountingMotoServer(ip_address="127.0.0.1", port=0, verbose=False)


def serve(state_path):
    import boto3
    server = counting_moto_server()
    server.start()
    port = server.get_host_and_port()[1]
    s3 = boto3.client("s3", endpoint_url=f"http://127.0.0.1:{port}", region_name=REGION,
                      aws_access_key_id="testing", aws_secret_access_key="testing")
    for bucket in BUCKETS:
        s3.create_bucket(Bucket=bucket)
    s3.put_bucket_versioning(Bucket="chunkwise-versioned", VersioningConfiguration={"Status": "Enabled"})
    s3.put_bucket_policy(Bucket="chunkwise-public", Policy=json.dumps(PUBLIC_READ))
    s3.put_object(Bucket="chunkwise-public", Key="public/hello.txt", Body=b"hello, anonymous reader\n")
    proxy_port = start_proxy(port)
    signing, signing_info = start_signing_moto()
    http_root = Path(str(state_path) + ".http_root")
    http_port = start_http_server(http_root)
    state = {
        "pid": os.getpid(),
        "endpoint": f"http://127.0.0.1:{port}",
        "proxy": f"http://127.0.0.1:{proxy_port}",
        "signing": {"endpoint": f"http://127.0.0.1:{signing_info['port']}", "bucket": SIGNED_BUCKET,
                    "key_id": signing_info["key_id"], "secret": signing_info["secret"]},
        "http": f"http://127.0.0.1:{http_port}",
        "http_root": str(http_root.resolve()),
        "region": REGION,
        "access_key_id": "testing",
        "secret_access_key": "testing",
        "buckets": BUCKETS,
    }
    temporary = Path(str(state_path) + ".tmp")
    temporary.write_text(json.dumps(state))
    temporary.replace(state_path)

    def stop(*_):
        signing.terminate()
        Path(state_path).unlink(missing_ok=True)
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    while True:
        time.sleep(3600)


def start(state_path, log_path):
    state_path = Path(state_path)
    state_path.unlink(missing_ok=True)
    with open(log_path, "w") as log:
        subprocess.Popen([sys.executable, __file__, "serve", "--state", str(state_path)],
                         stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                         start_new_session=True)
    deadline = time.time() + 90
    while time.time() < deadline:
        if state_path.exists():
            print(state_path.read_text())
            return 0
        time.sleep(0.1)
    print(f"the S3 test servers did not start in 90 s; see {log_path}", file=sys.stderr)
    return 1


def stop(state_path):
    try:
        state = json.loads(Path(state_path).read_text())
    except FileNotFoundError:
        return 0
    try:
        os.kill(state["pid"], signal.SIGTERM)
    except ProcessLookupError:
        pass
    for _ in range(50):
        if not Path(state_path).exists():
            break
        time.sleep(0.1)
    Path(state_path).unlink(missing_ok=True)
    shutil.rmtree(str(state_path) + ".http_root", ignore_errors=True)
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["start", "stop", "serve", "signing-child"])
    parser.add_argument("--state")
    parser.add_argument("--log")
    args = parser.parse_args()
    if args.command == "signing-child":
        return signing_child()
    if args.command == "serve":
        return serve(args.state)
    if args.command == "start":
        return start(args.state, args.log or args.state + ".log")
    return stop(args.state)


if __name__ == "__main__":
    sys.exit(main())
