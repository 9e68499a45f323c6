"""chunkwise.view (#39): the facade's Viewer from Python. The state is the
CLI's (one facade call): contrast from the data, labels as segmentation, a
missing path NotFoundError naming it; the client and the data come from one
address on 127.0.0.1."""

from __future__ import annotations

import importlib.util
import pathlib
import subprocess
import sys
import urllib.request

import numpy as np
import pytest

import chunkwise


def _narrow_image(path: pathlib.Path) -> None:
    a = chunkwise.create(str(path), shape=(4, 16, 32), chunks=(4, 16, 16), dtype="uint16",
                         dimension_names=["z", "y", "x"])
    a[...] = np.broadcast_to(1000 + np.round(np.arange(32) * 200 / 31), (4, 16, 32)).astype(np.uint16)


def _stand_in_client(path: pathlib.Path) -> pathlib.Path:
    path.mkdir()
    (path / "index.html").write_text("<html>stand-in</html>")
    return path


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as answer:
        return answer.read()


def test_view_serves_the_data_with_contrast_from_it(tmp_path: pathlib.Path) -> None:
    _narrow_image(tmp_path / "img.zarr")
    labels = chunkwise.create(str(tmp_path / "labels.zarr"), shape=(2, 8, 8), chunks=(2, 8, 8),
                              dtype="uint64", dimension_names=["z", "y", "x"])
    labels[...] = 7
    client = _stand_in_client(tmp_path / "client")
    with chunkwise.view(tmp_path / "img.zarr", tmp_path / "labels.zarr", client_dir=client) as viewer:
        assert viewer.url.startswith("http://127.0.0.1:")
        assert viewer.link.startswith(viewer.url + "v/chunkwise/index.html#!")
        assert [(layer["type"], layer["name"]) for layer in viewer.layers] == [
            ("image", "img.zarr"), ("segmentation", "labels.zarr")]
        low, high = viewer.layers[0]["contrast"]
        assert 1000 <= low <= 1010 and 1190 <= high <= 1200
        assert viewer.layers[1]["contrast"] is None
        assert viewer.layers[1]["segments"] == []  # No meshes: nothing selected.
        state = viewer.state
        assert state["layers"][0]["shaderControls"]["normalized"]["range"] == [low, high]
        assert state["layers"][1]["source"] == f"zarr3://{viewer.url}data/1/"
        assert state["position"] == [16, 8, 2]
        assert _get(viewer.link.split("#")[0]) == b"<html>stand-in</html>"
        assert b'"uint16"' in _get(viewer.url + "data/0/zarr.json")


def test_view_of_a_missing_path_is_not_found(tmp_path: pathlib.Path) -> None:
    client = _stand_in_client(tmp_path / "client")
    missing = tmp_path / "no-such.zarr"
    with pytest.raises(chunkwise.NotFoundError, match="no-such.zarr"):
        chunkwise.view(missing, client_dir=client)


def test_view_serves_the_neuroglancer_package_client_by_default(tmp_path: pathlib.Path) -> None:
    spec = importlib.util.find_spec("neuroglancer")
    # The [view] extra is pinned in the lock: a missing peer is a failure, not a skip.
    assert spec is not None, "the neuroglancer package ([view] extra, pinned in the lock) is not installed"
    _narrow_image(tmp_path / "img.zarr")
    folder = pathlib.Path(list(spec.submodule_search_locations)[0]) / "static" / "client"
    with chunkwise.view(tmp_path / "img.zarr") as viewer:
        assert _get(viewer.link.split("#")[0]) == (folder / "index.html").read_bytes()


def test_view_without_neuroglancer_names_the_extra_to_install(tmp_path: pathlib.Path) -> None:
    # None in sys.modules makes the package look uninstalled, in a fresh interpreter.
    code = (
        "import sys\n"
        "sys.modules['neuroglancer'] = None\n"
        "import chunkwise\n"
        "try:\n"
        f"    chunkwise.view({str(tmp_path / 'img.zarr')!r})\n"
        "except ModuleNotFoundError as error:\n"
        "    print(error.name, '|', error)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    name, message = run.stdout.strip().split(" | ")
    assert name == "neuroglancer"
    assert "pip install 'chunkwise[view]'" in message
