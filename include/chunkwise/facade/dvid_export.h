// DVID labelmaps and export-shards by URL (pipelines/export_shards.h).
#ifndef CHUNKWISE_FACADE_DVID_EXPORT_H_
#define CHUNKWISE_FACADE_DVID_EXPORT_H_

#include <array>
#include <memory>
#include <string_view>
#include <vector>

#include "chunkwise/facade/call_options.h"
#include "chunkwise/facade/context.h"
#include "chunkwise/formats/arrow/ipc_format.h"
#include "chunkwise/formats/dvid/arrow_shard_reader.h"
#include "chunkwise/formats/dvid/export_chunk_index.h"
#include "chunkwise/formats/dvid/ingest.h"
#include "chunkwise/formats/dvid/labelmap.h"
#include "chunkwise/pipelines/export_shards.h"
#include "chunkwise/pipelines/export_spec.h"
#include "chunkwise/pipelines/exported_volume_reader.h"

namespace chunkwise {

using Labelmap = formats::dvid::Labelmap;
using ExportSpec = pipelines::ExportSpec;
using ExportShardsOptions = pipelines::ExportShardsOptions;
using ExportSummary = pipelines::ExportSummary;
using VoxelBox = formats::dvid::VoxelBox;
// An export's parts: one Arrow IPC shard and its CSV index, a block of it,
// the forms they take, and a reader of any box of the whole export.
using ExportShardReader = formats::dvid::ArrowShardReader;
using ExportBlock = formats::dvid::ExportBlock;
using ExportChunkIndexForm = formats::dvid::ChunkIndexForm;
using ArrowIpcFormat = formats::arrow::IpcFormat;
using ExportedVolumeReader = pipelines::ExportedVolumeReader;
// The same decoding into a caller's 64³ buffer (a numpy array's).
using pipelines::DecodeExportBlock;

// What ReadLabelmapRegion reads.
struct LabelmapReadOptions {
  std::uint32_t version = 0;  // 0: the newest version.
  int scale = 0;
  // Each supervoxel replaced by its mapped label at the version (split ones
  // by 0); otherwise the stored supervoxels.
  bool mapped = false;
};

// The labelmap in the RocksDB database at `path` ("rocksdb://" or "file://"
// optional; InvalidArgument naming it for any other scheme: a database is a
// local directory, reached in object storage only through export-shards);
// with `create`, a new empty one (the database created if missing). With
// `read_only` the database is opened without its write lock, beside a writer.
Result<std::unique_ptr<Labelmap>> OpenLabelmap(std::string_view path, bool create,
                                               bool read_only = false);

// The labels of `box` (voxels z, y, x at the scale), C order; blocks not
// stored read as 0. Decoded on the call's pool (or the context's). NotFound
// naming the database for an unknown version; InvalidArgument for a scale
// the database has not built or a box too large to address; Corruption
// naming the block for a stored value that does not decode. Progress counts
// the labels' bytes; Cancelled, when the call is, between rows of blocks.
Result<std::vector<std::uint64_t>> ReadLabelmapRegion(const Context& context,
                                                      const Labelmap& labelmap, const VoxelBox& box,
                                                      const LabelmapReadOptions& options = {},
                                                      const CallOptions& call = {});

// The export spec (a neuroglancer info with sharded scales) at `url`.
Result<ExportSpec> ReadExportSpec(const Context& context, std::string_view url);

// What DefaultExportSpec sizes a spec for.
struct DefaultExportSpecOptions {
  std::uint32_t version = 0;                  // 0: the newest version.
  std::array<double, 3> resolution{8, 8, 8};  // Nanometres per voxel at scale 0, x y z.
};

// The spec export-shards uses when none is given (`chunkwise dvid spec`
// prints it to edit): the volume from voxel 0 to the far corner of the blocks
// stored at scale 0 of the version, as many scales as the labelmap has built,
// sharded as pipelines::ExportSpecForVolume says. NotFound naming the
// database when the version stores no block (nothing to size it from).
Result<ExportSpec> DefaultExportSpec(const Labelmap& labelmap,
                                     const DefaultExportSpecOptions& options = {});

// Exports `labelmap` to `dest_url` as export_shards.h says; options.progress,
// observer and cancellation are the call's (else the context's; a cancelled
// export publishes nothing), options.workers 0 takes the call's threads (else
// the context's). A local destination directory is created only by a
// successful export; "memory://NAME" is the context's memory store NAME.
Result<ExportSummary> ExportShards(const Context& context, const Labelmap& labelmap,
                                   const ExportSpec& spec, std::string_view dest_url,
                                   ExportShardsOptions options = {}, const CallOptions& call = {});

// Export-shards as a job of independent tasks (a dask graph; pipelines/
// export_shards.h, "a job of independent tasks"): the driver prepares
// `dest_url`, each task exports its part (`part` of `parts`) and returns its
// summary (ExportSummary::ToJson to send it), and the driver publishes with
// every part's summary once all have succeeded. The same bytes as
// ExportShards.
Status PrepareExportShards(const Context& context, std::string_view dest_url,
                           const ExportShardsOptions& options = {});
Result<ExportSummary> ExportShardsPart(const Context& context, const Labelmap& labelmap,
                                       const ExportSpec& spec, std::string_view dest_url, int part,
                                       int parts, ExportShardsOptions options = {},
                                       const CallOptions& call = {});
Result<ExportSummary> PublishExportShards(const Context& context, const Labelmap& labelmap,
                                          const ExportSpec& spec, std::string_view dest_url,
                                          const std::vector<ExportSummary>& parts,
                                          const ExportShardsOptions& options = {});

// The export shard at `url` (an .arrow value; its .csv index beside it).
// "memory://NAME/KEY" is KEY in the context's memory store NAME (the store an
// export to memory://NAME wrote). `read_whole`: the value is read at once
// rather than by ranges. NotFound if either is missing; Corruption naming
// the key if the .arrow is not an export shard or the index is malformed.
Result<ExportShardReader> OpenExportShard(const Context& context, std::string_view url,
                                          bool read_whole = false);

// The 64³ voxels (z, y, x, C order) of `block`: mapped labels, or the
// supervoxels with `supervoxels`. Corruption naming `name` for a block that
// does not decode or disagrees with its record.
Result<std::vector<std::uint64_t>> DecodeExportBlock(const ExportBlock& block, bool supervoxels,
                                                     std::string_view name);

// The export (export-shards' output, with its info) at `url`. NotFound naming
// the info key when absent.
Result<std::unique_ptr<ExportedVolumeReader>> OpenExportedVolume(const Context& context,
                                                                 std::string_view url);

// The labels of `box` (z, y, x at `scale`, C order) of the export, on the
// call's pool (or the context's): mapped labels, or the supervoxels with
// `supervoxels`. InvalidArgument for an unknown scale or a box outside the
// volume; Cancelled, when the call is, between blocks; progress counts blocks.
Result<std::vector<std::uint64_t>> ReadExportedRegion(const Context& context,
                                                      const ExportedVolumeReader& volume, int scale,
                                                      const VoxelBox& box, bool supervoxels,
                                                      const CallOptions& call = {});

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_DVID_EXPORT_H_
