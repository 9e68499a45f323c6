"""An fsspec filesystem over a chunkwise reference set (chunkwise.refs).

Its files are the set's keys; directories are the keys' path prefixes. Reads
go through chunkwise's reference store (refs.References), not through
fsspec's ReferenceFileSystem: a chunk's bytes come from the target file's
range that the set names, read by the library with the GIL released.
Read-only.
"""

from __future__ import annotations

import bisect
import io
from typing import TYPE_CHECKING, Any

from fsspec.spec import AbstractFileSystem

if TYPE_CHECKING:
    from .refs import References


class ReferencesFileSystem(AbstractFileSystem):  # type: ignore[misc]
    protocol = "chunkwise-refs"
    root_marker = ""
    cachable = False  # One per set, made by References.filesystem().

    def __init__(self, references: References, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.references = references

    @classmethod
    def _strip_protocol(cls, path: Any) -> str:
        path = str(path)
        if path.startswith(cls.protocol + "://"):
            path = path[len(cls.protocol) + 3 :]
        return path.strip("/")

    # --- what is there -----------------------------------------------------

    def _under(self, prefix: str) -> list[str]:
        """The keys under the directory `prefix` ("" for the root)."""
        keys = self.references.keys_sorted()
        start = prefix + "/" if prefix else ""
        low = bisect.bisect_left(keys, start)
        high = bisect.bisect_left(keys, start + "\U0010ffff")
        return keys[low:high]

    def _file_info(self, key: str) -> dict[str, Any]:
        return {"name": key, "size": self.references.size(key), "type": "file"}

    def ls(self, path: str, detail: bool = True, **kwargs: Any) -> list[Any]:
        path = self._strip_protocol(path)
        if path in self.references:
            entries = [self._file_info(path)]
        else:
            under = self._under(path)
            if not under and path:
                raise FileNotFoundError(path)
            start = len(path) + 1 if path else 0
            children: dict[str, dict[str, Any]] = {}
            for key in under:
                head, slash, _ = key[start:].partition("/")
                name = key[: start + len(head)]
                if name in children:
                    continue
                children[name] = (
                    {"name": name, "size": 0, "type": "directory"} if slash
                    else self._file_info(name)
                )
            entries = list(children.values())
        return entries if detail else [entry["name"] for entry in entries]

    def info(self, path: str, **kwargs: Any) -> dict[str, Any]:
        path = self._strip_protocol(path)
        if path in self.references:
            return self._file_info(path)
        if not path or self._under(path):
            return {"name": path, "size": 0, "type": "directory"}
        raise FileNotFoundError(path)

    # --- reading -----------------------------------------------------------

    def cat_file(
        self, path: str, start: int | None = None, end: int | None = None, **kwargs: Any
    ) -> bytes:
        key = self._strip_protocol(path)
        if key not in self.references:
            raise FileNotFoundError(key)
        if start is None and end is None:
            return self.references[key]
        if (start is not None and start < 0) or (end is not None and end < 0):
            size = self.references.size(key)
            start = max(size + start, 0) if start is not None and start < 0 else start
            end = max(size + end, 0) if end is not None and end < 0 else end
        return self.references.get_range(key, start or 0, end)

    def _open(self, path: str, mode: str = "rb", **kwargs: Any) -> io.BytesIO:
        if mode != "rb":
            raise PermissionError(f"{self.references.url} is a read-only reference set")
        return io.BytesIO(self.cat_file(path))

    # --- refused -----------------------------------------------------------

    def _refuse(self, *args: Any, **kwargs: Any) -> None:
        raise PermissionError(f"{self.references.url} is a read-only reference set")

    pipe_file = rm_file = _rm = mkdir = makedirs = rmdir = put_file = cp_file = _refuse
