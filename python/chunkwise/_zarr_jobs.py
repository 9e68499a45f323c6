"""The CLI's whole-array zarr jobs, from Python: `zarr info`,
each one call of the same facade function
with the same options and defaults (docs/python.md, "Whole-array jobs").
"""

from __future__ import annotations

import json
from typing import Any

from . import _core


def info(url: str) -> dict[str, Any]:
    """What the zarr array or group at `url` is: the dict `chunkwise zarr info
    URL --json` prints, made by the same library function.

    For an array, the keys of `Array.info`; for a group, ``path``,
    ``node_type`` (``"group"``) and ``members`` (each with ``path``,
    ``node_type``, ``zarr_format``, and for arrays ``shape``, ``dtype``,
    ``chunks``, ``shards``). NotFoundError when neither is there;
    CorruptionError for metadata that is not JSON.
    """
    return json.loads(_core.zarr_info_json(str(url)))
