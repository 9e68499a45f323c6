#!/bin/sh
# Metadata checked before use, as a user meets it (#44): a non-finite or
# non-positive --chunk-shape is refused before anything is written, and a
# store whose root metadata was forged fails read, info and validate with
# exit 1, the code, and a message naming the file and the value at fault.
#   metadata_checks_test.sh CHUNKWISE WORKDIR
set -u
cw=$1
work=$2
rm -rf "$work" && mkdir -p "$work" || exit 1
cd "$work" || exit 1
failures=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() {
  "$@" >out 2>err
  status=$?
  if [ "$status" -ne 0 ]; then fail "exit $status: $*"; cat err; fi
}
fails_with() {
  want=$1
  shift
  "$@" >out 2>err
  status=$?
  [ "$status" -eq "$want" ] || { fail "exit $status (want $want): $*"; cat err; }
}
contains() {  # FILE TEXT
  grep -qF -- "$2" "$1" || { fail "$1 lacks \"$2\""; cat "$1"; }
}
# forge STORE FIELD JSON-TEXT: the root's zarr_vectors[FIELD] set to the text as written.
forge() {
  python3 - "$1" "$2" "$3" <<'PY'
import json, sys
path = sys.argv[1] + "/zarr.json"
root = json.load(open(path))
root["attributes"]["zarr_vectors"][sys.argv[2]] = "@FORGED@"
open(path, "w").write(json.dumps(root).replace('"@FORGED@"', sys.argv[3]))
PY
}

printf 'x,y,z\n' >points.csv
for i in 0 1 2 3 4 5 6 7 8 9; do printf '%s.5,%s.25,%s.75\n' "$i" "$((9 - i))" "$i" >>points.csv; done

# Write time: InvalidArgument naming chunk_shape[d] and the value; no store left behind.
for shape in "inf,5,5|chunk_shape[0] is inf" "5,nan,5|chunk_shape[1] is NaN" \
             "5,5,0|chunk_shape[2] is 0.0" "-5,5,5|chunk_shape[0] is -5.0" \
             "5,1e999,5|chunk_shape[1] is inf"; do
  flag=${shape%%|*}
  fails_with 1 "$cw" vectors write bad.zarr --type points --input points.csv --chunk-shape "$flag"
  contains err "InvalidArgument"
  contains err "${shape#*|}"
  [ -e bad.zarr ] && { fail "--chunk-shape $flag left bad.zarr behind"; rm -rf bad.zarr; }
done

# Layout 0.8: vectors validate checks only that layout.
ok "$cw" -q vectors write good.zarr --type points --input points.csv --chunk-shape 5,5,5 --layout 0.8
ok "$cw" -q vectors validate good.zarr

# A root chunk_shape halved: the vertices lie outside the cells it gives.
cp -r good.zarr halved.zarr && forge halved.zarr chunk_shape "[2.5, 2.5, 2.5]"
fails_with 1 "$cw" vectors read halved.zarr --output halved.csv
contains err "chunkwise: error: Corruption: "
contains err "halved.zarr"
contains err "chunk_shape [2.5, 2.5, 2.5]"
fails_with 1 "$cw" vectors validate halved.zarr
contains err "halved.zarr"
contains out "chunk_shape [2.5, 2.5, 2.5]"

# A root chunk_shape of 1e999 (infinity as a JSON file would spell it) or 0: refused at
# open, by every command.
cp -r good.zarr infinite.zarr && forge infinite.zarr chunk_shape "[5, 1e999, 5]"
cp -r good.zarr zero.zarr && forge zero.zarr chunk_shape "[5, 0, 5]"
for store in infinite.zarr zero.zarr; do
  for command in "info" "validate" "read --region 0:5,0:5,0:5 --output inf.csv"; do
    # shellcheck disable=SC2086
    fails_with 1 "$cw" vectors $command $store
    contains err "chunkwise: error: Corruption: "
    [ "$command" = validate ] && contains out "$store/zarr.json" || contains err "$store/zarr.json"
  done
done
fails_with 1 "$cw" vectors validate zero.zarr
contains out "chunk_shape[1] is 0.0, not a finite positive number"

# Bounds inverted.
cp -r good.zarr inverted.zarr && forge inverted.zarr bounds "[[9, 0, 0], [0, 9, 9]]"
fails_with 1 "$cw" vectors info inverted.zarr
contains err "inverted.zarr/zarr.json"
contains err "bounds on axis 0: min 9.0 is above max 0.0"

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "metadata checks: all passed"
