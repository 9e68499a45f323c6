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
  `--layout 0.9` for a polyline is refused (Unsupported) and leaves no store.
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
from zarr_vectors.types.graphs import write_graph  # noqa: E402
from zarr_vectors.types.meshes import write_mesh  # noqa: E402
import zarr_vectors  # noqa: E402
from zarr_vectors.types.points import read_points, write_points  # noqa: E402

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
                  source, "--chunk-shape", "8,8,8", "--layout", "0.9", ok=False)
    checks.expect("Unsupported" in refused.stderr and "0.9" in refused.stderr and
                  not (work / "graph09.zarrvectors").exists(),
                  f"--layout 0.9 for a polyline is refused and leaves no store, not even its folder: "
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
    check_unknown_version(checks, args.chunkwise, args.workdir)
    checks.finish()


if __name__ == "__main__":
    main()
