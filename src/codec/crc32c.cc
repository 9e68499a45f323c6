#include "codec/crc32c.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "chunkwise/core/check.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace chunkwise::codec {
namespace {

// Arithmetic below is on the raw CRC register, before the initial and after the
// final XOR. In the reflected form bit 31 holds the coefficient of x^0 and bit 0
// that of x^31; feeding one zero byte multiplies the register by x^8 mod P.
constexpr std::uint32_t kPolynomial = 0x82F63B78;

// a·b mod P in the reflected representation.
constexpr std::uint32_t MultiplyModP(std::uint32_t a, std::uint32_t b) {
  std::uint32_t product = 0;
  for (int i = 0; i < 32; ++i) {
    if ((a & (0x80000000u >> i)) != 0) product ^= b;  // a has an x^i term.
    b = (b >> 1) ^ ((b & 1) != 0 ? kPolynomial : 0);  // b ← b·x.
  }
  return product;
}

// x^exponent mod P.
constexpr std::uint32_t XPowerModP(std::size_t exponent) {
  std::uint32_t result = 0x80000000u;      // x^0
  std::uint32_t power = 0x80000000u >> 1;  // x^1
  for (; exponent != 0; exponent >>= 1) {
    if ((exponent & 1) != 0) result = MultiplyModP(result, power);
    power = MultiplyModP(power, power);
  }
  return result;
}

// x^(8·num_bytes) mod P: the operator "feed num_bytes zero bytes".
constexpr std::uint32_t ZeroBytesOperator(std::size_t num_bytes) {
  return XPowerModP(8 * num_bytes);
}

static_assert(ZeroBytesOperator(0) == 0x80000000u && ZeroBytesOperator(1) == 0x00800000u);

using ByteTable = std::array<std::uint32_t, 256>;

// kSliceTables[k][b]: the register after feeding byte b then k zero bytes, from 0.
constexpr std::array<ByteTable, 8> MakeSliceTables() {
  std::array<ByteTable, 8> tables{};
  for (std::uint32_t b = 0; b < 256; ++b) {
    std::uint32_t crc = b;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ ((crc & 1) != 0 ? kPolynomial : 0);
    tables[0][b] = crc;
  }
  for (int k = 1; k < 8; ++k) {
    for (int b = 0; b < 256; ++b) {
      const std::uint32_t previous = tables[k - 1][b];
      tables[k][b] = (previous >> 8) ^ tables[0][previous & 0xff];
    }
  }
  return tables;
}
constexpr std::array<ByteTable, 8> kSliceTables = MakeSliceTables();

// Multiplication by a fixed x^(8n), one table per register byte: the operator is
// linear, so the four partial products XOR together.
struct ShiftTables {
  std::array<ByteTable, 4> by_byte;
};

constexpr ShiftTables MakeShiftTables(std::size_t num_bytes) {
  const std::uint32_t op = ZeroBytesOperator(num_bytes);
  ShiftTables tables{};
  for (int k = 0; k < 4; ++k) {
    for (std::uint32_t b = 0; b < 256; ++b) tables.by_byte[k][b] = MultiplyModP(b << (8 * k), op);
  }
  return tables;
}

inline std::uint32_t Shift(const ShiftTables& tables, std::uint32_t crc) {
  return tables.by_byte[0][crc & 0xff] ^ tables.by_byte[1][(crc >> 8) & 0xff] ^
         tables.by_byte[2][(crc >> 16) & 0xff] ^ tables.by_byte[3][crc >> 24];
}

inline std::uint64_t Load64(const std::uint8_t* p) { return LoadLittleEndian<std::uint64_t>(p); }

std::uint32_t ExtendSoftwareRaw(std::uint32_t crc, const std::uint8_t* p, std::size_t n) {
  const auto& t = kSliceTables;
  for (; n >= 8; n -= 8, p += 8) {
    const std::uint64_t w = Load64(p) ^ crc;
    crc = t[7][w & 0xff] ^ t[6][(w >> 8) & 0xff] ^ t[5][(w >> 16) & 0xff] ^ t[4][(w >> 24) & 0xff] ^
          t[3][(w >> 32) & 0xff] ^ t[2][(w >> 40) & 0xff] ^ t[1][(w >> 48) & 0xff] ^ t[0][w >> 56];
  }
  for (; n > 0; --n, ++p) crc = (crc >> 8) ^ t[0][(crc ^ *p) & 0xff];
  return crc;
}

#if defined(__x86_64__)

// One crc32 instruction has a latency of three cycles but a throughput of one
// per cycle, so three independent streams over adjacent blocks keep the unit
// busy; the block results are then joined with the zero-bytes operator:
// raw(A‖B) = raw(A)·x^(8|B|) ⊕ raw_from_zero(B).
constexpr std::size_t kLongBlock = 4096;
constexpr std::size_t kShortBlock = 256;
constexpr ShiftTables kLongShift = MakeShiftTables(kLongBlock);
constexpr ShiftTables kShortShift = MakeShiftTables(kShortBlock);

template <std::size_t kBlock>
__attribute__((target("sse4.2"), always_inline)) inline void ThreeStreams(const ShiftTables& shift,
                                                                          std::uint32_t& crc,
                                                                          const std::uint8_t*& p,
                                                                          std::size_t& n) {
  for (; n >= 3 * kBlock; n -= 3 * kBlock, p += 3 * kBlock) {
    std::uint64_t c0 = crc, c1 = 0, c2 = 0;
    for (std::size_t i = 0; i < kBlock; i += 8) {
      c0 = _mm_crc32_u64(c0, Load64(p + i));
      c1 = _mm_crc32_u64(c1, Load64(p + kBlock + i));
      c2 = _mm_crc32_u64(c2, Load64(p + 2 * kBlock + i));
    }
    crc = Shift(shift,
                Shift(shift, static_cast<std::uint32_t>(c0)) ^ static_cast<std::uint32_t>(c1)) ^
          static_cast<std::uint32_t>(c2);
  }
}

__attribute__((target("sse4.2"))) std::uint32_t ExtendHardwareRaw(std::uint32_t crc,
                                                                  const std::uint8_t* p,
                                                                  std::size_t n) {
  // Aligned 8-byte loads never straddle a cache line.
  for (; n > 0 && (reinterpret_cast<std::uintptr_t>(p) & 7) != 0; --n, ++p) {
    crc = _mm_crc32_u8(crc, *p);
  }
  ThreeStreams<kLongBlock>(kLongShift, crc, p, n);
  ThreeStreams<kShortBlock>(kShortShift, crc, p, n);
  std::uint64_t wide = crc;
  for (; n >= 8; n -= 8, p += 8) wide = _mm_crc32_u64(wide, Load64(p));
  crc = static_cast<std::uint32_t>(wide);
  for (; n > 0; --n, ++p) crc = _mm_crc32_u8(crc, *p);
  return crc;
}

// Folding with carry-less multiplication.
//
// Read 16 input bytes into a 128-bit register the way the crc32 instruction
// reads them: bit j holds the coefficient of x^(127-j), so the low 64 bits hold
// the upper half H and the high 64 bits the lower half L of R = H·x^64 + L.
// Only the input's residue mod P matters, so a register whose bytes lie D bits
// before a later block of the input can be carried onto that block:
//   R·x^D ≡ H·(x^(D+64) mod P) ⊕ L·(x^D mod P),
// two carry-less products of 64 by 32 bits, which fit in 128 bits, XORed into
// the block. Independent registers over adjacent blocks hide the multiplier's
// latency. pclmulqdq multiplies 64-bit halves whose bit j holds x^(63-j): a
// 32-bit register value c in the low half stands for x^32·c, and bit k of the
// product holds x^(126-k), which read as a register (bit k ↔ x^(127-k)) is the
// product times x. Hence the constant for H is x^(D+64-33) mod P, for L
// x^(D-33) mod P. When fewer than 16 bytes remain, the register is itself 16
// bytes of input that, fed from a zero CRC, leave the residue of everything
// read so far; the crc32 instruction reads it and the tail.
struct FoldConstants {
  std::uint64_t for_high_half;  // multiplies the register's low 64 bits
  std::uint64_t for_low_half;   // multiplies its high 64 bits
};

constexpr FoldConstants FoldBy(std::size_t bits) {
  return {XPowerModP(bits + 31), XPowerModP(bits - 33)};
}

constexpr FoldConstants kFoldBy128 = FoldBy(128);
constexpr FoldConstants kFoldBy256 = FoldBy(256);
constexpr FoldConstants kFoldBy384 = FoldBy(384);
constexpr FoldConstants kFoldBy512 = FoldBy(512);
constexpr FoldConstants kFoldBy2048 = FoldBy(2048);

#define CHUNKWISE_FOLD128_TARGET target("pclmul,sse4.2")
#define CHUNKWISE_FOLD512_TARGET target("avx512f,vpclmulqdq,pclmul,sse4.2")

__attribute__((CHUNKWISE_FOLD128_TARGET, always_inline)) inline __m128i Constants128(
    FoldConstants k) {
  return _mm_set_epi64x(static_cast<long long>(k.for_low_half),
                        static_cast<long long>(k.for_high_half));
}

__attribute__((CHUNKWISE_FOLD128_TARGET, always_inline)) inline __m128i Load128(
    const std::uint8_t* p) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}

// acc carried forward by the distance `k` was made for, onto `next`.
__attribute__((CHUNKWISE_FOLD128_TARGET, always_inline)) inline __m128i Fold128(__m128i acc,
                                                                                __m128i k,
                                                                                __m128i next) {
  return _mm_xor_si128(
      _mm_xor_si128(_mm_clmulepi64_si128(acc, k, 0x00), _mm_clmulepi64_si128(acc, k, 0x11)), next);
}

// Carries `acc` over the remaining whole 16-byte blocks, then hands the
// register and the last n < 16 bytes to the crc32 instruction.
__attribute__((CHUNKWISE_FOLD128_TARGET, always_inline)) inline std::uint32_t FinishFolding(
    __m128i acc, const std::uint8_t* p, std::size_t n) {
  const __m128i by128 = Constants128(kFoldBy128);
  for (; n >= 16; n -= 16, p += 16) acc = Fold128(acc, by128, Load128(p));
  std::uint64_t crc = _mm_crc32_u64(0, static_cast<std::uint64_t>(_mm_cvtsi128_si64(acc)));
  crc = _mm_crc32_u64(crc, static_cast<std::uint64_t>(_mm_extract_epi64(acc, 1)));
  return ExtendHardwareRaw(static_cast<std::uint32_t>(crc), p, n);
}

// Four 128-bit registers over each 64 bytes.
__attribute__((CHUNKWISE_FOLD128_TARGET)) std::uint32_t ExtendFold128Raw(std::uint32_t crc,
                                                                         const std::uint8_t* p,
                                                                         std::size_t n) {
  if (n < 64) return ExtendHardwareRaw(crc, p, n);
  // The register so far stands for 32 bits just before the input's first, so
  // it adds onto the input's first four bytes.
  __m128i x0 = _mm_xor_si128(Load128(p), _mm_cvtsi32_si128(static_cast<int>(crc)));
  __m128i x1 = Load128(p + 16), x2 = Load128(p + 32), x3 = Load128(p + 48);
  p += 64;
  n -= 64;
  const __m128i by512 = Constants128(kFoldBy512);
  for (; n >= 64; n -= 64, p += 64) {
    x0 = Fold128(x0, by512, Load128(p));
    x1 = Fold128(x1, by512, Load128(p + 16));
    x2 = Fold128(x2, by512, Load128(p + 32));
    x3 = Fold128(x3, by512, Load128(p + 48));
  }
  const __m128i by128 = Constants128(kFoldBy128);
  return FinishFolding(Fold128(Fold128(Fold128(x0, by128, x1), by128, x2), by128, x3), p, n);
}

__attribute__((CHUNKWISE_FOLD512_TARGET, always_inline)) inline __m512i Fold512(__m512i acc,
                                                                                __m512i k,
                                                                                __m512i next) {
  return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(acc, k, 0x00),
                                   _mm512_clmulepi64_epi128(acc, k, 0x11), next, 0x96);  // a^b^c
}

// The constants `k` in every 128-bit lane.
__attribute__((CHUNKWISE_FOLD512_TARGET, always_inline)) inline __m512i Constants512(
    FoldConstants k) {
  const auto high = static_cast<long long>(k.for_high_half);
  const auto low = static_cast<long long>(k.for_low_half);
  return _mm512_set_epi64(low, high, low, high, low, high, low, high);
}

__attribute__((CHUNKWISE_FOLD512_TARGET, always_inline)) inline __m512i Load512Aligned(
    const std::uint8_t* p) {
  return _mm512_load_si512(p);
}

// Four 512-bit registers (sixteen 128-bit lanes) over each 256 bytes.
__attribute__((CHUNKWISE_FOLD512_TARGET)) std::uint32_t ExtendFold512Raw(std::uint32_t crc,
                                                                         const std::uint8_t* p,
                                                                         std::size_t n) {
  // From a 64-byte boundary no load straddles a cache line.
  const std::size_t head = (0 - reinterpret_cast<std::uintptr_t>(p)) & 63;
  if (n < head + 256) return ExtendHardwareRaw(crc, p, n);
  crc = ExtendHardwareRaw(crc, p, head);
  p += head;
  n -= head;
  __m512i z0 = _mm512_xor_si512(Load512Aligned(p),
                                _mm512_zextsi128_si512(_mm_cvtsi32_si128(static_cast<int>(crc))));
  __m512i z1 = Load512Aligned(p + 64), z2 = Load512Aligned(p + 128), z3 = Load512Aligned(p + 192);
  p += 256;
  n -= 256;
  const __m512i by2048 = Constants512(kFoldBy2048);
  for (; n >= 256; n -= 256, p += 256) {
    z0 = Fold512(z0, by2048, Load512Aligned(p));
    z1 = Fold512(z1, by2048, Load512Aligned(p + 64));
    z2 = Fold512(z2, by2048, Load512Aligned(p + 128));
    z3 = Fold512(z3, by2048, Load512Aligned(p + 192));
  }
  const __m512i by512 = Constants512(kFoldBy512);
  __m512i z = Fold512(Fold512(Fold512(z0, by512, z1), by512, z2), by512, z3);
  for (; n >= 64; n -= 64, p += 64) z = Fold512(z, by512, Load512Aligned(p));
  // Lanes 0, 1 and 2 lie 48, 32 and 16 bytes before lane 3: carry each onto it
  // (lane 3's constants are zero, so it passes through the masked move).
  const __m512i onto_last = _mm512_set_epi64(0, 0, static_cast<long long>(kFoldBy128.for_low_half),
                                             static_cast<long long>(kFoldBy128.for_high_half),
                                             static_cast<long long>(kFoldBy256.for_low_half),
                                             static_cast<long long>(kFoldBy256.for_high_half),
                                             static_cast<long long>(kFoldBy384.for_low_half),
                                             static_cast<long long>(kFoldBy384.for_high_half));
  const __m512i carried = _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(z, onto_last, 0x00),
                                                    _mm512_clmulepi64_epi128(z, onto_last, 0x11),
                                                    _mm512_maskz_mov_epi64(0xC0, z), 0x96);
  // XOR of the four lanes: the halves swapped (lanes 2 3 0 1), then neighbours
  // (1 0 3 2). Masked forms because GCC 12's plain ones warn of their undefined
  // pass-through operand.
  const __m512i pairs =
      _mm512_xor_si512(carried, _mm512_mask_shuffle_i64x2(carried, 0xFF, carried, carried, 0x4E));
  const __m512i all =
      _mm512_xor_si512(pairs, _mm512_mask_shuffle_i64x2(pairs, 0xFF, pairs, pairs, 0xB1));
  return FinishFolding(_mm512_mask_extracti32x4_epi32(_mm_setzero_si128(), 0xF, all, 0), p, n);
}

#undef CHUNKWISE_FOLD128_TARGET
#undef CHUNKWISE_FOLD512_TARGET

// Whether the OS saves and restores the AVX-512 registers: XCR0 must enable the
// SSE and AVX state (bits 1, 2) and the opmask and upper zmm state (bits 5-7).
bool OsSavesAvx512State() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0 || (ecx & bit_OSXSAVE) == 0) return false;
  unsigned xcr0_low = 0, xcr0_high = 0;
  __asm__("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
  constexpr unsigned kAvx512State = 0xE6;
  return (xcr0_low & kAvx512State) == kAvx512State;
}

// The fastest path this CPU runs.
Crc32cPath DetectFastestPath() {
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("sse4.2")) return Crc32cPath::kTable;
  if (!__builtin_cpu_supports("pclmul")) return Crc32cPath::kCrc32Instruction;
  if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("vpclmulqdq") ||
      !OsSavesAvx512State()) {
    return Crc32cPath::kFold128;
  }
  return Crc32cPath::kFold512;
}

#else

Crc32cPath DetectFastestPath() { return Crc32cPath::kTable; }
std::uint32_t ExtendHardwareRaw(std::uint32_t crc, const std::uint8_t* p, std::size_t n) {
  return ExtendSoftwareRaw(crc, p, n);
}
std::uint32_t ExtendFold128Raw(std::uint32_t crc, const std::uint8_t* p, std::size_t n) {
  return ExtendSoftwareRaw(crc, p, n);
}
std::uint32_t ExtendFold512Raw(std::uint32_t crc, const std::uint8_t* p, std::size_t n) {
  return ExtendSoftwareRaw(crc, p, n);
}

#endif

Crc32cPath FastestPath() {
  static const Crc32cPath fastest = DetectFastestPath();
  return fastest;
}

std::uint32_t ExtendRaw(Crc32cPath path, std::uint32_t crc, const std::uint8_t* p, std::size_t n) {
  switch (path) {
    case Crc32cPath::kTable:
      return ExtendSoftwareRaw(crc, p, n);
    case Crc32cPath::kCrc32Instruction:
      return ExtendHardwareRaw(crc, p, n);
    case Crc32cPath::kFold128:
      return ExtendFold128Raw(crc, p, n);
    case Crc32cPath::kFold512:
      return ExtendFold512Raw(crc, p, n);
  }
  return ExtendSoftwareRaw(crc, p, n);
}

// The path Crc32cExtend takes for n bytes. Below kMinFold512Bytes the 512-bit
// folding's set-up and final reduction cost more than the crc32 streams save.
// The 128-bit folding is not chosen: on the one CPU with both measured (an AMD
// EPYC with AVX-512) it ran at 8-14 GB/s (SSE or VEX encoding), against 25
// GB/s for three crc32 streams and 57 GB/s for the 512-bit folding on 64 KiB
// inputs; on CPUs with a
// one-per-cycle multiplier it can at best match the crc32 streams, which also
// retire 8 bytes per cycle.
constexpr std::size_t kMinFold512Bytes = 384;

Crc32cPath PathFor(std::size_t n) {
  const Crc32cPath fastest = FastestPath();
  if (fastest == Crc32cPath::kFold512 && n >= kMinFold512Bytes) return Crc32cPath::kFold512;
  return std::min(fastest, Crc32cPath::kCrc32Instruction);
}

}  // namespace

bool Crc32cHardwareAvailable() { return FastestPath() >= Crc32cPath::kCrc32Instruction; }

bool Crc32cPathAvailable(Crc32cPath path) { return path <= FastestPath(); }

std::uint32_t Crc32cExtend(std::uint32_t crc, ByteView data) {
  return ~ExtendRaw(PathFor(data.size()), ~crc, data.data(), data.size());
}

std::uint32_t Crc32cExtendWith(Crc32cPath path, std::uint32_t crc, ByteView data) {
  CHUNKWISE_CHECK(Crc32cPathAvailable(path));
  return ~ExtendRaw(path, ~crc, data.data(), data.size());
}

std::uint32_t Crc32c(ByteView data) { return Crc32cExtend(0, data); }

std::uint32_t Crc32cSoftware(std::uint32_t crc, ByteView data) {
  return ~ExtendSoftwareRaw(~crc, data.data(), data.size());
}

}  // namespace chunkwise::codec
