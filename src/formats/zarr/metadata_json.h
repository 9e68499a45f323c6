// Small JSON helpers shared by the v2 and v3 metadata parsers.
#ifndef CHUNKWISE_SRC_FORMATS_ZARR_METADATA_JSON_H_
#define CHUNKWISE_SRC_FORMATS_ZARR_METADATA_JSON_H_

#include <exception>
#include <nlohmann/json.hpp>
#include <string>

#include "chunkwise/core/data_type.h"
#include "chunkwise/core/index.h"
#include "chunkwise/core/result.h"
#include "codec/bytes_codec.h"

namespace chunkwise::formats::zarr::internal {

// `object[name]` as a list of non-negative integers; InvalidArgument naming `name`.
// Every region, key and chunk visit costs a step per dimension: a shape
// listing more than this many is refused before it is walked.
inline constexpr std::size_t kMaxDimensions = 64;

inline Result<core::Shape> GetShape(const nlohmann::json& object, const char* name) {
  if (!object.contains(name) || !object[name].is_array()) {
    return Status::InvalidArgument(std::string("\"") + name + "\" must be a list of integers");
  }
  if (object[name].size() > kMaxDimensions) {
    return Status::Corruption(std::string("\"") + name + "\" lists " +
                              std::to_string(object[name].size()) + " dimensions (at most " +
                              std::to_string(kMaxDimensions) + ")");
  }
  core::Shape shape;
  for (const auto& extent : object[name]) {
    if (!extent.is_number_integer() || extent.get<std::int64_t>() < 0) {
      return Status::InvalidArgument(std::string("\"") + name + "\" " + object[name].dump() +
                                     " must hold non-negative integers");
    }
    shape.push_back(extent.get<std::int64_t>());
  }
  return shape;
}

// The `bytes` codec for `dtype` in `endian` order, as zarr-python writes it:
// the endian is stated only for multi-byte types.
inline nlohmann::json BytesCodecJson(core::DataType dtype, core::Endian endian) {
  return codec::BytesCodec::Create(dtype.swap_unit() == 1 ? std::nullopt : std::optional(endian))
      ->ToJson();
}

// Runs `parse`, turning a stray nlohmann::json exception (a field of an
// unexpected type that a check missed) into InvalidArgument.
template <typename Function>  // A template so that any Result type passes through.
auto CatchJsonErrors(Function parse) -> decltype(parse()) {
  try {
    return parse();
  } catch (const std::exception& error) {
    return Status::InvalidArgument(std::string("malformed metadata: ") + error.what());
  }
}

}  // namespace chunkwise::formats::zarr::internal

#endif  // CHUNKWISE_SRC_FORMATS_ZARR_METADATA_JSON_H_
