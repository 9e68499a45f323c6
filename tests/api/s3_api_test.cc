// The facade over s3:// against the test S3 server (moto, started by the
// CTest fixture "s3_server"): a zarr array written and read back by URL,
// the stream writer into the bucket, and detection there. Without the
// server the test fails: it is the peer this test needs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "api_test_support.h"
#include "chunkwise/chunkwise.h"

namespace chunkwise {
namespace {

using api_test::At16;
using api_test::Ramp16;

// A context whose s3:// URLs go to the test server with its keys.
std::unique_ptr<Context> S3Context() {
  const char* state_path = std::getenv("CHUNKWISE_TEST_S3_STATE");
  if (state_path == nullptr) {
    ADD_FAILURE() << "CHUNKWISE_TEST_S3_STATE is not set: run under ctest (fixture s3_server)";
    return nullptr;
  }
  std::ifstream in(state_path);
  std::stringstream text;
  text << in.rdbuf();
  const nlohmann::json state = nlohmann::json::parse(text.str(), nullptr, false);
  if (state.is_discarded() || !state.contains("endpoint")) {
    ADD_FAILURE() << state_path << " does not say where the S3 test server is";
    return nullptr;
  }
  ContextOptions options;
  options.threads = 2;
  options.stores.remote = RemoteOptionsFromVariables(
      {{"AWS_ENDPOINT_URL_S3", state["endpoint"].get<std::string>()},
       {"AWS_ACCESS_KEY_ID", state["access_key_id"].get<std::string>()},
       {"AWS_SECRET_ACCESS_KEY", state["secret_access_key"].get<std::string>()},
       {"AWS_REGION", state["region"].get<std::string>()},
       {"HOME", "/nonexistent"}});
  return std::make_unique<Context>(std::move(options));
}

std::string FreshUrl(const std::string& name) {
  const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
  return "s3://chunkwise-test/api-" + std::to_string(::getpid()) + "-" + std::to_string(now) + "/" +
         name;
}

TEST(S3Api, ZarrArrayWrittenAndReadBackByUrl) {
  std::unique_ptr<Context> context = S3Context();
  ASSERT_NE(context, nullptr);
  const std::string url = FreshUrl("a.zarr");
  ZarrArraySpec spec{.shape = {4, 6}, .data_type = *ParseDataType("uint16"), .chunks = {2, 3}};
  spec.shards = core::Shape{4, 6};
  auto array = CreateZarrArray(*context, url, spec);
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  ASSERT_TRUE(WriteRegion(*context, *array, core::Region({0, 0}, {4, 6}), Ramp16(24, 300)).ok());

  std::unique_ptr<Context> reader = S3Context();
  auto opened = OpenZarrArray(*reader, url);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  auto values = ReadRegion(*reader, *opened, core::Region({1, 1}, {3, 4}));
  ASSERT_TRUE(values.ok()) << values.status().ToString();
  EXPECT_EQ(At16(*values, 0), 307);
  EXPECT_EQ(At16(*values, 5), 315);
  auto store = OpenStore(*reader, url);
  ASSERT_TRUE(store.ok());
  EXPECT_EQ(DetectFormat(**store)->kind, FormatKind::kZarrV3Array);
  EXPECT_EQ(OpenZarrArray(*reader, FreshUrl("none.zarr")).status().code(), StatusCode::kNotFound);
}

TEST(S3Api, StreamIntoTheBucket) {
  std::unique_ptr<Context> context = S3Context();
  ASSERT_NE(context, nullptr);
  const std::string url = FreshUrl("stream.zarr");
  StreamConfig config;
  config.dimensions = {{.size = 4, .tile_size = 2, .tiles_per_shard = 2},
                       {.size = 4, .tile_size = 2, .tiles_per_shard = 2}};
  config.data_type = *ParseDataType("uint16");
  auto writer = FrameStreamWriter::Create(*context, url, config);
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  ASSERT_TRUE((*writer)->Append(Ramp16(16)).ok());
  ASSERT_TRUE((*writer)->Close().ok());
  auto array = OpenZarrArray(*context, url);
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  auto values = ReadRegion(*context, *array, core::Region({0, 0}, {4, 4}));
  ASSERT_TRUE(values.ok());
  for (std::size_t i = 0; i < 16; ++i) EXPECT_EQ(At16(*values, i), i);
}

}  // namespace
}  // namespace chunkwise
