"""The bad-input corpus: one directory per reader under tests/corpus/, each with
  command.txt  the CLI arguments, {input} standing for the case and {out} for
               an output path that must not appear;
  cases.tsv    one line per case: <file or directory> TAB <code> TAB <why>,
               <code> being the StatusCode name the error must carry (or OK
               when the input is valid and must simply work).
Every case runs under a 4 GiB address-space limit (so that "more memory than
this process may use" is the same everywhere) and a time limit, from a copy
(a reader must not need to write its input). A failing case must exit 1 with
"chunkwise: error: <code>: ..." naming the input, never crash, hang or write
{out}; every entry of a directory must have a line in its cases.tsv.

usage: python3 run_corpus.py --chunkwise build/chunkwise [--workdir DIR] [READER...]
"""
import argparse
import pathlib
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile

CORPUS = pathlib.Path(__file__).resolve().parent
MEMORY_LIMIT = 4 << 30
TIME_LIMIT = 60


def limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run_case(binary, reader, name, code, work):
    source = reader / name
    copy = work / name
    if source.is_dir():
        shutil.copytree(source, copy, symlinks=True)
    else:
        shutil.copy(source, copy)
    out = work / f"{name}.out"
    args = [a.replace("{input}", str(copy)).replace("{out}", str(out))
            for a in shlex.split((reader / "command.txt").read_text())]
    try:
        result = subprocess.run([str(binary), *args], capture_output=True, text=True,
                                timeout=TIME_LIMIT, preexec_fn=limit_memory)
    except subprocess.TimeoutExpired:
        return f"ran past {TIME_LIMIT} s"
    stderr = result.stderr.strip()
    if code == "OK":
        return None if result.returncode == 0 else f"exit {result.returncode}: {stderr[-300:]}"
    if result.returncode != 1:
        return f"exit {result.returncode} (wanted 1): {stderr[-300:]}"
    if not stderr.startswith(f"chunkwise: error: {code}: "):
        return f"wanted a {code} error, got: {stderr[-300:]}"
    if name.split("/")[0] not in stderr and copy.name not in stderr:
        return f"the message does not name {name}: {stderr[-300:]}"
    if out.exists():
        return f"{out.name} was written"
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunkwise", required=True, type=pathlib.Path)
    parser.add_argument("--workdir", type=pathlib.Path)
    parser.add_argument("readers", nargs="*")
    args = parser.parse_args()
    binary = args.chunkwise.resolve()
    readers = sorted(p for p in CORPUS.iterdir() if (p / "cases.tsv").exists())
    if args.readers:
        readers = [r for r in readers if r.name in args.readers]
    passed = failed = 0
    base = args.workdir or pathlib.Path(tempfile.mkdtemp(prefix="corpus-"))
    for reader in readers:
        cases = {}
        for line in (reader / "cases.tsv").read_text().splitlines():
            if not line.strip() or line.startswith("#"):
                continue
            name, code, *why = line.split("\t")
            cases[name] = (code, why[0] if why else "")
        entries = {p.name for p in reader.iterdir()} - {"command.txt", "cases.tsv"}
        for name in sorted(entries - set(cases)):
            print(f"FAIL {reader.name}/{name}: no line in cases.tsv")
            failed += 1
        for name, (code, why) in cases.items():
            if not (reader / name).exists():
                print(f"FAIL {reader.name}/{name}: listed in cases.tsv but missing")
                failed += 1
                continue
            work = base / reader.name
            shutil.rmtree(work / name, ignore_errors=True)
            work.mkdir(parents=True, exist_ok=True)
            problem = run_case(binary, reader, name, code, work)
            if problem is None:
                passed += 1
                print(f"ok   {reader.name}/{name}: {code} ({why})")
            else:
                failed += 1
                print(f"FAIL {reader.name}/{name}: {problem}")
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed or not passed else 0)


if __name__ == "__main__":
    main()
