#include "chunkwise/facade/zarr_chunk_batches.h"

#include <string>

#include "facade/zarr_array_access.h"
#include "formats/zarr/array_metadata.h"

namespace chunkwise {
namespace {

namespace zarr = formats::zarr;

Result<zarr::ArrayMetadata> ParseMetadata(std::string_view text,
                                          std::optional<std::string_view> zattrs, int zarr_format) {
  if (zarr_format == 3) return zarr::ParseV3ArrayMetadata(text, zarr::kZarrJsonKey);
  if (zarr_format != 2) {
    return Status::InvalidArgument("zarr_format must be 2 or 3, not " +
                                   std::to_string(zarr_format));
  }
  return zarr::ParseV2ArrayMetadata(text, zattrs, zarr::kZarrayKey);
}

Result<ZarrArray> FromMetadata(const Context& context, std::shared_ptr<store::Store> store,
                               std::string_view prefix, zarr::ArrayMetadata metadata) {
  zarr::ArrayOptions options;
  CHUNKWISE_ASSIGN_OR_RETURN(options.pool, context.pool_for(*store));
  options.buffers = context.buffers();
  options.cache = context.chunk_cache();
  options.coalescing = context.read_coalescing();
  return ZarrArrayAccess::Wrap(zarr::Array::FromMetadata(std::move(store), std::string(prefix),
                                                         std::move(metadata), std::move(options)));
}

// The library's transfers for the facade's: their coordinates, not the data.
std::vector<zarr::ChunkTransfer> ToFormat(std::span<const ZarrChunkTransfer> transfers) {
  std::vector<zarr::ChunkTransfer> out;
  out.reserve(transfers.size());
  for (const ZarrChunkTransfer& transfer : transfers) {
    out.push_back({transfer.chunk, transfer.box, transfer.buffer_origin});
  }
  return out;
}

}  // namespace

Result<ZarrArray> ZarrArrayFromMetadata(const Context& context, std::shared_ptr<store::Store> store,
                                        std::string_view prefix, std::string_view text,
                                        std::optional<std::string_view> zattrs, int zarr_format) {
  CHUNKWISE_ASSIGN_OR_RETURN(zarr::ArrayMetadata metadata,
                             ParseMetadata(text, zattrs, zarr_format));
  return FromMetadata(context, std::move(store), prefix, std::move(metadata));
}

Result<ZarrArray> ZarrArrayFromMetadata(const Context& context, std::shared_ptr<store::Store> store,
                                        std::string_view prefix, const ZarrArray& like) {
  return FromMetadata(context, std::move(store), prefix, ZarrArrayAccess::Held(like).metadata());
}

Result<std::vector<bool>> ReadZarrChunks(const ZarrArray& array,
                                         std::span<const ZarrChunkTransfer> transfers, void* out,
                                         const core::Shape& out_shape) {
  return ZarrArrayAccess::Held(array).ReadChunks(ToFormat(transfers), out, out_shape);
}

Status WriteZarrChunks(ZarrArray& array, std::span<const ZarrChunkTransfer> transfers,
                       ByteView data, const core::Shape& data_shape) {
  return ZarrArrayAccess::Held(array).WriteChunks(ToFormat(transfers), data, data_shape);
}

std::string ZarrChunkKey(const ZarrArray& array, std::span<const core::Index> coord) {
  return ZarrArrayAccess::Held(array).ChunkKey(coord);
}

}  // namespace chunkwise
