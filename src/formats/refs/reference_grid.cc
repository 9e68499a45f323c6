#include "reference_grid.h"

#include <charconv>
#include <nlohmann/json.hpp>

#include "core/json.h"

namespace chunkwise::formats::refs {
namespace {

Result<std::vector<std::uint64_t>> Extents(const nlohmann::json& json, const char* name,
                                           const std::string& field) {
  const auto it = json.find(name);
  if (it == json.end() || !it->is_array()) {
    return Status::Corruption(field + "/.zarray: no \"" + name + "\" list");
  }
  std::vector<std::uint64_t> extents;
  for (const auto& value : *it) {
    if (!value.is_number_integer() || value.get<std::int64_t>() < 0) {
      return Status::Corruption(field + "/.zarray: \"" + name +
                                "\" holds a non-integer or negative value");
    }
    extents.push_back(value.get<std::uint64_t>());
  }
  return extents;
}

}  // namespace

Result<ReferenceGrid> ReferenceGrid::FromZarray(std::string_view zarray_json,
                                                const std::string& field) {
  CHUNKWISE_ASSIGN_OR_RETURN(
      const nlohmann::json json,
      core::ParseJson(zarray_json, field + "/.zarray", StatusCode::kCorruption));
  if (!json.is_object()) return Status::Corruption(field + "/.zarray is not a JSON object");
  CHUNKWISE_ASSIGN_OR_RETURN(const auto shape, Extents(json, "shape", field));
  CHUNKWISE_ASSIGN_OR_RETURN(const auto chunks, Extents(json, "chunks", field));
  if (shape.size() != chunks.size()) {
    return Status::Corruption(field + "/.zarray: shape and chunks differ in length");
  }
  ReferenceGrid grid;
  const auto separator = json.find("dimension_separator");
  grid.slash_separator = separator != json.end() && separator->is_string() && *separator == "/";
  grid.zero_dimensional = shape.empty();
  if (grid.zero_dimensional) grid.chunks_per_dimension = {1};
  std::uint64_t total = 1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (chunks[i] == 0) return Status::Corruption(field + "/.zarray: a chunk extent is 0");
    const std::uint64_t count = shape[i] == 0 ? 0 : (shape[i] - 1) / chunks[i] + 1;
    if (count != 0 && total > (std::uint64_t{1} << 62) / count) {
      return Status::Corruption(field + "/.zarray: too many chunks");
    }
    total *= count;
    grid.chunks_per_dimension.push_back(count);
  }
  return grid;
}

std::uint64_t ReferenceGrid::chunk_count() const {
  std::uint64_t total = 1;
  for (const std::uint64_t count : chunks_per_dimension) total *= count;
  return total;
}

std::optional<std::uint64_t> ReferenceGrid::RowOfChunk(std::string_view chunk) const {
  std::uint64_t row = 0;
  std::size_t dimension = 0;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = chunk.find('.', start);
    const std::string_view part =
        chunk.substr(start, dot == std::string_view::npos ? dot : dot - start);
    std::uint64_t index = 0;
    const auto [end, error] = std::from_chars(part.data(), part.data() + part.size(), index);
    const bool leading_zero = part.size() > 1 && part[0] == '0';
    if (part.empty() || leading_zero || error != std::errc() || end != part.data() + part.size() ||
        dimension >= chunks_per_dimension.size() || index >= chunks_per_dimension[dimension]) {
      return std::nullopt;
    }
    row = row * chunks_per_dimension[dimension] + index;
    ++dimension;
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  if (dimension != chunks_per_dimension.size()) return std::nullopt;
  return row;
}

std::string ReferenceGrid::ChunkOfRow(std::uint64_t row) const {
  std::vector<std::uint64_t> index(chunks_per_dimension.size());
  for (std::size_t d = index.size(); d-- > 0;) {
    index[d] = row % chunks_per_dimension[d];
    row /= chunks_per_dimension[d];
  }
  std::string key;
  for (std::size_t d = 0; d < index.size(); ++d) {
    if (d > 0) key += '.';
    key += std::to_string(index[d]);
  }
  return key;
}

}  // namespace chunkwise::formats::refs
