// Base64 (RFC 4648 §4, standard alphabet, "=" padding): the inline values of
// reference sets (JSON values "base64:<text>") and zarr fill values of bytes.
//
// Spec: docs/formats/refs.md, "Base64". Python's base64.b64decode (what fsspec
// calls) by default drops characters outside the alphabet; we refuse them, so
// a set with stray characters that fsspec reads is refused here.
#ifndef CHUNKWISE_CORE_BASE64_H_
#define CHUNKWISE_CORE_BASE64_H_

#include <string>
#include <string_view>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"

namespace chunkwise::core {

// The padded base64 text of `data`.
std::string EncodeBase64(ByteView data);
// Appends the padded base64 text of `data` to `out`.
void AppendBase64(ByteView data, std::string& out);

// The bytes of padded base64 `text`. InvalidArgument naming the offending
// character's position when a character is outside the alphabet, the length
// is not a multiple of 4, or padding appears before the end.
Result<Bytes> DecodeBase64(std::string_view text);

}  // namespace chunkwise::core

#endif  // CHUNKWISE_CORE_BASE64_H_
