// Numbers as error messages show them: the shortest text that reads back the
// same, and NaN / inf / -inf by name (JSON would print them as null).
#ifndef CHUNKWISE_FORMATS_VECTORS_NUMBER_TEXT_H_
#define CHUNKWISE_FORMATS_VECTORS_NUMBER_TEXT_H_

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

namespace chunkwise::formats::vectors {

inline std::string NumberText(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return nlohmann::json(value).dump();
}

}  // namespace chunkwise::formats::vectors

#endif  // CHUNKWISE_FORMATS_VECTORS_NUMBER_TEXT_H_
