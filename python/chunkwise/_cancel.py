"""chunkwise.CancelToken: stops the operations it is given, from any thread."""

from __future__ import annotations

from . import _core


class CancelToken:
    """A flag to stop long operations from another thread.

    Pass it as ``cancel=`` to ``Array.read``/``write``, ``create(data=…)``,
    ``StreamWriter`` or ``refs.build``; ``cancel()`` makes each of them stop
    at its next chunk or frame and raise ``chunkwise.CancelledError`` (a
    ``KeyboardInterrupt``). What was written is whole; an array created with
    ``data=`` is not published. Ctrl-C stops them the same way, without a
    token, and raises ``KeyboardInterrupt``.
    """

    def __init__(self) -> None:
        self._native = _core.CancelToken()

    def cancel(self) -> None:
        self._native.cancel()

    def reset(self) -> None:
        """Lets operations run again with this token."""
        self._native.reset()

    @property
    def cancelled(self) -> bool:
        return self._native.cancelled

    def __repr__(self) -> str:
        return f"<chunkwise.CancelToken cancelled={self.cancelled}>"
