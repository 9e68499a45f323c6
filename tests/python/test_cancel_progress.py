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


# --- bcolz, vectors, refs.build and DVID: the same Context, the same stops ---
#
# Each long call below is cancelled from its progress callback's first call
# (the watcher calls it within 50 ms of the start, with (0, ...) if nothing
# is done yet), so it is seen running; the library must then stop inside its
# loop. Before these operations checked their Context, they ran to the end
# (or took no progress= and cancel= at all).

import chunkwise.bcolz  # noqa: E402
import chunkwise.dvid  # noqa: E402
import chunkwise.refs  # noqa: E402
import chunkwise.vectors  # noqa: E402


class CancelAtFirstReport(Recorder):
    """Records the calls and cancels `token` at the first one."""

    def __init__(self) -> None:
        super().__init__()
        self.token = chunkwise.CancelToken()

    def __call__(self, done: int, total: int | None) -> None:
        super().__call__(done, total)
        self.token.cancel()


CHUNKLEN = 1 << 15  # Rows of a bcolz chunk: 64 KiB of uint16.


@pytest.fixture(scope="module")
def slow_rows(big: np.ndarray) -> np.ndarray:
    # 64 MiB of noise as 32 Mi rows: seconds of zlib level 9.
    return big.reshape(-1)


def test_a_bcolz_write_and_read_report_their_bytes(tmp_path: pathlib.Path) -> None:
    data = np.arange(1 << 20, dtype="uint32")
    wrote, read = Recorder(), Recorder()
    url = str(tmp_path / "c.bcolz")
    assert chunkwise.bcolz.write(url, data, chunklen=1 << 14, progress=wrote) == data.size
    np.testing.assert_array_equal(chunkwise.bcolz.read(url, progress=read), data)
    for calls in (wrote.calls, read.calls):
        dones = [done for done, _ in calls]
        assert dones == sorted(dones)
        assert calls[-1] == (data.nbytes, data.nbytes)
    rows = np.zeros(1000, dtype=[("id", "<i8"), ("x", "<f4")])
    rows["id"] = np.arange(1000)
    chunkwise.bcolz.write(str(tmp_path / "t.bcolz"), rows)
    where = Recorder()
    picked = chunkwise.bcolz.read(str(tmp_path / "t.bcolz"), where="id >= 990", columns=["id"],
                                  progress=where)
    assert picked["id"].tolist() == list(range(990, 1000))
    assert where.calls[-1] == (1000 * 8, 1000 * 8)  # rows scanned, of the selected column


def test_a_cancelled_bcolz_write_keeps_whole_chunks_of_the_rows(
    tmp_path: pathlib.Path, slow_rows: np.ndarray
) -> None:
    url = str(tmp_path / "stopped.bcolz")
    stop = CancelAtFirstReport()
    with pytest.raises(chunkwise.CancelledError) as raised:
        chunkwise.bcolz.write(url, slow_rows, cname="zlib", clevel=9, chunklen=CHUNKLEN,
                              progress=stop, cancel=stop.token)
    assert "appending to" in str(raised.value)
    kept = chunkwise.bcolz.read(url)
    assert 0 < kept.size < slow_rows.size and kept.size % CHUNKLEN == 0
    np.testing.assert_array_equal(kept, slow_rows[:kept.size])


def test_a_bcolz_import_reports_its_row_bytes_and_stops_when_cancelled(
    tmp_path: pathlib.Path, slow_rows: np.ndarray
) -> None:
    small = np.arange(1 << 20, dtype="uint32")
    np.save(tmp_path / "small.npy", small)
    seen = Recorder()
    chunkwise.bcolz.import_file(str(tmp_path / "s.bcolz"), tmp_path / "small.npy", progress=seen)
    dones = [done for done, _ in seen.calls]
    assert dones == sorted(dones) and seen.calls[-1] == (small.nbytes, small.nbytes)
    np.save(tmp_path / "slow.npy", slow_rows)
    stop = CancelAtFirstReport()
    with pytest.raises(chunkwise.CancelledError) as raised:
        chunkwise.bcolz.import_file(str(tmp_path / "slow.bcolz"), tmp_path / "slow.npy",
                                    cname="zlib", clevel=9, chunklen=CHUNKLEN, progress=stop,
                                    cancel=stop.token)
    assert "importing rows" in str(raised.value)
    assert stop.calls[-1][0] < slow_rows.nbytes


def test_a_cancelled_ctable_append_keeps_its_columns_in_step(
    tmp_path: pathlib.Path, slow_rows: np.ndarray
) -> None:
    url = str(tmp_path / "table.bcolz")
    n = slow_rows.size // 2
    rows = np.zeros(n, dtype=[("a", "<u2"), ("b", "<u2")])
    rows["a"], rows["b"] = slow_rows[:n], slow_rows[n:]
    chunkwise.bcolz.write(url, rows[:10], cname="zlib", clevel=9, chunklen=CHUNKLEN)
    stop = CancelAtFirstReport()
    with pytest.raises(chunkwise.CancelledError):
        chunkwise.bcolz.append(url, rows, progress=stop, cancel=stop.token)
    kept = chunkwise.bcolz.read(url)
    assert 10 < kept.size < 10 + n
    np.testing.assert_array_equal(kept[:10], rows[:10])
    np.testing.assert_array_equal(kept[10:], rows[:kept.size - 10])  # both columns alike


def test_a_cancelled_bcolz_read_stops_between_chunks(
    tmp_path: pathlib.Path, slow_rows: np.ndarray
) -> None:
    url = str(tmp_path / "r.bcolz")
    chunkwise.bcolz.write(url, slow_rows, cname="zlib", clevel=9, chunklen=CHUNKLEN)
    stop = CancelAtFirstReport()
    with pytest.raises(chunkwise.CancelledError) as raised:
        chunkwise.bcolz.read(url, progress=stop, cancel=stop.token)
    assert "reading" in str(raised.value)
    assert stop.calls[-1][0] < slow_rows.nbytes


def test_a_cancelled_vectors_write_publishes_no_store(tmp_path: pathlib.Path) -> None:
    points = np.random.default_rng(3).uniform(0, 1000, (400_000, 3)).astype("float32")
    url = str(tmp_path / "points.zarr")
    stop = CancelAtFirstReport()
    with pytest.raises(chunkwise.CancelledError):
        chunkwise.vectors.write(url, points, chunk_shape=(20, 20, 20), progress=stop,
                                cancel=stop.token)
    assert stop.calls[-1][0] < points.shape[0]
    with pytest.raises(chunkwise.NotFoundError, match="no zarr-vectors root"):
        chunkwise.vectors.read(url)  # the root zarr.json is what a write publishes last
    written = chunkwise.vectors.write(url, points[:100], chunk_shape=(500, 500, 500),
                                      overwrite=True)
    assert written["vertices"] == 100


def test_a_cancelled_vectors_read_stops_between_chunks(tmp_path: pathlib.Path) -> None:
    # 8,000 chunks of about 25 points: the read visits each, long past the
    # first progress report (every 50 ms).
    points = np.random.default_rng(4).uniform(0, 1000, (200_000, 3)).astype("float32")
    url = str(tmp_path / "points.zarr")
    chunkwise.vectors.write(url, points, chunk_shape=(50, 50, 50))
    stop = CancelAtFirstReport()
    with pytest.raises(chunkwise.CancelledError) as raised:
        chunkwise.vectors.read(url, progress=stop, cancel=stop.token)
    assert "reading level 0" in str(raised.value) and url in str(raised.value)
    assert stop.calls[-1] != (8000, None) and stop.calls[-1][0] < 8000
    assert stop.calls[-1][1] is None  # the chunks a query visits are counted as it goes
    seen = Recorder()
    back = chunkwise.vectors.read(url, progress=seen)
    assert back.positions.shape == points.shape
    assert seen.calls[-1] == (8000, None)


def test_a_cancelled_refs_build_stops_inside_the_chunk_scan(tmp_path: pathlib.Path) -> None:
    # 40,000 stored chunks of a million: the scan visits each stored one (the
    # listing's), long past the first progress report (every 50 ms).
    array = chunkwise.create(str(tmp_path / "sparse.zarr"), shape=[1000, 1000], dtype="uint8",
                             chunks=[1, 1], zarr_format=2)
    array[0:40, :] = 1
    stop = CancelAtFirstReport()
    with pytest.raises(chunkwise.CancelledError) as raised:
        chunkwise.refs.build(str(tmp_path / "sparse.zarr"), str(tmp_path / "r.json"),
                             progress=stop, cancel=stop.token)
    assert "building references to" in str(raised.value)  # in the scan, not after it
    assert not (tmp_path / "r.json").exists()


def test_a_bcolz_refs_build_counts_its_chunks_to_their_total(tmp_path: pathlib.Path) -> None:
    url = str(tmp_path / "c.bcolz")
    chunkwise.bcolz.write(url, np.arange(1000, dtype="uint32"), chunklen=64)  # 15 full, 1 leftover
    seen = Recorder()
    built = chunkwise.refs.build(url, str(tmp_path / "c.json"), progress=seen)
    assert built["ranges"] == 15 and built["inline"] == 2 + 1  # .zarray, .zattrs, the leftover
    dones = [done for done, _ in seen.calls]
    assert dones == sorted(dones)
    assert seen.calls[-1] == (16, 16)
    assert all(total == 16 for _, total in seen.calls)  # a carray's chunk count is known


def test_a_cancelled_bcolz_refs_build_stops_between_chunks(tmp_path: pathlib.Path) -> None:
    # 16,000 chunk files of 2 rows: the build reads each one's headers, long
    # past the first progress report (every 50 ms).
    url = str(tmp_path / "many.bcolz")
    chunkwise.bcolz.write(url, np.arange(32000, dtype="uint8"), chunklen=2)
    stop = CancelAtFirstReport()
    with pytest.raises(chunkwise.CancelledError) as raised:
        chunkwise.refs.build(url, str(tmp_path / "r.json"), progress=stop, cancel=stop.token)
    assert "building references to" in str(raised.value) and "many.bcolz" in str(raised.value)
    assert stop.calls[0][1] == 16000 and stop.calls[-1][0] < 16000
    assert not (tmp_path / "r.json").exists()


@pytest.fixture(scope="module")
def blocks_volume() -> np.ndarray:
    # 64 blocks of 64³ labels (uint64, 128 MiB), noisy enough to be slow to encode.
    rng = np.random.default_rng(9)
    return rng.integers(1, 40, (128, 256, 512), dtype=np.uint64)


def test_a_cancelled_dvid_ingest_stops_between_blocks(
    tmp_path: pathlib.Path, blocks_volume: np.ndarray
) -> None:
    with chunkwise.dvid.Labelmap(str(tmp_path / "seg.db"), create=True) as labelmap:
        stop = CancelAtFirstReport()
        with pytest.raises(chunkwise.CancelledError) as raised:
            labelmap.ingest(blocks_volume, scales=1, progress=stop, cancel=stop.token)
        assert "ingesting" in str(raised.value)
        assert labelmap.stats()["scales"][0]["block_entries"] < 64
        small = blocks_volume[:64, :64, :64]
        seen = Recorder()
        labelmap.ingest(small, progress=seen)
        assert seen.calls[-1][0] == seen.calls[-1][1] > 0  # blocks, of every scale built
        read = Recorder()
        back = labelmap.read(np.s_[0:64, 0:64, 0:64], progress=read)
        np.testing.assert_array_equal(back, small)
        assert read.calls[-1] == (small.nbytes, small.nbytes)


def test_a_cancelled_dvid_export_publishes_nothing(
    tmp_path: pathlib.Path, blocks_volume: np.ndarray
) -> None:
    with chunkwise.dvid.Labelmap(str(tmp_path / "seg.db"), create=True) as labelmap:
        labelmap.ingest(blocks_volume)
        sharding = {"@type": "neuroglancer_uint64_sharded_v1", "preshift_bits": 6,
                    "hash": "identity", "minishard_bits": 0, "shard_bits": 0}
        spec = {"@type": "neuroglancer_multiscale_volume", "data_type": "uint64",
                "num_channels": 1, "type": "segmentation",
                "scales": [{"key": "s0", "size": [512, 256, 128], "resolution": [8, 8, 8],
                            "chunk_sizes": [[64, 64, 64]], "encoding": "compressed_segmentation",
                            "sharding": sharding}]}
        stop = CancelAtFirstReport()
        with pytest.raises(chunkwise.CancelledError):
            chunkwise.dvid.export_shards(labelmap, spec, str(tmp_path / "export"),
                                         progress=stop, cancel=stop.token)
        assert not (tmp_path / "export").exists()
        seen = Recorder()
        summary = chunkwise.dvid.export_shards(labelmap, spec, str(tmp_path / "export"),
                                               progress=seen)
        assert summary["scales"][0]["blocks_written"] == 64
        assert seen.calls[-1][0] == 64


def test_a_cancelled_export_read_stops_before_its_first_block(tmp_path: pathlib.Path) -> None:
    # A token cancelled before the call: the read's block loop (its message
    # names the scale) stops it before any block is decoded.
    labels = np.random.default_rng(10).integers(1, 40, (128, 128, 128), dtype=np.uint64)
    with chunkwise.dvid.Labelmap(str(tmp_path / "seg.db"), create=True) as labelmap:
        labelmap.ingest(labels)
        spec = {"@type": "neuroglancer_multiscale_volume", "data_type": "uint64",
                "num_channels": 1, "type": "segmentation",
                "scales": [{"key": "s0", "size": [128, 128, 128], "resolution": [8, 8, 8],
                            "chunk_sizes": [[64, 64, 64]], "encoding": "compressed_segmentation",
                            "sharding": {"@type": "neuroglancer_uint64_sharded_v1",
                                         "preshift_bits": 3, "hash": "identity",
                                         "minishard_bits": 0, "shard_bits": 0}}]}
        chunkwise.dvid.export_shards(labelmap, spec, str(tmp_path / "export"))
    volume = chunkwise.dvid.open_export(str(tmp_path / "export"))
    token = chunkwise.CancelToken()
    token.cancel()
    seen = Recorder()
    with pytest.raises(chunkwise.CancelledError) as raised:
        volume.read(progress=seen, cancel=token)
    assert "reading scale 0 of the export" in str(raised.value)
    assert all(done == 0 for done, _ in seen.calls)
    token.reset()
    back = volume.read(progress=seen, cancel=token)
    np.testing.assert_array_equal(back, labels)
    assert seen.calls[-1] == (8, 8)  # the 8 blocks of the box, counted as read, of 8


def test_a_watched_call_runs_on_the_module_context_and_sees_its_memory_stores(
    tmp_path: pathlib.Path, memory_url: str
) -> None:
    # memory:// stores belong to the module's one Context. A call watched by a
    # callback and a token runs on that Context with its own CallOptions, so
    # it sees the store the module wrote before it (a Context of its own
    # would see an empty memory://NAME and fail, NotFound).
    data = np.arange(24 * 24, dtype="uint16").reshape(24, 24)
    chunkwise.create(memory_url, data=data, chunks=[8, 8], zarr_format=2)
    seen = Recorder()
    token = chunkwise.CancelToken()
    built = chunkwise.refs.build(memory_url, str(tmp_path / "m.json"), progress=seen, cancel=token)
    assert built["references"] == 9 + 2  # 9 chunks, .zarray and .zattrs
    assert seen.calls and seen.calls[-1][0] == 9  # chunks referenced
    # The token is the call's alone: cancelling it after the call stops no other.
    token.cancel()
    np.testing.assert_array_equal(chunkwise.open(memory_url).read(progress=Recorder()), data)
