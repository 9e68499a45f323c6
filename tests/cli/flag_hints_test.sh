#!/bin/sh
# The library's errors say what is wrong in its own words; the CLI adds the
# flag that changes it (src/cli/flag_hints.cc). Each case checks the exit
# status and that stderr has both the library's words and the CLI's hint.
#   flag_hints_test.sh CHUNKWISE WORKDIR
set -u
chunkwise=$1
work=$2
rm -rf "$work" && mkdir -p "$work" || exit 1
failures=0

expect_error() {  # WORDS HINT COMMAND...
  words=$1 hint=$2
  shift 2
  "$@" >"$work/out" 2>"$work/err"
  status=$?
  if [ "$status" -ne 1 ]; then
    echo "FAIL: exit $status (want 1): $*"; failures=$((failures + 1))
  fi
  for want in "$words" "$hint"; do
    if ! grep -qF -- "$want" "$work/err"; then
      echo "FAIL: stderr lacks \"$want\": $*"; cat "$work/err"; failures=$((failures + 1))
    fi
  done
}

"$chunkwise" --quiet zarr create "$work/a" --shape 8,8 --dtype uint8 --chunk 4,4 || exit 1
expect_error "overwrite not requested" "pass --overwrite to replace it" \
  "$chunkwise" zarr create "$work/a" --shape 8,8 --dtype uint8 --chunk 4,4
expect_error "sharding needs zarr format 3" "--shard needs --format 3" \
  "$chunkwise" zarr create "$work/b" --shape 8,8 --dtype uint8 --chunk 4,4 --shard 8,8 --format 2
expect_error "the shard shape [6,8] is not a multiple of the chunk shape [4,4]" "see --shard and --chunk" \
  "$chunkwise" zarr create "$work/c" --shape 8,8 --dtype uint8 --chunk 4,4 --shard 6,8
expect_error "the chunk shape [4] has a different rank from the array shape [8,8]" "see --chunk and --shape" \
  "$chunkwise" zarr create "$work/e" --shape 8,8 --dtype uint8 --chunk 4
expect_error "the fill value" "see --fill" \
  "$chunkwise" zarr create "$work/d" --shape 8,8 --dtype uint8 --chunk 4,4 --fill pear

# One hint per phrase: the shard message names the chunk shape too, but only
# its own hint follows it.
"$chunkwise" zarr create "$work/c" --shape 8,8 --dtype uint8 --chunk 4,4 --shard 6,8 2>"$work/err"
if grep -qF -- "--shape" "$work/err"; then
  echo "FAIL: the shard message got the chunk rank's hint too:"; cat "$work/err"
  failures=$((failures + 1))
fi

[ "$failures" -eq 0 ] && echo "flag hints: all cases passed"
exit "$failures"
