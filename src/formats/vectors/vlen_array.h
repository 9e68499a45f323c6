// The cells of a layout-0.9 family array: a zarr v3 array of
// variable_length_bytes over the level's chunk grid, one element per cell.
//
// Spec: docs/formats/vectors.md, "Layout 0.9". A cell's chunk is the
// vlen-bytes encoding of one element (u32 count = 1, u32 length, the bytes),
// then any bytes→bytes codecs. The cell of spatial chunk c is c − origin, the
// origin being the array's chunk_grid_origin attribute (zero when absent).
// Sharded arrays are refused (Unsupported) for now. Thread-safe: only reads
// and pure encoding.
#ifndef CHUNKWISE_FORMATS_VECTORS_VLEN_ARRAY_H_
#define CHUNKWISE_FORMATS_VECTORS_VLEN_ARRAY_H_

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"
#include "codec/codec_chain.h"
#include "formats/vectors/paths.h"
#include "formats/vectors/vector_store.h"

namespace chunkwise::formats::vectors {

struct VlenArray {
  std::string path;  // Layout path of the node ("<level>/vertices/").
  ChunkCoord origin{};
  std::vector<ChunkCoord> nonempty;  // Sorted; from the nonempty_chunks attribute.
  nlohmann::json attributes;
  std::shared_ptr<const codec::CodecChain> compressors;  // The bytes→bytes codecs.
};

// The array at `path`; nullopt when there is no node. InvalidArgument (naming
// the node) when it is not a variable_length_bytes array of one-cell chunks.
Result<std::optional<VlenArray>> OpenVlenArray(const VectorStore& store, const std::string& path);
// The bytes of `chunk`'s cell; nullopt when the cell is absent or empty.
Result<std::optional<Bytes>> ReadVlenCell(const VectorStore& store, const VlenArray& array,
                                          const ChunkCoord& chunk);
// The bytes->bytes codecs of a `codecs` list after its first (array->bytes)
// codec, as a chain whose DecodeBytes undoes them; errors name `where`.
Result<std::shared_ptr<const codec::CodecChain>> CompressorsAfterFirst(const nlohmann::json& codecs,
                                                                       std::string_view where);
// The stored chunk of a cell holding `element` (no compression).
Bytes EncodeVlenCell(ByteView element);

}  // namespace chunkwise::formats::vectors

#endif  // CHUNKWISE_FORMATS_VECTORS_VLEN_ARRAY_H_
