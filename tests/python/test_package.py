"""The package imports, says its version, and ships its type stubs."""

from __future__ import annotations

import ast
import json
import os
import pathlib
import re
import subprocess
import sys
import tomllib

import pytest

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


def _documented_submodules() -> list[str]:
    """The submodules docs/python.md's table under "The package" lists."""
    text = (ROOT / "docs" / "python.md").read_text()
    section = text.split("## The package\n", 1)[1].split("\n## ", 1)[0]
    names = re.findall(r"^\| `chunkwise\.(\w+)` \|", section, re.MULTILINE)
    assert names, "docs/python.md lists no submodule under 'The package'"
    return names


def _fresh_interpreter(code: str) -> subprocess.CompletedProcess[str]:
    """`code` run by a new interpreter that finds this chunkwise first."""
    env = dict(os.environ)
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(chunkwise.__file__)))
    env["PYTHONPATH"] = os.pathsep.join(
        [package_parent] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    )
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )


def test_every_documented_submodule_is_an_attribute_of_a_fresh_import() -> None:
    names = _documented_submodules()
    assert {"zarr", "dask", "dvid", "refs", "bcolz", "vectors"} <= set(names)
    code = (
        "import chunkwise, json\n"
        f"names = {names!r}\n"
        "print(json.dumps({n: getattr(chunkwise, n).__name__ for n in names}))\n"
    )
    run = _fresh_interpreter(code)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == {name: f"chunkwise.{name}" for name in names}


def test_every_submodule_the_examples_import_is_documented() -> None:
    text = (ROOT / "docs" / "python.md").read_text()
    imported = {
        name
        for line in re.findall(r"^import (.*)$", text, re.MULTILINE)
        for name in re.findall(r"\bchunkwise\.(\w+)", line.split("#")[0])
    }
    assert "vectors" in imported
    assert imported <= set(_documented_submodules())


def test_a_name_that_is_no_submodule_is_an_attribute_error() -> None:
    run = _fresh_interpreter("import chunkwise\nchunkwise.nonesuch\n")
    assert run.returncode == 1
    assert "AttributeError: module 'chunkwise' has no attribute 'nonesuch'" in run.stderr


@pytest.mark.parametrize(("submodule", "dependency"), [("zarr", "zarr"), ("dask", "dask")])
def test_a_missing_dependency_names_the_extra_to_install(submodule: str, dependency: str) -> None:
    # None in sys.modules makes `import zarr` fail as if it were not installed.
    for spelling in (f"chunkwise.{submodule}", f"import chunkwise.{submodule}"):
        code = (
            "import sys\n"
            f"sys.modules[{dependency!r}] = None\n"
            "import chunkwise\n"
            "try:\n"
            f"    {spelling}\n"
            "except ModuleNotFoundError as error:\n"
            "    print(error.name, '|', error)\n"
        )
        run = _fresh_interpreter(code)
        assert run.returncode == 0, run.stderr
        name, message = run.stdout.strip().split(" | ")
        assert name == dependency
        assert f"pip install 'chunkwise[{submodule}]'" in message
        assert message.startswith(f"chunkwise.{submodule} needs ")


def test_the_bindings_include_only_the_facade_and_io() -> None:
    # The module is a thin translator of the facade (docs/architecture.md):
    # python/src reaches the library through chunkwise.h and io/ alone.
    sources = sorted((ROOT / "python" / "src").glob("*.[ch]*"))
    assert sources
    reaching_past = [
        f"{source.name}: {name}"
        for source in sources
        for name in re.findall(r'^#include "(chunkwise/[^"]+)"', source.read_text(), re.MULTILINE)
        if name != "chunkwise/chunkwise.h" and not name.startswith("chunkwise/io/")
    ]
    assert reaching_past == []
