"""bcolz 1.x datasets: carrays as numpy arrays, ctables as structured arrays.

    chunkwise.bcolz.write("points.bcolz", np.arange(1000.0))
    chunkwise.bcolz.read("points.bcolz", slice="10:20")
    chunkwise.bcolz.write("table.bcolz", structured)     # a ctable, one column per field
    chunkwise.bcolz.read("table.bcolz", columns=["x"], where="x > 3")

The files are bcolz's own (docs/formats/bcolz.md): bcolz.open() reads what
``write`` makes, and ``read`` reads what bcolz wrote.
"""

from __future__ import annotations

import ast
import json
import os
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.lib.format

from . import _core, _progress
from ._cancel import CancelToken
from ._progress import Progress


_SHUFFLES = {"none": 0, "byte": 1, "bit": 2}


def _request(data: np.ndarray, cname: str, clevel: int, shuffle: int | str, chunklen: int,
             threads: int, overwrite: bool, append: bool) -> _core.BcolzWriteRequest:
    request = _core.BcolzWriteRequest()
    request.descr = repr(numpy.lib.format.dtype_to_descr(data.dtype))
    request.shape = list(data.shape)
    request.cname = cname
    request.clevel = clevel
    request.shuffle = _SHUFFLES[shuffle] if isinstance(shuffle, str) else int(shuffle)
    request.chunklen = chunklen
    request.threads = threads
    request.overwrite = overwrite
    request.append = append
    return request


def _rows(data: Any) -> np.ndarray:
    data = np.ascontiguousarray(data)
    if data.ndim == 0:
        raise ValueError("bcolz holds rows: a 0-d array has none")
    return data


def write(
    url: str,
    data: Any,
    *,
    cname: str = "lz4",
    clevel: int = 5,
    shuffle: int | str = "byte",
    chunklen: int = 0,
    threads: int = 0,
    overwrite: bool = False,
    progress: Progress = None,
    cancel: CancelToken | None = None,
) -> int:
    """Writes `data` as a new carray (or a ctable, for a structured array) at `url`.

    Rows are `data`'s first dimension; the rest is each row's shape.
    `cname`/`clevel`/`shuffle` are the Blosc parameters, `chunklen` the rows
    per chunk (0: bcolz's choice for the row count). An existing dataset is
    refused unless `overwrite`. Returns the number of rows. `progress`
    counts the bytes of rows written; `cancel` (or Ctrl-C) stops the write
    between batches of chunks, leaving a dataset of the rows written so far.
    """
    rows = _rows(data)
    request = _request(rows, cname, clevel, shuffle, chunklen, threads, overwrite, False)
    return _core.bcolz_write(str(url), request, rows.reshape(-1).view(np.uint8),
                             progress=_progress.callback(progress, "bcolz"),
                             cancel=_progress.token(cancel))


def append(url: str, data: Any, *, progress: Progress = None,
           cancel: CancelToken | None = None) -> int:
    """Appends rows to the carray or ctable at `url`; returns its new length.

    A carray's rows must have its dtype and row shape; a ctable takes a
    structured array with a field per column (extra fields are ignored).
    `progress` and `cancel` as for `write`: a stopped append keeps whole
    batches of rows, every column of a ctable the same ones.
    """
    rows = _rows(data)
    request = _request(rows, "lz4", 5, 1, 0, 0, False, True)
    return _core.bcolz_write(str(url), request, rows.reshape(-1).view(np.uint8),
                             progress=_progress.callback(progress, "bcolz"),
                             cancel=_progress.token(cancel))


def read(
    url: str,
    *,
    slice: str | None = None,  # noqa: A002 - bcolz's own word
    columns: Sequence[str] | None = None,
    where: str | None = None,
    progress: Progress = None,
    cancel: CancelToken | None = None,
) -> np.ndarray:
    """The rows of the dataset at `url`, as numpy.

    `slice` ("a:b", negatives from the end) picks rows; for a ctable
    `columns` picks fields and `where` (e.g. ``"x > 3 & y == 1"``) rows.
    `progress` counts the bytes of the selected columns' rows read (for
    `where`, scanned); `cancel` (or Ctrl-C) stops the read between chunks.
    """
    descr, shape, data = _core.bcolz_read(str(url), slice or "", list(columns or []), where or "",
                                          progress=_progress.callback(progress, "bcolz"),
                                          cancel=_progress.token(cancel))
    dtype = numpy.lib.format.descr_to_dtype(ast.literal_eval(descr))
    return data.view(dtype).reshape(shape)


def import_file(
    url: str,
    path: str | os.PathLike[str],
    *,
    cname: str = "lz4",
    clevel: int = 5,
    shuffle: int | str = "byte",
    chunklen: int = 0,
    threads: int = 0,
    overwrite: bool = False,
    progress: Progress = None,
    cancel: CancelToken | None = None,
) -> dict[str, Any]:
    """Creates a carray (or a ctable) at `url` from an array file: a .npy,
    or a .csv with a header (a ctable, one column per field).

    The CLI's ``bcolz create``: `url` is a path or any store URL (s3://,
    gs://). Something already at `url` is refused unless `overwrite`, and
    even then only a bcolz dataset is replaced. `progress` counts the row
    bytes imported; `cancel` stops the import between batches of chunks.
    Returns kind, rows_added, length and input_bytes.
    """
    request = _core.BcolzImportRequest()
    request.cname, request.clevel, request.chunklen = cname, clevel, chunklen
    request.shuffle = _SHUFFLES[shuffle] if isinstance(shuffle, str) else int(shuffle)
    request.threads, request.overwrite = threads, overwrite
    return _core.bcolz_import(str(url), os.fspath(path), request,
                              progress=_progress.callback(progress, "bcolz import"),
                              cancel=_progress.token(cancel))


def append_file(url: str, path: str | os.PathLike[str], *, progress: Progress = None,
                cancel: CancelToken | None = None) -> dict[str, Any]:
    """Appends the rows of an array file to the dataset at `url` (the CLI's
    ``bcolz append``); a .csv's columns are matched by name. NotFound when
    no dataset is there. `progress` and `cancel` as import_file's."""
    request = _core.BcolzImportRequest()
    request.append = True
    return _core.bcolz_import(str(url), os.fspath(path), request,
                              progress=_progress.callback(progress, "bcolz append"),
                              cancel=_progress.token(cancel))


def info(url: str) -> dict[str, Any]:
    """What the dataset is: kind, length, dtype(s), chunking, Blosc parameters, sizes, attrs."""
    return json.loads(_core.bcolz_info(str(url)))


__all__ = ["append", "append_file", "import_file", "info", "read", "write"]
