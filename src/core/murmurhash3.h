// MurmurHash3_x86_128: the hash neuroglancer_uint64_sharded_v1 may apply to
// (Morton code >> preshift_bits) before picking a chunk's minishard and shard.
//
// Written from the algorithm's description: four 32-bit lanes mixed over
// 16-byte blocks, a tail of up to 15 bytes, then the length and fmix32
// finalization. Neuroglancer hashes the 8-byte little-endian key with seed 0
// and keeps the first 8 bytes of the digest (h1 | h2 << 32).
// Spec: docs/formats/precomputed.md, "Sharding" (8-byte key, vectors). Pure and
// thread-safe.
#ifndef CHUNKWISE_CORE_MURMURHASH3_H_
#define CHUNKWISE_CORE_MURMURHASH3_H_

#include <array>
#include <cstdint>

#include "chunkwise/core/bytes.h"

namespace chunkwise::core {

// The 128-bit digest as its four 32-bit words h1, h2, h3, h4.
std::array<std::uint32_t, 4> MurmurHash3X86_128(ByteView data, std::uint32_t seed);

// The neuroglancer form: the hash of `key` as 8 little-endian bytes with seed
// 0, reduced to the digest's first 8 bytes read as a little-endian u64.
std::uint64_t MurmurHash3X86_128Uint64(std::uint64_t key);

}  // namespace chunkwise::core

#endif  // CHUNKWISE_CORE_MURMURHASH3_H_
