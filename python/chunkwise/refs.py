"""kerchunk/fsspec reference sets: build them, and read through them.

    chunkwise.refs.build("volume.zarr", "volume.json")
    refs = chunkwise.refs.open("volume.json")
    refs[".zarray"]                      # bytes, as the set's target holds them
    fs = refs.filesystem()               # an fsspec filesystem over the same keys

``build`` is the CLI's ``refs build``: references to every chunk of a zarr
array or group (v2 or v3), a bcolz carray, or DVID export shards, written as
JSON (v0 or v1) or the Parquet layout. ``open`` reads a set with chunkwise's
reference store: inline values, byte ranges and whole files of the targets.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from . import _core, _progress
from ._cancel import CancelToken
from ._progress import Progress


def build(
    source: str,
    dest: str,
    *,
    format: str = "json-v1",  # noqa: A002 - the CLI's flag
    url_base: str | None = None,
    templates: bool = True,
    record_size: int = 100000,
    root_array_name: str | None = None,
    overwrite: bool = False,
    progress: Progress = None,
    cancel: CancelToken | None = None,
) -> dict[str, Any]:
    """Writes the reference set of `source` to `dest`; returns what it holds.

    `format` is ``"json"`` (v0), ``"json-v1"`` (templates shorten shared
    URLs) or ``"parquet"`` (a directory; a root array is nested as
    `root_array_name`, by default the stem of `source`'s last segment,
    ``src.zarr`` → ``src``, as `chunkwise refs build` names it; ``"data"``
    when it has none). Each reference's URL starts with `url_base`, or the
    source's absolute path (or URL). An existing `dest` is refused unless
    `overwrite`. `progress` counts chunks referenced (total None, except for a
bcolz carray, whose chunk count is known); `cancel` as elsewhere.
    The result counts references (``references``, ``inline``, ``ranges``,
    ``whole_files``), their ``bytes`` and the ``arrays`` in the set.
    """
    request = _core.ReferenceBuildRequest()
    request.format = format
    request.url_base = url_base or ""
    request.templates = templates
    request.record_size = record_size
    request.root_array_name = root_array_name or ""
    request.overwrite = overwrite
    return _core.build_references(
        str(source), str(dest), request,
        progress=_progress.callback(progress, "refs"), cancel=_progress.token(cancel),
    )


class References(Mapping[str, bytes]):
    """A reference set's keys and values: a read-only Mapping of bytes.

    Values are read when asked for, each by the reference it has (inline
    bytes, a byte range of a target, or a whole target file).
    """

    def __init__(self, core: _core.Store) -> None:
        self._core = core
        self._keys: list[str] | None = None

    @property
    def url(self) -> str:
        return self._core.url

    def keys_sorted(self) -> list[str]:
        """Every key, sorted (listed once, then kept)."""
        if self._keys is None:
            self._keys = sorted(self._core.list(""))
        return self._keys

    def __getitem__(self, key: str) -> bytes:
        value = self._core.get(key)
        if value is None:
            raise KeyError(key)
        return value.tobytes()

    def get_range(self, key: str, start: int = 0, stop: int | None = None) -> bytes:
        """Bytes [start, stop) of `key`'s value, cut at its end."""
        length = None if stop is None else max(stop - start, 0)
        value = self._core.get_range(key, start, length, False)
        if value is None:
            raise KeyError(key)
        return value.tobytes()

    def size(self, key: str) -> int:
        size = self._core.size(key)
        if size is None:
            raise KeyError(key)
        return size

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        keys = self.keys_sorted()
        i = bisect.bisect_left(keys, key)
        return i < len(keys) and keys[i] == key

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys_sorted())

    def __len__(self) -> int:
        return len(self.keys_sorted())

    def describe(self, key: str) -> str:
        """Where `key`'s value comes from, for messages."""
        return self._core.describe(key)

    def filesystem(self) -> Any:
        """An fsspec filesystem (read-only) whose files are this set's keys."""
        from ._refs_fs import ReferencesFileSystem

        return ReferencesFileSystem(self)

    @property
    def fs(self) -> Any:
        return self.filesystem()

    def __repr__(self) -> str:
        return f"<chunkwise.refs.References {self.url!r}>"


def open(  # noqa: A001 - the module's entry point, like chunkwise.open
    refs: str, *, roots: Sequence[str] = (), allow_remote: bool = False
) -> References:
    """Opens the reference set `refs`: a JSON file or a Parquet directory.

    `refs` is a path or ``file://`` URL, or a set in object storage
    (``s3://``, ``gs://``, ``http(s)://``), whose targets may not be local
    files. Local targets must lie in the set's own directory or one of
    `roots`; remote targets (http(s), s3, gs) are read only with `allow_remote`.
    """
    return References(_core.Store.open_references(str(refs), [str(r) for r in roots], allow_remote))


__all__ = ["References", "build", "open"]
