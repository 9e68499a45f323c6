#!/bin/sh
# Checksums by default (#44): the zarr v3 arrays chunkwise makes (zarr create,
# zarr import, import, zarr convert with --codec) end their (inner) chunk
# chain with crc32c unless --checksum none; a bit flipped in a stored chunk is
# then Corruption naming its key on `zarr read`. zarr v2 arrays, convert
# without --codec and zarr stream keep their codecs as before.
#   checksum_test.sh CHUNKWISE WORKDIR
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
# The names of the (inner) chunks' codecs in an array's zarr.json or .zarray.
codecs() {
  python3 -c "
import json, sys
j = json.load(open(sys.argv[1]))
if 'codecs' not in j:
    print(' '.join(c['id'] for c in [j['compressor']] if c)); sys.exit()
c = j['codecs']
if c[0]['name'] == 'sharding_indexed':
    c = c[0]['configuration']['codecs']
print(' '.join(x['name'] for x in c))" "$1"
}
# Flips one bit of byte $2 of file $1.
flip() {
  python3 -c "
import sys
path, at = sys.argv[1], int(sys.argv[2])
data = bytearray(open(path, 'rb').read()); data[at] ^= 1
open(path, 'wb').write(data)" "$1" "$2"
}

python3 -c "import sys; sys.stdout.buffer.write(bytes(range(256)) * 16)" >ramp.bin

# --- zarr create: crc32c last by default, none when asked, none on v2 ------------
ok "$cw" -q zarr create plain --shape 64,64 --dtype uint8 --chunk 32,32
[ "$(codecs plain/zarr.json)" = "bytes zstd crc32c" ] || fail "default codecs: $(codecs plain/zarr.json)"
ok "$cw" -q zarr create sharded --shape 64,64 --dtype uint8 --chunk 8,8 --shard 32,32
[ "$(codecs sharded/zarr.json)" = "bytes zstd crc32c" ] ||
  fail "default inner codecs: $(codecs sharded/zarr.json)"
ok "$cw" -q zarr create raw --shape 64,64 --dtype uint8 --chunk 32,32 --codec none
[ "$(codecs raw/zarr.json)" = "bytes crc32c" ] || fail "--codec none: $(codecs raw/zarr.json)"
ok "$cw" -q zarr create optout --shape 64,64 --dtype uint8 --chunk 32,32 --checksum none
[ "$(codecs optout/zarr.json)" = "bytes zstd" ] || fail "--checksum none: $(codecs optout/zarr.json)"
ok "$cw" -q zarr create v2 --shape 64,64 --dtype uint8 --chunk 32,32 --format 2
[ "$(codecs v2/.zarray)" = "zstd" ] || fail "zarr v2 default: $(codecs v2/.zarray)"
fails_with 1 "$cw" zarr create v2crc --shape 64,64 --dtype uint8 --chunk 32,32 --format 2 --checksum crc32c
contains err "crc32c"
fails_with 1 "$cw" zarr create bad --shape 64,64 --dtype uint8 --chunk 32,32 --checksum md5
contains err "--checksum"
contains err "accepted: default, none, crc32c, zstd"

# --- a flipped bit in a default array's chunk is Corruption naming the key --------
ok "$cw" -q zarr write plain --input ramp.bin --dtype uint8 --shape 64,64
ok "$cw" -q zarr read plain --output back.raw --raw
cmp -s back.raw ramp.bin || fail "the default array does not read back"
flip plain/c/1/0 3
fails_with 1 "$cw" zarr read plain --output broken.raw --raw
contains err "Corruption"
contains err "c/1/0"

# --- sharded: the inner chunk's checksum names the shard -------------------------
ok "$cw" -q zarr write sharded --input ramp.bin --dtype uint8 --shape 64,64
flip sharded/c/0/1 5
fails_with 1 "$cw" zarr read sharded --output broken.raw --raw
contains err "Corruption"
contains err "c/0/1"

# --- convert: the checksum goes with --codec; without it the source's are kept ----
ok "$cw" -q zarr create src --shape 64,64 --dtype uint8 --chunk 32,32 --checksum none
ok "$cw" -q zarr write src --input ramp.bin --dtype uint8 --shape 64,64
ok "$cw" -q zarr convert src recoded --codec gzip:6
[ "$(codecs recoded/zarr.json)" = "bytes gzip crc32c" ] || fail "convert --codec: $(codecs recoded/zarr.json)"
ok "$cw" -q zarr convert src recoded_none --codec gzip:6 --checksum none
[ "$(codecs recoded_none/zarr.json)" = "bytes gzip" ] ||
  fail "convert --checksum none: $(codecs recoded_none/zarr.json)"
ok "$cw" -q zarr convert src kept
[ "$(codecs kept/zarr.json)" = "bytes zstd" ] || fail "convert keeps codecs: $(codecs kept/zarr.json)"
fails_with 1 "$cw" zarr convert src refused --checksum crc32c
contains err "needs the destination's codecs"
contains err "see --checksum"
# A default array copied to zarr v2 leaves the crc32c out (v2 has no such codec).
ok "$cw" -q zarr convert recoded recoded_v2 --format 2
[ "$(codecs recoded_v2/.zarray)" = "gzip" ] || fail "convert to v2: $(codecs recoded_v2/.zarray)"
ok "$cw" -q zarr read recoded_v2 --output v2.raw --raw
cmp -s v2.raw ramp.bin || fail "convert to v2 does not read back"

# --- zarr import and import: crc32c by default, opt-out ------------------------
python3 -c "
import struct, sys
header = \"{'descr': '|u1', 'fortran_order': False, 'shape': (64, 64), }\".ljust(117) + '\\n'
sys.stdout.buffer.write(b'\\x93NUMPY\\x01\\x00' + struct.pack('<H', len(header)) + header.encode())
sys.stdout.buffer.write(open('ramp.bin', 'rb').read())" >ramp.npy
ok "$cw" -q zarr import ramp.npy zimported --chunk 32,32
[ "$(codecs zimported/zarr.json)" = "bytes zstd crc32c" ] || fail "zarr import: $(codecs zimported/zarr.json)"
ok "$cw" -q import ramp.npy imported --chunk 8,8 --shard 32,32
[ "$(codecs imported/zarr.json)" = "bytes zstd crc32c" ] || fail "import: $(codecs imported/zarr.json)"
ok "$cw" -q import ramp.npy imported_none --chunk 8,8 --checksum none
[ "$(codecs imported_none/zarr.json)" = "bytes zstd" ] ||
  fail "import --checksum none: $(codecs imported_none/zarr.json)"

# --- zarr stream: none unless asked (the GPU writer cannot add crc32c) -------------
ok "$cw" -q zarr stream streamed --shape 0,64 --dtype uint8 --chunk 8,8 --tiles-per-shard 2,2 --input ramp.bin
[ "$(codecs streamed/zarr.json)" = "bytes zstd" ] || fail "stream default: $(codecs streamed/zarr.json)"
ok "$cw" -q zarr stream streamed_crc --shape 0,64 --dtype uint8 --chunk 8,8 --tiles-per-shard 2,2 \
  --input ramp.bin --checksum crc32c
[ "$(codecs streamed_crc/zarr.json)" = "bytes zstd crc32c" ] ||
  fail "stream --checksum crc32c: $(codecs streamed_crc/zarr.json)"

# --- refs build of a default array: a v2 view short of each chunk's checksum -------
ok "$cw" -q refs build zimported --output zimported.json
ok "$cw" -q zarr read zimported.json --output refs.raw --raw
cmp -s refs.raw ramp.bin || fail "refs of a default array do not read back"

[ "$failures" -eq 0 ] && echo "checksum: all cases passed"
exit "$failures"
