#!/bin/sh
# One CLI vocabulary (docs/cli.md): regions, --threads, global flags
# anywhere, --json on every info, --output -, numpy dtype spellings, zarr info
# on a group, zarr import, dvid read's default extent. Each case checks exit
# status and output.
#   vocabulary_test.sh CHUNKWISE WORKDIR
set -u
cw=$1
work=$2
rm -rf "$work" && mkdir -p "$work" || exit 1
cd "$work" || exit 1
failures=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# Runs a command that must succeed; its stdout in out, stderr in err.
ok() {
  "$@" >out 2>err
  status=$?
  if [ "$status" -ne 0 ]; then fail "exit $status: $*"; cat err; fi
}
# The same for a command that must fail with exit status $1.
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
lacks() {  # FILE TEXT
  if grep -qF -- "$2" "$1"; then fail "$1 has \"$2\""; cat "$1"; fi
}
# The JSON value at a Python expression over `j`, from stdin.
json_value() { python3 -c "import json,sys; j=json.load(sys.stdin); print($1)"; }

# --- fixtures: a 4x6 uint16 raw file, a generated 64^3 label volume ----------
python3 -c "import sys; sys.stdout.buffer.write(bytes(range(48)))" >raw.bin
ok "$cw" generate --shape 64,64,64 --neurons 3 --labels labels.npy --quiet

# --- 6. numpy names and typestrs everywhere ----------------------------------
ok "$cw" --quiet npy convert raw.bin a.npy --dtype uint16 --shape 4,6
ok "$cw" --quiet npy convert raw.bin b.npy --dtype '<u2' --shape 4,6
cmp -s a.npy b.npy || fail "npy convert: --dtype uint16 and <u2 differ"
ok "$cw" npy info a.npy --json
[ "$(json_value 'j["descr"], j["shape"]' <out)" = "<u2 [4, 6]" ] || fail "npy info a.npy: $(cat out)"
for pair in "uint16 <u2" "float32 <f4" "bool |b1"; do
  set -- $pair
  ok "$cw" -q zarr create "z_$1" --shape 4,6 --dtype "$1" --chunk 2,3
  ok "$cw" -q zarr create "t_$1" --shape 4,6 --dtype "$2" --chunk 2,3
  cmp -s "z_$1/zarr.json" "t_$1/zarr.json" || fail "zarr create --dtype $1 and $2 differ"
  contains "z_$1/zarr.json" "\"data_type\": \"$1\""
done
ok "$cw" -q zarr write z_uint16 --input raw.bin --dtype uint16 --shape 4,6
fails_with 1 "$cw" zarr create bad --shape 4 --dtype uint17 --chunk 2
contains err 'unknown dtype "uint17"'

# --- 3. global flags anywhere ---------------------------------------------------
ok "$cw" zarr read z_uint16 --output whole.npy --quiet
[ -s out ] && fail "zarr read … --quiet printed: $(cat out)"
ok "$cw" zarr read z_uint16 --output whole2.npy
contains out "wrote whole2.npy"
ok "$cw" zarr info z_uint16 -q
cmp -s whole.npy a.npy || fail "zarr read z_uint16 differs from its input"

# --- 1. regions: zarr ------------------------------------------------------------
ok "$cw" -q zarr read z_uint16 --region 1:3,2:5 --output part.npy
ok "$cw" npy info part.npy --json
[ "$(json_value 'j["shape"]' <out)" = "[2, 3]" ] || fail "zarr read --region 1:3,2:5: $(cat out)"

# --- 5. --output - ----------------------------------------------------------------
"$cw" zarr read z_uint16 --output - >stdout.npy 2>err || fail "zarr read --output -"
cmp -s stdout.npy a.npy || fail "zarr read --output - is not the .npy"
[ -e ./- ] && fail "zarr read --output - made a file named -"
contains err "wrote -"
"$cw" -q zarr read z_uint16 --output - --raw >stdout.raw || fail "zarr read --output - --raw"
cmp -s stdout.raw raw.bin || fail "zarr read --output - --raw is not the raw bytes"
"$cw" -q npy convert a.npy - --raw >convert.raw || fail "npy convert a.npy -"
cmp -s convert.raw raw.bin || fail "npy convert a.npy - --raw is not the raw bytes"

# --- 8. zarr import ------------------------------------------------------------------
ok "$cw" zarr import labels.npy imported --chunk 16,16,16 --shard 32,32,32 --codec zstd:1
contains out "uint64 [64,64,64]"
ok "$cw" -q zarr read imported --output imported.npy
cmp -s imported.npy labels.npy || fail "zarr import: the array does not read back as the .npy"
ok "$cw" zarr info imported --json
[ "$(json_value 'j["dtype"], j["shape"], j["chunks"], j["shards"]' <out)" = \
  "uint64 [64, 64, 64] [16, 16, 16] [32, 32, 32]" ] || fail "zarr info imported: $(cat out)"
fails_with 1 "$cw" zarr import labels.npy imported --chunk 16,16,16
contains err "imported"

# --- 7. zarr info on a group ------------------------------------------------------------
mkdir -p grp
printf '{"zarr_format": 3, "node_type": "group", "attributes": {}}' >grp/zarr.json
ok "$cw" -q zarr create grp/raw --shape 10,20 --dtype '<f4' --chunk 5,5
mkdir -p grp/labels
printf '{"zarr_format": 3, "node_type": "group", "attributes": {}}' >grp/labels/zarr.json
ok "$cw" -q zarr create grp/labels/s0 --shape 8,8,8 --dtype uint64 --chunk 4,4,4 --shard 8,8,8
ok "$cw" zarr info grp
contains out "zarr group, 3 members"
contains out "array [8,8,8] uint64, chunks [4,4,4] in shards [8,8,8]"
ok "$cw" zarr info grp --json
[ "$(json_value '[(m["path"], m["node_type"], m.get("shape"), m.get("dtype")) for m in j["members"]]' <out)" = \
  "[('labels', 'group', None, None), ('labels/s0', 'array', [8, 8, 8], 'uint64'), ('raw', 'array', [10, 20], 'float32')]" ] ||
  fail "zarr info grp --json: $(cat out)"

# --- 9. + 1. dvid read: default extent, --region, the old flags ---------------------------
ok "$cw" -q dvid ingest db --input labels.npy --offset 64,0,-64
ok "$cw" dvid read db --output default.npy
contains out "region [64:128,0:64,-64:0]"
cmp -s default.npy labels.npy || fail "dvid read (default extent) is not the ingested volume"
ok "$cw" -q dvid read db --region 64:96,0:64,-64:0 --output half.npy
ok "$cw" npy info half.npy --json
[ "$(json_value 'j["shape"]' <out)" = "[32, 64, 64]" ] || fail "dvid read --region: $(cat out)"
ok "$cw" -q dvid read db --offset 64,0,-64 --shape 32,64,64 --output old.npy
contains err "--offset/--shape is deprecated; use --region"
cmp -s old.npy half.npy || fail "dvid read --offset/--shape differs from --region"
ok "$cw" -q dvid read db --region 100: --output tail.npy
ok "$cw" npy info tail.npy --json
[ "$(json_value 'j["shape"]' <out)" = "[28, 64, 64]" ] || fail "dvid read --region 100:: $(cat out)"
"$cw" -q dvid read db --output - >dvid_stdout.npy || fail "dvid read --output -"
cmp -s dvid_stdout.npy labels.npy || fail "dvid read --output - is not the volume"
fails_with 1 "$cw" dvid read db --region 5:1 --output x.npy
contains err "start 5 is after stop 1"

# --- 1. regions: vectors (x,y,z, exclusive); the old inclusive --bbox ------------------------
printf 'x,y,z\n0,0,0\n1,1,1\n2,2,2\n3,3,3\n' >points.csv
ok "$cw" -q vectors write pts --type points --input points.csv --chunk-shape 2,2,2
ok "$cw" vectors read pts --region 1:3,1:3,1:3 --output sel.csv
contains out "read 2 vertices"
ok "$cw" vectors read pts --region 1:,: --output sel2.csv
contains out "read 3 vertices"
ok "$cw" vectors read pts --bbox 1,1,1,3,3,3 --output old.csv
contains out "read 3 vertices"
contains err "--bbox x0,y0,z0,x1,y1,z1 (inclusive) is deprecated; use --region"

# --- 2. --threads everywhere, --workers deprecated --------------------------------------------
ok "$cw" -q zarr convert z_uint16 conv1 --threads 1 --chunk 4,6
[ -s err ] && fail "zarr convert --threads printed on stderr: $(cat err)"
ok "$cw" -q zarr convert z_uint16 conv2 --workers 1 --chunk 4,6
contains err "--workers is deprecated; use --threads"
ok "$cw" -q dvid read db --threads 1 --output t1.npy

# --- 4. --json on every info -------------------------------------------------------------------
ok "$cw" -q bcolz create bc --input a.npy
ok "$cw" -q refs build z_uint16 --output refs.json
ok "$cw" -q zarr to-precomputed imported pc --chunk 32,32,32
for info in "zarr info z_uint16" "zarr info grp" "npy info a.npy" "dvid info db" \
  "bcolz info bc" "vectors info pts" "refs info refs.json" "precomputed info pc"; do
  # shellcheck disable=SC2086
  ok "$cw" $info --json
  python3 -m json.tool out >/dev/null 2>&1 || fail "$info --json is not one JSON object: $(cat out)"
  [ "$(json_value 'type(j).__name__' <out)" = "dict" ] || fail "$info --json is not an object"
done
"$cw" dvid info db --json | json_value 'j["scales"][0]["visible_blocks"]["1"]' >blocks
[ "$(cat blocks)" = "1" ] || fail "dvid info --json: visible blocks $(cat blocks), want 1"

[ "$failures" -eq 0 ] && echo "vocabulary: all cases passed"
exit "$failures"
