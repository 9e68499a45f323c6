// The metadata of the small unsharded arrays the tests of batched requests
// read and write.
#ifndef CHUNKWISE_TESTS_UNIT_FORMATS_SMALL_CHUNKED_ARRAY_H_
#define CHUNKWISE_TESTS_UNIT_FORMATS_SMALL_CHUNKED_ARRAY_H_

#include <cstdint>
#include <nlohmann/json.hpp>

#include "formats/zarr/array.h"

namespace chunkwise::formats::zarr {

// `length` uint32 values (fill 0) in chunks of two, stored little-endian
// with no compressor: every chunk is an object of 8 bytes.
inline ArrayMetadata Uint32ChunksOfTwo(std::int64_t length) {
  ArrayMetadata metadata;
  metadata.shape = core::Shape{length};
  metadata.chunk_shape = core::Shape{2};
  metadata.data_type = core::DataType(core::DataTypeId::kUInt32);
  metadata.fill_value = {0, 0, 0, 0};
  metadata.codecs =
      nlohmann::json::array({{{"name", "bytes"}, {"configuration", {{"endian", "little"}}}}});
  return metadata;
}

// uint16 of shape 4x40 (fill 7) in 8 chunks of 4x5, zstd level 1 without
// its checksum.
inline ArrayMetadata Uint16ZstdChunksOf4By5() {
  ArrayMetadata metadata;
  metadata.shape = core::Shape{4, 40};
  metadata.chunk_shape = core::Shape{4, 5};
  metadata.data_type = core::DataType(core::DataTypeId::kUInt16);
  metadata.fill_value = {7, 0};
  metadata.codecs = nlohmann::json::array(
      {{{"name", "bytes"}, {"configuration", {{"endian", "little"}}}},
       {{"name", "zstd"}, {"configuration", {{"level", 1}, {"checksum", false}}}}});
  return metadata;
}

}  // namespace chunkwise::formats::zarr

#endif  // CHUNKWISE_TESTS_UNIT_FORMATS_SMALL_CHUNKED_ARRAY_H_
