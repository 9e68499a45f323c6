"""chunkwise.mesh: the module's door to GenerateMeshes (facade/meshes.h).

The interop test (tests/interop/python/mesh_interop.py) checks the meshes
against CloudVolume and zmesh; this checks the door: what it writes, its
counts, progress, cancellation, and its errors as the library's codes.
"""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

import chunkwise
from split_jobs import segmentation


def _segmentation(path: pathlib.Path, shape_zyx: tuple[int, int, int]) -> str:
    return segmentation(path, shape_zyx, resolution=(8, 8, 8))


@pytest.fixture
def volume(tmp_path: pathlib.Path) -> tuple[str, str]:
    labels = np.zeros((6, 7, 8), dtype=np.uint32)
    labels[1:4, 2:5, 3:7] = 4
    labels[5, 6, 7] = 11
    array = chunkwise.create(str(tmp_path / "l.zarr"), shape=labels.shape, dtype="uint32", chunks=[3, 3, 3])
    array[...] = labels
    return str(tmp_path / "l.zarr"), _segmentation(tmp_path / "seg", labels.shape)


def test_meshes_go_into_the_segmentation(volume: tuple[str, str]) -> None:
    source, dest = volume
    seen: list[tuple[int, int | None]] = []
    summary = chunkwise.mesh(
        source, dest, threads=2, max_simplification_error=0, progress=lambda d, t: seen.append((d, t))
    )
    assert summary["segments"] == 2
    assert summary["voxels"] == 6 * 7 * 8
    assert (summary["mesh"], summary["segment_properties"]) == ("mesh", "segment_properties")
    info = json.loads((pathlib.Path(dest) / "info").read_text())
    assert info["mesh"] == "mesh"
    fragment = (pathlib.Path(dest) / "mesh" / "11:0:all").read_bytes()
    count = int(np.frombuffer(fragment, "<u4", 1)[0])
    vertices = np.frombuffer(fragment, "<f4", 3 * count, 4).reshape(-1, 3)
    # Voxel (z 5, y 6, x 7) at 8 nm: the centres of its faces.
    assert sorted(map(tuple, vertices.tolist())) == sorted(
        [(56, 52, 44), (64, 52, 44), (60, 48, 44), (60, 56, 44), (60, 52, 40), (60, 52, 48)]
    )
    props = json.loads((pathlib.Path(dest) / "segment_properties" / "info").read_text())
    assert props["inline"]["ids"] == ["4", "11"]
    assert props["inline"]["properties"][0]["values"] == [36, 1]
    assert seen and seen[-1][1] == 6 * 7 * 8


def test_meshes_are_simplified_by_default(volume: tuple[str, str], tmp_path: pathlib.Path) -> None:
    source, dest = volume
    other = _segmentation(tmp_path / "other", (6, 7, 8))
    simple = chunkwise.mesh(source, dest)
    full = chunkwise.mesh(source, other, max_simplification_error=0)
    assert simple["triangles"] * 2 < full["triangles"]
    # A factor of 1 leaves only the error, so a tiny error keeps most triangles.
    again = chunkwise.mesh(source, other, overwrite=True, simplification_factor=1, max_simplification_error=0.01)
    assert simple["triangles"] < again["triangles"] <= full["triangles"]
    with pytest.raises(chunkwise.InvalidArgumentError, match="simplification_factor"):
        chunkwise.mesh(source, other, overwrite=True, simplification_factor=-2)


def test_labels_limit_the_meshes(volume: tuple[str, str]) -> None:
    source, dest = volume
    assert chunkwise.mesh(source, dest, labels=[11])["segments"] == 1
    assert not (pathlib.Path(dest) / "mesh" / "4:0").exists()


def test_errors_are_the_librarys(volume: tuple[str, str], tmp_path: pathlib.Path) -> None:
    source, dest = volume
    with pytest.raises(chunkwise.NotFoundError, match="nothing"):
        chunkwise.mesh(str(tmp_path / "nothing"), dest)
    with pytest.raises(chunkwise.InvalidArgumentError, match="levels of detail: 1 to 16, not 0"):
        chunkwise.mesh(source, dest, format="multires", lods=0)
    with pytest.raises(chunkwise.InvalidArgumentError, match="chunk"):
        chunkwise.mesh(source, dest, format="multires", chunk=(4, 4))
    with pytest.raises(chunkwise.InvalidArgumentError, match="label 0"):
        chunkwise.mesh(source, dest, labels=[0, 4])
    token = chunkwise.CancelToken()
    token.cancel()
    with pytest.raises(chunkwise.CancelledError):
        chunkwise.mesh(source, dest, cancel=token)
    assert not (pathlib.Path(dest) / "mesh").exists()
    chunkwise.mesh(source, dest)
    with pytest.raises(chunkwise.InvalidArgumentError, match="overwrite"):
        chunkwise.mesh(source, dest)
    assert chunkwise.mesh(source, dest, overwrite=True)["segments"] == 2


def _manifest(data: bytes) -> tuple[np.ndarray, np.ndarray, list[np.ndarray], list[np.ndarray]]:
    """chunk_shape, grid_origin, and per LOD the fragment positions and sizes."""
    chunk_shape = np.frombuffer(data, "<f4", 3, 0)
    grid_origin = np.frombuffer(data, "<f4", 3, 12)
    lods = int(np.frombuffer(data, "<u4", 1, 24)[0])
    counts = np.frombuffer(data, "<u4", lods, 28 + 16 * lods).tolist()
    at = 28 + 20 * lods
    positions, sizes = [], []
    for n in counts:
        positions.append(np.frombuffer(data, "<u4", 3 * n, at).reshape(3, n).T)
        sizes.append(np.frombuffer(data, "<u4", n, at + 12 * n))
        at += 16 * n
    assert at == len(data)
    return chunk_shape, grid_origin, positions, sizes


def test_multires_meshes_hold_the_voxels_faces(volume: tuple[str, str]) -> None:
    import DracoPy

    source, dest = volume
    summary = chunkwise.mesh(
        source, dest, format="multires", lods=2, chunk=(4, 4, 4), max_simplification_error=0
    )
    assert summary["segments"] == 2
    assert summary["vertices"] > 6  # LOD 0 of both labels.
    info = json.loads((pathlib.Path(dest) / "mesh" / "info").read_text())
    assert info["@type"] == "neuroglancer_multilod_draco"
    assert info["transform"] == [8, 0, 0, 0, 0, 8, 0, 0, 0, 0, 8, 0]
    chunk_shape, origin, positions, sizes = _manifest((pathlib.Path(dest) / "mesh" / "11.index").read_bytes())
    assert chunk_shape.tolist() == [4, 4, 4] and origin.tolist() == [-0.5, -0.5, -0.5]
    assert 1 <= len(positions) <= 2
    data = (pathlib.Path(dest) / "mesh" / "11").read_bytes()
    assert sum(int(s.sum()) for s in sizes) == len(data)
    # LOD 0's fragments together: the six face centres of voxel (z 5, y 6, x 7), at 8 nm.
    found, at = set(), 0
    for position, size in zip(positions[0].tolist(), sizes[0].tolist()):
        points = np.asarray(DracoPy.decode(data[at : at + size]).points).reshape(-1, 3)
        stored = origin + chunk_shape * (np.array(position) + points / 65535.0)
        found |= {tuple(p) for p in np.round(stored * 8, 2).tolist()}
        at += size
    assert found == {(56, 52, 44), (64, 52, 44), (60, 48, 44), (60, 56, 44), (60, 52, 40), (60, 52, 48)}


def test_multires_sharded_meshes_go_into_one_shard(volume: tuple[str, str]) -> None:
    source, dest = volume
    summary = chunkwise.mesh(source, dest, format="multires-sharded", chunk=(4, 4, 4))
    assert summary["segments"] == 2
    mesh = pathlib.Path(dest) / "mesh"
    assert sorted(p.name for p in mesh.iterdir()) == ["0.shard", "info"]
    assert summary["bytes"] == (mesh / "0.shard").stat().st_size
    sharding = json.loads((mesh / "info").read_text())["sharding"]
    assert (sharding["hash"], sharding["data_encoding"], sharding["shard_bits"]) == ("murmurhash3_x86_128", "raw", 0)


def test_vectors_meshes_are_the_legacy_triangles(volume: tuple[str, str], tmp_path: pathlib.Path) -> None:
    source, dest = volume
    chunkwise.mesh(source, dest, chunk=(3, 3, 3))
    store = str(tmp_path / "mesh.zarrvectors")
    # A zarr source: positions in voxels, the legacy meshes' at 8 nm divided by 8 (exact).
    summary = chunkwise.mesh(source, store, format="vectors", chunk=(3, 3, 3))
    assert summary["segments"] == 2 and summary["mesh"] == ""
    for label in (4, 11):
        fragment = (pathlib.Path(dest) / "mesh" / f"{label}:0:all").read_bytes()
        count = int(np.frombuffer(fragment, "<u4", 1)[0])
        vertices = np.frombuffer(fragment, "<f4", 3 * count, 4).reshape(-1, 3) / np.float32(8)
        faces = np.frombuffer(fragment, "<u4", offset=4 + 12 * count).reshape(-1, 3)
        want = sorted(tuple(vertices[faces[t]].ravel().tolist()) for t in range(len(faces)))
        got = chunkwise.vectors.read(store, object_id=label)
        assert got.type == "mesh"
        corners = got.positions[got.links.reshape(-1, 3)]
        assert sorted(tuple(c.ravel().tolist()) for c in corners) == want
    with pytest.raises(chunkwise.InvalidArgumentError, match="overwrite"):
        chunkwise.mesh(source, store, format="vectors")
    with pytest.raises(chunkwise.InvalidArgumentError, match="legacy, multires, multires-sharded, vectors"):
        chunkwise.mesh(source, store, format="stl", overwrite=True)
