#include "chunkwise/facade/zarr_arrays.h"

#include "chunkwise/formats/zarr/array_layout.h"
#include "core/memory_limit.h"
#include "facade/zarr_array_options.h"

namespace chunkwise {
namespace {

namespace zarr = formats::zarr;

// The bytes of `region`'s elements (saturating: a region too large to hold fails its allocation).
std::uint64_t RegionBytes(const ZarrArray& array, const core::Region& region) {
  return core::SaturatingProduct(static_cast<std::uint64_t>(region.num_elements()),
                                 array.metadata().data_type.size());
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
    return ZarrArray::CreateUnpublished(std::move(store), "", std::move(metadata),
                                        options.overwrite, std::move(array_options));
  }
  return ZarrArray::Create(std::move(store), "", std::move(metadata), options.overwrite,
                           std::move(array_options));
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
  return ZarrArray::JoinUnpublished(std::move(store), "", std::move(metadata),
                                    std::move(array_options));
}

Status PublishZarrArray(ZarrArray& array) { return array.Publish(); }

std::string ZarrMetadataJson(const ZarrArray& array) {
  return zarr::FormatV3ArrayMetadata(array.metadata());
}

core::Endian ZarrByteOrder(const ZarrArray& array) {
  // One-byte types have no byte order: DescribeLayout says little for them.
  return zarr::DescribeLayout(array.metadata()).endian;
}

Result<ZarrArray> OpenZarrArray(const Context& context, std::string_view url,
                                const ZarrWriteEncoders& encoders, const CallOptions& call) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, url, context.store_options(false)));
  CHUNKWISE_ASSIGN_OR_RETURN(zarr::ArrayOptions array_options,
                             internal::ArrayOptionsOf(context, *store, "", encoders, call));
  return ZarrArray::Open(std::move(store), "", std::move(array_options));
}

Result<ZarrArray> ConvertZarrArray(const Context& context, std::string_view source_url,
                                   std::string_view destination_url,
                                   const ZarrConversionLayout& given_layout,
                                   const ZarrConvertOptions& options, const CallOptions& call) {
  CHUNKWISE_RETURN_IF_ERROR(context.CheckCancelled(call, "converting " + std::string(source_url)));
  CHUNKWISE_ASSIGN_OR_RETURN(const ZarrConversionLayout layout,
                             WithChecksum(given_layout, options.checksum));
  CHUNKWISE_ASSIGN_OR_RETURN(const ZarrArray source, OpenZarrArray(context, source_url, {}, call));
  CHUNKWISE_ASSIGN_OR_RETURN(const zarr::ArrayMetadata metadata,
                             pipelines::ConvertedMetadata(source.metadata(), layout));
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> destination,
                             OpenStore(context, destination_url, context.store_options(true)));
  CHUNKWISE_ASSIGN_OR_RETURN(
      zarr::ArrayOptions array_options,
      internal::ArrayOptionsOf(context, *destination, layout.codecs.value_or(""), options.encoders,
                               call));
  const core::Cancellation& cancellation = context.cancellation(call);
  return pipelines::ConvertZarrArray(
      source, std::move(destination), "", metadata,
      {.ranks = options.ranks,
       .overwrite = options.overwrite,
       .resume = options.resume,
       .destination = std::move(array_options),
       .progress = internal::ProgressOptionsOf(context, call, "convert"),
       .before_object = [&cancellation, &options](const std::string& key) {
         CHUNKWISE_RETURN_IF_ERROR(cancellation.Check("converting, before " + key));
         return options.before_object ? options.before_object(key) : Status::Ok();
       }});
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
  const Status status = array.ReadInto(region, out, {progress.get(), &context.cancellation(call)});
  if (status.ok()) progress->Finish();
  return status;
}

Status WriteRegion(const Context& context, ZarrArray& array, const core::Region& region,
                   ByteView data, const CallOptions& call) {
  CHUNKWISE_RETURN_IF_ERROR(context.CheckCancelled(call, "writing a zarr array"));
  std::unique_ptr<core::ProgressReporter> progress =
      context.StartProgress(call, "write", data.size(), "B");
  const Status status = array.Write(region, data, {progress.get(), &context.cancellation(call)});
  if (status.ok()) progress->Finish();
  return status;
}

Result<zarr::IndexLocation> ParseIndexLocation(std::string_view text) {
  if (text == "end") return zarr::IndexLocation::kEnd;
  if (text == "start") return zarr::IndexLocation::kStart;
  return Status::InvalidArgument("the shard index location must be \"end\" or \"start\", not \"" +
                                 std::string(text) + "\"");
}

Result<core::Region> ParseRegion(std::string_view text, const ZarrArray& array) {
  return core::ParseRegion(text, array.metadata().shape);
}

}  // namespace chunkwise
