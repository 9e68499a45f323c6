"""TIFF stacks in (`chunkwise import`, `chunkwise.import_`), checked by
today's readers (the pinned .venv).

tifffile writes the inputs: a single-file stack, BigTIFF, tiled, zlib and
deflate (and lzma) compressed, with a predictor, a folder of planes whose
names sort differently by bytes and by number, several dtypes, and an
OME-TIFF with physical sizes. Each is imported by the CLI and by the Python
module (the same facade call); zarr-python 3 reads both outputs back and
each must equal tifffile's numpy array value for value. The OME-TIFF's
output must be an OME-Zarr 0.5 image that ome-zarr-models validates, its
scale the voxel size. Bad inputs (a truncated file, a folder of planes of
mixed shapes or dtypes, RGB) must fail with the file (and plane) named, a
non-zero exit, and nothing left at the destination.

usage: .venv/bin/python tiff_import_interop.py --chunkwise build/chunkwise --workdir DIR
"""
import argparse
import importlib.metadata
import json
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import tifffile
import zarr
from ome_zarr_models.v05.image import Image

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "python"))
from interop_check import Checks, run  # noqa: E402

# name, shape (z, y, x), dtype, tifffile options, --chunk, --shard (None: unsharded)
FILE_CASES = [
    ("stack_uint16", (13, 37, 29), "uint16", {}, "4,16,16", "8,32,32"),
    ("bigtiff_float32", (5, 20, 17), "float32", {"bigtiff": True}, "2,8,8", "4,16,16"),
    ("tiled_int16", (6, 45, 33), "int16", {"tile": (16, 16)}, "3,16,16", None),
    ("zlib_predictor_uint8", (7, 31, 40), "uint8", {"compression": "zlib", "predictor": True},
     "4,8,8", "4,16,16"),
    ("deflate_tiled_uint32", (4, 33, 18), "uint32",
     {"compression": "deflate", "tile": (16, 16)}, "2,8,8", None),
    ("lzma_int32", (3, 9, 11), "int32", {"compression": "lzma"}, "2,4,4", None),
    ("int8", (4, 5, 6), "int8", {}, "4,5,6", None),
    ("float16", (3, 6, 7), "float16", {}, "3,6,7", None),
    ("uint64", (2, 5, 9), "uint64", {"compression": "zlib"}, "1,5,9", "2,5,9"),
    ("float64_bigtiff_tiled", (3, 17, 19), "float64",
     {"bigtiff": True, "tile": (16, 16), "compression": "zlib"}, "1,8,8", "2,16,16"),
]


def versions():
    names = ["tifffile", "zarr", "ome-zarr-models", "numpy"]
    return ", ".join(f"{n} {importlib.metadata.version(n)}" for n in names)


def volume(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    kind = np.dtype(dtype).kind
    if kind == "f":
        values = rng.standard_normal(shape) * 1000
        values.flat[:3] = [np.nan, np.inf, -0.0]
        return values.astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)


def same(actual, expected):
    return actual.dtype == expected.dtype and actual.shape == expected.shape and \
        np.array_equal(actual, expected, equal_nan=expected.dtype.kind == "f")


def leaves_nothing(dest):
    dest = pathlib.Path(dest)
    return not dest.exists() or not any(p.is_file() for p in dest.rglob("*"))


def import_both(binary, source, work, name, chunk, shard, extra=()):
    """The CLI's and the module's outputs for `source`: (cli_dest, py_dest)."""
    import chunkwise

    cli_dest, py_dest = work / f"{name}.cli.zarr", work / f"{name}.py.zarr"
    args = [binary, "--quiet", "import", source, cli_dest, "--chunk", chunk, *extra]
    if shard:
        args += ["--shard", shard]
    run(args)
    chunkwise.import_(source, str(py_dest), chunks=[int(n) for n in chunk.split(",")],
                      shards=None if shard is None else [int(n) for n in shard.split(",")])
    return cli_dest, py_dest


def check_file_case(checks, binary, work, case, seed):
    name, shape, dtype, options, chunk, shard = case
    data = volume(shape, dtype, seed)
    source = work / f"{name}.tif"
    tifffile.imwrite(source, data, photometric="minisblack", **options)
    expected = tifffile.imread(source)
    checks.expect(same(expected, data), f"{name}: tifffile reads back what it wrote")
    cli_dest, py_dest = import_both(binary, source, work, name, chunk, shard)
    for who, dest in (("CLI", cli_dest), ("Python", py_dest)):
        array = zarr.open_array(str(dest), mode="r")
        checks.expect(same(array[...], expected),
                      f"{name}: {who}'s import read by zarr {array.dtype} {array.shape} equals "
                      f"tifffile's {expected.dtype} {expected.shape}")
        want_shards = None if shard is None else tuple(int(n) for n in shard.split(","))
        checks.expect(array.shards == want_shards, f"{name}: {who}'s shards {array.shards}")
    cli_meta = json.loads((cli_dest / "zarr.json").read_text())
    py_meta = json.loads((py_dest / "zarr.json").read_text())
    checks.expect(cli_meta == py_meta, f"{name}: the CLI and Python write the same zarr.json")


def check_folder(checks, binary, work):
    # plane10 sorts before plane2 byte by byte; the volume's order is numeric.
    data = volume((12, 14, 9), "uint16", 7)
    folder = work / "planes"
    folder.mkdir()
    for z in range(data.shape[0]):
        tifffile.imwrite(folder / f"plane{z}.tif", data[z], photometric="minisblack")
    (folder / "readme.txt").write_text("not a plane")
    cli_dest, py_dest = import_both(binary, folder, work, "folder", "4,8,8", "8,16,16")
    for who, dest in (("CLI", cli_dest), ("Python", py_dest)):
        checks.expect(same(zarr.open_array(str(dest), mode="r")[...], data),
                      f"folder: {who}'s import of plane0..plane11 is in numeric order")


def check_ome(checks, binary, work):
    import chunkwise

    data = volume((6, 20, 24), "uint16", 11)
    source = work / "ome.ome.tif"
    tifffile.imwrite(source, data, ome=True, photometric="minisblack",
                     metadata={"axes": "ZYX", "PhysicalSizeX": 0.25, "PhysicalSizeXUnit": "µm",
                               "PhysicalSizeY": 0.5, "PhysicalSizeYUnit": "µm",
                               "PhysicalSizeZ": 2.0, "PhysicalSizeZUnit": "µm"})
    with tifffile.TiffFile(source) as tif:
        checks.expect(tif.is_ome, "ome: tifffile wrote an OME-TIFF")
    cli_dest, py_dest = import_both(binary, source, work, "ome", "2,8,8", "2,16,16")
    for who, dest in (("CLI", cli_dest), ("Python", py_dest)):
        group = zarr.open_group(str(dest), mode="r")
        image = Image.from_zarr(group)
        multiscale = image.ome_attributes.multiscales[0]
        axes = [(a.name, a.type, a.unit) for a in multiscale.axes]
        checks.expect(axes == [("z", "space", "micrometer"), ("y", "space", "micrometer"),
                               ("x", "space", "micrometer")], f"ome: {who}'s axes {axes}")
        dataset = multiscale.datasets[0]
        scale = list(dataset.coordinateTransformations[0].scale)
        checks.expect(dataset.path == "0" and scale == [2.0, 0.5, 0.25],
                      f"ome: {who}'s level {dataset.path} scale {scale}")
        level = zarr.open_array(str(dest / "0"), mode="r")
        checks.expect(same(level[...], data), f"ome: {who}'s level 0 equals the planes")
        checks.expect(list(level.metadata.dimension_names) == ["z", "y", "x"],
                      f"ome: {who}'s level 0 dimension_names {level.metadata.dimension_names}")
    array = chunkwise.import_(source, str(work / "ome.again.zarr"), chunks=[2, 8, 8])
    checks.expect(array.url.endswith("ome.again.zarr/0"),
                  f"ome: chunkwise.import_ returns the level array ({array.url})")


def expect_refused(checks, binary, work, name, source, words, error_type):
    """The CLI exits 1 naming `words`; Python raises `error_type`; neither leaves output."""
    import chunkwise

    cli_dest, py_dest = work / f"{name}.cli.zarr", work / f"{name}.py.zarr"
    result = subprocess.run([str(binary), "--quiet", "import", str(source), str(cli_dest),
                             "--chunk", "2,8,8"], capture_output=True, text=True)
    stderr = result.stderr.strip()
    checks.expect(result.returncode == 1 and all(w in stderr for w in words),
                  f"{name}: the CLI exits {result.returncode} with {stderr!r}")
    checks.expect(leaves_nothing(cli_dest), f"{name}: the CLI left nothing at {cli_dest.name}")
    try:
        chunkwise.import_(source, str(py_dest), chunks=[2, 8, 8])
        checks.expect(False, f"{name}: Python imported it")
    except error_type as error:
        checks.expect(all(w in str(error) for w in words),
                      f"{name}: Python raises {type(error).__name__}: {error}")
    checks.expect(leaves_nothing(py_dest), f"{name}: Python left nothing at {py_dest.name}")


def check_bad_inputs(checks, binary, work):
    import chunkwise

    data = volume((8, 32, 32), "uint16", 3)
    truncated = work / "truncated.tif"
    tifffile.imwrite(truncated, data, photometric="minisblack")
    size = truncated.stat().st_size
    with open(truncated, "r+b") as f:
        f.truncate(size - 700)  # The last plane's data is cut short.
    expect_refused(checks, binary, work, "truncated", truncated, [str(truncated)],
                   chunkwise.CorruptionError)

    shapes = work / "mixed_shapes"
    shapes.mkdir()
    tifffile.imwrite(shapes / "p1.tif", data[0], photometric="minisblack")
    tifffile.imwrite(shapes / "p2.tif", data[1], photometric="minisblack")
    tifffile.imwrite(shapes / "p10.tif", data[2, :16], photometric="minisblack")
    expect_refused(checks, binary, work, "mixed_shapes", shapes,
                   [str(shapes / "p10.tif"), "plane 2", "16x32"], chunkwise.InvalidArgumentError)

    dtypes = work / "mixed_dtypes"
    dtypes.mkdir()
    tifffile.imwrite(dtypes / "a0.tif", data[0], photometric="minisblack")
    tifffile.imwrite(dtypes / "a1.tif", data[1].astype("float32"), photometric="minisblack")
    expect_refused(checks, binary, work, "mixed_dtypes", dtypes,
                   [str(dtypes / "a1.tif"), "plane 1", "float32"], chunkwise.InvalidArgumentError)

    rgb = work / "rgb.tif"
    tifffile.imwrite(rgb, np.zeros((4, 8, 8, 3), "uint8"), photometric="rgb")
    expect_refused(checks, binary, work, "rgb", rgb, [str(rgb), "3 samples per pixel"],
                   chunkwise.UnsupportedError)


def check_existing_output(checks, binary, work):
    data = volume((4, 8, 8), "uint8", 5)
    source = work / "again.tif"
    tifffile.imwrite(source, data, photometric="minisblack")
    dest = work / "again.zarr"
    base = [binary, "--quiet", "import", source, dest, "--chunk", "2,8,8"]
    run(base)
    result = run(base, expect_success=False)
    checks.expect(result.returncode == 1 and "overwrite" in result.stderr,
                  f"existing: a second import is refused: {result.stderr.strip()!r}")
    tifffile.imwrite(source, data[::-1], photometric="minisblack")
    run(base + ["--overwrite"])
    checks.expect(same(zarr.open_array(str(dest), mode="r")[...], data[::-1]),
                  "existing: --overwrite replaces it")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunkwise", required=True, type=pathlib.Path)
    parser.add_argument("--workdir", required=True, type=pathlib.Path)
    args = parser.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    args.workdir.mkdir(parents=True)
    print(f"     {versions()}")
    checks = Checks()
    steps = [lambda c=case, s=seed: check_file_case(checks, args.chunkwise, args.workdir, c, s)
             for seed, case in enumerate(FILE_CASES)]
    steps += [lambda: check_folder(checks, args.chunkwise, args.workdir),
              lambda: check_ome(checks, args.chunkwise, args.workdir),
              lambda: check_bad_inputs(checks, args.chunkwise, args.workdir),
              lambda: check_existing_output(checks, args.chunkwise, args.workdir)]
    for step in steps:
        try:
            step()
        except Exception as error:  # noqa: BLE001
            checks.expect(False, f"{error}"[:600])
    checks.finish()


if __name__ == "__main__":
    main()
