"""zarr-vectors interop with zarr-vectors 0.9.2, the release PyPI serves (the
pinned .venv). PyPI has no 0.8.x release (only 0.2.0 and 0.9.2), so the 0.8
reference implementation our stores follow cannot run here.

What cannot cross, checked so that docs/interop.md stays true:
- zarr-vectors 0.9.2 cannot read our 0.8.0 stores. 0.9 stores each per-chunk
  family as one vlen-bytes array over the chunk grid (`vertices/c/i/j/k`)
  where 0.8 has one single-chunk uint8 array per chunk
  (`vertices/<i.j.k>/c/0`), and merges cross_chunk_links into
  links/<delta>/<offsets>. Its Dataset API opens a 0.8 store and read()
  silently returns no vertices; require_format(">=0.9") and
  RootMetadata.validate refuse it ("no backwards-compat shim").
- chunkwise reads 0.9.2 stores since #43 (vectors09_interop.py checks more).

What does cross, both ways, value for value:
- Our stores are zarr v3: zarr-python 3 opens every node of a graph, a mesh
  and a 3-level pyramid we write, and each blob array reads whole.
- The blob encodings are the same in both layouts. zarr-vectors' own decoders
  read our blobs: ZVFG fragment indexes (decode_fragments), ragged link and
  cell blobs (decode_ragged_blob), and perm_idx (apply_perm_inverse): the
  graph's edges come back with their direction, the mesh's triangles with
  their winding, and every pyramid vertex's parent is the centroid of its
  children.
- The library's decoders (tests/interop/vectors_blob_tool) read zarr-vectors'
  0.9.2 cell payloads: fragment indexes (DecodeFragmentIndex), the ragged
  cross-chunk link cells (DecodeRaggedBlob; a 0.9 group holds several records
  where 0.8 holds one, so our 0.8 cell decoder itself refuses them) and
  perm_idx (DecodeLehmer); with the 0.9 offsets rule the edges of a graph it
  wrote come back exactly, direction included, and so do the +1 links of the
  pyramid it built: every vertex has one parent, the centroid of its children.

usage: .venv/bin/python vectors_current_interop.py --chunkwise build/chunkwise --tool vectors_blob_tool --workdir DIR
"""
import argparse
import importlib.metadata
import json
import pathlib
import shutil
import sys
import warnings

import numpy as np
import zarr

warnings.simplefilter("ignore")
import zarr_vectors  # noqa: E402
from zarr_vectors.core.metadata import RootMetadata  # noqa: E402
from zarr_vectors.encoding.fragments import decode_fragments  # noqa: E402
from zarr_vectors.encoding.ragged import decode_ragged_blob  # noqa: E402
from zarr_vectors.multiresolution.coarsen import build_pyramid  # noqa: E402
from zarr_vectors.spatial.boundary import apply_perm_inverse  # noqa: E402
from zarr_vectors.types.graphs import write_graph  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "python"))
from interop_check import Checks, run  # noqa: E402
from vectors_interop import make_mesh  # noqa: E402


def cli(binary, *args, ok=True):
    return run([binary, "--quiet", *args], expect_success=ok)


def f32(p):
    return tuple(float(np.float32(c)) for c in p)


def chunk_of(key):
    return tuple(int(c) for c in key.split("."))


def children(path):
    return sorted(p.name for p in path.iterdir() if p.is_dir()) if path.is_dir() else []


def delta_name(delta):
    return "0" if delta == 0 else f"{delta:+d}"


def make_graph(work, rng):
    """400 nodes in 5 objects and ~530 directed edges, many crossing chunks, as CSV."""
    nodes = rng.uniform(0, 100, size=(400, 3)).astype("<f4")
    edges = np.array([(i, (i * 7 + 3) % 400) for i in range(400)] + [(i, (i + 1) % 400) for i in range(0, 400, 3)])
    edges = edges[edges[:, 0] != edges[:, 1]]
    _, first = np.unique(edges, axis=0, return_index=True)
    edges = edges[np.sort(first)]
    (work / "nodes.csv").write_text("x,y,z,object_id\n" + "".join(
        f"{float(x)!r},{float(y)!r},{float(z)!r},{i % 5}\n" for i, (x, y, z) in enumerate(nodes)))
    (work / "edges.csv").write_text("source,target\n" + "".join(f"{a},{b}\n" for a, b in edges))
    return nodes, edges


# ---- our stores, through zarr-python 3 and zarr-vectors' decoders -------------------------------

def blob(store, node):
    """A 0.8 per-chunk blob read by zarr-python 3: a 1-D uint8 array that is one chunk."""
    array = zarr.open_array(str(store / node), mode="r")
    assert array.dtype == np.uint8 and array.shape == array.chunks, node
    return array[...].tobytes()


class OurLevel:
    """One level of one of our stores, decoded with zarr-vectors 0.9.2's functions."""

    def __init__(self, store, level):
        self.store, self.level = store, level
        self.path = store / str(level)
        self.vertices = {chunk_of(k): np.frombuffer(blob(store, f"{level}/vertices/{k}"), "<f4").reshape(-1, 3)
                         for k in children(self.path / "vertices")}

    def fragments_cover_vertices(self):
        """decode_fragments reads each fragment index; its fragments cover the chunk's vertices."""
        for key in children(self.path / "vertex_fragments"):
            index = decode_fragments(blob(self.store, f"{self.level}/vertex_fragments/{key}"))
            rows = sorted(int(r) for f in range(len(index)) for r in index.indices(f))
            if rows != list(range(len(self.vertices[chunk_of(key)]))):
                return False
        return True

    def links(self, delta, width, other=None):
        """Each link as a tuple of positions in input order: endpoint 0 at this level, the
        others at `other` (level + delta; this level when delta is 0)."""
        levels = [self] + [other or self] * (width - 1)
        out = []
        name = delta_name(delta)
        for key in children(self.path / "links" / name):
            for group in decode_ragged_blob(blob(self.store, f"{self.level}/links/{name}/{key}"), np.dtype("<i8"),
                                            width):
                for row in group.reshape(-1, width):
                    out.append(tuple(lv.position(chunk_of(key), int(v)) for lv, v in zip(levels, row)))
        for key in children(self.path / "cross_chunk_links" / name):
            numbers = chunk_of(key)
            chunks = [numbers[3 * i:3 * i + 3] for i in range(width)]
            node = f"{self.level}/cross_chunk_links/{name}/{key}"
            for record in decode_ragged_blob(blob(self.store, node), np.dtype("<i8"), width + 1):
                perm, vis = int(record[0][0]), [int(v) for v in record[0][1:]]
                ends = apply_perm_inverse(list(zip(chunks, vis)), perm, width)
                out.append(tuple(lv.position(c, v) for lv, (c, v) in zip(levels, ends)))
        return out

    def position(self, chunk, vi):
        return f32(self.vertices[tuple(chunk)][vi])


def check_zarr_opens_ours(checks, store, what):
    group = zarr.open_group(str(store), mode="r")
    members = list(group.members(max_depth=None))
    arrays = [(name, node) for name, node in members if isinstance(node, zarr.Array)]
    on_disk = sum(1 for p in store.rglob("zarr.json")) - 1
    readable = all(node.dtype == np.uint8 and len(node[...].tobytes()) == node.shape[0] for _, node in arrays
                   if node.ndim == 1 and node.dtype == np.uint8)
    checks.expect(len(members) == on_disk and arrays and readable,
                  f"{what}: zarr-python 3 opens all {len(members)} nodes ({len(arrays)} arrays) and reads each blob")


def check_zarr_vectors_cannot_read(checks, store, what, vertices):
    """0.9.2 opens a 0.8 store without complaint but reads nothing from it; its format check
    (require_format) and its root-metadata validation refuse the version."""
    dataset = zarr_vectors.open(str(store))
    result = dataset.read()
    refusals = []
    try:
        zarr_vectors.require_format(dataset, ">=0.9")
    except Exception as error:  # noqa: BLE001
        refusals.append(str(error))
    try:
        attrs = json.loads((store / "zarr.json").read_text())["attributes"]
        RootMetadata.from_dict(attrs).validate()
    except Exception as error:  # noqa: BLE001
        refusals.append(str(error))
    checks.expect(result.vertex_count == 0 and vertices > 0 and len(refusals) == 2 and
                  "format 0.8.0" in refusals[0] and "zv_version is 0.8.0" in refusals[1],
                  f"{what}: zarr-vectors 0.9.2 cannot read our 0.8.0 store: read() returns {result.vertex_count} of "
                  f"{vertices} vertices; require_format and RootMetadata.validate refuse 0.8.0")


def check_ours(checks, binary, work):
    rng = np.random.default_rng(4)
    nodes, edges = make_graph(work, rng)
    graph = work / "graph.zarrvectors"
    cli(binary, "vectors", "write", graph, "--type", "graph", "--input", work / "nodes.csv", "--edges",
        work / "edges.csv", "--chunk-shape", "25,25,25", "--layout", "0.8")
    verts, faces = make_mesh(work)
    mesh = work / "mesh.zarrvectors"
    cli(binary, "vectors", "write", mesh, "--type", "mesh", "--input", work / "mesh.ply", "--chunk-shape", "10,10,10",
        "--layout", "0.8")
    pyramid = work / "pyramid.zarrvectors"
    shutil.copytree(graph, pyramid)
    cli(binary, "vectors", "pyramid", pyramid, "--levels", "3")
    for store, count in ((graph, len(nodes)), (mesh, len(verts)), (pyramid, len(nodes))):
        check_zarr_opens_ours(checks, store, store.name)
        check_zarr_vectors_cannot_read(checks, store, store.name, count)

    level = OurLevel(graph, 0)
    checks.expect(level.fragments_cover_vertices(), "graph: zarr-vectors' decode_fragments reads our fragment indexes")
    got = sorted(level.links(0, 2))
    want = sorted((f32(nodes[a]), f32(nodes[b])) for a, b in edges)
    checks.expect(got == want, f"graph: zarr-vectors' ragged and perm_idx decoders give our {len(want)} edges, "
                               f"direction kept")
    level = OurLevel(mesh, 0)
    got = sorted(level.links(0, 3))
    want = sorted(tuple(f32(verts[v]) for v in face) for face in faces)
    checks.expect(got == want, f"mesh: zarr-vectors' decoders give our {len(want)} triangles, winding kept")
    for n in range(2):
        fine, coarse = OurLevel(pyramid, n), OurLevel(pyramid, n + 1)
        parents = {}
        for child, parent in fine.links(+1, 2, other=coarse):
            parents.setdefault(parent, []).append(child)
        count = sum(len(v) for v in fine.vertices.values())
        centroid = all(np.allclose(np.mean(np.array(c, "<f8"), axis=0), p, atol=1e-3) for p, c in parents.items())
        checks.expect(sum(len(c) for c in parents.values()) == count and centroid and fine.fragments_cover_vertices(),
                      f"pyramid: via zarr-vectors' decoders, all {count} level-{n} vertices have one parent at level "
                      f"{n + 1}, the centroid of its children")


# ---- their stores, through our decoders ---------------------------------------------------------

def cell_payloads(store, node):
    """{grid index: bytes} of a 0.9 vlen-bytes array, and its attributes."""
    array = zarr.open_array(str(store / node), mode="r")
    values = array[...]
    return {idx: bytes(values[idx]) for idx in np.ndindex(array.shape) if values[idx]}, dict(array.attrs)


def tool_json(tool, *args):
    return json.loads(run([tool, *map(str, args)]).stdout)


def their_edges(tool, store, work, level, positions_of):
    """The links within one 0.9 level (links/0/<offsets>), via our decoders, as position pairs
    in input order."""
    out = []
    delta_dir = store / str(level) / "links" / "0"
    if delta_dir.is_dir():
        for offsets_dir in sorted(p for p in delta_dir.iterdir() if p.is_dir()):
            cells, attrs = cell_payloads(store, offsets_dir.relative_to(store).as_posix())
            offset = np.array(attrs["offsets"][0])
            origin = np.array(attrs.get("chunk_grid_origin", [0, 0, 0]))
            for idx, payload in cells.items():
                source = tuple(int(c) for c in np.array(idx) + origin)
                target = tuple(int(c) for c in np.array(source) + offset)
                if not attrs["has_perm"]:
                    rows = np.frombuffer(payload, "<i8").reshape(-1, 2)
                    out += [(positions_of(source, int(a)), positions_of(source, int(b))) for a, b in rows]
                    continue
                path = work / "cell.bin"
                path.write_bytes(payload)
                # 0.9 groups hold several records (0.8: one per group), so our ragged-blob
                # decoder splits the groups and each group is read as rows of (perm_idx, vi, vi).
                records = [group[i:i + 3] for group in tool_json(tool, "ragged", path)
                           for i in range(0, len(group), 3)]
                for perm, vi_source, vi_target in records:
                    order = tool_json(tool, "lehmer", perm, 2)
                    # The record holds (source, target) sorted by chunk; order[i] is the input
                    # position of sorted slot i.
                    slots = sorted([(source, vi_source), (target, vi_target)])
                    ends = [None, None]
                    for i, slot in enumerate(slots):
                        ends[order[i]] = slot
                    out.append(tuple(positions_of(c, v) for c, v in ends))
    return out


def their_parents(tool, store, work, level, fine, coarse):
    """(child position, parent position) of every links/+1 record of a 0.9 level, via our ragged
    decoder: cells keyed by the child's chunk, rows (vi child, vi parent in child chunk + offset);
    cross-level records carry no perm_idx."""
    out = []
    family = store / str(level) / "links" / "+1"
    for offsets_dir in sorted(p for p in family.iterdir() if p.is_dir()):
        cells, attrs = cell_payloads(store, offsets_dir.relative_to(store).as_posix())
        origin = np.array(attrs.get("chunk_grid_origin", [0, 0, 0]))
        for idx, payload in cells.items():
            source = tuple(int(c) for c in np.array(idx) + origin)
            target = tuple(int(c) for c in np.array(source) + np.array(attrs["offsets"][0]))
            path = work / "cell.bin"
            path.write_bytes(payload)
            for group in tool_json(tool, "ragged", path):
                for child, parent in zip(group[0::2], group[1::2]):
                    out.append((f32(fine[source][child]), f32(coarse[target][parent])))
    return out


def their_vertices(tool, store, work, level):
    cells, attrs = cell_payloads(store, f"{level}/vertices")
    origin = np.array(attrs.get("chunk_grid_origin", [0, 0, 0]))
    vertices = {}
    covered = True
    fragments, _ = cell_payloads(store, f"{level}/vertex_fragments")
    for idx, payload in cells.items():
        chunk = tuple(int(c) for c in np.array(idx) + origin)
        vertices[chunk] = np.frombuffer(payload, "<f4").reshape(-1, 3)
        path = work / "fragments.bin"
        path.write_bytes(fragments[idx])
        rows = []
        for fragment in tool_json(tool, "fragments", path):
            rows += (list(range(fragment["start"], fragment["start"] + fragment["count"])) if fragment["range"]
                     else fragment["indices"])
        covered = covered and sorted(rows) == list(range(len(vertices[chunk])))
    return vertices, covered


def check_theirs(checks, binary, tool, work):
    rng = np.random.default_rng(9)
    positions = rng.uniform(0, 40, size=(60, 3)).astype("<f4")
    edges = np.array([(i, (i * 7 + 3) % 60) for i in range(60)])
    edges = edges[edges[:, 0] != edges[:, 1]]
    store = work / "theirs.zv"
    shutil.rmtree(store, ignore_errors=True)
    write_graph(str(store), positions, edges, chunk_shape=(10, 10, 10), object_ids=np.arange(60) % 3)
    cli(binary, "vectors", "read", store, "--output", work / "theirs.npy")
    got_positions = np.load(work / "theirs.npy")
    got_edges = sorted((f32(got_positions[a]), f32(got_positions[b]))
                       for a, b in np.load(work / "theirs.links.npy"))
    checks.expect(got_edges == sorted((f32(positions[a]), f32(positions[b])) for a, b in edges),
                  "chunkwise reads the 0.9.2 graph's edges, direction kept (#43)")

    vertices, covered = their_vertices(tool, store, work, 0)
    checks.expect(covered, "our fragment-index decoder reads zarr-vectors' 0.9.2 vertex_fragments cells")
    got = sorted(their_edges(tool, store, work, 0, lambda c, v: f32(vertices[c][v])))
    want = sorted((f32(positions[a]), f32(positions[b])) for a, b in edges)
    checks.expect(got == want, f"our ragged-blob and perm_idx decoders give back the {len(want)} edges "
                               f"zarr-vectors wrote, direction kept")

    build_pyramid(str(store), factors=[(2.0, 1.0)])
    coarse, covered = their_vertices(tool, store, work, 1)
    links = their_parents(tool, store, work, 0, vertices, coarse)
    children_of = {}
    for child, parent in links:
        children_of.setdefault(parent, []).append(child)
    every_child_once = sorted(c for c, _ in links) == sorted(f32(v) for vs in vertices.values() for v in vs)
    centroid = all(np.allclose(np.mean(np.array(c, "<f8"), axis=0), p, atol=1e-3) for p, c in children_of.items())
    checks.expect(covered and every_child_once and centroid and len(children_of) == sum(map(len, coarse.values())),
                  f"our decoders read the pyramid zarr-vectors built: each of the {len(links)} level-0 vertices has "
                  f"one parent among the {len(children_of)} at level 1, the centroid of its children")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunkwise", required=True, type=pathlib.Path)
    parser.add_argument("--tool", required=True, type=pathlib.Path)
    parser.add_argument("--workdir", required=True, type=pathlib.Path)
    args = parser.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    args.workdir.mkdir(parents=True)
    print(f"     zarr-vectors {importlib.metadata.version('zarr-vectors')}, zarr {importlib.metadata.version('zarr')}")
    checks = Checks()
    check_ours(checks, args.chunkwise, args.workdir)
    check_theirs(checks, args.chunkwise, args.tool, args.workdir)
    checks.finish()


if __name__ == "__main__":
    main()
