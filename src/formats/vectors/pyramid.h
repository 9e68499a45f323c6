// The multiresolution pyramid: coarser levels and the cross-level links.
//
// Spec: docs/formats/vectors.md, "Pyramid". Level n
// (n >= 1) merges the vertices of level n − 1 that share a bin of
// base_bin_shape · 2^n and an object id into one vertex at their centroid;
// links are remapped to the merged vertices, and links that collapse (two
// endpoints merged) or repeat are dropped (an undirected graph's [a, b] and
// [b, a] are one). Every vertex of level n − 1 gets one link to its parent:
// in links/+1/<chunk_key> when the parent's chunk key equals its own, else in
// cross_chunk_links/+1/. With explicit storage the same links are mirrored
// at level n under −1 with the roles swapped; with implicit storage readers
// derive them (geometry_reader.h ReadChildren). Attributes are kept at level
// 0 only. All levels share the root chunk_shape.
#ifndef CHUNKWISE_FORMATS_VECTORS_PYRAMID_H_
#define CHUNKWISE_FORMATS_VECTORS_PYRAMID_H_

#include <vector>

#include "chunkwise/core/progress.h"
#include "formats/vectors/geometry.h"
#include "formats/vectors/store_metadata.h"
#include "formats/vectors/vector_store.h"

namespace chunkwise::formats::vectors {

struct PyramidOptions {
  int levels = 2;  // Levels in the store afterwards, level 0 included (>= 2).
  CrossLevelStorage storage = CrossLevelStorage::kExplicit;
  core::ProgressReporter* progress = nullptr;  // Counts levels built; may be null.
};

struct PyramidLevelSummary {
  int level = 0;
  std::uint64_t vertices = 0;
  std::uint64_t links = 0;
  std::uint64_t parent_links_in_chunk = 0;  // links/+1 rows at level − 1.
  std::uint64_t parent_links_across = 0;    // cross_chunk_links/+1 records at level − 1.
};

// The coarse geometry of `fine` for bins of `bin_shape`, and each fine
// vertex's parent (index into the coarse vertices).
struct Coarsening {
  Geometry coarse;
  std::vector<std::int64_t> parent;
};
Coarsening Coarsen(const Geometry& fine, const Vec3& bin_shape);

// Replaces any existing levels >= 1 (and level 0's cross-level links) with
// `options.levels - 1` coarser levels and updates the root metadata
// (num_levels, cross_level_storage, capability multiscale_links).
// InvalidArgument for levels < 2.
Result<std::vector<PyramidLevelSummary>> BuildPyramid(VectorStore& store,
                                                      const PyramidOptions& options);

}  // namespace chunkwise::formats::vectors

#endif  // CHUNKWISE_FORMATS_VECTORS_PYRAMID_H_
