#include "core/base64.h"

#include <array>
#include <cstdint>

namespace chunkwise::core {
namespace {

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr std::uint8_t kInvalid = 0xFF;

constexpr std::array<std::uint8_t, 256> MakeDecodeTable() {
  std::array<std::uint8_t, 256> table{};
  for (auto& entry : table) entry = kInvalid;
  for (std::size_t i = 0; i < kAlphabet.size(); ++i) {
    table[static_cast<std::uint8_t>(kAlphabet[i])] = static_cast<std::uint8_t>(i);
  }
  return table;
}
constexpr std::array<std::uint8_t, 256> kDecodeTable = MakeDecodeTable();

}  // namespace

void AppendBase64(ByteView data, std::string& out) {
  const std::size_t at = out.size();
  out.resize(at + (data.size() + 2) / 3 * 4);
  char* write = out.data() + at;
  std::size_t i = 0;
  for (; i + 3 <= data.size(); i += 3) {
    const std::uint32_t group =
        (std::uint32_t{data[i]} << 16) | (std::uint32_t{data[i + 1]} << 8) | data[i + 2];
    *write++ = kAlphabet[(group >> 18) & 63];
    *write++ = kAlphabet[(group >> 12) & 63];
    *write++ = kAlphabet[(group >> 6) & 63];
    *write++ = kAlphabet[group & 63];
  }
  const std::size_t rest = data.size() - i;
  if (rest == 0) return;
  std::uint32_t group = std::uint32_t{data[i]} << 16;
  if (rest == 2) group |= std::uint32_t{data[i + 1]} << 8;
  *write++ = kAlphabet[(group >> 18) & 63];
  *write++ = kAlphabet[(group >> 12) & 63];
  *write++ = rest == 2 ? kAlphabet[(group >> 6) & 63] : '=';
  *write++ = '=';
}

std::string EncodeBase64(ByteView data) {
  std::string out;
  AppendBase64(data, out);
  return out;
}

Result<Bytes> DecodeBase64(std::string_view text) {
  if (text.size() % 4 != 0) {
    return Status::InvalidArgument("base64 text of " + std::to_string(text.size()) +
                                   " characters is not a multiple of 4 long");
  }
  std::size_t padding = 0;
  if (!text.empty() && text.back() == '=') padding = text[text.size() - 2] == '=' ? 2 : 1;
  Bytes out(text.size() / 4 * 3 - padding);
  std::size_t written = 0;
  for (std::size_t i = 0; i < text.size(); i += 4) {
    std::uint32_t group = 0;
    for (std::size_t j = 0; j < 4; ++j) {
      const std::size_t at = i + j;
      const bool pad_slot = at >= text.size() - padding;
      const std::uint8_t value = kDecodeTable[static_cast<std::uint8_t>(text[at])];
      if (pad_slot ? text[at] != '=' : value == kInvalid) {
        return Status::InvalidArgument("base64 text has an invalid character at position " +
                                       std::to_string(at));
      }
      group = (group << 6) | (pad_slot ? 0 : value);
    }
    for (int shift = 16; shift >= 0 && written < out.size(); shift -= 8) {
      out[written++] = static_cast<std::uint8_t>(group >> shift);
    }
  }
  return out;
}

}  // namespace chunkwise::core
