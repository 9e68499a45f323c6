"""Attributes: a node's attributes as zarr-python 3's ``attrs``, whose writes persist.

A MutableMapping over the node's metadata: reads see the metadata as the
node holds it, and every change writes the node's metadata again through the
library (zarr.json; a v2 array's .zattrs), as zarr-python's does.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from typing import Any


class Attributes(MutableMapping[str, Any]):
    """The attributes of an array or group; ``update`` and ``put`` write once."""

    def __init__(self, read_json: Callable[[], str], write_json: Callable[[str], None]) -> None:
        self._read_json = read_json
        self._write_json = write_json

    def asdict(self) -> dict[str, Any]:
        """The attributes as a new dict."""
        result: dict[str, Any] = json.loads(self._read_json())
        return result

    def put(self, attributes: Mapping[str, Any]) -> None:
        """Replaces every attribute with `attributes`."""
        self._write_json(json.dumps(dict(attributes)))

    def update(self, *args: Any, **kwargs: Any) -> None:  # type: ignore[override]
        changed = self.asdict()
        changed.update(*args, **kwargs)
        self.put(changed)

    def __getitem__(self, key: str) -> Any:
        return self.asdict()[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.update({key: value})

    def __delitem__(self, key: str) -> None:
        changed = self.asdict()
        del changed[key]
        self.put(changed)

    def __iter__(self) -> Iterator[str]:
        return iter(self.asdict())

    def __len__(self) -> int:
        return len(self.asdict())

    def __repr__(self) -> str:
        return repr(self.asdict())


class Node:
    """What an array and a group share: the zarr format, read-only opening
    (mode="r") and attributes written at once. A subclass sets ``_core`` (the
    binding's node, with ``zarr_format``, ``attributes_json`` and
    ``set_attributes``), ``_read_only`` and ``url``."""

    _core: Any
    _read_only: bool
    url: str

    @property
    def zarr_format(self) -> int:
        return self._core.zarr_format

    @property
    def read_only(self) -> bool:
        """True when opened with mode="r": writes raise ValueError, as in zarr-python."""
        return self._read_only

    @property
    def attrs(self) -> Attributes:
        """The attributes: a MutableMapping whose changes are written at once."""
        return Attributes(lambda: self._core.attributes_json, self._set_attributes)

    def _set_attributes(self, attributes_json: str) -> None:
        self._check_writable()
        self._core.set_attributes(attributes_json)

    def _check_writable(self) -> None:
        if self._read_only:
            # zarr-python's type and words for a write to a read-only node.
            raise ValueError(f"{self.url}: opened in read-only mode (mode='r'); "
                             "the store does not support writing")
