#include "formats/precomputed/draco_declared_faces.h"

#include <cstring>

namespace chunkwise::formats::precomputed {
namespace {

constexpr std::uint8_t kTriangularMesh = 1;
constexpr std::uint8_t kEdgebreaker = 1;
constexpr std::uint16_t kMetadataFlag = 0x8000;

// Draco's bitstream version as one number, major * 256 + minor.
constexpr int Version(int major, int minor) { return major * 256 + minor; }

// Reads forward through a fragment; every read fails once past its end.
class Cursor {
 public:
  explicit Cursor(ByteView bytes) : bytes_(bytes) {}

  bool Skip(std::size_t n) {
    if (n > bytes_.size() - at_) return false;
    at_ += n;
    return true;
  }
  bool Byte(std::uint8_t& out) {
    if (at_ == bytes_.size()) return false;
    out = bytes_[at_++];
    return true;
  }
  bool LittleEndian32(std::uint32_t& out) {
    if (bytes_.size() - at_ < sizeof out) return false;
    out = LoadLittleEndian<std::uint32_t>(bytes_.data() + at_);
    at_ += sizeof out;
    return true;
  }
  // Draco's unsigned varint: 7 bits a byte, low bits first, at most five
  // bytes for 32 bits, the bits above 32 dropped as Draco drops them.
  bool Varint(std::uint32_t& out) {
    std::uint64_t value = 0;
    for (int i = 0; i < 5; ++i) {
      std::uint8_t b = 0;
      if (!Byte(b)) return false;
      value |= std::uint64_t{b & 0x7fU} << (7 * i);
      if ((b & 0x80U) == 0) {
        out = static_cast<std::uint32_t>(value);
        return true;
      }
    }
    return false;
  }
  // A 32-bit count: fixed width before bitstream 2.0, a varint since.
  bool Count(int version, std::uint32_t& out) {
    return version < Version(2, 0) ? LittleEndian32(out) : Varint(out);
  }

 private:
  ByteView bytes_;
  std::size_t at_ = 0;
};

// One metadata block: entries of a name and a value, then how many named
// blocks follow it.
bool SkipMetadataBlock(Cursor& in, std::uint64_t& pending_named_blocks) {
  std::uint32_t entries = 0;
  if (!in.Varint(entries)) return false;
  for (std::uint32_t i = 0; i < entries; ++i) {
    std::uint8_t name_length = 0;
    std::uint32_t value_length = 0;
    if (!in.Byte(name_length) || !in.Skip(name_length) || !in.Varint(value_length) ||
        !in.Skip(value_length)) {
      return false;
    }
  }
  std::uint32_t blocks = 0;
  if (!in.Varint(blocks)) return false;
  pending_named_blocks += blocks;
  return true;
}

// A metadata tree: an unnamed block, then its named descendants in the
// stream's order (each a name, then a block); every block takes bytes, so
// the loop ends with the input.
bool SkipMetadataTree(Cursor& in) {
  std::uint64_t pending = 0;
  if (!SkipMetadataBlock(in, pending)) return false;
  for (; pending > 0; --pending) {
    std::uint8_t name_length = 0;
    if (!in.Byte(name_length) || !in.Skip(name_length) || !SkipMetadataBlock(in, pending)) {
      return false;
    }
  }
  return true;
}

// The geometry's metadata: one tree per attribute (after its id), then the
// geometry's own.
bool SkipGeometryMetadata(Cursor& in) {
  std::uint32_t attributes = 0;
  if (!in.Varint(attributes)) return false;
  for (std::uint32_t i = 0; i < attributes; ++i) {
    std::uint32_t id = 0;
    if (!in.Varint(id) || !SkipMetadataTree(in)) return false;
  }
  return SkipMetadataTree(in);
}

}  // namespace

std::optional<std::uint32_t> DracoEdgebreakerDeclaredFaces(ByteView bytes) {
  Cursor in(bytes);
  constexpr std::size_t kMagicBytes = 5;
  std::uint8_t major = 0, minor = 0, geometry = 0, method = 0, flags_low = 0, flags_high = 0;
  if (bytes.size() < kMagicBytes || std::memcmp(bytes.data(), "DRACO", kMagicBytes) != 0 ||
      !in.Skip(kMagicBytes) || !in.Byte(major) || !in.Byte(minor) || !in.Byte(geometry) ||
      !in.Byte(method) || !in.Byte(flags_low) || !in.Byte(flags_high)) {
    return std::nullopt;
  }
  if (geometry != kTriangularMesh || method != kEdgebreaker) return std::nullopt;
  const int version = Version(major, minor);
  const auto flags = static_cast<std::uint16_t>(flags_low | (flags_high << 8));
  if (version >= Version(1, 3) && (flags & kMetadataFlag) != 0 && !SkipGeometryMetadata(in)) {
    return std::nullopt;
  }
  std::uint8_t traversal = 0;
  std::uint32_t new_vertices = 0, encoded_vertices = 0, faces = 0;
  if (!in.Byte(traversal)) return std::nullopt;
  if (version < Version(2, 2) && !in.Count(version, new_vertices)) return std::nullopt;
  if (!in.Count(version, encoded_vertices) || !in.Count(version, faces)) return std::nullopt;
  return faces;
}

}  // namespace chunkwise::formats::precomputed
