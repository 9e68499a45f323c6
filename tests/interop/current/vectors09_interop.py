"""zarr-vectors layout 0.9 (#43): stores zarr-vectors 0.9.2 (the pinned .venv)
writes, read by `chunkwise vectors read` value for value, and the points we
write in 0.9 read by zarr-vectors.

- Points with a float32 vertex attribute, some at negative coordinates (so the
  family arrays have a chunk_grid_origin below zero): every (x, y, z,
  intensity) row comes back, bit for bit.
- Cells compressed with zstd after vlen-bytes read; sharded arrays are
  refused (Unsupported) naming the array.
- A graph whose edges cross chunks along every offset: every edge comes back
  as its two endpoint positions in the order zarr-vectors was given (the
  perm_idx of the canonical-sorted records undone), and a box read keeps only
  the edges with both ends inside.
- A mesh: every triangle comes back as its three corner positions in the
  winding zarr-vectors was given, across chunks.
- Points with a float32 attribute that we write with `--layout 0.9`, read by
  zarr-vectors 0.9.2 (read_points and Dataset.read) bit for bit, and by us;
  an unknown --layout is refused and leaves no store.
- A graph and a mesh that we write with `--layout 0.9` (edges and triangles
  inside chunks and across them along many offsets), read by zarr-vectors
  0.9.2 (read_graph, read_mesh, Dataset.read): every edge in its direction and
  every triangle in its winding, as endpoint positions, bit for bit.
- `vectors convert`: zarr-vectors' own 0.9 graph and mesh converted to 0.8
  read back the same; our 0.8 points, graph and mesh converted to 0.9 are
  read by zarr-vectors the same. An existing destination is refused without
  --overwrite; an unknown layout is refused and leaves no store.
- 0.9 stores whose stored lengths disagree with the data (a vlen element
  length, ragged offsets past the data, intra link rows or vertex rows cut
  short) are refused with Corruption naming the cell.
- Polylines zarr-vectors writes (links implicit inside each vertex fragment,
  explicit across chunks; some lines leave a chunk and come back): every step
  comes back as its two positions in walk order, and converted to 0.8 too.
- Polylines with object ids that we write in the default layout (0.9):
  read_polylines returns each object's vertices in walk order, and so after
  our 0.8 -> 0.9 convert; we read back every step and object id.
- Skeletons: zarr-vectors' (two trees with branches across chunks) read by
  us as [child, parent] edges with object ids, also converted to 0.8; ours
  from SWC read by read_graph edge for edge.
- Object ids (up to 1000000007) both ways and through convert both ways;
  --object reads one object of a 0.9 store.
- zarr-vectors' line segments (geometry 'line'), whose cross-chunk records
  name the wrong rows, are refused with Unsupported.
- Link attributes (1 and 3 channels) both ways: zarr-vectors' graph read
  by us and after convert to 0.8; ours written in the default layout and
  converted back to 0.9, read by read_link_arrays + read_link_attributes.
- A store whose zv_version names a layout we do not know is refused with
  Unsupported, naming the store's zarr.json and the version.

usage: .venv/bin/python vectors09_interop.py --chunkwise build/chunkwise --workdir DIR
"""
import argparse
import importlib.metadata
import json
import pathlib
import shutil
import sys
import warnings

import numpy as np

warnings.simplefilter("ignore")
from zarr_vectors.core.arrays import read_chunk_vertices, read_link_arrays, read_link_attributes  # noqa: E402
from zarr_vectors.core.store import get_resolution_level, open_store  # noqa: E402
from zarr_vectors.types.graphs import read_graph, write_graph  # noqa: E402
from zarr_vectors.types.meshes import read_mesh, write_mesh  # noqa: E402
import zarr_vectors  # noqa: E402
from zarr_vectors.types.points import read_points, write_points  # noqa: E402
from zarr_vectors.types.lines import write_lines  # noqa: E402
from zarr_vectors.types.polylines import read_polylines, write_polylines  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "python"))
from interop_check import Checks, run  # noqa: E402


def cli(binary, *args, ok=True):
    return run([binary, "--quiet", *args], expect_success=ok)


def read_csv(path):
    """Header names and rows parsed as float32 (what the store holds)."""
    lines = path.read_text().splitlines()
    names = lines[0].split(",")
    rows = [tuple(np.float32(v).item() for v in line.split(",")) for line in lines[1:] if line]
    return names, rows


def read_ours(binary, store, out, *extra):
    cli(binary, "vectors", "read", store, "--output", out, *extra)
    positions = np.load(out)
    links_path = out.with_name(out.stem + ".links.npy")
    links = np.load(links_path) if links_path.exists() else np.zeros((0, 2), "<i8")
    return positions, links


def f32(row):
    return tuple(np.float32(v).item() for v in row)


def check_points(checks, binary, work):
    rng = np.random.default_rng(43)
    positions = rng.uniform(-12, 20, size=(200, 3)).astype("<f4")
    intensity = rng.uniform(0, 1, size=200).astype("<f4")
    store = work / "points.zarrvectors"
    write_points(str(store), positions, chunk_shape=(8, 8, 8),
                 vertex_attributes={"intensity": intensity})
    origin = json.loads((store / "0" / "vertices" / "zarr.json").read_text())["attributes"].get(
        "chunk_grid_origin")
    names, rows = read_csv_of(binary, store, work / "points.csv")
    want = sorted(f32(p) + (np.float32(a).item(),) for p, a in zip(positions, intensity))
    checks.expect(names == ["x", "y", "z", "intensity"] and sorted(rows) == want and origin[0] < 0,
                  f"chunkwise reads the {len(want)} points and their intensity zarr-vectors 0.9.2 wrote "
                  f"(chunk_grid_origin {origin}), bit for bit")
    got, _ = read_ours(binary, store, work / "points.npy")
    checks.expect(sorted(map(f32, got)) == sorted(map(f32, positions)),
                  "the .npy output holds the same float32 positions")


def check_codecs(checks, binary, work):
    positions = np.random.default_rng(5).uniform(-5, 15, size=(40, 3)).astype("<f4")
    store = work / "zstd.zarrvectors"
    write_points(str(store), positions, chunk_shape=(8, 8, 8), compressor="zstd")
    codecs = [c["name"] for c in json.loads((store / "0" / "vertices" / "zarr.json").read_text())["codecs"]]
    got, _ = read_ours(binary, store, work / "zstd.npy")
    checks.expect(codecs == ["vlen-bytes", "zstd"] and sorted(map(f32, got)) == sorted(map(f32, positions)),
                  f"chunkwise reads cells compressed after vlen-bytes (codecs {codecs})")
    store = work / "sharded.zarrvectors"
    write_points(str(store), positions, chunk_shape=(8, 8, 8), shard_shape=2)
    result = cli(binary, "vectors", "read", store, "--output", work / "never.npy", ok=False)
    checks.expect("Unsupported" in result.stderr and "sharded" in result.stderr and "vertices" in result.stderr,
                  f"sharded 0.9 arrays are refused naming the array: {result.stderr.strip()[:160]}")


def read_csv_of(binary, store, out):
    cli(binary, "vectors", "read", store, "--output", out)
    return read_csv(out)


def check_graph(checks, binary, work):
    rng = np.random.default_rng(7)
    positions = rng.uniform(-10, 30, size=(80, 3)).astype("<f4")
    edges = np.array([(i, (i * 11 + 5) % 80) for i in range(80)])
    edges = edges[edges[:, 0] != edges[:, 1]]
    store = work / "graph.zarrvectors"
    write_graph(str(store), positions, edges, chunk_shape=(10, 10, 10))
    segments = sorted(p.name for p in (store / "0" / "links" / "0").iterdir() if p.is_dir())
    got_positions, got_links = read_ours(binary, store, work / "graph.npy")
    got = sorted((f32(got_positions[a]), f32(got_positions[b])) for a, b in got_links)
    want = sorted((f32(positions[a]), f32(positions[b])) for a, b in edges)
    checks.expect(sorted(map(f32, got_positions)) == sorted(map(f32, positions)) and got == want and
                  len(segments) > 2,
                  f"chunkwise reads the {len(want)} edges zarr-vectors 0.9.2 wrote over {len(segments)} "
                  f"offset arrays, each in its given direction")
    box = "-10:15,-10:30,-10:30"
    got_positions, got_links = read_ours(binary, store, work / "box.npy", "--region", box)
    inside = [-10 <= p[0] < 15 for p in positions]
    want_box = sorted((f32(positions[a]), f32(positions[b])) for a, b in edges if inside[a] and inside[b])
    got_box = sorted((f32(got_positions[a]), f32(got_positions[b])) for a, b in got_links)
    checks.expect(got_box == want_box and len(got_positions) == sum(inside),
                  f"a box read ({box}) returns the {sum(inside)} vertices inside and the "
                  f"{len(want_box)} edges with both ends inside")


def check_ours_read_by_them(checks, binary, work):
    rng = np.random.default_rng(99)
    positions = rng.uniform(-12, 20, size=(150, 3)).astype("<f4")
    intensity = rng.uniform(0, 1, size=150).astype("<f4")
    source = work / "ours.csv"
    with source.open("w") as f:
        f.write("x,y,z,intensity\n")
        for p, a in zip(positions, intensity):
            f.write(",".join(repr(float(v)) for v in (*p, a)) + "\n")
    store = work / "ours.zarrvectors"
    cli(binary, "vectors", "write", store, "--type", "points", "--input", source,
        "--chunk-shape", "8,8,8", "--layout", "0.9")
    theirs = read_points(str(store), attribute_names=["intensity"])
    got = sorted(zip(map(f32, theirs["positions"]), np.asarray(theirs["vertex_attributes"]["intensity"]).tolist()))
    want = sorted(zip(map(f32, positions), intensity.tolist()))
    result = zarr_vectors.open(str(store)).read()
    checks.expect(got == want and result.vertex_count == len(positions),
                  f"zarr-vectors 0.9.2 reads the {len(want)} points and intensities of a store we wrote with "
                  f"--layout 0.9 (read_points and Dataset.read), bit for bit")
    names, rows = read_csv_of(binary, store, work / "ours_back.csv")
    checks.expect(sorted(rows) == sorted(f32(p) + (np.float32(a).item(),) for p, a in zip(positions, intensity)),
                  "chunkwise reads its own 0.9 store back")
    refused = cli(binary, "vectors", "write", work / "graph09.zarrvectors", "--type", "polyline", "--input",
                  source, "--chunk-shape", "8,8,8", "--layout", "0.7", ok=False)
    checks.expect("InvalidArgument" in refused.stderr and "0.7" in refused.stderr and
                  not (work / "graph09.zarrvectors").exists(),
                  f"an unknown --layout is refused and leaves no store, not even its folder: "
                  f"{refused.stderr.strip()[:160]}")


def check_validate_refuses(checks, binary, work):
    result = cli(binary, "vectors", "validate", work / "graph.zarrvectors", ok=False)
    checks.expect("Unsupported" in result.stderr and "0.9.2" in result.stderr and "malformed" not in result.stdout,
                  f"validate (0.8 checks) refuses a 0.9 store rather than report its arrays as malformed: "
                  f"{result.stderr.strip()[:160]}")


def check_pyramid_refuses(checks, binary, work):
    result = cli(binary, "vectors", "pyramid", work / "ours.zarrvectors", "--levels", "2", ok=False)
    checks.expect("Unsupported" in result.stderr and "0.9.2" in result.stderr,
                  f"vectors pyramid (0.8 only) refuses a 0.9 store: {result.stderr.strip()[:160]}")


def check_mesh(checks, binary, work):
    rng = np.random.default_rng(11)
    positions = rng.uniform(-5, 25, size=(60, 3)).astype("<f4")
    faces = np.array([(i, (i * 7 + 1) % 60, (i * 13 + 2) % 60) for i in range(60)])
    faces = faces[[len(set(f)) == 3 for f in faces]]
    store = work / "mesh.zarrvectors"
    write_mesh(str(store), positions, faces, chunk_shape=(10, 10, 10))
    got_positions, got_links = read_ours(binary, store, work / "mesh.npy")
    got = sorted(tuple(f32(got_positions[v]) for v in face) for face in got_links)
    want = sorted(tuple(f32(positions[v]) for v in face) for face in faces)
    checks.expect(got == want and got_links.shape[1:] == (3,),
                  f"chunkwise reads the {len(want)} triangles zarr-vectors 0.9.2 wrote, winding kept")


def links_as_positions(positions, links):
    return sorted(tuple(f32(positions[v]) for v in link) for link in links)


def write_csv(path, header, rows):
    with path.open("w") as f:
        f.write(header + "\n")
        for row in rows:
            f.write(",".join(repr(float(v)) if isinstance(v, (float, np.floating)) else str(int(v))
                             for v in row) + "\n")


def graph_input(work, seed=21):
    rng = np.random.default_rng(seed)
    positions = rng.uniform(-15, 35, size=(90, 3)).astype("<f4")
    edges = np.array([(i, (i * 13 + 4) % 90) for i in range(90) if i != (i * 13 + 4) % 90])
    write_csv(work / "g_nodes.csv", "x,y,z", positions)
    write_csv(work / "g_edges.csv", "source,target", edges)
    return positions, edges


def mesh_input(work, seed=23):
    rng = np.random.default_rng(seed)
    positions = rng.uniform(-8, 28, size=(70, 3)).astype("<f4")
    faces = np.array([(i, (i + 1) % 70, (i * 9 + 31) % 70) for i in range(70)])
    faces = faces[[len(set(f)) == 3 for f in faces]]
    with (work / "m.obj").open("w") as f:
        for p in positions:
            f.write("v " + " ".join(repr(float(v)) for v in p) + "\n")
        for face in faces:
            f.write("f " + " ".join(str(v + 1) for v in face) + "\n")
    return positions, faces


def check_graph_and_mesh_read_by_them(checks, binary, work):
    positions, edges = graph_input(work)
    store = work / "ours_graph.zarrvectors"
    cli(binary, "vectors", "write", store, "--type", "graph", "--input", work / "g_nodes.csv",
        "--edges", work / "g_edges.csv", "--chunk-shape", "10,10,10", "--layout", "0.9")
    segments = sorted(p.name for p in (store / "0" / "links" / "0").iterdir() if p.is_dir())
    theirs = read_graph(str(store))
    want = links_as_positions(positions, edges)
    result = zarr_vectors.open(str(store)).read()
    checks.expect(links_as_positions(theirs["positions"], theirs["edges"]) == want and len(segments) > 3
                  and sorted(map(f32, theirs["positions"])) == sorted(map(f32, positions))
                  and result.vertex_count == len(positions),
                  f"zarr-vectors 0.9.2 reads the {len(want)} edges of a graph we wrote with --layout 0.9 "
                  f"({len(segments)} offset arrays), each in its direction, bit for bit")
    got_positions, got_links = read_ours(binary, store, work / "ours_graph.npy")
    checks.expect(links_as_positions(got_positions, got_links) == want, "chunkwise reads its own 0.9 graph back")

    positions, faces = mesh_input(work)
    store = work / "ours_mesh.zarrvectors"
    cli(binary, "vectors", "write", store, "--type", "mesh", "--input", work / "m.obj",
        "--chunk-shape", "10,10,10", "--layout", "0.9")
    theirs = read_mesh(str(store))
    want = links_as_positions(positions, faces)
    checks.expect(links_as_positions(theirs["vertices"], theirs["faces"]) == want,
                  f"zarr-vectors 0.9.2 reads the {len(want)} triangles of a mesh we wrote with --layout 0.9, "
                  f"winding kept, bit for bit")
    got_positions, got_links = read_ours(binary, store, work / "ours_mesh.npy")
    checks.expect(links_as_positions(got_positions, got_links) == want, "chunkwise reads its own 0.9 mesh back")


def check_convert(checks, binary, work):
    # Theirs (0.9) -> ours 0.8, read by us.
    for name, key in (("graph", "edges"), ("mesh", "faces")):
        store = work / f"{name}.zarrvectors"
        out = work / f"{name}_as08.zarrvectors"
        reader = read_graph if name == "graph" else read_mesh
        theirs = reader(str(store))
        want = links_as_positions(theirs["positions" if name == "graph" else "vertices"], theirs[key])
        cli(binary, "vectors", "convert", store, out, "--layout", "0.8")
        version = json.loads((out / "zarr.json").read_text())["attributes"]["zarr_vectors"]["zv_version"]
        got_positions, got_links = read_ours(binary, out, work / f"{name}_as08.npy")
        checks.expect(version == "0.8.0" and links_as_positions(got_positions, got_links) == want,
                      f"a {name} zarr-vectors 0.9.2 wrote, converted to 0.8, holds its {len(want)} {key} "
                      f"(zv_version {version})")
    # Ours 0.8 -> 0.9, read by them.
    positions, edges = graph_input(work, seed=31)
    src = work / "g08.zarrvectors"
    cli(binary, "vectors", "write", src, "--type", "graph", "--input", work / "g_nodes.csv",
        "--edges", work / "g_edges.csv", "--chunk-shape", "10,10,10", "--layout", "0.8")
    dest = work / "g08_as09.zarrvectors"
    cli(binary, "vectors", "convert", src, dest)
    theirs = read_graph(str(dest))
    checks.expect(links_as_positions(theirs["positions"], theirs["edges"]) == links_as_positions(positions, edges),
                  "our 0.8 graph converted to 0.9 (the default) is read by zarr-vectors edge for edge")
    positions, faces = mesh_input(work, seed=33)
    src = work / "m08.zarrvectors"
    cli(binary, "vectors", "write", src, "--type", "mesh", "--input", work / "m.obj", "--chunk-shape", "10,10,10",
        "--layout", "0.8")
    cli(binary, "vectors", "convert", src, work / "m08_as09.zarrvectors", "--layout", "0.9")
    theirs = read_mesh(str(work / "m08_as09.zarrvectors"))
    checks.expect(links_as_positions(theirs["vertices"], theirs["faces"]) == links_as_positions(positions, faces),
                  "our 0.8 mesh converted to 0.9 is read by zarr-vectors triangle for triangle")
    rng = np.random.default_rng(35)
    points = rng.uniform(-12, 20, size=(100, 3)).astype("<f4")
    weight = rng.uniform(0, 1, size=100).astype("<f4")
    write_csv(work / "p.csv", "x,y,z,weight", [(*p, w) for p, w in zip(points, weight)])
    cli(binary, "vectors", "write", work / "p08.zarrvectors", "--type", "points", "--input", work / "p.csv",
        "--chunk-shape", "8,8,8", "--layout", "0.8")
    cli(binary, "vectors", "convert", work / "p08.zarrvectors", work / "p09.zarrvectors")
    theirs = read_points(str(work / "p09.zarrvectors"), attribute_names=["weight"])
    got = sorted(zip(map(f32, theirs["positions"]), np.asarray(theirs["vertex_attributes"]["weight"]).tolist()))
    checks.expect(got == sorted(zip(map(f32, points), weight.tolist())),
                  "our 0.8 points and their attribute converted to 0.9 are read by zarr-vectors bit for bit")
    before = (dest / "zarr.json").read_text()
    refused = cli(binary, "vectors", "convert", src, dest, ok=False)
    checks.expect("already" in refused.stderr.lower() or "exist" in refused.stderr.lower(),
                  f"convert refuses an existing destination without --overwrite: {refused.stderr.strip()[:160]}")
    cli(binary, "vectors", "convert", src, dest, "--overwrite")
    checks.expect((dest / "zarr.json").read_text() != before and
                  json.loads((dest / "zarr.json").read_text())["attributes"]["zarr_vectors"]["geometry_types"] == ["mesh"],
                  "convert --overwrite replaces the destination")
    write_csv(work / "attr_edges.csv", "source,target,weight", [(0, 1, 0.5), (1, 2, 1.5)])
    cli(binary, "vectors", "write", work / "attr08.zarrvectors", "--type", "graph", "--input", work / "p.csv",
        "--edges", work / "attr_edges.csv", "--chunk-shape", "8,8,8", "--layout", "0.8")
    refused = cli(binary, "vectors", "convert", work / "attr08.zarrvectors", work / "attr09.zarrvectors",
                  "--layout", "0.7", ok=False)
    checks.expect("InvalidArgument" in refused.stderr and not (work / "attr09.zarrvectors").exists(),
                  f"convert to an unknown layout is refused and leaves no store: {refused.stderr.strip()[:160]}")


def corrupt_copy(work, name, source):
    store = work / name
    shutil.rmtree(store, ignore_errors=True)
    shutil.copytree(work / source, store)
    return store


def cell_of(array_dir):
    return next(p for p in sorted((array_dir / "c").rglob("*")) if p.is_file())


def check_lengths_disagree(checks, binary, work):
    cases = []
    store = corrupt_copy(work, "bad_vlen.zarrvectors", "ours_graph.zarrvectors")
    cell = cell_of(store / "0" / "vertices")
    data = bytearray(cell.read_bytes())
    data[4:8] = (int.from_bytes(data[4:8], "little") + 12).to_bytes(4, "little")
    cell.write_bytes(bytes(data))
    cases.append(("a vertices cell whose vlen length exceeds its bytes", store, cell))
    store = corrupt_copy(work, "bad_ragged.zarrvectors", "ours_graph.zarrvectors")
    cross = next(p for p in sorted((store / "0" / "links" / "0").iterdir()) if p.is_dir() and p.name != "0.0.0")
    cell = cell_of(cross)
    data = bytearray(cell.read_bytes())
    data[16:24] = (10 ** 6).to_bytes(8, "little")  # The first group's offset, past the data.
    cell.write_bytes(bytes(data))
    cases.append(("a cross-chunk links cell whose ragged offset points past its data", store, cell))
    write_csv(work / "small_nodes.csv", "x,y,z", [(1.5, 1, 1), (2, 2, 2), (3, 3, 3), (12, 1, 1)])
    write_csv(work / "small_edges.csv", "source,target", [(0, 1), (1, 2), (2, 3)])
    cli(binary, "vectors", "write", work / "small.zarrvectors", "--type", "graph", "--input",
        work / "small_nodes.csv", "--edges", work / "small_edges.csv", "--chunk-shape", "10,10,10",
        "--layout", "0.9")
    store = corrupt_copy(work, "bad_rows.zarrvectors", "small.zarrvectors")
    cell = cell_of(store / "0" / "links" / "0" / "0.0.0")
    data = bytearray(cell.read_bytes())
    data = data[:-8]
    data[4:8] = (len(data) - 8).to_bytes(4, "little")
    cell.write_bytes(bytes(data))
    cases.append(("an intra-chunk links cell cut to half a row", store, cell))
    store = corrupt_copy(work, "bad_vertex_rows.zarrvectors", "small.zarrvectors")
    cell = cell_of(store / "0" / "vertices")
    data = bytearray(cell.read_bytes())[:-4]
    data[4:8] = (len(data) - 8).to_bytes(4, "little")
    cell.write_bytes(bytes(data))
    cases.append(("a vertices cell whose length is not whole xyz rows", store, cell))
    for what, store, cell in cases:
        result = cli(binary, "vectors", "read", store, "--output", work / "never.npy", ok=False)
        named = "/".join(cell.relative_to(store).parts)
        checks.expect("Corruption" in result.stderr and named in result.stderr and "Traceback" not in result.stderr,
                      f"{what} is Corruption naming {named}: {result.stderr.strip()[:200]}")


def check_polylines(checks, binary, work):
    rng = np.random.default_rng(17)
    lines = []
    for _ in range(12):
        start = rng.uniform(-10, 25, size=3)
        lines.append((start + np.cumsum(rng.uniform(-4, 4, size=(rng.integers(2, 15), 3)), axis=0)).astype("<f4"))
    lines.append(np.array([[1, 1, 1], [12, 1, 1], [2, 2, 2], [13, 3, 3], [3, 3, 3]], "<f4"))  # Back and forth.
    store = work / "lines.zarrvectors"
    write_polylines(str(store), lines, chunk_shape=(10, 10, 10))
    want = sorted((f32(line[i]), f32(line[i + 1])) for line in lines for i in range(len(line) - 1))
    got_positions, got_links = read_ours(binary, store, work / "lines.npy")
    got = links_as_positions(got_positions, got_links)
    checks.expect(got == want and len(got_positions) == sum(map(len, lines)),
                  f"chunkwise reads the {len(want)} steps of {len(lines)} polylines zarr-vectors 0.9.2 wrote "
                  f"(implicit inside fragments, explicit across chunks), each in walk order")
    bad = corrupt_copy(work, "bad_fragment.zarrvectors", "lines.zarrvectors")
    cell = cell_of(bad / "0" / "vertex_fragments")
    data = bytearray(cell.read_bytes())
    data[40:48] = (10 ** 12).to_bytes(8, "little")  # The first range's count: past the chunk.
    cell.write_bytes(bytes(data))
    result = cli(binary, "vectors", "read", bad, "--output", work / "never.npy", ok=False)
    checks.expect("Corruption" in result.stderr and "0/vertex_fragments/c/" in result.stderr,
                  f"a polyline fragment counting past its chunk's vertices is Corruption naming the cell: "
                  f"{result.stderr.strip()[:200]}")
    cli(binary, "vectors", "convert", store, work / "lines08.zarrvectors", "--layout", "0.8")
    got_positions, got_links = read_ours(binary, work / "lines08.zarrvectors", work / "lines08.npy")
    checks.expect(links_as_positions(got_positions, got_links) == want,
                  "those polylines converted to 0.8 hold the same steps")


def zv_version(store):
    return json.loads((store / "zarr.json").read_text())["attributes"]["zarr_vectors"]["zv_version"]


def read_rows_with_ids(binary, store, out):
    """(x, y, z, object_id) of every vertex chunkwise reads, sorted."""
    cli(binary, "vectors", "read", store, "--output", out)
    lines = out.read_text().splitlines()
    column = lines[0].split(",").index("object_id")
    rows = [line.split(",") for line in lines[1:] if line]
    return sorted((*f32(map(float, row[:3])), int(row[column])) for row in rows)


def random_lines(seed, count):
    rng = np.random.default_rng(seed)
    lines = []
    for _ in range(count):
        start = rng.uniform(-10, 25, size=3)
        steps = rng.uniform(-4, 4, size=(rng.integers(2, 15), 3))
        lines.append((start + np.cumsum(steps, axis=0)).astype("<f4"))
    lines.append(np.array([[1, 1, 1], [12, 1, 1], [2, 2, 2], [13, 3, 3], [3, 3, 3]], "<f4"))  # Back and forth.
    return lines


def check_polylines_read_by_them(checks, binary, work):
    lines = random_lines(41, 10)
    ids = [3 * i + 2 for i in range(len(lines))]
    write_csv(work / "lines_in.csv", "x,y,z,object_id",
              [(*p, oid) for line, oid in zip(lines, ids) for p in line])
    store = work / "ours_lines.zarrvectors"
    cli(binary, "vectors", "write", store, "--type", "polyline", "--input", work / "lines_in.csv",
        "--chunk-shape", "10,10,10")
    theirs = read_polylines(str(store), object_ids=ids)
    got = {int(oid): [f32(p) for p in np.concatenate(line) if len(p)] if isinstance(line, list)
           else [f32(p) for p in line] for oid, line in zip(theirs["object_ids"], theirs["polylines"])}
    want = {oid: [f32(p) for p in line] for oid, line in zip(ids, lines)}
    checks.expect(zv_version(store) == "0.9.2" and got == want,
                  f"zarr-vectors 0.9.2 reads the {len(lines)} polylines of a store we wrote in the default layout "
                  f"(zv_version {zv_version(store)}), each object's vertices in walk order, bit for bit")
    want_steps = sorted((f32(line[i]), f32(line[i + 1])) for line in lines for i in range(len(line) - 1))
    positions, links = read_ours(binary, store, work / "ours_lines.npy")
    want_rows = sorted((*f32(p), oid) for line, oid in zip(lines, ids) for p in line)
    checks.expect(links_as_positions(positions, links) == want_steps and
                  read_rows_with_ids(binary, store, work / "ours_lines.csv") == want_rows,
                  f"chunkwise reads its own 0.9 polylines back: the {len(want_steps)} steps in walk order and "
                  f"every vertex's object id")
    # Our 0.8 polylines converted to 0.9, read by them.
    cli(binary, "vectors", "write", work / "ourlines08.zarrvectors", "--type", "polyline", "--input",
        work / "lines_in.csv", "--chunk-shape", "10,10,10", "--layout", "0.8")
    cli(binary, "vectors", "convert", work / "ourlines08.zarrvectors", work / "ourlines08_as09.zarrvectors")
    theirs = read_polylines(str(work / "ourlines08_as09.zarrvectors"), object_ids=ids)
    got = {int(oid): [f32(p) for p in np.concatenate(line) if len(p)] if isinstance(line, list)
           else [f32(p) for p in line] for oid, line in zip(theirs["object_ids"], theirs["polylines"])}
    checks.expect(got == want, "our 0.8 polylines with object ids converted to 0.9 are read by zarr-vectors, "
                               "line for line and object for object")


def skeleton_input(seed=51):
    """Two trees (objects 4 and 9) with branches, crossing chunks; edges [child, parent]."""
    rng = np.random.default_rng(seed)
    positions, edges, objects = [], [], []
    for oid, base in ((4, 0), (9, 40)):
        first = len(positions)
        for i in range(40):
            parent = first + int(rng.integers(0, i)) if i else None
            positions.append(rng.uniform(-10, 30, size=3))
            objects.append(oid)
            if parent is not None:
                edges.append((first + i, parent))
    return np.array(positions, "<f4"), np.array(edges), np.array(objects)


def check_skeletons(checks, binary, work):
    positions, edges, objects = skeleton_input()
    want = links_as_positions(positions, edges)
    want_rows = sorted((*f32(p), int(o)) for p, o in zip(positions, objects))
    store = work / "skeleton.zarrvectors"
    write_graph(str(store), positions, edges, chunk_shape=(10, 10, 10), kind="skeleton", object_ids=objects)
    got_positions, got_links = read_ours(binary, store, work / "skeleton.npy")
    checks.expect(links_as_positions(got_positions, got_links) == want and
                  read_rows_with_ids(binary, store, work / "skeleton.csv") == want_rows,
                  f"chunkwise reads the {len(want)} [child, parent] edges of a zarr-vectors 0.9.2 skeleton "
                  f"(implicit inside fragments, branches stored), and each vertex's object")
    cli(binary, "vectors", "convert", store, work / "skeleton08.zarrvectors", "--layout", "0.8")
    got_positions, got_links = read_ours(binary, work / "skeleton08.zarrvectors", work / "skeleton08.npy")
    checks.expect(links_as_positions(got_positions, got_links) == want and
                  read_rows_with_ids(binary, work / "skeleton08.zarrvectors", work / "skeleton08.csv") == want_rows
                  and zv_version(work / "skeleton08.zarrvectors") == "0.8.0",
                  "that skeleton converted to 0.8 keeps its edges and object ids")
    # Ours from SWC (default layout), read by them.
    with (work / "tree.swc").open("w") as f:
        for v, p in enumerate(positions):
            parents = edges[edges[:, 0] == v]
            parent = int(parents[0][1]) + 1 if len(parents) else -1
            f.write(f"{v + 1} 3 {float(p[0])!r} {float(p[1])!r} {float(p[2])!r} 1.0 {parent}\n")
    ours = work / "ours_skeleton.zarrvectors"
    cli(binary, "vectors", "write", ours, "--type", "skeleton", "--input", work / "tree.swc",
        "--chunk-shape", "10,10,10")
    theirs = read_graph(str(ours))
    checks.expect(zv_version(ours) == "0.9.2" and links_as_positions(theirs["positions"], theirs["edges"]) == want,
                  f"zarr-vectors 0.9.2 reads the {len(want)} [child, parent] edges of a skeleton we wrote from "
                  f"SWC in the default layout")
    got_positions, got_links = read_ours(binary, ours, work / "ours_skeleton.npy")
    checks.expect(links_as_positions(got_positions, got_links) == want, "chunkwise reads its own 0.9 skeleton back")


def check_object_ids(checks, binary, work):
    rng = np.random.default_rng(61)
    positions = rng.uniform(-12, 20, size=(120, 3)).astype("<f4")
    objects = np.array([(5, 1_000_000_007, 3)[i % 3] for i in range(120)], dtype=np.int64)
    store = work / "points_ids.zarrvectors"
    write_points(str(store), positions, chunk_shape=(8, 8, 8), object_ids=objects)
    want = sorted((*f32(p), int(o)) for p, o in zip(positions, objects))
    checks.expect(read_rows_with_ids(binary, store, work / "points_ids.csv") == want,
                  "chunkwise reads the object id of every point zarr-vectors 0.9.2 wrote (ids 3, 5, 1000000007)")
    cli(binary, "vectors", "read", store, "--object", "1000000007", "--output", work / "one.npy")
    one = sorted(map(f32, np.load(work / "one.npy")))
    checks.expect(one == sorted(f32(p) for p, o in zip(positions, objects) if o == 1_000_000_007),
                  f"--object 1000000007 reads only that object's {len(one)} points")
    write_csv(work / "ids.csv", "x,y,z,object_id", [(*p, int(o)) for p, o in zip(positions, objects)])
    ours = work / "ours_ids.zarrvectors"
    cli(binary, "vectors", "write", ours, "--type", "points", "--input", work / "ids.csv", "--chunk-shape", "8,8,8")
    theirs = read_points(str(ours), object_ids=[3, 5, 1_000_000_007])
    got = sorted((*f32(p), int(o)) for p, o in zip(theirs["positions"], theirs["object_ids"]))
    checks.expect(got == want, "zarr-vectors 0.9.2 reads the object id of every point we wrote in 0.9")
    cli(binary, "vectors", "write", work / "ids08.zarrvectors", "--type", "points", "--input", work / "ids.csv",
        "--chunk-shape", "8,8,8", "--layout", "0.8")
    cli(binary, "vectors", "convert", work / "ids08.zarrvectors", work / "ids08_as09.zarrvectors")
    theirs = read_points(str(work / "ids08_as09.zarrvectors"), object_ids=[3, 5, 1_000_000_007])
    got = sorted((*f32(p), int(o)) for p, o in zip(theirs["positions"], theirs["object_ids"]))
    cli(binary, "vectors", "convert", store, work / "points_ids08.zarrvectors", "--layout", "0.8")
    checks.expect(got == want and
                  read_rows_with_ids(binary, work / "points_ids08.zarrvectors", work / "points_ids08.csv") == want,
                  "object ids survive vectors convert both ways (our 0.8 to 0.9 read by zarr-vectors, "
                  "theirs to 0.8 read by us)")


def check_line_segments(checks, binary, work):
    rng = np.random.default_rng(71)
    segments = rng.uniform(-5, 25, size=(30, 2, 3)).astype("<f4")
    store = work / "segments.zarrvectors"
    write_lines(str(store), segments, chunk_shape=(10, 10, 10))
    # Its records across chunks name rows other than the segments' (read_lines pairs the
    # endpoints through the manifests): refused rather than read as wrong links.
    result = cli(binary, "vectors", "read", store, "--output", work / "never.npy", ok=False)
    checks.expect("Unsupported" in result.stderr and "line" in result.stderr and "zarr.json" in result.stderr,
                  f"zarr-vectors 0.9.2's line segments (geometry 'line') are refused, not read with wrong links: "
                  f"{result.stderr.strip()[:200]}")


def their_links_with_attributes(store, names):
    """zarr-vectors 0.9.2's link records (endpoint positions, input order) with their attribute rows."""
    level = get_resolution_level(open_store(str(store), mode="r"), 0)
    chunks, vi = read_link_arrays(level)
    values = [np.asarray(read_link_attributes(level, name)).reshape(len(vi), -1) for name in names]
    rows = {}

    def position(chunk, row):
        chunk = tuple(int(c) for c in chunk)
        if chunk not in rows:
            rows[chunk] = np.concatenate(read_chunk_vertices(level, chunk, dtype=np.float32, ndim=3))
        return f32(rows[chunk][row])
    return sorted((tuple(position(chunks[r][k], vi[r][k]) for k in range(vi.shape[1])),
                   tuple(v for column in values for v in column[r].tolist())) for r in range(len(vi)))


def our_links_with_attributes(binary, store, out):
    """chunkwise's links (endpoint positions) with their attribute columns, from the .csv output."""
    cli(binary, "vectors", "read", store, "--output", out)
    vertices = [f32(map(float, line.split(",")[:3])) for line in out.read_text().splitlines()[1:] if line]
    lines = out.with_name(out.stem + ".links.csv").read_text().splitlines()
    width = sum(1 for name in lines[0].split(",") if name in ("source", "target", "v0", "v1", "v2"))
    got = []
    for line in lines[1:]:
        fields = line.split(",")
        got.append((tuple(vertices[int(v)] for v in fields[:width]),
                    tuple(np.float32(v).item() for v in fields[width:])))
    return sorted(got)


def check_link_attributes(checks, binary, work):
    rng = np.random.default_rng(81)
    positions = rng.uniform(-10, 30, size=(70, 3)).astype("<f4")
    edges = np.array([(i, (i * 9 + 4) % 70) for i in range(70) if i != (i * 9 + 4) % 70])
    rgb = rng.uniform(0, 1, size=(len(edges), 3)).astype("<f4")
    weight = rng.uniform(0, 1, size=len(edges)).astype("<f4")
    want = sorted(((f32(positions[a]), f32(positions[b])), tuple(rgb[e].tolist()) + (weight[e].item(),))
                  for e, (a, b) in enumerate(edges))
    store = work / "graph_attrs.zarrvectors"
    write_graph(str(store), positions, edges, chunk_shape=(10, 10, 10),
                link_attributes={"weight": weight, "rgb": rgb})
    checks.expect(our_links_with_attributes(binary, store, work / "graph_attrs.csv") == want,
                  f"chunkwise reads the {len(want)} edges of a zarr-vectors 0.9.2 graph with their link attributes "
                  f"(rgb: 3 channels, weight: 1), inside chunks and across them, bit for bit")
    cli(binary, "vectors", "convert", store, work / "graph_attrs08.zarrvectors", "--layout", "0.8")
    checks.expect(our_links_with_attributes(binary, work / "graph_attrs08.zarrvectors",
                                            work / "graph_attrs08.csv") == want,
                  "that graph converted to 0.8 keeps every edge's attributes")
    write_csv(work / "wn.csv", "x,y,z", positions)
    write_csv(work / "we.csv", "source,target,weight", [(a, b, w) for (a, b), w in zip(edges, weight)])
    ours = work / "ours_attrs.zarrvectors"
    cli(binary, "vectors", "write", ours, "--type", "graph", "--input", work / "wn.csv", "--edges",
        work / "we.csv", "--chunk-shape", "10,10,10")
    want_weight = sorted(((f32(positions[a]), f32(positions[b])), (w.item(),)) for (a, b), w in zip(edges, weight))
    checks.expect(their_links_with_attributes(ours, ["weight"]) == want_weight and
                  our_links_with_attributes(binary, ours, work / "ours_attrs.csv") == want_weight,
                  f"zarr-vectors 0.9.2 reads the weight of each of the {len(want_weight)} edges of a graph we wrote "
                  f"in the default layout (read_link_arrays with read_link_attributes, row for row), and so do we")
    cli(binary, "vectors", "convert", work / "graph_attrs08.zarrvectors", work / "graph_attrs09.zarrvectors")
    want_both = sorted((ends, values) for ends, values in want)
    checks.expect(their_links_with_attributes(work / "graph_attrs09.zarrvectors", ["rgb", "weight"]) == want_both,
                  "converted back to 0.9, zarr-vectors reads the same edges and attributes")


def check_unknown_version(checks, binary, work):
    store = work / "future.zarrvectors"
    shutil.copytree(work / "points.zarrvectors", store)
    root = json.loads((store / "zarr.json").read_text())
    root["attributes"]["zarr_vectors"]["zv_version"] = "0.10.0"
    (store / "zarr.json").write_text(json.dumps(root))
    result = cli(binary, "vectors", "read", store, "--output", work / "never.npy", ok=False)
    err = result.stderr
    checks.expect("Unsupported" in err and "0.10.0" in err and "future.zarrvectors" in err and
                  "zarr.json" in err and "Traceback" not in err,
                  f"a store of layout 0.10.0 is refused naming the store and the version: {err.strip()[:200]}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunkwise", required=True, type=pathlib.Path)
    parser.add_argument("--workdir", required=True, type=pathlib.Path)
    args = parser.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    args.workdir.mkdir(parents=True)
    print(f"     zarr-vectors {importlib.metadata.version('zarr-vectors')}")
    checks = Checks()
    check_points(checks, args.chunkwise, args.workdir)
    check_codecs(checks, args.chunkwise, args.workdir)
    check_graph(checks, args.chunkwise, args.workdir)
    check_mesh(checks, args.chunkwise, args.workdir)
    check_validate_refuses(checks, args.chunkwise, args.workdir)
    check_ours_read_by_them(checks, args.chunkwise, args.workdir)
    check_pyramid_refuses(checks, args.chunkwise, args.workdir)
    check_graph_and_mesh_read_by_them(checks, args.chunkwise, args.workdir)
    check_convert(checks, args.chunkwise, args.workdir)
    check_lengths_disagree(checks, args.chunkwise, args.workdir)
    check_polylines(checks, args.chunkwise, args.workdir)
    check_polylines_read_by_them(checks, args.chunkwise, args.workdir)
    check_skeletons(checks, args.chunkwise, args.workdir)
    check_object_ids(checks, args.chunkwise, args.workdir)
    check_line_segments(checks, args.chunkwise, args.workdir)
    check_link_attributes(checks, args.chunkwise, args.workdir)
    check_unknown_version(checks, args.chunkwise, args.workdir)
    checks.finish()


if __name__ == "__main__":
    main()
