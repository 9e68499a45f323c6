#include "cuda/blosc_lz4.h"

#include <blosc.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "codec/deterministic_blosc_lz4.h"
#include "cuda/device.h"
#include "unit/codec/codec_test_data.h"
#include "unit/cuda/skip_without_gpu.h"

namespace chunkwise::cuda {
namespace {

// Chunks of every kind the CPU tests use: random, smooth, constant, sparse,
// tiny, under 128 bytes, sizes off the block and element grid.
std::vector<Bytes> VariedChunks() {
  std::vector<Bytes> chunks;
  for (std::size_t size : {0u, 1u, 100u, 127u, 128u, 1000u, 65536u, 65537u, 300'005u, 1u << 21}) {
    chunks.push_back(codec::testing::RandomBytes(size));
    chunks.push_back(codec::testing::MicroscopyLike(size & ~std::size_t{1}));
    chunks.push_back(Bytes(size, 0x33));
    Bytes sparse(size, 0);
    for (std::size_t i = 0; i < size; i += 97) sparse[i] = static_cast<std::uint8_t>(i);
    chunks.push_back(std::move(sparse));
  }
  return chunks;
}

TEST(CudaBloscLz4, GpuBytesEqualTheCpuEncoders) {
  SKIP_WITHOUT_GPU();
  const std::vector<Bytes> chunks = VariedChunks();
  const std::vector<ByteView> views(chunks.begin(), chunks.end());
  for (int typesize : {1, 2, 3, 4, 8, 16, 17}) {
    for (bool shuffle : {false, true}) {
      const Result<std::vector<Bytes>> gpu = EncodeBloscLz4OnGpu(views, {typesize, shuffle, false});
      ASSERT_TRUE(gpu.ok()) << gpu.status().ToString();
      ASSERT_EQ(gpu->size(), chunks.size());
      for (std::size_t i = 0; i < chunks.size(); ++i) {
        const Result<Bytes> cpu =
            codec::EncodeDeterministicBloscLz4(chunks[i], {typesize, shuffle, false});
        ASSERT_TRUE(cpu.ok());
        ASSERT_EQ((*gpu)[i], *cpu) << "chunk " << i << " of " << chunks[i].size()
                                   << " bytes, typesize " << typesize << ", shuffle " << shuffle;
      }
    }
  }
}

TEST(CudaBloscLz4, GpuChunksDecodeWithCBlosc) {
  SKIP_WITHOUT_GPU();
  const std::vector<Bytes> chunks = VariedChunks();
  const std::vector<ByteView> views(chunks.begin(), chunks.end());
  const Result<std::vector<Bytes>> gpu = EncodeBloscLz4OnGpu(views, {2, true, false});
  ASSERT_TRUE(gpu.ok()) << gpu.status().ToString();
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    Bytes decoded(chunks[i].size());
    const int size =
        blosc_decompress_ctx((*gpu)[i].data(), decoded.data(), decoded.size(), /*threads=*/1);
    ASSERT_EQ(size, static_cast<int>(chunks[i].size())) << "chunk " << i;
    EXPECT_EQ(decoded, chunks[i]) << "chunk " << i;
  }
}

TEST(CudaBloscLz4, StoreOnlyAndEmptyBatches) {
  SKIP_WITHOUT_GPU();
  const Bytes data = codec::testing::MicroscopyLike(200'000);
  const std::vector<ByteView> views{data};
  const Result<std::vector<Bytes>> stored = EncodeBloscLz4OnGpu(views, {2, true, true});
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  EXPECT_EQ((*stored)[0], *codec::EncodeDeterministicBloscLz4(data, {2, true, true}));
  const Result<std::vector<Bytes>> none = EncodeBloscLz4OnGpu({}, {2, true, false});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST(CudaBloscLz4, WithoutGpuTheEncoderSaysUnsupported) {
  if (NoDeviceReason().empty()) GTEST_SKIP() << "SKIPPED: a GPU is present";
  const Bytes data(1000, 1);
  const std::vector<ByteView> views{data};
  const Result<std::vector<Bytes>> gpu = EncodeBloscLz4OnGpu(views, {2, true, false});
  ASSERT_FALSE(gpu.ok());
  EXPECT_EQ(gpu.status().code(), StatusCode::kUnsupported);
}

TEST(CudaBloscLz4, RefusesBadTypesize) {
  const std::vector<ByteView> views;
  const Result<std::vector<Bytes>> gpu = EncodeBloscLz4OnGpu(views, {0, true, false});
  ASSERT_FALSE(gpu.ok());
  EXPECT_EQ(gpu.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace chunkwise::cuda
