#include "chunkwise/core/index.h"

#include <cctype>
#include <limits>

namespace chunkwise::core {
std::string_view TrimSpaces(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  return text;
}

Result<Index> NumElements(std::span<const Index> shape) {
  Index count = 1;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 0) {
      return Status::InvalidArgument("shape " + FormatShape(shape) + ": dimension " +
                                     std::to_string(d) + " is negative");
    }
  }
  for (Index extent : shape) {
    std::optional<Index> product = CheckedMultiply(count, extent);
    if (!product) {
      return Status::OutOfRange("shape " + FormatShape(shape) +
                                ": element count overflows a 64-bit integer");
    }
    count = *product;
  }
  return count;
}

std::string FormatShape(std::span<const Index> shape) {
  std::string text;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (d > 0) text += ',';
    text += std::to_string(shape[d]);
  }
  return text;
}

std::optional<Index> ParseIndex(std::string_view text) {
  bool negative = false;
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  if (text.empty()) return std::nullopt;
  // Accumulate negatively so that INT64_MIN, which has no positive twin, parses.
  Index value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    if (value < (std::numeric_limits<Index>::min() + (c - '0')) / 10) return std::nullopt;
    value = value * 10 - (c - '0');
  }
  if (negative) return value;
  if (value == std::numeric_limits<Index>::min()) return std::nullopt;
  return -value;
}

Result<Shape> ParseShape(std::string_view text) {
  auto invalid = [&](std::size_t d, std::string_view field, std::string_view why) {
    return Status::InvalidArgument("invalid shape \"" + std::string(text) + "\": dimension " +
                                   std::to_string(d) + " (\"" + std::string(field) + "\") " +
                                   std::string(why));
  };
  if (TrimSpaces(text).empty()) {
    return Status::InvalidArgument("invalid shape \"" + std::string(text) +
                                   "\": expected comma-separated extents such as \"512,512\"");
  }
  Shape shape;
  std::string_view rest = text;
  for (std::size_t d = 0;; ++d) {
    const std::size_t comma = rest.find(',');
    const std::string_view field = rest.substr(0, comma);
    const std::string_view number = TrimSpaces(field);
    const std::optional<Index> value = ParseIndex(number);
    if (!value) return invalid(d, field, "is not a 64-bit integer");
    if (*value < 0) return invalid(d, field, "is negative");
    shape.push_back(*value);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return shape;
}

}  // namespace chunkwise::core
