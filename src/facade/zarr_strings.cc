#include "chunkwise/facade/zarr_strings.h"

#include <memory>
#include <utility>

#include "formats/zarr/string_array.h"

namespace chunkwise {
namespace {

Result<formats::zarr::StringArray> OpenStringArray(const Context& context, std::string_view url) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, url, context.store_options(false)));
  return formats::zarr::StringArray::Open(std::move(store), "");
}

}  // namespace

Result<ZarrStringArrayInfo> DescribeZarrStringArray(const Context& context, std::string_view url,
                                                    const CallOptions& call) {
  CHUNKWISE_RETURN_IF_ERROR(context.CheckCancelled(call, "opening " + std::string(url)));
  CHUNKWISE_ASSIGN_OR_RETURN(const formats::zarr::StringArray array, OpenStringArray(context, url));
  return ZarrStringArrayInfo{.zarr_format = array.metadata().zarr_format,
                             .shape = array.metadata().shape,
                             .chunks = array.metadata().chunk_shape,
                             .fill_value = array.fill_value()};
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
