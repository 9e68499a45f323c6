#include "chunkwise/facade/dvid_export.h"

#include <algorithm>
#include <optional>

#include "chunkwise/facade/url_value.h"
#include "facade/dvid_export_access.h"
#include "facade/labelmap_access.h"
#include "formats/dvid/labelmap.h"
#include "pipelines/export_shards.h"
#include "store/rocksdb_store.h"

namespace chunkwise {

namespace dvid = formats::dvid;

ExportSpec::ExportSpec() : held_(std::make_shared<const pipelines::ExportSpec>()) {}
ExportSpec::~ExportSpec() = default;
ExportSpec::ExportSpec(const ExportSpec&) = default;
ExportSpec& ExportSpec::operator=(const ExportSpec&) = default;
// A moved-from spec stays a spec (the empty one), as its default is.
ExportSpec::ExportSpec(ExportSpec&& other) noexcept : held_(other.held_) {}
ExportSpec& ExportSpec::operator=(ExportSpec&& other) noexcept {
  held_ = other.held_;
  return *this;
}

Result<ExportSpec> ExportSpec::Parse(std::string_view text, std::string_view name) {
  CHUNKWISE_ASSIGN_OR_RETURN(pipelines::ExportSpec spec, pipelines::ParseExportSpec(text, name));
  return DvidExportAccess::Wrap(std::move(spec));
}

const std::string& ExportSpec::info_json() const { return held_->info_json; }

std::size_t ExportSpec::num_scales() const { return held_->scales.size(); }

std::uint64_t ExportSpec::MaxShardsOfFirstScale() const {
  if (held_->scales.empty()) return 1;
  const pipelines::ExportScaleSpec& scale = held_->scales.front();
  const std::uint64_t chunks = static_cast<std::uint64_t>(scale.bits.grid[0]) *
                               static_cast<std::uint64_t>(scale.bits.grid[1]) *
                               static_cast<std::uint64_t>(scale.bits.grid[2]);
  const int bits = std::min(scale.sharding.shard_bits, 62);
  return std::max<std::uint64_t>(1, std::min(chunks, std::uint64_t{1} << bits));
}

ExportShardReader::ExportShardReader() = default;
ExportShardReader::~ExportShardReader() = default;
ExportShardReader::ExportShardReader(const ExportShardReader&) = default;
ExportShardReader& ExportShardReader::operator=(const ExportShardReader&) = default;
ExportShardReader::ExportShardReader(ExportShardReader&&) noexcept = default;
ExportShardReader& ExportShardReader::operator=(ExportShardReader&&) noexcept = default;

bool ExportShardReader::is_file_format() const { return held_->is_file_format(); }

std::size_t ExportShardReader::num_record_batches() const { return held_->num_record_batches(); }

ExportChunkIndexForm ExportShardReader::index_form() const {
  return held_->index().form == dvid::ChunkIndexForm::kRecord ? ExportChunkIndexForm::kRecord
                                                              : ExportChunkIndexForm::kOffsets;
}

std::size_t ExportShardReader::num_indexed_chunks() const { return held_->index().rows.size(); }

std::vector<std::array<std::int32_t, 3>> ExportShardReader::ListChunks() const {
  return held_->ListChunks();
}

namespace {

ExportBlock FromFormat(dvid::ExportBlock block) {
  return {block.chunk_x,
          block.chunk_y,
          block.chunk_z,
          std::move(block.labels),
          std::move(block.supervoxels),
          std::move(block.dvid_compressed_block),
          block.uncompressed_size};
}

dvid::ExportBlock ToFormat(const ExportBlock& block) {
  dvid::ExportBlock record;
  record.chunk_x = block.chunk_x;
  record.chunk_y = block.chunk_y;
  record.chunk_z = block.chunk_z;
  record.labels = block.labels;
  record.supervoxels = block.supervoxels;
  record.dvid_compressed_block = block.dvid_compressed_block;
  record.uncompressed_size = block.uncompressed_size;
  return record;
}

}  // namespace

Result<std::optional<ExportBlock>> ExportShardReader::Get(std::int32_t x, std::int32_t y,
                                                          std::int32_t z) const {
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<dvid::ExportBlock> record, held_->Get(x, y, z));
  if (!record.has_value()) return std::optional<ExportBlock>();
  return std::optional<ExportBlock>(FromFormat(*std::move(record)));
}

ExportedVolumeReader::ExportedVolumeReader() = default;
ExportedVolumeReader::~ExportedVolumeReader() = default;

int ExportedVolumeReader::num_scales() const { return held_->num_scales(); }

const core::GridCoord3& ExportedVolumeReader::scale_size(int scale) const {
  return held_->scale(scale).size;
}

const std::string& ExportedVolumeReader::scale_key(int scale) const {
  return held_->scale(scale).key;
}

namespace {

pipelines::ExportSummary ToPipeline(const ExportSummary& summary) {
  pipelines::ExportSummary result;
  result.version = summary.version;
  result.seconds = summary.seconds;
  for (const ExportScaleSummary& s : summary.scales) {
    result.scales.push_back({s.blocks_read, s.blocks_written, s.blocks_skipped, s.shards,
                             s.shards_kept, s.stored_bytes, s.block_bytes, s.zstd_bytes,
                             s.file_bytes, s.seconds});
  }
  return result;
}

ExportSummary FromPipeline(const pipelines::ExportSummary& summary) {
  ExportSummary result;
  result.version = summary.version;
  result.seconds = summary.seconds;
  for (const pipelines::ExportScaleSummary& s : summary.scales) {
    result.scales.push_back({s.blocks_read, s.blocks_written, s.blocks_skipped, s.shards,
                             s.shards_kept, s.stored_bytes, s.block_bytes, s.zstd_bytes,
                             s.file_bytes, s.seconds});
  }
  return result;
}

Result<ExportSummary> FromPipeline(Result<pipelines::ExportSummary> summary) {
  if (!summary.ok()) return summary.status();
  return FromPipeline(*summary);
}

}  // namespace

std::string ExportSummary::Format() const { return ToPipeline(*this).Format(); }

std::string ExportSummary::ToJson() const { return ToPipeline(*this).ToJson(); }

Result<ExportSummary> ExportSummary::FromJson(std::string_view text) {
  return FromPipeline(pipelines::ExportSummary::FromJson(text));
}

Result<std::unique_ptr<Labelmap>> OpenLabelmap(std::string_view path, bool create, bool read_only) {
  if (path.empty()) return Status::InvalidArgument("an empty path names no labelmap database");
  CHUNKWISE_ASSIGN_OR_RETURN(const StoreUrl url, ParseStoreUrl(path));
  if (url.scheme != "file" && url.scheme != "rocksdb") {
    return Status::InvalidArgument(
        url.text + ": a DVID labelmap database is a local RocksDB directory; " + url.scheme +
        ":// cannot hold one (export it with dvid export-shards to reach object storage)");
  }
  if (url.location.empty()) return Status::InvalidArgument(url.text + " names no directory");
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::RocksDbStore> db,
                             store::RocksDbStore::Open(url.location, {.create_if_missing = create,
                                                                      .read_only = read_only}));
  CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<dvid::Labelmap> labelmap,
                             dvid::Labelmap::Open(std::move(db), create));
  return std::make_unique<Labelmap>(
      LabelmapAccess::Wrap(std::shared_ptr<dvid::Labelmap>(std::move(labelmap))));
}

Result<std::vector<std::uint64_t>> ReadLabelmapRegion(const Context& context,
                                                      const Labelmap& labelmap, const VoxelBox& box,
                                                      const LabelmapReadOptions& options,
                                                      const CallOptions& call) {
  const dvid::Labelmap& held = LabelmapAccess::Held(labelmap);
  const std::string name = held.db().path().string();
  if (options.scale < 0 || options.scale >= labelmap.num_scales()) {
    return Status::InvalidArgument(name + ": scale " + std::to_string(options.scale) +
                                   " is not built (scales 0.." +
                                   std::to_string(labelmap.num_scales() - 1) + ")");
  }
  const std::uint32_t version = options.version != 0 ? options.version : held.versions().newest();
  CHUNKWISE_RETURN_IF_ERROR(held.versions().Find(version).status().WithContext(name));
  CHUNKWISE_ASSIGN_OR_RETURN(const std::shared_ptr<core::ThreadPool> pool, context.pool(call));
  CHUNKWISE_RETURN_IF_ERROR(context.CheckCancelled(call, "reading " + name));
  const std::unique_ptr<core::ProgressReporter> progress = context.StartProgress(
      call, "dvid read", static_cast<std::uint64_t>(box.num_voxels()) * sizeof(std::uint64_t), "B");
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<std::uint64_t> labels,
                             held.ReadRegion(version, options.scale, ToFormat(box), pool.get(),
                                             {progress.get(), &context.cancellation(call)}));
  if (options.mapped) {
    CHUNKWISE_ASSIGN_OR_RETURN(const auto mapping, held.MappingAt(version));
    dvid::ApplyMapping(mapping, labels);
  }
  progress->Finish();
  return labels;
}

Result<ExportSpec> DefaultExportSpec(const Labelmap& labelmap,
                                     const DefaultExportSpecOptions& options) {
  const std::uint32_t version = options.version != 0 ? options.version : labelmap.newest_version();
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<VoxelBox> extent,
                             labelmap.StoredExtent(version, 0));
  if (!extent.has_value()) {
    return Status::NotFound("version " + std::to_string(version) +
                            " stores no block at scale 0: nothing to size an export spec from");
  }
  if (*std::min_element(extent->offset.begin(), extent->offset.end()) < 0) {
    return Status::InvalidArgument(
        "version " + std::to_string(version) +
        " stores blocks at negative coordinates; an export spec starts at voxel 0");
  }
  // The box is z, y, x; the spec's sizes are x, y, z and start at voxel 0.
  const core::GridCoord3 size{extent->offset[2] + extent->shape[2],
                              extent->offset[1] + extent->shape[1],
                              extent->offset[0] + extent->shape[0]};
  CHUNKWISE_ASSIGN_OR_RETURN(
      pipelines::ExportSpec spec,
      pipelines::ExportSpecForVolume(size, std::max(1, labelmap.num_scales()), options.resolution));
  return DvidExportAccess::Wrap(std::move(spec));
}

Result<ExportSpec> ReadExportSpec(const Context& context, std::string_view url) {
  CHUNKWISE_ASSIGN_OR_RETURN(const Bytes text, ReadUrl(context, url));
  return ExportSpec::Parse(AsChars(text), url);
}

namespace {

constexpr std::string_view kMemoryScheme = "memory://";

// The store and key of the value `url` names. A memory store's name is the
// URL's first segment (memory://NAME/s0/0_0_0.arrow is s0/0_0_0.arrow in
// NAME); every other URL's store is its parent (LocateUrlValue).
Result<UrlValue> LocateExportValue(const Context& context, std::string_view url) {
  if (!url.starts_with(kMemoryScheme)) return LocateUrlValue(context, url, false);
  const std::string_view rest = url.substr(kMemoryScheme.size());
  const std::size_t slash = rest.find('/');
  if (slash == std::string_view::npos || slash + 1 == rest.size()) {
    return Status::InvalidArgument(std::string(url) +
                                   ": names a store, not a value (memory://NAME/KEY)");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, url.substr(0, kMemoryScheme.size() + slash),
                                       context.store_options(false)));
  return UrlValue{std::move(store), std::string(rest.substr(slash + 1))};
}

pipelines::ExportShardsOptions ToPipeline(const ExportShardsOptions& options) {
  pipelines::ExportShardsOptions result;
  result.num_scales = options.num_scales;
  result.workers = options.workers;
  result.writers = options.writers;
  result.version = options.version;
  result.format = options.format == ArrowIpcFormat::kFile ? formats::arrow::IpcFormat::kFile
                                                          : formats::arrow::IpcFormat::kStream;
  result.index_form = options.index_form == ExportChunkIndexForm::kRecord
                          ? dvid::ChunkIndexForm::kRecord
                          : dvid::ChunkIndexForm::kOffsets;
  result.overwrite = options.overwrite;
  result.resume = options.resume;
  result.ranks = options.ranks;
  result.before_shard_publish = options.before_shard_publish;
  return result;
}

// Where an export to `dest_url` goes: a local directory as the prefix
// "<name>/" of the store over its parent, so that a failed export, whose keys
// are erased, leaves no directory behind; any other URL as its store's root.
struct ExportDestinationUrl {
  std::shared_ptr<store::Store> store;
  std::string prefix;
};

Result<ExportDestinationUrl> LocateExportDestination(const Context& context,
                                                     std::string_view dest_url) {
  CHUNKWISE_ASSIGN_OR_RETURN(const StoreUrl parsed, ParseStoreUrl(dest_url));
  if (parsed.scheme == "file") {
    CHUNKWISE_ASSIGN_OR_RETURN(const UrlValue dest, LocateUrlValue(context, dest_url, true));
    return ExportDestinationUrl{dest.store, dest.key + "/"};
  }
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, dest_url, context.store_options(true)));
  return ExportDestinationUrl{std::move(store), ""};
}

// The pipeline's options: `options`, with the call's (else the context's)
// progress, observer, cancellation and threads.
pipelines::ExportShardsOptions WithContext(const Context& context, const CallOptions& call,
                                           const ExportShardsOptions& options) {
  pipelines::ExportShardsOptions result = ToPipeline(options);
  result.progress = call.progress_mode.value_or(context.progress_mode());
  result.observer = call.observer != nullptr ? call.observer : context.observer();
  result.cancellation = &context.cancellation(call);
  if (result.workers == 0) result.workers = call.threads != 0 ? call.threads : context.threads();
  return result;
}

std::vector<pipelines::ExportSummary> ToPipeline(const std::vector<ExportSummary>& parts) {
  std::vector<pipelines::ExportSummary> result;
  result.reserve(parts.size());
  for (const ExportSummary& part : parts) result.push_back(ToPipeline(part));
  return result;
}

}  // namespace

Result<ExportSummary> ExportShards(const Context& context, const Labelmap& labelmap,
                                   const ExportSpec& spec, std::string_view dest_url,
                                   ExportShardsOptions options, const CallOptions& call) {
  CHUNKWISE_RETURN_IF_ERROR(
      context.CheckCancelled(call, std::string("exporting to ") + std::string(dest_url)));
  const pipelines::ExportShardsOptions run = WithContext(context, call, options);
  CHUNKWISE_ASSIGN_OR_RETURN(const StoreUrl parsed, ParseStoreUrl(dest_url));
  // A killed export's temporaries; under ranks only rank 0, which prepares
  // the prefix before any rank writes (the others' files are not yet there).
  if (parsed.scheme == "file" && (options.ranks == nullptr || options.ranks->rank() == 0)) {
    CHUNKWISE_RETURN_IF_ERROR(RemoveDeadTemporariesAt(dest_url));
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const ExportDestinationUrl dest,
                             LocateExportDestination(context, dest_url));
  return FromPipeline(pipelines::ExportShards(
      LabelmapAccess::Held(labelmap), DvidExportAccess::Held(spec), dest.store, dest.prefix, run));
}

Status PrepareExportShards(const Context& context, std::string_view dest_url,
                           const ExportShardsOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(const StoreUrl parsed, ParseStoreUrl(dest_url));
  if (parsed.scheme == "file") CHUNKWISE_RETURN_IF_ERROR(RemoveDeadTemporariesAt(dest_url));
  CHUNKWISE_ASSIGN_OR_RETURN(const ExportDestinationUrl dest,
                             LocateExportDestination(context, dest_url));
  return pipelines::PrepareExportShards(dest.store, dest.prefix, ToPipeline(options));
}

Result<ExportSummary> ExportShardsPart(const Context& context, const Labelmap& labelmap,
                                       const ExportSpec& spec, std::string_view dest_url, int part,
                                       int parts, ExportShardsOptions options,
                                       const CallOptions& call) {
  CHUNKWISE_RETURN_IF_ERROR(
      context.CheckCancelled(call, std::string("exporting to ") + std::string(dest_url)));
  const pipelines::ExportShardsOptions run = WithContext(context, call, options);
  CHUNKWISE_ASSIGN_OR_RETURN(const ExportDestinationUrl dest,
                             LocateExportDestination(context, dest_url));
  return FromPipeline(pipelines::ExportShardsPart(LabelmapAccess::Held(labelmap),
                                                  DvidExportAccess::Held(spec), dest.store,
                                                  dest.prefix, part, parts, run));
}

Result<ExportSummary> PublishExportShards(const Context& context, const Labelmap& labelmap,
                                          const ExportSpec& spec, std::string_view dest_url,
                                          const std::vector<ExportSummary>& parts,
                                          const ExportShardsOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(const ExportDestinationUrl dest,
                             LocateExportDestination(context, dest_url));
  return FromPipeline(pipelines::PublishExportShards(
      LabelmapAccess::Held(labelmap), DvidExportAccess::Held(spec), dest.store, dest.prefix,
      ToPipeline(parts), ToPipeline(options)));
}

Result<ExportShardReader> OpenExportShard(const Context& context, std::string_view url,
                                          bool read_whole) {
  CHUNKWISE_ASSIGN_OR_RETURN(const UrlValue file, LocateExportValue(context, url));
  CHUNKWISE_ASSIGN_OR_RETURN(dvid::ArrowShardReader reader,
                             dvid::ArrowShardReader::Open(file.store, file.key, {read_whole}));
  return DvidExportAccess::Wrap(std::move(reader));
}

Result<std::vector<std::uint64_t>> DecodeExportBlock(const ExportBlock& block, bool supervoxels,
                                                     std::string_view name) {
  std::vector<std::uint64_t> voxels(dvid::kBlockVoxels);
  CHUNKWISE_RETURN_IF_ERROR(DecodeExportBlock(block, supervoxels, voxels, name));
  return voxels;
}

Status DecodeExportBlock(const ExportBlock& block, bool supervoxels, std::span<std::uint64_t> out,
                         std::string_view name) {
  return pipelines::DecodeExportBlock(ToFormat(block), supervoxels, out, name);
}

Result<std::unique_ptr<ExportedVolumeReader>> OpenExportedVolume(const Context& context,
                                                                 std::string_view url) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, url, context.store_options(false)));
  Result<std::unique_ptr<pipelines::ExportedVolumeReader>> reader =
      pipelines::ExportedVolumeReader::Open(std::move(store), "");
  if (!reader.ok()) return reader.status().WithContext(url);
  return DvidExportAccess::Wrap(*std::move(reader));
}

Result<std::vector<std::uint64_t>> ReadExportedRegion(const Context& context,
                                                      const ExportedVolumeReader& volume, int scale,
                                                      const VoxelBox& box, bool supervoxels,
                                                      const CallOptions& call) {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::shared_ptr<core::ThreadPool> pool, context.pool(call));
  const dvid::BlockBox covered = dvid::BlocksCovering(ToFormat(box));
  const std::uint64_t blocks =
      covered.empty() ? 0
                      : static_cast<std::uint64_t>(covered.end.x - covered.begin.x) *
                            static_cast<std::uint64_t>(covered.end.y - covered.begin.y) *
                            static_cast<std::uint64_t>(covered.end.z - covered.begin.z);
  const std::unique_ptr<core::ProgressReporter> progress =
      context.StartProgress(call, "dvid read-shards", blocks, "blocks");
  CHUNKWISE_ASSIGN_OR_RETURN(
      std::vector<std::uint64_t> labels,
      DvidExportAccess::Held(volume).Read(scale, ToFormat(box), supervoxels, pool.get(),
                                          &context.cancellation(call), progress.get()));
  progress->Finish();
  return labels;
}

}  // namespace chunkwise
