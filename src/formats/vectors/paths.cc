#include "formats/vectors/paths.h"

#include <charconv>
#include <limits>

namespace chunkwise::formats::vectors {
namespace {

// Parses a whole decimal integer with an optional leading '-'; no '+', no blanks.
bool ParseInteger(std::string_view text, std::int64_t& value) {
  if (text.empty()) return false;
  const char* end = text.data() + text.size();
  const auto [ptr, error] = std::from_chars(text.data(), end, value);
  return error == std::errc() && ptr == end;
}

// Splits on '.' into integers; false if any component is not one.
bool ParseDottedIntegers(std::string_view key, std::vector<std::int64_t>& values) {
  values.clear();
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = key.find('.', start);
    const std::string_view part =
        key.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    std::int64_t value = 0;
    if (!ParseInteger(part, value)) return false;
    values.push_back(value);
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

}  // namespace

std::string FormatDelta(int delta) {
  if (delta > 0) return "+" + std::to_string(delta);
  return std::to_string(delta);
}

Result<int> ParseDelta(std::string_view segment) {
  const auto bad = [&] {
    return Status::InvalidArgument("level delta segment \"" + std::string(segment) +
                                   "\" is not 0, +N or -N");
  };
  if (segment == "0") return 0;
  if (segment.size() < 2 || (segment[0] != '+' && segment[0] != '-')) return bad();
  if (segment[1] < '1' || segment[1] > '9') return bad();  // No "+0", "-0" or "+01".
  std::int64_t magnitude = 0;
  if (!ParseInteger(segment.substr(1), magnitude) || magnitude > std::numeric_limits<int>::max()) {
    return bad();
  }
  return static_cast<int>(segment[0] == '-' ? -magnitude : magnitude);
}

std::string FormatChunkKey(const ChunkCoord& chunk) {
  return std::to_string(chunk[0]) + "." + std::to_string(chunk[1]) + "." + std::to_string(chunk[2]);
}

Result<ChunkCoord> ParseChunkKey(std::string_view key) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<ChunkCoord> chunks, ParseCellKey(key, 1));
  return chunks[0];
}

std::string FormatCellKey(std::span<const ChunkCoord> chunks) {
  std::string key;
  for (const ChunkCoord& chunk : chunks) {
    if (!key.empty()) key += '.';
    key += FormatChunkKey(chunk);
  }
  return key;
}

Result<std::vector<ChunkCoord>> ParseCellKey(std::string_view key, int link_width) {
  std::vector<std::int64_t> values;
  const std::size_t arity = static_cast<std::size_t>(kSpatialDims) * link_width;
  if (link_width < 1 || !ParseDottedIntegers(key, values) || values.size() != arity) {
    return Status::InvalidArgument("chunk key \"" + std::string(key) + "\" is not " +
                                   std::to_string(arity) + " dotted integers");
  }
  std::vector<ChunkCoord> chunks(link_width);
  for (std::size_t i = 0; i < values.size(); ++i)
    chunks[i / kSpatialDims][i % kSpatialDims] = values[i];
  return chunks;
}

}  // namespace chunkwise::formats::vectors
