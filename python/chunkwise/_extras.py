"""The optional dependencies of the package's submodules, asked for by name.

``chunkwise.zarr`` needs zarr-python and ``chunkwise.dask`` needs dask; the
rest of the package needs only numpy. Without the dependency, importing the
submodule says which extra to install instead of a bare "No module named".
"""

from __future__ import annotations


def explain_missing(error: ModuleNotFoundError, submodule: str, dependency: str) -> None:
    """Raises, from `error`, a ModuleNotFoundError (an ImportError) naming the
    extra that installs `dependency` for chunkwise.`submodule`, when `error`
    is about that dependency; returns otherwise (the caller re-raises it)."""
    if error.name is None or error.name.split(".")[0] != dependency:
        return  # Something else is missing: its own message says what.
    raise ModuleNotFoundError(
        f"chunkwise.{submodule} needs {_PROJECTS[dependency]}, which is not installed: "
        f"pip install 'chunkwise[{submodule}]'",
        name=error.name,
    ) from error


# The extras of pyproject.toml, by the module each installs.
_PROJECTS = {"zarr": "zarr-python 3", "dask": "dask"}
