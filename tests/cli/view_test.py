"""`chunkwise view` end to end without a browser (#39), on 127.0.0.1 only: the
link it prints serves the client's page and the data from one address, its
fragment holds the state (one image layer whose contrast is the data's, not
the type's), the client's event stream stays open, the client folder comes
from --client-dir or CHUNKWISE_NEUROGLANCER_CLIENT, SIGTERM ends it with 0;
a path that does not exist, or a client folder without index.html, is
NotFound naming it, with exit code 1. `chunkwise serve` links to no client
on another machine unless given --client, and names the `chunkwise view`
command line instead. Standard library only (the client here
is a stand-in index.html; tests/interop/python/view_browser.py runs the real one).

    view_test.py --chunkwise BIN --workdir DIR
"""
import argparse
import json
import os
import pathlib
import shutil
import signal
import socket
import struct
import subprocess
import sys
import urllib.parse
import urllib.request


class Checks:
    def __init__(self):
        self.failures = 0

    def expect(self, ok, what):
        print(("ok    " if ok else "FAIL  ") + what, flush=True)
        if not ok:
            self.failures += 1

    def finish(self):
        print(f"{self.failures} failure(s)")
        sys.exit(1 if self.failures else 0)


def write_npy(path, shape, values):
    """A little-endian uint16 .npy of `shape` holding `values` (C order)."""
    header = "{'descr': '<u2', 'fortran_order': False, 'shape': (%s), }" % "".join(f"{n}, " for n in shape)
    header += " " * (63 - (len(header) + 10) % 64) + "\n"
    path.write_bytes(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() +
                     struct.pack(f"<{len(values)}H", *values))


def make_data(binary, work):
    """A (4, 16, 32) uint16 array whose values run 1000..1200 along x."""
    array = work / "img.zarr"
    values = [1000 + round(200 * x / 31) for _ in range(4 * 16) for x in range(32)]
    write_npy(work / "img.npy", (4, 16, 32), values)
    for args in (["zarr", "create", array, "--shape", "4,16,32", "--dtype", "uint16", "--chunk", "4,16,16",
                  "--dimension-names", "z,y,x"], ["zarr", "write", array, "--input", work / "img.npy"]):
        subprocess.run([str(binary), "--quiet", *map(str, args)], check=True)
    client = work / "client"
    client.mkdir()
    (client / "index.html").write_text("<html>stand-in client</html>")
    return array, client


def start(binary, *args, env=None):
    process = subprocess.Popen([str(binary), "view", *map(str, args)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=env)
    lines = []
    for line in process.stdout:
        lines.append(line.rstrip())
        if line.startswith("neuroglancer: "):
            break
    return process, lines


def get(url):
    with urllib.request.urlopen(url, timeout=10) as answer:
        return answer.read()


def check_event_stream(checks, base):
    """The client's state channel: 200 text/event-stream, kept open."""
    host, port = urllib.parse.urlsplit(base).hostname, urllib.parse.urlsplit(base).port
    with socket.create_connection((host, port), timeout=5) as sock:
        sock.sendall(b"GET /events/chunkwise?c=1 HTTP/1.1\r\nHost: x\r\n\r\n")
        head = b""
        while b"\r\n\r\n" not in head:
            head += sock.recv(4096)
        checks.expect(head.startswith(b"HTTP/1.1 200") and b"text/event-stream" in head,
                      "the client's event stream answers 200 text/event-stream")
        sock.settimeout(1.5)
        try:
            more = sock.recv(4096)
            still_open = more != b"" and b"data:" not in more
        except socket.timeout:
            still_open = True
        checks.expect(still_open, "the event stream stays open and sends no event")


def serve_lines(binary, root, *extra):
    """What `chunkwise serve ROOT --port 0 EXTRA` prints before it waits for Ctrl-C."""
    process = subprocess.Popen([str(binary), "serve", str(root), "--port", "0", *map(str, extra)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines = []
    try:
        for line in process.stdout:
            lines.append(line.rstrip())
            if line.startswith("Ctrl-C"):
                break
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=10)
    return lines


def check_serve_link(checks, binary, array):
    """serve names the local viewer by default and links only to a client it is given."""
    lines = serve_lines(binary, array.parent)
    links = [word for line in lines for word in line.split() if "://" in word]
    checks.expect(links and all("127.0.0.1" in link for link in links),
                  f"serve without --client links nowhere but this machine ({links})")
    checks.expect(any(f"chunkwise view {array.parent} " in line for line in lines),
                  f"serve names the view command line for what it serves ({lines})")
    lines = serve_lines(binary, array.parent, "--client", "https://ng.example.org/")
    checks.expect(any(line.startswith("neuroglancer: https://ng.example.org/#!") for line in lines),
                  f"serve --client URL links to that client ({lines[-2:]})")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunkwise", required=True, type=pathlib.Path)
    parser.add_argument("--workdir", required=True, type=pathlib.Path)
    args = parser.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    args.workdir.mkdir(parents=True)
    checks = Checks()
    array, client = make_data(args.chunkwise, args.workdir)

    process, lines = start(args.chunkwise, array, "--port", "0", "--client-dir", client)
    try:
        print("\n".join(lines))
        base = lines[0].split(" at ", 1)[1] if lines and " at " in lines[0] else ""
        link = lines[-1].split(" ", 1)[1] if lines and lines[-1].startswith("neuroglancer: ") else ""
        checks.expect(base.startswith("http://127.0.0.1:"), f"the first line names the address ({base})")
        checks.expect(link.startswith(base + "v/chunkwise/index.html#!"), "the link opens the served client")
        checks.expect(get(link.split("#", 1)[0]) == b"<html>stand-in client</html>", "the client's page is served")
        checks.expect(b'"uint16"' in get(base + "data/0/zarr.json"), "the data is served under data/0/")
        state = json.loads(urllib.parse.unquote(link.split("#!", 1)[1]))
        layers = state["layers"]
        checks.expect(len(layers) == 1 and layers[0]["type"] == "image"
                      and layers[0]["source"] == f"zarr3://{base}data/0/", f"one image layer on the data ({layers})")
        low, high = layers[0]["shaderControls"]["normalized"]["range"]
        checks.expect(1000 <= low <= 1010 and 1190 <= high <= 1200,
                      f"the contrast is the data's 1st..99th percentile, not 0..65535 ({low}..{high})")
        checks.expect(any(f"contrast {low:g}..{high:g}" in line for line in lines), "the contrast is printed")
        checks.expect(state["position"] == [16, 8, 2], f"the position is the data's centre ({state['position']})")
        check_event_stream(checks, base)
    finally:
        process.send_signal(signal.SIGTERM)
        code = process.wait(timeout=10)
    checks.expect(code == 0, f"SIGTERM ends it with exit code 0 ({code})")
    errors = process.stderr.read()
    checks.expect("done" not in errors, f"reading the contrast prints no progress summaries ({errors!r})")

    env = dict(os.environ, CHUNKWISE_NEUROGLANCER_CLIENT=str(client))
    process, lines = start(args.chunkwise, array, "--port", "0", env=env)
    process.terminate()
    process.wait(timeout=10)
    checks.expect(any(line.startswith("neuroglancer: ") for line in lines),
                  "CHUNKWISE_NEUROGLANCER_CLIENT names the client folder when --client-dir is not given")

    check_serve_link(checks, args.chunkwise, array)

    missing = args.workdir / "no-such.zarr"
    result = subprocess.run([str(args.chunkwise), "view", str(missing), "--client-dir", str(client)],
                            capture_output=True, text=True, timeout=60)
    checks.expect(result.returncode == 1 and "NotFound" in result.stderr and str(missing) in result.stderr,
                  f"a missing path is NotFound naming it, exit 1 ({result.returncode}: {result.stderr.strip()})")
    result = subprocess.run([str(args.chunkwise), "view", str(array), "--client-dir", str(args.workdir)],
                            capture_output=True, text=True, timeout=60)
    checks.expect(result.returncode == 1 and "NotFound" in result.stderr and "index.html" in result.stderr,
                  f"a client folder without index.html is NotFound ({result.stderr.strip()})")

    # No flag, no variable, and a python3 that imports no neuroglancer: the library's
    # message says how to get a client, and this door adds its own flag.
    fake_bin = args.workdir / "fake-bin"
    fake_bin.mkdir(exist_ok=True)
    (fake_bin / "python3").write_text("#!/bin/sh\nexit 1\n")
    (fake_bin / "python3").chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k != "CHUNKWISE_NEUROGLANCER_CLIENT"}
    env["PATH"] = str(fake_bin)
    result = subprocess.run([str(args.chunkwise), "view", str(array)],
                            capture_output=True, text=True, timeout=60, env=env)
    checks.expect(result.returncode == 1 and "NotFound" in result.stderr
                  and "pip install neuroglancer" in result.stderr
                  and "CHUNKWISE_NEUROGLANCER_CLIENT" in result.stderr
                  and result.stderr.count("--client-dir") == 1,
                  f"no client anywhere is NotFound naming the package, the variable and the flag once "
                  f"({result.returncode}: {result.stderr.strip()})")
    checks.finish()


if __name__ == "__main__":
    main()
