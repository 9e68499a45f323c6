#!/bin/sh
# chunkwise mesh as a user meets it (#41): meshes into the segmentation with
# --json counts, a second run refused with the --overwrite hint, --labels,
# and bad input exiting 1 with the library's code and what is at fault.
#   mesh_test.sh CHUNKWISE WORKDIR
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

# 8x10x12 uint32 labels (z,y,x): a box of 3 and one voxel of 200, as raw bytes.
python3 - <<'PY'
import sys
v = bytearray(8 * 10 * 12)
for z in range(2, 5):
    for y in range(1, 6):
        for x in range(3, 9):
            v[(z * 10 + y) * 12 + x] = 3
v[(7 * 10 + 9) * 12 + 11] = 200
open("labels.bin", "wb").write(b"".join(b.to_bytes(4, "little") for b in v))
PY
ok "$cw" -q zarr create labels.zarr --shape 8,10,12 --dtype uint32 --chunk 4,5,6
ok "$cw" -q zarr write labels.zarr --input labels.bin --dtype uint32 --shape 8,10,12
ok "$cw" -q zarr to-precomputed labels.zarr seg --resolution 8,8,30

ok "$cw" mesh labels.zarr seg --json --threads 2
[ "$(json_of out 'j["segments"], j["voxels"], j["mesh"]')" = "2 960 mesh" ] || fail "mesh --json: $(cat out)"
[ "$(json_of seg/info 'j["mesh"], j["segment_properties"]')" = "mesh segment_properties" ] ||
  fail "the info does not name the meshes: $(cat seg/info)"
[ -f "seg/mesh/200:0:all" ] || fail "no fragment for label 200"

fails_with 1 "$cw" mesh labels.zarr seg
contains err "InvalidArgument"
contains err "pass --overwrite to replace it"

# Simplified by default; --max-error 0 (--max-simplification-error) keeps
# every marching-cubes triangle; a negative error is refused naming it.
ok "$cw" mesh labels.zarr seg --json --overwrite
simplified=$(json_of out 'j["triangles"]')
ok "$cw" mesh labels.zarr seg --json --overwrite --max-error 0
full=$(json_of out 'j["triangles"]')
[ "$simplified" -lt "$full" ] || fail "default simplification: $simplified triangles, unsimplified $full"
ok "$cw" mesh labels.zarr seg --json --overwrite --max-simplification-error 30 --simplification-factor 1
[ "$(json_of out 'j["triangles"]')" -lt "$full" ] || fail "--max-simplification-error 30: $(cat out)"
fails_with 1 "$cw" mesh labels.zarr seg --overwrite --max-error -5
contains err "max_simplification_error"

ok "$cw" -q mesh labels.zarr seg --overwrite --labels 200
[ -f "seg/mesh/3:0" ] && fail "--labels 200 kept label 3's manifest"
[ "$(json_of seg/segment_properties/info 'j["inline"]["ids"]')" = "['200']" ] ||
  fail "--labels 200: $(cat seg/segment_properties/info)"

fails_with 1 "$cw" mesh labels.zarr seg --overwrite --labels 3,x
contains err "InvalidArgument"
contains err "see --labels"
fails_with 1 "$cw" mesh nowhere.zarr seg
contains err "NotFound"
contains err "nowhere.zarr"
fails_with 1 "$cw" mesh labels.zarr nowhere-seg
contains err "NotFound"
contains err "nowhere-seg"
fails_with 2 "$cw" mesh labels.zarr seg --format draco

# --format multires: neuroglancer_multilod_draco, a manifest and a data file per
# label, levels of detail up to --lods on the --chunk grid.
ok "$cw" -q zarr to-precomputed labels.zarr multi --resolution 8,8,30
ok "$cw" mesh labels.zarr multi --format multires --chunk 2,2,2 --lods 2 --json
[ "$(json_of out 'j["segments"], j["voxels"], j["mesh"]')" = "2 960 mesh" ] ||
  fail "mesh --format multires --json: $(cat out)"
[ "$(json_of multi/mesh/info 'j["@type"], j["vertex_quantization_bits"], j["transform"]')" = \
  "neuroglancer_multilod_draco 16 [8.0, 0.0, 0.0, 0.0, 0.0, 8.0, 0.0, 0.0, 0.0, 0.0, 30.0, 0.0]" ] ||
  fail "multires mesh info: $(cat multi/mesh/info)"
# Cells of 2 voxels from -0.5: both labels span several, so both get the two levels asked for.
lods_of() { python3 -c "import struct,sys; d=open(sys.argv[1],'rb').read(); print(struct.unpack_from('<3f3fI', d)[:7])" "$1"; }
[ "$(lods_of multi/mesh/3.index)" = "(2.0, 2.0, 2.0, -0.5, -0.5, -0.5, 2)" ] ||
  fail "label 3's manifest header: $(lods_of multi/mesh/3.index)"
[ "$(lods_of multi/mesh/200.index)" = "(2.0, 2.0, 2.0, -0.5, -0.5, -0.5, 2)" ] ||
  fail "label 200's manifest header: $(lods_of multi/mesh/200.index)"
[ -s multi/mesh/3 ] && [ -s multi/mesh/200 ] || fail "no data files for labels 3 and 200"
# multires-sharded: the same in one shard file (2 segments: no shard bits).
ok "$cw" -q zarr to-precomputed labels.zarr sharded --resolution 8,8,30
ok "$cw" -q mesh labels.zarr sharded --format multires-sharded --chunk 2,2,2
[ "$(ls sharded/mesh | tr '\n' ' ')" = "0.shard info " ] || fail "sharded mesh folder: $(ls sharded/mesh)"
[ "$(json_of sharded/mesh/info 'j["sharding"]["@type"], j["sharding"]["shard_bits"]')" = \
  "neuroglancer_uint64_sharded_v1 0" ] || fail "sharded mesh info: $(cat sharded/mesh/info)"
fails_with 1 "$cw" mesh labels.zarr multi --overwrite --format multires --lods 0
contains err "InvalidArgument"
contains err "see --lods"
fails_with 1 "$cw" mesh labels.zarr multi --overwrite --format multires --chunk 0,4,4
contains err "the chunk shape must be positive"
contains err "see --chunk"

# --format vectors: a zarr-vectors mesh store at DEST, the legacy triangles by label
# (unsimplified here, so that label 200's one voxel keeps the 6 vertices of its
# marching-cubes octahedron); a second run is refused, an unknown format names
# the valid ones (exit 2).
ok "$cw" mesh labels.zarr mesh.zarrvectors --format vectors --chunk 4,4,4 --json \
  --max-simplification-error 0
[ "$(json_of out 'j["segments"], j["voxels"], j["mesh"]')" = "2 960 " ] ||
  fail "mesh --format vectors --json: $(cat out)"
ok "$cw" vectors info mesh.zarrvectors --json
[ "$(json_of out 'j["geometry_type"]')" = "mesh" ] || fail "vectors mesh info: $(cat out)"
ok "$cw" vectors read mesh.zarrvectors --object 200 --output v200.csv
[ "$(grep -c . v200.csv)" = "7" ] || fail "label 200's one voxel: 6 vertices: $(cat v200.csv)"
fails_with 1 "$cw" mesh labels.zarr mesh.zarrvectors --format vectors
contains err "InvalidArgument"
contains err "mesh.zarrvectors"
ok "$cw" -q mesh labels.zarr mesh.zarrvectors --format vectors --overwrite --labels 3
fails_with 2 "$cw" mesh labels.zarr seg --format stl
contains err "multires-sharded"
contains err "vectors"

[ "$failures" -eq 0 ] && echo "mesh: all cases passed"
exit "$failures"
