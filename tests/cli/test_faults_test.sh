#!/bin/sh
# CHUNKWISE_TEST_RANK_FAULT (chunkwise/parallel/job.h) can fail or SIGKILL a
# job; only the test build reads it. The same import with the variable set
# succeeds with the shipped chunkwise and fails (or is killed) with
# chunkwise-test-faults, so the variable is what stops it there.
#   test_faults_test.sh CHUNKWISE CHUNKWISE_TEST_FAULTS WORKDIR
set -u
chunkwise=$1
test_faults=$2
work=$3
rm -rf "$work" && mkdir -p "$work" || exit 1
failures=0

"$chunkwise" --quiet zarr create "$work/a" --shape 8,8 --dtype uint8 --chunk 4,4 --fill 7 || exit 1
"$chunkwise" --quiet zarr read "$work/a" --output "$work/a.npy" || exit 1
for mode in fail kill; do
  CHUNKWISE_TEST_RANK_FAULT=0:0:$mode "$chunkwise" --quiet zarr import "$work/a.npy" \
    "$work/shipped-$mode" --chunk 2,8 2>"$work/err"
  status=$?
  if [ "$status" -ne 0 ] || [ ! -f "$work/shipped-$mode/zarr.json" ] ||
     [ -e "$work/shipped-$mode/.chunkwise-incomplete" ]; then
    echo "FAIL: the shipped chunkwise obeyed CHUNKWISE_TEST_RANK_FAULT=0:0:$mode (exit $status)"
    cat "$work/err"; failures=$((failures + 1))
  fi
  CHUNKWISE_TEST_RANK_FAULT=0:0:$mode "$test_faults" --quiet zarr import "$work/a.npy" \
    "$work/test-$mode" --chunk 2,8 2>"$work/err"
  status=$?
  if [ "$status" -eq 0 ] || [ -f "$work/test-$mode/zarr.json" ]; then
    echo "FAIL: chunkwise-test-faults ignored CHUNKWISE_TEST_RANK_FAULT=0:0:$mode (exit $status)"
    failures=$((failures + 1))
  elif [ "$mode" = fail ] &&
       ! grep -qF "fails here on purpose (CHUNKWISE_TEST_RANK_FAULT)" "$work/err"; then
    echo "FAIL: the test build's fault does not name itself:"; cat "$work/err"
    failures=$((failures + 1))
  fi
done
[ "$failures" -eq 0 ] && echo "test faults: the shipped chunkwise ignores them, the test build obeys"
exit "$failures"
