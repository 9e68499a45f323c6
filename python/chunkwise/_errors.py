"""The exceptions chunkwise raises, one per library status code.

Each derives from ChunkwiseError and from the built-in exception Python code
already catches for that kind of failure, so ``except FileNotFoundError`` and
``except chunkwise.ChunkwiseError`` both work. The message is the library's,
naming the file, key or URL and what is wrong; ``code`` is the status code's
name (``"NotFound"``, ``"Corruption"``, ...).
"""

from __future__ import annotations


class ChunkwiseError(Exception):
    """Base class of every error the chunkwise library reports."""

    code: str = "Internal"


class InvalidArgumentError(ChunkwiseError, ValueError):
    """The caller asked for something malformed or impossible."""


class NotFoundError(ChunkwiseError, FileNotFoundError, KeyError):
    """A required file, key or entry does not exist."""

    def __str__(self) -> str:  # KeyError would quote the message.
        return str(self.args[0]) if self.args else ""


class CorruptionError(ChunkwiseError, OSError):
    """Stored bytes violate their format."""


class StoreIOError(ChunkwiseError, OSError):
    """The operating system or a server refused a read or a write."""


class UnsupportedError(ChunkwiseError, NotImplementedError):
    """Valid, but a feature chunkwise does not implement."""


class OutOfRangeError(ChunkwiseError, IndexError):
    """An index, range or size lies outside what is allowed."""


class ResourceExhaustedError(ChunkwiseError, MemoryError):
    """More memory or threads than this process may have: the message names
    what needed them, how much, and the limit (physical memory, ulimit,
    cgroup, or the max_memory given)."""


class ConflictError(ChunkwiseError, OSError):
    """A conditional write found the value changed since it was read."""


class CancelledError(KeyboardInterrupt):
    """An operation was stopped by its CancelToken before it finished.

    A KeyboardInterrupt, as Ctrl-C's is, so that ``except KeyboardInterrupt``
    catches both and ``except Exception`` (or ChunkwiseError) catches
    neither: a cancellation is not an error to handle and carry on from.
    """

    code: str = "Cancelled"


class InternalError(ChunkwiseError, RuntimeError):
    """A dependency failed in a way that is not the input's fault."""


__all__ = [
    "CancelledError",
    "ChunkwiseError",
    "ConflictError",
    "CorruptionError",
    "InternalError",
    "InvalidArgumentError",
    "NotFoundError",
    "OutOfRangeError",
    "ResourceExhaustedError",
    "StoreIOError",
    "UnsupportedError",
]
