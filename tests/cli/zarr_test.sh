#!/bin/sh
# zarr create/convert/info through the CLI, each case a defect users met
# (#38): `zarr convert SRC DST` keeps the source's shards; an empty item of
# --dimension-names is null in zarr.json; --shape "" makes a 0-d array;
# zarr info --json names the facts as Python's Array.info does; `chunkwise
# import` of a .npy and of sources it cannot read; `zarr read` of a string
# array writes a '<U' .npy and `zarr write` takes it back (#43).
#   zarr_test.sh CHUNKWISE WORKDIR
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
# The value of a Python expression over the JSON `j` read from file $1.
json_of() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"; }
# Chunk or shard objects stored under an array directory.
objects() { find "$1/c" -type f | wc -l | tr -d ' '; }

# --- convert keeps the source's sharding ----------------------------------------
# 64x64 in shards of 32x32 (4 shards) of 8x8 chunks (64 chunks).
python3 -c "import sys; sys.stdout.buffer.write(bytes(range(256)) * 16)" >ramp.bin
ok "$cw" -q zarr create src --shape 64,64 --dtype uint8 --chunk 8,8 --shard 32,32
ok "$cw" -q zarr write src --input ramp.bin --dtype uint8 --shape 64,64
ok "$cw" -q zarr convert src kept
[ "$(objects kept)" = 4 ] || fail "zarr convert with no flags stored $(objects kept) objects, want 4 shards"
[ "$(json_of kept/zarr.json 'j["codecs"][0]["name"], j["chunk_grid"]["configuration"]["chunk_shape"]')" = \
  "sharding_indexed [32, 32]" ] || fail "zarr convert with no flags: $(cat kept/zarr.json)"
ok "$cw" -q zarr convert src flat --shard none
[ "$(objects flat)" = 64 ] || fail "zarr convert --shard none stored $(objects flat) objects, want 64 chunks"
ok "$cw" -q zarr convert src reshard --shard 64,64
[ "$(objects reshard)" = 1 ] || fail "zarr convert --shard 64,64 stored $(objects reshard) objects"
fails_with 1 "$cw" zarr convert src misfit --chunk 24,24
contains err "keeping the source's shards [32,32]"
ok "$cw" -q zarr read kept --output kept.raw --raw
cmp -s kept.raw ramp.bin || fail "zarr convert: the kept copy does not read back as the source"
# --cache-bytes reads the same bytes, each of the 4 shard indexes and 64
# inner chunks once (#42).
ok "$cw" zarr read kept --output cached.raw --raw --cache-bytes 1000000
cmp -s cached.raw ramp.bin || fail "zarr read --cache-bytes: not the bytes read without it"
contains out "cache: 0 hits, 68 misses"

# --- an empty item of --dimension-names is null -----------------------------------
ok "$cw" -q zarr create named --shape 4,6 --dtype uint8 --chunk 2,3 --dimension-names "y,"
[ "$(json_of named/zarr.json 'j["dimension_names"]')" = "['y', None]" ] ||
  fail "--dimension-names y,: $(cat named/zarr.json)"
ok "$cw" -q zarr create unnamed --shape 4,6 --dtype uint8 --chunk 2,3 --dimension-names ","
[ "$(json_of unnamed/zarr.json 'j["dimension_names"]')" = "[None, None]" ] ||
  fail "--dimension-names ,: $(cat unnamed/zarr.json)"
ok "$cw" zarr info named
contains out '["y",null]'

# --- --shape "" is a 0-d array -----------------------------------------------------
ok "$cw" -q zarr create scalar --shape "" --chunk "" --dtype float64 --fill 2.5
[ "$(json_of scalar/zarr.json 'j["shape"], j["chunk_grid"]["configuration"]["chunk_shape"]')" = "[] []" ] ||
  fail "--shape \"\": $(cat scalar/zarr.json)"
ok "$cw" zarr info scalar --json
[ "$(json_of out 'j["shape"], j["nbytes"], j["fill_value"]')" = "[] 8 2.5" ] || fail "zarr info scalar: $(cat out)"
fails_with 1 "$cw" zarr create bad --shape "" --chunk 2 --dtype uint8
contains err "different rank"

# --- zarr info --json: the keys Python's Array.info has too ------------------------
ok "$cw" zarr info kept --json
[ "$(json_of out 'list(j)')" = "['path', 'node_type', 'zarr_format', 'shape', 'dtype', 'chunks', 'shards', 'fill_value', 'codecs', 'dimension_names', 'attributes', 'nbytes', 'nbytes_stored', 'nchunks', 'nchunks_initialized', 'ninner_chunks', 'ninner_chunks_initialized']" ] ||
  fail "zarr info --json keys: $(cat out)"
[ "$(json_of out 'j["nchunks"], j["nchunks_initialized"], j["ninner_chunks"], j["ninner_chunks_initialized"], j["nbytes"]')" = \
  "4 4 64 64 4096" ] || fail "zarr info --json counts: $(cat out)"

# --- import: the .npy door of `chunkwise import`, and sources it cannot read (#43) ----
python3 -c "
import struct, sys
header = \"{'descr': '<u2', 'fortran_order': False, 'shape': (3, 4), }\".ljust(117) + '\\n'
sys.stdout.buffer.write(b'\\x93NUMPY\\x01\\x00' + struct.pack('<H', len(header)) + header.encode()
                        + struct.pack('<12H', *range(100, 112)))" >v.npy
ok "$cw" import v.npy imported --chunk 1,4 --shard 2,4
contains out "imported v.npy as zarr v3 array imported: uint16 [3,4], chunks [1,4] in shards [2,4]"
ok "$cw" zarr read imported --region 2:3,3:4 --output corner.bin --raw
[ "$(python3 -c "import struct; print(struct.unpack('<H', open('corner.bin','rb').read())[0])")" = 111 ] ||
  fail "import v.npy: the last element is not 111"
echo "not a volume" >notes.txt
fails_with 1 "$cw" import notes.txt nothing --chunk 1,4
contains err "notes.txt: not a volume this can import"
[ ! -e nothing ] || fail "import notes.txt left nothing behind? $(find nothing)"
mkdir empty_planes
fails_with 1 "$cw" import empty_planes nothing --chunk 1,4
contains err "NotFound"
contains err "no .tif or .tiff files"
# A chunk shape of the wrong rank is refused, and the destination the
# import would have made is not left behind as an empty folder.
fails_with 1 "$cw" import v.npy wrong_rank --chunk 1
contains err "InvalidArgument: the chunk shape [1] has a different rank"
[ ! -e wrong_rank ] || fail "import --chunk 1 left wrong_rank behind"
fails_with 1 "$cw" zarr import v.npy wrong_rank --chunk 1
[ ! -e wrong_rank ] || fail "zarr import --chunk 1 left wrong_rank behind"

# --- zarr read of variable-length strings: a '<U<n>' .npy as numpy saves them (#43) ----
ok "$cw" -q zarr create strings --shape 4 --chunk 3 --dtype string --fill "?"
# Chunk 0 as zarr-python writes it: u32 count, then u32 length + UTF-8 per element.
python3 -c "
import struct, sys
words = ['a', 'h\u00e9', '']
sys.stdout.buffer.write(struct.pack('<I', 3) + b''.join(
    struct.pack('<I', len(w.encode())) + w.encode() for w in words))" >chunk0
python3 -c "
import json; j = json.load(open('strings/zarr.json')); j['codecs'] = [j['codecs'][0]]
json.dump(j, open('strings/zarr.json', 'w'))"
mkdir -p strings/c && cp chunk0 strings/c/0
ok "$cw" zarr read strings --output strings.npy
contains out "(.npy, <U2)"
[ "$(python3 -c "
import ast, sys
raw = open('strings.npy', 'rb').read()
n = int.from_bytes(raw[8:10], 'little')
header = ast.literal_eval(raw[10:10 + n].decode())
data = raw[10 + n:]
got = (header['descr'], header['shape'],
       [data[i:i + 8].decode('utf-32-le').rstrip(chr(0)) for i in range(0, len(data), 8)])
print('ok' if got == ('<U2', (4,), ['a', 'h\\u00e9', '', '?']) else ascii(got))
")" = ok ] || fail "zarr read strings: $(od -c strings.npy | head)"
fails_with 1 "$cw" zarr read strings --output strings.bin --raw
contains err "not raw"

# --- zarr write of a '<U<n>' .npy into a string array: zarr read's file back (#43) ----
ok "$cw" -q zarr create strings2 --shape 4 --chunk 3 --dtype string --fill "?"
ok "$cw" zarr write strings2 --input strings.npy
contains out "region [0:4]"
ok "$cw" zarr read strings2 --output back.npy
cmp -s strings.npy back.npy || fail "zarr write strings: read back $(od -c back.npy | head)"
# A big-endian '>U3' of two elements at --offset 2, trailing NULs dropped as numpy
# drops them, an interior NUL kept: [a, h\u00e9, x\0y, \U0001f600].
npy() {  # FILE DESCR SHAPE DATA-AS-PYTHON-BYTES-LITERAL
  python3 -c "
import sys
header = \"{'descr': '$2', 'fortran_order': False, 'shape': $3, }\"
header += ' ' * (63 - (10 + len(header)) % 64) + '\\n'
sys.stdout.buffer.write(b'\\x93NUMPY\\x01\\x00' + len(header).to_bytes(2, 'little') +
                        header.encode() + $4)" >"$1"
}
npy big.npy '>U3' '(2,)' "'x\\x00y'.encode('utf-32-be') + chr(0x1f600).encode('utf-32-be') + bytes(8)"
ok "$cw" zarr write strings2 --input big.npy --offset 2
ok "$cw" zarr read strings2 --output back.npy --overwrite
[ "$(python3 -c "
raw = open('back.npy', 'rb').read()
n = int.from_bytes(raw[8:10], 'little')
data = raw[10 + n:]
print(ascii([data[i:i + 12].decode('utf-32-le').rstrip(chr(0)) for i in range(0, len(data), 12)]))
")" = "['a', 'h\\xe9', 'x\\x00y', '\\U0001f600']" ] || fail "zarr write >U3: $(od -c back.npy | head)"
# A dtype that does not fit a string array is refused naming the file, and nothing changes.
npy numbers.npy '<u2' '(4,)' "bytes(8)"
fails_with 1 "$cw" zarr write strings2 --input numbers.npy
contains err "InvalidArgument: numbers.npy: its dtype <u2 does not fit the string array strings2"
contains err "'<U<n>' text"
npy bytes.npy '|S2' '(4,)' "b'abcdefgh'"
fails_with 1 "$cw" zarr write strings2 --input bytes.npy
contains err "its dtype |S2 does not fit"
# A UTF-32 surrogate is no character: refused naming the element.
npy surrogate.npy '<U1' '(2,)' "'a'.encode('utf-32-le') + (0xD800).to_bytes(4, 'little')"
fails_with 1 "$cw" zarr write strings2 --input surrogate.npy
contains err "surrogate.npy: element 1 holds 55296"
fails_with 1 "$cw" zarr write strings2 --input strings.npy --offset 1
contains err "strings2"
fails_with 1 "$cw" zarr write strings2 --input strings.npy --dtype uint8
contains err "from a .npy only"
ok "$cw" zarr read strings2 --output back.npy --overwrite
[ "$(python3 -c "
raw = open('back.npy', 'rb').read()
n = int.from_bytes(raw[8:10], 'little')
data = raw[10 + n:]
print(ascii([data[i:i + 12].decode('utf-32-le').rstrip(chr(0)) for i in range(0, len(data), 12)]))
")" = "['a', 'h\\xe9', 'x\\x00y', '\\U0001f600']" ] || fail "a refused write changed strings2"

[ "$failures" -eq 0 ] && echo "zarr: all cases passed"
exit "$failures"
