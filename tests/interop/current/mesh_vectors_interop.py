"""zarr-vectors mesh stores written by `chunkwise mesh --format vectors` (#41),
every resolution level read by zarr-vectors 0.9.2's own reader (the pinned
.venv), against what our `vectors read` gives and our legacy meshes of the
same labels.

- The store is layout 0.9, with --lods 3 levels; zarr-vectors lists levels
  0, 1, 2 and read_mesh opens each: every face names vertices of that level.
- Per label and level, zarr-vectors' counts equal ours (`chunkwise vectors
  read --level L --object ID` into .obj): vertices (read_object_vertices,
  following the label's object manifest) and faces (read_link_arrays, each
  face's corners mapped to the label whose fragments hold them; all three
  corners belong to one label).
- Level 0 per label: every triangle, as its three corner positions in
  winding order, equals the legacy fragment's triangles (read_mesh's
  vertices and faces).
- Coarser levels hold fewer triangles (level 2 fewer than level 0 in all),
  and the chunks are small enough that faces cross chunks.
- Unsimplified meshes (--max-simplification-error 0) get their coarser
  levels by clustering: read by zarr-vectors too, the same counts as ours.

usage: .venv/bin/python mesh_vectors_interop.py --chunkwise build/chunkwise --workdir DIR
"""
import collections
import pathlib
import struct
import warnings

import numpy as np

warnings.simplefilter("ignore")
from zarr_vectors.core.arrays import (read_chunk_vertices, read_link_arrays,  # noqa: E402
                                      read_object_manifest, read_object_vertices)
from zarr_vectors.core.store import get_resolution_level, list_resolution_levels, open_store  # noqa: E402
from zarr_vectors.types.meshes import read_mesh  # noqa: E402

from geometry_setup import labelled_segmentation  # noqa: E402

LEVELS = 3


def legacy_triangles(path):
    data = path.read_bytes()
    (count,) = struct.unpack_from("<I", data, 0)
    xyz = np.frombuffer(data, "<f4", 3 * count, 4).reshape(-1, 3)
    faces = np.frombuffer(data, "<u4", offset=4 + 12 * count).reshape(-1, 3)
    return [tuple(tuple(p) for p in xyz[f].tolist()) for f in faces]


def theirs(store, ids):
    """Per level, as zarr-vectors reads it: {label: [vertices, faces]}, each label's faces
    as corner positions in winding order, and read_mesh's face count and index check."""
    root = open_store(str(store))
    out = {}
    for level in list_resolution_levels(root):
        group = get_resolution_level(root, level)
        owner, position = {}, {}  # (chunk, vi) -> label and position, from the labels' manifests.
        counts = {}
        for label in ids:
            counts[label] = [sum(len(f) for f in read_object_vertices(group, label)), 0]
            for chunk, fragment in read_object_manifest(group, label):
                key = tuple(int(c) for c in chunk)
                groups = read_chunk_vertices(group, key)
                start = sum(len(g) for g in groups[:fragment])
                for i, p in enumerate(groups[fragment].tolist()):
                    owner[(key, start + i)] = label
                    position[(key, start + i)] = tuple(p)
        chunks, vi = read_link_arrays(group, delta=0)
        mixed, crossing = 0, 0
        faces = collections.defaultdict(list)
        for face_chunks, face_vi in zip(chunks.tolist(), vi.tolist()):
            corners = [(tuple(c), v) for c, v in zip(face_chunks, face_vi)]
            labels = {owner.get(c) for c in corners}
            if len(labels) != 1 or None in labels:
                mixed += 1
                continue
            crossing += len({c for c, _ in corners}) > 1
            label = next(iter(labels))
            counts[label][1] += 1
            faces[label].append(tuple(position[c] for c in corners))
        mesh = read_mesh(str(store), level=level)
        valid = mesh["faces"].size == 0 or (mesh["faces"].min() >= 0 and
                                            mesh["faces"].max() < mesh["vertex_count"])
        out[level] = dict(counts=counts, faces=faces, mixed=mixed, valid=bool(valid),
                          face_count=mesh["face_count"], crossing=crossing)
    return out


def ours(cli, store, ids, levels, work):
    """Per level: {label: [vertices, faces]} as `chunkwise vectors read` gives them."""
    out = collections.defaultdict(dict)
    for level in levels:
        for label in ids:
            obj = work / f"{pathlib.Path(store).stem}-l{level}-{label}.obj"
            cli("vectors", "read", store, "--level", str(level), "--object", str(label), "--output", obj)
            lines = obj.read_text().splitlines()
            out[level][label] = [sum(ln.startswith("v ") for ln in lines), sum(ln.startswith("f ") for ln in lines)]
    return out


def main():
    setup = labelled_segmentation(["zarr-vectors"])
    work, checks, cli, ids, seg = setup.work, setup.checks, setup.cli, setup.ids, setup.seg
    cli("mesh", seg, seg, "--chunk", "16,32,32")

    for name, extra in (("simplified", []), ("unsimplified", ["--max-simplification-error", "0"])):
        store = work / f"{name}.zarrvectors"
        cli("mesh", seg, store, "--format", "vectors", "--chunk", "16,32,32", "--lods", str(LEVELS), *extra)
        read = theirs(store, ids)
        checks.expect(sorted(read) == list(range(LEVELS)),
                      f"{name}: zarr-vectors lists levels {sorted(read)} of {LEVELS}")
        mine = ours(cli, store, ids, sorted(read), work)
        for level in sorted(read):
            got = read[level]
            total = sum(f for _, f in got["counts"].values())
            checks.expect(got["valid"] and got["mixed"] == 0 and got["face_count"] == total,
                          f"{name} level {level}: read_mesh's {got['face_count']} faces name vertices of "
                          f"the level, each face's corners one label's")
            checks.expect({k: list(v) for k, v in got["counts"].items()} == mine[level],
                          f"{name} level {level}: vertices and faces per label equal ours "
                          f"({sorted(mine[level].items())[:3]} ...)")
        checks.expect(read[0]["crossing"] > 0, f"{name}: {read[0]['crossing']} level-0 faces cross chunks")
        checks.expect(read[LEVELS - 1]["face_count"] < read[0]["face_count"],
                      f"{name}: level {LEVELS - 1} has fewer faces ({read[LEVELS - 1]['face_count']}) "
                      f"than level 0 ({read[0]['face_count']})")
        if name == "simplified":
            for label in ids:
                want = legacy_triangles(seg / "mesh" / f"{label}:0:all")
                checks.expect(sorted(read[0]["faces"][label]) == sorted(want) and len(want) > 20,
                              f"label {label} level 0: {len(want)} triangles, corners and winding, "
                              f"equal the legacy mesh's")
    checks.finish()


if __name__ == "__main__":
    main()
