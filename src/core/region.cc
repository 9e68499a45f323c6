#include "chunkwise/core/region.h"

#include <algorithm>
#include <cctype>
#include <ostream>
#include <utility>

#include "chunkwise/core/check.h"

namespace chunkwise::core {

Region::Region(Coord start, Coord stop) : start_(std::move(start)), stop_(std::move(stop)) {
  CHUNKWISE_CHECK(start_.size() == stop_.size());
  for (std::size_t d = 0; d < start_.size(); ++d) CHUNKWISE_CHECK(start_[d] <= stop_[d]);
}

Region Region::Full(std::span<const Index> shape) {
  return Region(Coord(shape.size(), 0), Coord(shape.begin(), shape.end()));
}

Region Region::FromOriginAndShape(std::span<const Index> origin, std::span<const Index> shape) {
  CHUNKWISE_CHECK(origin.size() == shape.size());
  Coord stop(origin.size());
  for (std::size_t d = 0; d < origin.size(); ++d) {
    CHUNKWISE_CHECK(shape[d] >= 0);
    std::optional<Index> end = CheckedAdd(origin[d], shape[d]);
    CHUNKWISE_CHECK(end.has_value());
    stop[d] = *end;
  }
  return Region(Coord(origin.begin(), origin.end()), std::move(stop));
}

Shape Region::shape() const {
  Shape extents(start_.size());
  for (std::size_t d = 0; d < start_.size(); ++d) extents[d] = stop_[d] - start_[d];
  return extents;
}

Index Region::num_elements() const {
  Result<Index> count = NumElements(shape());
  CHUNKWISE_CHECK(count.ok());
  return *count;
}

bool Region::IsEmpty() const {
  for (std::size_t d = 0; d < start_.size(); ++d) {
    if (start_[d] == stop_[d]) return true;
  }
  return false;
}

bool Region::Contains(std::span<const Index> coord) const {
  CHUNKWISE_CHECK(coord.size() == start_.size());
  for (std::size_t d = 0; d < start_.size(); ++d) {
    if (coord[d] < start_[d] || coord[d] >= stop_[d]) return false;
  }
  return true;
}

bool Region::Covers(const Region& other) const {
  CHUNKWISE_CHECK(other.rank() == rank());
  if (other.IsEmpty()) return true;
  for (std::size_t d = 0; d < start_.size(); ++d) {
    if (other.start_[d] < start_[d] || other.stop_[d] > stop_[d]) return false;
  }
  return true;
}

std::optional<Region> Region::Intersect(const Region& other) const {
  CHUNKWISE_CHECK(other.rank() == rank());
  Coord start(start_.size());
  Coord stop(start_.size());
  for (std::size_t d = 0; d < start_.size(); ++d) {
    start[d] = std::max(start_[d], other.start_[d]);
    stop[d] = std::min(stop_[d], other.stop_[d]);
    if (start[d] >= stop[d]) return std::nullopt;
  }
  return Region(std::move(start), std::move(stop));
}

Region Region::Translate(std::span<const Index> delta) const {
  CHUNKWISE_CHECK(delta.size() == start_.size());
  Region moved = *this;
  for (std::size_t d = 0; d < start_.size(); ++d) {
    std::optional<Index> start = CheckedAdd(start_[d], delta[d]);
    std::optional<Index> stop = CheckedAdd(stop_[d], delta[d]);
    CHUNKWISE_CHECK(start.has_value() && stop.has_value());
    moved.start_[d] = *start;
    moved.stop_[d] = *stop;
  }
  return moved;
}

Region Region::RelativeTo(std::span<const Index> origin) const {
  CHUNKWISE_CHECK(origin.size() == start_.size());
  Region moved = *this;
  for (std::size_t d = 0; d < start_.size(); ++d) {
    Index start;
    Index stop;
    CHUNKWISE_CHECK(!__builtin_sub_overflow(start_[d], origin[d], &start) &&
                    !__builtin_sub_overflow(stop_[d], origin[d], &stop));
    moved.start_[d] = start;
    moved.stop_[d] = stop;
  }
  return moved;
}

std::string Region::ToString() const {
  std::string text;
  for (std::size_t d = 0; d < start_.size(); ++d) {
    if (d > 0) text += ',';
    text += std::to_string(start_[d]) + ':' + std::to_string(stop_[d]);
  }
  return text;
}

std::ostream& operator<<(std::ostream& stream, const Region& region) {
  return stream << '[' << region.ToString() << ']';
}

namespace {

// One dimension's field of ParseRegion, reported with the whole text.
struct FieldParser {
  std::string_view text;   // The whole region text, for messages.
  std::string_view field;  // This dimension's part of it.
  std::size_t dimension;
  Index extent;

  Status Error(std::string_view why) const {
    return Status::InvalidArgument("invalid region \"" + std::string(text) + "\": dimension " +
                                   std::to_string(dimension) + " (\"" + std::string(field) +
                                   "\"): " + std::string(why));
  }

  // A bound of a slice; `fallback` when absent. Negative counts from the end;
  // the result must lie in [0, extent].
  Result<Index> Bound(std::string_view bound_text, Index fallback, const char* what) const {
    bound_text = TrimSpaces(bound_text);
    if (bound_text.empty()) return fallback;
    std::optional<Index> value = ParseIndex(bound_text);
    if (!value) return Error(std::string(what) + " is not an integer");
    const Index bound = *value < 0 ? *value + extent : *value;
    if (bound < 0 || bound > extent) {
      return Error(std::string(what) + " " + std::to_string(*value) +
                   " is out of bounds for extent " + std::to_string(extent));
    }
    return bound;
  }

  // Fills start[dimension] and stop[dimension].
  Status Parse(Index& start, Index& stop) const {
    const std::size_t colon = field.find(':');
    if (colon == std::string_view::npos) return ParseSingleIndex(start, stop);
    if (field.find(':', colon + 1) != std::string_view::npos) {
      return Error("steps are not supported");
    }
    CHUNKWISE_ASSIGN_OR_RETURN(start, Bound(field.substr(0, colon), 0, "start"));
    CHUNKWISE_ASSIGN_OR_RETURN(stop, Bound(field.substr(colon + 1), extent, "stop"));
    if (start > stop) {
      return Error("start " + std::to_string(start) + " is after stop " + std::to_string(stop));
    }
    return Status::Ok();
  }

  Status ParseSingleIndex(Index& start, Index& stop) const {
    const std::string_view index_text = TrimSpaces(field);
    if (index_text.empty()) return Error("empty field (use \":\" for the whole dimension)");
    std::optional<Index> value = ParseIndex(index_text);
    if (!value) return Error("index is not an integer");
    const Index index = *value < 0 ? *value + extent : *value;
    if (index < 0 || index >= extent) {
      return Error("index " + std::to_string(*value) + " is out of bounds for extent " +
                   std::to_string(extent));
    }
    start = index;
    stop = index + 1;
    return Status::Ok();
  }
};

}  // namespace

Result<Region> ParseRegion(std::string_view text, std::span<const Index> shape) {
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 0) {
      return Status::InvalidArgument("region \"" + std::string(text) + "\" against shape " +
                                     FormatShape(shape) + ": dimension " + std::to_string(d) +
                                     " of the shape is negative");
    }
  }
  Region full = Region::Full(shape);
  if (TrimSpaces(text).empty()) return full;
  Coord start = full.start();
  Coord stop = full.stop();
  std::string_view rest = text;
  for (std::size_t d = 0;; ++d) {
    const std::size_t comma = rest.find(',');
    if (d >= shape.size()) {
      return Status::InvalidArgument("invalid region \"" + std::string(text) + "\": more than " +
                                     std::to_string(shape.size()) +
                                     " dimensions for an array of shape " + FormatShape(shape));
    }
    FieldParser parser{text, rest.substr(0, comma), d, shape[d]};
    CHUNKWISE_RETURN_IF_ERROR(parser.Parse(start[d], stop[d]));
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return Region(std::move(start), std::move(stop));
}

}  // namespace chunkwise::core
