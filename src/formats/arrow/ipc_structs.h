// The fixed-size flatbuffer structs of Arrow IPC, as little-endian byte images.
//
// FieldNode {length i64, null_count i64} and Buffer {offset i64, length i64}
// are 16 bytes; Block {offset i64, metaDataLength i32, 4 pad bytes,
// bodyLength i64} is 24. Kept as bytes stored with StoreLittleEndian (no
// host-order assumption); alignas(8) makes the builder align the vectors the
// way Arrow's generated code does. Readers load fields from the raw bytes.
#ifndef CHUNKWISE_SRC_FORMATS_ARROW_IPC_STRUCTS_H_
#define CHUNKWISE_SRC_FORMATS_ARROW_IPC_STRUCTS_H_

#include <cstdint>

#include "chunkwise/core/bytes.h"
#include "formats/arrow/ipc_format.h"

namespace chunkwise::formats::arrow::internal {

struct alignas(8) Struct16 {
  std::uint8_t bytes[16];

  static Struct16 Of(std::int64_t first, std::int64_t second) {
    Struct16 out;
    StoreLittleEndian(static_cast<std::uint64_t>(first), out.bytes);
    StoreLittleEndian(static_cast<std::uint64_t>(second), out.bytes + 8);
    return out;
  }
};
static_assert(sizeof(Struct16) == 16);

struct alignas(8) Struct24 {
  std::uint8_t bytes[24];

  static Struct24 Of(const MessageBlock& block) {
    Struct24 out{};
    StoreLittleEndian(block.offset, out.bytes);
    StoreLittleEndian(block.metadata_length, out.bytes + 8);
    StoreLittleEndian(block.body_length, out.bytes + 16);
    return out;
  }
};
static_assert(sizeof(Struct24) == 24);

}  // namespace chunkwise::formats::arrow::internal

#endif  // CHUNKWISE_SRC_FORMATS_ARROW_IPC_STRUCTS_H_
