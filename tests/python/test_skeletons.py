"""chunkwise.skeletonize and chunkwise.read_skeleton, and the same job from
the CLI (`chunkwise skeletonize`): identical files and the same error codes
from both doors (facade/skeletons.h, docs/formats/precomputed-skeletons.md)."""

from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess

import numpy as np
import pytest

import chunkwise

Path = pathlib.Path


def labels() -> np.ndarray:
    """Two tubes along x and a single voxel, uint32 (z, y, x)."""
    z, y, x = np.ogrid[0:10, 0:24, 0:40]
    out = np.zeros((10, 24, 40), dtype=np.uint32)
    out[((z - 5) ** 2 + (y - 6) ** 2 <= 9) & (x >= 3) & (x < 37)] = 4
    out[((z - 5) ** 2 + (y - 17) ** 2 <= 12) & (x >= 5) & (x < 35)] = 9
    out[1, 1, 38] = 12
    return out


@pytest.fixture
def source(tmp_path: Path) -> Path:
    path = tmp_path / "labels.zarr"
    chunkwise.create(str(path), data=labels(), chunks=[5, 12, 16])
    return path


@pytest.fixture
def cli() -> str:
    path = os.environ.get("CHUNKWISE_CLI", "")
    if not path or not os.access(path, os.X_OK):
        pytest.fail(f"CHUNKWISE_CLI is {path!r}: set it to the chunkwise binary")
    return path


def run_cli(cli: str, *args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([cli, "-q", *map(str, args)], capture_output=True, text=True, timeout=120)


def files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_skeletons_read_back_inside_their_labels(source: Path, tmp_path: Path) -> None:
    seen: list[tuple[int, int | None]] = []
    summary = chunkwise.skeletonize(str(source), str(tmp_path / "out"), voxel_size=(4, 4, 4),
                                    const=20, threads=2,
                                    progress=lambda done, total: seen.append((done, total)))
    assert summary["labels"] == 3
    assert summary["files"] == 4  # three labels and the info
    assert seen and seen[-1][0] == summary["voxels"] == int((labels() != 0).sum())
    volume = labels()
    for label in (4, 9, 12):
        skeleton = chunkwise.read_skeleton(str(tmp_path / "out"), label)
        vertices, edges, radii = skeleton["vertices"], skeleton["edges"], skeleton["radii"]
        assert vertices.dtype == np.float32 and edges.dtype == np.uint32
        assert len(radii) == len(vertices) and len(edges) == len(vertices) - 1
        voxel = np.floor(vertices / 4).astype(int)
        assert (volume[voxel[:, 2], voxel[:, 1], voxel[:, 0]] == label).all()
    tube = chunkwise.read_skeleton(str(tmp_path / "out"), 9)
    assert len(tube["vertices"]) > 20
    assert np.median(tube["radii"]) == pytest.approx(4 * 4, abs=4)


def test_both_doors_write_the_same_files(cli: str, source: Path, tmp_path: Path) -> None:
    for fmt in ("precomputed", "precomputed-sharded", "swc", "vectors"):
        done = run_cli(cli, "skeletonize", source, tmp_path / f"cli_{fmt}", "--format", fmt,
                       "--voxel-size", "4,4,4", "--const", "20", "--labels", "4,9")
        assert done.returncode == 0, done.stderr
        chunkwise.skeletonize(str(source), str(tmp_path / f"py_{fmt}"), format=fmt,
                              voxel_size=[4, 4, 4], const=20, labels=[4, 9])
        ours, theirs = files(tmp_path / f"cli_{fmt}"), files(tmp_path / f"py_{fmt}")
        assert sorted(ours) == sorted(theirs)
        assert ours == theirs
    assert sorted(files(tmp_path / "py_swc")) == ["4.swc", "9.swc"]
    info = json.loads((tmp_path / "py_precomputed" / "info").read_text())
    assert info["@type"] == "neuroglancer_skeletons"
    assert sorted(files(tmp_path / "py_precomputed-sharded")) == ["0.shard", "info"]


def test_sharded_and_vectors_skeletons_hold_the_precomputed_ones(source: Path, tmp_path: Path) -> None:
    common = {"voxel_size": (4, 4, 4), "const": 20}
    chunkwise.skeletonize(str(source), str(tmp_path / "plain"), **common)
    summary = chunkwise.skeletonize(str(source), str(tmp_path / "sharded"), format="precomputed-sharded",
                                    **common)
    assert summary["files"] == 2 and summary["labels"] == 3
    sharding = json.loads((tmp_path / "sharded" / "info").read_text())["sharding"]
    assert sharding["@type"] == "neuroglancer_uint64_sharded_v1"
    assert (sharding["shard_bits"], sharding["minishard_bits"]) == (0, 0)
    store = tmp_path / "skel.zarrvectors"
    chunkwise.skeletonize(str(source), str(store), format="vectors", chunk_shape=(40, 40, 40), **common)
    for label in (4, 9, 12):
        want = chunkwise.read_skeleton(str(tmp_path / "plain"), label)
        got = chunkwise.read_skeleton(str(tmp_path / "sharded"), label)
        for key in ("vertices", "edges", "radii"):
            assert np.array_equal(want[key], got[key]), (label, key)
        vec = chunkwise.vectors.read(str(store), object_id=label)
        assert vec.type == "skeleton"
        rows = sorted(zip(map(tuple, vec.positions.tolist()), vec.vertex_attributes["radius"].tolist()))
        assert rows == sorted(zip(map(tuple, want["vertices"].tolist()), want["radii"].tolist()))
        edges = sorted(tuple(vec.positions[e].ravel().tolist()) for e in vec.links.reshape(-1, 2))
        assert edges == sorted(tuple(want["vertices"][e].ravel().tolist()) for e in want["edges"])
    with pytest.raises(chunkwise.NotFoundError, match="no skeleton of label 5"):
        chunkwise.read_skeleton(str(tmp_path / "sharded"), 5)


_ERROR = re.compile(r"^chunkwise: error: (\w+): ", re.MULTILINE)


@pytest.mark.parametrize("case", ["missing_source", "absent_label", "existing", "bad_format",
                                  "existing_vectors"])
def test_both_doors_fail_alike(cli: str, source: Path, tmp_path: Path, case: str) -> None:
    dest = tmp_path / "out"
    chunkwise.skeletonize(str(source), str(dest))
    src, kwargs, flags = str(source), {}, []
    if case == "missing_source":
        src = str(tmp_path / "absent.zarr")
        dest = tmp_path / "other"
    elif case == "absent_label":
        kwargs, flags, dest = {"labels": [77]}, ["--labels", "77"], tmp_path / "other"
    elif case == "bad_format":
        kwargs, dest = {"format": "obj"}, tmp_path / "other"
    elif case == "existing_vectors":
        dest = tmp_path / "skel.zarrvectors"
        chunkwise.skeletonize(str(source), str(dest), format="vectors")
        kwargs, flags = {"format": "vectors"}, ["--format", "vectors"]
    with pytest.raises(chunkwise.ChunkwiseError) as raised:
        chunkwise.skeletonize(src, str(dest), **kwargs)
    if case == "bad_format":  # the CLI's flag check refuses it before the library
        assert raised.value.code == "InvalidArgument"
        assert "precomputed, precomputed-sharded, swc, vectors" in str(raised.value)
        done = run_cli(cli, "skeletonize", src, dest, "--format", "obj")
        assert done.returncode == 2
        assert all(name in done.stderr for name in ("precomputed-sharded", "swc", "vectors")), done.stderr
        return
    done = run_cli(cli, "skeletonize", src, dest, *flags)
    assert done.returncode == 1, done.stderr
    found = _ERROR.search(done.stderr)
    assert found, done.stderr
    assert found.group(1) == raised.value.code
    expected = {"missing_source": ("NotFound", "absent.zarr"), "absent_label": ("NotFound", "label 77"),
                "existing": ("InvalidArgument", "already holds skeletons"),
                "existing_vectors": ("InvalidArgument", "skel.zarrvectors")}[case]
    assert raised.value.code == expected[0]
    assert expected[1] in str(raised.value) and expected[1] in done.stderr


def test_an_empty_volume_is_an_empty_result(tmp_path: Path) -> None:
    chunkwise.create(str(tmp_path / "zero.zarr"), data=np.zeros((4, 5, 6), dtype=np.uint64),
                     chunks=[4, 5, 6])
    summary = chunkwise.skeletonize(str(tmp_path / "zero.zarr"), str(tmp_path / "out"), format="swc")
    assert summary["labels"] == 0 and summary["files"] == 0


def test_a_label_past_int64_has_no_vectors_object_id(tmp_path: Path) -> None:
    big = np.zeros((4, 5, 6), dtype=np.uint64)
    big[1:3, 1:4, 1:5] = 2**63 + 5
    chunkwise.create(str(tmp_path / "big.zarr"), data=big, chunks=[4, 5, 6])
    with pytest.raises(chunkwise.InvalidArgumentError, match="9223372036854775813 does not fit"):
        chunkwise.skeletonize(str(tmp_path / "big.zarr"), str(tmp_path / "s.zarrvectors"), format="vectors")
    with pytest.raises(chunkwise.InvalidArgumentError, match="9223372036854775813 does not fit"):
        chunkwise.mesh(str(tmp_path / "big.zarr"), str(tmp_path / "m.zarrvectors"), format="vectors")
    assert not (tmp_path / "s.zarrvectors").exists() and not (tmp_path / "m.zarrvectors").exists()
    # The precomputed formats take any uint64 label.
    chunkwise.skeletonize(str(tmp_path / "big.zarr"), str(tmp_path / "sharded"), format="precomputed-sharded")
    assert len(chunkwise.read_skeleton(str(tmp_path / "sharded"), 2**63 + 5)["vertices"]) >= 1
