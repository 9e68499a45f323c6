#!/usr/bin/env python3
"""`make demo` as a user meets it (#39): scripts/demo run into a fresh folder
exits 0, prints fewer than 80 lines with no deprecation notice or warning,
leaves less than 150 MB, and ends with report.html showing the neuroglancer
screenshot and the throughput chart. Standard library only.

usage: story_test.py --demo scripts/demo --chunkwise build/chunkwise --workdir DIR
"""
import argparse
import pathlib
import shutil
import subprocess
import sys

MAX_LINES = 80
MAX_BYTES = 150 * 1000 * 1000


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--demo", required=True)
    parser.add_argument("--chunkwise", required=True)
    parser.add_argument("--workdir", required=True)
    args = parser.parse_args()
    out = pathlib.Path(args.workdir)
    shutil.rmtree(out, ignore_errors=True)
    run = subprocess.run([args.demo, "--chunkwise", args.chunkwise, "--out", str(out)],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=1200)
    printed = run.stdout.splitlines()
    failures = []
    if run.returncode != 0:
        failures.append(f"the demo exited {run.returncode}")
    if len(printed) >= MAX_LINES:
        failures.append(f"the demo printed {len(printed)} lines, the limit is {MAX_LINES - 1}")
    noisy = [line for line in printed if "deprecat" in line.lower() or "warning" in line.lower()]
    if noisy:
        failures.append(f"the demo printed warnings: {noisy[:5]}")
    left = sum(f.stat().st_size for f in out.rglob("*") if f.is_file() and not f.is_symlink())
    if left >= MAX_BYTES:
        failures.append(f"the demo left {left / 1e6:.1f} MB in {out}, the limit is {MAX_BYTES / 1e6:.0f} MB")
    report = out / "report.html"
    if not report.is_file():
        failures.append(f"{report} is missing")
    else:
        page = report.read_text()
        if 'src="neuroglancer.png"' not in page:
            failures.append(f"{report} does not show neuroglancer.png")
        if "<svg" not in page or "MB/s" not in page:
            failures.append(f"{report} has no throughput chart")
        for writer in ("chunkwise", "TensorStore", "acquire-zarr"):
            if writer not in page:
                failures.append(f"{report} does not name the writer {writer}")
    shot = out / "neuroglancer.png"
    if not shot.is_file() or shot.read_bytes()[:8] != b"\x89PNG\r\n\x1a\n":
        failures.append(f"{shot} is not a PNG")
    if failures:
        sys.stdout.write(run.stdout[-6000:])
        for failure in failures:
            print(f"FAIL: {failure}")
        sys.exit(1)
    print(f"demo: exit 0, {len(printed)} lines, {left / 1e6:.1f} MB left, report.html with the screenshot")
    shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
