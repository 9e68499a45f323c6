"""bcolz --where against numpy 2: for every numeric dtype a ctable column can
hold (both byte orders), every comparison operator and literals chosen to sit
on the edges (the column's own values, their float neighbours, bounds of the
type, integers past 2**53, 2**63 and 2**64, floats that round differently in
float16/float32), the predicate "c OP L" selects exactly the rows numpy's
`arr["c"] OP L` selects, on random data. The thousands of predicates go
through bcolz_predicate_tool (the library path of `bcolz read --where`, in
one process); a sample of them, and the reported case, through the CLI. Where numpy refuses the
comparison (an integer too large for a float, a bool column against an
integer outside int64, a datetime against a float) chunkwise exits non-zero
naming the column.

datetime64 and timedelta64 columns compare their int64 counts with integer
literals (numpy refuses datetime64 against a Python int); the expected rows are
numpy's on the int64 view.

Needs numpy 2 (NEP 50 scalar promotion): run it with the pinned .venv python.
usage: .venv/bin/python bcolz_predicate_interop.py --chunkwise build/chunkwise
       --tool build/tests/interop/bcolz_predicate_tool --workdir DIR
"""
import argparse
import ast
import pathlib
import shutil
import subprocess
import sys
import warnings

import numpy as np

from interop_check import Checks

OPS = ["<", "<=", ">", ">=", "==", "!="]
DTYPES = ["|b1", "<i1", "<i2", "<i4", "<i8", "|u1", "<u2", "<u4", "<u8", "<f2", "<f4", "<f8",
          ">i2", ">u4", ">f4", ">f8", "<m8[s]", "<M8[D]"]
FIXED_LITERALS = ["0", "-1", "1", "True", "False", "0.9", "-0.5", "2049", "16777217",
                  "9007199254740993", "9007199254740992.0", str(2**63 - 1), str(2**63),
                  str(-2**63), str(-2**63 - 1), str(2**64 - 1), str(2**64), str(10**30),
                  str(10**400), "1e400", "-1e400", "3.4028235677973366e38", "65520.0", "nan",
                  "0x10", "1e-8"]


def column_values(dtype, rng, rows):
    """Random values of `dtype` with its edges and some repeats mixed in."""
    if dtype.kind == "b":
        return rng.integers(0, 2, rows).astype(dtype)
    if dtype.kind in "iumM":
        base = np.dtype(dtype.str.replace("m8[s]", "i8").replace("M8[D]", "i8"))
        info = np.iinfo(base)
        values = rng.integers(info.min, info.max, rows, dtype=base.newbyteorder("="), endpoint=True)
        edges = [info.min, info.max, info.min + 1, info.max - 1, 0, 1]
        if base.itemsize == 8:
            edges += [2**53, 2**53 + 1, 2**53 - 1] + ([-2**53 - 1] if base.kind == "i" else [])
        values[: len(edges)] = edges
        values[len(edges):len(edges) + 40] = rng.integers(-3, 4, 40) if base.kind == "i" else rng.integers(0, 4, 40)
        return values.astype(base).view(dtype)
    values = rng.standard_normal(rows) * 10.0 ** rng.integers(-6, 6, rows)
    finfo = np.finfo(dtype)
    edges = [0.9, -0.0, 0.0, 2048, 2049, 16777216, 16777217, float(finfo.max), float(finfo.tiny),
             float("inf"), float("-inf"), float("nan"), 9007199254740992, 0.5, -1, 1e-8]
    values[: len(edges)] = edges
    values[len(edges):len(edges) + 40] = rng.integers(-3, 4, 40)
    with np.errstate(over="ignore"):
        return values.astype(dtype)


def literals_for(column, rng):
    """The fixed literals plus a few of the column's own values as Python writes them."""
    picks = rng.choice(column, 6)
    own = []
    for value in picks:
        if column.dtype.kind == "f":
            if np.isfinite(value):
                own.append(repr(float(value)))
                own.append(repr(float(np.nextafter(value, value.dtype.type(np.inf)))))
        elif column.dtype.kind in "mM":
            own.append(str(int(value.view("i8"))))
        else:
            own.append(str(int(value)))
    return FIXED_LITERALS + own


def python_value(literal):
    if literal == "nan":
        return float("nan")
    return ast.literal_eval(literal)


def expected_rows(column, op, literal):
    """numpy's selection, or None where numpy refuses the comparison."""
    array = column.view("i8") if column.dtype.kind in "mM" else column
    value = python_value(literal)
    if column.dtype.kind in "mM" and isinstance(value, float):
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Overflow to inf in a cast, as numpy warns.
        try:
            mask = eval(f"array {op} value")  # noqa: S307 (op is one of OPS)
        except (OverflowError, TypeError):
            return None
    return np.flatnonzero(mask)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunkwise", required=True, type=pathlib.Path)
    parser.add_argument("--workdir", required=True, type=pathlib.Path)
    parser.add_argument("--tool", required=True, type=pathlib.Path)
    parser.add_argument("--seed", type=int, default=30)
    parser.add_argument("--rows", type=int, default=600)
    args = parser.parse_args()
    if int(np.__version__.split(".")[0]) < 2:
        sys.exit(f"numpy {np.__version__}: this test needs numpy 2 (NEP 50); run it with .venv/bin/python")
    print(f"numpy {np.__version__}, seed {args.seed}")
    shutil.rmtree(args.workdir, ignore_errors=True)
    args.workdir.mkdir(parents=True)
    rng = np.random.default_rng(args.seed)
    names = [f"c{i}" for i in range(len(DTYPES))]
    table = np.zeros(args.rows, dtype=[("row", "<i8")] + [(n, d) for n, d in zip(names, DTYPES)])
    table["row"] = np.arange(args.rows)
    for name, dtype in zip(names, DTYPES):
        table[name] = column_values(np.dtype(dtype), rng, args.rows)
    np.save(args.workdir / "table.npy", table)
    root = args.workdir / "table.bcolz"
    subprocess.run([args.chunkwise, "-q", "bcolz", "create", root, "--input", args.workdir / "table.npy",
                    "--chunklen", "128"], check=True)
    out = args.workdir / "rows.npy"
    checks = Checks()
    for name, dtype in zip(names, DTYPES):
        column = table[name]
        cases = [(op, literal) for literal in literals_for(column, rng) for op in OPS]
        predicates = args.workdir / "predicates.txt"
        predicates.write_text("".join(f"{name} {op} {literal}\n" for op, literal in cases))
        answers = args.workdir / "answers.txt"
        subprocess.run([args.tool, args.workdir / "table.bcolz", predicates, answers], check=True)
        mismatches, refusals, compared = [], 0, 0
        for (op, literal), answer in zip(cases, answers.read_text().splitlines()):
            want = expected_rows(column, op, literal)
            if want is None:
                refusals += 1
                if not answer.startswith("ERR InvalidArgument") or f'"{name}"' not in answer:
                    mismatches.append(f"{op} {literal}: numpy refuses, we say {answer[:80]}")
                continue
            compared += 1
            if not answer.startswith("OK"):
                mismatches.append(f"{op} {literal}: {answer[:120]}")
                continue
            got = np.array([int(r) for r in answer.split()[1:]], dtype=np.int64)
            if not np.array_equal(got, want):
                mismatches.append(f"{op} {literal}: {len(got)} rows, numpy {len(want)}")
        checks.expect(compared + refusals == len(cases) and not mismatches,
                      f"{dtype}: {compared} comparisons as numpy, {refusals} refused as numpy"
                      + (f"; {len(mismatches)} differ, e.g. {mismatches[:3]}" if mismatches else ""))
        # The CLI gives the same answers (a sample of them).
        for op, literal in rng.choice(np.array(cases, dtype=object), 3):
            want = expected_rows(column, op, literal)
            result = subprocess.run(
                [args.chunkwise, "-q", "bcolz", "read", root, "--columns", "row", "--where",
                 f"{name} {op} {literal}", "--output", out, "--overwrite"], capture_output=True, text=True)
            same = (result.returncode != 0) if want is None else \
                (result.returncode == 0 and np.array_equal(np.load(out)["row"], want))
            checks.expect(same, f"{dtype}: chunkwise bcolz read --where \"{name} {op} {literal}\" agrees")
    # The case that was reported: float64 0.9 rows are equal to 0.9 and not greater.
    table64 = np.full(202, 0.9)
    np.save(args.workdir / "v.npy", np.array(list(zip(table64, range(202))), dtype=[("v", "<f8"), ("row", "<i8")]))
    subprocess.run([args.chunkwise, "-q", "bcolz", "create", args.workdir / "v.bcolz", "--input",
                    args.workdir / "v.npy"], check=True)
    for where, rows in [("v == 0.9", 202), ("v > 0.9", 0), ("v >= 0.9", 202)]:
        subprocess.run([args.chunkwise, "-q", "bcolz", "read", args.workdir / "v.bcolz", "--where", where,
                        "--output", out, "--overwrite"], check=True)
        checks.expect(len(np.load(out)) == rows, f"202 rows of 0.9: {where} selects {rows}")
    checks.finish()


if __name__ == "__main__":
    main()
