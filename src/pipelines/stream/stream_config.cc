#include "pipelines/stream/stream_config.h"

#include <algorithm>
#include <sstream>
#include <thread>

#include "chunkwise/core/progress.h"
#include "codec/codec_chain.h"
#include "codec/codec_shorthand.h"
#include "cuda/blosc_lz4_scratch.h"
#include "formats/zarr/array_layout.h"
#include "formats/zarr/sharding_codec.h"
#include "pipelines/stream/backend_choice.h"
#include "pipelines/stream/pyramid_plan.h"

namespace chunkwise::pipelines::stream {
namespace {

using core::Index;

// A batch of this many tiles or more keeps every compression thread busy
// while the pipeline's other stages run.
constexpr std::size_t kTilesPerThreadInBatch = 4;
// Batches stop growing once their uncompressed tiles reach this size.
constexpr std::uint64_t kBatchBytesTarget = std::uint64_t{256} << 20;
// The GPU wants a thousand tiles or more per launch (the original design's
// figure); as "threads" for ChooseEpochsPerBatch's rule of
// kTilesPerThreadInBatch per thread.
constexpr std::size_t kGpuBatchThreads = 256;

Status CheckDimensions(const std::vector<StreamDimension>& dims) {
  if (dims.empty())
    return Status::InvalidArgument("the array needs at least one dimension").WithField("shape");
  for (std::size_t d = 0; d < dims.size(); ++d) {
    const std::string where = "dimension " + std::to_string(d);
    if (dims[d].size < 0 || (dims[d].size == 0 && d != 0)) {
      return Status::InvalidArgument(where +
                                     ": size must be positive (only dimension 0 may be 0, "
                                     "meaning unbounded)")
          .WithField("shape");
    }
    if (dims[d].tile_size <= 0) {
      return Status::InvalidArgument(where + ": the tile (chunk) size must be positive")
          .WithField("tile_size");
    }
    if (dims[d].tiles_per_shard <= 0) {
      return Status::InvalidArgument(where + ": tiles per shard must be positive")
          .WithField("tiles_per_shard");
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
    // An unnamed dimension among named ones is null, as zarr v3 spells it.
    layout.dimension_names.push_back(dim.name.empty() ? std::nullopt
                                                      : std::optional<std::string>(dim.name));
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

// The offsets and flags of one aggregated batch: M' + 1 offsets and M' flags per epoch.
std::uint64_t AggregatedIndexBytes(const StreamPlan& plan) {
  const auto positions = static_cast<std::uint64_t>(plan.layout.padded_epoch_tile_count());
  return plan.epochs_per_batch * ((positions + 1) * 8 + positions);
}

MemoryEstimate Estimate(const StreamPlan& plan) {
  const std::uint64_t batch_tiles = BatchTiles(plan);
  const std::uint64_t batch_input = plan.epochs_per_batch *
                                    static_cast<std::uint64_t>(plan.layout.tile_shape()[0]) *
                                    plan.frame_bytes;
  MemoryEstimate memory;
  memory.shard_indexes =
      static_cast<std::uint64_t>(plan.layout.active_shard_count()) *
      formats::zarr::ShardIndex::EncodedSize(plan.layout.tiles_per_shard_total()) * 2;
  memory.aggregated = kStreamBatchesPerStage * AggregatedIndexBytes(plan);
  if (plan.backend == StreamBackendKind::kCuda) {
    memory.pinned =
        kStreamBatchesPerStage * (batch_input + batch_tiles * plan.max_encoded_tile_bytes);
    memory.device = PlanCudaBuffers(plan).total();
    return memory;
  }
  // Two batches of tiles (one filling, one compressing) and the fill tile.
  memory.staging =
      (kStreamBatchesPerStage * batch_tiles + 1) * static_cast<std::uint64_t>(plan.tile_bytes);
  // Two buffers of compressed slots at the codec's bound, one compressing and
  // one being written: the sink sends each tile from its slot (cpu_backend.cc),
  // so the batch in `aggregated` is only its offsets, flags and the slots'
  // places (fewer bytes than the second batch of offsets counted above).
  memory.compressed = kStreamBatchesPerStage * batch_tiles * plan.max_encoded_tile_bytes;
  return memory;
}

Status CheckMemory(const StreamConfig& config, const StreamPlan& plan) {
  if (config.max_memory == 0 || plan.memory.total() <= config.max_memory) return Status::Ok();
  return Status::ResourceExhausted(
             "the writer needs up to " + core::FormatMebibytes(plan.memory.total()) +
             ", over the memory limit of " + core::FormatMebibytes(config.max_memory) +
             "; use smaller tiles or fewer tiles per shard in dimensions > 0")
      .WithField("max_memory");
}

// One array: `config` without levels.
Result<StreamPlan> PlanArray(const StreamConfig& config) {
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
  const codec::CodecRegistry registry = formats::zarr::ZarrCodecRegistry(shorthand.build);
  CHUNKWISE_ASSIGN_OR_RETURN(
      codec::CodecChain chain,
      codec::CodecChain::FromJson(metadata.codecs[0]["configuration"]["codecs"], registry));
  StreamPlan plan{
      std::move(layout), std::move(metadata), {}, nullptr, {}, 0, 0, 0, 1, 1, {}, {}, {}, nullptr};
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
  plan.backend = config.backend;
  if (plan.backend == StreamBackendKind::kCuda) {
    std::string why;
    CHUNKWISE_ASSIGN_OR_RETURN(std::optional<GpuTileCodec> gpu,
                               GpuTileCodecFor(config.codec, config.data_type, &why));
    if (!gpu) return Status::InvalidArgument("the CUDA backend cannot write this array: " + why);
    plan.gpu_codec = *gpu;
  }
  plan.epochs_per_batch = config.epochs_per_batch;
  const auto tps0 = static_cast<std::size_t>(plan.layout.tiles_per_shard()[0]);
  if (plan.epochs_per_batch == 0) {
    plan.epochs_per_batch = ChooseEpochsPerBatch(
        plan.layout, plan.tile_bytes,
        plan.backend == StreamBackendKind::kCuda ? kGpuBatchThreads : plan.threads);
  } else if (tps0 % plan.epochs_per_batch != 0) {
    return Status::InvalidArgument("epochs per batch (" + std::to_string(plan.epochs_per_batch) +
                                   ") must divide tiles per shard along dimension 0 (" +
                                   std::to_string(tps0) + ")");
  }
  plan.memory = Estimate(plan);
  return plan;
}

}  // namespace

Result<StreamPlan> PlanStream(const StreamConfig& config) {
  if (!config.multiscale) {
    CHUNKWISE_ASSIGN_OR_RETURN(StreamPlan plan, PlanArray(config));
    CHUNKWISE_RETURN_IF_ERROR(CheckMemory(config, plan));
    return plan;
  }
  CHUNKWISE_ASSIGN_OR_RETURN(PyramidPlan pyramid, PlanPyramid(config));
  StreamPlan plan = pyramid.levels[0];
  plan.memory.level_slabs = pyramid.slab_bytes;
  for (std::size_t k = 1; k < pyramid.levels.size(); ++k) {
    plan.memory.levels += pyramid.levels[k].memory.total();
    plan.memory.device += pyramid.levels[k].memory.device;
  }
  plan.pyramid = std::make_shared<const PyramidPlan>(std::move(pyramid));
  CHUNKWISE_RETURN_IF_ERROR(CheckMemory(config, plan));
  return plan;
}

Result<StreamPlan> PlanStreamArray(const StreamConfig& config) {
  StreamConfig array = config;
  array.multiscale.reset();
  array.max_memory = 0;
  return PlanArray(array);
}

std::uint64_t BatchInputBytes(const StreamPlan& plan) {
  return plan.epochs_per_batch * static_cast<std::uint64_t>(plan.layout.tile_shape()[0]) *
         plan.frame_bytes;
}

std::uint64_t BatchTiles(const StreamPlan& plan) {
  return static_cast<std::uint64_t>(plan.epochs_per_batch) * plan.layout.epoch_tile_count();
}

CudaBufferSizes PlanCudaBuffers(const StreamPlan& plan) {
  const std::uint64_t batch_tiles = BatchTiles(plan);
  const auto positions = static_cast<std::uint64_t>(plan.layout.padded_epoch_tile_count());
  const auto epoch_tiles = static_cast<std::uint64_t>(plan.layout.epoch_tile_count());
  CudaBufferSizes sizes;
  sizes.staging = BatchInputBytes(plan);
  sizes.tiles = batch_tiles * plan.tile_bytes;
  sizes.compressed = plan.gpu_codec.blosc_lz4 ? batch_tiles * plan.max_encoded_tile_bytes : 0;
  sizes.aggregated = batch_tiles * plan.max_encoded_tile_bytes;
  sizes.tile_sizes = batch_tiles * (8 + 1);
  sizes.offsets = plan.epochs_per_batch * (positions + 1) * 8 * 2 + AggregatedIndexBytes(plan);
  std::uint64_t rows = 1;
  for (int d = 1; d + 1 < plan.layout.rank(); ++d) {
    rows *= static_cast<std::uint64_t>(plan.layout.dims()[static_cast<std::size_t>(d)].size);
  }
  // CUB's scan needs a little temporary memory; a MiB per million items is ample.
  const std::uint64_t scan_scratch =
      (std::uint64_t{1} << 20) + plan.epochs_per_batch * (positions + 1);
  sizes.shared = rows * 8 + epoch_tiles * 8 + plan.tile_bytes + scan_scratch;
  if (plan.gpu_codec.blosc_lz4) {
    sizes.shared += cuda::GpuBloscLz4ScratchBytes(plan.tile_bytes, batch_tiles,
                                                  plan.gpu_codec.typesize, plan.gpu_codec.shuffle);
  }
  return sizes;
}

Result<MemoryEstimate> EstimateMemory(const StreamConfig& config) {
  StreamConfig unbounded = config;
  unbounded.max_memory = 0;
  CHUNKWISE_ASSIGN_OR_RETURN(StreamPlan plan, PlanStream(unbounded));
  return plan.memory;
}

namespace {

void DescribeLevels(const PyramidPlan& pyramid, std::ostringstream& text) {
  text << "\nmultiscale OME-Zarr 0.5 group, " << core::DownsampleMethodName(pyramid.method)
       << " over windows of [" << core::FormatShape(pyramid.factors) << "]";
  for (std::size_t k = 0; k < pyramid.levels.size(); ++k) {
    const StreamPlan& level = pyramid.levels[k];
    core::Shape shape;
    for (const core::DimensionSpec& dim : level.layout.dims()) shape.push_back(dim.size);
    text << "\nlevel " << LevelPath(k) << "    [" << core::FormatShape(shape) << "], tile ["
         << core::FormatShape(level.layout.tile_shape()) << "], shard ["
         << core::FormatShape(level.metadata.chunk_shape) << "], "
         << core::FormatMebibytes(level.memory.total());
  }
}

}  // namespace

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
       << plan.threads << " thread(s), backend "
       << (plan.backend == StreamBackendKind::kCuda ? "cuda" : "cpu") << "\n";
  const MemoryEstimate& m = plan.memory;
  text << "memory     " << core::FormatMebibytes(m.total()) << " at most: staging "
       << core::FormatMebibytes(m.staging) << ", compressed " << core::FormatMebibytes(m.compressed)
       << ", aggregated " << core::FormatMebibytes(m.aggregated) << ", indexes "
       << core::FormatMebibytes(m.shard_indexes);
  if (plan.pyramid != nullptr) {
    text << ", level slabs " << core::FormatMebibytes(m.level_slabs) << ", levels 1.."
         << plan.pyramid->levels.size() - 1 << " " << core::FormatMebibytes(m.levels);
  }
  if (plan.backend == StreamBackendKind::kCuda) {
    text << ", page-locked " << core::FormatMebibytes(m.pinned) << "; GPU "
         << core::FormatMebibytes(m.device);
  }
  if (plan.pyramid != nullptr) DescribeLevels(*plan.pyramid, text);
  return text.str();
}

}  // namespace chunkwise::pipelines::stream
