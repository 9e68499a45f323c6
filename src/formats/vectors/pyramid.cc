#include "formats/vectors/pyramid.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "formats/vectors/chunk_placement.h"
#include "formats/vectors/geometry_reader.h"
#include "formats/vectors/layout.h"
#include "formats/vectors/level_reader.h"
#include "formats/vectors/link_writer.h"
#include "formats/vectors/writer.h"

namespace chunkwise::formats::vectors {
namespace {

// A metanode: one bin of one object.
using BinKey = std::pair<ChunkCoord, std::int64_t>;

std::vector<std::int64_t> RemapLinks(const Geometry& fine,
                                     const std::vector<std::int64_t>& parent) {
  const int width = fine.link_width();
  std::vector<std::int64_t> links;
  std::set<std::vector<std::int64_t>> seen;
  std::vector<std::int64_t> record(width);
  for (std::size_t r = 0; r < fine.num_links(); ++r) {
    for (int e = 0; e < width; ++e) record[e] = parent[fine.links[r * width + e]];
    std::vector<std::int64_t> distinct = record;
    std::sort(distinct.begin(), distinct.end());
    if (std::adjacent_find(distinct.begin(), distinct.end()) != distinct.end())
      continue;  // Collapsed.
    // Undirected graphs: one edge per pair. Otherwise direction and winding stay distinct.
    const bool inserted = fine.type == GeometryType::kGraph ? seen.insert(distinct).second
                                                            : seen.insert(record).second;
    if (inserted) links.insert(links.end(), record.begin(), record.end());
  }
  return links;
}

LinkRecords ParentRecords(const std::vector<Endpoint>& fine_identity, const ChunkPlacement& coarse,
                          const std::vector<std::int64_t>& parent, bool mirror) {
  LinkRecords records;
  records.link_width = 2;
  records.endpoints.reserve(2 * parent.size());
  for (std::size_t v = 0; v < parent.size(); ++v) {
    const Endpoint up = coarse.EndpointOf(parent[v]);
    records.endpoints.push_back(mirror ? up : fine_identity[v]);
    records.endpoints.push_back(mirror ? fine_identity[v] : up);
  }
  return records;
}

// Erases levels 1..`levels` − 1 (the levels listed before, or the levels a
// failed build may have left unlisted beyond them) and level 0's cross-level links.
Status EraseCrossLevelData(const VectorStore& store, int levels) {
  for (int level = 1; level < levels; ++level) {
    CHUNKWISE_RETURN_IF_ERROR(store.EraseAll(layout::LevelPath(level)));
  }
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<int> deltas, ListLinkDeltas(store, 0));
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<int> cross_deltas, ListCrossLinkDeltas(store, 0));
  for (const int delta : deltas) {
    if (delta != 0) CHUNKWISE_RETURN_IF_ERROR(store.EraseAll(layout::LinksPath(0, delta)));
  }
  for (const int delta : cross_deltas) {
    if (delta != 0)
      CHUNKWISE_RETURN_IF_ERROR(store.EraseAll(layout::CrossChunkLinksPath(0, delta)));
  }
  return Status::Ok();
}

Result<PyramidLevelSummary> BuildLevel(VectorStore& store, int level,
                                       const PyramidOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(LevelGeometry fine, ReadGeometry(store, ReadQuery{level - 1, {}, {}}));
  Vec3 bin_shape = store.metadata().base_bin_shape;
  for (double& extent : bin_shape) extent = std::ldexp(extent, level);
  Coarsening coarsening = Coarsen(fine.geometry, bin_shape);
  const ChunkPlacement placement =
      PlaceVertices(coarsening.coarse.positions, store.metadata().chunk_shape);
  LevelMetadata extras;
  extras.bin_shape = bin_shape;
  extras.parent_level = level - 1;
  CHUNKWISE_ASSIGN_OR_RETURN(WriteSummary written,
                             WriteLevel(store, level, coarsening.coarse, placement, extras));
  CHUNKWISE_ASSIGN_OR_RETURN(
      LinkWriteSummary up,
      WriteLinkRecords(store, level - 1, +1,
                       ParentRecords(fine.identity, placement, coarsening.parent, false)));
  if (options.storage == CrossLevelStorage::kExplicit) {
    CHUNKWISE_RETURN_IF_ERROR(
        WriteLinkRecords(store, level, -1,
                         ParentRecords(fine.identity, placement, coarsening.parent, true))
            .status());
  }
  return PyramidLevelSummary{level, written.vertices,
                             written.links.chunk_links + written.links.cross_chunk_links,
                             up.chunk_links, up.cross_chunk_links};
}

}  // namespace

Coarsening Coarsen(const Geometry& fine, const Vec3& bin_shape) {
  Coarsening result;
  result.coarse.type = fine.type;
  std::map<BinKey, std::int64_t> metanode;
  std::vector<std::array<double, 3>> sums;
  std::vector<std::int64_t> counts;
  result.parent.resize(fine.positions.size());
  for (std::size_t v = 0; v < fine.positions.size(); ++v) {
    const std::int64_t object = fine.object_ids.empty() ? 0 : fine.object_ids[v];
    const BinKey key{ChunkOf(fine.positions[v], bin_shape), object};
    auto [it, inserted] = metanode.try_emplace(key, static_cast<std::int64_t>(sums.size()));
    if (inserted) {
      sums.push_back({0, 0, 0});
      counts.push_back(0);
      if (!fine.object_ids.empty()) result.coarse.object_ids.push_back(object);
    }
    for (int d = 0; d < 3; ++d) sums[it->second][d] += fine.positions[v][d];
    ++counts[it->second];
    result.parent[v] = it->second;
  }
  result.coarse.positions.resize(sums.size());
  for (std::size_t m = 0; m < sums.size(); ++m) {
    for (int d = 0; d < 3; ++d) {
      result.coarse.positions[m][d] =
          static_cast<float>(sums[m][d] / static_cast<double>(counts[m]));
    }
  }
  if (fine.link_width() > 0) result.coarse.links = RemapLinks(fine, result.parent);
  return result;
}

Result<std::vector<PyramidLevelSummary>> BuildPyramid(VectorStore& store,
                                                      const PyramidOptions& options) {
  if (options.levels < 2 || options.levels > 30) {
    return Status::InvalidArgument("a pyramid has 2..30 levels (level 0 included), not " +
                                   std::to_string(options.levels))
        .WithField("levels");
  }
  if (store.metadata().layout != LayoutVersion::k0_8) {
    return Status::Unsupported(store.Describe("zarr.json") + ": pyramids are built in layout " +
                               "0.8 only; this store is zarr-vectors " + store.metadata().version);
  }
  // The root lists only whole levels at every moment: first level 0 alone,
  // then each new level once its vertices and links are all stored. A build
  // that stops part-way leaves a smaller pyramid a reader can trust.
  const int listed_before = store.metadata().num_levels;
  RootMetadata metadata = store.metadata();
  metadata.num_levels = 1;
  metadata.cross_level_storage = options.storage;
  if (!metadata.HasCapability(layout::kCapabilityMultiscaleLinks)) {
    metadata.capabilities.emplace_back(layout::kCapabilityMultiscaleLinks);
  }
  CHUNKWISE_RETURN_IF_ERROR(store.SetMetadata(metadata));
  CHUNKWISE_RETURN_IF_ERROR(EraseCrossLevelData(store, std::max(listed_before, options.levels)));
  std::vector<PyramidLevelSummary> summaries;
  for (int level = 1; level < options.levels; ++level) {
    CHUNKWISE_ASSIGN_OR_RETURN(PyramidLevelSummary summary, BuildLevel(store, level, options));
    metadata.num_levels = level + 1;
    CHUNKWISE_RETURN_IF_ERROR(store.SetMetadata(metadata));
    summaries.push_back(summary);
    if (options.progress != nullptr) options.progress->Add(1);
  }
  return summaries;
}

}  // namespace chunkwise::formats::vectors
