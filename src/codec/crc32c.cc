#include "codec/crc32c.h"

#include <array>
#include <cstddef>
#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
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

// x^(8·num_bytes) mod P: the operator "feed num_bytes zero bytes".
constexpr std::uint32_t ZeroBytesOperator(std::size_t num_bytes) {
  std::uint32_t result = 0x80000000u;      // x^0
  std::uint32_t power = 0x80000000u >> 8;  // x^8
  for (; num_bytes != 0; num_bytes >>= 1) {
    if ((num_bytes & 1) != 0) result = MultiplyModP(result, power);
    power = MultiplyModP(power, power);
  }
  return result;
}

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

bool DetectHardware() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("sse4.2");
}

#else

bool DetectHardware() { return false; }
std::uint32_t ExtendHardwareRaw(std::uint32_t crc, const std::uint8_t* p, std::size_t n) {
  return ExtendSoftwareRaw(crc, p, n);
}

#endif

}  // namespace

bool Crc32cHardwareAvailable() {
  static const bool available = DetectHardware();
  return available;
}

std::uint32_t Crc32cExtend(std::uint32_t crc, ByteView data) {
  if (Crc32cHardwareAvailable()) return ~ExtendHardwareRaw(~crc, data.data(), data.size());
  return ~ExtendSoftwareRaw(~crc, data.data(), data.size());
}

std::uint32_t Crc32c(ByteView data) { return Crc32cExtend(0, data); }

std::uint32_t Crc32cSoftware(std::uint32_t crc, ByteView data) {
  return ~ExtendSoftwareRaw(~crc, data.data(), data.size());
}

}  // namespace chunkwise::codec
