#include "pipelines/zarr_to_precomputed.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>

#include "chunkwise/core/downsample.h"
#include "chunkwise/core/thread_pool.h"
#include "formats/precomputed/volume.h"
#include "formats/zarr/array.h"
#include "pipelines/precomputed/destination.h"

namespace chunkwise::pipelines {
namespace {

namespace pc = formats::precomputed;
using core::Index;

bool IsLabelType(core::DataType type) {
  return type.id() == core::DataTypeId::kUInt32 || type.id() == core::DataTypeId::kUInt64;
}

// Bits of a grid's Morton code dealt to preshift (up to 9), minishard (up to
// 6) and shard (the rest): shards of up to 2^15 chunks.
pc::ShardingSpec AutoSharding(const pc::GridCoord3& grid) {
  const int total = core::MortonBits::FromGrid(grid)->total_bits();
  pc::ShardingSpec spec;
  spec.preshift_bits = std::min(total, 9);
  spec.minishard_bits = std::min(total - spec.preshift_bits, 6);
  spec.shard_bits = total - spec.preshift_bits - spec.minishard_bits;
  spec.minishard_index_encoding = pc::ShardEncoding::kGzip;
  spec.data_encoding = pc::ShardEncoding::kGzip;
  return spec;
}

Result<pc::VolumeInfo> InfoFor(const formats::zarr::ArrayMetadata& metadata,
                               const ZarrToPrecomputedOptions& options) {
  const core::DataTypeId id = metadata.data_type.id();
  if (metadata.shape.size() != 3) {
    return Status::InvalidArgument("zarr to precomputed: the array has " +
                                   std::to_string(metadata.shape.size()) +
                                   " dimensions; precomputed volumes have 3 (z, y, x)");
  }
  if (id == core::DataTypeId::kBool || id == core::DataTypeId::kFloat16 ||
      id == core::DataTypeId::kComplex64 || id == core::DataTypeId::kComplex128) {
    return Status::InvalidArgument("zarr to precomputed: data type " +
                                   std::string(metadata.data_type.zarr_name()) +
                                   " has no precomputed form");
  }
  pc::VolumeInfo info;
  info.data_type = metadata.data_type;
  const bool labels = IsLabelType(metadata.data_type);
  info.type =
      options.type.value_or(labels ? pc::VolumeType::kSegmentation : pc::VolumeType::kImage);
  const pc::ChunkEncoding encoding =
      options.encoding.value_or(info.type == pc::VolumeType::kSegmentation && labels
                                    ? pc::ChunkEncoding::kCompressedSegmentation
                                    : pc::ChunkEncoding::kRaw);
  if (encoding == pc::ChunkEncoding::kCompressedSegmentation && !labels) {
    return Status::InvalidArgument(
        "zarr to precomputed: compressed_segmentation needs uint32 or "
        "uint64, not " +
        std::string(metadata.data_type.zarr_name()));
  }
  pc::GridCoord3 size{metadata.shape[2], metadata.shape[1], metadata.shape[0]};
  std::array<double, 3> resolution = options.resolution;
  for (int s = 0; s < std::max(1, options.num_scales); ++s) {
    pc::ScaleInfo scale;
    scale.key = std::string("s") + std::to_string(s);
    scale.size = size;
    scale.chunk_size = options.chunk_size;
    scale.resolution = resolution;
    scale.encoding = encoding;
    if (options.sharding.has_value()) {
      scale.sharding = options.sharding;
    } else if (options.auto_sharding) {
      scale.sharding = AutoSharding(scale.grid());
    }
    info.scales.push_back(scale);
    for (int d = 0; d < 3; ++d) {
      size[d] = std::max<Index>(1, (size[d] + 1) / 2);
      resolution[d] *= 2;
    }
  }
  return info;
}

class ScaleWriter {
 public:
  // `halve` makes a chunk of scale s > 0 from the 2×2×2 voxels below it in
  // scale s - 1, with the rule every chunkwise downsample follows (core/downsample.h).
  ScaleWriter(pc::Volume& volume, const formats::zarr::Array* source, core::ThreadPool& pool,
              core::ProgressReporter& progress, core::Downsampler halve)
      : volume_(volume),
        source_(source),
        pool_(pool),
        progress_(progress),
        halve_(std::move(halve)) {}

  Status Write(int scale, std::uint64_t& chunks) {
    const pc::ScaleInfo& info = volume_.scale(scale);
    const pc::GridCoord3 grid = info.grid();
    std::vector<pc::GridCoord3> cells;
    for (Index z = 0; z < grid[2]; ++z) {
      for (Index y = 0; y < grid[1]; ++y) {
        for (Index x = 0; x < grid[0]; ++x) cells.push_back({x, y, z});
      }
    }
    chunks = cells.size();
    if (!info.sharding.has_value()) {
      return pool_.ParallelFor(cells.size(), [&](std::size_t i) -> Status {
        CHUNKWISE_ASSIGN_OR_RETURN(const Bytes voxels, Voxels(scale, cells[i]));
        CHUNKWISE_RETURN_IF_ERROR(volume_.WriteChunk(scale, cells[i], voxels));
        progress_.Add(1);
        return Status::Ok();
      });
    }
    std::map<std::uint64_t, std::vector<pc::GridCoord3>> shards;
    for (const pc::GridCoord3& cell : cells) {
      shards[pc::LocateChunk(*info.sharding, info.ChunkId(cell)).shard].push_back(cell);
    }
    std::vector<const std::pair<const std::uint64_t, std::vector<pc::GridCoord3>>*> order;
    order.reserve(shards.size());
    for (const auto& entry : shards) order.push_back(&entry);
    return pool_.ParallelFor(order.size(), [&](std::size_t s) -> Status {
      const std::vector<pc::GridCoord3>& members = order[s]->second;
      std::vector<Bytes> encoded(members.size());
      CHUNKWISE_RETURN_IF_ERROR(pool_.ParallelFor(members.size(), [&](std::size_t i) -> Status {
        CHUNKWISE_ASSIGN_OR_RETURN(const Bytes voxels, Voxels(scale, members[i]));
        CHUNKWISE_ASSIGN_OR_RETURN(encoded[i], volume_.EncodeChunk(scale, members[i], voxels));
        progress_.Add(1);
        return Status::Ok();
      }));
      std::vector<pc::StoredChunk> stored(members.size());
      for (std::size_t i = 0; i < members.size(); ++i) stored[i] = {members[i], encoded[i]};
      return volume_.WriteShard(scale, order[s]->first, stored).status();
    });
  }

  std::uint64_t bytes_read() const { return bytes_read_; }

 private:
  // The voxels of `cell`: read from the array at scale 0, else halved from
  // the scale before.
  Result<Bytes> Voxels(int scale, const pc::GridCoord3& cell) {
    const pc::ScaleInfo& info = volume_.scale(scale);
    const pc::GridCoord3 extent = info.ChunkExtent(cell);
    std::vector<Index> start(3), stop(3);
    for (int d = 0; d < 3; ++d) {
      start[2 - d] = cell[d] * info.chunk_size[d];
      stop[2 - d] = start[2 - d] + extent[d];
    }
    if (scale == 0) {
      CHUNKWISE_ASSIGN_OR_RETURN(Bytes voxels, source_->Read(core::Region(start, stop)));
      std::lock_guard lock(mutex_);
      bytes_read_ += voxels.size();
      return voxels;
    }
    const pc::ScaleInfo& fine = volume_.scale(scale - 1);
    std::vector<Index> fine_start(3), fine_stop(3);
    for (int d = 0; d < 3; ++d) {
      fine_start[d] = 2 * start[d];
      fine_stop[d] = std::min(2 * stop[d], fine.size[2 - d]);
    }
    const core::Region region(fine_start, fine_stop);
    CHUNKWISE_ASSIGN_OR_RETURN(const Bytes fine_voxels, volume_.Read(scale - 1, region));
    // The voxels are [channel][z][y][x]; channels are kept apart (factor 1).
    const core::Shape fine_shape = region.shape();
    const core::Shape shape{volume_.info().num_channels, fine_shape[0], fine_shape[1],
                            fine_shape[2]};
    std::size_t elements = 1;
    for (const Index extent : halve_.OutputShape(shape))
      elements *= static_cast<std::size_t>(extent);
    Bytes voxels(elements * volume_.info().data_type.size());
    halve_.Reduce(fine_voxels, shape, voxels);
    return voxels;
  }

  pc::Volume& volume_;
  const formats::zarr::Array* source_;
  core::ThreadPool& pool_;
  core::ProgressReporter& progress_;
  const core::Downsampler halve_;
  std::mutex mutex_;
  std::uint64_t bytes_read_ = 0;
};

}  // namespace

Result<ZarrToPrecomputedSummary> ZarrToPrecomputed(std::shared_ptr<store::Store> source,
                                                   const std::string& source_prefix,
                                                   std::shared_ptr<store::Store> dest,
                                                   const std::string& dest_prefix,
                                                   const ZarrToPrecomputedOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  auto pool = std::make_shared<core::ThreadPool>(options.threads);
  CHUNKWISE_ASSIGN_OR_RETURN(
      const formats::zarr::Array array,
      formats::zarr::Array::Open(std::move(source), source_prefix, {.pool = pool}));
  CHUNKWISE_ASSIGN_OR_RETURN(pc::VolumeInfo info, InfoFor(array.metadata(), options));
  // Labels (segmentation) are halved by mode, images by mean: refused here,
  // before anything is written, where the type has no such reduction.
  CHUNKWISE_ASSIGN_OR_RETURN(core::Downsampler halve,
                             core::Downsampler::Create(info.type == pc::VolumeType::kSegmentation
                                                           ? core::DownsampleMethod::kMode
                                                           : core::DownsampleMethod::kMean,
                                                       info.data_type, {1, 2, 2, 2}));
  CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<pc::Volume> volume,
                             pc::Volume::Stage(dest, dest_prefix, std::move(info),
                                               {.pool = pool, .gzip_level = options.gzip_level}));
  CHUNKWISE_RETURN_IF_ERROR(detail::PrepareDestination(*volume, {.overwrite = options.overwrite}));
  std::uint64_t total = 0;
  for (const pc::ScaleInfo& scale : volume->info().scales) {
    const pc::GridCoord3 grid = scale.grid();
    total += static_cast<std::uint64_t>(grid[0] * grid[1] * grid[2]);
  }
  core::ProgressReporter progress({.label = "to-precomputed",
                                   .total_units = total,
                                   .unit = "chunks",
                                   .mode = options.progress});
  ScaleWriter writer(*volume, &array, *pool, progress, std::move(halve));
  ZarrToPrecomputedSummary summary;
  for (int s = 0; s < volume->num_scales(); ++s) {
    std::uint64_t chunks = 0;
    CHUNKWISE_RETURN_IF_ERROR(writer.Write(s, chunks));
    summary.chunks_per_scale.push_back(chunks);
  }
  CHUNKWISE_RETURN_IF_ERROR(volume->PublishInfo());
  progress.Finish();
  summary.bytes_read = writer.bytes_read();
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return summary;
}

std::string ZarrToPrecomputedSummary::Format() const {
  std::string text;
  std::uint64_t chunks = 0;
  for (std::size_t s = 0; s < chunks_per_scale.size(); ++s) {
    text += std::string("s") + std::to_string(s) + ": " + std::to_string(chunks_per_scale[s]) +
            " chunks\n";
    chunks += chunks_per_scale[s];
  }
  return text + "total: " + std::to_string(chunks) + " chunks from " +
         core::FormatQuantity(static_cast<double>(bytes_read), "B") + " in " +
         core::FormatDuration(seconds) + "\n";
}

}  // namespace chunkwise::pipelines
