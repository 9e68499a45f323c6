"""Shared fixtures: each test gets its own directory and memory store name."""

from __future__ import annotations

import functools
import http.server
import itertools
import pathlib
import threading
from collections.abc import Iterator

import pytest

_memory_names = itertools.count()


@pytest.fixture
def memory_url() -> str:
    """A memory:// URL no other test uses (memory stores live as long as the process)."""
    return f"memory://test-{next(_memory_names)}"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def http_base(tmp_path: pathlib.Path) -> Iterator[str]:
    """The test's tmp_path served over http:// (a server that cannot list) by a
    thread of this interpreter; the URL of that directory, without a slash."""
    handler = functools.partial(_QuietHandler, directory=str(tmp_path))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
