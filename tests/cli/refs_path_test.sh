#!/bin/sh
# A reference set is a store (docs/cli.md), and a path inside it names a
# folder of its keys, as a path inside a directory does: `zarr read g.json/v`
# reads the array v of the group the set references, and so does every other
# command that opens a store (zarr info, refs:// and Parquet sets too).
#   refs_path_test.sh CHUNKWISE WORKDIR
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
# The uint16 values of a .npy file, in order, as a Python list (through the
# CLI's own raw export: no numpy needed).
npy_values() {
  "$cw" -q npy convert "$1" - --raw |
    python3 -c "import struct, sys; b = sys.stdin.buffer.read(); print(list(struct.unpack('<%dH' % (len(b) // 2), b)))"
}

# A group g.zarr with the 4x6 uint16 array v (values 0..23) and a 2x2 array w.
python3 -c "import struct, sys; sys.stdout.buffer.write(struct.pack('<24H', *range(24)))" >v.bin
"$cw" -q npy convert v.bin v.npy --dtype uint16 --shape 4,6 || fail "npy convert v.bin"
mkdir -p g.zarr
printf '{"zarr_format": 3, "node_type": "group", "attributes": {}}' >g.zarr/zarr.json
ok "$cw" -q zarr import v.npy g.zarr/v --chunk 2,3
ok "$cw" -q zarr create g.zarr/w --shape 2,2 --dtype uint8 --chunk 2,2
ok "$cw" -q refs build g.zarr --output g.json
ok "$cw" -q refs build g.zarr --output g.parq --format parquet

for url in g.json/v "file://$PWD/g.json/v" "refs://$PWD/g.json/v" g.parq/v; do
  rm -f read.npy
  ok "$cw" -q zarr read "$url" --region 1:3,2:5 --output read.npy
  [ "$(npy_values read.npy)" = "[8, 9, 10, 14, 15, 16]" ] ||
    fail "zarr read $url --region 1:3,2:5: $(npy_values read.npy)"
  ok "$cw" zarr info "$url" --json
  [ "$(python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["shape"], j["dtype"])' <out)" = \
    "[4, 6] uint16" ] || fail "zarr info $url --json: $(cat out)"
done
# The set itself is still the group.
ok "$cw" zarr info g.json
contains out "zarr group, 2 members"
# Nothing at the path inside the set: NotFound naming the set and the path.
fails_with 1 "$cw" zarr read g.json/x --output x.npy
contains err "NotFound: no zarr array at g.json:x"

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "refs_path: all passed"
