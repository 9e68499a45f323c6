// Output sizing shared by the compressing codecs.
//
// A compressor needs room for its worst case (the "bound"). The result is one
// Bytes allocated at the bound, compressed into in place and then resized down,
// so its capacity keeps the bound (callers that hold many encoded chunks call
// shrink_to_fit()). On 8 MiB blosc-lz4 chunks, compressing into scratch and
// copying out an exact-size result cost about 10% over the bare library call,
// zero-filling the bound about 5%: a copy reads and writes, a fill only writes.
#ifndef CHUNKWISE_SRC_CODEC_ENCODE_BUFFER_H_
#define CHUNKWISE_SRC_CODEC_ENCODE_BUFFER_H_

#include <cstddef>
#include <cstdint>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"

namespace chunkwise::codec::internal {

// Calls `compress(std::uint8_t* out, std::size_t capacity) -> Result<std::size_t>`
// with capacity == bound and returns the bytes it reports as written.
// A template so each codec's lambda inlines; the set of callers is closed.
template <typename CompressFn>
Result<Bytes> CompressIntoBound(std::size_t bound, CompressFn&& compress) {
  Bytes output(bound);
  Result<std::size_t> written = compress(output.data(), output.size());
  if (!written.ok()) return std::move(written).status();
  CHUNKWISE_CHECK(*written <= bound);
  output.resize(*written);
  return output;
}

}  // namespace chunkwise::codec::internal

#endif  // CHUNKWISE_SRC_CODEC_ENCODE_BUFFER_H_
