// Shared geometries and comparisons for the zarr-vectors tests.
#ifndef CHUNKWISE_TESTS_UNIT_FORMATS_VECTORS_TEST_DATA_H_
#define CHUNKWISE_TESTS_UNIT_FORMATS_VECTORS_TEST_DATA_H_

#include <algorithm>
#include <map>
#include <memory>
#include <vector>

#include "formats/vectors/geometry.h"
#include "formats/vectors/writer.h"
#include "store/memory_store.h"

namespace chunkwise::formats::vectors::test {

// A link as original vertex numbers plus its attribute values, for multiset comparison.
using LinkKey = std::vector<double>;

// Maps each vertex of `read` to the vertex of `original` at the same position
// (test geometries have distinct positions); -1 when none matches.
inline std::vector<std::int64_t> MatchVertices(const Geometry& original, const Geometry& read) {
  std::map<Vec3f, std::int64_t> index;
  for (std::size_t v = 0; v < original.positions.size(); ++v)
    index[original.positions[v]] = static_cast<std::int64_t>(v);
  std::vector<std::int64_t> match;
  for (const Vec3f& p : read.positions) {
    const auto found = index.find(p);
    match.push_back(found == index.end() ? -1 : found->second);
  }
  return match;
}

// The links of `geometry` in original numbering (through `match`), with their
// attributes, sorted: equal iff topology, order within each link and attributes agree.
inline std::vector<LinkKey> LinkKeys(const Geometry& geometry,
                                     const std::vector<std::int64_t>& match) {
  // Attributes by name: a store lists them in name order, whatever order they were written in.
  std::vector<const LinkAttribute*> attributes;
  for (const LinkAttribute& attribute : geometry.link_attributes) attributes.push_back(&attribute);
  std::sort(attributes.begin(), attributes.end(),
            [](const LinkAttribute* a, const LinkAttribute* b) { return a->name < b->name; });
  std::vector<LinkKey> keys;
  const int width = geometry.link_width();
  for (std::size_t r = 0; r < geometry.num_links(); ++r) {
    LinkKey key;
    for (int e = 0; e < width; ++e) {
      key.push_back(static_cast<double>(match[geometry.links[r * width + e]]));
    }
    for (const LinkAttribute* attribute : attributes) {
      for (int c = 0; c < attribute->channels; ++c) {
        key.push_back(attribute->values[r * attribute->channels + c]);
      }
    }
    keys.push_back(key);
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

inline std::vector<LinkKey> LinkKeys(const Geometry& geometry) {
  std::vector<std::int64_t> identity(geometry.positions.size());
  for (std::size_t v = 0; v < identity.size(); ++v) identity[v] = static_cast<std::int64_t>(v);
  return LinkKeys(geometry, identity);
}

// A deterministic pseudo-random float in [lo, hi).
inline float Uniform(std::uint64_t& state, float lo, float hi) {
  state = state * 6364136223846793005ull + 1442695040888963407ull;
  return lo + (hi - lo) * static_cast<float>((state >> 40) & 0xFFFFFF) / 16777216.0f;
}

// `n` distinct points in [0, 40)^3 with object ids 0..3 and an attribute.
inline Geometry RandomPoints(std::size_t n, GeometryType type = GeometryType::kPoints) {
  Geometry geometry;
  geometry.type = type;
  std::uint64_t state = 12345;
  geometry.vertex_attributes.push_back({"intensity", {}});
  for (std::size_t v = 0; v < n; ++v) {
    geometry.positions.push_back(
        {Uniform(state, 0, 40), Uniform(state, 0, 40), Uniform(state, -20, 20)});
    geometry.object_ids.push_back(static_cast<std::int64_t>(v % 4));
    geometry.vertex_attributes[0].values.push_back(static_cast<float>(v) * 0.5f);
  }
  return geometry;
}

inline WriteOptions Options(double chunk = 10.0) {
  WriteOptions options;
  options.chunk_shape = {chunk, chunk, chunk};
  options.store_options.pool = std::make_shared<core::ThreadPool>(2);
  return options;
}

}  // namespace chunkwise::formats::vectors::test

#endif  // CHUNKWISE_TESTS_UNIT_FORMATS_VECTORS_TEST_DATA_H_
