"""Multi-resolution meshes interop: readers chunkwise did not write (the pinned .venv).

- A uint64 label volume (a ball, a slab against the volume's edge, a ring
  with a hole through it, one label past 2^32) is made a zarr array and a
  precomputed segmentation (resolution 4,4,40, voxel offset 3,0,-2), and
  `chunkwise mesh --format multires --chunk 16,16,16 --lods 3` writes
  neuroglancer_multilod_draco meshes into it; `chunkwise mesh` (legacy)
  writes the same labels into a copy, for comparison.
- The mesh info is what neuroglancer's meshes.md asks (type, 16 bits, a
  12-number transform of the resolution and offset, a multiplier).
- CloudVolume reads every LOD of every label (`cv.mesh.get(label, lod=k)`):
  vertices and faces at every level, inside the label's box in physical
  units; LOD 0 has the legacy mesh's vertices (those on the half-voxel lattice); each
  level above has fewer vertices than the one below.
- The manifests, parsed here with numpy: sizes sum to the data file, the
  positions of each LOD are in Z-order, every fragment's parent is listed
  in the next LOD, and DracoPy decodes every non-empty fragment of every
  label to integer positions in [0, 65535] and at least one triangle.
- `--format multires-sharded` writes the same meshes into one
  neuroglancer_uint64_sharded_v1 shard (murmurhash3 ids, raw data), which
  CloudVolume's sharded reader reads back LOD by LOD as the unsharded ones.
- A manifest with bytes past its end and fragments overwritten with zeros
  are errors for CloudVolume (MeshDecodeError; DracoPy's "not draco
  encoded") rather than meshes.
  (chunkwise's own reader of both, DecodeMultiresManifest and
  DecodeDracoFragment, is tested in tests/unit/formats/multires_mesh_test.cc.)

usage: .venv/bin/python multires_mesh_interop.py --chunkwise build/chunkwise --workdir DIR
"""
import argparse
import json
import pathlib
import shutil
import struct
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from interop_check import Checks, run  # noqa: E402

SHAPE = (40, 48, 56)  # z, y, x
RESOLUTION = (4.0, 4.0, 40.0)  # x, y, z
OFFSET = (3, 0, -2)  # x, y, z
BIG = 77_777_777_777
LABELS = (1, 2, 3, BIG)


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


def parse_manifest(data):
    """The manifest as numpy arrays, read by neuroglancer's meshes.md."""
    chunk_shape = np.frombuffer(data, "<f4", 3, 0)
    grid_origin = np.frombuffer(data, "<f4", 3, 12)
    (num_lods,) = struct.unpack_from("<I", data, 24)
    at = 28
    scales = np.frombuffer(data, "<f4", num_lods, at)
    at += 4 * num_lods
    offsets = np.frombuffer(data, "<f4", 3 * num_lods, at).reshape(num_lods, 3)
    at += 12 * num_lods
    counts = np.frombuffer(data, "<u4", num_lods, at)
    at += 4 * num_lods
    positions, sizes = [], []
    for n in counts.tolist():
        positions.append(np.frombuffer(data, "<u4", 3 * n, at).reshape(3, n).T)
        at += 12 * n
        sizes.append(np.frombuffer(data, "<u4", n, at))
        at += 4 * n
    assert at == len(data), f"{len(data) - at} bytes past the manifest"
    return dict(chunk_shape=chunk_shape, grid_origin=grid_origin, scales=scales,
                offsets=offsets, positions=positions, sizes=sizes)


def morton(p):
    code = 0
    for bit in range(32):
        for axis in range(3):
            code |= ((int(p[axis]) >> bit) & 1) << (3 * bit + axis)
    return code


def label_box(volume, label):
    """The label's physical box (x, y, z): voxel i covers [i, i + 1), shifted and scaled."""
    z, y, x = np.nonzero(volume == label)
    lo = np.array([x.min(), y.min(), z.min()]) + OFFSET
    hi = np.array([x.max(), y.max(), z.max()]) + 1 + np.array(OFFSET)
    return lo * RESOLUTION, hi * RESOLUTION


def lattice(vertices):
    """The vertices on the half-voxel lattice (within 1/100 of a voxel), as integer half voxels.

    (Loop centroids, off the lattice, are left out: 16-bit steps of a 16-voxel
    cell could round them differently.)"""
    half = np.asarray(vertices, dtype=np.float64) / (np.array(RESOLUTION) / 2.0)
    on = np.all(np.abs(half - np.round(half)) < 0.02, axis=1)
    return {tuple(p) for p in np.round(half[on]).astype(np.int64).tolist()}


def distinct(vertices):
    """Distinct vertices to a tenth of a voxel (the same vertex in two fragments is one)."""
    voxels = np.asarray(vertices, dtype=np.float64) / RESOLUTION
    return len({tuple(r) for r in np.round(voxels * 10).astype(np.int64).tolist()})


def check_info(checks, seg):
    info = json.loads((seg / "info").read_text())
    checks.expect(info.get("mesh") == "mesh", "the segmentation's info names the mesh folder")
    mesh_info = json.loads((seg / "mesh" / "info").read_text())
    checks.expect(mesh_info.get("@type") == "neuroglancer_multilod_draco", "@type neuroglancer_multilod_draco")
    checks.expect(mesh_info.get("vertex_quantization_bits") == 16, "vertex_quantization_bits 16")
    rx, ry, rz = RESOLUTION
    ox, oy, oz = OFFSET
    expected = [rx, 0, 0, ox * rx, 0, ry, 0, oy * ry, 0, 0, rz, oz * rz]
    checks.expect(mesh_info.get("transform") == expected, f"transform {mesh_info.get('transform')}")
    checks.expect(mesh_info.get("lod_scale_multiplier") == 1, "lod_scale_multiplier 1")
    checks.expect("sharding" not in mesh_info, "unsharded")


def check_manifests(checks, seg):
    import DracoPy

    lods_of = {}
    for label in LABELS:
        data = (seg / "mesh" / f"{label}.index").read_bytes()
        try:
            m = parse_manifest(data)
        except AssertionError as error:
            checks.expect(False, f"label {label}: manifest parses ({error})")
            continue
        lods_of[label] = len(m["scales"])
        blob = (seg / "mesh" / str(label)).read_bytes()
        total = sum(int(s.sum()) for s in m["sizes"])
        checks.expect(total == len(blob), f"label {label}: fragment sizes sum to the data file's {len(blob)} bytes")
        checks.expect(list(m["chunk_shape"]) == [16, 16, 16] and list(m["grid_origin"]) == [-0.5] * 3,
                      f"label {label}: cells of 16 voxels from -0.5")
        checks.expect(list(m["scales"]) == [2.0**k for k in range(len(m["scales"]))],
                      f"label {label}: LOD scales {list(m['scales'])}")
        zorder = all(
            all(morton(a) < morton(b) for a, b in zip(p[:-1], p[1:])) for p in m["positions"]
        )
        checks.expect(zorder, f"label {label}: each LOD's fragments in Z-order")
        parents = all(
            {tuple(r) for r in (m["positions"][k] >> 1).tolist()} <= {tuple(r) for r in m["positions"][k + 1].tolist()}
            for k in range(len(m["positions"]) - 1)
        )
        checks.expect(parents, f"label {label}: every fragment's parent is in the next LOD")
        at, decoded, bad = 0, 0, []
        for k, sizes in enumerate(m["sizes"]):
            for i, size in enumerate(sizes.tolist()):
                if size:
                    mesh = DracoPy.decode(blob[at : at + size])
                    points = np.asarray(mesh.points)
                    ok = (len(mesh.faces) > 0 and points.min() >= 0 and points.max() <= 65535
                          and np.all(points == np.round(points)))
                    decoded += ok
                    if not ok:
                        bad.append((k, i))
                at += size
        checks.expect(not bad and decoded > 0,
                      f"label {label}: DracoPy decodes all {decoded} fragments to integers in [0, 65535]"
                      + (f" (bad: {bad[:5]})" if bad else ""))
    return lods_of


def check_cloudvolume(checks, seg, legacy, volume, lods_of):
    from cloudvolume import CloudVolume

    cv = CloudVolume(f"file://{seg}", progress=False)
    cv_legacy = CloudVolume(f"file://{legacy}", progress=False)
    for label in LABELS:
        lo, hi = label_box(volume, label)
        reference = cv_legacy.mesh.get(label)
        reference = reference[label] if isinstance(reference, dict) else reference
        num_lods = lods_of.get(label, 0)
        checks.expect(num_lods >= 2 or label == BIG, f"label {label}: {num_lods} LODs")
        previous = None
        for lod in range(num_lods):
            mesh = cv.mesh.get(label, lod=lod)
            mesh = mesh[label] if isinstance(mesh, dict) else mesh
            v = np.asarray(mesh.vertices)
            slack = 1e-3 * np.array(RESOLUTION)
            inside = len(v) > 0 and np.all(v >= lo - slack) and np.all(v <= hi + slack)
            checks.expect(len(mesh.faces) > 0 and inside,
                          f"label {label} LOD {lod}: {len(v)} vertices, {len(mesh.faces)} faces, inside {lo}..{hi}")
            count = distinct(v)
            if lod == 0:
                theirs = lattice(reference.vertices)
                checks.expect(lattice(v) == theirs,
                              f"label {label} LOD 0: the legacy mesh's {len(theirs)} lattice vertices")
            else:
                checks.expect(count < previous, f"label {label} LOD {lod}: {count} vertices, fewer than {previous}")
            previous = count


def check_sharded(checks, sharded, seg, lods_of):
    """The sharded copy: CloudVolume's sharded reader gets the unsharded meshes, LOD by LOD."""
    from cloudvolume import CloudVolume

    mesh_info = json.loads((sharded / "mesh" / "info").read_text())
    sharding = mesh_info.get("sharding", {})
    checks.expect(
        sharding.get("@type") == "neuroglancer_uint64_sharded_v1"
        and sharding.get("hash") == "murmurhash3_x86_128" and sharding.get("data_encoding") == "raw",
        f"sharded: the info names its sharding {sharding}",
    )
    files = sorted(p.name for p in (sharded / "mesh").iterdir())
    checks.expect(files == ["0.shard", "info"], f"sharded: one shard file for 4 segments ({files})")
    cv_sharded = CloudVolume(f"file://{sharded}", progress=False)
    cv = CloudVolume(f"file://{seg}", progress=False)
    for label in LABELS:
        same = True
        for lod in range(lods_of.get(label, 0)):
            a = cv_sharded.mesh.get(label, lod=lod)
            b = cv.mesh.get(label, lod=lod)
            a = a[label] if isinstance(a, dict) else a
            b = b[label] if isinstance(b, dict) else b
            same = same and np.array_equal(a.vertices, b.vertices) and np.array_equal(a.faces, b.faces)
        checks.expect(same and lods_of.get(label, 0) > 0,
                      f"sharded: label {label}'s {lods_of.get(label, 0)} LODs read back as the unsharded ones")


def check_corruption(checks, seg, work):
    from cloudvolume import CloudVolume
    from cloudvolume.exceptions import MeshDecodeError

    broken = work / "seg-broken"
    shutil.copytree(seg, broken)
    index = broken / "mesh" / "1.index"
    index.write_bytes(index.read_bytes() + b"\0\0\0\0")
    cv = CloudVolume(f"file://{broken}", progress=False)
    try:
        cv.mesh.get(1, lod=0)
        checks.expect(False, "a manifest with bytes past its end is an error for CloudVolume")
    except MeshDecodeError as error:
        checks.expect(True, f"a manifest with bytes past its end is an error for CloudVolume: {error}")
    import DracoPy

    data = broken / "mesh" / "3"
    data.write_bytes(b"\x00" * len(data.read_bytes()))
    try:
        cv.mesh.get(3, lod=0)
        checks.expect(False, "fragments overwritten with zeros are an error for CloudVolume")
    except (MeshDecodeError, DracoPy.FileTypeException) as error:
        checks.expect("draco" in str(error).lower(),
                      f"fragments overwritten with zeros are an error for CloudVolume: {error}")


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
    info_path = work / "base" / "info"
    info = json.loads(info_path.read_text())
    info["scales"][0]["voxel_offset"] = list(OFFSET)
    info_path.write_text(json.dumps(info))
    shutil.copytree(work / "base", work / "seg")
    shutil.copytree(work / "base", work / "legacy")
    shutil.copytree(work / "base", work / "sharded")
    # Unsimplified (--max-simplification-error 0), so that LOD 0 is the
    # marching-cubes mesh; tests/interop/python/mesh_simplification_interop.py
    # checks simplified multires meshes.
    cli(args.chunkwise, "mesh", work / "labels.zarr", work / "seg", "--format", "multires",
        "--chunk", "16,16,16", "--lods", "3", "--threads", "2", "--max-simplification-error", "0")
    cli(args.chunkwise, "mesh", work / "labels.zarr", work / "legacy", "--chunk", "16,16,16",
        "--max-simplification-error", "0")
    cli(args.chunkwise, "mesh", work / "labels.zarr", work / "sharded", "--format", "multires-sharded",
        "--chunk", "16,16,16", "--lods", "3", "--max-simplification-error", "0")
    checks = Checks()
    check_info(checks, work / "seg")
    lods_of = check_manifests(checks, work / "seg")
    check_cloudvolume(checks, work / "seg", work / "legacy", volume, lods_of)
    check_sharded(checks, work / "sharded", work / "seg", lods_of)
    check_corruption(checks, work / "seg", work)
    checks.finish()


if __name__ == "__main__":
    main()
