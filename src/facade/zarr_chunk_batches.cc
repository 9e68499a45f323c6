#include "chunkwise/facade/zarr_chunk_batches.h"

#include <string>

#include "chunkwise/formats/zarr/array_metadata.h"

namespace chunkwise {

namespace zarr = formats::zarr;

Result<ZarrArrayMetadata> ParseZarrMetadata(std::string_view text,
                                            std::optional<std::string_view> zattrs,
                                            int zarr_format) {
  if (zarr_format == 3) return zarr::ParseV3ArrayMetadata(text, zarr::kZarrJsonKey);
  if (zarr_format != 2) {
    return Status::InvalidArgument("zarr_format must be 2 or 3, not " +
                                   std::to_string(zarr_format));
  }
  return zarr::ParseV2ArrayMetadata(text, zattrs, zarr::kZarrayKey);
}

Result<ZarrArray> ZarrArrayFromMetadata(const Context& context, std::shared_ptr<store::Store> store,
                                        std::string_view prefix, ZarrArrayMetadata metadata) {
  zarr::ArrayOptions options;
  CHUNKWISE_ASSIGN_OR_RETURN(options.pool, context.pool_for(*store));
  options.buffers = context.buffers();
  options.cache = context.chunk_cache();
  options.coalescing = context.read_coalescing();
  return ZarrArray::FromMetadata(std::move(store), std::string(prefix), std::move(metadata),
                                 std::move(options));
}

}  // namespace chunkwise
