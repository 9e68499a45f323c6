#include "formats/dvid/block_key.h"

namespace chunkwise::formats::dvid {
namespace {

// DVID's second class byte after the key class.
constexpr std::uint8_t kKeyClassSuffix = 0x01;
constexpr std::uint32_t kSignFlip = 0x80000000u;

void AppendBigEndian(std::uint64_t value, int bytes, std::string& out) {
  for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<char>(value >> (8 * i)));
}

std::uint64_t LoadBigEndian(std::string_view key, std::size_t at, int bytes) {
  std::uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) value = (value << 8) | static_cast<std::uint8_t>(key[at + i]);
  return value;
}

std::string ClassPrefix(std::uint32_t instance, std::uint8_t key_class) {
  std::string key;
  key.push_back(static_cast<char>(kDataKeyPrefix));
  AppendBigEndian(instance, 4, key);
  key.push_back(static_cast<char>(key_class));
  key.push_back(static_cast<char>(kKeyClassSuffix));
  return key;
}

std::int32_t FlippedCoordinate(std::string_view key, std::size_t at) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(LoadBigEndian(key, at, 4)) ^
                                   kSignFlip);
}

Status NotAKey(std::string_view key, std::string_view what) {
  return Status::Corruption("key " + HexKey(key) + " is not a " + std::string(what));
}

Result<KeyType> DecodeType(std::string_view key, std::string_view what) {
  const auto type = static_cast<std::uint8_t>(key.back());
  if (type != static_cast<std::uint8_t>(KeyType::kData) &&
      type != static_cast<std::uint8_t>(KeyType::kTombstone)) {
    return NotAKey(key, what);
  }
  return static_cast<KeyType>(type);
}

}  // namespace

std::string BlockPositionKey(std::uint32_t instance, std::uint8_t scale, const BlockCoord& coord) {
  std::string key = ScaleKeyPrefix(instance, scale);
  for (const std::int32_t v : {coord.z, coord.y, coord.x}) {
    AppendBigEndian(static_cast<std::uint32_t>(v) ^ kSignFlip, 4, key);
  }
  return key;
}

std::string ScaleKeyPrefix(std::uint32_t instance, std::uint8_t scale) {
  std::string key = ClassPrefix(instance, kLabelBlockKeyClass);
  key.push_back(static_cast<char>(scale));
  return key;
}

std::string EncodeBlockKey(const BlockKey& key) {
  std::string out = BlockPositionKey(key.instance, key.scale, key.coord);
  AppendBigEndian(key.version, 4, out);
  AppendBigEndian(key.client, 4, out);
  out.push_back(static_cast<char>(key.type));
  return out;
}

Result<BlockKey> DecodeBlockKey(std::string_view key) {
  constexpr std::string_view kWhat = "DVID label block key";
  if (key.size() != kBlockKeySize || static_cast<std::uint8_t>(key[0]) != kDataKeyPrefix ||
      static_cast<std::uint8_t>(key[5]) != kLabelBlockKeyClass ||
      static_cast<std::uint8_t>(key[6]) != kKeyClassSuffix) {
    return NotAKey(key, kWhat);
  }
  BlockKey out;
  out.instance = static_cast<std::uint32_t>(LoadBigEndian(key, 1, 4));
  out.scale = static_cast<std::uint8_t>(key[7]);
  out.coord.z = FlippedCoordinate(key, 8);
  out.coord.y = FlippedCoordinate(key, 12);
  out.coord.x = FlippedCoordinate(key, 16);
  out.version = static_cast<std::uint32_t>(LoadBigEndian(key, 20, 4));
  out.client = static_cast<std::uint32_t>(LoadBigEndian(key, 24, 4));
  CHUNKWISE_ASSIGN_OR_RETURN(out.type, DecodeType(key, kWhat));
  return out;
}

std::string MappingKeyPrefix(std::uint32_t instance) {
  return ClassPrefix(instance, kMappingKeyClass);
}

std::string EncodeMappingKey(const MappingKey& key) {
  std::string out = MappingKeyPrefix(key.instance);
  AppendBigEndian(key.supervoxel, 8, out);
  AppendBigEndian(key.version, 4, out);
  AppendBigEndian(0, 4, out);
  out.push_back(static_cast<char>(key.type));
  return out;
}

Result<MappingKey> DecodeMappingKey(std::string_view key) {
  constexpr std::string_view kWhat = "chunkwise supervoxel mapping key";
  if (key.size() != kMappingKeySize || static_cast<std::uint8_t>(key[0]) != kDataKeyPrefix ||
      static_cast<std::uint8_t>(key[5]) != kMappingKeyClass) {
    return NotAKey(key, kWhat);
  }
  MappingKey out;
  out.instance = static_cast<std::uint32_t>(LoadBigEndian(key, 1, 4));
  out.supervoxel = LoadBigEndian(key, 7, 8);
  out.version = static_cast<std::uint32_t>(LoadBigEndian(key, 15, 4));
  CHUNKWISE_ASSIGN_OR_RETURN(out.type, DecodeType(key, kWhat));
  return out;
}

std::string PrefixSuccessor(std::string_view prefix) {
  std::string out(prefix);
  while (!out.empty() && static_cast<std::uint8_t>(out.back()) == 0xff) out.pop_back();
  if (!out.empty()) out.back() = static_cast<char>(static_cast<std::uint8_t>(out.back()) + 1);
  return out;
}

std::string HexKey(std::string_view key) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (const char c : key) {
    out.push_back(kDigits[static_cast<std::uint8_t>(c) >> 4]);
    out.push_back(kDigits[static_cast<std::uint8_t>(c) & 15]);
  }
  return out;
}

}  // namespace chunkwise::formats::dvid
