"""What each S3 client sends to moto, request by request, and what moto spends on it.

    s3_request_log.py serve --state FILE --log LOG.jsonl
        moto (the test suite's counting server) with every request logged as a
        JSON line to LOG.jsonl: method, path, query, headers, the client's
        connection (its port), the request's head in bytes, when its handling
        began and ended, and the CPU seconds of the server thread that handled
        it (from the request line read to the reply's last byte written; GIL
        waits are not CPU). FILE gets {"endpoint", "pid"} as s3_bench's --state reads it.
    s3_request_log.py summary LOG.jsonl [--since N] [--path-contains TEXT]
        per client (by User-Agent): requests by method and status,
        connections, header names, Range headers, query names, mean head size
        and the mean server CPU per request.
    s3_request_log.py shapes LOG.jsonl NAME=PATH_TEXT ...
        prints {NAME: headers} of the first logged GET whose path holds
        PATH_TEXT: the request shape each client sends.
    s3_request_log.py replay ENDPOINT SHAPES.json [--count N] [--rounds R] [--size B] [--log LOG]
        PUTs one object of B bytes, then GETs it N times, one at a time, with
        each shape's headers verbatim (a shape with "_method": "PUT" PUTs the
        object's bytes instead), shapes alternating over R rounds, and
        prints the server process's CPU per GET (/proc of the pid that
        S3_BENCH_SERVER_PID names) and, with --log (the serve command's log),
        the median CPU of the server thread that handled each GET: moto's
        price of each request shape.
    s3_request_log.py inprocess SHAPES.json [--count N] [--rounds R] [--size B]
        the same GETs through moto's WSGI application in this process (no
        sockets, no threads): what moto's S3 code alone spends per shape.
"""
import argparse
import collections
import http.client
import json
import os
import random
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "support"))

REGION = "us-east-1"
BUCKET = "chunkwise-test"


def serve(state_path, log_path):
    import boto3
    import s3_test_server
    from moto.moto_server.threaded_moto_server import ThreadedMotoServer
    from moto.moto_server.werkzeug_app import (DomainDispatcherApplication, MotoRequestHandler,
                                               create_backend_app)
    from werkzeug.serving import make_server

    log = open(log_path, "a", buffering=1)
    log_lock = threading.Lock()
    current = threading.local()

    class LoggingApp:
        def __init__(self, app):
            self.app = app

        def __call__(self, environ, start_response):
            record = {
                "method": environ.get("REQUEST_METHOD"),
                "path": environ.get("PATH_INFO"),
                "query": environ.get("QUERY_STRING", ""),
                "protocol": environ.get("SERVER_PROTOCOL"),
                "port": environ.get("REMOTE_PORT"),
                "headers": {k[5:].replace("_", "-").lower(): v for k, v in environ.items()
                            if k.startswith("HTTP_")},
            }
            for key in ("CONTENT_LENGTH", "CONTENT_TYPE"):
                if environ.get(key):
                    record["headers"][key.replace("_", "-").lower()] = environ[key]

            def start(status, headers, exc_info=None):
                record["status"] = int(status.split()[0])
                record["reply_headers"] = [name.lower() for name, _ in headers]
                return start_response(status, headers, exc_info)

            current.record = record
            return self.app(environ, start)

    class LoggingHandler(MotoRequestHandler):
        def handle_one_request(self):
            current.record = None
            cpu, start = time.thread_time(), time.time()
            super().handle_one_request()
            cpu, end = time.thread_time() - cpu, time.time()
            record = current.record
            if record is None:
                return
            record["cpu"] = cpu
            record["start"], record["end"] = start, end
            record["head_bytes"] = len(self.requestline) + 2 + sum(
                len(k) + len(v) + 4 for k, v in self.headers.items()) + 2
            record["close"] = bool(self.close_connection)
            with log_lock:
                log.write(json.dumps(record) + "\n")

    class Server(ThreadedMotoServer):
        def _server_entry(self):
            app = LoggingApp(s3_test_server.CountingApp(
                DomainDispatcherApplication(create_backend_app)))
            self._server = make_server(self._ip_address, self._port, app, True,
                                       request_handler=LoggingHandler)
            self._server_ready_event.set()
            self._server.serve_forever()

    server = Server(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    port = server.get_host_and_port()[1]
    endpoint = f"http://127.0.0.1:{port}"
    boto3.client("s3", endpoint_url=endpoint, region_name=REGION, aws_access_key_id="testing",
                 aws_secret_access_key="testing").create_bucket(Bucket=BUCKET)
    temporary = Path(state_path + ".tmp")
    temporary.write_text(json.dumps({"endpoint": endpoint, "pid": os.getpid(), "region": REGION}))
    temporary.replace(state_path)
    while True:
        time.sleep(3600)


def summary(log_path, since, path_contains):
    clients = collections.OrderedDict()
    with open(log_path) as log:
        for number, line in enumerate(log):
            if number < since:
                continue
            record = json.loads(line)
            if path_contains and path_contains not in record["path"]:
                continue
            if record["path"] == "/__counts__":
                continue
            agent = record["headers"].get("user-agent", "(none)").split()[0]
            clients.setdefault(agent, []).append(record)
    for agent, records in clients.items():
        methods = collections.Counter(f'{r["method"]} {r.get("status")}' for r in records)
        ports = {r["port"] for r in records}
        names = collections.Counter(name for r in records for name in r["headers"])
        ranges = collections.Counter(
            "none" if "range" not in r["headers"] else
            ("bytes=0-" if r["headers"]["range"] == "bytes=0-" else
             r["headers"]["range"].split("=")[0] + "=a-b") for r in records)
        queries = collections.Counter(
            ",".join(sorted(kv.split("=")[0] for kv in r["query"].split("&") if kv)) or "-"
            for r in records)
        gets = [r for r in records if r["method"] == "GET" and "list-type" not in r["query"]]
        cpu = sorted(r["cpu"] for r in gets)
        print(f"== {agent}: {len(records)} requests on {len(ports)} connections"
              f" ({sum(r['close'] for r in records)} closed by the reply)")
        print("   methods:", dict(methods))
        print("   queries:", dict(queries))
        print("   range:", dict(ranges))
        print("   headers:", {name: count for name, count in names.items()})
        print("   protocol:", dict(collections.Counter(r["protocol"] for r in records)))
        if gets:
            sample = gets[0]
            print("   a GET:", sample["method"], sample["path"], sample["query"])
            for name, value in sample["headers"].items():
                print(f"      {name}: {value[:110]}")
            timed = sorted((r["start"], r["end"]) for r in gets if "start" in r)
            if timed:
                span = max(end for _, end in timed) - timed[0][0]
                busy, reach = 0.0, timed[0][0]
                for start, end in timed:
                    busy += max(0.0, end - max(start, reach))
                    reach = max(reach, end)
                print(f"   GETs over {span:.2f} s: moto handling one or more {100 * busy / span:.0f}%"
                      f" of it, {sum(e - s for s, e in timed) / span:.1f} at once on average,"
                      f" handler CPU {sum(r['cpu'] for r in gets) / span:.2f} s per s")
            print(f"   GETs {len(gets)}: head bytes mean {sum(r['head_bytes'] for r in gets) / len(gets):.0f};"
                  f" server thread CPU per GET mean {1e3 * sum(cpu) / len(cpu):.3f} ms,"
                  f" median {1e3 * cpu[len(cpu) // 2]:.3f} ms")


def shapes(log_path, picks):
    """One logged GET per NAME=PATH_TEXT: its headers, as the client sent them."""
    found = {}
    with open(log_path) as log:
        for line in log:
            record = json.loads(line)
            for pick in picks:
                name, text = pick.split("=", 1)
                if (name not in found and record["method"] == "GET" and text in record["path"]
                        and record.get("status") in (200, 206)):
                    found[name] = {k: v for k, v in record["headers"].items()
                                   if k not in ("host", "content-length")}
    print(json.dumps(found, indent=1))


def server_cpu():
    pid = os.environ.get("S3_BENCH_SERVER_PID", "0")
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def logged_cpu(log_path, offset):
    """The server threads' CPU seconds of the GETs logged past `offset`, and the new offset."""
    if not log_path:
        return [], 0
    with open(log_path) as log:
        log.seek(offset)
        records = [json.loads(line) for line in log]
        return [r["cpu"] for r in records if r["method"] in ("GET", "PUT")], log.tell()


def replay(endpoint, shapes_path, count, rounds, size, log_path):
    """GETs of one object, one at a time, with each shape's headers verbatim
    (moto does not check signatures), the shapes alternating round by round;
    prints the server process's CPU per GET (median over rounds)."""
    import boto3
    import numpy as np
    host = endpoint.split("://", 1)[1]
    shape_headers = json.load(open(shapes_path))
    key = "replay/object"
    body = np.random.default_rng(0).integers(0, 256, size, dtype=np.uint8).tobytes()
    boto3.client("s3", endpoint_url=endpoint, region_name=REGION, aws_access_key_id="testing",
                 aws_secret_access_key="testing").put_object(Bucket=BUCKET, Key=key, Body=body)
    path = f"/{BUCKET}/{key}"
    figures = {name: {"server": [], "wall": [], "thread": []} for name in shape_headers}
    _, offset = logged_cpu(log_path, 0)
    order = list(shape_headers)
    for round_number in range(rounds):
        random.Random(round_number).shuffle(order)  # No shape always follows another.
        for name in order:
            headers = dict(shape_headers[name])
            method = headers.pop("_method", "GET")  # "PUT": PUTs of the object's bytes.
            connection = http.client.HTTPConnection(host)
            before = server_cpu()
            start = time.perf_counter()
            for _ in range(count):
                connection.request(method, path, headers=headers,
                                   body=body if method == "PUT" else None)
                reply = connection.getresponse()
                got = reply.read()
                if reply.status not in (200, 206) or (method == "GET" and len(got) != size):
                    raise SystemExit(f"{name}: {method} {path}: {reply.status}, {len(got)} bytes")
            figures[name]["wall"].append(1e3 * (time.perf_counter() - start) / count)
            figures[name]["server"].append(1e3 * (server_cpu() - before) / count)
            connection.close()
            time.sleep(0.05)  # The log's last line written.
            cpu, offset = logged_cpu(log_path, offset)
            figures[name]["thread"] += cpu
    for name, figure in figures.items():
        server = sorted(figure["server"])
        print(f"{name:14s} server CPU ms/GET median {server[len(server) // 2]:.3f} "
              f"(rounds {' '.join(f'{x:.3f}' for x in figure['server'])}); "
              f"wall ms/GET median {sorted(figure['wall'])[len(server) // 2]:.3f}" +
              (f"; handler thread CPU ms/GET median {1e3 * statistics.median(figure['thread']):.3f}"
               f" mean {1e3 * statistics.mean(figure['thread']):.3f} of {len(figure['thread'])}"
               if figure["thread"] else ""))


def in_process(shapes_path, count, rounds, size):
    """moto's WSGI application called in this process (werkzeug's test client,
    no sockets, no threads): the CPU of what moto does with each shape alone."""
    from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
    from werkzeug.test import Client
    shape_headers = json.load(open(shapes_path))
    client = Client(DomainDispatcherApplication(create_backend_app))
    signed = next(iter(shape_headers.values()))
    setup = {k: v for k, v in signed.items() if k != "range"}
    client.put(f"/{BUCKET}", headers=setup)
    body = random.Random(0).randbytes(size)
    client.put(f"/{BUCKET}/replay/object", data=body, headers=setup)
    cpu = {name: [] for name in shape_headers}
    order = list(shape_headers)
    for round_number in range(rounds):
        random.Random(round_number).shuffle(order)
        for name in order:
            headers = dict(shape_headers[name], host="127.0.0.1:5000")
            start = time.thread_time()
            for _ in range(count):
                reply = client.get(f"/{BUCKET}/replay/object", headers=headers)
                if len(reply.data) != size:
                    raise SystemExit(f"{name}: {reply.status}, {len(reply.data)} bytes")
            cpu[name].append(1e3 * (time.thread_time() - start) / count)
    for name, figures in cpu.items():
        print(f"{name:14s} CPU ms/GET median {statistics.median(figures):.3f}"
              f" (min {min(figures):.3f}, max {max(figures):.3f})")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["serve", "summary", "shapes", "replay", "inprocess"])
    parser.add_argument("args", nargs="*")
    parser.add_argument("--state")
    parser.add_argument("--log")
    parser.add_argument("--since", type=int, default=0)
    parser.add_argument("--path-contains", default="")
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--size", type=int, default=43000)
    args = parser.parse_args()
    if args.command == "serve":
        return serve(args.state, args.log)
    if args.command == "summary":
        return summary(args.args[0], args.since, args.path_contains)
    if args.command == "shapes":
        return shapes(args.args[0], args.args[1:])
    if args.command == "inprocess":
        return in_process(args.args[0], args.count, args.rounds, args.size)
    return replay(args.args[0], args.args[1], args.count, args.rounds, args.size, args.log)


if __name__ == "__main__":
    main()
