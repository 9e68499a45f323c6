"""chunkwise.view: data shown in neuroglancer, served from this machine.

The facade's Viewer (docs/api.md) serves the data and the neuroglancer client
bundled in the PyPI ``neuroglancer`` package from one address on 127.0.0.1
and builds the viewer state (image contrast from the data, labels as
segmentation layers, an OME-Zarr group as one layer); ``chunkwise view`` on
the command line is the same call.
"""

from __future__ import annotations

import importlib.util
import json
import os
import webbrowser
from typing import Any

from . import _core


def _client_dir() -> str:
    """The static/client folder of the installed ``neuroglancer`` package."""
    spec = importlib.util.find_spec("neuroglancer")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(
            "chunkwise.view needs the neuroglancer package's client, which is not installed: "
            "pip install 'chunkwise[view]' (or pass client_dir=)",
            name="neuroglancer",
        )
    return os.path.join(list(spec.submodule_search_locations)[0], "static", "client")


class Viewer:
    """Data served with neuroglancer's client until ``stop()`` (or the end of a
    ``with`` block, or of the process). ``link`` opens the view in a browser."""

    def __init__(self, core: Any) -> None:
        self._core = core

    @property
    def url(self) -> str:
        """The server's address, "http://127.0.0.1:PORT/"."""
        return self._core.url

    @property
    def link(self) -> str:
        """The client's page with the viewer state in its "#!" fragment."""
        return self._core.link

    @property
    def state(self) -> dict[str, Any]:
        """neuroglancer's viewer state (layers, dimensions, position)."""
        return json.loads(self._core.state_json)

    @property
    def layers(self) -> list[dict[str, Any]]:
        """One dict per layer: name, type, source, kind, contrast (or None),
        segments (the labels selected at the start)."""
        return self._core.layers

    def stop(self) -> None:
        self._core.stop()

    def __enter__(self) -> Viewer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"<chunkwise.Viewer {self.url}: {len(self.layers)} layer(s)>"

    def _repr_html_(self) -> str:
        return f'<a href="{self.link}" target="_blank">neuroglancer: {len(self.layers)} layer(s)</a>'


def view(
    *paths: str | os.PathLike[str],
    client_dir: str | os.PathLike[str] | None = None,
    host: str = "127.0.0.1",
    port: int = 0,
    open: bool = False,
    threads: int = 16,
) -> Viewer:
    """Serves ``paths`` (paths or URLs: precomputed volumes, zarr arrays,
    OME-Zarr groups, or folders of them) and neuroglancer's client, and returns
    the running Viewer; ``open=True`` opens its link in the browser. The
    client is the ``neuroglancer`` package's unless ``client_dir`` is given.
    Raises NotFoundError naming a path that does not exist or holds nothing
    neuroglancer opens."""
    if not paths:
        raise TypeError("view() needs at least one path or URL")
    folder = os.fspath(client_dir) if client_dir is not None else _client_dir()
    core = _core.start_viewer([os.fspath(p) for p in paths], folder, host, port, threads)
    viewer = Viewer(core)
    if open:
        webbrowser.open(viewer.link)
    return viewer
