"""Meshes interop: readers and meshers chunkwise did not write (the pinned .venv).

- A uint64 label volume (a sphere, a slab against the volume's edge, a ring
  with a hole through it, one label past 2^32, background elsewhere) is made
  a zarr array and a precomputed segmentation (resolution 4,4,40, chunks
  of 32), and `chunkwise mesh` writes legacy meshes and segment properties
  into it, chunked, with names and tags from a CSV.
- CloudVolume (`CloudVolume('file://...').mesh.get(label)`) reads every
  label's mesh; its vertices are the fragment's own, read here with numpy.
- Every mesh is closed and consistently oriented (each directed edge once,
  its reverse once), its signed volume positive, and its Euler
  characteristic what the shape's genus says (2 for a ball, 0 for the ring).
- zmesh 1.15 (marching cubes, unsimplified, close=True) on the same labels
  finds the same vertices (half a voxel away: see check_meshes): every midpoint between a label's voxel and a
  voxel of another label. (chunkwise adds a centroid vertex inside some
  cubes, which zmesh does not; those are left out of the comparison.) The
  face counts are zmesh's.
- The segmentation's info names the mesh and segment properties folders; the
  segment properties follow neuroglancer's segment_properties.md (inline
  ids as decimal strings, a label, a number and a tags property, one value
  per id, tag indices in range) and hold numpy's voxel counts.
- Python's chunkwise.mesh writes the same bytes as the CLI, and both refuse
  an existing mesh alike (exit 1 / InvalidArgumentError).

usage: .venv/bin/python mesh_interop.py --chunkwise build/chunkwise --workdir DIR
"""
import argparse
import json
import pathlib
import shutil
import subprocess
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from interop_check import Checks, run  # noqa: E402

SHAPE = (40, 48, 56)  # z, y, x
RESOLUTION = (4.0, 4.0, 40.0)  # x, y, z
BIG = 77_777_777_777


def labels():
    z, y, x = np.ogrid[0 : SHAPE[0], 0 : SHAPE[1], 0 : SHAPE[2]]
    v = np.zeros(SHAPE, dtype=np.uint64)
    v[(z - 20) ** 2 + (y - 24) ** 2 + (x - 28) ** 2 <= 11**2] = 1
    v[0:10, :, 0:8] = 2
    v[25:36, 3:20, 40:56] = 3
    v[25:36, 8:14, 45:51] = 0
    v[2:5, 40:44, 45:50] = BIG
    return v


def cli(binary, *args, ok=True):
    return run([binary, "--quiet", *args], expect_success=ok)


def read_fragment(path):
    data = path.read_bytes()
    count = int(np.frombuffer(data, "<u4", 1)[0])
    vertices = np.frombuffer(data, "<f4", 3 * count, 4).reshape(-1, 3)
    faces = np.frombuffer(data, "<u4", offset=4 + 12 * count).reshape(-1, 3)
    return vertices, faces


def closed_and_oriented(faces):
    edges = np.concatenate([faces[:, [0, 1]], faces[:, [1, 2]], faces[:, [2, 0]]])
    directed = {tuple(e) for e in edges.tolist()}
    return len(directed) == len(edges) and all((b, a) in directed for a, b in directed)


def euler(vertices, faces):
    edges = np.sort(np.concatenate([faces[:, [0, 1]], faces[:, [1, 2]], faces[:, [2, 0]]]), axis=1)
    return len(vertices) - len(np.unique(edges, axis=0)) + len(faces)


def signed_volume(vertices, faces):
    a, b, c = (vertices[faces[:, k]].astype(np.float64) for k in range(3))
    return float(np.einsum("ij,ij->i", a, np.cross(b, c)).sum() / 6.0)


def lattice_vertices(vertices):
    """The vertices on the half-voxel lattice (edge midpoints), as integer half voxels."""
    half = vertices / (np.array(RESOLUTION) / 2.0)
    on = np.all(np.abs(half - np.round(half)) < 1e-3, axis=1)
    return {tuple(p) for p in np.round(half[on]).astype(np.int64).tolist()}


def check_meshes(checks, seg, volume):
    from cloudvolume import CloudVolume

    info = json.loads((seg / "info").read_text())
    checks.expect(info.get("mesh") == "mesh", "info names the mesh folder")
    checks.expect(
        info.get("segment_properties") == "segment_properties", "info names the segment properties"
    )
    cv = CloudVolume(f"file://{seg}", progress=False)
    import zmesh

    mesher = zmesh.Mesher(RESOLUTION)
    mesher.mesh(np.asfortranarray(volume.transpose(2, 1, 0)), close=True)
    genus_euler = {1: 2, 2: 2, 3: 0, BIG: 2}
    for label, expected_euler in genus_euler.items():
        ours_v, ours_f = read_fragment(seg / "mesh" / f"{label}:0:all")
        theirs = cv.mesh.get(label)
        if isinstance(theirs, dict):
            theirs = theirs[label]
        checks.expect(
            {tuple(v) for v in theirs.vertices.tolist()} == {tuple(v) for v in ours_v.tolist()},
            f"label {label}: CloudVolume reads the fragment's {len(ours_v)} vertices",
        )
        checks.expect(len(theirs.faces) == len(ours_f), f"label {label}: and its {len(ours_f)} faces")
        checks.expect(closed_and_oriented(ours_f), f"label {label}: closed and consistently oriented")
        checks.expect(euler(ours_v, ours_f) == expected_euler, f"label {label}: Euler characteristic {expected_euler}")
        checks.expect(signed_volume(ours_v, ours_f) > 0, f"label {label}: outward normals (positive volume)")
        # close=True pads a voxel of background before the volume and zmesh
        # puts voxel i's centre at i (ours: i + 1/2), so its vertices are ours
        # plus half a voxel.
        reference = mesher.get(label, normals=False, reduction_factor=0, voxel_centered=False)
        ours_lattice = lattice_vertices(ours_v + np.array(RESOLUTION, dtype=np.float32) / 2)
        zmesh_lattice = lattice_vertices(reference.vertices)
        checks.expect(
            ours_lattice == zmesh_lattice,
            f"label {label}: zmesh's {len(zmesh_lattice)} vertices are ours"
            f" ({len(ours_lattice ^ zmesh_lattice)} differ)",
        )
        checks.expect(
            len(ours_f) == len(reference.faces),
            f"label {label}: {len(ours_f)} faces, as zmesh's {len(reference.faces)}",
        )


def check_properties(checks, seg, volume):
    props = json.loads((seg / "segment_properties" / "info").read_text())
    checks.expect(props.get("@type") == "neuroglancer_segment_properties", "properties @type")
    inline = props["inline"]
    ids = inline["ids"]
    found, counts = np.unique(volume[volume != 0], return_counts=True)
    checks.expect(ids == [str(i) for i in found.tolist()], "ids: every label, as decimal strings")
    by_id = {p["id"]: p for p in inline["properties"]}
    checks.expect(
        all(len(p["values"]) == len(ids) for p in inline["properties"]), "one value per id"
    )
    voxels = by_id.get("voxels", {})
    checks.expect(
        voxels.get("type") == "number" and voxels.get("data_type") == "uint32", "voxels: a uint32 number"
    )
    checks.expect(voxels.get("values") == counts.tolist(), "voxels: numpy's counts")
    name = by_id.get("name", {})
    checks.expect(
        name.get("type") == "label" and name.get("values") == ["ball", "", "ring, holed", "far"],
        "names from the CSV, empty where none",
    )
    tags = by_id.get("tags", {})
    checks.expect(tags.get("type") == "tags" and tags.get("tags") == ["big", "round"], "tags")
    checks.expect(tags.get("values") == [[0, 1], [], [1], []], "tag indices per id")


def check_python_door(checks, binary, work, volume_dir):
    import chunkwise

    copy = work / "seg-python"
    shutil.copytree(volume_dir / "base", copy)
    names = work / "names.csv"
    summary = chunkwise.mesh(str(work / "labels.zarr"), str(copy), names=str(names), max_simplification_error=0)
    checks.expect(summary["segments"] == 4, "chunkwise.mesh: 4 segments")
    same = all(
        (copy / "mesh" / f).read_bytes() == (volume_dir / "seg" / "mesh" / f).read_bytes()
        for f in ("1:0:all", "3:0:all", f"{BIG}:0:all", "info")
    )
    checks.expect(same, "chunkwise.mesh writes the CLI's bytes")
    checks.expect(
        (copy / "segment_properties" / "info").read_bytes()
        == (volume_dir / "seg" / "segment_properties" / "info").read_bytes(),
        "and the same segment properties",
    )
    try:
        chunkwise.mesh(str(work / "labels.zarr"), str(copy))
        checks.expect(False, "chunkwise.mesh refuses an existing mesh")
    except chunkwise.InvalidArgumentError as error:
        checks.expect("overwrite" in str(error), f"chunkwise.mesh refuses an existing mesh: {error}")
    result = cli(binary, "mesh", work / "labels.zarr", copy, ok=False)
    checks.expect(
        result.returncode == 1 and "InvalidArgument" in result.stderr and "--overwrite" in result.stderr,
        f"so does the CLI: {result.stderr.strip()}",
    )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunkwise", required=True, type=pathlib.Path)
    parser.add_argument("--workdir", required=True, type=pathlib.Path)
    args = parser.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    args.workdir.mkdir(parents=True)
    work = args.workdir
    volume = labels()
    np.save(work / "labels.npy", volume)
    cli(args.chunkwise, "zarr", "import", work / "labels.npy", work / "labels.zarr", "--chunk", "16,16,16")
    cli(
        args.chunkwise, "zarr", "to-precomputed", work / "labels.zarr", work / "base",
        "--chunk", "32,32,32", "--resolution", ",".join(str(r) for r in RESOLUTION),
    )
    shutil.copytree(work / "base", work / "seg")
    (work / "names.csv").write_text(
        'id,name,tags\n1,ball,round;big\n3,"ring, holed",round\n' f"{BIG},far\n"
    )
    # Unsimplified, to compare with zmesh's marching cubes vertex by vertex
    # (mesh_simplification_interop.py compares the simplified meshes).
    cli(args.chunkwise, "mesh", work / "labels.zarr", work / "seg", "--names", work / "names.csv",
        "--threads", "2", "--max-simplification-error", "0")
    checks = Checks()
    check_meshes(checks, work / "seg", volume)
    check_properties(checks, work / "seg", volume)
    check_python_door(checks, args.chunkwise, work, work)
    checks.finish()


if __name__ == "__main__":
    main()
