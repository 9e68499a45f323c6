#include "core/utf8.h"

#include <cstddef>
#include <cstdint>

namespace chunkwise::core {

bool IsUtf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    std::size_t extra = 0;
    std::uint32_t code_point = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      extra = 1, code_point = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      extra = 2, code_point = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      extra = 3, code_point = c & 0x07;
    } else {
      return false;
    }
    if (text.size() - i <= extra) return false;
    for (std::size_t k = 1; k <= extra; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      if ((next & 0xC0) != 0x80) return false;
      code_point = (code_point << 6) | (next & 0x3F);
    }
    // Overlong forms, surrogates and values past U+10FFFF are not UTF-8.
    constexpr std::uint32_t kMinimum[] = {0, 0x80, 0x800, 0x10000};
    if (code_point < kMinimum[extra] || code_point > 0x10FFFF ||
        (code_point >= 0xD800 && code_point < 0xE000)) {
      return false;
    }
    i += extra + 1;
  }
  return true;
}

}  // namespace chunkwise::core
