#!/bin/sh
# chunkwise skeletonize's outputs as a user meets them (#41): precomputed-sharded
# (shard files, the info naming the sharding, a second run refused, --overwrite
# back to one file per label), vectors (a zarr-vectors skeleton store, read back
# by object), and an unknown --format naming the valid ones (exit 2).
#   skeleton_test.sh CHUNKWISE WORKDIR
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
json_of() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"; }

# 10x16x30 uint8 labels (z,y,x): two bars along x, labels 4 and 9.
python3 - <<'PY'
v = bytearray(10 * 16 * 30)
for z in range(3, 7):
    for y in range(2, 6):
        for x in range(2, 28):
            v[(z * 16 + y) * 30 + x] = 4
    for y in range(9, 14):
        for x in range(4, 26):
            v[(z * 16 + y) * 30 + x] = 9
open("labels.bin", "wb").write(bytes(v))
PY
ok "$cw" -q zarr create labels.zarr --shape 10,16,30 --dtype uint8 --chunk 5,8,10
ok "$cw" -q zarr write labels.zarr --input labels.bin --dtype uint8 --shape 10,16,30
ok "$cw" -q zarr to-precomputed labels.zarr seg --resolution 4,4,4

ok "$cw" -q skeletonize seg seg --format precomputed-sharded --const 8
[ "$(ls seg/skeletons | tr '\n' ' ')" = "0.shard info " ] || fail "sharded skeletons: $(ls seg/skeletons)"
[ "$(json_of seg/skeletons/info 'j["sharding"]["@type"], j["sharding"]["hash"], j["sharding"]["minishard_index_encoding"]')" = \
  "neuroglancer_uint64_sharded_v1 murmurhash3_x86_128 gzip" ] ||
  fail "sharded skeleton info: $(cat seg/skeletons/info)"
[ "$(json_of seg/info 'j["skeletons"]')" = "skeletons" ] || fail "the info names no skeletons: $(cat seg/info)"
fails_with 1 "$cw" skeletonize seg seg --format precomputed-sharded
contains err "InvalidArgument"
contains err "already holds skeletons"
ok "$cw" -q skeletonize seg seg --overwrite --const 8
[ "$(ls seg/skeletons | tr '\n' ' ')" = "4 9 info " ] || fail "--overwrite unsharded: $(ls seg/skeletons)"

ok "$cw" -q skeletonize seg skel.zarrvectors --format vectors --const 8 --chunk-shape 40,40,40
ok "$cw" vectors info skel.zarrvectors --json
[ "$(json_of out 'j["geometry_type"], j["chunk_shape"]')" = "skeleton [40.0, 40.0, 40.0]" ] ||
  fail "vectors skeleton info: $(cat out)"
ok "$cw" vectors read skel.zarrvectors --object 9 --output nine.swc
[ "$(grep -vc '^#' nine.swc)" -gt 10 ] || fail "label 9's skeleton: $(cat nine.swc)"
fails_with 1 "$cw" skeletonize seg skel.zarrvectors --format vectors
contains err "InvalidArgument"
contains err "skel.zarrvectors"
fails_with 1 "$cw" skeletonize seg other.zarrvectors --format vectors --chunk-shape 0,1,1
contains err "chunk shape"

fails_with 2 "$cw" skeletonize seg out --format obj
contains err "precomputed-sharded"
contains err "vectors"

[ "$failures" -eq 0 ] && echo "skeleton: all cases passed"
exit "$failures"
