#include "formats/precomputed/skeleton_file.h"

#include <bit>
#include <cstdio>
#include <cstring>
#include <deque>
#include <nlohmann/json.hpp>

namespace chunkwise::formats::precomputed {
namespace {

static_assert(std::endian::native == std::endian::little, "skeleton files are little-endian");

template <typename T>
void Append(Bytes& out, const T* values, std::size_t count) {
  const std::size_t at = out.size();
  out.resize(at + count * sizeof(T));
  if (count != 0) std::memcpy(out.data() + at, values, count * sizeof(T));
}

}  // namespace

Bytes EncodeSkeleton(const Skeleton& skeleton) {
  Bytes out;
  const std::uint32_t counts[2] = {static_cast<std::uint32_t>(skeleton.vertices.size()),
                                   static_cast<std::uint32_t>(skeleton.edges.size())};
  out.reserve(8 + skeleton.vertices.size() * 16 + skeleton.edges.size() * 8);
  Append(out, counts, 2);
  // An empty skeleton's vectors have no element to call data() on.
  Append(out, reinterpret_cast<const float*>(skeleton.vertices.data()),
         skeleton.vertices.size() * 3);
  Append(out, reinterpret_cast<const std::uint32_t*>(skeleton.edges.data()),
         skeleton.edges.size() * 2);
  Append(out, skeleton.radii.data(), skeleton.radii.size());
  return out;
}

Result<Skeleton> DecodeSkeleton(ByteView bytes, std::string_view where) {
  const std::string name(where);
  if (bytes.size() < 8) {
    return Status::Corruption(name + ": " + std::to_string(bytes.size()) +
                              " bytes, shorter than the 8-byte header of a skeleton");
  }
  std::uint32_t counts[2];
  std::memcpy(counts, bytes.data(), 8);
  const std::uint64_t expected = 8 + std::uint64_t{counts[0]} * 16 + std::uint64_t{counts[1]} * 8;
  if (bytes.size() != expected) {
    return Status::Corruption(name + ": " + std::to_string(counts[0]) + " vertices and " +
                              std::to_string(counts[1]) + " edges with a radius need " +
                              std::to_string(expected) + " bytes, the file has " +
                              std::to_string(bytes.size()));
  }
  Skeleton out;
  out.vertices.resize(counts[0]);
  out.edges.resize(counts[1]);
  out.radii.resize(counts[0]);
  const std::uint8_t* at = bytes.data() + 8;
  if (counts[0] != 0) std::memcpy(out.vertices.data(), at, counts[0] * 12u);
  at += counts[0] * 12u;
  if (counts[1] != 0) std::memcpy(out.edges.data(), at, counts[1] * 8u);
  at += counts[1] * 8u;
  if (counts[0] != 0) std::memcpy(out.radii.data(), at, counts[0] * 4u);
  for (std::size_t e = 0; e < out.edges.size(); ++e) {
    for (std::uint32_t v : out.edges[e]) {
      if (v >= counts[0]) {
        return Status::Corruption(name + ": edge " + std::to_string(e) + " names vertex " +
                                  std::to_string(v) + " of " + std::to_string(counts[0]));
      }
    }
  }
  return out;
}

std::array<double, 12> IdentityTransform() { return {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}; }

std::string SkeletonInfoJson(const std::array<double, 12>& transform,
                             const ShardingSpec* sharding) {
  nlohmann::json info;
  info["@type"] = "neuroglancer_skeletons";
  info["transform"] = transform;
  info["vertex_attributes"] =
      nlohmann::json::array({{{"id", "radius"}, {"data_type", "float32"}, {"num_components", 1}}});
  if (sharding != nullptr) info["sharding"] = ShardingSpecToJson(*sharding);
  return info.dump(2) + "\n";
}

std::string SkeletonToSwc(const Skeleton& skeleton) {
  const std::size_t n = skeleton.vertices.size();
  std::vector<std::vector<std::uint32_t>> neighbours(n);
  for (const auto& [a, b] : skeleton.edges) {
    neighbours[a].push_back(b);
    neighbours[b].push_back(a);
  }
  // Parents by a walk from each tree's first vertex, so that every line's
  // parent comes before it, as SWC readers expect; ids follow the walk.
  std::vector<std::int64_t> id(n, -1), parent_id(n, -1);
  std::vector<std::uint32_t> order;
  order.reserve(n);
  for (std::uint32_t start = 0; start < n; ++start) {
    if (id[start] >= 0) continue;
    std::deque<std::uint32_t> queue{start};
    id[start] = static_cast<std::int64_t>(order.size()) + 1;
    order.push_back(start);
    while (!queue.empty()) {
      const std::uint32_t v = queue.front();
      queue.pop_front();
      for (std::uint32_t w : neighbours[v]) {
        if (id[w] >= 0) continue;
        id[w] = static_cast<std::int64_t>(order.size()) + 1;
        parent_id[w] = id[v];
        order.push_back(w);
        queue.push_back(w);
      }
    }
  }
  std::string text = "# skeleton of label " + std::to_string(skeleton.label) +
                     " written by chunkwise; x y z and radius in nanometres\n";
  char line[160];
  for (std::uint32_t v : order) {
    const auto& p = skeleton.vertices[v];
    const double radius = v < skeleton.radii.size() ? skeleton.radii[v] : 0.0;
    std::snprintf(line, sizeof line, "%lld 0 %.6g %.6g %.6g %.6g %lld\n",
                  static_cast<long long>(id[v]), p[0], p[1], p[2], radius,
                  static_cast<long long>(parent_id[v]));
    text += line;
  }
  return text;
}

}  // namespace chunkwise::formats::precomputed
