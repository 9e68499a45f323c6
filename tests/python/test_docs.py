"""Every ```python example of docs/python.md runs, each in a fresh directory.

Examples fenced ```python notest (those that need a server) are left out.
"""

from __future__ import annotations

import contextlib
import pathlib
import re

import pytest

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "python.md"
EXAMPLES = re.findall(r"^```python\n(.*?)^```", DOC.read_text(), re.MULTILINE | re.DOTALL)


def test_the_doc_has_examples() -> None:
    assert len(EXAMPLES) >= 5


@pytest.mark.parametrize("number", range(len(EXAMPLES)))
def test_example_runs(number: int, tmp_path: pathlib.Path) -> None:
    with contextlib.chdir(tmp_path):
        exec(compile(EXAMPLES[number], f"{DOC.name} example {number + 1}", "exec"), {})
