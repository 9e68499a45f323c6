#!/usr/bin/env python3
"""Two builds of chunkwise, benchmark by benchmark: our own figures, old against new.

Usage: bench/compare_builds.py OLD_BUILD NEW_BUILD [--rounds N] [--only a,b] [--log DIR]

Runs each program of OLD_BUILD/bench and NEW_BUILD/bench in alternation
(old, new, old, new, ...), `--rounds` times each, on the same data and
threads, and prints the median of each of our figures for both builds and
their ratio (new over old as a speed: above 1 the new build is faster).
Peers are left out where a program can leave them out: this compares our
code with itself, and the peers' figures are in docs/benchmarks.md. The
physical limits each program measures beside ours (the raw codec, memcpy,
the decode floor) are printed as controls: how far a control moved between
the builds is the machine's noise, since neither build changed it.

A figure is "ok" when new/old is within 5% (the goal of a refactor that
must not cost speed), "faster" above and "SLOWER" below.
"""

from __future__ import annotations

import argparse
import pathlib
import re
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field


@dataclass
class Rule:
    """A line of a program's output and the figures it holds (group: name)."""

    pattern: str
    figures: dict[int, str]
    higher_is_better: bool = True
    control: bool = False


@dataclass
class Bench:
    program: str
    args: list[str]
    rules: list[Rule]
    # Flags added only where the program's usage lists them (newer builds).
    optional_args: dict[str, list[str]] = field(default_factory=dict)


NUMBER = r"([\d.]+)"
BENCHES = {
    "stream": Bench(
        "stream_bench", ["--gib", "0.5", "--runs", "3"],
        [
            Rule(r"^raw codec, same tiles and threads\s+" + NUMBER, {1: "raw codec GB/s"}, control=True),
            Rule(r"^stream writer, discard sink\s+" + NUMBER, {1: "stream, discard sink GB/s"}),
            Rule(r"^stream writer, file sink\s+" + NUMBER, {1: "stream, file sink GB/s"}),
            Rule(r"^zarr region writer, file\s+" + NUMBER, {1: "region writer GB/s"}),
        ],
        {"--peers": ["--peers", "none"]},
    ),
    "zarr": Bench(
        "zarr_bench", ["--size-mib", "256", "--runs", "3", "--no-python", "--codec", "zstd:1"],
        [
            Rule(r"^zstd:1\s+(write|read)\s+" + NUMBER + r"\s+" + NUMBER, {2: "{1} GB/s"}),
            Rule(r"^zstd:1\s+(write|read)\s+" + NUMBER + r"\s+" + NUMBER, {3: "raw codec {1} GB/s"},
                 control=True),
            Rule(r"^zstd:1\s+" + NUMBER + r"\s+" + NUMBER + r"\s+[\d.]+x", {1: "plane read ms"},
                 higher_is_better=False),
        ],
        {"--only": ["--only", "throughput"]},
    ),
    "refs": Bench(
        "refs_bench", ["--refs", "1000000", "--runs", "3", "--no-python"],
        [
            Rule(r"^build \(in memory\): " + NUMBER, {1: "build s"}, higher_is_better=False),
            Rule(r"^(json-v0|json-v1|parquet)\s+(?:[\d.]+MB\s+)?" + NUMBER + r"\s+" + NUMBER,
                 {2: "{1} write s", 3: "{1} load s"}, higher_is_better=False),
        ],
    ),
    "export_shards": Bench(
        "export_shards_bench", [],
        [
            Rule(r"^" + NUMBER + r"\s+" + NUMBER + r"\s+ratio", {1: "export blocks/s"}),
            Rule(r"^" + NUMBER + r"\s+" + NUMBER + r"\s+ratio", {2: "floor blocks/s"}, control=True),
        ],
    ),
    "precomputed": Bench(
        "precomputed_bench", [],
        [
            Rule(r"^(\d+)\s+(\d+)\s+\d+\s+[\d.]+\s+[\d.]+\s*$", {1: "to-precomputed blocks/s"}),
            Rule(r"^(\d+)\s+(\d+)\s+\d+\s+[\d.]+\s+[\d.]+\s*$", {2: "floor blocks/s"}, control=True),
        ],
    ),
    "vectors": Bench(
        "vectors_bench", ["--points", "1000000", "--runs", "3"],
        [
            Rule(r"^write\s+" + NUMBER + " s", {1: "write s"}, higher_is_better=False),
            Rule(r"^write \(MemoryStore\)\s+" + NUMBER + " s", {1: "write, memory s"},
                 higher_is_better=False),
            Rule(r"^read\s+(\d+)\^3 box\s+" + NUMBER + " s", {2: "read {1}^3 s"}, higher_is_better=False),
        ],
    ),
    "dvid_block": Bench(
        "dvid_block_bench", [],
        [
            Rule(r"^(fib19-1|cx-1|worst)\s+\d+\s+\d+\s+\d+\s+\d+\s+\|\s+(\d+)\s+\d+\s+[\d.]+\s+\|\s+(\d+)"
                 r"\s+\d+\s+[\d.]+\s+\|\s+(\d+)\s+(\d+)",
                 {2: "{1} encode/s", 3: "{1} decode/s", 4: "{1} store write/s", 5: "{1} store read/s"}),
        ],
    ),
    "codec": Bench(
        "codec_bench", ["--benchmark_color=false"],
        [
            Rule(r"^(\S+?)/(encode|decode)/\S*_median\s.*?\s" + NUMBER + r"\s+" + NUMBER + r"\s+[\d.]+\s*$",
                 {4: "{1} {2} GB/s"}),
            Rule(r"^(\S+?)/(encode|decode)/\S*_median\s.*?\s" + NUMBER + r"\s+" + NUMBER + r"\s+[\d.]+\s*$",
                 {3: "{1} {2} direct GB/s"}, control=True),
        ],
    ),
    "bcolz": Bench(
        "bcolz_bench", [],
        [
            Rule(r"^\s*Carray append, (FileStore|MemoryStore), (\d) threads?\s+" + NUMBER + " MB/s",
                 {3: "append {1} {2}t MB/s"}),
            Rule(r"^\s*c-blosc compress, in process, 1 thread\s+" + NUMBER, {1: "c-blosc MB/s"},
                 control=True),
            Rule(r"^\s*Carray::Read\(i, i\+1\), files\s+" + NUMBER + " us", {1: "one-row read us"},
                 higher_is_better=False),
        ],
    ),
    "arrow_ipc": Bench(
        "arrow_ipc_bench", ["--records", "10000", "--runs", "7"],
        [
            Rule(r"^((?:write|read) (?:file|stream), [^,]+, (?:to|from) (?:memory|a file))\s+" + NUMBER,
                 {2: "{1} GB/s"}),
        ],
        {"--python": ["--python", "/bin/false"]},
    ),
}


def usage_of(program: pathlib.Path) -> str:
    """The program's usage text (it prints it for an unknown flag)."""
    result = subprocess.run([program, "--compare-builds-usage", "x"], capture_output=True, text=True,
                            timeout=60, check=False)
    return result.stdout + result.stderr


def command_for(bench: Bench, build: pathlib.Path) -> list[str]:
    program = build / "bench" / bench.program
    command = [str(program), *bench.args]
    if bench.optional_args:
        usage = usage_of(program)
        for flag, extra in bench.optional_args.items():
            if flag in usage:
                command += extra
    return command


def figures_in(bench: Bench, output: str) -> dict[str, tuple[float, Rule]]:
    """Each figure's first value in the output."""
    found: dict[str, tuple[float, Rule]] = {}
    for line in re.sub(r"\x1b\[[0-9;]*m", "", output).splitlines():
        for rule in bench.rules:
            match = re.search(rule.pattern, line)
            if not match:
                continue
            for group, template in rule.figures.items():
                name = template.format(*([""] + list(match.groups())))
                found.setdefault(name, (float(match.group(group)), rule))
    return found


def verdict(speed: float, control: bool) -> str:
    if control:
        return "control"
    if speed < 0.95:
        return "SLOWER"
    return "faster" if speed > 1.05 else "ok"


def run_once(command: list[str], log: pathlib.Path | None, name: str) -> str:
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    output = result.stdout + result.stderr
    if log is not None:
        with open(log / f"{name}.txt", "a", encoding="utf-8") as handle:
            handle.write(f"$ {' '.join(command)}\n{output}\n")
    if result.returncode != 0:
        sys.exit(f"compare_builds: {' '.join(command)} exited {result.returncode}:\n{output[-2000:]}")
    return output


def compare(name: str, bench: Bench, builds: dict[str, pathlib.Path], rounds: int,
            log: pathlib.Path | None) -> list[str]:
    commands = {side: command_for(bench, build) for side, build in builds.items()}
    values: dict[str, dict[str, list[float]]] = {"old": {}, "new": {}}
    rules: dict[str, Rule] = {}
    started = time.monotonic()
    for _ in range(rounds):
        for side in ("old", "new"):
            output = run_once(commands[side], log, f"{name}-{side}")
            for figure, (value, rule) in figures_in(bench, output).items():
                values[side].setdefault(figure, []).append(value)
                rules[figure] = rule
    lines = [f"== {name} ({rounds} rounds, {time.monotonic() - started:.0f} s): "
             f"{' '.join(commands['new'][1:]) or '(no flags)'}"]
    for figure, rule in rules.items():
        old, new = values["old"].get(figure), values["new"].get(figure)
        if not old or not new:
            lines.append(f"  {figure:<40} missing in the {'old' if not old else 'new'} build's output")
            continue
        old_median, new_median = statistics.median(old), statistics.median(new)
        if old_median == 0 or new_median == 0:
            lines.append(f"  {figure:<40} {old_median:>10.3f} {new_median:>10.3f}  (zero)")
            continue
        speed = new_median / old_median if rule.higher_is_better else old_median / new_median
        lines.append(f"  {figure:<40} {old_median:>10.3f} {new_median:>10.3f} {speed:>7.3f}x  "
                     f"{verdict(speed, rule.control)}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", type=pathlib.Path)
    parser.add_argument("new", type=pathlib.Path)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", default="", help="comma-separated names: " + ",".join(BENCHES))
    parser.add_argument("--log", type=pathlib.Path, help="a folder for every run's whole output")
    args = parser.parse_args()
    chosen = [name for name in args.only.split(",") if name] or list(BENCHES)
    for name in chosen:
        if name not in BENCHES:
            sys.exit(f"compare_builds: no benchmark {name!r}; choose from {','.join(BENCHES)}")
    if args.log:
        args.log.mkdir(parents=True, exist_ok=True)
    print(f"{'figure':<42} {'old':>10} {'new':>10} {'new/old':>8}  (a speed: above 1 the new build is faster)")
    for name in chosen:
        for line in compare(name, BENCHES[name], {"old": args.old, "new": args.new}, args.rounds, args.log):
            print(line, flush=True)


if __name__ == "__main__":
    main()
