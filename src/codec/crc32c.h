// CRC32C (Castagnoli), the checksum of the zarr v3 `crc32c` codec and of shard indexes.
//
// Spec: docs/formats/zarr.md, "Codec pipeline" (CRC32C): reflected polynomial
// 0x82F63B78, initial value 0xFFFFFFFF, final XOR 0xFFFFFFFF, so
// Crc32c("123456789") == 0xE3069283. The path is chosen at run time, no build
// flag needed: on x86-64 CPUs with VPCLMULQDQ and AVX-512, inputs of 384 bytes
// or more are folded with carry-less multiplication in four 512-bit registers;
// other inputs, and all on CPUs with SSE4.2 only, run three interleaved streams
// of the `crc32` instruction; elsewhere a slice-by-8 table loop runs. A 128-bit
// PCLMULQDQ folding exists but is not chosen (see crc32c.cc). Every function is
// pure and thread-safe.
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

// The ways of computing the checksum, slowest first. The folding paths finish
// with the crc32 instruction, so each path needs the CPU features of the ones
// before it (the table loop needs none).
enum class Crc32cPath {
  kTable,             // slice-by-8 tables, portable
  kCrc32Instruction,  // SSE4.2 crc32, three interleaved streams
  kFold128,           // PCLMULQDQ folding of four 128-bit lanes
  kFold512,           // VPCLMULQDQ + AVX-512 folding of four 512-bit lanes
};

// Whether `path` runs on this CPU (and, for kFold512, whether the OS saves the
// AVX-512 registers).
bool Crc32cPathAvailable(Crc32cPath path);

// Crc32cExtend computed by `path` whatever the input's length, so tests and
// benchmarks can reach each path; `path` must be available.
std::uint32_t Crc32cExtendWith(Crc32cPath path, std::uint32_t crc, ByteView data);

}  // namespace chunkwise::codec

#endif  // CHUNKWISE_CODEC_CRC32C_H_
