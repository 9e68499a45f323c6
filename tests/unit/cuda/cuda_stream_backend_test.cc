// The stream writer's CUDA backend: its shards must be byte-identical to the
// CPU backend's, for codec none and the deterministic blosc-lz4 encoder, over
// the shapes of the stream writer's tests. Without a GPU these report SKIPPED,
// except the check that the backend then refuses with the reason.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "pipelines/stream/cuda_backend.h"
#include "store/memory_store.h"
#include "unit/cuda/skip_without_gpu.h"
#include "unit/pipelines/stream_test_cases.h"

namespace chunkwise::pipelines::stream {
namespace {

using ::testing::HasSubstr;
using testing_cases::Case;

// Streams `input` with `backend` (flushing once halfway) and returns the
// store's keys and values, and the stats.
Result<std::map<std::string, Bytes>> Write(StreamConfig config, StreamBackendKind backend,
                                           ByteView input, StreamStats* stats = nullptr) {
  config.backend = backend;
  auto store = store::MemoryStore::Create();
  StreamWriterOptions options;
  options.cuda_backend = MakeCudaBackend;
  CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<StreamWriter> writer,
                             StreamWriter::Create(config, store, "", options));
  const std::size_t half = input.size() / 2;
  CHUNKWISE_RETURN_IF_ERROR(testing_cases::AppendInOddPieces(*writer, input.first(half), 3));
  CHUNKWISE_RETURN_IF_ERROR(writer->Flush());
  CHUNKWISE_RETURN_IF_ERROR(testing_cases::AppendInOddPieces(*writer, input.subspan(half), 5));
  CHUNKWISE_RETURN_IF_ERROR(writer->Close());
  if (stats != nullptr) *stats = writer->stats();
  return testing_cases::Contents(*store);
}

void ExpectSameShards(const StreamConfig& config, core::Index frames) {
  Result<StreamPlan> plan = PlanStream(config);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  const Bytes input = testing_cases::MakeInput(plan->frame_bytes * static_cast<std::size_t>(frames),
                                               static_cast<std::uint32_t>(frames) * 17);
  const auto cpu = Write(config, StreamBackendKind::kCpu, input);
  ASSERT_TRUE(cpu.ok()) << cpu.status().ToString();
  StreamStats stats;
  const auto gpu = Write(config, StreamBackendKind::kCuda, input, &stats);
  ASSERT_TRUE(gpu.ok()) << gpu.status().ToString();
  EXPECT_EQ(stats.backend, "cuda");
  ASSERT_EQ(gpu->size(), cpu->size());
  for (const auto& [key, value] : *cpu) {
    ASSERT_TRUE(gpu->count(key)) << key;
    EXPECT_TRUE(gpu->at(key) == value) << key << " differs";
  }
}

// Each shape of the CPU tests, with both GPU codecs.
std::vector<Case> GpuCases() {
  std::vector<Case> cases;
  for (Case c : testing_cases::Cases()) {
    for (const char* codec : {"none", "blosc:lz4det:5:shuffle"}) {
      c.codec = codec;
      Case named = c;
      named.name += std::string("_") + (c.codec == "none" ? "none" : "lz4det");
      cases.push_back(named);
    }
  }
  return cases;
}

class CudaBackendMatchesCpu : public ::testing::TestWithParam<Case> {};

TEST_P(CudaBackendMatchesCpu, ByteForByte) {
  SKIP_WITHOUT_GPU();
  const Case& c = GetParam();
  ExpectSameShards(testing_cases::ConfigOf(c), c.frames);
}

INSTANTIATE_TEST_SUITE_P(Shapes, CudaBackendMatchesCpu, ::testing::ValuesIn(GpuCases()),
                         [](const auto& info) { return info.param.name; });

TEST(CudaStreamBackend, ManySmallBatchesNoshuffleAndStoreOnly) {
  SKIP_WITHOUT_GPU();
  for (const char* codec : {"blosc:lz4det:5:noshuffle", "blosc:lz4det:0:shuffle", "none"}) {
    StreamConfig config = testing_cases::ConfigOf(testing_cases::Simple(
        {testing_cases::D(0, 2, 4), testing_cases::D(130, 32, 2), testing_cases::D(200, 64, 2)},
        "uint16"));
    config.codec = codec;
    config.epochs_per_batch = 1;
    SCOPED_TRACE(codec);
    ExpectSameShards(config, 41);
  }
}

// A multiscale stream: every level's shards (reduced on the CPU, compressed
// on the GPU) equal the CPU backend's, odd extents and partial last windows
// included.
TEST(CudaStreamBackend, MultiscaleLevelsMatchTheCpu) {
  SKIP_WITHOUT_GPU();
  for (const char* method : {"mean", "max"}) {
    for (const char* codec : {"none", "blosc:lz4det:5:shuffle"}) {
      StreamConfig config = testing_cases::ConfigOf(testing_cases::Simple(
          {testing_cases::D(0, 4, 2), testing_cases::D(75, 16, 2), testing_cases::D(131, 32, 2)},
          "uint16"));
      config.codec = codec;
      config.multiscale = MultiscaleConfig{};
      config.multiscale->levels = 3;
      config.multiscale->method = *core::ParseDownsampleMethod(method);
      SCOPED_TRACE(std::string(method) + " " + codec);
      ExpectSameShards(config, 37);
    }
  }
}

TEST(CudaStreamBackend, EveryStageIsTimed) {
  SKIP_WITHOUT_GPU();
  StreamConfig config = testing_cases::ConfigOf(testing_cases::Simple(
      {testing_cases::D(0, 8, 2), testing_cases::D(256, 64, 2), testing_cases::D(256, 64, 2)},
      "uint16"));
  config.codec = "blosc:lz4det";
  const Bytes input = testing_cases::MakeInput(64 * 256 * 256 * 2, 5);
  StreamStats stats;
  ASSERT_TRUE(Write(config, StreamBackendKind::kCuda, input, &stats).ok());
  ASSERT_EQ(stats.stages.size(), 5u);
  for (const StageTime& stage : stats.stages) EXPECT_GT(stage.seconds, 0) << stage.name;
}

TEST(CudaStreamBackend, APlanOverTheGpusMemoryIsRefusedBeforeAllocating) {
  SKIP_WITHOUT_GPU();
  StreamConfig config = testing_cases::ConfigOf(
      testing_cases::Simple({testing_cases::D(0, 4, 1), testing_cases::D(65536, 65536, 1),
                             testing_cases::D(65536, 65536, 1)},
                            "uint16"));
  config.codec = "none";
  config.backend = StreamBackendKind::kCuda;
  const Result<StreamPlan> plan = PlanStream(config);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  core::ThreadPool pool(1);
  const auto backend = MakeCudaBackend(*plan, pool);
  EXPECT_EQ(backend.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(backend.status().message(), HasSubstr("GPU memory"));
}

TEST(CudaStreamBackend, WithoutAGpuItRefusesAndSaysWhy) {
  const std::string reason = cuda::NoDeviceReason();
  if (reason.empty()) GTEST_SKIP() << "SKIPPED: a GPU is present";
  StreamConfig config = testing_cases::ConfigOf(
      testing_cases::Simple({testing_cases::D(0, 4, 2), testing_cases::D(64, 16, 2)}, "uint16"));
  config.codec = "none";
  config.backend = StreamBackendKind::kCuda;
  const Result<StreamPlan> plan = PlanStream(config);
  ASSERT_TRUE(plan.ok());
  core::ThreadPool pool(1);
  const auto backend = MakeCudaBackend(*plan, pool);
  EXPECT_EQ(backend.status().code(), StatusCode::kUnsupported);
  EXPECT_THAT(backend.status().message(), HasSubstr(reason));
}

}  // namespace
}  // namespace chunkwise::pipelines::stream
