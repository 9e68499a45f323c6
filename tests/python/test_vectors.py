"""chunkwise.vectors: geometry written from numpy reads back the same (as
sets: a store numbers vertices chunk by chunk), and zarr-python 3 opens the
store we write.
"""

from __future__ import annotations

import pathlib

import numpy as np
import pytest
import zarr

import chunkwise
import chunkwise.vectors


def by_position(positions: np.ndarray) -> dict[tuple[float, ...], int]:
    return {tuple(p): i for i, p in enumerate(positions.tolist())}


def test_points_with_ids_and_attributes_round_trip_and_filter(tmp_path: pathlib.Path) -> None:
    rng = np.random.default_rng(2)
    positions = rng.uniform(0, 200, (500, 3)).astype("float32")
    ids = np.arange(500) % 7
    radius = rng.uniform(1, 2, 500).astype("float32")
    url = str(tmp_path / "points.zarr")
    counts: list[tuple[int, int | None]] = []
    summary = chunkwise.vectors.write(url, positions, object_ids=ids,
                                      vertex_attributes={"radius": radius},
                                      chunk_shape=(100, 100, 100),
                                      progress=lambda done, total: counts.append((done, total)))
    assert summary["vertices"] == 500 and summary["chunks"] == 8
    assert counts[-1] == (500, 500)  # vertices
    g = chunkwise.vectors.read(url)
    assert g.type == "point_cloud" and g.positions.shape == (500, 3) and g.links.shape[0] == 0
    order = [by_position(g.positions)[tuple(p)] for p in positions.tolist()]
    np.testing.assert_array_equal(g.object_ids[order], ids)
    np.testing.assert_array_equal(g.vertex_attributes["radius"][order], radius)
    inside = chunkwise.vectors.read(url, region="0:100,0:100,:")
    expected = (positions[:, 0] < 100) & (positions[:, 1] < 100)
    assert inside.positions.shape[0] == expected.sum()
    seven = chunkwise.vectors.read(url, object_id=3)
    assert seven.positions.shape[0] == (ids == 3).sum()
    assert zarr.open_group(url, mode="r") is not None  # zarr-python 3 opens the root
    with pytest.raises(chunkwise.InvalidArgumentError):
        chunkwise.vectors.write(url, positions, chunk_shape=(100, 100, 100))
    token = chunkwise.CancelToken()
    token.cancel()
    with pytest.raises(chunkwise.CancelledError):
        chunkwise.vectors.write(str(tmp_path / "never.zarr"), positions,
                                chunk_shape=(100, 100, 100), cancel=token)
    assert not (tmp_path / "never.zarr").exists()


def test_a_mesh_keeps_its_triangles_and_their_winding(tmp_path: pathlib.Path) -> None:
    grid = np.array([[x, y, 0] for y in range(6) for x in range(6)], dtype="float32") * 20
    triangles = []
    for y in range(5):
        for x in range(5):
            a = y * 6 + x
            triangles += [[a, a + 1, a + 7], [a, a + 7, a + 6]]
    triangles = np.array(triangles)
    url = str(tmp_path / "mesh.zarr")
    chunkwise.vectors.write(url, grid, type="mesh", links=triangles, chunk_shape=(50, 50, 50))
    g = chunkwise.vectors.read(url)
    assert g.type == "mesh" and g.links.shape == (50, 3)
    back = {tuple(tuple(g.positions[i].tolist()) for i in tri) for tri in g.links}
    wrote = {tuple(tuple(grid[i].tolist()) for i in tri) for tri in triangles}
    rotations = {t[k:] + t[:k] for t in wrote for k in range(3)}  # same winding, any start
    assert back <= rotations and len(back) == len(wrote)


def test_a_missing_store_is_not_found(tmp_path: pathlib.Path) -> None:
    with pytest.raises(FileNotFoundError):
        chunkwise.vectors.read(str(tmp_path / "none.zarr"))


def test_layout_09_points_round_trip_and_polyline_link_attributes_refused(
        tmp_path: pathlib.Path) -> None:
    """#43: layout="0.9" writes the 0.9 tree (one vlen-bytes array per family) for points, which
    reads back the same; a polyline's link attributes, which 0.9 has no room for (its steps are
    implicit), are refused (Unsupported) and an unknown layout is InvalidArgument."""
    rng = np.random.default_rng(43)
    positions = rng.uniform(-50, 150, (300, 3)).astype("float32")
    weight = rng.uniform(0, 1, 300).astype("float32")
    url = tmp_path / "points09.zarrvectors"
    chunkwise.vectors.write(str(url), positions, vertex_attributes={"weight": weight},
                            chunk_shape=(40, 40, 40), layout="0.9")
    root = zarr.open_group(str(url), mode="r")
    assert root.attrs["zarr_vectors"]["zv_version"].startswith("0.9.")
    assert (url / "0" / "vertices" / "zarr.json").exists() and (url / "0" / "vertices" / "c").is_dir()
    g = chunkwise.vectors.read(str(url))
    order = [by_position(g.positions)[tuple(p)] for p in positions.tolist()]
    np.testing.assert_array_equal(g.positions[order], positions)
    np.testing.assert_array_equal(g.vertex_attributes["weight"][order], weight)
    with pytest.raises(chunkwise.UnsupportedError):
        chunkwise.vectors.write(str(tmp_path / "line09"), positions[:3], type="polyline",
                                links=np.array([[0, 1]]), link_attributes={"w": np.ones(1)},
                                chunk_shape=(40, 40, 40), layout="0.9")
    assert not (tmp_path / "line09").exists()
    with pytest.raises(chunkwise.InvalidArgumentError):
        chunkwise.vectors.write(str(tmp_path / "bad"), positions, chunk_shape=(40, 40, 40),
                                layout="1.0")


def edges_by_position(g) -> list[tuple[tuple[float, ...], ...]]:
    return sorted(tuple(tuple(g.positions[v].tolist()) for v in link) for link in g.links)


def test_layout_09_graph_and_mesh_round_trip_and_convert(tmp_path: pathlib.Path) -> None:
    """#43: graphs and meshes write in 0.9 (links under links/0/<offsets>/) and read back edge for
    edge, direction and winding kept; convert() rewrites a store 0.9 -> 0.8 -> 0.9 with the same
    links, and refuses an existing destination without overwrite; link attributes go both
    ways."""
    rng = np.random.default_rng(7)
    positions = rng.uniform(-30, 90, (120, 3)).astype("float32")
    edges = np.array([(i, (i * 17 + 3) % 120) for i in range(120) if i != (i * 17 + 3) % 120])
    faces = [(i, (i + 1) % 120, (i * 7 + 50) % 120) for i in range(0, 117, 3)]
    by_chunk: dict[tuple[int, ...], list[int]] = {}
    for v, p in enumerate(positions):
        by_chunk.setdefault(tuple(np.floor(p / 60).astype(int).tolist()), []).append(v)
    faces += [(g[2], g[0], g[1]) for g in by_chunk.values() if len(g) >= 3]  # Inside one chunk.
    faces = np.array(faces)
    for kind, links in (("graph", edges), ("mesh", faces)):
        url = tmp_path / f"{kind}09.zarrvectors"
        chunkwise.vectors.write(str(url), positions, type=kind, links=links,
                                chunk_shape=(60, 60, 60), layout="0.9")
        segments = [p.name for p in (url / "0" / "links" / "0").iterdir() if p.is_dir()]
        assert ("0.0.0" if kind == "graph" else "0.0.0_0.0.0") in segments and len(segments) > 2
        wrote = sorted(tuple(tuple(positions[v].tolist()) for v in link) for link in links)
        g = chunkwise.vectors.read(str(url))
        assert g.type == kind and edges_by_position(g) == wrote
        as08 = tmp_path / f"{kind}08.zarrvectors"
        assert chunkwise.vectors.convert(str(url), str(as08), layout="0.8")["vertices"] == 120
        assert zarr.open_group(str(as08), mode="r").attrs["zarr_vectors"]["zv_version"] == "0.8.0"
        assert edges_by_position(chunkwise.vectors.read(str(as08))) == wrote
        with pytest.raises(chunkwise.InvalidArgumentError):
            chunkwise.vectors.convert(str(as08), str(url))
        chunkwise.vectors.convert(str(as08), str(url), overwrite=True)
        assert edges_by_position(chunkwise.vectors.read(str(url))) == wrote
    weight = np.arange(len(edges), dtype="float32") + 0.5
    rgb = np.stack([weight, weight * 2, weight * 3], axis=1)
    wrote = sorted((tuple(tuple(positions[v].tolist()) for v in link), (*c.tolist(), w))
                   for link, c, w in zip(edges, rgb, weight.tolist()))
    weighted = tmp_path / "weighted.zarrvectors"
    chunkwise.vectors.write(str(weighted), positions, type="graph", links=edges,
                            link_attributes={"w": weight, "rgb": rgb}, chunk_shape=(25, 25, 25),
                            layout="0.8")
    as09 = tmp_path / "weighted09.zarrvectors"
    chunkwise.vectors.convert(str(weighted), str(as09))
    g = chunkwise.vectors.read(str(as09))
    assert (as09 / "0" / "link_attributes" / "rgb" / "0" / "zarr.json").exists()
    got = sorted((tuple(tuple(g.positions[v].tolist()) for v in link), (*c.tolist(), w))
                 for link, c, w in zip(g.links, np.reshape(g.link_attributes["rgb"], (-1, 3)),
                                       np.reshape(g.link_attributes["w"], -1).tolist()))
    assert got == wrote


def test_layout_09_is_the_default_and_keeps_polylines_skeletons_and_object_ids(
        tmp_path: pathlib.Path) -> None:
    """#43: write() without a layout writes 0.9 (layout="0.8" still writes 0.8); a polyline and a
    skeleton, whose links 0.9 leaves implicit in fragment order, read back link for link with
    every vertex's object id, and convert to 0.8 and back keeps both."""
    rng = np.random.default_rng(12)
    positions = rng.uniform(-40, 80, (60, 3)).astype("float32")
    ids = np.repeat([11, 4, 27], 20)
    steps = np.array([(i, i + 1) for i in range(59) if ids[i] == ids[i + 1]])
    parents = np.array([(i, i - 1 - (i % 3 == 0 and i % 20 > 3)) for i in range(60) if i % 20])
    for kind, links in (("polyline", steps), ("skeleton", parents)):
        url = tmp_path / f"{kind}.zarrvectors"
        chunkwise.vectors.write(str(url), positions, type=kind, links=links, object_ids=ids,
                                chunk_shape=(30, 30, 30))
        assert zarr.open_group(str(url), mode="r").attrs["zarr_vectors"]["zv_version"] == "0.9.2"
        assert (url / "0" / "object_index" / "manifests" / "zarr.json").exists()
        wrote = sorted(tuple(tuple(positions[v].tolist()) for v in link) for link in links)
        for store in (url, tmp_path / f"{kind}08", tmp_path / f"{kind}09"):
            if store != url:
                source = url if store.name.endswith("08") else tmp_path / f"{kind}08"
                layout = "0.8" if store.name.endswith("08") else "0.9"
                chunkwise.vectors.convert(str(source), str(store), layout=layout)
            g = chunkwise.vectors.read(str(store))
            assert edges_by_position(g) == wrote, (kind, store.name)
            order = [by_position(g.positions)[tuple(p)] for p in positions.tolist()]
            np.testing.assert_array_equal(g.object_ids[order], ids)
    old = tmp_path / "old.zarrvectors"
    chunkwise.vectors.write(str(old), positions, chunk_shape=(30, 30, 30), layout="0.8")
    assert zarr.open_group(str(old), mode="r").attrs["zarr_vectors"]["zv_version"] == "0.8.0"
