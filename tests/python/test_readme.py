"""The README's five-minute tour runs as written: its shell block with the
build's `chunkwise` first on PATH, then its Python block in the folder the
shell block left, and each prints what the tour says it does."""

from __future__ import annotations

import contextlib
import io
import os
import pathlib
import re
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
README = ROOT / "README.md"


def tour_blocks() -> tuple[str, str]:
    text = README.read_text()
    tour = text[text.index("## Five minutes"):]
    tour = tour[:tour.index("\n## ", 1)]
    shell = re.findall(r"^```sh\n(.*?)^```", tour, re.MULTILINE | re.DOTALL)
    python = re.findall(r"^```python\n(.*?)^```", tour, re.MULTILINE | re.DOTALL)
    assert len(shell) == 1 and len(python) == 1, "the tour has one shell and one Python block"
    return shell[0], python[0]


def test_the_tour_runs_as_written(tmp_path: pathlib.Path) -> None:
    cli = pathlib.Path(os.environ.get("CHUNKWISE_CLI", ""))
    if not cli.is_file():
        pytest.fail(f"CHUNKWISE_CLI is {str(cli)!r}: set it to the chunkwise binary")
    shell, python = tour_blocks()
    checkout = tmp_path / "checkout"  # the tour runs from a checkout's root, with build/ in it
    checkout.mkdir()
    (checkout / "build").symlink_to(cli.parent)
    left = tmp_path / "left"
    run = subprocess.run(["bash", "-euo", "pipefail", "-c", shell + f'pwd > "{left}"\n'],
                         cwd=checkout, capture_output=True, text=True, timeout=240)
    assert run.returncode == 0, run.stderr
    assert "frames.zarr: zarr v3 array" in run.stdout
    assert "layout       chunks [32,64,64] in shards [64,256,256]" in run.stdout
    folder = pathlib.Path(left.read_text().strip())
    try:
        assert (folder / "labels.precomputed" / "info").is_file()
        printed = io.StringIO()
        with contextlib.chdir(folder), contextlib.redirect_stdout(printed):
            exec(compile(python, "README.md's tour", "exec"), {})
        lines = printed.getvalue().splitlines()
        assert lines[0].startswith("(128, 256, 256) uint16")
        assert lines[-1] == "[320 321 322]"
    finally:
        shutil.rmtree(folder, ignore_errors=True)
