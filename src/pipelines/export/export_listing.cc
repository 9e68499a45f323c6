#include "pipelines/export_listing.h"

#include <cstdio>
#include <mutex>

#include "chunkwise/core/thread_pool.h"
#include "pipelines/export_spec.h"

namespace chunkwise::pipelines {
namespace {

// Hashed shards beyond this many bits are too many to probe one by one.
constexpr int kMaxProbedShardBits = 16;
// HEAD requests in flight while probing.
constexpr std::size_t kProbes = 16;

std::string HexStem(std::uint64_t shard, int shard_bits) {
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%llx", static_cast<unsigned long long>(shard));
  std::string stem(hex);
  const std::size_t width = static_cast<std::size_t>((shard_bits + 3) / 4);
  if (stem.size() < width) stem.insert(0, width - stem.size(), '0');
  return stem;
}

// Every stem a shard of `scale` can have.
Result<std::vector<std::string>> CandidateStems(const ExportScaleSpec& scale) {
  std::vector<std::string> stems;
  if (scale.shards_are_boxes) {
    const core::GridCoord3& grid = scale.bits.grid;
    for (core::Index z = 0; z < grid[2]; z += scale.shard_chunks[2]) {
      for (core::Index y = 0; y < grid[1]; y += scale.shard_chunks[1]) {
        for (core::Index x = 0; x < grid[0]; x += scale.shard_chunks[0]) {
          stems.push_back(scale.ShardStem({x, y, z}));
        }
      }
    }
    return stems;
  }
  if (scale.sharding.shard_bits > kMaxProbedShardBits) {
    return Status::Unsupported("scale " + scale.key + " has " +
                               std::to_string(scale.sharding.shard_bits) +
                               " shard bits: too many shards to probe for a listing");
  }
  for (std::uint64_t shard = 0; shard < (std::uint64_t{1} << scale.sharding.shard_bits); ++shard) {
    stems.push_back(HexStem(shard, scale.sharding.shard_bits));
  }
  return stems;
}

}  // namespace

Result<std::vector<std::string>> ExportKeyLister::ListKeys(const store::Store& store) const {
  const std::string info_key = root_ + "info";
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> info, store.Get(info_key));
  if (!info) return Status::NotFound(store.Describe(info_key) + " is missing: not an export");
  const std::string_view text(reinterpret_cast<const char*>(info->data()), info->size());
  CHUNKWISE_ASSIGN_OR_RETURN(ExportSpec spec, ParseExportSpec(text, store.Describe(info_key)));
  std::vector<std::string> candidates = {root_ + "export.log"};
  for (const ExportScaleSpec& scale : spec.scales) {
    CHUNKWISE_ASSIGN_OR_RETURN(std::vector<std::string> stems, CandidateStems(scale));
    for (const std::string& stem : stems)
      candidates.push_back(root_ + scale.key + "/" + stem + ".csv");
  }
  std::vector<char> exists(candidates.size(), 0);
  core::ThreadPool pool(kProbes);
  CHUNKWISE_RETURN_IF_ERROR(pool.ParallelFor(candidates.size(), [&](std::size_t i) -> Status {
    CHUNKWISE_ASSIGN_OR_RETURN(std::optional<std::uint64_t> size, store.Size(candidates[i]));
    exists[i] = size.has_value();
    return Status::Ok();
  }));
  std::vector<std::string> keys = {info_key};
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (!exists[i]) continue;
    keys.push_back(candidates[i]);
    if (candidates[i].ends_with(".csv")) {
      keys.push_back(candidates[i].substr(0, candidates[i].size() - 4) + ".arrow");
    }
  }
  return keys;
}

}  // namespace chunkwise::pipelines
