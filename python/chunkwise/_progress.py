"""What a ``progress=`` argument becomes: a callable (done, total), or None.

``progress`` may be None or False (nothing), a callable taking
``(done, total)`` (bytes done so far; total None when unknown), or True: a
tqdm bar when tqdm is installed: in a Jupyter kernel, tqdm's notebook bar
(a widget, when ipywidgets is installed; else the text bar in the cell);
elsewhere the text bar on stderr when stderr is a terminal, else nothing.
The library calls the callable from the calling thread: as soon as the count
first moves, then about 20 times a second while the operation runs, and
once more when it ends.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, Union

ProgressCallback = Callable[[int, Union[int, None]], Any]
Progress = Union[bool, ProgressCallback, None]


class _TqdmBar:
    """A tqdm bar fed (done, total) counts; left on screen, as a summary,
    once done reaches total. `bar` is tqdm's text or notebook class."""

    def __init__(self, bar: Any, description: str) -> None:
        self._bar = bar(desc=description, unit="B", unit_scale=True, unit_divisor=1024,
                        file=sys.stderr, leave=True)

    def __call__(self, done: int, total: int | None) -> None:
        if total is not None and self._bar.total != total:
            self._bar.total = total
        self._bar.update(done - self._bar.n)
        if total is not None and done >= total:
            self._bar.refresh()  # tqdm skips draws closer than its interval; show the end
            self._bar.close()

    def close(self) -> None:
        self._bar.close()


def _in_jupyter_kernel() -> bool:
    # A kernel's shell has a `kernel`; a terminal IPython's has none. IPython
    # is looked up, not imported: a program that never loaded it is no kernel.
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    return shell is not None and getattr(shell, "kernel", None) is not None


def _tqdm_class() -> Any:
    """The tqdm class that draws where this program shows its output, or None."""
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    if _in_jupyter_kernel():
        try:
            import ipywidgets  # noqa: F401  (tqdm's notebook bar is one)
            from tqdm.notebook import tqdm as notebook_tqdm
        except ImportError:
            return tqdm  # The cell shows stderr: the text bar still draws there.
        return notebook_tqdm
    isatty = getattr(sys.stderr, "isatty", None)
    return tqdm if isatty and isatty() else None


def callback(progress: Progress, description: str) -> ProgressCallback | None:
    """The callable for `progress` (see the module's doc)."""
    if progress is None or progress is False:
        return None
    if progress is True:
        bar = _tqdm_class()
        return _TqdmBar(bar, description) if bar is not None else None
    if not callable(progress):
        raise TypeError(
            f"progress must be None, a bool or a callable (done, total), "
            f"not {type(progress).__name__}"
        )
    return progress


def token(cancel: Any) -> Any:
    """The native token of a chunkwise.CancelToken (or None)."""
    if cancel is None:
        return None
    native = getattr(cancel, "_native", None)
    if native is None:
        raise TypeError(f"cancel must be a chunkwise.CancelToken, not {type(cancel).__name__}")
    return native
