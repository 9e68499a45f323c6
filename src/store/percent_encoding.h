// Percent-encoding of URL paths and query values, as AWS Signature V4 wants
// them, and the decoding of keys that ListObjectsV2 sends with encoding-type=url.
#ifndef CHUNKWISE_SRC_STORE_PERCENT_ENCODING_H_
#define CHUNKWISE_SRC_STORE_PERCENT_ENCODING_H_

#include <string>
#include <string_view>

#include "chunkwise/core/result.h"

namespace chunkwise::store {

// "%XX" for every byte but A–Z a–z 0–9 - . _ ~ (and "/" when `keep_slash`).
std::string PercentEncode(std::string_view text, bool keep_slash);
// Decodes %XX and "+" (a space). Corruption for a bad escape.
Result<std::string> PercentDecode(std::string_view text);

}  // namespace chunkwise::store

#endif  // CHUNKWISE_SRC_STORE_PERCENT_ENCODING_H_
