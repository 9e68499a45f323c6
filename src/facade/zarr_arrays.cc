#include "chunkwise/facade/zarr_arrays.h"

#include "chunkwise/codec/codec_shorthand.h"
#include "chunkwise/core/memory_limit.h"
#include "chunkwise/formats/zarr/array_layout.h"

namespace chunkwise {
namespace {

namespace zarr = formats::zarr;

Result<zarr::ArrayOptions> ArrayOptionsOf(const Context& context, const store::Store& store,
                                          std::string_view codecs, const CallOptions& call = {}) {
  zarr::ArrayOptions options;
  CHUNKWISE_ASSIGN_OR_RETURN(options.pool, context.pool_for(store, call));
  options.buffers = context.buffers();
  if (!codecs.empty()) {
    // The encoder a shorthand picks (e.g. deterministic blosc-lz4) writes the chunks.
    CHUNKWISE_ASSIGN_OR_RETURN(const codec::CodecShorthand shorthand,
                               codec::ParseCodecShorthandWithEncoders(codecs, 1));
    options.codec_build = shorthand.build;
  }
  return options;
}

// The bytes of `region`'s elements (saturating: a region too large to hold fails its allocation).
std::uint64_t RegionBytes(const ZarrArray& array, const core::Region& region) {
  return core::SaturatingProduct(static_cast<std::uint64_t>(region.num_elements()),
                                 array.metadata().data_type.size());
}

}  // namespace

Result<ZarrArray> CreateZarrArray(const Context& context, std::string_view url,
                                  const ZarrArraySpec& spec, const ZarrCreateOptions& options) {
  zarr::ArrayLayout layout;
  layout.shape = spec.shape;
  layout.data_type = spec.data_type;
  layout.chunk_shape = spec.chunks;
  layout.shard_shape = spec.shards;
  layout.codec = spec.codecs.ToShorthand();
  layout.index_location = spec.index_location;
  layout.fill_value = spec.fill_value;
  layout.dimension_names = spec.dimension_names;
  layout.zarr_format = spec.zarr_format;
  layout.attributes = spec.attributes;
  if (!spec.codec_documents.is_null()) layout.codec = "";  // No encoder choice: default encoders.
  CHUNKWISE_ASSIGN_OR_RETURN(zarr::ArrayMetadata metadata, spec.codec_documents.is_null()
                                                               ? zarr::BuildArrayMetadata(layout)
                                                               : zarr::BuildArrayMetadataWithCodecs(
                                                                     layout, spec.codec_documents));
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, url, context.store_options(true)));
  CHUNKWISE_ASSIGN_OR_RETURN(zarr::ArrayOptions array_options,
                             ArrayOptionsOf(context, *store, layout.codec));
  if (!options.publish) {
    return ZarrArray::CreateUnpublished(std::move(store), "", std::move(metadata),
                                        options.overwrite, std::move(array_options));
  }
  return ZarrArray::Create(std::move(store), "", std::move(metadata), options.overwrite,
                           std::move(array_options));
}

Result<ZarrArray> JoinUnpublishedZarrArray(const Context& context, std::string_view url,
                                           std::string_view zarr_json, std::string_view codecs) {
  CHUNKWISE_ASSIGN_OR_RETURN(zarr::ArrayMetadata metadata,
                             zarr::ParseV3ArrayMetadata(zarr_json, zarr::kZarrJsonKey));
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, url, context.store_options(false)));
  CHUNKWISE_ASSIGN_OR_RETURN(zarr::ArrayOptions array_options,
                             ArrayOptionsOf(context, *store, codecs));
  return ZarrArray::JoinUnpublished(std::move(store), "", std::move(metadata),
                                    std::move(array_options));
}

Status PublishZarrArray(ZarrArray& array) { return array.Publish(); }

std::string ZarrMetadataJson(const ZarrArray& array) {
  return zarr::FormatV3ArrayMetadata(array.metadata());
}

Result<ZarrArray> OpenZarrArray(const Context& context, std::string_view url) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, url, context.store_options(false)));
  CHUNKWISE_ASSIGN_OR_RETURN(zarr::ArrayOptions array_options, ArrayOptionsOf(context, *store, ""));
  return ZarrArray::Open(std::move(store), "", std::move(array_options));
}

Result<ZarrArray> ConvertZarrArray(const Context& context, std::string_view source_url,
                                   std::string_view destination_url,
                                   const pipelines::ZarrConversionLayout& layout,
                                   const ZarrConvertOptions& options, const CallOptions& call) {
  CHUNKWISE_RETURN_IF_ERROR(context.CheckCancelled(call, "converting " + std::string(source_url)));
  CHUNKWISE_ASSIGN_OR_RETURN(const ZarrArray source, OpenZarrArray(context, source_url));
  CHUNKWISE_ASSIGN_OR_RETURN(const zarr::ArrayMetadata metadata,
                             pipelines::ConvertedMetadata(source.metadata(), layout));
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> destination,
                             OpenStore(context, destination_url, context.store_options(true)));
  CHUNKWISE_ASSIGN_OR_RETURN(
      zarr::ArrayOptions array_options,
      ArrayOptionsOf(context, *destination, layout.codecs.value_or(""), call));
  return pipelines::ConvertZarrArray(
      source, std::move(destination), "", metadata,
      {.ranks = options.ranks,
       .overwrite = options.overwrite,
       .resume = options.resume,
       .destination = std::move(array_options),
       .progress = {.label = "convert",
                    .mode = call.progress_mode.value_or(context.progress_mode()),
                    .observer = call.observer != nullptr ? call.observer : context.observer()},
       .before_object = [&context, &call](const std::string& key) {
         return context.CheckCancelled(call, "converting, before " + key);
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

Result<core::Region> ParseRegion(std::string_view text, const ZarrArray& array) {
  return core::ParseRegion(text, array.metadata().shape);
}

}  // namespace chunkwise
