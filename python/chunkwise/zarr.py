"""chunkwise.zarr.Store: zarr-python 3 reading and writing through any chunkwise store.

    import zarr, chunkwise.zarr
    array = zarr.open_array(store=chunkwise.zarr.Store("s3://bucket/volume.zarr"))

Every call runs in a worker thread (``asyncio.to_thread``) with the GIL
released in the library, so zarr-python's concurrent requests overlap.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable

import numpy as np
from zarr.abc.store import (
    ByteRequest,
    OffsetByteRequest,
    RangeByteRequest,
    Store as _ZarrStore,
    SuffixByteRequest,
)
from zarr.core.buffer import Buffer, BufferPrototype, default_buffer_prototype

from . import _core


class Store(_ZarrStore):
    """A zarr.abc.store.Store over the chunkwise store at `url`.

    `url` is a path, file://, memory://NAME, s3://, gs:// or http(s)://.
    A missing directory is created unless `read_only`.
    """

    supports_writes = True
    supports_deletes = True
    supports_partial_writes = False
    supports_listing = True

    def __init__(self, url: str, *, read_only: bool = False) -> None:
        super().__init__(read_only=read_only)
        self.url = str(url)
        self._store = _core.Store.open(self.url, not read_only)

    def with_read_only(self, read_only: bool = False) -> Store:
        return type(self)(self.url, read_only=read_only)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Store)
            and self.url == other.url
            and self.read_only == other.read_only
        )

    def __hash__(self) -> int:
        return hash((self.url, self.read_only))

    def __repr__(self) -> str:
        return f"chunkwise.zarr.Store({self.url!r})"

    def __str__(self) -> str:
        return self.url

    # --- reading -----------------------------------------------------------
    def _get(self, key: str, byte_range: ByteRequest | None) -> np.ndarray | None:
        if byte_range is None:
            return self._store.get(key)
        if isinstance(byte_range, RangeByteRequest):
            length = max(0, byte_range.end - byte_range.start)
            return self._store.get_range(key, byte_range.start, length, False)
        if isinstance(byte_range, OffsetByteRequest):
            return self._store.get_range(key, byte_range.offset, None, False)
        if isinstance(byte_range, SuffixByteRequest):
            return self._store.get_range(key, 0, byte_range.suffix, True)
        raise TypeError(f"unexpected byte_range, got {byte_range!r}")

    async def get(
        self,
        key: str,
        prototype: BufferPrototype | None = None,
        byte_range: ByteRequest | None = None,
    ) -> Buffer | None:
        if prototype is None:
            prototype = default_buffer_prototype()
        await self._ensure_open()
        value = await asyncio.to_thread(self._get, key, byte_range)
        return None if value is None else prototype.buffer.from_array_like(value)

    async def get_partial_values(
        self,
        prototype: BufferPrototype,
        key_ranges: Iterable[tuple[str, ByteRequest | None]],
    ) -> list[Buffer | None]:
        return list(
            await asyncio.gather(
                *(self.get(key, prototype, byte_range) for key, byte_range in key_ranges)
            )
        )

    async def exists(self, key: str) -> bool:
        return await asyncio.to_thread(self._store.exists, key)

    async def getsize(self, key: str) -> int:
        size = await asyncio.to_thread(self._store.size, key)
        if size is None:
            raise FileNotFoundError(self._store.describe(key))
        return size

    # --- writing -----------------------------------------------------------
    async def set(self, key: str, value: Buffer) -> None:
        await self._ensure_open()
        self._check_writable()
        if not isinstance(value, Buffer):
            raise TypeError(
                f"chunkwise.zarr.Store.set(): value must be a Buffer, not {type(value).__name__}"
            )
        data = np.ascontiguousarray(value.as_numpy_array()).view(np.uint8).reshape(-1)
        await asyncio.to_thread(self._store.set, key, data)

    async def set_if_not_exists(self, key: str, value: Buffer) -> None:
        if not await self.exists(key):
            await self.set(key, value)

    async def delete(self, key: str) -> None:
        self._check_writable()
        await asyncio.to_thread(self._store.erase, key)

    # --- listing -----------------------------------------------------------
    async def list(self) -> AsyncIterator[str]:
        for key in await asyncio.to_thread(self._store.list, ""):
            yield key

    async def list_prefix(self, prefix: str) -> AsyncIterator[str]:
        for key in await asyncio.to_thread(self._store.list, prefix):
            yield key

    async def list_dir(self, prefix: str) -> AsyncIterator[str]:
        if prefix and not prefix.endswith("/"):
            prefix += "/"
        seen: set[str] = set()
        for key in await asyncio.to_thread(self._store.list, prefix):
            name = key[len(prefix) :].split("/", 1)[0]
            if name not in seen:
                seen.add(name)
                yield name
