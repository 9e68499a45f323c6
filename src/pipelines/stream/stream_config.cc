#include "chunkwise/pipelines/stream/stream_config.h"

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <thread>

#include "chunkwise/codec/codec_chain.h"
#include "chunkwise/codec/codec_shorthand.h"
#include "chunkwise/formats/zarr/array_layout.h"
#include "chunkwise/formats/zarr/sharding_codec.h"

namespace chunkwise::pipelines::stream {
namespace {

using core::Index;

// A batch of this many tiles or more keeps every compression thread busy
// while the pipeline's other stages run.
constexpr std::size_t kTilesPerThreadInBatch = 4;
// Batches stop growing once their uncompressed tiles reach this size.
constexpr std::uint64_t kBatchBytesTarget = std::uint64_t{256} << 20;

Status CheckDimensions(const std::vector<StreamDimension>& dims) {
  if (dims.empty())
    return Status::InvalidArgument("--shape: the array needs at least one dimension");
  for (std::size_t d = 0; d < dims.size(); ++d) {
    const std::string where = "dimension " + std::to_string(d);
    if (dims[d].size < 0 || (dims[d].size == 0 && d != 0)) {
      return Status::InvalidArgument(where +
                                     ": size must be positive (only dimension 0 may be 0, "
                                     "meaning unbounded)");
    }
    if (dims[d].tile_size <= 0) {
      return Status::InvalidArgument(where + ": the tile (--chunk) must be positive");
    }
    if (dims[d].tiles_per_shard <= 0) {
      return Status::InvalidArgument(where + ": --tiles-per-shard must be positive");
    }
  }
  return Status::Ok();
}

formats::zarr::ArrayLayout ZarrLayout(const StreamConfig& config) {
  formats::zarr::ArrayLayout layout;
  layout.data_type = config.data_type;
  layout.codec = config.codec;
  layout.index_location = config.index_location;
  layout.fill_value = config.fill_value;
  core::Shape shard_shape;
  bool named = false;
  for (const StreamDimension& dim : config.dimensions) {
    layout.shape.push_back(dim.size);
    layout.chunk_shape.push_back(dim.tile_size);
    shard_shape.push_back(dim.tile_size * dim.tiles_per_shard);
    layout.dimension_names.push_back(dim.name);
    named = named || !dim.name.empty();
  }
  layout.shape[0] = 0;  // Published as it grows.
  layout.shard_shape = shard_shape;
  if (!named) layout.dimension_names.clear();
  return layout;
}

// The largest divisor of tiles_per_shard[0] whose batch stays within the
// targets, so that batches never straddle a shard epoch.
std::size_t ChooseEpochsPerBatch(const core::ShardLayout& layout, std::size_t tile_bytes,
                                 std::size_t threads) {
  const auto tps0 = static_cast<std::size_t>(layout.tiles_per_shard()[0]);
  const auto tiles = static_cast<std::size_t>(layout.epoch_tile_count());
  std::size_t best = 1;
  for (std::size_t b = 1; b <= tps0; ++b) {
    if (tps0 % b != 0) continue;
    if (b > 1 && static_cast<std::uint64_t>(b) * tiles * tile_bytes > kBatchBytesTarget) break;
    best = b;
    if (b * tiles >= kTilesPerThreadInBatch * threads) break;
  }
  return best;
}

MemoryEstimate Estimate(const core::ShardLayout& layout, std::size_t tile_bytes,
                        std::size_t max_encoded, std::size_t epochs_per_batch) {
  const std::uint64_t batch_tiles =
      static_cast<std::uint64_t>(epochs_per_batch) * layout.epoch_tile_count();
  MemoryEstimate memory;
  // Two batches of tiles (one filling, one compressing) and the fill tile.
  memory.staging = (2 * batch_tiles + 1) * static_cast<std::uint64_t>(tile_bytes);
  memory.compressed = batch_tiles * max_encoded;
  memory.aggregated =
      2 * batch_tiles * max_encoded + 2 * (static_cast<std::uint64_t>(epochs_per_batch) *
                                           (layout.padded_epoch_tile_count() + 1) * 9);
  memory.shard_indexes = static_cast<std::uint64_t>(layout.active_shard_count()) *
                         formats::zarr::ShardIndex::EncodedSize(layout.tiles_per_shard_total()) * 2;
  return memory;
}

std::string Mebibytes(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f MiB", static_cast<double>(bytes) / (1 << 20));
  return text;
}

}  // namespace

Result<StreamPlan> PlanStream(const StreamConfig& config) {
  CHUNKWISE_RETURN_IF_ERROR(CheckDimensions(config.dimensions));
  std::vector<core::DimensionSpec> dims;
  for (const StreamDimension& dim : config.dimensions) {
    dims.push_back({dim.size, dim.tile_size, dim.tiles_per_shard});
  }
  CHUNKWISE_ASSIGN_OR_RETURN(core::ShardLayout layout, core::ShardLayout::Create(dims));
  CHUNKWISE_ASSIGN_OR_RETURN(formats::zarr::ArrayMetadata metadata,
                             formats::zarr::BuildArrayMetadata(ZarrLayout(config)));
  // The shorthand may also choose an encoder ("blosc:lz4det"), which the
  // metadata does not record.
  CHUNKWISE_ASSIGN_OR_RETURN(
      codec::CodecShorthand shorthand,
      codec::ParseCodecShorthandWithEncoders(config.codec, config.data_type.size()));
  const codec::CodecRegistry registry = formats::zarr::ZarrCodecRegistry(nullptr, shorthand.build);
  CHUNKWISE_ASSIGN_OR_RETURN(
      codec::CodecChain chain,
      codec::CodecChain::FromJson(metadata.codecs[0]["configuration"]["codecs"], registry));
  StreamPlan plan{std::move(layout), std::move(metadata), {}, nullptr, {}, 0, 0, 0, 1, 1, {}};
  plan.tile_spec = {config.data_type, plan.layout.tile_shape(), plan.metadata.fill_value};
  plan.tile_codecs = std::make_shared<const codec::CodecChain>(std::move(chain));
  plan.codec_build = shorthand.build;
  plan.tile_bytes = plan.tile_spec.num_bytes();
  plan.max_encoded_tile_bytes = plan.tile_codecs->MaxEncodedSize(plan.tile_spec);
  plan.frame_bytes = config.data_type.size();
  for (std::size_t d = 1; d < config.dimensions.size(); ++d) {
    plan.frame_bytes *= static_cast<std::size_t>(config.dimensions[d].size);
  }
  plan.threads = config.threads != 0
                     ? config.threads
                     : std::max<std::size_t>(1, std::thread::hardware_concurrency());
  plan.epochs_per_batch = config.epochs_per_batch;
  const auto tps0 = static_cast<std::size_t>(plan.layout.tiles_per_shard()[0]);
  if (plan.epochs_per_batch == 0) {
    plan.epochs_per_batch = ChooseEpochsPerBatch(plan.layout, plan.tile_bytes, plan.threads);
  } else if (tps0 % plan.epochs_per_batch != 0) {
    return Status::InvalidArgument("epochs per batch (" + std::to_string(plan.epochs_per_batch) +
                                   ") must divide tiles per shard along dimension 0 (" +
                                   std::to_string(tps0) + ")");
  }
  plan.memory =
      Estimate(plan.layout, plan.tile_bytes, plan.max_encoded_tile_bytes, plan.epochs_per_batch);
  if (config.max_memory != 0 && plan.memory.total() > config.max_memory) {
    return Status::InvalidArgument(
        "the writer needs up to " + Mebibytes(plan.memory.total()) + ", over --max-memory " +
        Mebibytes(config.max_memory) +
        "; use smaller tiles or fewer tiles per shard in dimensions > 0");
  }
  return plan;
}

Result<MemoryEstimate> EstimateMemory(const StreamConfig& config) {
  StreamConfig unbounded = config;
  unbounded.max_memory = 0;
  CHUNKWISE_ASSIGN_OR_RETURN(StreamPlan plan, PlanStream(unbounded));
  return plan.memory;
}

std::string DescribePlan(const StreamPlan& plan) {
  const core::ShardLayout& layout = plan.layout;
  std::ostringstream text;
  core::Shape frame;
  for (std::size_t d = 1; d < layout.dims().size(); ++d) frame.push_back(layout.dims()[d].size);
  text << "array      " << (layout.unbounded() ? "unbounded" : "bounded") << " dimension 0 ("
       << layout.dims()[0].size << "), frame [" << core::FormatShape(frame) << "] "
       << plan.metadata.data_type.zarr_name() << " (" << plan.frame_bytes << " bytes)\n";
  text << "tile       [" << core::FormatShape(layout.tile_shape()) << "] = " << plan.tile_bytes
       << " bytes, codec bound " << plan.max_encoded_tile_bytes << "\n";
  text << "shard      [" << core::FormatShape(plan.metadata.chunk_shape) << "], "
       << layout.tiles_per_shard_total() << " tiles, index "
       << formats::zarr::ShardIndex::EncodedSize(layout.tiles_per_shard_total()) << " bytes\n";
  text << "epoch      " << layout.epoch_tile_count() << " tiles (" << layout.active_shard_count()
       << " shards open at once), " << plan.epochs_per_batch << " epoch(s) per batch, "
       << plan.threads << " thread(s)\n";
  const MemoryEstimate& m = plan.memory;
  text << "memory     " << Mebibytes(m.total()) << " at most: staging " << Mebibytes(m.staging)
       << ", compressed " << Mebibytes(m.compressed) << ", aggregated " << Mebibytes(m.aggregated)
       << ", indexes " << Mebibytes(m.shard_indexes);
  return text.str();
}

}  // namespace chunkwise::pipelines::stream
