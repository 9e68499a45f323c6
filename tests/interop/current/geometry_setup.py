"""What the zarr-vectors geometry tests (geometry_vectors_interop.py,
mesh_vectors_interop.py) start from alike: their command line, a fresh work
folder, and skeleton_interop's labels written by our CLI as a zarr array and
a precomputed segmentation of them."""
import importlib.metadata
import pathlib
import sys
from types import SimpleNamespace

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "python"))
from interop_check import Checks, command_line, run  # noqa: E402
from skeleton_interop import SHAPE, VOXEL, make_labels  # noqa: E402


def labelled_segmentation(packages):
    """Parses --chunkwise and --workdir, empties the work folder, prints the
    versions of `packages`, and writes the labels. Returns work, checks, cli
    (our CLI, --quiet), ids (the labels but 0), zarr (the array) and seg (the
    segmentation, the array's 32 x 32 x 16 chunks at VOXEL)."""
    args, work = command_line("--chunkwise")
    print("     " + ", ".join(f"{name} {importlib.metadata.version(name)}" for name in packages))

    def cli(*cli_args, ok=True):
        return run([args.chunkwise, "--quiet", *cli_args], expect_success=ok)

    labels = make_labels()
    np.save(work / "labels.npy", labels)
    zarr_path, seg = work / "labels.zarr", work / "seg"
    cli("zarr", "create", zarr_path, "--shape", ",".join(map(str, SHAPE)), "--dtype", "uint64",
        "--chunk", "16,32,32")
    cli("zarr", "write", zarr_path, "--input", work / "labels.npy")
    cli("zarr", "to-precomputed", zarr_path, seg, "--chunk", "32,32,16",
        "--resolution", ",".join(str(v) for v in VOXEL))
    return SimpleNamespace(work=work, checks=Checks(), cli=cli, zarr=zarr_path, seg=seg,
                           ids=[int(v) for v in np.unique(labels) if v != 0])
