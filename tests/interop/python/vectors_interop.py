"""zarr-vectors interop: our CLI writes stores of every geometry type (and a
pyramid); this script reads them straight from the format 0.8 byte layout
(docs/formats/vectors.md) with json, numpy and numcodecs only — not through
chunkwise — and checks it finds the links it wrote: chunk-local rows,
cross-chunk cells with perm_idx decoded back to the input order (edge
direction, triangle winding), link attributes, and the pyramid's +1/-1 links.
zarr 2.13 cannot open zarr v3 nodes, so zarr.json is parsed with json and
chunks are decoded with numcodecs.

usage: /usr/bin/python3 vectors_interop.py --chunkwise build/chunkwise --workdir DIR
"""
import json
import math
import shutil

import numcodecs
import numpy as np

from interop_check import Checks, command_line, run


# --- an independent reader of the 0.8 layout -------------------------------------------------

def decode_chunk(node, metadata, chunk_name):
    raw = (node / chunk_name).read_bytes()
    for codec in reversed(metadata["codecs"]):
        if codec["name"] == "zstd":
            raw = numcodecs.Zstd().decode(raw)
        elif codec["name"] == "gzip":
            raw = numcodecs.GZip().decode(raw)
        elif codec["name"] != "bytes":
            raise ValueError(f"{node}: codec {codec['name']} not handled here")
    return bytes(raw)


def read_blob(node):
    """A per-chunk blob: a 1-D uint8 zarr v3 array stored as one chunk at c/0."""
    meta = json.loads((node / "zarr.json").read_text())
    assert meta["zarr_format"] == 3 and meta["node_type"] == "array", node
    assert meta["data_type"] == "uint8" and meta["shape"] == meta["chunk_grid"]["configuration"]["chunk_shape"], node
    blob = decode_chunk(node, meta, "c/0")
    assert len(blob) == meta["shape"][0], node
    return blob


def read_plain_array(node):
    """A plain zarr v3 array (cross-chunk link attributes), regular grid along dim 0."""
    meta = json.loads((node / "zarr.json").read_text())
    dtype = np.dtype({"float32": "<f4", "float64": "<f8", "int64": "<i8"}[meta["data_type"]])
    shape = meta["shape"]
    chunk0 = meta["chunk_grid"]["configuration"]["chunk_shape"][0]
    out = np.zeros(shape, dtype=dtype)
    for start in range(0, shape[0], chunk0):
        index = start // chunk0
        name = "c/" + "/".join([str(index)] + ["0"] * (len(shape) - 1))
        data = np.frombuffer(decode_chunk(node, meta, name), dtype=dtype)
        block = data.reshape([chunk0] + shape[1:])
        stop = min(shape[0], start + chunk0)
        out[start:stop] = block[: stop - start]
    return out


def group_attrs(node):
    return json.loads((node / "zarr.json").read_text())["attributes"]


def ragged(blob):
    k = int(np.frombuffer(blob[:8], "<i8")[0])
    offsets = [int(o) for o in np.frombuffer(blob[8:8 + 8 * k], "<i8")]
    data = blob[8 + 8 * k:]
    ends = offsets[1:] + [len(data)]
    return [data[a:b] for a, b in zip(offsets, ends)]


def lehmer_decode(code, length):
    pool = list(range(length))
    sorted_idx = []
    for i in range(length):
        f = math.factorial(length - 1 - i)
        p, code = divmod(code, f)
        sorted_idx.append(pool.pop(p))
    return sorted_idx


def chunk_key(key):
    return tuple(int(c) for c in key.split("."))


def children(path):
    return sorted(p.name for p in path.iterdir() if p.is_dir()) if path.is_dir() else []


def delta_name(delta):
    return "0" if delta == 0 else f"{delta:+d}"


class Level:
    """Vertices by (chunk, vi), and links at a delta as (chunk, vi) tuples in input order."""

    def __init__(self, root, level):
        self.path = root / str(level)
        self.vertices = {}
        for key in children(self.path / "vertices"):
            self.vertices[chunk_key(key)] = np.frombuffer(read_blob(self.path / "vertices" / key), "<f4").reshape(-1, 3)

    def position(self, endpoint):
        chunk, vi = endpoint
        return tuple(float(c) for c in self.vertices[chunk][vi])

    def links(self, delta, width):
        """(chunk-local rows, cross-chunk records, cross records' perm_idx list)."""
        local, cross, perms = [], [], []
        family = self.path / "links" / delta_name(delta)
        for key in children(family):
            for group in ragged(read_blob(family / key)):
                rows = np.frombuffer(group, "<i8").reshape(-1, width)
                local += [tuple((chunk_key(key), int(vi)) for vi in row) for row in rows]
        cells = self.path / "cross_chunk_links" / delta_name(delta)
        for cell in children(cells):  # ASCII order = the enumeration order of attribute rows.
            coords = [int(c) for c in cell.split(".")]
            chunks = [tuple(coords[3 * i:3 * i + 3]) for i in range(width)]
            assert chunks == sorted(chunks), cell
            for record in ragged(read_blob(cells / cell)):
                values = [int(v) for v in np.frombuffer(record, "<i8")]
                perm, vi = values[0], values[1:]
                sorted_idx = lehmer_decode(perm, width)
                endpoints = [None] * width
                for slot in range(width):
                    endpoints[sorted_idx[slot]] = (chunks[slot], vi[slot])
                cross.append(tuple(endpoints))
                perms.append(perm)
        if cells.is_dir():
            assert group_attrs(cells)["num_links"] == len(cross)
        return local, cross, perms

    def chunk_attribute(self, name, delta, channels=1):
        values = []
        family = self.path / "link_attributes" / name / delta_name(delta)
        for key in children(family):
            values.append(np.frombuffer(read_blob(family / key), "<f4").reshape(-1, channels))
        return values


# --- inputs ----------------------------------------------------------------------------------

def make_graph(work, rng):
    nodes = rng.uniform(0, 100, size=(400, 3)).astype("<f4")
    edges = np.array([(i, (i * 7 + 3) % 400) for i in range(400)] + [(i, (i + 1) % 400) for i in range(0, 400, 3)])
    edges = edges[edges[:, 0] != edges[:, 1]]
    _, first = np.unique(edges, axis=0, return_index=True)
    edges = edges[np.sort(first)]  # Each edge once, so its weight identifies it.
    weight = (np.arange(len(edges)) * 0.25).astype("<f4")
    with open(work / "nodes.csv", "w") as f:
        f.write("x,y,z,object_id\n")
        for i, (x, y, z) in enumerate(nodes):
            f.write(f"{x!r},{y!r},{z!r},{i % 5}\n")
    with open(work / "edges.csv", "w") as f:
        f.write("source,target,weight\n")
        for (a, b), w in zip(edges, weight):
            f.write(f"{a},{b},{w!r}\n")
    return nodes, edges, weight


def make_mesh(work):
    # Triangles whose corners sit in up to three chunks, listed so the canonical sort must reorder them.
    verts = np.array([[25, 1, 1], [5, 1, 1], [15, 1, 1], [6, 2, 2], [7, 3, 1], [5, 25, 5], [15, 15, 15]], "<f4")
    faces = np.array([[0, 1, 2], [2, 0, 1], [1, 3, 4], [6, 5, 0], [4, 6, 3]])
    header = (f"ply\nformat binary_little_endian 1.0\nelement vertex {len(verts)}\nproperty float x\nproperty float y\n"
              f"property float z\nelement face {len(faces)}\nproperty list uchar int vertex_indices\nend_header\n")
    body = verts.tobytes() + b"".join(bytes([3]) + f.astype("<i4").tobytes() for f in faces)
    (work / "mesh.ply").write_bytes(header.encode() + body)
    return verts, faces


def make_skeleton(work):
    lines, positions, parents = [], [], []
    for i in range(30):
        p = (float(i) * 1.7, 3.0 + (i % 4), 0.5 * i)
        parent = -1 if i == 0 else i  # Sample i+1's parent is sample i: edges point back toward the root.
        lines.append(f"{i + 1} 3 {p[0]!r} {p[1]!r} {p[2]!r} 1.0 {parent}")
        positions.append(p)
        parents.append(parent - 1 if parent > 0 else -1)
    (work / "cell.swc").write_text("\n".join(lines) + "\n")
    return np.array(positions, "<f4"), parents


# --- checks ----------------------------------------------------------------------------------

def as_positions(level, records):
    return sorted(tuple(level.position(e) for e in record) for record in records)


def f32(p):
    return tuple(float(np.float32(c)) for c in p)


def check_graph(checks, cli, work, rng):
    nodes, edges, weight = make_graph(work, rng)
    store = work / "graph.zarrvectors"
    run([cli, "--quiet", "vectors", "write", store, "--type", "graph", "--input", work / "nodes.csv", "--edges",
         work / "edges.csv", "--chunk-shape", "25,25,25", "--layout", "0.8"])
    root = json.loads((store / "zarr.json").read_text())["attributes"]["zarr_vectors"]
    checks.expect(root["zv_version"] == "0.8.0" and root["geometry_types"] == ["graph"], "graph: root metadata")
    level = Level(store, 0)
    local, cross, _ = level.links(0, 2)
    expected = sorted((f32(nodes[a]), f32(nodes[b])) for a, b in edges)
    checks.expect(len(local) > 0 and len(cross) > 0, f"graph: {len(local)} chunk-local and {len(cross)} cross-chunk links")
    checks.expect(as_positions(level, local + cross) == expected, "graph: every edge found, direction kept")
    # Weights: chunk-local rows parallel to the link rows, cross-chunk rows in cell order.
    by_edge = {(f32(nodes[a]), f32(nodes[b])): w for (a, b), w in zip(edges, weight)}
    local_w = np.concatenate(level.chunk_attribute("weight", 0)).ravel()
    cross_w = read_plain_array(store / "0" / "cross_chunk_link_attributes" / "weight" / "0" / "data")
    found = [by_edge[tuple(level.position(e) for e in r)] for r in local] + [by_edge[tuple(level.position(e) for e in r)] for r in cross]
    checks.expect(np.array_equal(np.concatenate([local_w, cross_w]), np.array(found, "<f4")),
                  "graph: link attributes line up with the links (chunk-local and cross-chunk)")
    attrs = group_attrs(store / "0" / "cross_chunk_link_attributes" / "weight" / "0")
    checks.expect(attrs["num_links"] == len(cross), "graph: cross-chunk attribute num_links")
    # Chunk assignment is floor(position / chunk_shape).
    ok = all(tuple(int(c) for c in np.floor(v / 25.0)) == chunk for chunk, vs in level.vertices.items() for v in vs)
    checks.expect(ok, "graph: vertices sit in floor(pos / chunk_shape)")
    return store, nodes, edges


def check_pyramid(checks, cli, store, storage):
    run([cli, "--quiet", "vectors", "pyramid", store, "--levels", "4", "--cross-level-storage", storage])
    run([cli, "--quiet", "vectors", "validate", store, "--level", "4"])
    root = json.loads((store / "zarr.json").read_text())["attributes"]
    checks.expect("multiscale_links" in root["zarr_vectors"]["format_capabilities"], f"pyramid {storage}: capability")
    checks.expect(len(root["multiscales"][0]["datasets"]) == 4, f"pyramid {storage}: four levels listed")
    across = 0
    for n in range(3):
        fine, coarse = Level(store, n), Level(store, n + 1)
        local, cross, _ = fine.links(+1, 2)
        across += len(cross)
        owners = sorted(r[0] for r in local + cross)
        all_fine = sorted((c, vi) for c, vs in fine.vertices.items() for vi in range(len(vs)))
        checks.expect(owners == all_fine, f"pyramid {storage}: every level-{n} vertex has one parent")
        # links/+1 rows: the parent lives in the same chunk key at the coarser level.
        checks.expect(all(r[1][0] in coarse.vertices and r[1][1] < len(coarse.vertices[r[1][0]]) for r in local + cross),
                      f"pyramid {storage}: level-{n} parents exist at level {n + 1}")
        mirror = (store / str(n + 1) / "links" / "-1").is_dir()
        if storage == "explicit":
            down_local, down_cross, _ = coarse.links(-1, 2)
            checks.expect(sorted((r[1], r[0]) for r in down_local + down_cross) == sorted(local + cross),
                          f"pyramid explicit: level {n + 1}'s -1 links mirror level {n}'s +1 links")
        else:
            checks.expect(not mirror, f"pyramid implicit: level {n + 1} stores no -1 links")
    checks.expect(across > 0, f"pyramid {storage}: some parent links cross chunks")


def check_mesh(checks, cli, work):
    verts, faces = make_mesh(work)
    store = work / "mesh.zarrvectors"
    run([cli, "--quiet", "vectors", "write", store, "--type", "mesh", "--input", work / "mesh.ply", "--chunk-shape", "10,10,10",
         "--layout", "0.8"])
    level = Level(store, 0)
    local, cross, perms = level.links(0, 3)
    checks.expect(any(p != 0 for p in perms), "mesh: some cross-chunk faces needed a non-identity perm_idx")
    triangle_cells = children(store / "0" / "cross_chunk_links" / "0")
    checks.expect(all(len(c.split(".")) == 9 for c in triangle_cells), "mesh: cell keys have 9 components")
    expected = sorted(tuple(f32(verts[i]) for i in f) for f in faces)
    checks.expect(as_positions(level, local + cross) == expected, "mesh: every face found with its winding")


def check_skeleton(checks, cli, work):
    positions, parents = make_skeleton(work)
    store = work / "cell.zarrvectors"
    run([cli, "--quiet", "vectors", "write", store, "--type", "skeleton", "--input", work / "cell.swc", "--chunk-shape", "8,8,8",
         "--layout", "0.8"])
    level = Level(store, 0)
    local, cross, perms = level.links(0, 2)
    expected = sorted((f32(positions[c]), f32(positions[p])) for c, p in enumerate(parents) if p >= 0)
    checks.expect(1 in perms, "skeleton: a child->parent edge was stored swapped (perm_idx 1)")
    checks.expect(as_positions(level, local + cross) == expected, "skeleton: edges still run child -> parent")
    out = work / "cell_out.swc"
    run([cli, "--quiet", "vectors", "read", store, "--output", out])
    rows = [line.split() for line in out.read_text().splitlines() if line and not line.startswith("#")]
    by_id = {int(r[0]): f32((float(r[2]), float(r[3]), float(r[4]))) for r in rows}
    back = sorted((by_id[int(r[0])], by_id[int(r[6])]) for r in rows if int(r[6]) != -1)
    checks.expect(back == expected, "skeleton: `vectors read` gives an SWC with the same tree")


def check_bbox_read(checks, cli, work, store, nodes, edges):
    out = work / "box.csv"
    run([cli, "--quiet", "vectors", "read", store, "--bbox", "10,20,0,60,90,50", "--output", out])
    got = np.genfromtxt(out, delimiter=",", names=True)
    inside = np.all((nodes >= [10, 20, 0]) & (nodes <= [60, 90, 50]), axis=1)
    checks.expect(len(got) == int(inside.sum()), f"bbox read: {len(got)} vertices, expected {int(inside.sum())}")
    links = np.genfromtxt(work / "box.links.csv", delimiter=",", names=True)
    pts = np.stack([got["x"], got["y"], got["z"]], axis=1).astype("<f4")
    found = sorted((tuple(pts[int(a)]), tuple(pts[int(b)])) for a, b in zip(np.atleast_1d(links["source"]), np.atleast_1d(links["target"])))
    want = sorted((tuple(nodes[a]), tuple(nodes[b])) for a, b in edges if inside[a] and inside[b])
    checks.expect(found == want, f"bbox read: {len(want)} edges with both ends inside")


def check_points(checks, cli, work, rng):
    pts = rng.uniform(-50, 50, size=(1000, 3)).astype("<f4")
    np.save(work / "points.npy", pts)
    store = work / "points.zarrvectors"
    run([cli, "--quiet", "vectors", "write", store, "--type", "points", "--input", work / "points.npy", "--chunk-shape", "20,20,20",
         "--layout", "0.8"])
    level = Level(store, 0)
    got = np.concatenate(list(level.vertices.values()))
    checks.expect(sorted(map(tuple, got)) == sorted(map(tuple, pts)), "points: every point stored once, bit-exact")
    checks.expect(any(min(k) < 0 for k in level.vertices), "points: negative chunk keys for negative coordinates")
    fragments = read_blob(store / "0" / "vertex_fragments" / children(store / "0" / "vertex_fragments")[0])
    checks.expect(fragments[:4] == b"GFVZ" and int(np.frombuffer(fragments[4:6], "<u2")[0]) == 1, "points: ZVFG fragment index")
    result = run([cli, "vectors", "validate", store, "--level", "3"])
    checks.expect("valid" in result.stdout, "points: validate passes")
    # A store another writer broke: the validator names the path and fails.
    victim = store / "0" / "vertices" / children(store / "0" / "vertices")[0] / "c" / "0"
    victim.write_bytes(b"\x00" * 7)
    bad = run([cli, "vectors", "validate", store, "--level", "1"], expect_success=False)
    checks.expect("malformed_blob" in bad.stdout and "0/vertices/" in bad.stdout, "validate names a broken blob's path")


def main():
    args, work = command_line("--chunkwise")
    checks = Checks()
    rng = np.random.default_rng(11)
    store, nodes, edges = check_graph(checks, args.chunkwise, work, rng)
    check_bbox_read(checks, args.chunkwise, work, store, nodes, edges)
    check_pyramid(checks, args.chunkwise, store, "explicit")
    implicit = work / "graph_implicit.zarrvectors"
    shutil.copytree(store, implicit)
    check_pyramid(checks, args.chunkwise, implicit, "implicit")
    check_mesh(checks, args.chunkwise, work)
    check_skeleton(checks, args.chunkwise, work)
    check_points(checks, args.chunkwise, work, rng)
    checks.finish()


if __name__ == "__main__":
    main()
