#include "chunkwise/facade/zarr_strings.h"

#include <memory>
#include <utility>

#include "chunkwise/formats/zarr/array_layout.h"
#include "formats/zarr/string_array.h"

namespace chunkwise {
namespace {

Result<formats::zarr::StringArray> OpenStringArray(const Context& context, std::string_view url) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, url, context.store_options(false)));
  return formats::zarr::StringArray::Open(std::move(store), "");
}

ZarrStringArrayInfo InfoOf(const formats::zarr::StringArray& array) {
  return ZarrStringArrayInfo{
      .zarr_format = array.metadata().zarr_format,
      .shape = array.metadata().shape,
      .chunks = array.metadata().chunk_shape,
      .fill_value = array.fill_value(),
      .bytes = array.elements() == formats::zarr::StringArray::Elements::kBytes};
}

// A region error names the URL; the array's other errors name their keys.
Status WithUrl(Status status, std::string_view url) {
  if (status.code() == StatusCode::kInvalidArgument) return status.WithContext(url);
  return status;
}

}  // namespace

Result<ZarrStringArrayInfo> CreateZarrStringArray(const Context& context, std::string_view url,
                                                  const ZarrStringArraySpec& spec,
                                                  const ZarrStringCreateOptions& options,
                                                  const CallOptions& call) {
  CHUNKWISE_RETURN_IF_ERROR(context.CheckCancelled(call, "creating " + std::string(url)));
  if (!spec.attributes.is_object()) {
    return Status::InvalidArgument("the attributes must be a JSON object, not " +
                                   std::string(spec.attributes.type_name()) + " (" +
                                   std::string(url) + ")")
        .WithField("attributes");
  }
  formats::zarr::ArrayLayout layout;
  layout.shape = spec.shape;
  layout.chunk_shape = spec.chunks;
  layout.shard_shape = spec.shards;
  CHUNKWISE_ASSIGN_OR_RETURN(
      layout.codec,
      CodecsWithChunkChecksum(spec.codecs.ToShorthand(), spec.checksum, spec.zarr_format));
  layout.fill_value = spec.fill_value;
  layout.dimension_names = spec.dimension_names;
  layout.zarr_format = spec.zarr_format;
  layout.attributes = spec.attributes;
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, url, context.store_options(true)));
  Result<formats::zarr::StringArray> array =
      formats::zarr::StringArray::Create(std::move(store), "", layout, options.overwrite,
                                         spec.bytes ? formats::zarr::StringArray::Elements::kBytes
                                                    : formats::zarr::StringArray::Elements::kText);
  if (!array.ok()) return WithUrl(array.status(), url);
  return InfoOf(*array);
}

Status WriteZarrStrings(const Context& context, std::string_view url, const core::Region& region,
                        const std::vector<std::string>& values, const CallOptions& call) {
  CHUNKWISE_RETURN_IF_ERROR(context.CheckCancelled(call, "writing " + std::string(url)));
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, url, context.store_options(false)));
  CHUNKWISE_ASSIGN_OR_RETURN(const formats::zarr::StringArray array,
                             formats::zarr::StringArray::OpenForWrite(std::move(store), ""));
  return WithUrl(array.Write(region, values), url);
}

Result<ZarrStringArrayInfo> DescribeZarrStringArray(const Context& context, std::string_view url,
                                                    const CallOptions& call) {
  CHUNKWISE_RETURN_IF_ERROR(context.CheckCancelled(call, "opening " + std::string(url)));
  CHUNKWISE_ASSIGN_OR_RETURN(const formats::zarr::StringArray array, OpenStringArray(context, url));
  return InfoOf(array);
}

Result<std::vector<std::string>> ReadZarrStrings(const Context& context, std::string_view url,
                                                 const core::Region& region,
                                                 const CallOptions& call) {
  CHUNKWISE_RETURN_IF_ERROR(context.CheckCancelled(call, "reading " + std::string(url)));
  CHUNKWISE_ASSIGN_OR_RETURN(const formats::zarr::StringArray array, OpenStringArray(context, url));
  Result<std::vector<std::string>> strings = array.Read(region);
  if (!strings.ok() && strings.status().code() == StatusCode::kInvalidArgument) {
    return strings.status().WithContext(url);
  }
  return strings;
}

}  // namespace chunkwise
