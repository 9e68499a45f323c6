// CRC32C (Castagnoli), the checksum of the zarr v3 `crc32c` codec and of shard indexes.
//
// Spec: docs/formats/zarr.md, "Codec pipeline" (CRC32C): reflected polynomial
// 0x82F63B78, initial value 0xFFFFFFFF, final XOR 0xFFFFFFFF, so
// Crc32c("123456789") == 0xE3069283. On x86-64 CPUs with SSE4.2 the `crc32`
// instruction runs three interleaved streams (chosen at run time, no build flag
// needed); elsewhere a slice-by-8 table loop runs. Every function is pure and
// thread-safe.
#ifndef CHUNKWISE_CODEC_CRC32C_H_
#define CHUNKWISE_CODEC_CRC32C_H_

#include <cstdint>

#include "chunkwise/core/bytes.h"

namespace chunkwise::codec {

// The CRC32C of `data`.
std::uint32_t Crc32c(ByteView data);

// The CRC32C of A ‖ data, given crc == Crc32c(A). Crc32cExtend(0, data) == Crc32c(data).
std::uint32_t Crc32cExtend(std::uint32_t crc, ByteView data);

// Crc32cExtend computed with the portable table loop only; tests compare it with
// the hardware path.
std::uint32_t Crc32cSoftware(std::uint32_t crc, ByteView data);

// Whether Crc32c and Crc32cExtend use the CPU's crc32 instruction on this machine.
bool Crc32cHardwareAvailable();

}  // namespace chunkwise::codec

#endif  // CHUNKWISE_CODEC_CRC32C_H_
