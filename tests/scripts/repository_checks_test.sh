#!/bin/sh
# The repository checks can fail: scripts/check-conflict-markers on a tracked
# file with markers, scripts/check-seam on an include past the facade and on an
# exception that no longer occurs, scripts/check-public-headers on a private
# header left in include/ and on a public header that needs a private one.
# Each runs on a small tree made here.
#   repository_checks_test.sh PYTHON SOURCE_DIR WORKDIR
set -u
python=$1
source=$2
work=$3
rm -rf "$work" && mkdir -p "$work" || exit 1
failures=0

expect() {  # STATUS WORDS COMMAND...
  want=$1 words=$2
  shift 2
  "$@" >"$work/out" 2>&1
  status=$?
  if [ "$status" -ne "$want" ]; then
    echo "FAIL: exit $status (want $want): $*"; cat "$work/out"; failures=$((failures + 1))
  elif ! grep -qF -- "$words" "$work/out"; then
    echo "FAIL: output lacks \"$words\": $*"; cat "$work/out"; failures=$((failures + 1))
  fi
}

# Conflict markers: each kind of marker line in a tracked file fails the check;
# the same lines untracked, in a binary file, or indented do not.
markers="$source/scripts/check-conflict-markers"
repo="$work/markers"
mkdir -p "$repo" && git -C "$repo" init -q || exit 1
printf 'a\n  =======\nb\n' >"$repo/clean.md"
printf '\000<<<<<<< HEAD\n' >"$repo/blob.bin"
git -C "$repo" add clean.md blob.bin
expect 0 "no conflict markers" "$python" "$markers" --root "$repo"
printf 'a\n<<<<<<< HEAD\nb\n=======\nc\n>>>>>>> topic (a message)\n' >"$repo/README.md"
expect 0 "no conflict markers" "$python" "$markers" --root "$repo"
git -C "$repo" add README.md
expect 1 "README.md:2: unresolved merge-conflict marker: <<<<<<< HEAD" \
  "$python" "$markers" --root "$repo"
expect 1 "README.md:4: unresolved merge-conflict marker: =======" "$python" "$markers" --root "$repo"
expect 1 "README.md:6: unresolved merge-conflict marker: >>>>>>> topic" \
  "$python" "$markers" --root "$repo"
printf 'x\r\n=======\r\n' >"$repo/dos.txt" && git -C "$repo" add dos.txt
expect 1 "dos.txt:2: unresolved merge-conflict marker" "$python" "$markers" --root "$repo"
mkdir -p "$work/plain"  # Not a checkout: git may not look above $work (the build tree is in one).
expect 77 "not a git checkout" env GIT_CEILING_DIRECTORIES="$work" "$python" "$markers" --root "$work/plain"

# The seam: an include past the facade fails unless listed; a listed one that
# is gone fails too; the facade and io/ are always allowed.
seam="$source/scripts/check-seam"
tree="$work/seam"
mkdir -p "$tree/src/cli" "$tree/python/src" "$tree/scripts" || exit 1
printf '#include "chunkwise/chunkwise.h"\n#include "chunkwise/io/npy_file.h"\n#include "cli/command.h"\n' \
  >"$tree/src/cli/a_command.cc"
printf '#include <chunkwise/chunkwise.h>\n' >"$tree/python/src/module.cc"
: >"$tree/scripts/seam-exceptions.txt"
expect 0 "0 listed exception(s) remain" "$python" "$seam" --root "$tree"
printf '#include "chunkwise/formats/zarr/array.h"\n' >>"$tree/src/cli/a_command.cc"
expect 1 "src/cli/a_command.cc:chunkwise/formats/zarr/array.h: includes a library header past the facade" \
  "$python" "$seam" --root "$tree"
printf '# allowed for now\nsrc/cli/a_command.cc:chunkwise/formats/zarr/array.h\n' \
  >"$tree/scripts/seam-exceptions.txt"
expect 0 "1 listed exception(s) remain" "$python" "$seam" --root "$tree"
printf '  #  include <chunkwise/core/status.h>\n' >>"$tree/python/src/module.cc"
expect 1 "python/src/module.cc:chunkwise/core/status.h: includes" "$python" "$seam" --root "$tree"
printf '#include <chunkwise/chunkwise.h>\n' >"$tree/python/src/module.cc"
printf '#include "chunkwise/chunkwise.h"\n' >"$tree/src/cli/a_command.cc"
expect 1 "src/cli/a_command.cc:chunkwise/formats/zarr/array.h: listed in scripts/seam-exceptions.txt but no longer included" \
  "$python" "$seam" --root "$tree"
expect 0 "removed 1 line(s)" "$python" "$seam" --root "$tree" --prune
mkdir -p "$tree/src/formats/zarr" "$tree/src/cli" && : >"$tree/src/formats/zarr/grid_objects.h"
: >"$tree/src/cli/command.h"
printf '#include "cli/command.h"\n#include "formats/zarr/grid_objects.h"\n' >>"$tree/src/cli/a_command.cc"
expect 1 "src/cli/a_command.cc:formats/zarr/grid_objects.h: includes a library header past the facade" \
  "$python" "$seam" --root "$tree"
printf '#include "chunkwise/chunkwise.h"\n#include "cli/command.h"\n' >"$tree/src/cli/a_command.cc"
grep -q "formats/zarr/array.h" "$tree/scripts/seam-exceptions.txt" && {
  echo "FAIL: --prune kept the stale line"; failures=$((failures + 1)); }
grep -q "# allowed for now" "$tree/scripts/seam-exceptions.txt" || {
  echo "FAIL: --prune dropped a comment"; failures=$((failures + 1)); }

# The public surface: every header in include/ is reached from chunkwise.h or
# io/, and reaches only headers in include/.
public="$source/scripts/check-public-headers"
tree="$work/public"
mkdir -p "$tree/include/chunkwise/io" "$tree/include/chunkwise/core" "$tree/scripts" || exit 1
printf '#include "chunkwise/core/status.h"\n#include <vector>\n' >"$tree/include/chunkwise/chunkwise.h"
printf '#pragma once\n' >"$tree/include/chunkwise/core/status.h"
printf '#include "chunkwise/core/status.h"\n' >"$tree/include/chunkwise/io/npy_file.h"
expect 0 "3 public headers, all reached from the facade" "$python" "$public" --root "$tree"
printf '#pragma once\n' >"$tree/include/chunkwise/core/thread_pool.h"
expect 1 "include/chunkwise/core/thread_pool.h: not reached from chunkwise/chunkwise.h or chunkwise/io/; a private header belongs under src/ (src/core/thread_pool.h)" \
  "$python" "$public" --root "$tree"
rm "$tree/include/chunkwise/core/thread_pool.h"
printf '#include "core/thread_pool.h"\n' >>"$tree/include/chunkwise/core/status.h"
expect 1 "include/chunkwise/core/status.h: includes \"core/thread_pool.h\", which is not a public header" \
  "$python" "$public" --root "$tree"

# The fuzz campaign's ledger: a target is due until it has a clean run of at
# least the asked minutes; a failed or shorter run leaves it due.
tree="$work/fuzzdue"
mkdir -p "$tree/scripts" "$tree/tests/fuzz" || exit 1
cp "$source/scripts/fuzz-due" "$tree/scripts/" || exit 1
for target in a_fuzz b_fuzz c_fuzz; do : >"$tree/tests/fuzz/$target.cc"; done
due() {  # WANT ARGS...: the targets due, one line, in order.
  want=$1
  shift
  got="$(bash "$tree/scripts/fuzz-due" "$@" | tr '\n' ' ')"
  [ "$got" = "$want" ] || { echo "FAIL: fuzz-due $*: \"$got\" (want \"$want\")"; failures=$((failures + 1)); }
}
due "a_fuzz b_fuzz c_fuzz " 10
printf 'utc\tcommit\ttarget\tseconds\truns\tcov\tcorpus\tresult\n' >"$tree/tests/fuzz/campaign.tsv"
printf 'x\tc\ta_fuzz\t600\t9\t9\t9\tok\nx\tc\tb_fuzz\t60\t9\t9\t9\tok\n' >>"$tree/tests/fuzz/campaign.tsv"
printf 'x\tc\tc_fuzz\t600\t9\t9\t9\tFAILED\n' >>"$tree/tests/fuzz/campaign.tsv"
due "b_fuzz c_fuzz " 10
due "b_fuzz " 10 1
due "c_fuzz " 1

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "repository checks fail where they should"
