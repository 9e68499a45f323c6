"""OME-Zarr multiscale streams, checked by today's readers (the pinned .venv).

`chunkwise zarr stream --levels N` writes an OME-NGFF 0.5 image group. Here:
- ome-zarr-models validates the group (Image.from_zarr);
- zarr-python 3 and TensorStore read every level, and each equals a numpy
  reduction of the frames, level after level, written here from the rules in
  docs/pipelines/stream-writer.md ("Multiscale"): integer mean is the exact
  mean rounded half to even; float mean adds in float64 in the window's
  row-major order from +0.0, then rounds once; mode is the most frequent
  value, ties to the least; windows at a far edge hold what is left;
- odd extents, a last partial window along dimension 0 (frames not a
  multiple of the factor), unbounded dimension 0, factors of 1, the index at
  the start, and the deterministic blosc-lz4 codec;
- the group's axes, units and scales, and dimension_names on every level.

usage: .venv/bin/python ome_multiscale_interop.py --chunkwise build/chunkwise --workdir DIR
"""
import argparse
import importlib.metadata
import json
import pathlib
import shutil
import sys

import numpy as np
import tensorstore as ts
import zarr
from ome_zarr_models.v05.image import Image

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "python"))
from interop_check import Checks, run  # noqa: E402

CASES = [
    # name, dtype, method, shape (0: unbounded), frames, chunk, tiles per shard, levels,
    # factors (None: default), names, extra options
    ("mean_uint16_zyx", "uint16", "mean", [0, 37, 29], 13, [4, 8, 8], [2, 2, 2], 3, None,
     "z,y,x", ["--voxel-size", "2,0.5,0.5", "--unit", "micrometer"]),
    ("mode_uint32_labels_frames_kept", "uint32", "mode", [0, 21, 19], 11, [3, 4, 8], [2, 2, 1], 2,
     [1, 2, 2], "z,y,x", ["--codec", "blosc:lz4det:5:shuffle"]),
    ("max_uint8_bounded_start", "uint8", "max", [9, 16, 15], 9, [2, 8, 4], [3, 1, 2], 2, None,
     "z,y,x", ["--index-location", "start"]),
    ("min_int16", "int16", "min", [0, 10, 12], 7, [2, 4, 4], [1, 2, 2], 2, None, "z,y,x", []),
    ("mean_float32_tzyx", "float32", "mean", [0, 7, 9, 11], 3, [1, 4, 4, 8], [1, 1, 2, 1], 2, None,
     "t,z,y,x", ["--voxel-size", "1,0.25,0.25", "--unit", "micrometer"]),
]


def versions():
    names = ["zarr", "tensorstore", "ome-zarr-models", "numpy"]
    return ", ".join(f"{n} {importlib.metadata.version(n)}" for n in names)


def frames(dtype, shape, seed):
    """Few distinct values, so that modes tie and means land on halves."""
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        return (rng.integers(-1000, 1001, shape) / 7).astype(dtype)
    values = rng.integers(0, 5, shape) * 3
    if np.dtype(dtype).kind == "i":
        values -= 6
    return values.astype(dtype)


def windows(data, factors):
    """(windows, valid): data cut into windows, shaped (outputs..., window elements in
    row-major order); valid marks the elements inside the data (edge windows hold less)."""
    out_shape = [-(-n // f) for n, f in zip(data.shape, factors)]
    pad = [(0, o * f - n) for o, f, n in zip(out_shape, factors, data.shape)]
    padded = np.pad(data, pad)
    valid = np.pad(np.ones(data.shape, bool), pad)
    split = [x for o, f in zip(out_shape, factors) for x in (o, f)]
    order = list(range(0, 2 * data.ndim, 2)) + list(range(1, 2 * data.ndim, 2))
    flat = out_shape + [int(np.prod(factors))]
    return (padded.reshape(split).transpose(order).reshape(flat),
            valid.reshape(split).transpose(order).reshape(flat))


def reduce_level(data, factors, method):
    win, valid = windows(data, factors)
    if method == "mean" and data.dtype.kind == "f":
        total = np.zeros(win.shape[:-1], np.float64)
        for i in range(win.shape[-1]):  # One by one, in the window's order.
            total += np.where(valid[..., i], win[..., i].astype(np.float64), 0.0)
        return (total / valid.sum(-1)).astype(data.dtype)
    if method == "mean":
        total = np.where(valid, win.astype(np.int64), 0).sum(-1)
        return np.rint(total / valid.sum(-1)).astype(data.dtype)  # Halves to even.
    if method in ("min", "max"):
        info = np.iinfo(data.dtype) if data.dtype.kind in "iu" else np.finfo(data.dtype)
        neutral = info.max if method == "min" else info.min
        masked = np.where(valid, win, neutral)
        return (masked.min(-1) if method == "min" else masked.max(-1)).astype(data.dtype)
    out = np.empty(win.shape[:-1], data.dtype)
    for index in np.ndindex(out.shape):
        values, counts = np.unique(win[index][valid[index]], return_counts=True)
        out[index] = values[np.argmax(counts)]  # unique sorts: the first maximum is the least.
    return out


def stream(binary, work, case):
    name, dtype, method, shape, count, chunk, tps, levels, factors, names, extra = case
    data = frames(dtype, [count] + shape[1:], len(name))
    raw = work / f"{name}.raw"
    data.tofile(raw)
    out = work / f"{name}.ome.zarr"
    args = [binary, "--quiet", "zarr", "stream", out, "--shape", ",".join(map(str, shape)), "--dtype", dtype,
            "--chunk", ",".join(map(str, chunk)), "--tiles-per-shard", ",".join(map(str, tps)),
            "--input", raw, "--levels", levels, "--downsample", method, "--dimension-names", names] + extra
    if factors:
        args += ["--downsample-factors", ",".join(map(str, factors))]
    run(args)
    return data, out


def same(actual, expected):
    actual = np.asarray(actual)
    if actual.shape != expected.shape or actual.dtype != expected.dtype:
        return False, f"{actual.shape} {actual.dtype} != {expected.shape} {expected.dtype}"
    bad = np.flatnonzero(actual.view(f"u{actual.itemsize}") != expected.view(f"u{actual.itemsize}"))
    if bad.size:
        at = np.unravel_index(bad[0], actual.shape)
        return False, f"{bad.size} differ, first at {at}: {actual[at]} != {expected[at]}"
    return True, ""


def check_case(checks, binary, work, case):
    name, dtype, method, shape, count, chunk, tps, levels, factors, names, extra = case
    data, out = stream(binary, work, case)
    group = zarr.open_group(out, mode="r")
    try:
        image = Image.from_zarr(group)
        paths = [d.path for d in image.ome_attributes.multiscales[0].datasets]
        checks.expect(paths == [str(k) for k in range(levels + 1)],
                      f"{name}: ome-zarr-models validates the group, datasets {paths}")
    except Exception as error:  # noqa: BLE001
        checks.expect(False, f"{name}: ome-zarr-models validates the group: {error}"[:600])
    multiscale = json.loads((out / "zarr.json").read_text())["attributes"]["ome"]["multiscales"][0]
    axes = [a["name"] for a in multiscale["axes"]]
    checks.expect(axes == names.split(","), f"{name}: axes {axes}")
    used = factors or [1 if a == "t" else 2 for a in axes]
    base = multiscale["datasets"][0]["coordinateTransformations"][0]["scale"]
    scales_ok = all(
        d["coordinateTransformations"] == [{"type": "scale",
                                            "scale": [s * f ** k for s, f in zip(base, used)]}]
        for k, d in enumerate(multiscale["datasets"]))
    checks.expect(scales_ok, f"{name}: level k's scale is level 0's times factor^k")
    if "--unit" in extra:
        unit = extra[extra.index("--unit") + 1]
        checks.expect(all(a.get("unit") == unit for a in multiscale["axes"] if a["type"] == "space"),
                      f"{name}: space axes in {unit}")
    expected = data
    for k in range(levels + 1):
        if k > 0:
            expected = reduce_level(expected, used, method)
        array = group[str(k)]
        checks.expect(list(array.metadata.dimension_names) == axes,
                      f"{name}: level {k} has dimension_names {array.metadata.dimension_names}")
        ok, why = same(array[...], expected)
        checks.expect(ok, f"{name}: zarr-python reads level {k} {expected.shape} equal to numpy {why}")
        store = ts.open({"driver": "zarr3",
                         "kvstore": {"driver": "file", "path": str(out / str(k))}}).result()
        ok, why = same(store.read().result(), expected)
        checks.expect(ok, f"{name}: TensorStore reads level {k} equal to numpy {why}")


def check_dry_run(checks, binary):
    args = [binary, "zarr", "stream", "unused", "--shape", "0,512,512", "--dtype", "uint16",
            "--chunk", "8,64,64", "--input", "-", "--levels", "3", "--dry-run"]
    text = run(args).stdout
    checks.expect("level slabs" in text and "level 3" in text,
                  "--dry-run's estimate names the level slabs and every level")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunkwise", required=True, type=pathlib.Path)
    parser.add_argument("--workdir", required=True, type=pathlib.Path)
    args = parser.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    args.workdir.mkdir(parents=True)
    print(f"     {versions()}")
    checks = Checks()
    for case in CASES:
        try:
            check_case(checks, args.chunkwise, args.workdir, case)
        except Exception as error:  # noqa: BLE001
            checks.expect(False, f"{case[0]}: {error}"[:600])
    check_dry_run(checks, args.chunkwise)
    checks.finish()


if __name__ == "__main__":
    main()
