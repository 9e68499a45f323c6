"""zarr-vectors skeleton stores written by `chunkwise skeletonize --format
vectors` (#41), read by code we did not write, value for value against our
own precomputed output of the same labels (the pinned .venv). Mesh stores,
which are layout 0.9 with several levels, have their own test
(mesh_vectors_interop.py).

Which reader: zarr-vectors 0.9.2 (PyPI's only current release) cannot read
the 0.8 layout we write (tests/interop/current/vectors_current_interop.py
says why; checked again here: its Dataset reads no vertices from our stores).
So the stores are read with zarr-python 3 (every vertex, vertex-attribute and
link blob is a zarr v3 array) and decoded with zarr-vectors 0.9.2's own
functions, whose blob encodings are the same in both layouts:
decode_ragged_blob for the per-chunk and cross-chunk link cells and
apply_perm_inverse for the cross-chunk records' endpoint order.

- Skeletons: per label (the object_id attribute), the (x, y, z, radius) of
  every vertex equal to the precomputed skeleton file's vertices and radii,
  and every edge, as (child, parent) positions, equal to the file's edges.
- The store uses chunks small enough that links cross chunks.

usage: .venv/bin/python geometry_vectors_interop.py --chunkwise build/chunkwise --workdir DIR
"""
import collections
import json
import warnings

import numpy as np
import zarr

warnings.simplefilter("ignore")
import zarr_vectors  # noqa: E402
from zarr_vectors.encoding.ragged import decode_ragged_blob  # noqa: E402
from zarr_vectors.spatial.boundary import apply_perm_inverse  # noqa: E402

from geometry_setup import labelled_segmentation  # noqa: E402
from skeleton_interop import decode  # noqa: E402


def children(path):
    return sorted(p.name for p in path.iterdir() if p.is_dir()) if path.is_dir() else []


def chunk_of(key):
    return tuple(int(c) for c in key.split("."))


def blob(store, node):
    """A 0.8 per-chunk blob read by zarr-python 3: a 1-D uint8 array that is one chunk."""
    array = zarr.open_array(str(store / node), mode="r")
    assert array.dtype == np.uint8 and array.shape == array.chunks, node
    return array[...].tobytes()


def read_store(store, attribute=None):
    """Level 0 of one of our stores: per label, its vertices as tuples (x, y, z[, attribute])
    and its links as tuples of endpoint positions in their stored order."""
    level = store / "0"
    rows = {}  # (chunk, vi) -> (position, label, attribute value)
    for key in children(level / "vertices"):
        xyz = np.frombuffer(blob(store, f"0/vertices/{key}"), "<f4").reshape(-1, 3)
        ids = np.frombuffer(blob(store, f"0/vertex_attributes/object_id/{key}"), "<i8")
        extra = (np.frombuffer(blob(store, f"0/vertex_attributes/{attribute}/{key}"), "<f4")
                 if attribute else [None] * len(xyz))
        for vi, (p, label, value) in enumerate(zip(xyz.tolist(), ids.tolist(), extra)):
            rows[(chunk_of(key), vi)] = (tuple(p), int(label), value)
    width = 3 if json.loads((store / "zarr.json").read_text())["attributes"]["zarr_vectors"][
        "geometry_types"] == ["mesh"] else 2
    links = []
    for key in children(level / "links" / "0"):
        for group in decode_ragged_blob(blob(store, f"0/links/0/{key}"), np.dtype("<i8"), width):
            for row in group.reshape(-1, width):
                links.append([(chunk_of(key), int(v)) for v in row])
    for key in children(level / "cross_chunk_links" / "0"):
        numbers = chunk_of(key)
        chunks = [numbers[3 * i:3 * i + 3] for i in range(width)]
        for record in decode_ragged_blob(blob(store, f"0/cross_chunk_links/0/{key}"), np.dtype("<i8"),
                                         width + 1):
            perm, vis = int(record[0][0]), [int(v) for v in record[0][1:]]
            links.append([(tuple(c), v) for c, v in apply_perm_inverse(list(zip(chunks, vis)), perm, width)])
    vertices = collections.defaultdict(list)
    for position, label, value in rows.values():
        vertices[label].append(position + ((float(value),) if attribute else ()))
    by_label = collections.defaultdict(list)
    crossing = 0
    for ends in links:
        crossing += len({c for c, _ in ends}) > 1
        by_label[rows[ends[0]][1]].append(tuple(rows[e][0] for e in ends))
    return vertices, by_label, crossing


def main():
    setup = labelled_segmentation(["zarr-vectors", "zarr"])
    work, checks, cli, ids, seg = setup.work, setup.checks, setup.cli, setup.ids, setup.seg

    # Skeletons: precomputed into the segmentation, and a vectors store of 200 nm chunks.
    cli("skeletonize", seg, seg, "--const", "120")
    skel = work / "skel.zarrvectors"
    cli("skeletonize", seg, skel, "--format", "vectors", "--const", "120", "--chunk-shape", "200,200,200")
    dataset = zarr_vectors.open(str(skel))
    checks.expect(dataset.read().vertex_count == 0,
                  "zarr-vectors 0.9.2's Dataset reads no vertices from our 0.8 store: read by zarr-python 3")
    vertices, edges, crossing = read_store(skel, "radius")
    checks.expect(sorted(vertices) == ids and crossing > 0,
                  f"skeleton store: objects {sorted(vertices)} (labels {ids}); {crossing} edges cross chunks")
    for label in ids:
        xyz, pairs, radii, _ = decode(seg / "skeletons" / str(label))
        want = sorted(tuple(p) + (float(r),) for p, r in zip(xyz.tolist(), radii.tolist()))
        checks.expect(sorted(vertices[label]) == want,
                      f"label {label}: {len(want)} vertices and radii equal the precomputed skeleton's")
        want_edges = sorted((tuple(xyz[a].tolist()), tuple(xyz[b].tolist())) for a, b in pairs)
        checks.expect(sorted(edges[label]) == want_edges,
                      f"label {label}: {len(want_edges)} edges (child, parent) equal the precomputed ones")

    checks.finish()


if __name__ == "__main__":
    main()
