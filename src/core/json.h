// ParseJson: the one way chunkwise parses a JSON document it did not build
// itself (zarr.json and .zarray/.zattrs, bcolz __attrs__ and meta files, the
// export spec and its info, reference sets, vectors metadata).
//
// Parsing is iterative, but copying, comparing and printing a value recurse
// once per level, so a document nested a million deep overflows the stack
// long after it was accepted. ParseJson refuses a document nested deeper
// than kMaxJsonDepth while it parses (the deep part is never built), so
// nothing downstream can recurse that far. No metadata format chunkwise reads
// comes near the limit.
#ifndef CHUNKWISE_CORE_JSON_H_
#define CHUNKWISE_CORE_JSON_H_

#include <nlohmann/json.hpp>
#include <string_view>

#include "chunkwise/core/result.h"

namespace chunkwise::core {

// Arrays and objects nested deeper than this are refused.
inline constexpr int kMaxJsonDepth = 256;

// `text` parsed; an error of `code` naming `where` when it is not JSON or is
// nested deeper than kMaxJsonDepth: InvalidArgument for what a caller
// passed, Corruption for what was stored.
Result<nlohmann::json> ParseJson(std::string_view text, std::string_view where,
                                 StatusCode code = StatusCode::kInvalidArgument);
// The same, keeping the order of object members.
Result<nlohmann::ordered_json> ParseOrderedJson(std::string_view text, std::string_view where,
                                                StatusCode code = StatusCode::kInvalidArgument);

}  // namespace chunkwise::core

#endif  // CHUNKWISE_CORE_JSON_H_
