"""Skeleton interop: CloudVolume reads the neuroglancer precomputed skeletons
`chunkwise skeletonize` writes, and they hold what kimimaro 5.8.5 draws on the
same labels (the pinned .venv).

- Synthetic labels (uint64, z, y, x): a straight tube, a Y of three arms, an
  L-shaped bend and a thick trunk with a thin side branch, at an anisotropic
  voxel size, made a zarr array and a precomputed segmentation by the CLI.
- `chunkwise skeletonize SEG SEG`: the segmentation's info names the
  skeletons; CloudVolume('file://SEG').skeleton.get(label) gives our
  vertices, edges and radii exactly (decoded here from the file's bytes too).
- Quality against kimimaro.skeletonize on the same labels, voxel size and
  invalidation ball: every vertex of ours lies inside its label, our
  cable length is within 10 % of kimimaro's for each label, and our
  vertices' balls (each of its radius) cover at least the fraction of the
  label's voxels that kimimaro's cover.
- `--format precomputed-sharded` into a second segmentation: the skeleton
  info names a neuroglancer_uint64_sharded_v1 sharding, the labels live in
  shard files alone, and CloudVolume's cv.skeleton.get(label) reads every
  label's vertices, edges and radii equal to the unsharded output's; again
  with 5184 labels (2x2x2 cubes), so that the spec has a shard bit and nine
  minishard bits and the hashed ids spread over two shard files.
- SWC output (one file per label, parents before children), a zarr source,
  and the CLI's refusals: skeletons already there (exit 1, --overwrite
  replaces them), a missing source named in the error.

usage: .venv/bin/python skeleton_interop.py --chunkwise build/chunkwise --workdir DIR
"""
import json
import pathlib
import struct
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from interop_check import Checks, command_line, run  # noqa: E402

SHAPE = (24, 100, 120)  # z, y, x
VOXEL = (8.0, 8.0, 20.0)  # x, y, z nm
SCALE, CONST = 1.5, 120.0


def tube(labels, label, a, b, radius):
    """Voxels within `radius` (voxels, in the x-y voxel scale) of segment a-b (z, y, x)."""
    z, y, x = np.meshgrid(*[np.arange(n) for n in labels.shape], indexing="ij")
    # Distances in physical units, so the tube is round whatever the voxel size.
    p = np.stack([z * VOXEL[2], y * VOXEL[1], x * VOXEL[0]], axis=-1).astype(np.float64)
    a = np.array(a, dtype=np.float64) * [VOXEL[2], VOXEL[1], VOXEL[0]]
    b = np.array(b, dtype=np.float64) * [VOXEL[2], VOXEL[1], VOXEL[0]]
    ab = b - a
    t = np.clip(((p - a) @ ab) / (ab @ ab), 0, 1)
    d = np.linalg.norm(p - (a + t[..., None] * ab), axis=-1)
    labels[d <= radius * VOXEL[0]] = label


def make_labels():
    # Every label keeps off the volume's faces: kimimaro roots a label that
    # touches one at the face (its fix_borders, for joining chunks), which
    # would make the comparison one of roots rather than of skeletons.
    labels = np.zeros(SHAPE, dtype=np.uint64)
    tube(labels, 11, (12, 8, 6), (12, 8, 112), 4)  # straight
    centre = (12, 45, 40)
    for end in [(12, 45, 7), (12, 25, 75), (12, 70, 78)]:  # Y
        tube(labels, 2**40 + 5, centre, end, 4)
    tube(labels, 7, (12, 90, 10), (12, 90, 60), 3.5)  # L
    tube(labels, 7, (12, 90, 60), (12, 60, 100), 3.5)
    tube(labels, 9, (12, 40, 92), (12, 93, 110), 5)  # trunk with a thin side branch
    tube(labels, 9, (12, 66, 101), (12, 84, 75), 2.5)
    return labels


def decode(path):
    data = path.read_bytes()
    nv, ne = struct.unpack_from("<II", data, 0)
    vertices = np.frombuffer(data, "<f4", nv * 3, 8).reshape(nv, 3)
    edges = np.frombuffer(data, "<u4", ne * 2, 8 + nv * 12).reshape(ne, 2)
    radii = np.frombuffer(data, "<f4", nv, 8 + nv * 12 + ne * 8)
    checks_size = len(data) == 8 + nv * 16 + ne * 8
    return vertices, edges, radii, checks_size


def cable(vertices, edges):
    return float(np.linalg.norm(vertices[edges[:, 0]] - vertices[edges[:, 1]], axis=1).sum())


def coverage(labels, label, vertices, radii):
    """The fraction of the label's voxels (their centres, nm, x, y, z) within
    some vertex's radius of that vertex."""
    z, y, x = np.nonzero(labels == label)
    centres = (np.stack([x, y, z], axis=1) + 0.5) * np.array(VOXEL)
    covered = np.zeros(len(centres), dtype=bool)
    for vertex, radius in zip(np.asarray(vertices, dtype=np.float64), radii):
        covered |= ((centres - vertex) ** 2).sum(axis=1) <= float(radius) ** 2
    return float(covered.mean())


def inside(labels, label, vertices):
    voxel = np.floor(vertices / np.array(VOXEL)).astype(np.int64)  # x, y, z
    if (voxel < 0).any() or (voxel >= np.array(SHAPE[::-1])).any():
        return False
    return bool((labels[voxel[:, 2], voxel[:, 1], voxel[:, 0]] == label).all())


def check_many_sharded(checks, cli, work):
    """5184 labels: SegmentSharding gives 1 shard bit and 9 minishard bits; CloudVolume reads
    every label from the shards equal to the unsharded files."""
    from cloudvolume import CloudVolume  # noqa: E402

    shape = (32, 36, 36)
    z, y, x = np.meshgrid(*[np.arange(n) // 2 for n in shape], indexing="ij")
    labels = (z * 18 * 18 + y * 18 + x + 1).astype(np.uint32)
    np.save(work / "many.npy", labels)
    zarr, seg = work / "many.zarr", work / "many_seg"
    cli("zarr", "create", zarr, "--shape", ",".join(map(str, shape)), "--dtype", "uint32",
        "--chunk", "16,18,18")
    cli("zarr", "write", zarr, "--input", work / "many.npy")
    cli("zarr", "to-precomputed", zarr, seg, "--resolution", "4,4,4")
    cli("skeletonize", seg, work / "many_plain", "--const", "4")
    cli("skeletonize", seg, seg, "--format", "precomputed-sharded", "--const", "4")
    sharding = json.loads((seg / "skeletons" / "info").read_text())["sharding"]
    shards = sorted(p.name for p in (seg / "skeletons").iterdir() if p.name != "info")
    checks.expect((sharding["shard_bits"], sharding["minishard_bits"]) == (1, 9) and shards == ["0.shard", "1.shard"],
                  f"5184 labels: shard_bits {sharding['shard_bits']}, minishard_bits {sharding['minishard_bits']}, "
                  f"shards {shards}")
    ids = [int(v) for v in np.unique(labels)]
    cv = CloudVolume(f"file://{seg}", progress=False)
    got = {int(s.id): s for s in cv.skeleton.get(ids)}
    same = len(got) == len(ids)
    for label in ids:
        vertices, edges, radii, _ = decode(work / "many_plain" / str(label))
        skel = got.get(label)
        same = same and skel is not None and np.array_equal(np.asarray(skel.vertices, np.float32), vertices) \
            and np.array_equal(np.asarray(skel.edges), edges.astype(skel.edges.dtype)) \
            and np.array_equal(np.asarray(skel.radius, np.float32), radii)
    checks.expect(same, f"CloudVolume reads all {len(ids)} sharded skeletons equal to the unsharded files")


def main():
    args, work = command_line("--chunkwise")
    checks = Checks()
    cw = args.chunkwise

    def cli(*cli_args, ok=True):
        return run([cw, "--quiet", *cli_args], expect_success=ok)

    labels = make_labels()
    ids = [int(v) for v in np.unique(labels) if v != 0]
    np.save(work / "labels.npy", labels)
    zarr = work / "labels.zarr"
    seg = work / "seg"
    cli("zarr", "create", zarr, "--shape", ",".join(map(str, SHAPE)), "--dtype", "uint64",
        "--chunk", "16,32,32")
    cli("zarr", "write", zarr, "--input", work / "labels.npy")
    cli("zarr", "to-precomputed", zarr, seg, "--chunk", "32,32,16",
        "--resolution", ",".join(str(v) for v in VOXEL))
    cli("skeletonize", seg, seg, "--scale", str(SCALE), "--const", str(CONST), "--threads", "2")

    info = json.loads((seg / "info").read_text())
    checks.expect(info.get("skeletons") == "skeletons", "the segmentation's info names its skeletons")
    skel_info = json.loads((seg / "skeletons" / "info").read_text())
    checks.expect(skel_info["@type"] == "neuroglancer_skeletons"
                  and skel_info["vertex_attributes"][0]["id"] == "radius",
                  "the skeleton info declares the radius attribute")

    from cloudvolume import CloudVolume  # noqa: E402
    import kimimaro  # noqa: E402

    cv = CloudVolume(f"file://{seg}", progress=False)
    anisotropy = VOXEL
    kimi = kimimaro.skeletonize(
        np.asfortranarray(labels.transpose(2, 1, 0)),  # x, y, z
        teasar_params={"scale": SCALE, "const": CONST, "pdrf_scale": 100000, "pdrf_exponent": 4},
        anisotropy=anisotropy, dust_threshold=0, progress=False, parallel=1, fix_branching=True)
    for label in ids:
        vertices, edges, radii, sized = decode(seg / "skeletons" / str(label))
        checks.expect(sized, f"label {label}: the file's size is its counts' (one radius each)")
        skel = cv.skeleton.get(label)
        checks.expect(np.array_equal(np.asarray(skel.vertices, dtype=np.float32), vertices)
                      and np.array_equal(np.asarray(skel.edges), edges.astype(skel.edges.dtype))
                      and np.array_equal(np.asarray(skel.radius, dtype=np.float32), radii),
                      f"label {label}: CloudVolume reads our vertices, edges and radii")
        checks.expect(len(vertices) > 10 and inside(labels, label, vertices),
                      f"label {label}: {len(vertices)} vertices, every one inside the label")
        ours = cable(vertices, edges)
        theirs = kimi[label].cable_length()
        checks.expect(abs(ours - theirs) <= 0.10 * theirs,
                      f"label {label}: cable {ours:.0f} nm, kimimaro {theirs:.0f} nm "
                      f"({100 * (ours - theirs) / theirs:+.1f} %)")
        # kimimaro places a vertex at its voxel's corner (index times voxel
        # size), we at its centre (as neuroglancer draws voxels): each is
        # measured in its own frame.
        ours_covered = coverage(labels, label, vertices, radii)
        theirs_covered = coverage(labels, label, np.asarray(kimi[label].vertices) + 0.5 * np.array(VOXEL),
                                  kimi[label].radius)
        checks.expect(ours_covered >= theirs_covered - 1e-9,
                      f"label {label}: {100 * ours_covered:.1f} % of its voxels within a vertex's "
                      f"radius, kimimaro {100 * theirs_covered:.1f} %")
    for label, what in [(2**40 + 5, "the Y"), (9, "the trunk with its side branch")]:
        degree = np.bincount(decode(seg / "skeletons" / str(label))[1].ravel())
        checks.expect(int((degree == 1).sum()) == 3 and int((degree >= 3).sum()) == 1,
                      f"{what} has three ends and one branch point")

    sharded = work / "seg_sharded"
    cli("zarr", "to-precomputed", zarr, sharded, "--chunk", "32,32,16",
        "--resolution", ",".join(str(v) for v in VOXEL))
    cli("skeletonize", sharded, sharded, "--format", "precomputed-sharded", "--scale", str(SCALE),
        "--const", str(CONST), "--threads", "2")
    sharding = json.loads((sharded / "skeletons" / "info").read_text()).get("sharding", {})
    checks.expect(sharding.get("@type") == "neuroglancer_uint64_sharded_v1",
                  f"the sharded skeleton info names its sharding: {sharding}")
    names = sorted(p.name for p in (sharded / "skeletons").iterdir())
    checks.expect(all(n == "info" or n.endswith(".shard") for n in names),
                  f"the sharded skeletons are shard files alone: {names}")
    cv_sharded = CloudVolume(f"file://{sharded}", progress=False)
    for label in ids:
        vertices, edges, radii, _ = decode(seg / "skeletons" / str(label))
        skel = cv_sharded.skeleton.get(label)
        checks.expect(np.array_equal(np.asarray(skel.vertices, dtype=np.float32), vertices)
                      and np.array_equal(np.asarray(skel.edges), edges.astype(skel.edges.dtype))
                      and np.array_equal(np.asarray(skel.radius, dtype=np.float32), radii),
                      f"label {label}: CloudVolume reads the sharded skeleton equal to the unsharded one")

    check_many_sharded(checks, cli, work)

    again = cli("skeletonize", seg, seg, ok=False)
    checks.expect(again.returncode == 1 and "already holds skeletons" in again.stderr,
                  "skeletons already there are refused (exit 1)")
    cli("skeletonize", seg, seg, "--overwrite", "--labels", "11", "--scale", str(SCALE),
        "--const", str(CONST))
    checks.expect(sorted(p.name for p in (seg / "skeletons").iterdir()) == ["11", "info"],
                  "--overwrite replaces them (label 11 alone)")

    swc = work / "swc"
    cli("skeletonize", zarr, swc, "--format", "swc", "--voxel-size", ",".join(str(v) for v in VOXEL),
        "--const", str(CONST))
    names = sorted(p.name for p in swc.iterdir())
    checks.expect(names == sorted(f"{label}.swc" for label in ids), f"one SWC per label: {names}")
    rows = [line.split() for line in (swc / "7.swc").read_text().splitlines()
            if line and not line.startswith("#")]
    seen = set()
    ordered = True
    for row in rows:
        ordered &= int(row[6]) == -1 or int(row[6]) in seen
        seen.add(int(row[0]))
    checks.expect(len(rows) > 10 and ordered, "SWC: parents come before children")
    swc_xyz = np.array([[float(v) for v in row[2:5]] for row in rows], dtype=np.float32)
    checks.expect(inside(labels, 7, swc_xyz), "SWC: every vertex inside the label")

    missing = cli("skeletonize", work / "absent.zarr", work / "out", ok=False)
    checks.expect(missing.returncode == 1 and "absent.zarr" in missing.stderr,
                  f"a missing source is an error naming it: {missing.stderr.strip()}")
    checks.finish()


if __name__ == "__main__":
    main()
