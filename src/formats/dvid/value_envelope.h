// DVID's value envelope: the one-byte header DVID puts before every stored
// value, naming its compression and checksum (dvid/serialize.go).
//
// Spec: docs/formats/dvid.md, "Stored values". Byte 0
// is (compression << 5) | (checksum << 3). Compression 0 none, 1 snappy
// (block format), 2 gzip, 4 lz4 (u32 LE original size, then one LZ4 block),
// 5 jpeg. Checksum 0 none, 1 CRC32 (IEEE), whose u32 LE value follows byte 0
// and covers the rest. labelmap blocks are stored gzip without checksum,
// i.e. 0x40 followed by a gzip stream. Functions are thread-safe.
#ifndef CHUNKWISE_FORMATS_DVID_VALUE_ENVELOPE_H_
#define CHUNKWISE_FORMATS_DVID_VALUE_ENVELOPE_H_

#include <cstdint>
#include <string_view>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"

namespace chunkwise::formats::dvid {

enum class ValueCompression : std::uint8_t {
  kNone = 0,
  kSnappy = 1,
  kGzip = 2,
  kLz4 = 4,
  kJpeg = 5,
};

// The envelope byte of a gzip value without checksum: what labelmap writes.
inline constexpr std::uint8_t kGzipEnvelope = 0x40;

// `payload` gzip-compressed (level 6, Go's default) behind byte 0x40.
// Internal if the compressor fails.
Result<Bytes> EncodeGzipValue(ByteView payload);

// `payload` stored uncompressed (byte 0x00), for tests of other envelopes.
Bytes EncodeUncompressedValue(ByteView payload, bool with_crc32);

// The payload of a stored value. Corruption naming `name` for an empty
// value, a CRC mismatch, or compressed bytes that do not decode; OutOfRange
// if the payload would pass `max_payload_bytes` (checked before allocating);
// Unsupported for jpeg and unknown compression or checksum codes.
Result<Bytes> DecodeValue(ByteView value, std::size_t max_payload_bytes, std::string_view name);

// `bytes` gunzipped if they start with the gzip magic (1f 8b), else as they
// are; at most `max_bytes` out. Errors as DecodeValue's gzip case.
Result<Bytes> GunzipIfGzip(Bytes bytes, std::string_view name, std::size_t max_bytes = 64u << 20);

}  // namespace chunkwise::formats::dvid

#endif  // CHUNKWISE_FORMATS_DVID_VALUE_ENVELOPE_H_
