"""zarr stream interop: arrays written by the streaming shard writer, fed through
stdin in odd-sized pieces, are read by zarrita (node) and by the spec decoder of
zarr_interop.py, and equal byte for byte what the zarr region writer (`zarr
create` + `zarr write`) stores for the same data.

usage: /usr/bin/python3 stream_interop.py --chunkwise build/chunkwise --workdir DIR --node-script zarr_tool.mjs
"""
import argparse
import json
import pathlib
import shutil
import subprocess

import numpy as np

from interop_check import Checks, run
from zarr_interop import sample, spec_decode_sharded, write_ours

# name, dtype, shape, chunk, tiles per shard, codec, extra stream args
CASES = [
    ("rank1_unbounded", "int32", (5000,), "256", "8", "zstd:1", ["--unbounded"]),
    ("rank2_edges", "uint16", (45, 50), "8,16", "3,2", "gzip:1", []),
    ("rank3_blosc_lz4", "uint16", (37, 60, 44), "4,16,16", "4,2,2", "blosc:lz4:5:shuffle", ["--unbounded"]),
    ("rank3_bitshuffle", "float32", (20, 33, 40), "4,16,16", "2,1,2", "blosc:zstd:3:bitshuffle", []),
    ("rank3_start_index", "uint8", (30, 40, 40), "8,8,8", "2,2,2", "zstd:3", ["--index-location", "start"]),
    ("rank4_none", "int16", (9, 5, 7, 11), "2,2,3,4", "2,2,2,2", "none", ["--unbounded"]),
]


def stream_through_stdin(binary, path, data, shape_text, args):
    """Runs `zarr stream` with the data piped in pieces of 1, 7, 4093, ... bytes."""
    proc = subprocess.Popen([str(binary), "-q", "zarr", "stream", str(path), "--shape", shape_text,
                             "--input", "-", "--overwrite", *args],
                            stdin=subprocess.PIPE, stderr=subprocess.PIPE)
    raw = data.tobytes()
    sizes = [1, 7, 4093, 65537, 3]
    at = i = 0
    while at < len(raw):
        n = sizes[i % len(sizes)]
        proc.stdin.write(raw[at:at + n])
        at += n
        i += 1
    proc.stdin.close()
    stderr = proc.stderr.read().decode()
    return proc.wait(), stderr


def check_cases(checks, binary, work, node_script):
    manifest = []
    written = []
    for name, dtype, shape, chunk, tps, codec, extra in CASES:
        data = sample(dtype, shape, len(name))
        unbounded = "--unbounded" in extra
        extra = [a for a in extra if a != "--unbounded"]
        shape_text = ",".join(["0" if unbounded else str(shape[0])] + [str(s) for s in shape[1:]])
        path = work / name
        args = ["--dtype", dtype, "--chunk", chunk, "--tiles-per-shard", tps, "--codec", codec, *extra]
        code, stderr = stream_through_stdin(binary, path, data, shape_text, args)
        checks.expect(code == 0, f"{name}: zarr stream succeeds ({stderr.strip()[:200]})")
        meta = json.loads((path / "zarr.json").read_text())
        checks.expect(meta["shape"] == list(shape), f"{name}: zarr.json's shape ends exact {meta['shape']}")
        written.append((name, path, data, extra, codec, chunk, tps))
        if "start" not in extra:  # zarrita ignores index_location.
            manifest.append({"dir": str(path), "out": str(work / f"{name}.zarrita.bin")})
    (work / "manifest.json").write_text(json.dumps(manifest))
    lines = run(["node", node_script, "read", work / "manifest.json"]).stdout.splitlines()
    results = {r["dir"]: r for r in map(json.loads, lines)}
    for name, path, data, extra, codec, chunk, tps in written:
        if str(path) in results:
            result = results[str(path)]
            checks.expect("error" not in result, f"{name}: zarrita opens it {result.get('error', '')}")
            if "error" not in result:
                got = (work / f"{name}.zarrita.bin").read_bytes()
                checks.expect_equal_bytes(got, data.tobytes(), f"{name}: zarrita reads the same bytes")
        decoded = spec_decode_sharded(path)
        checks.expect_equal_bytes(decoded.tobytes(), data.tobytes(), f"{name}: the spec decoder reads the same")
        check_same_as_region_writer(checks, binary, work, name, path, data, extra, codec, chunk, tps)


def check_same_as_region_writer(checks, binary, work, name, path, data, extra, codec, chunk, tps):
    shard = ",".join(str(int(c) * int(t)) for c, t in zip(chunk.split(","), tps.split(",")))
    # The stream adds no checksum by default; zarr create adds crc32c unless told (#44).
    region = write_ours(binary, work, f"{name}_region", data, "--chunk", chunk, "--shard", shard,
                        "--codec", codec, "--checksum", "none", *extra)
    ours = sorted(p.relative_to(path) for p in path.rglob("*") if p.is_file())
    theirs = sorted(p.relative_to(region) for p in region.rglob("*") if p.is_file())
    checks.expect(ours == theirs, f"{name}: the same objects as the region writer ({len(ours)})")
    same = all((path / p).read_bytes() == (region / p).read_bytes() for p in ours if p in theirs)
    checks.expect(same, f"{name}: every object equals the region writer's byte for byte")


def check_errors(checks, binary, work):
    path = work / "errors"
    base = ["-q", "zarr", "stream", str(path), "--dtype", "uint16", "--input", "-", "--overwrite"]
    cases = [
        (["--shape", "0,10", "--chunk", "4,4"], b"\x01\x02\x03", "inside an element"),
        (["--shape", "2,10", "--chunk", "1,5"], b"\x00" * 60, "longer than the array"),
        (["--shape", "0,64,64", "--chunk", "8,32,32", "--tiles-per-shard", "2,2,2", "--max-memory", "0.01"], b"",
         "--max-memory"),
        (["--shape", "0,10", "--chunk", "0,5"], b"", "tile"),
        (["--shape", "0,10", "--chunk", "2,5", "--backend", "gpu"], b"", "--backend"),
    ]
    for args, payload, needle in cases:
        result = subprocess.run([str(binary), *base, *args], input=payload, capture_output=True)
        stderr = result.stderr.decode()
        checks.expect(result.returncode == 1 and needle in stderr and "Traceback" not in stderr,
                      f"zarr stream {' '.join(args)}: exit 1 naming {needle!r} ({stderr.strip()[:140]})")
    result = subprocess.run([str(binary), "zarr", "stream", str(work / "dry"), "--shape", "0,2048,2048",
                             "--dtype", "uint16", "--chunk", "32,128,128", "--tiles-per-shard", "16,4,4",
                             "--input", "-", "--dry-run"], capture_output=True)
    checks.expect(result.returncode == 0 and b"memory" in result.stdout and not (work / "dry").exists(),
                  "--dry-run prints the layout and memory estimate and writes nothing")


def check_backends(checks, binary, work):
    """--backend auto writes what the CPU writes (on the GPU when there is one);
    --backend cuda either does the same or, with no GPU or no CUDA build, exits
    1 saying why."""
    data = (np.arange(24 * 40 * 56, dtype=np.uint16) % 4099).reshape(24, 40, 56)
    common = ["--dtype", "uint16", "--chunk", "4,16,16", "--tiles-per-shard", "2,2,2",
              "--codec", "blosc:lz4det:5:shuffle", "--input", "-", "--overwrite"]
    outputs = {}
    for backend in ["cpu", "auto", "cuda"]:
        path = work / f"backend_{backend}.zarr"
        result = subprocess.run([str(binary), "zarr", "stream", str(path), "--shape", "0,40,56",
                                 *common, "--backend", backend], input=data.tobytes(), capture_output=True)
        outputs[backend] = (result, path)
    cpu, auto = outputs["cpu"], outputs["auto"]
    checks.expect(cpu[0].returncode == 0 and auto[0].returncode == 0 and b"backend auto" in auto[0].stdout,
                  f"--backend auto writes and says which backend ({auto[0].stdout.decode().strip()[:160]})")

    def shards(path):
        return {p.relative_to(path): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}
    checks.expect(shards(cpu[1]) == shards(auto[1]), "--backend auto: every file equals the CPU backend's")
    cuda_result, cuda_path = outputs["cuda"]
    stderr = cuda_result.stderr.decode()
    if cuda_result.returncode == 0:
        checks.expect(shards(cpu[1]) == shards(cuda_path), "--backend cuda: every file equals the CPU backend's")
    else:
        checks.expect(cuda_result.returncode == 1 and "the CUDA backend:" in stderr
                      and "--backend cpu or auto" in stderr,
                      f"--backend cuda without a usable GPU: exit 1 saying why ({stderr.strip()[:160]})")


def check_killed_writer(checks, binary, work):
    """SIGKILL mid-stream: no zarr.json, so no reader opens the array; every shard under its key
    is whole; the next run with --overwrite replaces the debris."""
    import signal
    import time
    path = work / "killed"
    data = sample("uint16", (64, 48, 40), 11)
    command = [str(binary), "-q", "zarr", "stream", str(path), "--shape", "0,48,40", "--dtype", "uint16",
               "--chunk", "4,16,16", "--tiles-per-shard", "2,2,2", "--input", "-"]
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stderr=subprocess.DEVNULL)
    proc.stdin.write(data[:37].tobytes())  # Four shard epochs of 8 frames (4 shards each), and 5 frames more.
    proc.stdin.flush()

    def shards():
        return sorted(str(p.relative_to(path)) for p in (path / "c").rglob("*")
                      if p.is_file() and not p.name.startswith(".")) if (path / "c").exists() else []
    # The shards of the four finished epochs that are not all fill (the first frames are zeros).
    expected = sorted(f"c/{e}/{y}/{x}" for e in range(4) for y in range(2) for x in range(2)
                      if data[e * 8:(e + 1) * 8, y * 32:(y + 1) * 32, x * 32:(x + 1) * 32].any())
    deadline = time.time() + 30
    while time.time() < deadline and shards() != expected:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)  # stdin is still open: the writer cannot have finished.
    proc.wait()
    checks.expect(shards() == expected, f"killed writer: the {len(expected)} stored shards of the finished "
                  f"epochs were written ({shards()})")
    checks.expect(not (path / "zarr.json").exists(), "killed writer: no zarr.json (the array is published at the end)")
    checks.expect((path / ".chunkwise-incomplete").exists(), "killed writer: the incomplete marker is left")
    info = subprocess.run([str(binary), "zarr", "info", str(path)], capture_output=True, text=True)
    checks.expect(info.returncode != 0 and "zarr.json" in info.stderr,
                  f"killed writer: zarr info refuses it, naming zarr.json ({info.stderr.strip()[:160]})")
    # Each shard under its key is whole: decoded with the metadata a finished run of 32 frames writes.
    finished = work / "killed-reference"
    code, stderr = stream_through_stdin(binary, finished, data[:32], "0,48,40",
                                        ["--dtype", "uint16", "--chunk", "4,16,16", "--tiles-per-shard", "2,2,2"])
    checks.expect(code == 0, f"killed writer: the reference run succeeds ({stderr.strip()[:160]})")
    debris = work / "killed-copy"
    shutil.copytree(path, debris)
    shutil.copy(finished / "zarr.json", debris / "zarr.json")
    checks.expect_equal_bytes(spec_decode_sharded(debris).tobytes(), data[:32].tobytes(),
                              "killed writer: every shard under its key is whole and holds the right frames")
    leftovers = [p.name for p in path.rglob("*") if p.is_file() and p.name.startswith(".")]
    checks.expect(all(".tmp." in name or name == ".chunkwise-incomplete" for name in leftovers),
                  f"killed writer: only temporary files and the marker are left besides whole shards ({leftovers})")
    refused = subprocess.run(command, input=data.tobytes(), capture_output=True)
    checks.expect(refused.returncode != 0 and b"overwrite" in refused.stderr,
                  f"killed writer: the debris is not replaced without --overwrite ({refused.stderr.strip()[:160]})")
    code, stderr = stream_through_stdin(binary, path, data, "0,48,40",
                                        ["--dtype", "uint16", "--chunk", "4,16,16", "--tiles-per-shard", "2,2,2"])
    checks.expect(code == 0 and (path / "zarr.json").exists() and not (path / ".chunkwise-incomplete").exists(),
                  f"killed writer: a run with --overwrite replaces the debris ({stderr.strip()[:160]})")
    checks.expect_equal_bytes(spec_decode_sharded(path).tobytes(), data.tobytes(),
                              "killed writer: the replacement holds the whole input")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunkwise", required=True, type=pathlib.Path)
    parser.add_argument("--workdir", required=True, type=pathlib.Path)
    parser.add_argument("--node-script", required=True, type=pathlib.Path)
    args = parser.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    args.workdir.mkdir(parents=True)
    checks = Checks()
    check_cases(checks, args.chunkwise, args.workdir, args.node_script)
    check_errors(checks, args.chunkwise, args.workdir)
    check_backends(checks, args.chunkwise, args.workdir)
    check_killed_writer(checks, args.chunkwise, args.workdir)
    checks.finish()


if __name__ == "__main__":
    main()
