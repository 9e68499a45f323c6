"""The peer of bench/arrow_ipc_bench.cc: pyarrow writing and reading the same
record batches, as its users do.

usage: python arrow_ipc_peer.py SHARD.arrow RECORDS RUNS
SHARD.arrow: the file arrow_ipc_bench wrote (one record per batch); pyarrow
reads it (zero-copy, from memory) and checks RECORDS rows, and those batches
are what it writes. Its cases, named as arrow_ipc_bench names its own rows:
  write {file,stream}, {1 record/batch, 1 batch}, to memory:
      `pa.ipc.new_file` / `new_stream` on a BufferOutputStream, `write_table`
      of the table (of 10,000 one-row batches, or combined into one batch);
  read {file,stream}, {1 record/batch, 1 batch}, from memory:
      `pa.ipc.open_file(buffer).read_all()` / `open_stream(...).read_all()`,
      then each record's block (first and last byte, length) and first label
      touched with pyarrow.compute over the whole table, as ours touches them;
  write file, 1 record/batch, to a file: the same into a pa.OSFile;
  read file, 1 record/batch, from a file: pa.memory_map of the file,
      open_file, read_all, touch.
Times are the process's CPU time (time.process_time: every thread, as
arrow_ipc_bench's thread clock counts its one thread), medians of RUNS.
Prints one JSON line: {"seconds": {case: median}, "version": "..."}.
"""
import json
import os
import statistics
import sys
import time

import pyarrow as pa
import pyarrow.compute as pc


def touch(table):
    block = table.column("dvid_compressed_block")
    total = pc.sum(pc.binary_length(block)).as_py()
    first = pc.binary_slice(block, 0, 1)
    last = pc.binary_slice(block, -1)
    total += pc.sum(pc.binary_length(first)).as_py() + pc.sum(pc.binary_length(last)).as_py()
    total += pc.sum(pc.list_element(table.column("labels"), 0)).as_py() or 0
    return total


def timed(runs, body):
    seconds = []
    for _ in range(runs):
        start = time.process_time()
        body()
        seconds.append(time.process_time() - start)
    return statistics.median(seconds)


def write(table, kind, sink):
    opener = pa.ipc.new_file if kind == "file" else pa.ipc.new_stream
    with opener(sink, table.schema) as writer:
        writer.write_table(table)


def to_memory(table, kind):
    sink = pa.BufferOutputStream()
    write(table, kind, sink)
    return sink.getvalue()


def read(source, kind):
    reader = pa.ipc.open_file(source) if kind == "file" else pa.ipc.open_stream(source)
    return reader.read_all()


def main():
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    path, records, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    with open(path, "rb") as f:
        shard = pa.py_buffer(f.read())
    batches = read(shard, "file")
    if batches.num_rows != records or len(batches.to_batches()) != records:
        raise SystemExit(f"pyarrow read {batches.num_rows} rows in "
                         f"{len(batches.to_batches())} batches, not {records}")
    expected = touch(batches)
    seconds = {}
    for shape, table in (("1 record/batch", batches), ("1 batch", batches.combine_chunks())):
        for kind in ("file", "stream"):
            seconds[f"write {kind}, {shape}, to memory"] = timed(runs, lambda: to_memory(table, kind))
            buffer = to_memory(table, kind)
            if touch(read(buffer, kind)) != expected:
                raise SystemExit(f"pyarrow read back other values ({kind}, {shape})")
            seconds[f"read {kind}, {shape}, from memory"] = timed(
                runs, lambda: touch(read(buffer, kind)))
    copy = path + ".pyarrow"

    def write_file():
        with pa.OSFile(copy, "wb") as sink:
            write(batches, "file", sink)

    seconds["write file, 1 record/batch, to a file"] = timed(runs, write_file)

    def read_file():
        with pa.memory_map(copy) as source:
            touch(read(source, "file"))

    seconds["read file, 1 record/batch, from a file"] = timed(runs, read_file)
    os.remove(copy)
    print(json.dumps({"seconds": seconds, "version": pa.__version__}))


if __name__ == "__main__":
    main()
