// The framing of Arrow IPC streams and files: constants and the message block.
//
// An encapsulated message is: the continuation word 0xFFFFFFFF, an int32 LE
// metadata size, the Message flatbuffer padded with zeros so that the body
// starts 8-byte aligned, then the body (bodyLength bytes). A stream is a Schema
// message, record batch messages, and optionally the end-of-stream marker
// (0xFFFFFFFF then int32 0). A file is "ARROW1" + 2 zero bytes, a stream
// including its end marker, the Footer flatbuffer, its int32 LE length and
// "ARROW1". Streams written before Arrow 0.15 lack the continuation word.
// Prose: docs/formats/arrow-ipc.md.
#ifndef CHUNKWISE_FORMATS_ARROW_IPC_FORMAT_H_
#define CHUNKWISE_FORMATS_ARROW_IPC_FORMAT_H_

#include <cstdint>
#include <string_view>

namespace chunkwise::formats::arrow {

enum class IpcFormat { kStream, kFile };

inline constexpr std::uint32_t kContinuation = 0xFFFFFFFFu;
inline constexpr std::string_view kFileMagic = "ARROW1";
// The magic padded to 8 bytes, as a file begins.
inline constexpr std::uint64_t kFileHeaderBytes = 8;
// int32 footer length + "ARROW1": how a file ends.
inline constexpr std::uint64_t kFileTrailerBytes = 10;
// The continuation word and the metadata size.
inline constexpr std::uint64_t kMessagePrefixBytes = 8;
inline constexpr std::uint64_t kEndOfStreamBytes = 8;

// MetadataVersion values of Schema.fbs; chunkwise writes V5 and reads V4 and V5.
inline constexpr std::int16_t kMetadataV4 = 3;
inline constexpr std::int16_t kMetadataV5 = 4;

// Refused above this: no schema, footer or batch header of a sane file comes
// near it, and the flatbuffers verifier takes at most 2 GiB.
inline constexpr std::uint64_t kMaxMetadataBytes = std::uint64_t{1} << 30;

// Where one message lies in a stream or file: the footer's Block.
// `offset` is the position of its continuation word; `metadata_length` counts
// the 8-byte prefix, the flatbuffer and its padding; the body follows.
struct MessageBlock {
  std::uint64_t offset = 0;
  std::uint32_t metadata_length = 0;
  std::uint64_t body_length = 0;

  std::uint64_t size() const { return metadata_length + body_length; }
  std::uint64_t end() const { return offset + size(); }
  bool operator==(const MessageBlock&) const = default;
};

}  // namespace chunkwise::formats::arrow

#endif  // CHUNKWISE_FORMATS_ARROW_IPC_FORMAT_H_
