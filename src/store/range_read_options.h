// RangeReadOptions: how the remote stores (S3, HTTP) read byte ranges.
#ifndef CHUNKWISE_STORE_RANGE_READ_OPTIONS_H_
#define CHUNKWISE_STORE_RANGE_READ_OPTIONS_H_

#include <cstdint>

namespace chunkwise::store {

struct RangeReadOptions {
  // Reads larger than this are split into pieces fetched at once. (A zarr
  // shard of tens of MiB is one request; a GiB-sized value is many at once.)
  std::uint64_t piece_size = std::uint64_t{32} << 20;
  // Ranges of one object with at most this many bytes between them are read
  // in one request, as long as that request stays within coalesce_limit.
  std::uint64_t coalesce_gap = std::uint64_t{1} << 20;
  std::uint64_t coalesce_limit = std::uint64_t{32} << 20;
  // OpenReader fetches this much of the value's end with its size (a
  // shard's index is there); 0 asks for the size alone (HEAD).
  std::uint64_t reader_tail_bytes = std::uint64_t{64} << 10;
};

}  // namespace chunkwise::store

#endif  // CHUNKWISE_STORE_RANGE_READ_OPTIONS_H_
