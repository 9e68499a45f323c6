#include "formats/vectors/ragged_blob.h"

#include <string>

namespace chunkwise::formats::vectors {
namespace {

Status Malformed(std::string_view key, const std::string& what) {
  return Status::Corruption("ragged blob " + std::string(key) + ": " + what);
}

}  // namespace

Bytes EncodeRaggedBlob(std::span<const ByteView> groups) {
  std::size_t data_size = 0;
  for (const ByteView group : groups) data_size += group.size();
  Bytes blob;
  blob.reserve(8 * (1 + groups.size()) + data_size);
  AppendLittleEndian<std::uint64_t>(groups.size(), blob);
  std::uint64_t offset = 0;
  for (const ByteView group : groups) {
    AppendLittleEndian<std::uint64_t>(offset, blob);
    offset += group.size();
  }
  for (const ByteView group : groups) AppendBytes(blob, group);
  return blob;
}

Result<std::vector<ByteView>> DecodeRaggedBlob(ByteView blob, std::string_view key) {
  if (blob.size() < 8) return Malformed(key, "shorter than its 8-byte group count");
  const std::uint64_t count = LoadLittleEndian<std::uint64_t>(blob.data());
  if (count > (blob.size() - 8) / 8) {
    return Malformed(key, "group count " + std::to_string(count) + " does not fit in " +
                              std::to_string(blob.size()) + " bytes");
  }
  const std::size_t header = 8 * (1 + count);
  const ByteView data = blob.subspan(header);
  // With no groups there is no group for the bytes to belong to: dropping
  // them would lose records silently.
  if (count == 0 && !data.empty()) {
    return Malformed(key, "group count 0, but " + std::to_string(data.size()) +
                              " bytes of records follow the header");
  }
  std::vector<std::uint64_t> offsets(count + 1, data.size());
  for (std::uint64_t k = 0; k < count; ++k) {
    offsets[k] = LoadLittleEndian<std::uint64_t>(blob.data() + 8 * (1 + k));
  }
  // Offsets relative to the blob start (another writer's reading of "byte offsets").
  const std::uint64_t base = (count > 0 && offsets[0] == header && header != 0) ? header : 0;
  for (std::uint64_t k = 0; k < count; ++k) offsets[k] -= base;
  if (count > 0 && offsets[0] != 0) return Malformed(key, "the first offset is not 0");
  std::vector<ByteView> groups;
  groups.reserve(count);
  for (std::uint64_t k = 0; k < count; ++k) {
    if (offsets[k] > offsets[k + 1] || offsets[k + 1] > data.size()) {
      return Malformed(key, "offset of group " + std::to_string(k) + " is out of order or range");
    }
    groups.push_back(data.subspan(offsets[k], offsets[k + 1] - offsets[k]));
  }
  return groups;
}

Bytes EncodeLinkBlob(std::span<const std::int64_t> rows) {
  Bytes group(rows.size() * 8);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    StoreLittleEndian(static_cast<std::uint64_t>(rows[i]), group.data() + 8 * i);
  }
  const ByteView view(group);
  return EncodeRaggedBlob(std::span<const ByteView>(&view, 1));
}

Result<std::vector<std::int64_t>> DecodeLinkBlob(ByteView blob, int link_width,
                                                 std::string_view key) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<ByteView> groups, DecodeRaggedBlob(blob, key));
  const std::size_t row_bytes = 8 * static_cast<std::size_t>(link_width);
  std::vector<std::int64_t> rows;
  rows.reserve(blob.size() / 8);
  for (std::size_t k = 0; k < groups.size(); ++k) {
    if (row_bytes == 0 || groups[k].size() % row_bytes != 0) {
      return Malformed(key, "group " + std::to_string(k) + " (" + std::to_string(groups[k].size()) +
                                " bytes) is not whole rows of " + std::to_string(link_width) +
                                " int64");
    }
    for (std::size_t at = 0; at < groups[k].size(); at += 8) {
      rows.push_back(
          static_cast<std::int64_t>(LoadLittleEndian<std::uint64_t>(groups[k].data() + at)));
    }
  }
  return rows;
}

}  // namespace chunkwise::formats::vectors
