// RangeReadOptions: how the remote stores (S3, HTTP) read byte ranges.
#ifndef CHUNKWISE_STORE_RANGE_READ_OPTIONS_H_
#define CHUNKWISE_STORE_RANGE_READ_OPTIONS_H_

#include <cstdint>

#include "chunkwise/store/byte_range.h"

namespace chunkwise::store {

struct RangeReadOptions {
  // Reads larger than this are split into pieces fetched at once. (A zarr
  // shard of tens of MiB is one request; a GiB-sized value is many at once.)
  std::uint64_t piece_size = std::uint64_t{32} << 20;
  // How GetRangesInto and readers join the ranges of one call into fewer
  // requests (chunkwise/store/byte_range.h: at most 1 MiB between ranges,
  // requests up to 32 MiB, past 64 KiB apart at most half a request unneeded).
  RangeCoalescing coalescing = {};
  // OpenReader fetches this much of the value's end with its size (a
  // shard's index is there); 0 asks for the size alone (HEAD).
  std::uint64_t reader_tail_bytes = std::uint64_t{64} << 10;
};

}  // namespace chunkwise::store

#endif  // CHUNKWISE_STORE_RANGE_READ_OPTIONS_H_
