// ExportedVolumeReader: voxels of an export-shards output, read back.
//
// Opens `info` under the export's prefix of a store (the spec the export
// used, export_spec.h) and, on demand,
// the shards (formats/dvid/arrow_shard_reader.h) that a box of voxels touches
// at a scale; each block's zstd frame is decompressed (bounded by its
// uncompressed_size) and decoded as a DVID label block, with its palette
// replaced by the record's mapped `labels` unless supervoxels are asked for.
// A chunk that no shard lists reads as 0 (export-shards skips blocks whose
// labels all map to 0). Shards open lazily and stay open; Read may be called
// from several threads.
#ifndef CHUNKWISE_PIPELINES_EXPORTED_VOLUME_READER_H_
#define CHUNKWISE_PIPELINES_EXPORTED_VOLUME_READER_H_

#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "chunkwise/core/cancellation.h"
#include "chunkwise/core/progress.h"
#include "pipelines/export_spec.h"
#include "chunkwise/store/store.h"
#include "formats/dvid/arrow_shard_reader.h"
#include "formats/dvid/labelmap.h"

namespace chunkwise::core {
class ThreadPool;
}

namespace chunkwise::pipelines {

// Decodes one exported record into `out` (64³ voxels, C order z, y, x): mapped
// labels, or the supervoxels with `supervoxels`. Corruption naming `name` if
// the zstd frame does not give exactly uncompressed_size bytes, the block's
// palette differs from the record's supervoxels, labels and supervoxels differ
// in length, or the block does not decode.
Status DecodeExportBlock(const formats::dvid::ExportBlock& record, bool supervoxels,
                         std::span<std::uint64_t> out, std::string_view name);

class ExportedVolumeReader {
 public:
  // The export at `prefix` ("" or ending in "/") of `store`. NotFound naming
  // the key if its info is missing; the info's parse errors otherwise.
  static Result<std::unique_ptr<ExportedVolumeReader>> Open(
      std::shared_ptr<const store::Store> store, std::string prefix);

  int num_scales() const { return static_cast<int>(spec_.scales.size()); }
  const ExportScaleSpec& scale(int s) const { return spec_.scales[s]; }

  // The voxels of `box` (z, y, x) at `scale`, C order. InvalidArgument for an
  // unknown scale or a box outside [0, size); errors of the shards (a missing
  // .csv beside an .arrow, a truncated value, an index past the data).
  // `cancellation` (may be null) is checked before each 64³ block: Cancelled
  // then; `progress` (may be null) counts the blocks read.
  Result<std::vector<std::uint64_t>> Read(int scale, const formats::dvid::VoxelBox& box,
                                          bool supervoxels, core::ThreadPool* pool = nullptr,
                                          const core::Cancellation* cancellation = nullptr,
                                          core::ProgressReporter* progress = nullptr) const;

  // The record of chunk `xyz` at `scale`, or nullopt if no shard holds it.
  Result<std::optional<formats::dvid::ExportBlock>> ReadRecord(int scale,
                                                               const core::GridCoord3& xyz) const;

 private:
  ExportedVolumeReader(std::shared_ptr<const store::Store> store, std::string prefix,
                       ExportSpec spec)
      : store_(std::move(store)), prefix_(std::move(prefix)), spec_(std::move(spec)) {}
  // The shard holding `xyz`, or null if neither of its values exists.
  Result<const formats::dvid::ArrowShardReader*> Shard(int scale,
                                                       const core::GridCoord3& xyz) const;

  const std::shared_ptr<const store::Store> store_;
  const std::string prefix_;
  const ExportSpec spec_;
  mutable std::mutex mutex_;
  // (scale, stem) → reader, null for a shard without files. Guarded by mutex_;
  // entries are never removed, so pointers stay valid.
  mutable std::map<std::pair<int, std::string>, std::unique_ptr<formats::dvid::ArrowShardReader>>
      shards_;
};

}  // namespace chunkwise::pipelines

#endif  // CHUNKWISE_PIPELINES_EXPORTED_VOLUME_READER_H_
