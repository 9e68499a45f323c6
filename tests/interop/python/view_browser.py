"""`chunkwise view` in a real browser (#39): the link it prints, opened in
headless Debian Chromium (playwright-core, tests/interop/node/neuroglancer_screenshot.mjs),
with nothing but 127.0.0.1 to reach: the client is the one bundled in the
PyPI `neuroglancer` package of .venv, served by `chunkwise view` itself with
the data. The view's state is chunkwise's alone (no hand-written state here):

- Image: a uint16 zarr v3 array (z, y, x) whose values span only 1000..1200,
  rising with x. With the type's range (0..65535) it would be drawn black;
  the contrast taken from the data must make the xy panel's brightness span
  dark to bright, rising with x.
- Labels: a uint32 zarr v3 array of four quadrants (labels 11, 22, 33, 44):
  a segmentation layer, drawn in at least four distinct colours.
- OME-Zarr: a pyramid of three levels written by `zarr stream --levels 2`:
  the viewer holds ONE layer, an image layer whose source is the group (not
  one per level), and its contrast spans dark to bright too.
- Image and labels given together: one view of two layers.

Screenshots and each viewer's layers and state (S.png.json) stay in the
work directory as artefacts.

usage: .venv/bin/python view_browser.py --chunkwise build/chunkwise --workdir DIR
           --node-script tests/interop/node/neuroglancer_screenshot.mjs
"""
import argparse
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import numpy as np
from PIL import Image

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from interop_check import Checks, run  # noqa: E402

X, Y, Z = 128, 128, 16
WIDTH, HEIGHT = 800, 600
LABELS = (11, 22, 33, 44)


def narrow_image():
    x = 1000 + np.round(np.arange(X) * 200 / (X - 1))
    return np.broadcast_to(x, (Z, Y, X)).astype(np.uint16).copy()


def labels():
    v = np.zeros((Z, Y, X), np.uint32)
    v[:, :64, :64], v[:, :64, 64:], v[:, 64:, :64], v[:, 64:, 64:] = LABELS
    return v


def cli(binary, *args):
    return run([binary, "--quiet", *args])


def make_array(binary, work, name, values):
    np.save(work / f"{name}.npy", values)
    path = work / name
    cli(binary, "zarr", "create", path, "--shape", f"{Z},{Y},{X}", "--dtype", str(values.dtype),
        "--chunk", "16,64,64", "--dimension-names", "z,y,x")
    cli(binary, "zarr", "write", path, "--input", work / f"{name}.npy")
    return path


def make_pyramid(binary, work):
    path = work / "pyramid.ome.zarr"
    cli(binary, "zarr", "stream", path, "--shape", f"0,{Y},{X}", "--dtype", "uint16", "--chunk", "16,64,64",
        "--input", work / "image.zarr.npy", "--levels", "2", "--dimension-names", "z,y,x",
        "--voxel-size", "2,0.5,0.5", "--unit", "micrometer")
    return path


class View:
    """`chunkwise view PATH... --port 0`, its link read from its output."""

    def __init__(self, binary, work, name, *paths):
        self.log = open(work / f"view-{name}.log", "w")
        # As in an activated venv: the python3 on PATH is the one with neuroglancer,
        # where `chunkwise view` finds the client by default.
        env = dict(os.environ, PATH=f"{pathlib.Path(sys.executable).parent}:{os.environ.get('PATH', '')}")
        env.pop("CHUNKWISE_NEUROGLANCER_CLIENT", None)
        self.process = subprocess.Popen([str(binary), "view", *map(str, paths), "--port", "0", "--log"],
                                        stdout=subprocess.PIPE, stderr=self.log, text=True, env=env)
        self.lines = []
        self.link = None
        for line in self.process.stdout:
            self.lines.append(line.rstrip())
            if line.startswith("neuroglancer: "):
                self.link = line.split(" ", 1)[1].strip()
                break

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=10)
        self.log.close()


def xy_panel(png):
    """The xy panel of neuroglancer's 4panel layout: the top left quarter, inside its frame."""
    a = np.asarray(Image.open(png).convert("RGB")).astype(int)
    return a[8:HEIGHT // 2 - 8, 8:WIDTH // 2 - 8]


def image_box(panel):
    """The data's outline in a panel, drawn yellow by neuroglancer: (top, bottom, left, right)."""
    r, g, b = panel[..., 0], panel[..., 1], panel[..., 2]
    ys, xs = np.nonzero((r > 200) & (g > 200) & (b < 100))
    if len(ys) == 0:
        return None
    return ys.min(), ys.max(), xs.min(), xs.max()


def check_contrast(checks, name, png):
    panel = xy_panel(png)
    box = image_box(panel)
    checks.expect(box is not None, f"{name}: the xy panel outlines the data")
    if box is None:
        return
    top, bottom, left, right = box
    # A row a quarter down the data, away from the cross-hairs, inside the outline.
    row = panel[top + (bottom - top) // 4, left + 4:right - 3].mean(axis=1)
    checks.expect(len(row) > 40, f"{name}: the data is drawn over {len(row)} pixels of the row")
    if len(row) <= 40:
        return
    checks.expect(row.min() < 40 and row.max() > 215,
                  f"{name}: the grey levels span dark to bright ({row.min():.0f}..{row.max():.0f}), not the type's range")
    rises = np.corrcoef(np.arange(len(row)), row)[0, 1]
    checks.expect(rises > 0.95, f"{name}: brightness rises with x, as the values do (correlation {rises:.3f})")


def check_labels(checks, png):
    panel = xy_panel(png)
    box = image_box(panel)
    checks.expect(box is not None, "labels: the xy panel outlines the data")
    if box is None:
        return
    top, bottom, left, right = box
    pixels = panel[top + 3:bottom - 2, left + 3:right - 2].reshape(-1, 3)
    colours, counts = np.unique(pixels // 24, axis=0, return_counts=True)
    big = colours[counts > 0.1 * len(pixels)]  # Each quadrant is a quarter of the data.
    checks.expect(len(big) == 4, f"labels: the four labels are drawn in four colours ({big.tolist()})")
    hues = {tuple(np.sign(c - c.mean()).astype(int)) for c in big}
    checks.expect(len(hues) >= 3, f"labels: the colours differ in hue, not only brightness ({len(hues)} hues)")


def summary(png):
    return json.loads(pathlib.Path(f"{png}.json").read_text())


def check_layers(checks, name, png, expected):
    layers = summary(png)["layers"]
    got = [(layer["type"], (layer["sources"] or [""])[0] or "") for layer in layers]
    checks.expect(len(layers) == len(expected), f"{name}: the viewer holds {len(expected)} layer(s) ({len(layers)})")
    for (kind, source_end), (want_kind, want_end) in zip(got, expected):
        checks.expect(kind == want_kind and source_end.endswith(want_end),
                      f"{name}: a {want_kind} layer on {want_end} ({kind} on {source_end})")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunkwise", required=True, type=pathlib.Path)
    parser.add_argument("--workdir", required=True, type=pathlib.Path)
    parser.add_argument("--node-script", required=True, type=pathlib.Path)
    args = parser.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    args.workdir.mkdir(parents=True)
    work = args.workdir
    checks = Checks()
    image = make_array(args.chunkwise, work, "image.zarr", narrow_image())
    label = make_array(args.chunkwise, work, "labels.zarr", labels())
    pyramid = make_pyramid(args.chunkwise, work)
    cases = {"image": [image], "labels": [label], "ome": [pyramid], "together": [image, label]}
    views = {}
    try:
        for name, paths in cases.items():
            views[name] = View(args.chunkwise, work, name, *paths)
            print("\n".join(views[name].lines))
            checks.expect(views[name].link is not None and
                          re.match(r"http://127\.0\.0\.1:\d+/v/chunkwise/index\.html#!", views[name].link),
                          f"{name}: chunkwise view prints a link to its own address")
        if all(view.link for view in views.values()):
            command = ["node", str(args.node_script), "--width", str(WIDTH), "--height", str(HEIGHT)]
            for name, view in views.items():
                command += ["--url", view.link, "--out", str(work / f"view-{name}.png")]
            result = subprocess.run(command, capture_output=True, text=True, timeout=600)
            print("\n".join(line for line in result.stdout.splitlines()
                            if "GPU stall" not in line and "performance warning" not in line)[-6000:],
                  result.stderr[-2000:])
            checks.expect(result.returncode == 0, "neuroglancer loads every view in Chromium without errors")
    finally:
        for view in views.values():
            view.stop()
    for name in cases:
        png = work / f"view-{name}.png"
        checks.expect(png.exists(), f"screenshot {png}")
    if all((work / f"view-{name}.png").exists() for name in cases):
        check_contrast(checks, "image", work / "view-image.png")
        check_layers(checks, "image", work / "view-image.png", [("image", "/data/0/")])
        check_labels(checks, work / "view-labels.png")
        check_layers(checks, "labels", work / "view-labels.png", [("segmentation", "/data/0/")])
        # The group, not one of its levels ("/data/0/0/").
        check_layers(checks, "ome", work / "view-ome.png", [("image", "/data/0/")])
        x_axis = summary(work / "view-ome.png")["state"].get("dimensions", {}).get("x")
        checks.expect(x_axis == [5e-7, "m"], f"ome: x is in the pyramid's unit, 0.5 micrometre ({x_axis})")
        check_contrast(checks, "ome", work / "view-ome.png")
        check_layers(checks, "together", work / "view-together.png",
                     [("image", "/data/0/"), ("segmentation", "/data/1/")])
    checks.finish()


if __name__ == "__main__":
    main()
