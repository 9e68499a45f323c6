// DVID's key layout for labelmap blocks and chunkwise's supervoxel-mapping
// keys, both binary and ordered so that a bytewise scan is a ZYX scan.
//
// Spec: docs/formats/dvid.md, "Keys" and "Versions". A block
// key is 29 bytes, integers big-endian:
//   0x01 | instance u32 | 0xBA 0x01 | scale u8 | Z Y X u32 | version u32 | client u32 | type
// with each coordinate stored as u32(v) ^ 0x80000000 so that signed values
// sort in order. type is 0x03 for data, 0x4F for a tombstone. All versions
// of one block are adjacent, so visibility is resolved group by group.
#ifndef CHUNKWISE_FORMATS_DVID_BLOCK_KEY_H_
#define CHUNKWISE_FORMATS_DVID_BLOCK_KEY_H_

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "chunkwise/core/result.h"

namespace chunkwise::formats::dvid {

inline constexpr std::uint8_t kDataKeyPrefix = 0x01;
inline constexpr std::uint8_t kLabelBlockKeyClass = 0xBA;  // DVID's keyLabelBlock (186).
// chunkwise's own class for supervoxel → label mappings (DVID keeps those in
// mutation logs, not in the key-value store); unused by DVID's labelmap.
inline constexpr std::uint8_t kMappingKeyClass = 0xE1;
inline constexpr std::size_t kBlockKeySize = 29;
// Bytes before the version: prefix, instance, class, scale and Z, Y, X.
inline constexpr std::size_t kBlockPositionSize = 20;
inline constexpr std::size_t kMappingKeySize = 24;
inline constexpr std::size_t kMappingPositionSize = 15;

enum class KeyType : std::uint8_t {
  kData = 0x03,
  kTombstone = 0x4F,
};

// A block's position in block units (voxel / block edge, rounded down).
struct BlockCoord {
  std::int32_t x = 0;
  std::int32_t y = 0;
  std::int32_t z = 0;
  bool operator==(const BlockCoord&) const = default;
};

struct BlockKey {
  std::uint32_t instance = 1;
  std::uint8_t scale = 0;
  BlockCoord coord;
  std::uint32_t version = 1;
  std::uint32_t client = 0;
  KeyType type = KeyType::kData;
};

std::string EncodeBlockKey(const BlockKey& key);
// Corruption naming the key (hex) if it is not a 29-byte block key.
Result<BlockKey> DecodeBlockKey(std::string_view key);

// The first 20 bytes of every version of one block: a scan of
// [BlockPositionKey(x0), BlockPositionKey(x1)) covers blocks x0 <= x < x1 of
// one (scale, z, y) row.
std::string BlockPositionKey(std::uint32_t instance, std::uint8_t scale, const BlockCoord& coord);
// The first 8 bytes of every block key of one scale.
std::string ScaleKeyPrefix(std::uint32_t instance, std::uint8_t scale);

struct MappingKey {
  std::uint32_t instance = 1;
  std::uint64_t supervoxel = 0;
  std::uint32_t version = 1;
  KeyType type = KeyType::kData;
};
// 0x01 | instance u32 | 0xE1 0x01 | supervoxel u64 | version u32 | client u32 (0) | type.
std::string EncodeMappingKey(const MappingKey& key);
Result<MappingKey> DecodeMappingKey(std::string_view key);
// The first 6 bytes of every mapping key.
std::string MappingKeyPrefix(std::uint32_t instance);

// The smallest key greater than every key that starts with `prefix` (the
// exclusive end of a prefix scan); empty if none exists (all 0xFF).
std::string PrefixSuccessor(std::string_view prefix);
// `key` as lowercase hex, for messages.
std::string HexKey(std::string_view key);

}  // namespace chunkwise::formats::dvid

#endif  // CHUNKWISE_FORMATS_DVID_BLOCK_KEY_H_
