#include "formats/zarr/shard_index.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>

#include "chunkwise/core/check.h"
#include "codec/crc32c.h"

namespace chunkwise::formats::zarr {
namespace {

constexpr std::size_t kEntryBytes = 16;
constexpr std::size_t kChecksumBytes = 4;

std::string Prefix(std::string_view shard_key) { return "shard " + std::string(shard_key) + ": "; }

// Checks entry k against the format; OK for a valid entry, else the Corruption to report.
// Chunk data must lie in [data_start, data_end): a chunk overlapping the
// index at either end of the shard is as corrupt as one past its end.
Status CheckEntry(const ChunkLocation& entry, std::size_t k, std::uint64_t data_start,
                  std::uint64_t data_end, std::string_view shard_key) {
  if (entry.empty()) return Status::Ok();
  char numbers[160];
  std::snprintf(numbers, sizeof(numbers),
                "index entry %zu (offset %" PRIu64 ", nbytes %" PRIu64 ")", k, entry.offset,
                entry.nbytes);
  // Errata 9: the empty marker is both fields; one alone is neither empty nor a location.
  if (entry.offset == kEmptyChunk || entry.nbytes == kEmptyChunk) {
    return Status::Corruption(Prefix(shard_key) + numbers +
                              " has only one field equal to the empty marker 2^64-1");
  }
  // Written as a subtraction so that offset + nbytes cannot wrap around.
  if (entry.nbytes > data_end || entry.offset > data_end - entry.nbytes) {
    return Status::Corruption(Prefix(shard_key) + numbers +
                              " ends past the chunk data, which ends at byte " +
                              std::to_string(data_end));
  }
  if (entry.offset < data_start) {
    return Status::Corruption(Prefix(shard_key) + numbers +
                              " begins inside the index at the shard start (data begins at " +
                              std::to_string(data_start) + ")");
  }
  return Status::Ok();
}

}  // namespace

std::uint64_t DataOffsetShift(IndexLocation location, std::size_t n) {
  return location == IndexLocation::kStart ? ShardIndex::EncodedSize(n) : 0;
}

ShardIndex ShardIndex::Empty(std::size_t n) { return ShardIndex(std::vector<ChunkLocation>(n)); }

std::size_t ShardIndex::EncodedSize(std::size_t n) {
  CHUNKWISE_CHECK(n <= (std::numeric_limits<std::size_t>::max() - kChecksumBytes) / kEntryBytes);
  return kEntryBytes * n + kChecksumBytes;
}

Result<ShardIndex> ShardIndex::Decode(ByteView bytes, std::size_t n, std::uint64_t shard_size,
                                      std::string_view shard_key, IndexLocation location) {
  // Compare without computing 16·n + 4 first, which could wrap for an absurd n. Errata 10:
  // a truncated index (entries only up to the array edge) fails here.
  if (bytes.size() < kChecksumBytes || (bytes.size() - kChecksumBytes) % kEntryBytes != 0 ||
      (bytes.size() - kChecksumBytes) / kEntryBytes != n) {
    return Status::Corruption(Prefix(shard_key) + "index is " + std::to_string(bytes.size()) +
                              " bytes, expected 16 * " + std::to_string(n) + " + 4 = " +
                              (n <= (std::numeric_limits<std::size_t>::max() - 4) / 16
                                   ? std::to_string(EncodedSize(n))
                                   : std::string("(too many)")));
  }
  const ByteView entries = bytes.first(kEntryBytes * n);
  const std::uint32_t stored = LoadLittleEndian<std::uint32_t>(bytes.data() + entries.size());
  const std::uint32_t computed = codec::Crc32c(entries);
  if (stored != computed) {
    char numbers[64];
    std::snprintf(numbers, sizeof(numbers), " (stored 0x%08" PRIX32 ", computed 0x%08" PRIX32 ")",
                  stored, computed);
    return Status::Corruption(Prefix(shard_key) + "index checksum mismatch" + numbers);
  }
  const std::uint64_t data_start = DataOffsetShift(location, n);
  // With the index at the end, the data ends where the index begins; a shard
  // smaller than its index leaves no room for any chunk.
  const std::uint64_t index_bytes = bytes.size();
  const std::uint64_t data_end = location == IndexLocation::kStart
                                     ? shard_size
                                     : (shard_size >= index_bytes ? shard_size - index_bytes : 0);
  std::vector<ChunkLocation> locations(n);
  for (std::size_t k = 0; k < n; ++k) {
    const std::uint8_t* entry = entries.data() + kEntryBytes * k;
    locations[k] = {LoadLittleEndian<std::uint64_t>(entry),
                    LoadLittleEndian<std::uint64_t>(entry + 8)};
    CHUNKWISE_RETURN_IF_ERROR(CheckEntry(locations[k], k, data_start, data_end, shard_key));
  }
  return ShardIndex(std::move(locations));
}

const ChunkLocation& ShardIndex::at(std::size_t k) const {
  CHUNKWISE_CHECK(k < entries_.size());
  return entries_[k];
}

void ShardIndex::Set(std::size_t k, ChunkLocation location) {
  CHUNKWISE_CHECK(k < entries_.size());
  entries_[k] = location;
}

bool ShardIndex::all_empty() const {
  return std::all_of(entries_.begin(), entries_.end(),
                     [](const ChunkLocation& entry) { return entry.empty(); });
}

Bytes ShardIndex::Encode() const {
  Bytes out;
  out.reserve(EncodedSize(entries_.size()));
  for (const ChunkLocation& entry : entries_) {
    AppendLittleEndian(entry.offset, out);
    AppendLittleEndian(entry.nbytes, out);
  }
  AppendLittleEndian(codec::Crc32c(out), out);
  return out;
}

}  // namespace chunkwise::formats::zarr
