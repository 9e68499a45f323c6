#include "pipelines/stream/backend_choice.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "store/memory_store.h"
#include "unit/pipelines/stream_test_cases.h"

namespace chunkwise::pipelines::stream {
namespace {

using ::testing::HasSubstr;

std::optional<GpuTileCodec> GpuCodec(const std::string& codec, const std::string& dtype,
                                     std::string* why) {
  const Result<std::optional<GpuTileCodec>> gpu =
      GpuTileCodecFor(codec, *core::DataType::FromZarrName(dtype), why);
  EXPECT_TRUE(gpu.ok()) << gpu.status().ToString();
  return gpu.ok() ? *gpu : std::nullopt;
}

TEST(BackendChoiceTest, TheGpuRunsNoneAndDeterministicBloscLz4Only) {
  std::string why;
  std::optional<GpuTileCodec> none = GpuCodec("none", "uint16", &why);
  ASSERT_TRUE(none.has_value());
  EXPECT_FALSE(none->blosc_lz4);
  std::optional<GpuTileCodec> lz4 = GpuCodec("blosc:lz4det:5:shuffle", "uint16", &why);
  ASSERT_TRUE(lz4.has_value());
  EXPECT_TRUE(lz4->blosc_lz4);
  EXPECT_EQ(lz4->typesize, 2);
  EXPECT_TRUE(lz4->shuffle);
  EXPECT_FALSE(lz4->store_only);
  lz4 = GpuCodec("blosc:lz4det:0:noshuffle", "float64", &why);
  ASSERT_TRUE(lz4.has_value());
  EXPECT_EQ(lz4->typesize, 8);
  EXPECT_FALSE(lz4->shuffle);
  EXPECT_TRUE(lz4->store_only);
  for (const char* cpu_only : {"zstd:1", "gzip:1", "blosc:lz4:5:shuffle", "blosc:lz4det+crc32c"}) {
    why.clear();
    EXPECT_FALSE(GpuCodec(cpu_only, "uint16", &why).has_value()) << cpu_only;
    EXPECT_THAT(why, HasSubstr(cpu_only));
  }
  const Result<std::optional<GpuTileCodec>> bad = GpuTileCodecFor(
      "brotli", *core::DataType::FromZarrName("uint8"), &why);  // A codec the library lacks.
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument) << bad.status().ToString();
}

TEST(BackendChoiceTest, RequestsResolveByGpuAndCodec) {
  StreamConfig config = testing_cases::ConfigOf(
      testing_cases::Simple({testing_cases::D(0, 4, 2), testing_cases::D(64, 16, 2)}, "uint16"));
  config.codec = "blosc:lz4det";
  EXPECT_EQ(ChooseStreamBackend(BackendRequest::kCpu, config, "")->kind, StreamBackendKind::kCpu);
  EXPECT_EQ(ChooseStreamBackend(BackendRequest::kCuda, config, "")->kind, StreamBackendKind::kCuda);
  EXPECT_EQ(ChooseStreamBackend(BackendRequest::kAuto, config, "")->kind, StreamBackendKind::kCuda);
  // No GPU: cuda is an error that says why, auto falls back and says why.
  const Result<BackendChoice> no_gpu =
      ChooseStreamBackend(BackendRequest::kCuda, config, "no CUDA device");
  EXPECT_EQ(no_gpu.status().code(), StatusCode::kUnsupported);
  EXPECT_THAT(no_gpu.status().message(), HasSubstr("no CUDA device"));
  const Result<BackendChoice> fallback =
      ChooseStreamBackend(BackendRequest::kAuto, config, "no CUDA device");
  EXPECT_EQ(fallback->kind, StreamBackendKind::kCpu);
  EXPECT_THAT(fallback->note, HasSubstr("no CUDA device"));
  // zstd: the CPU compresses, and the choice says so.
  config.codec = "zstd:1";
  const Result<BackendChoice> zstd = ChooseStreamBackend(BackendRequest::kCuda, config, "");
  EXPECT_EQ(zstd->kind, StreamBackendKind::kCpu);
  EXPECT_THAT(zstd->note, HasSubstr("CPU"));
  EXPECT_THAT(zstd->note, HasSubstr("zstd:1"));
  EXPECT_EQ(ParseBackendRequest("gpu").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(*ParseBackendRequest("auto"), BackendRequest::kAuto);
}

TEST(BackendChoiceTest, CudaPlansCountDeviceAndPageLockedMemory) {
  StreamConfig config = testing_cases::ConfigOf(testing_cases::Simple(
      {testing_cases::D(0, 8, 4), testing_cases::D(256, 64, 2), testing_cases::D(256, 64, 2)},
      "uint16"));
  config.codec = "blosc:lz4det";
  const Result<StreamPlan> cpu = PlanStream(config);
  ASSERT_TRUE(cpu.ok());
  EXPECT_EQ(cpu->memory.device, 0u);
  EXPECT_EQ(cpu->memory.pinned, 0u);
  config.backend = StreamBackendKind::kCuda;
  const Result<StreamPlan> gpu = PlanStream(config);
  ASSERT_TRUE(gpu.ok()) << gpu.status().ToString();
  EXPECT_TRUE(gpu->gpu_codec.blosc_lz4);
  EXPECT_EQ(gpu->memory.staging, 0u);
  // Two staging batches of frames and two aggregated batches at their bound.
  const std::uint64_t batch_input = gpu->epochs_per_batch * 8 * gpu->frame_bytes;
  const std::uint64_t batch_tiles = gpu->epochs_per_batch * 16;
  EXPECT_EQ(gpu->memory.pinned, 2 * batch_input + 2 * batch_tiles * gpu->max_encoded_tile_bytes);
  const CudaBufferSizes buffers = PlanCudaBuffers(*gpu);
  EXPECT_EQ(gpu->memory.device, buffers.total());
  EXPECT_GE(buffers.per_slot(), batch_input + batch_tiles * gpu->tile_bytes);
  // The encoder's hash tables alone are 8 KiB per thread.
  EXPECT_GE(buffers.shared, 8192u * 128);
  EXPECT_THAT(DescribePlan(*gpu), HasSubstr("backend cuda"));
  EXPECT_THAT(DescribePlan(*gpu), HasSubstr("GPU"));
  // The GPU cannot write zstd: planning for it is refused.
  config.codec = "zstd:1";
  EXPECT_THAT(PlanStream(config).status().message(), HasSubstr("CUDA backend"));
}

TEST(BackendChoiceTest, WriterWithoutACudaFactoryRefusesACudaPlan) {
  StreamConfig config = testing_cases::ConfigOf(
      testing_cases::Simple({testing_cases::D(0, 4, 2), testing_cases::D(64, 16, 2)}, "uint16"));
  config.codec = "none";
  config.backend = StreamBackendKind::kCuda;
  const auto writer = StreamWriter::Create(config, store::MemoryStore::Create(), "");
  EXPECT_EQ(writer.status().code(), StatusCode::kUnsupported);
  EXPECT_THAT(writer.status().message(), HasSubstr("built without"));
}

}  // namespace
}  // namespace chunkwise::pipelines::stream
