// zarr arrays whose metadata another program has read (zarr-python hands its
// codec pipeline the parsed document), read and written a batch of chunks at
// a time (ZarrArray::ReadChunks and WriteChunks): what the Python module's
// chunkwise.zarr.CodecPipeline runs on.
#ifndef CHUNKWISE_FACADE_ZARR_CHUNK_BATCHES_H_
#define CHUNKWISE_FACADE_ZARR_CHUNK_BATCHES_H_

#include <memory>
#include <optional>
#include <string_view>

#include "chunkwise/facade/context.h"
#include "chunkwise/facade/zarr_arrays.h"

namespace chunkwise {

// One chunk of a batch: its grid coordinate, the box of it, and where that
// box lies in the caller's buffer.
using ZarrChunkTransfer = formats::zarr::ChunkTransfer;

// The metadata document as zarr-python would write it: zarr.json's text for
// zarr_format 3, or .zarray's (and .zattrs', when given) for 2.
// InvalidArgument for another format; the parser's errors naming the key.
Result<ZarrArrayMetadata> ParseZarrMetadata(std::string_view text,
                                            std::optional<std::string_view> zattrs,
                                            int zarr_format);

// The array `metadata` describes at `prefix` ("" or ending in "/") of
// `store`, on the context's pool for the store and its buffers. Nothing is
// read or written; the codecs and grid are checked as OpenZarrArray checks them.
Result<ZarrArray> ZarrArrayFromMetadata(const Context& context, std::shared_ptr<store::Store> store,
                                        std::string_view prefix, ZarrArrayMetadata metadata);

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_ZARR_CHUNK_BATCHES_H_
