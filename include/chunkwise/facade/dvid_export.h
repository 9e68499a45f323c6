// DVID labelmaps and export-shards by URL (docs/formats/dvid.md).
#ifndef CHUNKWISE_FACADE_DVID_EXPORT_H_
#define CHUNKWISE_FACADE_DVID_EXPORT_H_

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/communicator.h"
#include "chunkwise/core/morton.h"
#include "chunkwise/facade/call_options.h"
#include "chunkwise/facade/context.h"
#include "chunkwise/facade/labelmap.h"

namespace chunkwise {

namespace pipelines {
struct ExportSpec;
class ExportedVolumeReader;
}  // namespace pipelines
namespace formats::dvid {
class ArrowShardReader;
}  // namespace formats::dvid

// The spec export-shards takes (docs/formats/dvid.md, "DVID's export
// format"): a neuroglancer multiscale info whose scales are sharded and
// chunked as DVID's 64³ blocks. Copies share the parsed spec; nothing
// changes one once made.
class ExportSpec {
 public:
  ExportSpec();  // No scales, info "".
  ~ExportSpec();
  ExportSpec(const ExportSpec&);
  ExportSpec& operator=(const ExportSpec&);
  ExportSpec(ExportSpec&&) noexcept;
  ExportSpec& operator=(ExportSpec&&) noexcept;

  // The spec in `text`; InvalidArgument (or Unsupported for another sharding
  // type or hash) starting with `name` for text that is not a spec.
  static Result<ExportSpec> Parse(std::string_view text, std::string_view name);

  // The spec as given (parsed and re-serialized).
  const std::string& info_json() const;
  std::size_t num_scales() const;
  // At least as many shards as scale 0 has (1 for a spec without scales):
  // a job's task count.
  std::uint64_t MaxShardsOfFirstScale() const;

 private:
  friend class DvidExportAccess;  // src/facade: wraps and unwraps the held spec.
  std::shared_ptr<const pipelines::ExportSpec> held_;
};

// The Arrow IPC form of an export's shards: the file format (footer), or
// the stream format DVID writes.
enum class ArrowIpcFormat { kStream, kFile };
// The form of a shard's CSV index: x,y,z,rec, or DVID's
// x,y,z,offset,size,batch_idx.
enum class ExportChunkIndexForm { kRecord, kOffsets };

struct ExportShardsOptions {
  int num_scales = 0;         // 0: every scale of the spec; else at most this many.
  std::size_t workers = 0;    // Chunk handlers; 0: the call's (or the context's) threads.
  std::size_t writers = 0;    // Writer threads; 0: one per 4 workers.
  std::uint32_t version = 0;  // 0: the newest version.
  ArrowIpcFormat format = ArrowIpcFormat::kFile;
  ExportChunkIndexForm index_form = ExportChunkIndexForm::kRecord;
  bool overwrite = false;  // Replace an existing export at the destination.
  // Finish an unpublished export at the destination: shards whose .arrow and
  // .csv are both present and whose index parses are kept, the others
  // written again. An export with `info` loses it first. On error the
  // complete shards stay.
  bool resume = false;
  core::Communicator* ranks = nullptr;  // The job's ranks; null: this process alone.
  // Called with a shard's .arrow (as the store names it) before the shard is
  // published; an error fails the export there (a test seam).
  std::function<Status(const std::string& shard_key)> before_shard_publish = nullptr;
};

struct ExportScaleSummary {
  std::uint64_t blocks_read = 0;     // Visible blocks the scan found.
  std::uint64_t blocks_written = 0;  // Records written.
  std::uint64_t blocks_skipped = 0;  // Every mapped label 0.
  std::uint64_t shards = 0;          // Shards with at least one record.
  std::uint64_t shards_kept = 0;     // Complete shards a resumed export kept.
  std::uint64_t stored_bytes = 0;    // Database values read (envelope + gzip).
  std::uint64_t block_bytes = 0;     // DVID block bytes of the written blocks.
  std::uint64_t zstd_bytes = 0;      // Their zstd frames.
  std::uint64_t file_bytes = 0;      // .arrow + .csv bytes written.
  double seconds = 0;
};

struct ExportSummary {
  std::uint32_t version = 0;
  std::vector<ExportScaleSummary> scales;
  double seconds = 0;
  // Lines for people and export.log: one per scale, then the totals with blocks/s.
  std::string Format() const;
  // The figures as JSON and back, to send a part's summary to its driver.
  std::string ToJson() const;
  static Result<ExportSummary> FromJson(std::string_view text);
};

// One record of an export shard: a 64³ block.
struct ExportBlock {
  std::int32_t chunk_x = 0;
  std::int32_t chunk_y = 0;
  std::int32_t chunk_z = 0;
  std::vector<std::uint64_t> labels;
  std::vector<std::uint64_t> supervoxels;
  Bytes dvid_compressed_block;          // One zstd frame of the DVID block bytes.
  std::uint32_t uncompressed_size = 0;  // DVID block bytes before zstd.
};

// One export shard (OpenExportShard): its .arrow value read by ranges (or
// whole) through its CSV index. Copies share it; thread-safe.
class ExportShardReader {
 public:
  ~ExportShardReader();
  ExportShardReader(const ExportShardReader&);
  ExportShardReader& operator=(const ExportShardReader&);
  ExportShardReader(ExportShardReader&&) noexcept;
  ExportShardReader& operator=(ExportShardReader&&) noexcept;

  bool is_file_format() const;
  std::size_t num_record_batches() const;
  ExportChunkIndexForm index_form() const;
  // The index's rows.
  std::size_t num_indexed_chunks() const;
  // The (x, y, z) chunk coordinates the index lists, in its order.
  std::vector<std::array<std::int32_t, 3>> ListChunks() const;
  // The record of chunk (x, y, z), nullopt if the index does not list it;
  // Corruption naming the key for a record that does not read.
  Result<std::optional<ExportBlock>> Get(std::int32_t x, std::int32_t y, std::int32_t z) const;

 private:
  ExportShardReader();
  friend class DvidExportAccess;
  std::shared_ptr<const formats::dvid::ArrowShardReader> held_;
};

// An export (export-shards' output, with its info) read by box
// (OpenExportedVolume, ReadExportedRegion). Thread-safe.
class ExportedVolumeReader {
 public:
  ~ExportedVolumeReader();

  int num_scales() const;
  // Scale `scale`'s voxels (x, y, z) and key. REQUIRES: 0 <= scale < num_scales().
  const core::GridCoord3& scale_size(int scale) const;
  const std::string& scale_key(int scale) const;

 private:
  ExportedVolumeReader();
  friend class DvidExportAccess;
  std::unique_ptr<const pipelines::ExportedVolumeReader> held_;
};

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
// NotFound naming it when it holds no labelmap and !create.
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
// sharded as FlyEM's exports are (the identity hash, shards
// of at most 32³ chunks). NotFound naming the
// database when the version stores no block (nothing to size it from).
Result<ExportSpec> DefaultExportSpec(const Labelmap& labelmap,
                                     const DefaultExportSpecOptions& options = {});

// Exports scales of `labelmap` (the spec's, at most options.num_scales and
// those built) at the version to `dest_url`: each shard an .arrow value and
// its .csv index, then export.log and, last, `info`. InvalidArgument naming
// a key if the destination holds keys and !overwrite; Corruption naming the
// key for a block that does not decode; on error no export is published. options.progress,
// observer and cancellation are the call's (else the context's; a cancelled
// export publishes nothing), options.workers 0 takes the call's threads (else
// the context's). A local destination directory is created only by a
// successful export; "memory://NAME" is the context's memory store NAME.
Result<ExportSummary> ExportShards(const Context& context, const Labelmap& labelmap,
                                   const ExportSpec& spec, std::string_view dest_url,
                                   ExportShardsOptions options = {}, const CallOptions& call = {});

// Export-shards as a job of independent tasks (a dask graph): the driver prepares
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
// The same into `out` (64³ values: a numpy array's buffer).
Status DecodeExportBlock(const ExportBlock& block, bool supervoxels, std::span<std::uint64_t> out,
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
