"""Shared helpers for the interop scripts: run the chunkwise CLI, count checks.

Each script runs with Debian's /usr/bin/python3 (numpy, zarr 2.13, fsspec,
numcodecs, blosc) and ends with the line "N passed, M failed".
"""
import argparse
import pathlib
import shutil
import subprocess
import sys


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def expect(self, condition, what):
        if condition:
            self.passed += 1
            print(f"ok   {what}")
        else:
            self.failed += 1
            print(f"FAIL {what}")

    def expect_equal_bytes(self, actual, expected, what):
        actual, expected = bytes(actual), bytes(expected)
        if actual == expected:
            self.expect(True, what)
            return
        n = min(len(actual), len(expected))
        at = next((i for i in range(n) if actual[i] != expected[i]), n)
        self.expect(False, f"{what}: {len(actual)} vs {len(expected)} bytes, first difference at {at}")

    def finish(self):
        print(f"{self.passed} passed, {self.failed} failed")
        sys.exit(1 if self.failed else 0)


def run(args, expect_success=True):
    """Runs a command; returns the CompletedProcess. Raises if the outcome is not the expected one."""
    result = subprocess.run([str(a) for a in args], capture_output=True, text=True)
    if expect_success and result.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, args))} failed ({result.returncode}): {result.stderr}")
    if not expect_success and result.returncode == 0:
        raise RuntimeError(f"{' '.join(map(str, args))} succeeded but should have failed")
    return result


def command_line(*options, parser=None):
    """Parses the script's command line: each of `options` (a name such as
    "--chunkwise") and --workdir, all required, with what `parser` adds.
    Empties the work folder and makes it afresh. Returns (args, work)."""
    parser = parser or argparse.ArgumentParser()
    for option in (*options, "--workdir"):
        parser.add_argument(option, required=True)
    args = parser.parse_args()
    work = pathlib.Path(args.workdir)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    return args, work
