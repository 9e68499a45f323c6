"""Every command's --help shows where its paths may point (src/cli/url_footers.cc):
a store command an s3:// URL example, a DVID database command that the database
is local and export-shards reaches object storage. The commands are found by
walking each group's --help, so a new command is checked without naming it here.

usage: url_help_test.py CHUNKWISE
"""
import re
import subprocess
import sys

# Commands that take no path: nothing to show.
PATHLESS = {"codec list", "grid", "morton", "gpu-info"}
DATABASE = {"dvid ingest", "dvid map", "dvid info", "dvid branch", "dvid commit", "dvid read",
            "dvid get-block", "dvid put-block"}


def help_of(binary, words):
    result = subprocess.run([binary, *words, "--help"], capture_output=True, text=True, timeout=60)
    if result.returncode != 0:
        raise SystemExit(f"FAIL chunkwise {' '.join(words)} --help exited {result.returncode}")
    return result.stdout


def subcommands(text):
    """The names under the help's SUBCOMMANDS section."""
    names, inside = [], False
    for line in text.splitlines():
        if re.match(r"^subcommands:\s*$", line.strip(), re.IGNORECASE):
            inside = True
            continue
        if inside:
            found = re.match(r"^\s{2,}([a-z0-9][a-z0-9-]*)(\s|$)", line)
            if found:
                names.append(found.group(1))
            elif line.strip() and not line.startswith(" "):
                inside = False
    return names


def main():
    binary = sys.argv[1]
    failures, leaves = [], []
    pending = [[]]
    while pending:
        words = pending.pop()
        text = help_of(binary, words)
        children = subcommands(text)
        if words and not children:
            leaves.append((" ".join(words), text))
        pending.extend(words + [child] for child in children)
    names = {name for name, _ in leaves}
    for name in sorted(PATHLESS | DATABASE | {"zarr read", "bcolz create", "refs build"}):
        if name not in names:
            failures.append(f"{name}: not found among the commands (the walk or the list is wrong)")
    for name, text in sorted(leaves):
        if name in PATHLESS:
            continue
        if "s3://" not in text:
            failures.append(f"{name} --help shows no s3:// example")
        if name in DATABASE and "export-shards" not in text:
            failures.append(f"{name} --help does not say export-shards reaches object storage")
    for failure in failures:
        print("FAIL", failure)
    print(f"{len(leaves)} commands walked, {len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
