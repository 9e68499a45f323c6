#include "formats/vectors/cross_chunk_record.h"

#include <algorithm>
#include <numeric>

#include "formats/vectors/lehmer_permutation.h"
#include "formats/vectors/ragged_blob.h"

namespace chunkwise::formats::vectors {

CanonicalRecord Canonicalize(std::span<const Endpoint> input) {
  const int length = static_cast<int>(input.size());
  std::vector<int> sorted_idx(length);
  std::iota(sorted_idx.begin(), sorted_idx.end(), 0);
  // Stable, so that two identical endpoints keep input order and perm_idx stays small.
  std::stable_sort(sorted_idx.begin(), sorted_idx.end(),
                   [&](int a, int b) { return input[a] < input[b]; });
  CanonicalRecord canonical;
  canonical.chunks.reserve(length);
  canonical.record.vi.reserve(length);
  for (const int index : sorted_idx) {
    canonical.chunks.push_back(input[index].chunk);
    canonical.record.vi.push_back(input[index].vi);
  }
  canonical.record.perm_idx = EncodeLehmer(sorted_idx);
  return canonical;
}

Result<std::vector<Endpoint>> RestoreInputOrder(std::span<const ChunkCoord> chunks,
                                                const CellRecord& record) {
  if (record.vi.size() != chunks.size()) {
    return Status::InvalidArgument("a record of " + std::to_string(record.vi.size()) +
                                   " endpoints in a cell of " + std::to_string(chunks.size()) +
                                   " chunks");
  }
  const int length = static_cast<int>(chunks.size());
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<int> sorted_idx, DecodeLehmer(record.perm_idx, length));
  std::vector<Endpoint> input(length);
  for (int slot = 0; slot < length; ++slot) {
    input[sorted_idx[slot]] = Endpoint{chunks[slot], record.vi[slot]};
  }
  return input;
}

Bytes EncodeCellBlob(std::span<const CellRecord> records) {
  std::vector<Bytes> bodies;
  bodies.reserve(records.size());
  for (const CellRecord& record : records) {
    Bytes body;
    body.reserve(8 * (1 + record.vi.size()));
    AppendLittleEndian(static_cast<std::uint64_t>(record.perm_idx), body);
    for (const std::int64_t vi : record.vi)
      AppendLittleEndian(static_cast<std::uint64_t>(vi), body);
    bodies.push_back(std::move(body));
  }
  std::vector<ByteView> groups(bodies.begin(), bodies.end());
  return EncodeRaggedBlob(groups);
}

Result<std::vector<CellRecord>> DecodeCellBlob(ByteView blob, int link_width,
                                               std::string_view key) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<ByteView> groups, DecodeRaggedBlob(blob, key));
  const std::size_t record_bytes = 8 * (1 + static_cast<std::size_t>(link_width));
  std::vector<CellRecord> records;
  records.reserve(groups.size());
  for (std::size_t k = 0; k < groups.size(); ++k) {
    if (link_width < 1 || groups[k].size() != record_bytes) {
      return Status::Corruption("cross-chunk cell " + std::string(key) + ": record " +
                                std::to_string(k) + " has " + std::to_string(groups[k].size()) +
                                " bytes, not " + std::to_string(record_bytes));
    }
    CellRecord record;
    record.perm_idx = static_cast<std::int64_t>(LoadLittleEndian<std::uint64_t>(groups[k].data()));
    for (int i = 0; i < link_width; ++i) {
      record.vi.push_back(static_cast<std::int64_t>(
          LoadLittleEndian<std::uint64_t>(groups[k].data() + 8 * (1 + i))));
    }
    records.push_back(std::move(record));
  }
  return records;
}

}  // namespace chunkwise::formats::vectors
