"""progress=True in Jupyter: a notebook run in a real kernel (ipykernel,
driven by nbclient) draws tqdm's notebook bar, a widget, and leaves it full.

The kernel is this interpreter (a kernel spec of our own in a temporary
JUPYTER_PATH), so it imports the same chunkwise as the test.
"""

import json
import os
import pathlib
import sys

import nbclient
import nbformat

import chunkwise

_WRITE = """
import numpy as np, chunkwise
data = np.random.default_rng(0).integers(0, 100, (16, 256, 256), dtype="uint16")
chunkwise.create("bar.zarr", data=data, chunks=[1, 128, 128], codecs="gzip:5", progress=True)
"""

# The bar's widgets, still alive in the kernel after the call: its progress
# (value and max), its style, and the text beside it.
_INSPECT = """
import json, ipywidgets
from ipywidgets.widgets.widget import _instances
bars = [w for w in _instances.values() if isinstance(w, ipywidgets.FloatProgress)]
texts = [w.value for w in _instances.values() if isinstance(w, ipywidgets.HTML)]
print(json.dumps({"bars": [[b.value, b.max, b.bar_style] for b in bars], "texts": texts}))
"""


def _kernel_spec(root: pathlib.Path) -> str:
    spec = root / "kernels" / "chunkwise-test"
    spec.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": "test",
                                                  "language": "python"}))
    return "chunkwise-test"


def test_progress_true_draws_the_notebook_bar_in_a_kernel(tmp_path: pathlib.Path,
                                                          monkeypatch) -> None:
    package_root = str(pathlib.Path(chunkwise.__file__).resolve().parent.parent)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [package_root,
                                                                   os.environ.get("PYTHONPATH")])))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    name = _kernel_spec(tmp_path / "jupyter")
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(_WRITE),
                                               nbformat.v4.new_code_cell(_INSPECT)])
    nbclient.NotebookClient(notebook, kernel_name=name, timeout=300,
                            resources={"metadata": {"path": str(tmp_path)}}).execute()

    drawn = notebook.cells[0].outputs
    widget_views = [o for o in drawn if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
    assert len(widget_views) == 1, drawn
    assert not [o for o in drawn if o.get("name") == "stderr"], drawn  # no text bar beside it

    printed = "".join(o.get("text", "") for o in notebook.cells[1].outputs)
    state = json.loads(printed)
    # One bar, full (tqdm scales value and max alike), green; its text the
    # terminal bar's: the job, 100 % and 2 MiB of 2 MiB.
    [[value, maximum, style]] = state["bars"]
    assert value == maximum > 0 and style == "success", state
    text = " ".join(state["texts"]).replace("\u2007", " ")
    assert "write: 100%" in text and "2.00M/2.00M" in text, state
    assert (tmp_path / "bar.zarr" / "zarr.json").is_file()
