"""chunkwise: chunked, sharded, compressed n-d arrays, from Python.

``open`` and ``create`` give zarr v3 (and v2) arrays that numpy indexing
reads and writes, ``open_group`` groups of them, with zarr-python 3's
modes; ``info``, ``convert``, ``import_npy``, ``import_`` (TIFF stacks too) and
``to_precomputed`` are the CLI's whole-array zarr jobs;
``chunkwise.zarr.Store`` lets zarr-python 3 read and write through any
chunkwise store; ``chunkwise.dask`` writes and reads dask arrays, never two
tasks to one shard. See docs/python.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import _core
from ._array import Array, create, open
from ._attributes import Attributes
from ._cache import (
    cache_stats,
    read_coalescing,
    reset_cache_stats,
    set_cache_bytes,
    set_read_coalescing,
)
from ._cancel import CancelToken
from ._errors import (
    CancelledError,
    ChunkwiseError,
    ConflictError,
    CorruptionError,
    InternalError,
    InvalidArgumentError,
    NotFoundError,
    OutOfRangeError,
    ResourceExhaustedError,
    StoreIOError,
    UnsupportedError,
)
from ._group import Group, open_group
from ._mesh import mesh
from ._skeletons import read_skeleton, skeletonize
from ._stream import StreamWriter
from ._strings import BytesArray, StringArray
from ._view import Viewer, view
from ._zarr_jobs import convert, import_, import_npy, info, to_precomputed

if TYPE_CHECKING:
    from . import bcolz as bcolz
    from . import dask as dask
    from . import dvid as dvid
    from . import refs as refs
    from . import vectors as vectors
    from . import zarr as zarr

__version__: str = _core.__version__


# The submodules docs/python.md lists ("The package"). chunkwise.zarr needs
# zarr-python and chunkwise.dask needs dask (_extras.py), so each is imported
# only when first asked for, as an attribute or by `import chunkwise.NAME`.
_SUBMODULES = ("bcolz", "dask", "dvid", "refs", "vectors", "zarr")


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        import importlib

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'chunkwise' has no attribute {name!r}")


__all__ = [
    "Array",
    "Attributes",
    "BytesArray",
    "CancelToken",
    "CancelledError",
    "ChunkwiseError",
    "ConflictError",
    "CorruptionError",
    "Group",
    "InternalError",
    "InvalidArgumentError",
    "NotFoundError",
    "OutOfRangeError",
    "ResourceExhaustedError",
    "StoreIOError",
    "StreamWriter",
    "StringArray",
    "UnsupportedError",
    "Viewer",
    "__version__",
    "cache_stats",
    "convert",
    "create",
    "import_",
    "import_npy",
    "info",
    "mesh",
    "open",
    "open_group",
    "to_precomputed",
    "read_skeleton",
    "reset_cache_stats",
    "set_cache_bytes",
    "set_read_coalescing",
    "read_coalescing",
    "skeletonize",
    "view",
]
