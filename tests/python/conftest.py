"""Shared fixtures: each test gets its own directory and memory store name."""

from __future__ import annotations

import itertools

import pytest

_memory_names = itertools.count()


@pytest.fixture
def memory_url() -> str:
    """A memory:// URL no other test uses (memory stores live as long as the process)."""
    return f"memory://test-{next(_memory_names)}"
