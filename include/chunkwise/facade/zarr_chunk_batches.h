// zarr arrays whose metadata another program has read (zarr-python hands its
// codec pipeline the parsed document), read and written a batch of chunks at
// a time (ReadZarrChunks and WriteZarrChunks): what the Python module's
// chunkwise.zarr.CodecPipeline runs on.
#ifndef CHUNKWISE_FACADE_ZARR_CHUNK_BATCHES_H_
#define CHUNKWISE_FACADE_ZARR_CHUNK_BATCHES_H_

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/index.h"
#include "chunkwise/core/region.h"
#include "chunkwise/facade/context.h"
#include "chunkwise/facade/zarr_arrays.h"

namespace chunkwise {

// One chunk of a batch: its grid coordinate, the box of it in the chunk's
// own coordinates, and where that box's first element lies in the caller's
// buffer. A codec pipeline plugged into zarr-python gets its work in this
// form: chunk by chunk, each with its selection and its place in the output.
struct ZarrChunkTransfer {
  core::Coord chunk;
  core::Region box;
  core::Coord buffer_origin;
};

// The array the metadata document describes at `prefix` ("" or ending in
// "/") of `store`, on the context's pool for the store and its buffers: the
// document as zarr-python would write it, zarr.json's text for zarr_format 3,
// or .zarray's (and .zattrs', when given) for 2. Nothing is read or written.
// InvalidArgument for another format; the parser's errors naming the key
// (zarr.json or .zarray); the codecs and grid are checked as OpenZarrArray
// checks them.
Result<ZarrArray> ZarrArrayFromMetadata(const Context& context, std::shared_ptr<store::Store> store,
                                        std::string_view prefix, std::string_view text,
                                        std::optional<std::string_view> zattrs, int zarr_format);
// The array `like` is, with its metadata, at `prefix` of `store` instead
// (e.g. a memory store holding some of its chunks). Nothing is read or written.
Result<ZarrArray> ZarrArrayFromMetadata(const Context& context, std::shared_ptr<store::Store> store,
                                        std::string_view prefix, const ZarrArray& like);

// Reads each transfer's box of its chunk into `out`, a C-order buffer of
// `out_shape` elements of the array's type, in parallel across the transfers
// (and a shard's inner chunks): sharded arrays fetch only the index and the
// inner chunks a box meets. Boxes of chunks not stored get the fill value.
// Returns, per transfer, whether its chunk (or shard) is stored.
// InvalidArgument naming the transfer when a chunk is outside the grid, its
// box leaves the chunk's part of the array, or the box placed at its origin
// leaves the buffer.
Result<std::vector<bool>> ReadZarrChunks(const ZarrArray& array,
                                         std::span<const ZarrChunkTransfer> transfers, void* out,
                                         const core::Shape& out_shape);
// Writes each transfer's box of `data` (C order, `data_shape`) into its chunk
// as WriteRegion does: chunks (shards) a box covers are encoded without
// reading, others merged; fill-valued ones are removed. InvalidArgument as
// ReadZarrChunks, and when two transfers name the same chunk.
Status WriteZarrChunks(ZarrArray& array, std::span<const ZarrChunkTransfer> transfers,
                       ByteView data, const core::Shape& data_shape);
// The store key (under the array's prefix) of the grid chunk (shard) `coord`.
std::string ZarrChunkKey(const ZarrArray& array, std::span<const core::Index> coord);

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_ZARR_CHUNK_BATCHES_H_
