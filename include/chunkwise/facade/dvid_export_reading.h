// DVID export-shards read back: one .arrow shard by chunk, or a whole export
// by box (formats/dvid/arrow_shard_reader.h, pipelines/exported_volume_reader.h).
// What the Python module's ArrowShardReader and open_export give.
#ifndef CHUNKWISE_FACADE_DVID_EXPORT_READING_H_
#define CHUNKWISE_FACADE_DVID_EXPORT_READING_H_

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "chunkwise/facade/call_options.h"
#include "chunkwise/facade/context.h"
#include "chunkwise/facade/dvid_export.h"
#include "chunkwise/formats/dvid/arrow_shard_reader.h"
#include "chunkwise/pipelines/exported_volume_reader.h"

namespace chunkwise {

using ExportShardReader = formats::dvid::ArrowShardReader;
using ExportBlock = formats::dvid::ExportBlock;
using ExportChunkIndexForm = formats::dvid::ChunkIndexForm;
using ExportedVolumeReader = pipelines::ExportedVolumeReader;
// The 64³ labels (z, y, x) of one exported block: mapped, or its supervoxels.
using pipelines::DecodeExportBlock;

// The export shard at `url` (an .arrow value, its .csv index beside it).
// "memory://NAME/KEY" is KEY in the context's memory store NAME (the store
// an export to memory://NAME wrote). `read_whole`: the value is read at once
// rather than by ranges. NotFound naming the value when absent.
Result<ExportShardReader> OpenExportShard(const Context& context, std::string_view url,
                                          bool read_whole = false);

// The export at `url` (its info and s<N>/ shards), to be read by box.
// NotFound naming the info when it is not there.
Result<std::unique_ptr<ExportedVolumeReader>> OpenExportedVolume(const Context& context,
                                                                 std::string_view url);

// The labels of `box` (voxels z, y, x) at `scale`, C order, decoded on the
// call's pool. Progress counts blocks read (no total); Cancelled between blocks.
Result<std::vector<std::uint64_t>> ReadExportedVolume(const Context& context,
                                                      const ExportedVolumeReader& volume, int scale,
                                                      const VoxelBox& box, bool supervoxels,
                                                      const CallOptions& call = {});

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_DVID_EXPORT_READING_H_
