"""Mesh simplification against zmesh 1.15 on the same labels (the pinned .venv).

- A uint64 label volume of neuron-like shapes (a ball, an ellipsoid, a torus,
  branching tubes of a few voxels' radius, one touching the volume's edge),
  anisotropic voxels (8, 8, 40 nm), is made a zarr array and a precomputed
  segmentation, and `chunkwise mesh --chunk 24,24,24` writes its legacy meshes
  unsimplified (`--max-simplification-error 0`) and simplified at several errors E.
- Simplified at E, every label's mesh is closed and consistently oriented
  (each directed edge once and its reverse once: every edge shared by
  exactly two triangles), keeps the Euler characteristic of the unsimplified
  mesh, and every vertex lies within E of the unsimplified surface (one-sided
  Hausdorff distance, measured here with scipy against dense samples of the
  unsimplified triangles; the samples are at most SAMPLE_GAP apart, which is the
  tolerance allowed beyond E).
- zmesh 1.15 meshes the same labels and simplifies them with the same
  reduction factor and max_error E (`Mesher.get(label, reduction_factor=F,
  max_error=E)`); our face count is within 10 % of zmesh's, or fewer.
- Multi-resolution meshes (`--format multires`) simplified at 40 nm: CloudVolume
  reads every LOD; LOD 0's vertices are within E of the surface, its faces
  at most twice the legacy mesh's (its vertices on the fragment grid slide only
  within their planes), and each coarser LOD (the one below simplified at twice
  the error) has no more faces.
- Without a factor (only the error bounds the collapses) a larger E gives fewer
  faces, and the chunking does not break the joins: meshes made with
  `--chunk 16,16,16` are as closed.

usage: .venv/bin/python mesh_simplification_interop.py --chunkwise build/chunkwise --workdir DIR
"""
import argparse
import pathlib
import shutil
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from interop_check import Checks, run  # noqa: E402

SHAPE = (40, 96, 96)  # z, y, x
RESOLUTION = (8.0, 8.0, 40.0)  # x, y, z
ERRORS = (8.0, 20.0, 40.0)
FACTOR = 100
# Label 4 is two pieces to marching cubes, which keeps 6-connected parts apart
# (zmesh joins them where they touch along an edge).
EULER = {1: 2, 2: 2, 3: 0, 4: 4, 5: 2}
# The unsimplified triangles are sampled on a barycentric grid of this many
# steps, so no point of them is farther than this from a sample.
STEPS = 8
SAMPLE_GAP = float(np.linalg.norm(RESOLUTION)) / STEPS


def tube(v, label, points, radius):
    """Voxels within `radius` (nm) of the polyline `points` ((x, y, z) voxels)."""
    z, y, x = np.meshgrid(*(np.arange(n) + 0.5 for n in SHAPE), indexing="ij")
    res = np.array(RESOLUTION)
    xyz = np.stack([x, y, z], axis=-1) * res
    for a, b in zip(points[:-1], points[1:]):
        a, b = np.array(a, float) * res, np.array(b, float) * res
        ab = b - a
        t = np.clip(((xyz - a) @ ab) / (ab @ ab), 0, 1)
        d = np.linalg.norm(xyz - (a + t[..., None] * ab), axis=-1)
        v[(d <= radius) & (v == 0)] = label


def labels():
    z, y, x = np.ogrid[0 : SHAPE[0], 0 : SHAPE[1], 0 : SHAPE[2]]
    zn, yn, xn = (z + 0.5) * 40, (y + 0.5) * 8, (x + 0.5) * 8  # nm
    v = np.zeros(SHAPE, dtype=np.uint64)
    v[(xn - 200) ** 2 + (yn - 200) ** 2 + (zn - 300) ** 2 <= 130**2] = 1
    v[((xn - 560) / 170) ** 2 + ((yn - 180) / 110) ** 2 + ((zn - 900) / 500) ** 2 <= 1] = 2
    ring = np.sqrt((xn - 300) ** 2 + (yn - 560) ** 2)
    v[(ring - 150) ** 2 + (zn - 1000) ** 2 <= 60**2] = 3
    tube(v, 4, [(10, 90, 5), (40, 60, 15), (70, 70, 30), (90, 40, 36)], 45)
    tube(v, 4, [(40, 60, 15), (60, 90, 20)], 35)
    tube(v, 5, [(0, 20, 30), (30, 40, 25), (60, 10, 12)], 50)
    return v


def cli(binary, *args, ok=True):
    return run([binary, "--quiet", *args], expect_success=ok)


def read_fragment(path):
    data = path.read_bytes()
    count = int(np.frombuffer(data, "<u4", 1)[0])
    vertices = np.frombuffer(data, "<f4", 3 * count, 4).reshape(-1, 3).astype(np.float64)
    faces = np.frombuffer(data, "<u4", offset=4 + 12 * count).reshape(-1, 3)
    return vertices, faces


def watertight(faces):
    edges = np.concatenate([faces[:, [0, 1]], faces[:, [1, 2]], faces[:, [2, 0]]])
    directed = {tuple(e) for e in edges.tolist()}
    return len(directed) == len(edges) and all((b, a) in directed for a, b in directed)


def euler(vertices, faces):
    edges = np.sort(np.concatenate([faces[:, [0, 1]], faces[:, [1, 2]], faces[:, [2, 0]]]), axis=1)
    used = len(np.unique(faces))
    return used - len(np.unique(edges, axis=0)) + len(faces)


def surface_samples(vertices, faces):
    a, b, c = (vertices[faces[:, k]] for k in range(3))
    out = []
    for i in range(STEPS + 1):
        for j in range(STEPS + 1 - i):
            u, w = i / STEPS, j / STEPS
            out.append(a + u * (b - a) + w * (c - a))
    return np.concatenate(out)


def mesh_dir(binary, work, name, *args):
    seg = work / name
    shutil.copytree(work / "base", seg)
    cli(binary, "mesh", work / "labels.zarr", seg, "--threads", "2", *args)
    return seg / "mesh"


def check_multires(checks, binary, work, trees):
    """LOD 0 of the multi-resolution format, simplified on its fragment grid, read by CloudVolume."""
    from cloudvolume import CloudVolume

    error = 40.0
    seg = work / "multires"
    shutil.copytree(work / "base", seg)
    cli(binary, "mesh", work / "labels.zarr", seg, "--format", "multires", "--chunk", "24,24,24",
        "--lods", "3", "--threads", "2", "--max-simplification-error", f"{error:g}",
        "--simplification-factor", str(FACTOR))
    cv = CloudVolume(f"file://{seg}", progress=False)
    for label in EULER:
        legacy = len(read_fragment(work / f"e{error:g}" / "mesh" / f"{label}:0:all")[1])
        previous = None
        for lod in range(3):
            try:
                mesh = cv.mesh.get(label, lod=lod)
            except Exception:  # noqa: BLE001 - a label may have fewer LODs.
                break
            mesh = mesh[label] if isinstance(mesh, dict) else mesh
            faces = len(mesh.faces)
            if lod == 0:
                distance = float(trees[label].query(np.asarray(mesh.vertices, np.float64))[0].max())
                checks.expect(distance <= error + SAMPLE_GAP,
                              f"multires label {label} LOD 0: farthest vertex {distance:.2f} nm from the surface")
                # Vertices on the fragment grid move only within its planes: some more faces.
                checks.expect(faces <= 2 * legacy,
                              f"multires label {label} LOD 0: {faces} faces, legacy {legacy}")
            else:
                checks.expect(0 < faces <= previous,
                              f"multires label {label} LOD {lod}: {faces} faces, LOD {lod - 1} {previous}")
            previous = faces
        checks.expect(previous is not None, f"multires label {label}: CloudVolume reads it")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunkwise", required=True, type=pathlib.Path)
    parser.add_argument("--workdir", required=True, type=pathlib.Path)
    args = parser.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    args.workdir.mkdir(parents=True)
    work, binary = args.workdir, args.chunkwise
    volume = labels()
    np.save(work / "labels.npy", volume)
    cli(binary, "zarr", "import", work / "labels.npy", work / "labels.zarr", "--chunk", "16,32,32")
    cli(binary, "zarr", "to-precomputed", work / "labels.zarr", work / "base", "--chunk", "32,32,32",
        "--resolution", ",".join(str(r) for r in RESOLUTION))
    checks = Checks()
    found = sorted(int(i) for i in np.unique(volume) if i != 0)
    checks.expect(found == sorted(EULER), f"the volume holds labels {found}")

    from scipy.spatial import cKDTree
    import zmesh

    mesher = zmesh.Mesher(RESOLUTION)
    mesher.mesh(np.asfortranarray(volume.transpose(2, 1, 0)), close=True)
    full_dir = mesh_dir(binary, work, "full", "--chunk", "24,24,24", "--max-simplification-error", "0")
    full = {label: read_fragment(full_dir / f"{label}:0:all") for label in EULER}
    trees = {label: cKDTree(surface_samples(*full[label])) for label in EULER}
    for label, (v, f) in full.items():
        checks.expect(watertight(f) and euler(v, f) == EULER[label],
                      f"label {label}: unsimplified, {len(f)} faces, closed, Euler {EULER[label]}")
    totals = {}
    for error in ERRORS:
        out = mesh_dir(binary, work, f"e{error:g}", "--chunk", "24,24,24",
                       "--max-simplification-error", f"{error:g}", "--simplification-factor", str(FACTOR))
        ours_total = theirs_total = 0
        for label in EULER:
            v, f = read_fragment(out / f"{label}:0:all")
            checks.expect(watertight(f), f"E={error:g} label {label}: {len(f)} faces, closed and oriented")
            checks.expect(euler(v, f) == EULER[label], f"E={error:g} label {label}: Euler {EULER[label]}")
            distance = float(trees[label].query(v)[0].max())
            checks.expect(distance <= error + SAMPLE_GAP,
                          f"E={error:g} label {label}: farthest vertex {distance:.2f} nm from the surface"
                          f" (<= E + {SAMPLE_GAP:.2f})")
            reference = mesher.get(label, normals=False, reduction_factor=FACTOR, max_error=error,
                                   voxel_centered=False)
            theirs = len(reference.faces)
            checks.expect(len(f) <= 1.1 * theirs,
                          f"E={error:g} label {label}: {len(f)} faces, zmesh {theirs}")
            ours_total += len(f)
            theirs_total += theirs
        checks.expect(ours_total <= 1.1 * theirs_total,
                      f"E={error:g}: {ours_total} faces in all, zmesh {theirs_total}")
        totals[error] = ours_total
    check_multires(checks, binary, work, trees)
    # Only the error: more error, fewer faces; and a finer chunking keeps it closed.
    by_error = []
    for error in (8.0, 40.0):
        out = mesh_dir(binary, work, f"only{error:g}", "--chunk", "16,16,16",
                       "--max-simplification-error", f"{error:g}", "--simplification-factor", "0")
        faces = [read_fragment(out / f"{label}:0:all")[1] for label in EULER]
        checks.expect(all(watertight(f) for f in faces), f"E={error:g}, no factor, 16^3 chunks: all closed")
        by_error.append(sum(len(f) for f in faces))
    checks.expect(by_error[1] < by_error[0], f"no factor: {by_error[0]} faces at 8 nm, {by_error[1]} at 40 nm")
    checks.finish()


if __name__ == "__main__":
    main()
