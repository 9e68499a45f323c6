#include "chunkwise/formats/vectors/geometry.h"

#include <cmath>
#include <set>

#include "formats/vectors/layout.h"

namespace chunkwise::formats::vectors {
namespace {

Status CheckNames(const std::vector<std::string>& names, std::string_view what) {
  std::set<std::string> seen;
  for (const std::string& name : names) {
    if (!IsValidAttributeName(name) || !seen.insert(name).second) {
      return Status::InvalidArgument(std::string(what) + " name \"" + name +
                                     "\" is empty, repeated or not a path segment");
    }
  }
  return Status::Ok();
}

Status CheckLinkAttributes(const Geometry& geometry) {
  std::vector<std::string> names;
  for (const LinkAttribute& attribute : geometry.link_attributes) {
    names.push_back(attribute.name);
    if (attribute.channels < 1 ||
        attribute.values.size() !=
            geometry.num_links() * static_cast<std::size_t>(attribute.channels)) {
      return Status::InvalidArgument("link attribute \"" + attribute.name + "\" has " +
                                     std::to_string(attribute.values.size()) + " values for " +
                                     std::to_string(geometry.num_links()) + " links of " +
                                     std::to_string(attribute.channels) + " channels");
    }
  }
  return CheckNames(names, "link attribute");
}

}  // namespace

bool IsValidAttributeName(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos &&
         name.find('\0') == std::string::npos;
}

std::size_t Geometry::num_links() const {
  const int width = link_width();
  return width == 0 ? 0 : links.size() / width;
}

Status Geometry::Validate() const {
  const int width = link_width();
  if (width == 0 ? !links.empty() : links.size() % width != 0) {
    return Status::InvalidArgument("links: " + std::to_string(links.size()) +
                                   " indices are not whole links of " + std::to_string(width));
  }
  const auto count = static_cast<std::int64_t>(positions.size());
  for (std::size_t i = 0; i < links.size(); ++i) {
    if (links[i] < 0 || links[i] >= count) {
      return Status::InvalidArgument("links: link " + std::to_string(i / width) + " names vertex " +
                                     std::to_string(links[i]) + " of " + std::to_string(count));
    }
  }
  for (std::size_t v = 0; v < positions.size(); ++v) {
    for (float c : positions[v]) {
      if (!std::isfinite(c))
        return Status::InvalidArgument("vertex " + std::to_string(v) + " is not finite");
    }
  }
  if (!object_ids.empty() && object_ids.size() != positions.size()) {
    return Status::InvalidArgument("object ids: " + std::to_string(object_ids.size()) + " for " +
                                   std::to_string(count) + " vertices");
  }
  std::vector<std::string> names{std::string(layout::kObjectIdAttribute)};
  for (const VertexAttribute& attribute : vertex_attributes) {
    names.push_back(attribute.name);
    if (attribute.values.size() != positions.size()) {
      return Status::InvalidArgument("vertex attribute \"" + attribute.name + "\" has " +
                                     std::to_string(attribute.values.size()) + " values for " +
                                     std::to_string(count) + " vertices");
    }
  }
  CHUNKWISE_RETURN_IF_ERROR(CheckNames(names, "vertex attribute"));
  return CheckLinkAttributes(*this);
}

}  // namespace chunkwise::formats::vectors
