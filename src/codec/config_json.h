// Reading a codec's `configuration` object without letting nlohmann::json throw.
//
// Every codec factory validates its configuration through these helpers, so all
// codecs reject bad input the same way: InvalidArgument naming the codec and the
// field. A missing optional field comes back as std::nullopt.
#ifndef CHUNKWISE_SRC_CODEC_CONFIG_JSON_H_
#define CHUNKWISE_SRC_CODEC_CONFIG_JSON_H_

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "chunkwise/core/result.h"

namespace chunkwise::codec::internal {

// InvalidArgument unless `configuration` is an object (or null, meaning empty)
// whose keys are all in `allowed`.
Status CheckConfigKeys(std::string_view codec, const nlohmann::json& configuration,
                       std::initializer_list<std::string_view> allowed);

// The integer at `key`, or nullopt if absent; InvalidArgument if it is not an
// integer in [min, max].
Result<std::optional<std::int64_t>> GetInt(std::string_view codec,
                                           const nlohmann::json& configuration,
                                           std::string_view key, std::int64_t min,
                                           std::int64_t max);

// The string at `key`, or nullopt if absent; InvalidArgument if not a string.
Result<std::optional<std::string>> GetString(std::string_view codec,
                                             const nlohmann::json& configuration,
                                             std::string_view key);

// The boolean at `key`, or nullopt if absent; InvalidArgument if not a boolean.
Result<std::optional<bool>> GetBool(std::string_view codec, const nlohmann::json& configuration,
                                    std::string_view key);

// `value` as compact JSON text for messages; never throws.
std::string ShowJson(const nlohmann::json& value);

// "codec 'NAME': configuration field 'KEY' DETAIL" as InvalidArgument.
Status BadField(std::string_view codec, std::string_view key, std::string_view detail);

}  // namespace chunkwise::codec::internal

#endif  // CHUNKWISE_SRC_CODEC_CONFIG_JSON_H_
