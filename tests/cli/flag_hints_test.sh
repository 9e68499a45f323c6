#!/bin/sh
# The library's errors say what is wrong in its own words and name the option
# at fault (Status::field()); the CLI adds the flag that sets it
# (src/cli/flag_hints.cc), by code and field, never by the words. Each case
# checks the exit status and that stderr has both the library's words and the
# CLI's hint; expect_no_hint checks that an error gets none.
#   flag_hints_test.sh CHUNKWISE WORKDIR CHUNKWISE_TEST_FAULTS
# (the last: the CLI with the test fault hook, tests/CMakeLists.txt)
set -u
chunkwise=$1
work=$2
test_faults=$3
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

expect_no_hint() {  # WORDS COMMAND...: fails with WORDS and no hint ("; see", "; pass").
  words=$1
  shift
  "$@" >"$work/out" 2>"$work/err"
  status=$?
  if [ "$status" -ne 1 ] || ! grep -qF -- "$words" "$work/err"; then
    echo "FAIL: exit $status (want 1 and \"$words\"): $*"; cat "$work/err"; failures=$((failures + 1))
  fi
  if grep -qE -- "; (see|pass) " "$work/err"; then
    echo "FAIL: a hint where none applies: $*"; cat "$work/err"; failures=$((failures + 1))
  fi
}

"$chunkwise" --quiet zarr create "$work/a" --shape 8,8 --dtype uint8 --chunk 4,4 || exit 1
expect_error "overwrite not requested" "pass --overwrite to replace it" \
  "$chunkwise" zarr create "$work/a" --shape 8,8 --dtype uint8 --chunk 4,4
expect_error "sharding needs zarr format 3" "see --format" \
  "$chunkwise" zarr create "$work/b" --shape 8,8 --dtype uint8 --chunk 4,4 --shard 8,8 --format 2
expect_error "the shard shape [6,8] is not a multiple of the chunk shape [4,4]" "see --shard and --chunk" \
  "$chunkwise" zarr create "$work/c" --shape 8,8 --dtype uint8 --chunk 4,4 --shard 6,8
expect_error "the chunk shape [4] has a different rank from the array shape [8,8]" "see --chunk" \
  "$chunkwise" zarr create "$work/e" --shape 8,8 --dtype uint8 --chunk 4
expect_error "the fill value" "see --fill" \
  "$chunkwise" zarr create "$work/d" --shape 8,8 --dtype uint8 --chunk 4,4 --fill pear
# --attributes (#38): JSON that is not an object is the library's refusal, text
# that is not JSON the flag's own; both name --attributes.
expect_error "the attributes must be a JSON object, not array" "see --attributes" \
  "$chunkwise" zarr create "$work/f" --shape 8,8 --dtype uint8 --chunk 4,4 --attributes '[1]'
expect_error "--attributes: not valid JSON" "see --attributes" \
  "$chunkwise" zarr create "$work/f" --shape 8,8 --dtype uint8 --chunk 4,4 --attributes '{"unit"'

# An import that stopped part-way (a test fault fails its second box) leaves an
# unfinished array: a plain import onto it is refused as unfinished, and the CLI
# names --resume, which finishes it. `zarr create` has no --resume: no hint of it.
"$chunkwise" --quiet zarr read "$work/a" --output "$work/a.npy" || exit 1
CHUNKWISE_TEST_RANK_FAULT=0:1:fail "$test_faults" --quiet zarr import "$work/a.npy" "$work/u" \
  --chunk 2,8 2>/dev/null && { echo "FAIL: the faulted import succeeded"; failures=$((failures + 1)); }
expect_error "of an unfinished array ($work/u/.chunkwise-incomplete)" "pass --resume to finish it" \
  "$chunkwise" zarr import "$work/a.npy" "$work/u" --chunk 2,8
expect_error "resume not requested" "pass --overwrite to replace it" \
  "$chunkwise" zarr create "$work/u" --shape 8,8 --dtype uint8 --chunk 2,8
if grep -qF -- "--resume" "$work/err"; then
  echo "FAIL: zarr create, which has no --resume, got its hint:"; cat "$work/err"
  failures=$((failures + 1))
fi
"$chunkwise" --quiet zarr import "$work/a.npy" "$work/u" --chunk 2,8 --resume || {
  echo "FAIL: --resume did not finish the import"; failures=$((failures + 1)); }
[ -f "$work/u/zarr.json" ] && [ ! -e "$work/u/.chunkwise-incomplete" ] || {
  echo "FAIL: the resumed import is not published"; failures=$((failures + 1)); }

# One hint per phrase: the shard message names the chunk shape too, but only
# its own hint follows it.
"$chunkwise" zarr create "$work/c" --shape 8,8 --dtype uint8 --chunk 4,4 --shard 6,8 2>"$work/err"
if grep -qF -- "--shape" "$work/err"; then
  echo "FAIL: the shard message got the chunk rank's hint too:"; cat "$work/err"
  failures=$((failures + 1))
fi

# Stored metadata at fault is no option of the command: reading a sharded
# array whose inner chunks do not divide its shards names the shard shape,
# but neither `zarr read` (no --shard) nor `zarr info` is told "see --shard".
mkdir -p "$work/bad.zarr"
printf '%s' '{"zarr_format":3,"node_type":"array","shape":[8,8],"data_type":"uint8",
"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[4,4]}},
"chunk_key_encoding":{"name":"default","configuration":{"separator":"/"}},"fill_value":0,
"codecs":[{"name":"sharding_indexed","configuration":{"chunk_shape":[3,3],
"codecs":[{"name":"bytes"}],"index_codecs":[{"name":"bytes"},{"name":"crc32c"}],
"index_location":"end"}}]}' >"$work/bad.zarr/zarr.json"
expect_no_hint "does not divide the shard shape" \
  "$chunkwise" zarr read "$work/bad.zarr" --region 0:4,0:4 --output "$work/bad.npy"
expect_no_hint "does not divide the shard shape" "$chunkwise" zarr info "$work/bad.zarr"
# A bad region gets the region's error and no hint; words in a path are not a field.
expect_no_hint "stop 9 is out of bounds" \
  "$chunkwise" zarr read "$work/a" --region 0:9,0:8 --output "$work/r.npy"
mkdir -p "$work/the shard shape"
expect_no_hint "the shard shape" "$chunkwise" zarr read "$work/the shard shape/x" --output "$work/r.npy"
# An existing output named by the command's own --overwrite.
"$chunkwise" --quiet zarr read "$work/a" --output "$work/r.npy" || exit 1
expect_error "already exists (overwrite not requested)" "pass --overwrite to replace it" \
  "$chunkwise" zarr read "$work/a" --output "$work/r.npy"

[ "$failures" -eq 0 ] && echo "flag hints: all cases passed"
exit "$failures"
