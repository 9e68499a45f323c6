// libFuzzer target: the zarr shard index decoder (ShardIndex::Decode) on arbitrary bytes.
//
// n is derived from the input size (exact when the size is 16n+4, so that the checksum and
// entry checks are reached), the shard size is read from the first 8 bytes and the index
// location from its lowest bit. Decode must return a value or an error and never crash;
// when it succeeds, Encode must reproduce the input exactly.
#include <cstdlib>
#include <cstring>

#include "chunkwise/core/bytes.h"
#include "formats/zarr/shard_index.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using chunkwise::formats::zarr::IndexLocation;
  using chunkwise::formats::zarr::ShardIndex;
  const std::size_t n = size >= 4 ? (size - 4) / 16 : 0;
  const std::uint64_t shard_size = size >= 8 ? chunkwise::LoadLittleEndian<std::uint64_t>(data) : 0;
  const IndexLocation location =
      (shard_size & 1) != 0 ? IndexLocation::kStart : IndexLocation::kEnd;
  const chunkwise::ByteView bytes(data, size);
  const auto decoded = ShardIndex::Decode(bytes, n, shard_size, "fuzz", location);
  if (decoded.ok()) {
    const chunkwise::Bytes encoded = decoded->Encode();
    if (encoded.size() != size || std::memcmp(encoded.data(), data, size) != 0) std::abort();
  }
  return 0;
}
