#include "core/dtype_text.h"

#include <string>

namespace chunkwise::core {

Result<DataType> ParseDataType(std::string_view text, Endian* endian) {
  if (Result<DataType> named = DataType::FromZarrName(text); named.ok()) {
    if (endian != nullptr) *endian = Endian::kLittle;
    return named;
  }
  const bool has_order =
      !text.empty() && std::string_view("<>|=").find(text[0]) != std::string_view::npos;
  std::string typestr(has_order ? "" : "<");
  typestr += text;
  Endian order = Endian::kLittle;
  Result<DataType> typed = DataType::FromNumpyTypestr(typestr, &order);
  if (!typed.ok()) {
    return Status::InvalidArgument("unknown dtype \"" + std::string(text) +
                                   "\" (expected a NumPy name such as \"uint16\" or a typestr "
                                   "such as \"<u2\")");
  }
  if (endian != nullptr) {
    *endian = order;
  } else if (order == Endian::kBig && typed->size() > 1) {
    return Status::InvalidArgument("dtype \"" + std::string(text) +
                                   "\" is big-endian; this element type takes no byte order");
  }
  return typed;
}

Result<NpyDtype> ParseNpyDtype(std::string_view text) {
  if (Result<DataType> named = DataType::FromZarrName(text); named.ok()) {
    return NpyDtype::FromDataType(*named, Endian::kLittle);
  }
  Result<NpyDtype> typed = NpyDtype::FromTypestr(text);
  if (typed.ok() || typed.status().code() != StatusCode::kInvalidArgument) return typed;
  return Status::InvalidArgument("unknown dtype \"" + std::string(text) +
                                 "\" (expected a NumPy name such as \"uint16\" or a typestr "
                                 "such as \"<u2\")");
}

}  // namespace chunkwise::core
