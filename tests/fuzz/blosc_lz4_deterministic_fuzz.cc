// libFuzzer target: the deterministic blosc-lz4 encoder on arbitrary input.
//
// The first byte picks the typesize (1..255) and shuffle, the rest is the
// data. The chunk must stay within nbytes + 16, decode through c-blosc to the
// data exactly, come out the same with a thread pool, and each 64 KiB prefix's
// raw LZ4 block must decode through liblz4 (ASan/UBSan catch any stray access
// in the encoder itself).
#include <blosc.h>
#include <lz4.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "codec/deterministic_blosc_lz4.h"
#include "codec/lz4_block_encoder.h"

namespace {

void CheckRawLz4(const std::uint8_t* data, std::uint32_t size) {
  namespace lz4 = chunkwise::codec::lz4;
  if (size > lz4::kMaxInputBytes) size = lz4::kMaxInputBytes;
  std::vector<std::uint16_t> table(lz4::kHashEntries);
  std::vector<std::uint8_t> encoded(lz4::Lz4MaxEncodedBytes(size)), decoded(size + 1);
  const std::uint32_t written = lz4::Lz4EncodeBlock(
      data, size, encoded.data(), static_cast<std::uint32_t>(encoded.size()), table.data());
  if (written == 0) std::abort();
  const int back = LZ4_decompress_safe(reinterpret_cast<const char*>(encoded.data()),
                                       reinterpret_cast<char*>(decoded.data()),
                                       static_cast<int>(written), static_cast<int>(size));
  if (back != static_cast<int>(size) || (size > 0 && std::memcmp(decoded.data(), data, size) != 0))
    std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace chunkwise;
  if (size == 0) return 0;
  const codec::DeterministicBloscLz4Options options{.typesize = 1 + data[0] % 255,
                                                    .shuffle = (data[0] & 1) != 0};
  const ByteView input(data + 1, size - 1);
  const Result<Bytes> chunk = codec::EncodeDeterministicBloscLz4(input, options);
  if (!chunk.ok() || chunk->size() > input.size() + 16) std::abort();
  Bytes decoded(input.size());
  const int back = blosc_decompress_ctx(chunk->data(), decoded.data(), decoded.size(), 1);
  if (back != static_cast<int>(input.size())) std::abort();
  if (!input.empty() && std::memcmp(decoded.data(), input.data(), input.size()) != 0) std::abort();
  static core::ThreadPool pool(3);
  const Result<Bytes> parallel = codec::EncodeDeterministicBloscLz4(input, options, &pool);
  if (!parallel.ok() || *parallel != *chunk) std::abort();
  CheckRawLz4(input.data(), static_cast<std::uint32_t>(input.size()));
  return 0;
}
