// The bytes of one bcolz chunk file (data/__N.blp): a 16-byte "blpk" header
// followed by exactly one Blosc1 chunk.
//
// Spec: docs/formats/bcolz.md, ".blp chunk files" and "Blosc1 chunk format".
// The .blp header is the magic "blpk", a u8 format version (1), three reserved
// zero bytes and an i64 little-endian chunk count (always 1; -1 means "unknown"
// and is accepted). The Blosc1 header that follows is 16 bytes: version,
// versionlz, flags, typesize, then i32 nbytes, blocksize and cbytes (cbytes
// counts the whole chunk, header included). This file only encodes and checks
// those bytes; compression and file I/O live in chunk_file.h and carray.h.
#ifndef CHUNKWISE_FORMATS_BCOLZ_BLP_FORMAT_H_
#define CHUNKWISE_FORMATS_BCOLZ_BLP_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"

namespace chunkwise::formats::bcolz {

inline constexpr std::size_t kBlpHeaderSize = 16;
inline constexpr std::size_t kBloscHeaderSize = 16;
inline constexpr std::string_view kBlpMagic = "blpk";
inline constexpr std::uint8_t kBlpFormatVersion = 1;

// Blosc1 header flags (docs/formats/bcolz.md, "Blosc1 chunk format").
inline constexpr std::uint8_t kBloscFlagShuffle = 0x01;
inline constexpr std::uint8_t kBloscFlagMemcpyed = 0x02;
inline constexpr std::uint8_t kBloscFlagBitShuffle = 0x04;

// Writes the 16-byte .blp header (version 1, nchunks 1) at `out`.
// REQUIRES: `out` has room for kBlpHeaderSize bytes.
void EncodeBlpHeader(std::uint8_t* out);

// Checks the .blp header at the start of `file`. Corruption naming
// `file_name` when the file is shorter than 16 bytes, the magic is not
// "blpk", the version is not 1 or nchunks is neither 1 nor -1.
Status CheckBlpHeader(ByteView file, std::string_view file_name);

// The fields of a Blosc1 chunk header.
struct BloscHeader {
  std::uint8_t version = 0;
  std::uint8_t versionlz = 0;
  std::uint8_t flags = 0;
  std::uint8_t typesize = 0;
  std::uint32_t nbytes = 0;
  std::uint32_t blocksize = 0;
  std::uint32_t cbytes = 0;

  bool memcpyed() const { return (flags & kBloscFlagMemcpyed) != 0; }
};

// Parses and checks the 16-byte Blosc1 header at the start of `chunk`:
// Corruption naming `file_name` if `chunk` is shorter than 16 bytes, a field
// is zero where it may not be (version, versionlz, typesize; blocksize when
// nbytes > 0), nbytes or cbytes passes the Blosc1 limit (INT_MAX - 16), a
// memcpyed chunk's cbytes is not nbytes + 16, or a compressed chunk is
// smaller than its block-offset table; Unsupported for a Blosc2 chunk
// (version > 2 or the extended-header flags 0x05).
Result<BloscHeader> ParseBloscHeader(ByteView chunk, std::string_view file_name);

// Parses a whole .blp file: header checks as above, plus Corruption when the
// Blosc chunk's cbytes is not the file size minus 16 (a truncated or padded
// file). Returns the Blosc header; the chunk is file[16 .. 16 + cbytes).
Result<BloscHeader> ParseBlpFile(ByteView file, std::string_view file_name);

}  // namespace chunkwise::formats::bcolz

#endif  // CHUNKWISE_FORMATS_BCOLZ_BLP_FORMAT_H_
