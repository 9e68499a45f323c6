// The deterministic blosc-lz4 encoder on the CPU: standard Blosc1 chunks
// (compressor lz4, no shuffle or byte shuffle) whose bytes depend only on the
// input and the options, so the CUDA kernel (src/cuda/blosc_lz4.cu), running
// the same code (codec/blosc_lz4_layout.h), must produce them too.
//
// Spec: docs/formats/blosc-lz4-deterministic.md. c-blosc 1.x, python-blosc,
// numcodecs and zarrita decode the chunks; the zarr metadata is the usual
// {"name": "blosc", "configuration": {"cname": "lz4", ...}}.
#ifndef CHUNKWISE_CODEC_DETERMINISTIC_BLOSC_LZ4_H_
#define CHUNKWISE_CODEC_DETERMINISTIC_BLOSC_LZ4_H_

#include <cstddef>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"
#include "chunkwise/core/thread_pool.h"

namespace chunkwise::codec {

struct DeterministicBloscLz4Options {
  int typesize = 1;         // 1 to 255, as written in the header.
  bool shuffle = true;      // Byte shuffle; false is "noshuffle".
  bool store_only = false;  // clevel 0: the chunk is stored memcpyed.
};

// The most bytes a chunk of `nbytes` input takes: nbytes + 16 (anything
// larger is stored memcpyed instead).
constexpr std::size_t DeterministicBloscLz4Bound(std::size_t nbytes) { return nbytes + 16; }

// Encodes `input` into `out` and returns the chunk's size. The bytes do not
// depend on `pool` (null: the calling thread does all blocks) or on
// out.size(). InvalidArgument for a typesize outside 1..255; OutOfRange if the
// input exceeds the Blosc1 limit (INT_MAX - 16 bytes) or the chunk does not
// fit in `out` (it always fits in DeterministicBloscLz4Bound(input.size())).
// Thread-safe.
Result<std::size_t> EncodeDeterministicBloscLz4(ByteView input,
                                                const DeterministicBloscLz4Options& options,
                                                MutableByteView out,
                                                core::ThreadPool* pool = nullptr);

// The chunk as a new buffer; errors as above.
Result<Bytes> EncodeDeterministicBloscLz4(ByteView input,
                                          const DeterministicBloscLz4Options& options,
                                          core::ThreadPool* pool = nullptr);

}  // namespace chunkwise::codec

#endif  // CHUNKWISE_CODEC_DETERMINISTIC_BLOSC_LZ4_H_
