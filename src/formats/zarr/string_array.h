// StringArray: a zarr array of variable-length UTF-8 strings, read as text.
//
// Spec: docs/formats/zarr.md, "Variable-length strings". zarr-python 3 writes
// them as v3 data_type "string" with the "vlen-utf8" array→bytes codec, and
// as v2 dtype "|O" with a "vlen-utf8" filter. Their elements have no fixed
// size, so Array (whose chunks are fixed-size elements) refuses them and
// this reads them instead: a chunk, once its bytes→bytes codecs are undone,
// is a little-endian u32 element count (the whole chunk shape's, C order),
// then per element a u32 byte length and that many bytes of UTF-8. A missing
// chunk is all fill value. Read only; a value type, thread-compatible.
#ifndef CHUNKWISE_SRC_FORMATS_ZARR_STRING_ARRAY_H_
#define CHUNKWISE_SRC_FORMATS_ZARR_STRING_ARRAY_H_

#include <memory>
#include <string>
#include <vector>

#include "chunkwise/codec/codec_chain.h"
#include "chunkwise/core/region.h"
#include "chunkwise/core/result.h"
#include "chunkwise/formats/zarr/array_metadata.h"
#include "chunkwise/store/store.h"

namespace chunkwise::formats::zarr {

class StringArray {
 public:
  // True when `metadata` is a vlen-utf8 string array (either format).
  static bool Holds(const ArrayMetadata& metadata);

  // The string array whose metadata is under `prefix` ("" or ending in "/").
  // NotFound without metadata; Unsupported naming the data type when it is
  // not a vlen-utf8 string array, or naming the codecs when they are more
  // than vlen-utf8 and bytes→bytes codecs (sharding, F order).
  static Result<StringArray> Open(std::shared_ptr<const store::Store> store, std::string prefix);

  const ArrayMetadata& metadata() const { return metadata_; }
  // What a missing chunk's elements read as.
  const std::string& fill_value() const { return fill_value_; }

  // The elements of `region`, C order. InvalidArgument when the region is
  // not inside the array; Corruption naming the chunk's key when a chunk is
  // not vlen-utf8 of the chunk's element count or holds a string that is not
  // UTF-8; OutOfRange past the process's memory limit.
  Result<std::vector<std::string>> Read(const core::Region& region) const;

 private:
  StringArray() = default;

  // Decodes the chunk at `chunk` (grid coordinates) into one string per
  // element of the full chunk shape; nullopt when it is not stored.
  Result<std::optional<std::vector<std::string>>> ReadChunk(const core::Coord& chunk) const;

  std::shared_ptr<const store::Store> store_;
  std::string prefix_;
  ArrayMetadata metadata_;
  std::string fill_value_;
  std::shared_ptr<const codec::CodecChain> bytes_codecs_;  // After vlen-utf8.
};

}  // namespace chunkwise::formats::zarr

#endif  // CHUNKWISE_SRC_FORMATS_ZARR_STRING_ARRAY_H_
