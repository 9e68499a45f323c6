"""What a ``progress=`` argument becomes: a callable (done, total), or None.

``progress`` may be None or False (nothing), a callable taking
``(done, total)`` (bytes done so far; total None when unknown), or True: a
tqdm bar on stderr when tqdm is installed and stderr is a terminal, else
nothing. The library calls the callable from the calling thread, about 20
times a second while the operation runs, and once more when it ends.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, Union

ProgressCallback = Callable[[int, Union[int, None]], Any]
Progress = Union[bool, ProgressCallback, None]


class _TqdmBar:
    """A tqdm bar fed (done, total) counts; left on screen, as a summary,
    once done reaches total."""

    def __init__(self, description: str) -> None:
        from tqdm import tqdm

        self._bar = tqdm(desc=description, unit="B", unit_scale=True, unit_divisor=1024,
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


def _tqdm_usable() -> bool:
    try:
        import tqdm  # noqa: F401
    except ImportError:
        return False
    isatty = getattr(sys.stderr, "isatty", None)
    return bool(isatty and isatty())


def callback(progress: Progress, description: str) -> ProgressCallback | None:
    """The callable for `progress` (see the module's doc)."""
    if progress is None or progress is False:
        return None
    if progress is True:
        return _TqdmBar(description) if _tqdm_usable() else None
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
