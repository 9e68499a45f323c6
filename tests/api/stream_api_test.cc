// FrameStreamWriter: frames streamed into a sharded zarr v3 array at a URL,
// read back through the facade; cancellation between appends.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api_test_support.h"
#include "chunkwise/chunkwise.h"

namespace chunkwise {
namespace {

using api_test::At16;
using api_test::Ramp16;
using ::testing::HasSubstr;

StreamConfig Frames() {
  StreamConfig config;
  config.dimensions = {{.size = 6, .tile_size = 2, .tiles_per_shard = 2, .name = "t"},
                       {.size = 8, .tile_size = 4, .tiles_per_shard = 2, .name = "x"}};
  config.data_type = *ParseDataType("uint16");
  config.codec = ParseCodecs("zstd:1")->ToShorthand();
  return config;
}

void StreamAndReadBack(const std::string& url) {
  Context context({.threads = 2});
  auto writer = FrameStreamWriter::Create(context, url, Frames());
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  EXPECT_EQ((*writer)->backend_note(), "");
  const Bytes frames = Ramp16(48);
  // Split anywhere, even inside an element.
  ASSERT_TRUE((*writer)->Append(ByteView(frames).first(5)).ok());
  ASSERT_TRUE((*writer)->Append(ByteView(frames).subspan(5)).ok());
  ASSERT_TRUE((*writer)->Close().ok());
  EXPECT_EQ((*writer)->stats().frames, 6);

  auto array = OpenZarrArray(context, url);
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  EXPECT_EQ(array->metadata().shape, (core::Shape{6, 8}));
  ASSERT_TRUE(array->metadata().inner_chunk_shape.has_value());
  auto all = ReadRegion(context, *array, core::Region::Full(array->metadata().shape));
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  for (std::size_t i = 0; i < 48; ++i) ASSERT_EQ(At16(*all, i), i) << i;
}

TEST(StreamApi, FramesIntoAMemoryStore) { StreamAndReadBack("memory://stream"); }

TEST(StreamApi, FramesIntoADirectory) {
  StreamAndReadBack((api_test::FreshDirectory("stream") / "s.zarr").string());
}

TEST(StreamApi, CancelStopsTheNextAppend) {
  Context context;
  auto writer = FrameStreamWriter::Create(context, "memory://cancelled", Frames());
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->Append(Ramp16(8)).ok());
  context.Cancel();
  const Status status = (*writer)->Append(Ramp16(8));
  EXPECT_EQ(status.code(), StatusCode::kCancelled);
  EXPECT_THAT(std::string(status.message()), HasSubstr("memory://cancelled"));
}

// A stream cancelled half-way, its shards already written, is dropped: no
// array appears at the URL (docs/reliability.md, "Missing is never silently
// empty"), and a new stream there with overwrite replaces what it left.
TEST(StreamApi, ACancelledStreamLeavesNoArray) {
  const std::string url = (api_test::FreshDirectory("stream_cancel") / "s.zarr").string();
  {
    Context context({.threads = 2});
    auto writer = FrameStreamWriter::Create(context, url, Frames());
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    ASSERT_TRUE((*writer)->Append(Ramp16(32)).ok());  // 4 frames: one shard epoch.
    ASSERT_TRUE((*writer)->Flush().ok());
    context.Cancel();
    EXPECT_EQ((*writer)->Close().code(), StatusCode::kCancelled);
  }
  EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(url) / "c" / "0" / "0"));
  Context context;
  const Status opened = OpenZarrArray(context, url).status();
  EXPECT_EQ(opened.code(), StatusCode::kNotFound);
  EXPECT_THAT(std::string(opened.message()), HasSubstr("zarr.json"));
  EXPECT_EQ(FrameStreamWriter::Create(context, url, Frames()).status().code(),
            StatusCode::kInvalidArgument);
  auto again = FrameStreamWriter::Create(context, url, Frames(), {.overwrite = true});
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  ASSERT_TRUE((*again)->Append(Ramp16(48)).ok());
  ASSERT_TRUE((*again)->Close().ok());
  EXPECT_EQ(OpenZarrArray(context, url)->metadata().shape, (core::Shape{6, 8}));
}

TEST(StreamApi, BadConfigurationsAndExistingArrays) {
  Context context;
  StreamConfig config = Frames();
  config.dimensions[1].tile_size = 0;
  auto bad = FrameStreamWriter::Create(context, "memory://bad", config);
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(FrameStreamWriter::Create(context, "memory://twice", Frames()).ok());
  auto twice = FrameStreamWriter::Create(context, "memory://twice", Frames());
  EXPECT_EQ(twice.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(
      FrameStreamWriter::Create(context, "memory://twice", Frames(), {.overwrite = true}).ok());
}

}  // namespace
}  // namespace chunkwise
