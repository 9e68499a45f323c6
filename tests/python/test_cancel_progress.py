"""Long operations report progress, and stop on Ctrl-C or a CancelToken.

A cancelled write leaves whole chunks only; an array created with data=
appears only once complete. Each test cancels from its progress callback's
first call, so the write is seen running; the data is large and slow to
compress (gzip:9) so that it is still running when the cancel lands.
"""

from __future__ import annotations

import fcntl
import os
import pathlib
import pty
import signal
import struct
import subprocess
import sys
import termios
import threading
from typing import Any

import numpy as np
import pytest

import chunkwise

SLOW = "gzip:9"


@pytest.fixture(scope="module")
def big() -> np.ndarray:
    # 64 MiB of noise, 64 chunks of 1 MiB: seconds of gzip:9 on this machine.
    return np.random.default_rng(5).integers(0, 1000, (32, 1024, 1024), dtype="uint16")


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[int, int | None]] = []

    def __call__(self, done: int, total: int | None) -> None:
        self.calls.append((done, total))


def test_a_write_and_a_read_report_increasing_bytes_ending_at_the_total(memory_url: str) -> None:
    data = np.arange(8 * 512 * 512, dtype="uint32").reshape(8, 512, 512)
    array = chunkwise.create(memory_url, shape=data.shape, dtype=data.dtype, chunks=[1, 256, 256],
                             codecs="zstd:1")
    wrote = Recorder()
    array.write(data, progress=wrote)
    read = Recorder()
    back = array.read(progress=read)
    np.testing.assert_array_equal(back, data)
    for calls in (wrote.calls, read.calls):
        assert calls, "the callback was never called"
        dones = [done for done, _ in calls]
        assert dones == sorted(dones) and len(set(dones)) == len(dones)
        assert calls[-1] == (data.nbytes, data.nbytes)
        assert all(total == data.nbytes for _, total in calls)


def test_progress_rejects_what_is_not_callable(memory_url: str) -> None:
    array = chunkwise.create(memory_url, shape=[4], dtype="uint8", chunks=[2])
    with pytest.raises(TypeError, match="progress must be"):
        array.write(np.zeros(4, "uint8"), progress="yes")
    array.write(np.ones(4, "uint8"), progress=True)  # not a terminal: no bar, no error
    assert array.read(progress=False).tolist() == [1, 1, 1, 1]


def test_a_callback_that_raises_stops_the_write_and_its_exception_comes_out(
    memory_url: str, big: np.ndarray
) -> None:
    array = chunkwise.create(memory_url, shape=big.shape, dtype=big.dtype, chunks=[1, 1024, 512],
                             codecs=SLOW)

    def fail(done: int, total: int | None) -> None:
        if done > 0:  # once something is written (a first report may come before)
            raise RuntimeError(f"stop at {done}")

    with pytest.raises(RuntimeError, match="stop at"):
        array.write(big, progress=fail)
    stored = array.storage_info()["stored_keys"]
    assert 0 < stored < array.storage_info()["grid_chunks"]
    # What was written is whole: every stored chunk reads back as written.
    back = array.read()
    written = [i for i in range(big.shape[0]) for half in (0, 1)
               if back[i, :, half * 512:(half + 1) * 512].any()]
    assert len(written) == stored
    for i, half in ((w, h) for w in range(big.shape[0]) for h in (0, 1)):
        part = back[i, :, half * 512:(half + 1) * 512]
        if part.any():
            np.testing.assert_array_equal(part, big[i, :, half * 512:(half + 1) * 512])


def test_a_cancel_token_stops_create_with_data_and_no_array_appears(
    tmp_path: pathlib.Path, big: np.ndarray
) -> None:
    url = str(tmp_path / "cancelled.zarr")
    token = chunkwise.CancelToken()
    seen = Recorder()

    def cancel_from_another_thread(done: int, total: int | None) -> None:
        seen(done, total)
        if not token.cancelled:
            threading.Thread(target=token.cancel).start()

    with pytest.raises(chunkwise.CancelledError) as raised:
        chunkwise.create(url, data=big, chunks=[1, 1024, 512], codecs=SLOW,
                         progress=cancel_from_another_thread, cancel=token)
    assert isinstance(raised.value, KeyboardInterrupt)
    assert not isinstance(raised.value, Exception)
    assert raised.value.code == "Cancelled"
    assert "cancelled" in str(raised.value)
    assert seen.calls and seen.calls[-1][0] < big.nbytes
    assert not (tmp_path / "cancelled.zarr" / "zarr.json").exists()
    with pytest.raises(chunkwise.NotFoundError):
        chunkwise.open(url)
    # The token stays set: the next operation given it does not start.
    with pytest.raises(chunkwise.CancelledError):
        chunkwise.create(url, data=big[:1], chunks=[1, 1024, 512], overwrite=True, cancel=token)
    token.reset()
    small = big[:2, :64, :64]
    array = chunkwise.create(url, data=small, chunks=[1, 32, 32], overwrite=True, cancel=token)
    np.testing.assert_array_equal(array[...], small)


def test_ctrl_c_during_a_write_raises_keyboard_interrupt_and_publishes_nothing(
    tmp_path: pathlib.Path, big: np.ndarray
) -> None:
    url = str(tmp_path / "interrupted.zarr")
    seen = Recorder()
    senders: list[threading.Thread] = []
    running = True

    def on_sigint(signum: int, frame: Any) -> None:
        # Python's default, while the write runs: the watcher must run this
        # handler (PyErr_CheckSignals) for the write to stop. A signal landing
        # after the write ended is ignored, so that the test fails with
        # "did not raise" rather than interrupting pytest.
        if running:
            raise KeyboardInterrupt

    def press_ctrl_c(done: int, total: int | None) -> None:
        seen(done, total)
        if not senders:  # SIGINT from outside, as a terminal sends it
            senders.append(threading.Thread(target=os.kill, args=(os.getpid(), signal.SIGINT)))
            senders[0].start()

    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        with pytest.raises(KeyboardInterrupt) as raised:
            chunkwise.create(url, data=big, chunks=[1, 1024, 512], codecs=SLOW,
                             progress=press_ctrl_c)
    finally:
        running = False
        for sender in senders:
            sender.join()
        signal.signal(signal.SIGINT, previous)
    assert not isinstance(raised.value, chunkwise.CancelledError)  # the handler's own
    assert seen.calls[-1][0] < big.nbytes
    assert not (tmp_path / "interrupted.zarr" / "zarr.json").exists()
    with pytest.raises(chunkwise.NotFoundError):
        chunkwise.open(url)
    with pytest.raises(chunkwise.InvalidArgumentError):  # what is left is refused ...
        chunkwise.create(url, shape=[2], dtype="uint8", chunks=[1])
    array = chunkwise.create(url, shape=[2], dtype="uint8", chunks=[1], overwrite=True)
    assert array[...].tolist() == [0, 0]  # ... unless replaced


_BAR_SCRIPT = """
import numpy as np, chunkwise
data = np.random.default_rng(0).integers(0, 100, (16, 256, 256), dtype="uint16")
chunkwise.create("bar.zarr", data=data, chunks=[1, 128, 128], codecs="gzip:5", progress=True)
print("written")
"""


def test_progress_true_draws_a_tqdm_bar_on_a_terminal(tmp_path: pathlib.Path) -> None:
    controller, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    package_root = str(pathlib.Path(chunkwise.__file__).resolve().parent.parent)
    env = dict(os.environ, PYTHONPATH=package_root)
    child = subprocess.Popen([sys.executable, "-c", _BAR_SCRIPT], cwd=tmp_path, env=env,
                             stdin=subprocess.DEVNULL, stdout=terminal, stderr=terminal)
    os.close(terminal)
    output = b""
    while True:
        try:
            data = os.read(controller, 4096)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        output += data
    os.close(controller)
    text = output.decode(errors="replace")
    assert child.wait(timeout=120) == 0, text
    assert "write: 100%" in text and "2.00M/2.00M" in text, text
    assert "written" in text


def test_a_cancelled_stream_leaves_no_array(tmp_path: pathlib.Path, big: np.ndarray) -> None:
    path = tmp_path / "s.zarr"
    token = chunkwise.CancelToken()
    seen = Recorder()

    def cancel(done: int, total: int | None) -> None:
        seen(done, total)
        token.cancel()

    with pytest.raises(chunkwise.CancelledError):
        with chunkwise.StreamWriter(str(path), shape=[0, 1024, 1024], dtype="uint16",
                                    chunks=[1, 512, 512], tiles_per_shard=[1, 1, 1],
                                    codecs=SLOW, progress=cancel, cancel=token) as writer:
            writer.append(big)
    assert writer.closed
    assert seen.calls and seen.calls[-1][1] is None  # unbounded: no total
    # Shards may have been written, but the array is published only when finished.
    assert not (path / "zarr.json").exists()
    with pytest.raises(chunkwise.NotFoundError) as raised:
        chunkwise.open(str(path))
    assert "zarr.json" in str(raised.value)
    data = big[:4]
    with chunkwise.StreamWriter(str(path), shape=[0, 1024, 1024], dtype="uint16",
                                chunks=[1, 512, 512], overwrite=True) as writer:
        writer.append(data)
    np.testing.assert_array_equal(chunkwise.open(str(path))[...], data)


def test_a_bounded_stream_reports_its_total(tmp_path: pathlib.Path) -> None:
    data = np.arange(16 * 256 * 256, dtype="uint16").reshape(16, 256, 256)
    seen = Recorder()
    with chunkwise.StreamWriter(str(tmp_path / "b.zarr"), shape=data.shape, dtype="uint16",
                                chunks=[1, 128, 128], progress=seen) as writer:
        for i in range(0, 16, 4):
            writer.append(data[i:i + 4])
    assert seen.calls[-1] == (data.nbytes, data.nbytes)
    dones = [done for done, _ in seen.calls]
    assert dones == sorted(dones)


def test_threads_reading_one_array_each_see_only_their_own_progress(memory_url: str) -> None:
    data = np.arange(16 * 512 * 256, dtype="uint32").reshape(16, 512, 256)
    array = chunkwise.create(memory_url, data=data, chunks=[1, 128, 128], codecs="zstd:1")
    results: dict[int, tuple[Recorder, np.ndarray]] = {}

    def read(row: int) -> None:
        seen = Recorder()
        results[row] = (seen, array.read(np.s_[row:row + 8], progress=seen))

    threads = [threading.Thread(target=read, args=(row,)) for row in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for row, (seen, values) in results.items():
        np.testing.assert_array_equal(values, data[row:row + 8])
        part = data[row:row + 8].nbytes
        assert seen.calls[-1] == (part, part)
        assert all(done <= part and total == part for done, total in seen.calls)
    assert len(results) == 8
