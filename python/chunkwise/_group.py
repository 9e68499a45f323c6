"""chunkwise.Group: a zarr group as zarr-python 3's Group, where the two overlap.

``open_group(url, mode=...)`` opens or creates it; ``group[name]`` is a
member (an Array or a Group, opened by its URL), ``members()`` every node
directly in it, ``attrs`` its attributes, written at once. The library reads
and writes the metadata (the facade's zarr_groups.h); a group's whole
hierarchy, described, is ``info`` elsewhere.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from . import _array, _core
from ._attributes import Node


class Group(Node):
    """A zarr v3 or v2 group at a path or URL."""

    def __init__(self, core: _core.Group, *, read_only: bool = False) -> None:
        self._core = core
        self._read_only = read_only

    @property
    def url(self) -> str:
        return self._core.url

    def _child(self, name: str) -> str:
        if not name or name.startswith("/") or ".." in name.split("/"):
            raise KeyError(name)
        return f"{self.url.rstrip('/')}/{name.strip('/')}"

    # --- members ---------------------------------------------------------------
    def __getitem__(self, name: str) -> _array.Array | Group:
        """The array or group at `name` (a path below the group); KeyError when none."""
        url = self._child(name)
        mode = "r" if self._read_only else "r+"
        try:
            return open_group(url, mode=mode)
        except FileNotFoundError:
            raise KeyError(name) from None
        except ValueError:  # An array there, not a group.
            return _array.open(url, mode=mode)

    def members(self) -> tuple[tuple[str, _array.Array | Group], ...]:
        """(name, node) of every array and group directly in this one, by name."""
        return tuple((name, self[name]) for name, _ in self._core.members())

    def keys(self) -> list[str]:
        return [name for name, _ in self._core.members()]

    def array_keys(self) -> list[str]:
        return [name for name, is_group in self._core.members() if not is_group]

    def group_keys(self) -> list[str]:
        return [name for name, is_group in self._core.members() if is_group]

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys())

    def __len__(self) -> int:
        return len(self._core.members())

    def __contains__(self, name: object) -> bool:
        try:
            self[str(name)]
        except KeyError:
            return False
        return True

    def create_group(self, name: str, *, attributes: dict[str, Any] | None = None,
                     overwrite: bool = False) -> Group:
        """A new group `name` in this one (of its zarr format)."""
        self._check_writable()
        return Group(_core.Group.create(self._child(name), self.zarr_format,
                                        _attributes_json(attributes), overwrite))

    def create_array(self, name: str, **options: Any) -> _array.Array:
        """A new array `name` in this one: chunkwise.create's keywords."""
        self._check_writable()
        options.setdefault("zarr_format", self.zarr_format)
        return _array.create(self._child(name), **options)

    def __repr__(self) -> str:
        return f"<chunkwise.Group {self.url!r}>"


def _attributes_json(attributes: dict[str, Any] | None) -> str:
    import json

    return json.dumps(dict(attributes or {}))


def open_group(url: str, mode: str = "a", *, attributes: dict[str, Any] | None = None,
               zarr_format: int = 3) -> Group:
    """Opens the zarr group at `url`, with zarr-python's modes (as chunkwise.open):
    "r" read-only, "r+" an existing group (FileNotFoundError otherwise), "a"
    the existing group or a new one, "w" a new one replacing what is there,
    "w-" a new one, FileExistsError when something is there. `attributes`
    and `zarr_format` are a new group's.
    """
    if mode not in _array._MODES:
        raise ValueError(f"Invalid mode: {mode}, expected one of {_array._MODES}")
    url = str(url)
    if mode in ("w", "w-"):
        if mode == "w-" and _array._exists_node(url):
            raise FileExistsError(f"{url}: an array or group is already there (mode 'w-'); "
                                  "mode 'w' replaces it, 'a' opens it")
        return Group(_core.Group.create(url, zarr_format, _attributes_json(attributes),
                                        mode == "w"))
    try:
        return Group(_core.Group.open(url), read_only=mode == "r")
    except FileNotFoundError:
        if mode != "a":
            raise
    return Group(_core.Group.create(url, zarr_format, _attributes_json(attributes), False))
