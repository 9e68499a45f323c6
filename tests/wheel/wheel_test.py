"""The wheel as a pip user meets it (#39): scripts/build-wheel's repaired wheel
installed into a fresh virtual environment, the `chunkwise` command and the
module taken from that install, and the Python suite run from outside the
source tree against it.

The fresh environment holds only the wheel; the suite's own tools (numpy,
zarr, pytest, ...) come from the pinned .venv through a .pth file placed after
the environment's site-packages, so that `import chunkwise` can only find the
installed wheel."""

from __future__ import annotations

import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys
import sysconfig
import time
import zipfile


def fail(message: str) -> None:
    print(f"wheel_test: FAILED: {message}", file=sys.stderr)
    sys.exit(1)


def the_wheel(wheelhouse: pathlib.Path) -> pathlib.Path:
    wheels = sorted(wheelhouse.glob("chunkwise-*.whl"))
    if len(wheels) != 1:
        fail(f"{wheelhouse}: expected one chunkwise wheel, found {len(wheels)} "
             "(make test builds it: scripts/build-wheel)")
    return wheels[0]


def check_contents(wheel: pathlib.Path, version: str) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    expected = {
        "the module": r"^chunkwise/_core\..*\.so$",
        "the command": rf"^chunkwise-{re.escape(version)}\.data/scripts/chunkwise$",
        "the libraries auditwheel grafted": r"^chunkwise\.libs/lib.*\.so",
        "the stubs": r"^chunkwise/.*\.pyi$",
    }
    for what, pattern in expected.items():
        if not any(re.search(pattern, name) for name in names):
            fail(f"{wheel.name} lacks {what} ({pattern})")
    if "manylinux" not in wheel.name:
        fail(f"{wheel.name}: not a repaired (manylinux) wheel")


def run(command: list[str], cwd: pathlib.Path, env: dict[str, str]) -> str:
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        fail(f"{' '.join(command)} exited {result.returncode}:\n{result.stdout}\n{result.stderr}")
    return result.stdout


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--wheelhouse", type=pathlib.Path, required=True)
    parser.add_argument("--source", type=pathlib.Path, required=True)
    parser.add_argument("--workdir", type=pathlib.Path, required=True)
    args = parser.parse_args()
    args.wheelhouse, args.source, args.workdir = (
        path.resolve() for path in (args.wheelhouse, args.source, args.workdir))

    cmake = (args.source / "CMakeLists.txt").read_text()
    version = re.search(r"project\(chunkwise VERSION ([0-9.]+)", cmake).group(1)
    wheel = the_wheel(args.wheelhouse)
    check_contents(wheel, version)
    print(f"wheel: {wheel.name}, {wheel.stat().st_size / 2**20:.1f} MiB")

    shutil.rmtree(args.workdir, ignore_errors=True)
    venv = args.workdir / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "LD_LIBRARY_PATH", "CHUNKWISE_CLI", "VIRTUAL_ENV")}
    start = time.monotonic()
    run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
         "--no-deps", "--no-index", str(wheel)], args.workdir, env)
    print(f"pip install of the wheel into a fresh venv: {time.monotonic() - start:.1f} s")
    purelib = pathlib.Path(run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                               args.workdir, env).strip())
    (purelib / "zz_pinned_tools.pth").write_text(sysconfig.get_path("purelib") + "\n")

    command = venv / "bin" / "chunkwise"
    said = run([str(command), "--version"], args.workdir, env).strip()
    if version not in said.split():
        fail(f"{command} --version said {said!r}, not the project's {version}")
    where = run([str(python), "-c", "import chunkwise; print(chunkwise.__file__, chunkwise.__version__)"],
                args.workdir, env).split()
    if not pathlib.Path(where[0]).is_relative_to(venv) or where[1] != version:
        fail(f"import chunkwise found {where}, not the wheel's {version} under {venv}")
    print(f"chunkwise --version: {said}; module: {where[0]}")

    env.update(CHUNKWISE_CLI=str(command), CHUNKWISE_SOURCE_DIR=str(args.source))
    suite = subprocess.run([str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "--disable-warnings",
                            str(args.source / "tests" / "python")], cwd=args.workdir, env=env)
    if suite.returncode != 0:
        fail(f"the Python suite against the installed wheel exited {suite.returncode}")
    print("the Python suite passed against the installed wheel")


if __name__ == "__main__":
    main()
