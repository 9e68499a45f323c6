// N5 datasets as volumes (`chunkwise import DATASET.n5`): one dataset of an
// N5 container, read through a Store (any scheme), block by block.
//
// Format facts (the N5 specification, saalfeldlab/n5):
// - The dataset's attributes.json holds "dimensions" and "blockSize" (one
//   entry per dimension, the first dimension varying fastest), "dataType"
//   ("uint8" .. "float64", as zarr v3 names them) and "compression", an
//   object whose "type" is raw, gzip (gzip stream, or zlib with "useZlib"),
//   zstd, blosc, bzip2 or xz (versions before 1.0: "compressionType").
// - A block is the value at key "i0/i1/.../in" (its grid position, first
//   dimension first): a big-endian header, uint16 mode (0 default,
//   1 varlength, 2 object), uint16 number of dimensions, uint32 block size per
//   dimension, and for mode 1 a uint32 number of elements; then the
//   compressed values, big-endian, the first dimension varying fastest. A
//   block at the volume's edge may be stored truncated to the volume.
//
// The dimensions are reversed here, as zarr's N5 readers do: N5 dimensions
// (x, y, z) are a C-order array of shape (z, y, x), so a block's values are
// already in C order of the reversed shape. Absent blocks read as zero.
#ifndef CHUNKWISE_FORMATS_N5_N5_DATASET_H_
#define CHUNKWISE_FORMATS_N5_N5_DATASET_H_

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/data_type.h"
#include "chunkwise/core/index.h"
#include "chunkwise/core/result.h"
#include "chunkwise/core/thread_pool.h"
#include "chunkwise/store/store.h"
#include "codec/codec.h"

namespace chunkwise::formats::n5 {

// What a dataset's attributes.json says, in N5's own dimension order.
struct N5Attributes {
  core::Shape dimensions;
  core::Shape block_size;
  core::DataType data_type;
  // The compression's "type" ("raw", "gzip", ...) and its whole object.
  std::string compression_type;
  nlohmann::json compression = nlohmann::json::object();
  // The attributes other than the structural ones (dimensions, blockSize,
  // dataType, compression, compressionType and the container's "n5" version).
  nlohmann::json other = nlohmann::json::object();
};

// Parses attributes.json's bytes; `where` names it in errors. InvalidArgument
// for a group's attributes (neither dimensions nor dataType);
// Corruption naming `where` for text that is not a JSON object, or
// dimensions and blockSize that are missing, of different lengths, negative
// or (blockSize) zero; Unsupported naming the value for a dataType other
// than the ten numeric ones or a compression this reader lacks (lz4, whose
// N5 stream is Java's LZ4Block framing, among them).
Result<N5Attributes> ParseAttributes(ByteView json, std::string_view where);

// Bytes→bytes decoder of `attributes`' compression; null for raw.
Result<std::shared_ptr<const codec::BytesToBytesCodec>> DecoderOf(const N5Attributes& attributes,
                                                                  std::string_view where);

// A block's header.
struct BlockHeader {
  std::uint16_t mode = 0;
  std::vector<std::uint32_t> size;             // Per dimension, N5 order.
  std::optional<std::uint32_t> element_count;  // Mode 1 (varlength) only.
  std::size_t header_bytes = 0;                // Where the compressed values start.
};

// Parses the header at the start of `block`, the value of `key` (named in
// errors, as the store describes it: `where`). Corruption for a block
// shorter than its header or a mode other than 0, 1 or 2.
Result<BlockHeader> ParseBlockHeader(ByteView block, std::string_view where);

class N5Dataset {
 public:
  // Opens the dataset at the root of `store` (its attributes.json). NotFound
  // naming the store when there is none; ParseAttributes' errors else.
  static Result<std::unique_ptr<N5Dataset>> Open(std::shared_ptr<const store::Store> store);

  // The dataset as the store describes its root, for messages.
  const std::string& name() const { return name_; }
  // C order: N5's dimensions reversed.
  const core::Shape& shape() const { return shape_; }
  // The block size reversed, no larger than the shape (at least 1).
  const core::Shape& chunks() const { return chunks_; }
  core::DataType data_type() const { return attributes_.data_type; }
  const N5Attributes& attributes() const { return attributes_; }
  // Bytes of one index along the first (C order) dimension.
  std::uint64_t row_bytes() const;

  // Reads rows [first, first + count) of the first C-order dimension (N5's
  // last) into `out` (count × row_bytes() bytes, C order, host byte order),
  // zero where no block is stored. OutOfRange for rows past the end or a
  // wrong `out` size; Corruption naming the block's key for a block shorter
  // than its header or whose values are not the size its header states,
  // whose header does not fit the dataset, or that does not decompress;
  // Unsupported for an object-mode block. The blocks are fetched and
  // decoded on `pool` when given (each writes its own part of `out`);
  // from a store whose gets are batched (a remote one), each batch of blocks'
  // GETs is sent at once from the calling thread (store::GetMany) and the
  // pool only decodes.
  Status ReadRows(core::Index first, core::Index count, std::span<std::uint8_t> out,
                  core::ThreadPool* pool = nullptr) const;

 private:
  N5Dataset() = default;
  // The key of the block at grid position `position` (N5 order): "i0/i1/...".
  std::string BlockKey(const std::vector<core::Index>& position) const;
  // Decodes `stored`, the block at grid position `position` (N5 order;
  // nullopt: none stored, zero), and copies what lies in rows
  // [first, first + count) into `out`.
  Status CopyBlock(const std::vector<core::Index>& position, const std::optional<Bytes>& stored,
                   core::Index first, core::Index count, std::span<std::uint8_t> out) const;

  std::shared_ptr<const store::Store> store_;
  std::string name_;
  N5Attributes attributes_;
  std::shared_ptr<const codec::BytesToBytesCodec> decoder_;
  core::Shape shape_;
  core::Shape chunks_;
};

}  // namespace chunkwise::formats::n5

#endif  // CHUNKWISE_FORMATS_N5_N5_DATASET_H_
