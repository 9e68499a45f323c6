// The Blosc1 chunk layout of the deterministic blosc-lz4 encoder, as plain
// functions the CPU and CUDA share (see lz4_block_encoder.h).
//
// Spec: docs/formats/blosc-lz4-deterministic.md and docs/formats/bcolz.md, "Blosc1 chunk
// format".
// A chunk is a 16-byte header (version 2, lz4 format version 1, flags,
// typesize, nbytes, blocksize, cbytes; integers little-endian), then either the
// nbytes raw ("memcpyed" flag) or a table of int32 block starts followed by the
// blocks. Each block is one stream, or `typesize` streams when split (byte j
// of every element); each stream is an int32 size and then LZ4 data, or the
// raw stream when its size equals the stream's length. The fixed rules:
// blocksize = min(64 KiB, nbytes) rounded down to a multiple of typesize when
// larger than typesize, or 1 when nbytes < typesize (as c-blosc); blocks are split when typesize <=
// 16 and blocksize / typesize >= 128 (c-blosc 1.x's own rule, which its decoder re-checks); inputs
// under 128 bytes, clevel 0 and chunks whose encoding would exceed nbytes + 16 are stored memcpyed.
#ifndef CHUNKWISE_CODEC_BLOSC_LZ4_LAYOUT_H_
#define CHUNKWISE_CODEC_BLOSC_LZ4_LAYOUT_H_

#include <cstdint>
#include <cstring>

#include "codec/lz4_block_encoder.h"
#include "core/host_device.h"

namespace chunkwise::codec::blosc_lz4 {

inline constexpr std::uint32_t kHeaderBytes = 16;
inline constexpr std::uint8_t kFormatVersion = 2;     // c-blosc 1.x's BLOSC_VERSION_FORMAT.
inline constexpr std::uint8_t kLz4FormatVersion = 1;  // Its BLOSC_LZ4_VERSION_FORMAT.
inline constexpr std::uint8_t kFlagShuffle = 0x01;
inline constexpr std::uint8_t kFlagMemcpyed = 0x02;
inline constexpr std::uint8_t kFlagDontSplit = 0x10;
inline constexpr std::uint8_t kLz4CompressorCode = 1;  // Flags bits 5-7.
inline constexpr std::uint32_t kBlockBytes = 65536;    // = lz4::kMaxInputBytes.
inline constexpr std::uint32_t kMinCompressedBytes = 128;
inline constexpr std::uint32_t kMaxSplits = 16;
// Blosc1 sizes are int32 and cbytes includes the header.
inline constexpr std::uint32_t kMaxInputBytes = 2147483647u - kHeaderBytes;
static_assert(kBlockBytes <= lz4::kMaxInputBytes);

// Everything the layout of one chunk depends on.
struct ChunkGeometry {
  std::uint32_t nbytes;
  std::uint32_t typesize;   // 1 to 255.
  std::uint32_t blocksize;  // Bytes per block but the last.
  std::uint32_t block_count;
  bool shuffle;        // Byte shuffle requested (the flag is written even for typesize 1).
  bool split;          // Full blocks are `typesize` streams.
  bool memcpyed_only;  // Stored raw whatever the data (small input or clevel 0).
};

// REQUIRES: nbytes <= kMaxInputBytes, 1 <= typesize <= 255.
CHUNKWISE_HOST_DEVICE inline ChunkGeometry MakeGeometry(std::uint32_t nbytes,
                                                        std::uint32_t typesize, bool shuffle,
                                                        bool store_only) {
  ChunkGeometry g{};
  g.nbytes = nbytes;
  g.typesize = typesize;
  g.shuffle = shuffle;
  if (nbytes < typesize) {
    g.blocksize = 1;  // c-blosc's value for inputs under one element, the empty one included.
  } else {
    g.blocksize = nbytes < kBlockBytes ? nbytes : kBlockBytes;
    if (g.blocksize > typesize) g.blocksize = g.blocksize / typesize * typesize;
  }
  g.block_count = (nbytes + g.blocksize - 1) / g.blocksize;
  g.split = typesize <= kMaxSplits && g.blocksize / typesize >= kMinCompressedBytes;
  g.memcpyed_only = store_only || nbytes < kMinCompressedBytes;
  return g;
}

CHUNKWISE_HOST_DEVICE inline std::uint32_t BlockBytes(const ChunkGeometry& g, std::uint32_t block) {
  const std::uint32_t start = block * g.blocksize;
  return g.nbytes - start < g.blocksize ? g.nbytes - start : g.blocksize;
}

// A partial last block (the "leftover") is never split.
CHUNKWISE_HOST_DEVICE inline std::uint32_t StreamCount(const ChunkGeometry& g,
                                                       std::uint32_t block) {
  return g.split && BlockBytes(g, block) == g.blocksize ? g.typesize : 1;
}

// The most bytes one encoded block takes: each stream is at worst raw plus its size.
CHUNKWISE_HOST_DEVICE inline std::uint32_t MaxEncodedBlockBytes(const ChunkGeometry& g) {
  return g.blocksize + 4 * (g.split ? g.typesize : 1);
}

// Where the blocks begin: after the header and the block-start table.
CHUNKWISE_HOST_DEVICE inline std::uint64_t BlocksOffset(const ChunkGeometry& g) {
  return kHeaderBytes + 4ull * g.block_count;
}

CHUNKWISE_HOST_DEVICE inline void Store32(std::uint8_t* out, std::uint32_t value) {
  out[0] = static_cast<std::uint8_t>(value);
  out[1] = static_cast<std::uint8_t>(value >> 8);
  out[2] = static_cast<std::uint8_t>(value >> 16);
  out[3] = static_cast<std::uint8_t>(value >> 24);
}

// Writes the 16-byte header of a chunk of `cbytes` bytes.
CHUNKWISE_HOST_DEVICE inline void WriteHeader(const ChunkGeometry& g, bool memcpyed,
                                              std::uint32_t cbytes, std::uint8_t* out) {
  std::uint8_t flags = kLz4CompressorCode << 5;
  if (g.shuffle) flags |= kFlagShuffle;
  if (memcpyed) flags |= kFlagMemcpyed;
  if (!g.split) flags |= kFlagDontSplit;
  out[0] = kFormatVersion;
  out[1] = kLz4FormatVersion;
  out[2] = flags;
  out[3] = static_cast<std::uint8_t>(g.typesize);
  Store32(out + 4, g.nbytes);
  Store32(out + 8, g.blocksize);
  Store32(out + 12, cbytes);
}

// Copies stream `stream` of the block at `block_data` (`block_bytes` long) to
// `out` as the encoder sees it: byte j of each element for a split, shuffled
// block; the whole block shuffled (a partial element's bytes last, as they
// were) when not split; the bytes as they are without shuffle.
CHUNKWISE_HOST_DEVICE inline void GatherStream(const ChunkGeometry& g,
                                               const std::uint8_t* block_data,
                                               std::uint32_t block_bytes, std::uint32_t stream,
                                               std::uint32_t stream_count, std::uint8_t* out) {
  const std::uint32_t stream_bytes = block_bytes / stream_count;
  const std::uint32_t ts = g.typesize;
  if (!g.shuffle || ts == 1) {
    std::memcpy(out, block_data + std::uint64_t{stream} * stream_bytes, stream_bytes);
    return;
  }
  const std::uint32_t elements = block_bytes / ts;
  if (stream_count == ts) {
    for (std::uint32_t i = 0; i < elements; ++i) out[i] = block_data[i * ts + stream];
    return;
  }
  for (std::uint32_t j = 0; j < ts; ++j) {
    for (std::uint32_t i = 0; i < elements; ++i) out[j * elements + i] = block_data[i * ts + j];
  }
  const std::uint32_t whole = elements * ts;
  std::memcpy(out + whole, block_data + whole, block_bytes - whole);
}

// Byte `o` of what GatherStream writes for the same arguments: the GPU
// gathers a stream with one thread per byte, so that a warp's reads and
// writes are coalesced, instead of one thread per stream.
CHUNKWISE_HOST_DEVICE inline std::uint8_t GatheredStreamByte(
    const ChunkGeometry& g, const std::uint8_t* block_data, std::uint32_t block_bytes,
    std::uint32_t stream, std::uint32_t stream_count, std::uint32_t o) {
  const std::uint32_t ts = g.typesize;
  if (!g.shuffle || ts == 1) return block_data[stream * (block_bytes / stream_count) + o];
  if (stream_count == ts) return block_data[o * ts + stream];
  const std::uint32_t elements = block_bytes / ts;
  if (o >= elements * ts) return block_data[o];
  return block_data[(o % elements) * ts + o / elements];
}

// Encodes one gathered stream of `stream_bytes` as its int32 size and data
// into `out` (room for stream_bytes + 4) and returns the bytes written. The
// stream is stored raw unless LZ4 makes it strictly shorter, since a size
// equal to the stream's length means "raw" to decoders.
CHUNKWISE_HOST_DEVICE inline std::uint32_t EncodeStream(const std::uint8_t* stream_data,
                                                        std::uint32_t stream_bytes,
                                                        std::uint8_t* out,
                                                        std::uint16_t* hash_table) {
  const std::uint32_t room = stream_bytes == 0 ? 0 : stream_bytes - 1;
  std::uint32_t size = lz4::Lz4EncodeBlock(stream_data, stream_bytes, out + 4, room, hash_table);
  if (size == 0) {
    size = stream_bytes;
    std::memcpy(out + 4, stream_data, stream_bytes);
  }
  Store32(out, size);
  return size + 4;
}

// Byte-shuffles `elements` elements of TS bytes: byte j of element i goes to
// j * elements + i. Reading each element once lets compilers vectorize it.
// A template over the common element sizes only.
template <std::uint32_t TS>
CHUNKWISE_HOST_DEVICE inline void ShuffleElements(const std::uint8_t* in, std::uint32_t elements,
                                                  std::uint8_t* out) {
  for (std::uint32_t i = 0; i < elements; ++i) {
    for (std::uint32_t j = 0; j < TS; ++j) out[j * elements + i] = in[i * TS + j];
  }
}

// All streams of a block, one after another, as GatherStream gives each
// (the split streams of a shuffled block are the slices of its shuffle):
// the CPU encodes whole blocks, the GPU one stream per thread.
CHUNKWISE_HOST_DEVICE inline void GatherBlock(const ChunkGeometry& g,
                                              const std::uint8_t* block_data,
                                              std::uint32_t block_bytes, std::uint8_t* out) {
  const std::uint32_t ts = g.typesize;
  if (!g.shuffle || ts == 1) {
    std::memcpy(out, block_data, block_bytes);
    return;
  }
  const std::uint32_t elements = block_bytes / ts;
  switch (ts) {
    case 2:
      ShuffleElements<2>(block_data, elements, out);
      break;
    case 4:
      ShuffleElements<4>(block_data, elements, out);
      break;
    case 8:
      ShuffleElements<8>(block_data, elements, out);
      break;
    default:
      for (std::uint32_t j = 0; j < ts; ++j) {
        for (std::uint32_t i = 0; i < elements; ++i) out[j * elements + i] = block_data[i * ts + j];
      }
  }
  const std::uint32_t whole = elements * ts;
  std::memcpy(out + whole, block_data + whole, block_bytes - whole);
}

// Encodes block `block` of `input` (the whole chunk's data) into `out` (room
// for MaxEncodedBlockBytes) and returns the bytes written. `gathered` is
// scratch of at least blocksize bytes; `hash_table` of lz4::kHashEntries.
CHUNKWISE_HOST_DEVICE inline std::uint32_t EncodeBlock(const ChunkGeometry& g,
                                                       const std::uint8_t* input,
                                                       std::uint32_t block, std::uint8_t* out,
                                                       std::uint8_t* gathered,
                                                       std::uint16_t* hash_table) {
  const std::uint32_t block_bytes = BlockBytes(g, block);
  const std::uint32_t streams = StreamCount(g, block);
  const std::uint32_t stream_bytes = block_bytes / streams;
  GatherBlock(g, input + static_cast<std::uint64_t>(block) * g.blocksize, block_bytes, gathered);
  std::uint32_t written = 0;
  for (std::uint32_t stream = 0; stream < streams; ++stream) {
    written += EncodeStream(gathered + std::uint64_t{stream} * stream_bytes, stream_bytes,
                            out + written, hash_table);
  }
  return written;
}

}  // namespace chunkwise::codec::blosc_lz4

#endif  // CHUNKWISE_CODEC_BLOSC_LZ4_LAYOUT_H_
