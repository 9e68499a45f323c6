// StringArray: a zarr array of variable-length UTF-8 strings, read as text,
// or of variable-length byte strings, read as bytes.
//
// Spec: docs/formats/zarr.md, "Variable-length strings". zarr-python 3 writes
// them as v3 data_type "string" with the "vlen-utf8" array→bytes codec, and
// as v2 dtype "|O" with a "vlen-utf8" filter; bytes as v3 data_type
// "variable_length_bytes" with "vlen-bytes" (fill value in base64), and v2
// "|O" with a "vlen-bytes" filter. Their elements have no fixed
// size, so Array (whose chunks are fixed-size elements) refuses them and
// this reads them instead: a chunk, once its bytes→bytes codecs are undone,
// is a little-endian u32 element count (the whole chunk shape's, C order),
// then per element a u32 byte length and that many bytes (of UTF-8 for
// vlen-utf8; vlen-bytes lays out any bytes the same way). A missing
// chunk is all fill value. In a sharded array (v3 sharding_indexed with
// [vlen-utf8, bytes→bytes codecs] inside, index [bytes little, crc32c]) each
// inner chunk is such a chunk, located by the shard's index. After a
// transpose codec (v2: order "F") a chunk holds its elements in the
// transposed chunk's C order. Create and Write lay chunks out the same way, as
// zarr-python 3 reads them. A value type, thread-compatible.
#ifndef CHUNKWISE_SRC_FORMATS_ZARR_STRING_ARRAY_H_
#define CHUNKWISE_SRC_FORMATS_ZARR_STRING_ARRAY_H_

#include <memory>
#include <string>
#include <vector>

#include "chunkwise/core/region.h"
#include "chunkwise/core/result.h"
#include "chunkwise/store/store.h"
#include "codec/codec_chain.h"
#include "formats/zarr/array_layout.h"
#include "formats/zarr/array_metadata.h"
#include "formats/zarr/shard_index.h"

namespace chunkwise::formats::zarr {

class StringArray {
 public:
  // What the elements are: UTF-8 text (vlen-utf8) or any bytes (vlen-bytes).
  enum class Elements { kText, kBytes };

  // True when `metadata` is a vlen-utf8 string or vlen-bytes array (either format).
  static bool Holds(const ArrayMetadata& metadata);

  // Writes the metadata of a new string array under `prefix`: v3 data_type
  // "string" with codecs [vlen-utf8, bytes→bytes codecs of `layout.codec`],
  // or v2 dtype "|O" with filters [vlen-utf8]; for kBytes data_type
  // "variable_length_bytes" and vlen-bytes instead. `layout.data_type` and
  // `endian` are not used, `fill_value` is the text (bytes) itself (absent: "").
  // InvalidArgument naming the field for a layout BuildArrayMetadata
  // refuses (shards on v2 among them), InvalidArgument naming the prefix when
  // something is there and !overwrite.
  static Result<StringArray> Create(std::shared_ptr<store::Store> store, std::string prefix,
                                    const ArrayLayout& layout, bool overwrite,
                                    Elements elements = Elements::kText);

  // The string array whose metadata is under `prefix` ("" or ending in "/").
  // NotFound without metadata; Unsupported naming the data type when it is
  // not a vlen-utf8 (vlen-bytes) array, or naming the codecs when they are more
  // than [transpose,] vlen-utf8 (vlen-bytes) and bytes→bytes codecs, alone or
  // sharded; InvalidArgument for a vlen-bytes fill value that is not base64.
  static Result<StringArray> Open(std::shared_ptr<const store::Store> store, std::string prefix);
  // As Open, for Write too.
  static Result<StringArray> OpenForWrite(std::shared_ptr<store::Store> store, std::string prefix);

  const ArrayMetadata& metadata() const { return metadata_; }
  Elements elements() const { return elements_; }
  // What a missing chunk's elements read as (for kBytes, the bytes).
  const std::string& fill_value() const { return fill_value_; }

  // The elements of `region`, C order. InvalidArgument when the region is
  // not inside the array; Corruption naming the chunk's key when a chunk is
  // not vlen-utf8 (vlen-bytes) of the chunk's element count or holds a
  // string that is not UTF-8 (text only); OutOfRange past the process's memory limit.
  Result<std::vector<std::string>> Read(const core::Region& region) const;

  // Writes `values` (C order, region.num_elements() of them) over `region`.
  // A chunk (shard) the region covers in part is read, changed and
  // rewritten; a chunk left all fill value is erased (an inner chunk: left
  // out of its shard), as zarr-python 3 stores none either.
  // InvalidArgument when the region is not inside the array, the count
  // differs or (text only) a value is not UTF-8 (naming its index); Unsupported
  // on an array opened read-only; the store's errors.
  Status Write(const core::Region& region, const std::vector<std::string>& values) const;

 private:
  StringArray() = default;

  // InvalidArgument when `region` is not inside the array.
  Status CheckRegion(const core::Region& region) const;

  // The strings of the block (chunk, or shard when sharded) at grid
  // coordinates `block`, one per element of its full shape, C order;
  // nullopt when it is not stored.
  Result<std::optional<std::vector<std::string>>> ReadBlock(const core::Coord& block) const;
  // Stores the block's strings, or erases its key when all are fill value.
  Status WriteBlock(const core::Coord& block, const std::vector<std::string>& strings) const;

  // One (inner) chunk's strings from its stored bytes; Corruption naming `where`.
  Result<std::vector<std::string>> DecodeChunk(ByteView stored, const std::string& where) const;
  // One (inner) chunk's stored bytes; nullopt when all are the fill value.
  Result<std::optional<Bytes>> EncodeChunk(const std::vector<std::string>& strings) const;
  // Calls visit(element) with the C-order index in the (inner) chunk of each
  // element in the order a transposed chunk stores them.
  template <typename Visit>
  void ForEachTransposed(Visit visit) const;
  // Inner chunks per shard, per dimension.
  core::Shape ChunksPerShard() const;
  // The elements of the inner chunk at `position` (in ChunksPerShard's grid), in the shard.
  core::Region InnerRegion(const core::Coord& position) const;

  std::shared_ptr<const store::Store> store_;
  std::shared_ptr<store::Store> writable_;  // store_, when opened for writing.
  std::string prefix_;
  ArrayMetadata metadata_;
  std::string fill_value_;
  Elements elements_ = Elements::kText;
  std::shared_ptr<const codec::CodecChain> bytes_codecs_;  // After vlen-utf8.
  core::Shape inner_chunk_;  // What vlen-utf8 encodes: the chunk, or the shard's inner chunk.
  bool sharded_ = false;
  IndexLocation index_location_ = IndexLocation::kEnd;
  std::vector<std::size_t> transpose_;  // A transpose codec's order (F order); empty: C order.
};

}  // namespace chunkwise::formats::zarr

#endif  // CHUNKWISE_SRC_FORMATS_ZARR_STRING_ARRAY_H_
