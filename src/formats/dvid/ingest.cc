#include "formats/dvid/ingest.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "chunkwise/core/thread_pool.h"
#include "formats/dvid/downsample.h"

namespace chunkwise::formats::dvid {
namespace {

struct VolumeView {
  std::span<const std::uint64_t> voxels;
  VoxelBox box;  // Where the volume sits.
};

struct BlockOutcome {
  std::atomic<std::uint64_t> written{0};
  std::atomic<std::uint64_t> deleted{0};
  std::atomic<std::uint64_t> skipped{0};
};

// Copies the volume's part of the block at `coord` into `block`; true if the
// volume covers the whole block.
bool CopyVolumeIntoBlock(const VolumeView& volume, const BlockCoord& coord,
                         std::span<std::uint64_t> block) {
  const std::array<std::int64_t, 3> origin{std::int64_t{coord.z} * kBlockEdge,
                                           std::int64_t{coord.y} * kBlockEdge,
                                           std::int64_t{coord.x} * kBlockEdge};
  std::array<std::int64_t, 3> lo{}, hi{};
  bool full = true;
  for (int d = 0; d < 3; ++d) {
    lo[d] = std::max(origin[d], volume.box.offset[d]);
    hi[d] = std::min(origin[d] + kBlockEdge, volume.box.offset[d] + volume.box.shape[d]);
    full = full && lo[d] == origin[d] && hi[d] == origin[d] + kBlockEdge;
  }
  const std::array<std::int64_t, 3>& shape = volume.box.shape;
  const std::size_t run = static_cast<std::size_t>(hi[2] - lo[2]) * sizeof(std::uint64_t);
  for (std::int64_t z = lo[0]; z < hi[0]; ++z) {
    for (std::int64_t y = lo[1]; y < hi[1]; ++y) {
      const std::int64_t to =
          ((z - origin[0]) * kBlockEdge + (y - origin[1])) * kBlockEdge + (lo[2] - origin[2]);
      const std::int64_t from =
          ((z - volume.box.offset[0]) * shape[1] + (y - volume.box.offset[1])) * shape[2] +
          (lo[2] - volume.box.offset[2]);
      std::memcpy(block.data() + to, volume.voxels.data() + from, run);
    }
  }
  return full;
}

Status IngestBlock(Labelmap& labelmap, std::uint32_t version, const VolumeView& volume,
                   const BlockCoord& coord, BlockOutcome& outcome) {
  std::vector<std::uint64_t> block(kBlockVoxels, 0);
  bool existed = false;
  const bool full = CopyVolumeIntoBlock(volume, coord, block);
  if (!full) {
    // Keep the labels outside the volume: start from the visible block.
    CHUNKWISE_ASSIGN_OR_RETURN(existed, labelmap.ReadBlockVoxels(version, 0, coord, block));
    CopyVolumeIntoBlock(volume, coord, block);
  }
  if (std::any_of(block.begin(), block.end(), [](std::uint64_t v) { return v != 0; })) {
    CHUNKWISE_RETURN_IF_ERROR(labelmap.PutBlock(version, 0, coord, block));
    ++outcome.written;
    return Status::Ok();
  }
  if (full) {
    CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<Bytes> old,
                               labelmap.GetBlock(version, 0, coord));
    existed = old.has_value();
  }
  if (existed) {
    CHUNKWISE_RETURN_IF_ERROR(labelmap.DeleteBlock(version, 0, coord));
    ++outcome.deleted;
  } else {
    ++outcome.skipped;
  }
  return Status::Ok();
}

std::uint64_t CountBlocks(const BlockBox& box) {
  if (box.empty()) return 0;
  return std::uint64_t(box.end.x - box.begin.x) * std::uint64_t(box.end.y - box.begin.y) *
         std::uint64_t(box.end.z - box.begin.z);
}

Status CheckVolume(std::span<const std::uint64_t> volume, const VoxelBox& box) {
  std::int64_t product = 1;
  for (int d = 0; d < 3; ++d) {
    if (box.shape[d] < 0 || __builtin_mul_overflow(product, box.shape[d], &product) ||
        box.offset[d] < std::int64_t{INT32_MIN} * kBlockEdge / 2 ||
        box.offset[d] + box.shape[d] > std::int64_t{INT32_MAX} * kBlockEdge / 2) {
      return Status::InvalidArgument("ingest: volume shape or offset out of range");
    }
  }
  if (static_cast<std::uint64_t>(product) != volume.size()) {
    return Status::InvalidArgument("ingest: " + std::to_string(volume.size()) +
                                   " voxels given for a shape of " + std::to_string(product));
  }
  return Status::Ok();
}

// Element `i` of a C-order array of `itemsize`-byte integers in `order`.
std::uint64_t LoadInteger(const std::uint8_t* data, std::size_t itemsize, bool big_endian) {
  std::uint64_t value = 0;
  for (std::size_t b = 0; b < itemsize; ++b) {
    const std::size_t byte = big_endian ? b : itemsize - 1 - b;
    value = (value << 8) | data[byte];
  }
  return value;
}

// Writes the scale-0 blocks of summary.blocks in parallel and fills in their counts.
Status IngestScaleZero(Labelmap& labelmap, const VolumeView& view, core::ThreadPool* pool,
                       const core::Cancellation* cancellation, core::ProgressReporter& progress,
                       IngestSummary& summary) {
  BlockOutcome outcome;
  const BlockBox& b = summary.blocks;
  const std::int64_t nx = b.end.x - b.begin.x, ny = b.end.y - b.begin.y;
  auto ingest = [&](std::size_t index) -> Status {
    if (cancellation != nullptr) CHUNKWISE_RETURN_IF_ERROR(cancellation->Check("ingesting"));
    const auto i = static_cast<std::int64_t>(index);
    const BlockCoord coord{static_cast<std::int32_t>(b.begin.x + i % nx),
                           static_cast<std::int32_t>(b.begin.y + (i / nx) % ny),
                           static_cast<std::int32_t>(b.begin.z + i / (nx * ny))};
    CHUNKWISE_RETURN_IF_ERROR(IngestBlock(labelmap, summary.version, view, coord, outcome));
    progress.Add(1);
    return Status::Ok();
  };
  const std::uint64_t count = CountBlocks(b);
  if (pool != nullptr) {
    CHUNKWISE_RETURN_IF_ERROR(pool->ParallelFor(count, ingest));
  } else {
    for (std::uint64_t i = 0; i < count; ++i) CHUNKWISE_RETURN_IF_ERROR(ingest(i));
  }
  summary.blocks_written[0] = outcome.written;
  summary.blocks_deleted[0] = outcome.deleted;
  summary.blocks_skipped = outcome.skipped;
  return Status::Ok();
}

}  // namespace

Result<std::vector<std::uint64_t>> LabelVolumeFromNpy(const core::NpyArray& array,
                                                      std::array<std::int64_t, 3>& shape,
                                                      std::string_view name) {
  const core::NpyDtype& dtype = array.dtype;
  const std::size_t itemsize = dtype.itemsize();
  if (array.shape.size() != 3 || dtype.is_structured() ||
      (dtype.kind() != 'u' && dtype.kind() != 'i') ||
      (itemsize != 1 && itemsize != 2 && itemsize != 4 && itemsize != 8)) {
    return Status::InvalidArgument(
        std::string(name) + ": labels must be a 3-d integer array (z, y, x), not " +
        dtype.ToDescr() + " with " + std::to_string(array.shape.size()) + " dims");
  }
  core::NpyArray c_order = array;
  CHUNKWISE_RETURN_IF_ERROR(core::ToCOrder(c_order));
  const bool big_endian = dtype.byte_order() == core::NpyDtype::ByteOrder::kBig;
  const bool is_signed = dtype.kind() == 'i';
  std::vector<std::uint64_t> labels(c_order.data.size() / itemsize);
  for (std::size_t i = 0; i < labels.size(); ++i) {
    labels[i] = LoadInteger(c_order.data.data() + i * itemsize, itemsize, big_endian);
    if (is_signed && (labels[i] >> (8 * itemsize - 1)) != 0) {
      return Status::InvalidArgument(std::string(name) + ": negative label at element " +
                                     std::to_string(i));
    }
  }
  shape = {array.shape[0], array.shape[1], array.shape[2]};
  return labels;
}

Result<IngestSummary> IngestVolume(Labelmap& labelmap, std::span<const std::uint64_t> volume,
                                   std::array<std::int64_t, 3> shape,
                                   const IngestOptions& options) {
  const VolumeView view{volume, VoxelBox{options.offset, shape}};
  CHUNKWISE_RETURN_IF_ERROR(CheckVolume(volume, view.box));
  if (options.downsample_scales < 0 || options.downsample_scales >= kMaxScales) {
    return Status::InvalidArgument("ingest: downsample scales must be 0-" +
                                   std::to_string(kMaxScales - 1));
  }
  IngestSummary summary;
  summary.version = options.version != 0 ? options.version : labelmap.versions().newest_open();
  CHUNKWISE_RETURN_IF_ERROR(labelmap.versions().CheckWritable(summary.version));
  summary.blocks = BlocksCovering(view.box);
  // Scales built before are rebuilt too, so that no scale goes stale.
  const int scales = std::max(options.downsample_scales + 1, labelmap.num_scales());
  summary.blocks_written.assign(scales, 0);
  summary.blocks_deleted.assign(scales, 0);
  // Progress counts blocks of every scale; each scale has about 1/8 of the one below.
  std::uint64_t total = 0;
  BlockBox box = summary.blocks;
  for (int s = 0; s < scales; ++s, box = ParentBlocks(box)) total += CountBlocks(box);
  core::ProgressReporter progress({.label = "dvid ingest",
                                   .total_units = total,
                                   .unit = "blocks",
                                   .mode = options.progress,
                                   .observer = options.observer});

  CHUNKWISE_RETURN_IF_ERROR(
      IngestScaleZero(labelmap, view, options.pool, options.cancellation, progress, summary));
  box = summary.blocks;
  for (int s = 1; s < scales; ++s) {
    if (options.cancellation != nullptr) {
      CHUNKWISE_RETURN_IF_ERROR(options.cancellation->Check("ingesting"));
    }
    box = ParentBlocks(box);
    CHUNKWISE_ASSIGN_OR_RETURN(
        const DownsampleSummary down,
        DownsampleBlocks(labelmap, summary.version, s, box, options.pool, &progress));
    summary.blocks_written[s] = down.blocks_written;
    summary.blocks_deleted[s] = down.blocks_deleted;
  }
  CHUNKWISE_RETURN_IF_ERROR(labelmap.SetNumScales(scales));
  progress.Finish();
  return summary;
}

}  // namespace chunkwise::formats::dvid
