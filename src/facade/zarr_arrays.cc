#include "chunkwise/facade/zarr_arrays.h"

#include "core/memory_limit.h"
#include "facade/zarr_array_access.h"
#include "facade/zarr_array_options.h"
#include "formats/zarr/array_layout.h"
#include "pipelines/zarr_conversion.h"

namespace chunkwise {
namespace {

namespace zarr = formats::zarr;

// The bytes of `region`'s elements (saturating: a region too large to hold fails its allocation).
std::uint64_t RegionBytes(const ZarrArray& array, const core::Region& region) {
  return core::SaturatingProduct(static_cast<std::uint64_t>(region.num_elements()),
                                 array.metadata().data_type.size());
}

// The pipeline's layout for the facade's.
pipelines::ZarrConversionLayout ToPipeline(const ZarrConversionLayout& layout) {
  return {.chunks = layout.chunks,
          .shards = layout.shards,
          .unsharded = layout.unsharded,
          .codecs = layout.codecs,
          .index_location = ToFormat(layout.index_location),
          .zarr_format = layout.zarr_format};
}

// Metadata text a caller hands over is the caller's to fix: its syntax
// errors are InvalidArgument, not the Corruption of stored metadata
// (formats/zarr's ParseJsonDocument).
Status AsCallersText(const Status& status) {
  if (status.code() != StatusCode::kCorruption) return status;
  return Status::InvalidArgument(std::string(status.message()));
}

// A convert's layout with `checksum` added to the codecs it gives. Without
// codecs the source's are kept exactly (a copy with no choices keeps its
// objects), so only the default or none goes with them.
Result<ZarrConversionLayout> WithChecksum(ZarrConversionLayout layout,
                                          std::optional<ChunkChecksum> checksum) {
  if (layout.codecs) {
    CHUNKWISE_ASSIGN_OR_RETURN(
        layout.codecs, CodecsWithChunkChecksum(*layout.codecs, checksum, layout.zarr_format));
  } else if (checksum.value_or(ChunkChecksum::kNone) != ChunkChecksum::kNone) {
    return Status::InvalidArgument(
               "a checksum needs the destination's codecs; without them the source's are "
               "kept as they are")
        .WithField("checksum");
  }
  return layout;
}

}  // namespace

ZarrArrayMetadata FacadeMetadata(const zarr::Array& array) {
  const zarr::ArrayMetadata& metadata = array.metadata();
  ZarrArrayMetadata out;
  out.zarr_format = metadata.zarr_format;
  out.shape = metadata.shape;
  out.data_type = metadata.data_type;
  out.data_type_name = metadata.data_type_name();
  out.chunk_shape = metadata.chunk_shape;
  if (array.sharding() != nullptr) out.inner_chunk_shape = array.sharding()->chunk_shape();
  out.codecs = metadata.codecs;
  out.attributes = metadata.attributes;
  out.dimension_names = metadata.dimension_names;
  return out;
}

ZarrArray ZarrArrayAccess::Wrap(zarr::Array array) {
  ZarrArrayMetadata metadata = FacadeMetadata(array);
  return ZarrArray(std::make_unique<ZarrArray::Held>(ZarrArray::Held{std::move(array)}),
                   std::move(metadata));
}

void ZarrArrayAccess::Refresh(ZarrArray& array) {
  array.metadata_ = FacadeMetadata(array.held_->array);
}

ZarrArray::ZarrArray(std::unique_ptr<Held> held, ZarrArrayMetadata metadata)
    : held_(std::move(held)), metadata_(std::move(metadata)) {}
ZarrArray::ZarrArray(ZarrArray&& other) noexcept = default;
ZarrArray& ZarrArray::operator=(ZarrArray&& other) noexcept = default;
ZarrArray::~ZarrArray() = default;

void ZarrArray::set_progress(core::ProgressReporter* progress) {
  held_->array.set_progress(progress);
}

Result<ZarrArrayStorageStats> ZarrArray::Stats() const {
  CHUNKWISE_ASSIGN_OR_RETURN(const zarr::ArrayStorageStats stats, held_->array.Stats());
  return ZarrArrayStorageStats{.stored_keys = stats.stored_keys,
                               .stored_bytes = stats.stored_bytes,
                               .grid_chunks = stats.grid_chunks,
                               .stored_inner_chunks = stats.stored_inner_chunks,
                               .grid_inner_chunks = stats.grid_inner_chunks,
                               .logical_bytes = stats.logical_bytes};
}

Result<ZarrArray> CreateZarrArray(const Context& context, std::string_view url,
                                  const ZarrArraySpec& spec, const ZarrCreateOptions& options,
                                  const CallOptions& call) {
  // Checked here, not replaced by {} below: both doors (the CLI's
  // --attributes, the module's attributes=) get the same refusal.
  if (!spec.attributes.is_object()) {
    return Status::InvalidArgument("the attributes must be a JSON object, not " +
                                   std::string(spec.attributes.type_name()) + " (" +
                                   std::string(url) + ")")
        .WithField("attributes");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(zarr::ArrayLayout layout, internal::LayoutOf(spec));
  CHUNKWISE_ASSIGN_OR_RETURN(zarr::ArrayMetadata metadata, internal::MetadataOf(layout, spec));
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, url, context.store_options(true)));
  CHUNKWISE_ASSIGN_OR_RETURN(
      zarr::ArrayOptions array_options,
      internal::ArrayOptionsOf(context, *store, layout.codec, ZarrWriteEncoders{}, call));
  if (!options.publish) {
    return ZarrArrayAccess::Wrap(zarr::Array::CreateUnpublished(
        std::move(store), "", std::move(metadata), options.overwrite, std::move(array_options)));
  }
  return ZarrArrayAccess::Wrap(zarr::Array::Create(std::move(store), "", std::move(metadata),
                                                   options.overwrite, std::move(array_options)));
}

Result<ZarrArray> JoinUnpublishedZarrArray(const Context& context, std::string_view url,
                                           std::string_view zarr_json, std::string_view codecs) {
  Result<zarr::ArrayMetadata> parsed = zarr::ParseV3ArrayMetadata(zarr_json, zarr::kZarrJsonKey);
  if (!parsed.ok()) return AsCallersText(parsed.status());
  zarr::ArrayMetadata metadata = *std::move(parsed);
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, url, context.store_options(false)));
  CHUNKWISE_ASSIGN_OR_RETURN(zarr::ArrayOptions array_options,
                             internal::ArrayOptionsOf(context, *store, codecs, {}, {}));
  return ZarrArrayAccess::Wrap(zarr::Array::JoinUnpublished(
      std::move(store), "", std::move(metadata), std::move(array_options)));
}

Status PublishZarrArray(ZarrArray& array) { return ZarrArrayAccess::Held(array).Publish(); }

std::string ZarrMetadataJson(const ZarrArray& array) {
  return zarr::FormatV3ArrayMetadata(ZarrArrayAccess::Held(array).metadata());
}

core::Endian ZarrByteOrder(const ZarrArray& array) {
  // One-byte types have no byte order: DescribeLayout says little for them.
  return zarr::DescribeLayout(ZarrArrayAccess::Held(array).metadata()).endian;
}

Result<ZarrArray> OpenZarrArray(const Context& context, std::string_view url,
                                const ZarrWriteEncoders& encoders, const CallOptions& call) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, url, context.store_options(false)));
  CHUNKWISE_ASSIGN_OR_RETURN(zarr::ArrayOptions array_options,
                             internal::ArrayOptionsOf(context, *store, "", encoders, call));
  return ZarrArrayAccess::Wrap(zarr::Array::Open(std::move(store), "", std::move(array_options)));
}

Result<ZarrArray> ConvertZarrArray(const Context& context, std::string_view source_url,
                                   std::string_view destination_url,
                                   const ZarrConversionLayout& given_layout,
                                   const ZarrConvertOptions& options, const CallOptions& call) {
  CHUNKWISE_RETURN_IF_ERROR(context.CheckCancelled(call, "converting " + std::string(source_url)));
  CHUNKWISE_ASSIGN_OR_RETURN(const ZarrConversionLayout layout,
                             WithChecksum(given_layout, options.checksum));
  CHUNKWISE_ASSIGN_OR_RETURN(const ZarrArray source, OpenZarrArray(context, source_url, {}, call));
  const pipelines::ZarrConversionLayout pipeline_layout = ToPipeline(layout);
  CHUNKWISE_ASSIGN_OR_RETURN(
      const zarr::ArrayMetadata metadata,
      pipelines::ConvertedMetadata(ZarrArrayAccess::Held(source).metadata(), pipeline_layout));
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> destination,
                             OpenStore(context, destination_url, context.store_options(true)));
  CHUNKWISE_ASSIGN_OR_RETURN(
      zarr::ArrayOptions array_options,
      internal::ArrayOptionsOf(context, *destination, layout.codecs.value_or(""), options.encoders,
                               call));
  const core::Cancellation& cancellation = context.cancellation(call);
  return ZarrArrayAccess::Wrap(pipelines::ConvertZarrArray(
      ZarrArrayAccess::Held(source), std::move(destination), "", metadata,
      {.ranks = options.ranks,
       .overwrite = options.overwrite,
       .resume = options.resume,
       .destination = std::move(array_options),
       .progress = internal::ProgressOptionsOf(context, call, "convert"),
       .before_object = [&cancellation, &options](const std::string& key) {
         CHUNKWISE_RETURN_IF_ERROR(cancellation.Check("converting, before " + key));
         return options.before_object ? options.before_object(key) : Status::Ok();
       }}));
}

Result<Bytes> ReadRegion(const Context& context, ZarrArray& array, const core::Region& region,
                         const CallOptions& call) {
  CHUNKWISE_RETURN_IF_ERROR(context.CheckCancelled(call, "reading a zarr array"));
  CHUNKWISE_RETURN_IF_ERROR(core::CheckAllocation(RegionBytes(array, region), "reading a region"));
  Bytes data(static_cast<std::size_t>(RegionBytes(array, region)));
  CHUNKWISE_RETURN_IF_ERROR(ReadRegionInto(context, array, region, data.data(), call));
  return data;
}

Status ReadRegionInto(const Context& context, const ZarrArray& array, const core::Region& region,
                      void* out, const CallOptions& call) {
  CHUNKWISE_RETURN_IF_ERROR(context.CheckCancelled(call, "reading a zarr array"));
  std::unique_ptr<core::ProgressReporter> progress =
      context.StartProgress(call, "read", RegionBytes(array, region), "B");
  const Status status = ZarrArrayAccess::Held(array).ReadInto(
      region, out, {progress.get(), &context.cancellation(call)});
  if (status.ok()) progress->Finish();
  return status;
}

Result<std::shared_ptr<const Bytes>> ReadChunk(const Context& context, const ZarrArray& array,
                                               const core::Coord& chunk, const CallOptions& call) {
  CHUNKWISE_RETURN_IF_ERROR(context.CheckCancelled(call, "reading a zarr chunk"));
  return ZarrArrayAccess::Held(array).ReadChunk(chunk);
}

Status WriteRegion(const Context& context, ZarrArray& array, const core::Region& region,
                   ByteView data, const CallOptions& call) {
  CHUNKWISE_RETURN_IF_ERROR(context.CheckCancelled(call, "writing a zarr array"));
  std::unique_ptr<core::ProgressReporter> progress =
      context.StartProgress(call, "write", data.size(), "B");
  const Status status = ZarrArrayAccess::Held(array).Write(
      region, data, {progress.get(), &context.cancellation(call)});
  if (status.ok()) progress->Finish();
  return status;
}

Result<ZarrIndexLocation> ParseIndexLocation(std::string_view text) {
  if (text == "end") return ZarrIndexLocation::kEnd;
  if (text == "start") return ZarrIndexLocation::kStart;
  return Status::InvalidArgument("the shard index location must be \"end\" or \"start\", not \"" +
                                 std::string(text) + "\"");
}

Result<core::Region> ParseRegion(std::string_view text, const ZarrArray& array) {
  return core::ParseRegion(text, array.metadata().shape);
}

}  // namespace chunkwise
