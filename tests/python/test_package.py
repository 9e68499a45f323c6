"""The package imports, says its version, and ships its type stubs."""

from __future__ import annotations

import ast
import pathlib
import re
import tomllib

import chunkwise

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_version_matches_the_project_and_the_wheel() -> None:
    cmake = (ROOT / "CMakeLists.txt").read_text()
    project_version = re.search(r"project\(chunkwise VERSION ([0-9.]+)", cmake).group(1)
    assert chunkwise.__version__ == project_version
    # The wheel's version is read from CMakeLists.txt by the pattern pyproject.toml gives.
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in pyproject["project"]
    assert pyproject["project"]["dynamic"] == ["version"]
    (reader,) = pyproject["tool"]["dynamic-metadata"]
    assert (reader["field"], reader["input"]) == ("version", "CMakeLists.txt")
    assert re.search(reader["regex"], cmake).group("value") == project_version


def test_the_license_is_declared_and_shipped() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert pyproject["project"]["license"] == "MIT"
    assert pyproject["project"]["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text().startswith("MIT License\n")
    assert pyproject["project"]["requires-python"] == ">=3.12"


def test_stubs_and_marker_sit_next_to_the_module() -> None:
    package = pathlib.Path(chunkwise.__file__).parent
    assert (package / "py.typed").exists()
    stub = (package / "_core.pyi").read_text()
    for name in ("class Array", "class Store", "def read_into", "def get_range"):
        assert name in stub, name


def test_the_stub_names_exactly_what_the_module_has() -> None:
    from chunkwise import _core

    stub = ast.parse((pathlib.Path(chunkwise.__file__).parent / "_core.pyi").read_text())
    stubbed: dict[str, set[str]] = {}
    functions = set()
    for node in stub.body:
        if isinstance(node, ast.ClassDef):
            stubbed[node.name] = {
                item.name if isinstance(item, ast.FunctionDef) else item.target.id
                for item in node.body
                if isinstance(item, (ast.FunctionDef, ast.AnnAssign))
            } - {"__init__"}
        elif isinstance(node, ast.FunctionDef):
            functions.add(node.name)
    public = {name for name in dir(_core) if not name.startswith("_")}
    assert public == set(stubbed) | functions
    for name, members in stubbed.items():
        runtime = {m for m in dir(getattr(_core, name)) if not m.startswith("_")}
        assert runtime == members, name


def test_the_build_requirements_are_pinned_alike_everywhere() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    requires = sorted(pyproject["build-system"]["requires"])
    lines = (ROOT / "requirements" / "python-build.txt").read_text().splitlines()
    pinned = sorted(line for line in lines if line and not line.startswith("#"))
    assert requires == pinned
    lock = (ROOT / "requirements" / "venv.lock").read_text()
    for requirement in pinned:
        assert re.search(rf"^{re.escape(requirement)} ", lock, re.MULTILINE), requirement
