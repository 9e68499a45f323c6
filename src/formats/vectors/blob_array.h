// A per-chunk blob as a 1-D uint8 zarr v3 array holding one chunk.
//
// Spec: docs/formats/vectors.md, "Tree" (blobs): metadata
// at "<node>/zarr.json" with shape == chunk_shape == [blob size], payload at
// "<node>/c/0". chunkwise writes codecs [bytes, zstd level 3]; readers accept
// any bytes→bytes chain the codec registry knows. An empty blob is never
// written (zero-size chunks are invalid zarr); absent means no data.
// Thread-safe: the codec chains are immutable, and a BlobChains cache locks.
#ifndef CHUNKWISE_FORMATS_VECTORS_BLOB_ARRAY_H_
#define CHUNKWISE_FORMATS_VECTORS_BLOB_ARRAY_H_

#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"
#include "codec/codec_chain.h"

namespace chunkwise::formats::vectors {

// The payload key of a blob node, relative to the node prefix.
inline constexpr std::string_view kBlobChunkKey = "c/0";

// An encoded blob array: its zarr.json text and its chunk bytes.
struct EncodedBlobArray {
  std::string metadata;
  Bytes chunk;
};

// The codec chains of the blobs one VectorStore reads and writes, built once
// per distinct codec list (a store's blobs all share one), up to 64 lists.
class BlobChains {
 public:
  Result<std::shared_ptr<const codec::CodecChain>> For(const nlohmann::json& codecs);

 private:
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const codec::CodecChain>> chains_;
};

// REQUIRES: !blob.empty().
Result<EncodedBlobArray> EncodeBlobArray(ByteView blob, int zstd_level, BlobChains& chains);
// Parses `metadata_text` (a blob node's zarr.json) and decodes `chunk`; both
// name `key` in errors. InvalidArgument/Unsupported for metadata that is not a
// 1-D uint8 single-chunk array with known codecs; Corruption for a chunk that
// does not decode to the stated size.
Result<Bytes> DecodeBlobArray(std::string_view metadata_text, ByteView chunk, std::string_view key,
                              BlobChains& chains);

}  // namespace chunkwise::formats::vectors

#endif  // CHUNKWISE_FORMATS_VECTORS_BLOB_ARRAY_H_
