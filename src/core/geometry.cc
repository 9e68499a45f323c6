#include "chunkwise/core/geometry.h"

#include <cmath>
#include <set>
#include <string_view>

namespace chunkwise::core {
namespace {

// The attribute a store keeps object ids in (formats/vectors/layout.h): no
// vertex attribute may take its name.
constexpr std::string_view kObjectIdAttribute = "object_id";

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

std::string_view GeometryTypeName(GeometryType type) {
  switch (type) {
    case GeometryType::kPoints:
      return "point_cloud";
    case GeometryType::kGraph:
      return "graph";
    case GeometryType::kPolyline:
      return "polyline";
    case GeometryType::kSkeleton:
      return "skeleton";
    case GeometryType::kMesh:
      return "mesh";
  }
  return "point_cloud";
}

Result<GeometryType> ParseGeometryType(std::string_view name) {
  if (name == "point_cloud" || name == "points") return GeometryType::kPoints;
  if (name == "graph") return GeometryType::kGraph;
  if (name == "polyline" || name == "line" || name == "streamline") return GeometryType::kPolyline;
  if (name == "skeleton") return GeometryType::kSkeleton;
  if (name == "mesh") return GeometryType::kMesh;
  return Status::InvalidArgument("unknown geometry type \"" + std::string(name) +
                                 "\" (known: points, graph, polyline, skeleton, mesh)");
}

int LinkWidthOf(GeometryType type) {
  if (type == GeometryType::kPoints) return 0;
  return type == GeometryType::kMesh ? 3 : 2;
}

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
  std::vector<std::string> names{std::string(kObjectIdAttribute)};
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

}  // namespace chunkwise::core
