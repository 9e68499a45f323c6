"""chunkwise.set_cache_bytes and chunkwise.cache_stats: the decoded-chunk cache
the module's arrays share (docs/python.md, "The chunk cache")."""

from __future__ import annotations

from . import _core


def set_cache_bytes(nbytes: int) -> None:
    """Lets every array read through chunkwise keep up to ``nbytes`` bytes of
    decoded chunks and shard indexes, so that reading a chunk again reads
    neither the store nor the shard index and decodes nothing: small random
    reads (a viewer, patches for training) pay once per chunk. 0, the
    default, keeps nothing and drops what is held. Writes through chunkwise
    drop what they make stale; writes by other processes are not seen.
    """
    if nbytes < 0:
        raise ValueError(f"nbytes must be 0 or more, not {nbytes}")
    _core.set_cache_bytes(int(nbytes))


def cache_stats() -> dict[str, int]:
    """The cache's counters: hits, misses, insertions, evictions,
    invalidations, rejected (too large, or raced by a write), and what it
    holds now: entries, bytes, limit_bytes."""
    return dict(_core.cache_stats())


def reset_cache_stats() -> None:
    """Sets the counters (not what is held) back to 0."""
    _core.reset_cache_stats()
