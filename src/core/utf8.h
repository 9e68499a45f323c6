// Whether bytes are UTF-8 text, for the writers of JSON (which must not hold
// anything else) to decide before they write.
#ifndef CHUNKWISE_CORE_UTF8_H_
#define CHUNKWISE_CORE_UTF8_H_

#include <string_view>

namespace chunkwise::core {

// True when `text` is well-formed UTF-8: no overlong forms, surrogates or
// code points past U+10FFFF.
bool IsUtf8(std::string_view text);

}  // namespace chunkwise::core

#endif  // CHUNKWISE_CORE_UTF8_H_
