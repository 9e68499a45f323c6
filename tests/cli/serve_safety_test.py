"""`chunkwise serve` against hostile clients, end to end (#44), on 127.0.0.1
only: a link out of the served directory and a dot-file answer 404, a
normal client is answered while slow clients hold more connections than the
server has threads, an absurd --threads is refused naming the flag, and
SIGTERM and SIGINT end the server with exit code 0. Every wait is bounded
(socket timeouts, process timeouts), so a server that hangs fails the test.

    serve_safety_test.py --chunkwise BIN --workdir DIR            # the test
    serve_safety_test.py --chunkwise BIN --workdir DIR --measure  # the figures
                                                                  # of docs/reliability.md

--measure prints how long one normal request takes with 0 and with 8 slow
clients against `serve --threads 4` (each slow client sends its request head
one byte every 2 s), capped at 90 s. Standard library only.
"""
import argparse
import os
import pathlib
import select
import shutil
import signal
import socket
import subprocess
import sys
import time


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


def make_tree(work):
    """A served directory with a link out of it and a dot-file; a secret beside it."""
    if work.exists():
        shutil.rmtree(work)
    root = work / "served"
    (root / "vol").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "vol" / "info").write_text('{"a": 1}')
    (root / ".git" / "config").write_text("[core]")
    (work / "secret.txt").write_text("the secret")
    os.symlink(work / "secret.txt", root / "vol" / "leak")
    return root


class Server:
    """`chunkwise serve ROOT --port 0 ...`, its port read from its first line."""

    def __init__(self, binary, root, *extra):
        self.process = subprocess.Popen([str(binary), "serve", str(root), "--port", "0", *extra],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        ready, _, _ = select.select([self.process.stdout], [], [], 60)
        line = self.process.stdout.readline() if ready else ""
        if not line.startswith("serving "):
            self.process.kill()
            raise RuntimeError(f"serve did not start: {line!r} {self.process.stderr.read()[:300]!r}")
        self.port = int(line.strip().rstrip("/").rsplit(":", 1)[1])

    def connect(self, timeout):
        return socket.create_connection(("127.0.0.1", self.port), timeout=timeout)

    def stop(self, sig, timeout=30):
        """Sends `sig`; the exit code, or None if it did not end within `timeout` s."""
        self.process.send_signal(sig)
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            return None


def request(server, target, timeout=10):
    """One GET on a fresh connection: (status line, body), or (None, why)."""
    try:
        with server.connect(timeout) as client:
            client.sendall(f"GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
            answer = b""
            while chunk := client.recv(65536):
                answer += chunk
    except OSError as error:
        return None, str(error)
    head, _, body = answer.partition(b"\r\n\r\n")
    return head.split(b"\r\n")[0].decode(), body.decode(errors="replace")


def hold_half_heads(server, count):
    """`count` connections that send part of a head and wait."""
    held = []
    for _ in range(count):
        client = server.connect(10)
        client.sendall(b"GET /vol/info HTTP/1.1\r\nHo")
        held.append(client)
    return held


def check_refused_threads(checks, binary, root):
    try:
        result = subprocess.run([str(binary), "serve", str(root), "--port", "0", "--threads", "100000"],
                                capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        checks.expect(False, "serve --threads 100000 ends (it ran past 60 s)")
        return
    checks.expect(result.returncode == 1, f"serve --threads 100000 exits 1 (got {result.returncode})")
    checks.expect("threads 100000 is over the limit of 1024" in result.stderr and "--threads" in result.stderr,
                  f"... saying why and naming the flag: {result.stderr.strip()[:200]}")


def check_serving(checks, binary, root):
    server = Server(binary, root, "--threads", "2")
    held = []
    try:
        status, body = request(server, "/vol/leak")
        checks.expect(status == "HTTP/1.1 404 Not Found" and body == 'not found: "vol/leak"\n',
                      f"a link out of the root answers 404 ({status!r} {body!r})")
        status, body = request(server, "/.git/config")
        checks.expect(status == "HTTP/1.1 404 Not Found" and body == 'not found: ".git/config"\n',
                      f"a dot-file answers 404 ({status!r} {body!r})")
        status, body = request(server, "/%2e%2e/secret.txt")
        checks.expect(status == "HTTP/1.1 404 Not Found" and "secret" in body and "the secret" not in body,
                      f"%2e%2e answers 404 ({status!r} {body!r})")
        held = hold_half_heads(server, 6)  # Three per thread.
        started = time.monotonic()
        status, body = request(server, "/vol/info", timeout=10)
        seconds = time.monotonic() - started
        checks.expect(status == "HTTP/1.1 200 OK" and body == '{"a": 1}',
                      f"with 6 slow clients on 2 threads a normal request is answered ({status!r}, "
                      f"{seconds:.2f} s; the bound is 10 s)")
    finally:
        started = time.monotonic()
        code = server.stop(signal.SIGTERM)
        seconds = time.monotonic() - started
        for client in held:
            client.close()
    checks.expect(code == 0, f"SIGTERM with slow clients connected: exit {code} after {seconds:.2f} s "
                             f"(the bound is 30 s)")
    server = Server(binary, root)
    code = server.stop(signal.SIGINT)
    checks.expect(code == 0, f"SIGINT: exit {code}")


def slow_client_latency(binary, root, slow, cap_s=90):
    """Seconds one normal request takes with `slow` clients trickling their heads."""
    server = Server(binary, root, "--threads", "4")
    held = hold_half_heads(server, slow)
    time.sleep(0.5)  # Let the server take them up.
    started = time.monotonic()
    answered = False
    try:
        with server.connect(1) as client:
            client.sendall(b"GET /vol/info HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            last_trickle = time.monotonic()
            while time.monotonic() - started < cap_s:
                try:
                    if client.recv(65536):
                        answered = True
                        break
                except socket.timeout:
                    pass
                if time.monotonic() - last_trickle >= 2:  # The slow clients' next byte.
                    last_trickle = time.monotonic()
                    for slow_client in held:
                        try:
                            slow_client.sendall(b"o")
                        except OSError:
                            pass
    finally:
        seconds = time.monotonic() - started
        for slow_client in held:
            slow_client.close()
        server.stop(signal.SIGKILL)
    return seconds if answered else None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunkwise", required=True, type=pathlib.Path)
    parser.add_argument("--workdir", required=True, type=pathlib.Path)
    parser.add_argument("--measure", action="store_true")
    args = parser.parse_args()
    root = make_tree(args.workdir)
    if args.measure:
        for slow in (0, 8):
            seconds = slow_client_latency(args.chunkwise, root, slow)
            shown = f"{seconds:.3f} s" if seconds is not None else "no answer: gave up after 90 s"
            print(f"serve --threads 4, {slow} slow clients: one normal request: {shown}")
        return
    checks = Checks()
    check_refused_threads(checks, args.chunkwise, root)
    check_serving(checks, args.chunkwise, root)
    checks.finish()


if __name__ == "__main__":
    main()
