"""chunkwise.set_cache_bytes and chunkwise.cache_stats: the decoded-chunk cache
the module's arrays share (docs/python.md, "The chunk cache"); and
chunkwise.set_read_coalescing: how their sharded reads join requests
(docs/python.md, "Coalesced reads")."""

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


def set_read_coalescing(remote: bool = True, local: bool = False, max_gap: int = 1 << 20,
                        max_waste: float = 0.5, max_request: int = 32 << 20,
                        small_gap: int = 64 << 10) -> None:
    """How arrays opened from now on read the inner chunks of one shard that
    a box needs: on remote stores (``remote``: s3://, gs://, http(s)://) and
    local ones (``local``: files, memory), their byte ranges joined into as
    few requests as the limits allow: at most ``max_gap`` bytes between two
    ranges, requests of at most ``max_request`` bytes, and at most
    ``max_waste`` (a fraction) of a request unneeded unless the gap is at
    most ``small_gap`` bytes; elsewhere one request per inner chunk. The
    arguments' defaults are the module's."""
    if min(max_gap, max_request, small_gap) < 0 or not 0.0 <= max_waste <= 1.0:
        raise ValueError("max_gap, max_request and small_gap must be 0 or more and max_waste "
                         f"from 0 to 1, not {max_gap}, {max_request}, {small_gap}, {max_waste}")
    _core.set_read_coalescing(bool(remote), bool(local), int(max_gap), float(max_waste),
                              int(max_request), int(small_gap))


def read_coalescing() -> dict[str, bool | int | float]:
    """The settings set_read_coalescing gave (or the defaults)."""
    return dict(_core.read_coalescing())
