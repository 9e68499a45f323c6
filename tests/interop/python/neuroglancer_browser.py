"""neuroglancer in a real browser: our outputs, served by `chunkwise serve`,
drawn by neuroglancer's own client in headless Debian Chromium (playwright-core,
tests/interop/node/neuroglancer_screenshot.mjs), checked on the screenshot's
pixels.

- Segmentation: a 128 x 128 x 64 (x, y, z) label volume of four quadrants
  (labels 11, 22, 33, 44) with the right part of the last one 0, ingested into
  a DVID labelmap, exported to Arrow shards, converted by `dvid
  to-precomputed`, opened as precomputed://. The xy slice must show four
  distinct, non-black colours, each uniform inside its quadrant, changing at
  the quadrant edges where the data does, and black where the label is 0.
- Meshes: `chunkwise mesh` writes the segmentation's meshes into it; in
  neuroglancer's 3-D view (no slices drawn) the four labels must cover the
  panel's centre in several distinct colours, and the same view with no
  segment selected must stay black, so the pixels are the meshes'. The same
  holds for copies of the segmentation given multi-resolution meshes
  (`--format multires` and `multires-sharded`, --chunk 32,32,32: Draco
  fragments at several levels of detail, the second in shard files).
- Image: a uint16 sharded zarr v3 array (dimension names z, y, x) whose value
  grows with x (500 per voxel), opened as zarr3://. Along a row the
  screenshot's brightness must rise with x from dark to bright, and be the
  same along y.

The client is the one inside the PyPI `neuroglancer` package of .venv,
served by that package's own Python server, which also holds each viewer's
state; the data comes from `chunkwise serve` on another origin, so CORS is
exercised. Screenshots stay in the work directory (the build tree) as
artefacts.

usage: .venv/bin/python neuroglancer_browser.py --chunkwise build/chunkwise --workdir DIR
           --node-script tests/interop/node/neuroglancer_screenshot.mjs [--keep PNG_DIR]
"""
import argparse
import json
import pathlib
import re
import shutil
import subprocess
import sys

import neuroglancer
import numpy as np
from PIL import Image

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from interop_check import Checks, run  # noqa: E402

X, Y, Z = 128, 128, 64
WIDTH, HEIGHT = 800, 600
SCALE = 0.25  # voxels per pixel: the 128-voxel square is 512 pixels wide
LABELS = {"top_left": 11, "top_right": 22, "bottom_left": 33, "bottom_right": 44}


def segmentation():
    v = np.zeros((Z, Y, X), np.uint64)
    v[:, :64, :64] = 11
    v[:, :64, 64:] = 22
    v[:, 64:, :64] = 33
    v[:, 64:, 64:96] = 44  # x >= 96 stays 0 in the bottom right
    return v


def image():
    x = np.arange(X, dtype=np.uint32) * 500
    return np.broadcast_to(x, (Z, Y, X)).astype(np.uint16).copy()


def cli(binary, *args):
    return run([binary, "--quiet", *args])


def make_segmentation(binary, work):
    np.save(work / "labels.npy", segmentation())
    cli(binary, "dvid", "ingest", work / "db", "--input", work / "labels.npy")
    spec = {"@type": "neuroglancer_multiscale_volume", "type": "segmentation", "data_type": "uint64",
            "num_channels": 1,
            "scales": [{"key": "8nm", "size": [X, Y, Z], "resolution": [8, 8, 8], "chunk_sizes": [[64, 64, 64]],
                        "encoding": "compressed_segmentation",
                        "sharding": {"@type": "neuroglancer_uint64_sharded_v1", "preshift_bits": 0,
                                     "hash": "identity", "minishard_bits": 1, "shard_bits": 1,
                                     "minishard_index_encoding": "gzip", "data_encoding": "gzip"}}]}
    (work / "spec.json").write_text(json.dumps(spec))
    cli(binary, "dvid", "export-shards", work / "db", work / "spec.json", work / "export")
    cli(binary, "dvid", "to-precomputed", work / "export", work / "serve" / "segmentation")


def make_meshes(binary, work):
    volume = work / "serve" / "segmentation"
    for form in MULTIRES:
        shutil.copytree(volume, work / "serve" / form)
        cli(binary, "mesh", volume, work / "serve" / form, "--format", form, "--chunk", "32,32,32")
    cli(binary, "mesh", volume, volume)


# The copies of the segmentation with multi-resolution meshes, by --format.
MULTIRES = ("multires", "multires-sharded")


def make_image(binary, work):
    np.save(work / "image.npy", image())
    path = work / "serve" / "image.zarr"
    cli(binary, "zarr", "create", path, "--shape", f"{Z},{Y},{X}", "--dtype", "uint16", "--chunk", "32,64,64",
        "--shard", f"{Z},{Y},{X}", "--codec", "zstd:3", "--dimension-names", "z,y,x")
    cli(binary, "zarr", "write", path, "--input", work / "image.npy")


def state(layer):
    return {"layers": [layer], "layout": "xy", "crossSectionScale": SCALE, "position": [X / 2, Y / 2, Z / 2],
            "showAxisLines": False, "showScaleBar": False, "showDefaultAnnotations": False,
            "crossSectionBackgroundColor": "#000000"}


def segmentation_state(base, volume="segmentation"):
    viewer_state = state({"type": "segmentation", "name": "segmentation", "source": f"precomputed://{base}{volume}",
                  "segments": [str(v) for v in LABELS.values()], "selectedAlpha": 1, "notSelectedAlpha": 0})
    viewer_state["dimensions"] = {"x": [8e-9, "m"], "y": [8e-9, "m"], "z": [8e-9, "m"]}
    return viewer_state


def meshes_state(base, segments, volume="segmentation"):
    viewer_state = segmentation_state(base, volume)
    viewer_state["layers"][0]["segments"] = segments
    viewer_state.update({"layout": "3d", "showSlices": False, "projectionScale": 320,
                         "projectionBackgroundColor": "#000000"})
    return viewer_state


def image_state(base):
    shader = "#uicontrol invlerp normalized(range=[0, 65535])\nvoid main() { emitGrayscale(normalized()); }"
    viewer_state = state({"type": "image", "name": "image", "source": f"zarr3://{base}image.zarr/",
                          "shader": shader})
    # zarr arrays carry no units: the axes are the dimension names, unitless.
    viewer_state["dimensions"] = {"x": [1, ""], "y": [1, ""], "z": [1, ""]}
    return viewer_state


def pixel(array, x_voxel, y_voxel):
    """The screenshot pixel showing voxel (x, y) of the slice: the panel fills the
    window with the position at its centre, 1/SCALE pixels per voxel."""
    px = WIDTH / 2 + (x_voxel - X / 2) / SCALE
    py = HEIGHT / 2 + (y_voxel - Y / 2) / SCALE
    return array[int(py), int(px)].astype(int)


def check_segmentation(checks, png):
    a = np.asarray(Image.open(png).convert("RGB"))
    centres = {"top_left": (32, 32), "top_right": (80, 32), "bottom_left": (32, 96), "bottom_right": (80, 96)}
    colours = {}
    for name, (x, y) in centres.items():
        samples = [pixel(a, x + dx, y + dy) for dx in (-12, 0, 12) for dy in (-12, 0, 12)]
        uniform = all(np.abs(s - samples[4]).max() <= 3 for s in samples)
        colours[name] = samples[4]
        checks.expect(uniform and samples[4].sum() > 60,
                      f"segmentation: quadrant {name} (label {LABELS[name]}) is one non-black colour {tuple(samples[4])}")
    names = list(colours)
    distinct = all(np.abs(colours[p] - colours[q]).max() > 30 for i, p in enumerate(names) for q in names[i + 1:])
    checks.expect(distinct, "segmentation: the four labels have distinct colours")
    zero = pixel(a, 112, 96)
    checks.expect(zero.sum() < 30, f"segmentation: label 0 (x >= 96, y >= 64) is black {tuple(zero)}")
    # The colour changes where the data does: x = 64 in the top half, y = 64 on the left.
    left, right = pixel(a, 62, 32), pixel(a, 66, 32)
    top, bottom = pixel(a, 32, 62), pixel(a, 32, 66)
    checks.expect(np.abs(left - colours["top_left"]).max() <= 3 and np.abs(right - colours["top_right"]).max() <= 3,
                  "segmentation: the top edge between labels 11 and 22 lies at x = 64")
    checks.expect(np.abs(top - colours["top_left"]).max() <= 3 and np.abs(bottom - colours["bottom_left"]).max() <= 3,
                  "segmentation: the left edge between labels 11 and 33 lies at y = 64")
    edge = pixel(a, 94, 96), pixel(a, 98, 96)
    checks.expect(np.abs(edge[0] - colours["bottom_right"]).max() <= 3 and edge[1].sum() < 30,
                  "segmentation: label 44 ends at x = 96")


def coloured(png):
    """The 3-D panel's pixels inside its frame and axis labels, and which are lit."""
    a = np.asarray(Image.open(png).convert("RGB")).astype(int)[40:-40, 40:-40]
    lit = a.sum(axis=2) > 60
    return a, lit


def check_meshes(checks, png):
    a, lit = coloured(png)
    fraction = lit.mean()
    checks.expect(fraction > 0.05, f"{png.stem}: the 3-D view draws the labels' surfaces ({fraction:.1%} of pixels lit)")
    centre = a[HEIGHT // 2 - 60:HEIGHT // 2 - 20, WIDTH // 2 - 60:WIDTH // 2 - 20]
    checks.expect((centre.sum(axis=2) > 60).mean() > 0.9, f"{png.stem}: the block of labels covers the 3-D view's centre")
    hues = {tuple(pixel // 64) for pixel in a[lit] if pixel.max() - pixel.min() > 40}
    checks.expect(len(hues) >= 3, f"{png.stem}: the surfaces come in several colours ({len(hues)} coarse hues)")


def check_no_meshes(checks, png):
    _, lit = coloured(png)
    checks.expect(lit.mean() < 0.005, f"meshes: with no segment selected the 3-D view is black ({lit.mean():.2%} lit)")


def check_image(checks, png):
    a = np.asarray(Image.open(png).convert("L")).astype(int)
    xs = [4, 20, 40, 60, 80, 100, 124]
    row = [pixel(a, x, 64) for x in xs]
    expected = [round(x * 500 / 65535 * 255) for x in xs]
    rising = all(q > p for p, q in zip(row, row[1:]))
    close = all(abs(r - e) <= 12 for r, e in zip(row, expected))
    checks.expect(rising and row[0] < 20 and row[-1] > 220,
                  f"image: brightness rises with x along a row {row}")
    checks.expect(close, f"image: brightness follows the data, value/65535 (expected {expected})")
    column = [pixel(a, 60, y) for y in (8, 40, 88, 120)]
    checks.expect(max(column) - min(column) <= 3, f"image: brightness is the same along y {column}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunkwise", required=True, type=pathlib.Path)
    parser.add_argument("--workdir", required=True, type=pathlib.Path)
    parser.add_argument("--node-script", required=True, type=pathlib.Path)
    args = parser.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    (args.workdir / "serve").mkdir(parents=True)
    checks = Checks()
    make_segmentation(args.chunkwise, args.workdir)
    make_meshes(args.chunkwise, args.workdir)
    make_image(args.chunkwise, args.workdir)
    log = open(args.workdir / "serve.log", "w")
    server = subprocess.Popen([str(args.chunkwise), "serve", str(args.workdir / "serve"), "--port", "0", "--log"],
                              stdout=subprocess.PIPE, stderr=log, text=True)
    try:
        base = re.search(r"(http://127\.0\.0\.1:\d+/)", server.stdout.readline()).group(1)
        neuroglancer.set_server_bind_address("127.0.0.1")
        viewers = {}
        segments = [str(v) for v in LABELS.values()]
        views = [("segmentation", segmentation_state(base)), ("image", image_state(base)),
                 ("meshes", meshes_state(base, segments)), ("no-meshes", meshes_state(base, []))]
        views += [(f"{form}-meshes", meshes_state(base, segments, form)) for form in MULTIRES]
        for name, viewer_state in views:
            viewers[name] = neuroglancer.Viewer()
            viewers[name].set_state(neuroglancer.ViewerState(viewer_state))
            (args.workdir / f"{name}-state.json").write_text(json.dumps(viewer_state, indent=1))
        command = ["node", str(args.node_script), "--width", str(WIDTH), "--height", str(HEIGHT)]
        for name, viewer in viewers.items():
            command += ["--url", viewer.get_viewer_url(), "--out", str(args.workdir / f"neuroglancer-{name}.png")]
        result = subprocess.run(command, capture_output=True, text=True, timeout=600)
        print("\n".join(line for line in result.stdout.splitlines() if "GPU stall" not in line and "performance warning" not in line)[-6000:], result.stderr[-2000:])
        checks.expect(result.returncode == 0, "neuroglancer loads every view in Chromium without errors")
    finally:
        server.terminate()
        server.wait(timeout=10)
        log.close()
        neuroglancer.stop()
    for name, check in (("segmentation", check_segmentation), ("image", check_image), ("meshes", check_meshes),
                        ("no-meshes", check_no_meshes), ("multires-meshes", check_meshes),
                        ("multires-sharded-meshes", check_meshes)):
        png = args.workdir / f"neuroglancer-{name}.png"
        checks.expect(png.exists(), f"screenshot {png}")
        if png.exists():
            check(checks, png)
    checks.finish()


if __name__ == "__main__":
    main()
