#include "pipelines/stream/stream_writer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <numeric>
#include <random>

#include "chunkwise/core/region.h"
#include "chunkwise/store/file_store.h"
#include "formats/zarr/array.h"
#include "store/memory_store.h"
#include "unit/forwarding_store.h"
#include "unit/pipelines/stream_test_cases.h"
#include "unit/scratch_directory.h"

namespace chunkwise::pipelines::stream {
namespace {

using ::testing::HasSubstr;
using testing_cases::AppendInOddPieces;
using testing_cases::Case;
using testing_cases::Cases;
using testing_cases::ConfigOf;
using testing_cases::Contents;
using testing_cases::D;
using testing_cases::MakeInput;
using testing_cases::Simple;

// Writes `data` through the zarr region writer into a fresh memory store.
std::shared_ptr<store::MemoryStore> RegionWrite(const StreamPlan& plan, core::Index frames,
                                                ByteView data) {
  auto store = store::MemoryStore::Create();
  formats::zarr::ArrayMetadata metadata = plan.metadata;
  metadata.shape[0] = frames;
  formats::zarr::ArrayOptions options;
  options.codec_build = plan.codec_build;
  auto array = formats::zarr::Array::Create(store, "", metadata, false, options);
  EXPECT_TRUE(array.ok()) << array.status().ToString();
  EXPECT_TRUE(array->Write(core::Region::Full(metadata.shape), data).ok());
  return store;
}

class StreamWriterMatchesRegionWriter : public ::testing::TestWithParam<Case> {};

TEST_P(StreamWriterMatchesRegionWriter, ByteForByte) {
  const Case& c = GetParam();
  const StreamConfig config = ConfigOf(c);
  auto store = store::MemoryStore::Create();
  auto writer = StreamWriter::Create(config, store, "");
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  const std::size_t frame_bytes = (*writer)->plan().frame_bytes;
  const Bytes input = MakeInput(frame_bytes * static_cast<std::size_t>(c.frames), c.frames * 31);
  ASSERT_TRUE(AppendInOddPieces(**writer, input, 7).ok());
  ASSERT_TRUE((*writer)->Flush().ok());
  ASSERT_TRUE((*writer)->Close().ok());
  EXPECT_EQ((*writer)->stats().frames, c.frames);

  auto expected = RegionWrite((*writer)->plan(), c.frames, input);
  const auto got = Contents(*store);
  const auto want = Contents(*expected);
  ASSERT_EQ(got.size(), want.size());
  for (const auto& [key, value] : want) {
    ASSERT_TRUE(got.count(key)) << key;
    EXPECT_TRUE(got.at(key) == value) << key << " differs";
  }
  // And it reads back as the input.
  auto array = formats::zarr::Array::Open(store, "");
  ASSERT_TRUE(array.ok());
  EXPECT_EQ(array->metadata().shape[0], c.frames);
  auto all = array->Read(core::Region::Full(array->metadata().shape));
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(*all == input);
}

INSTANTIATE_TEST_SUITE_P(Shapes, StreamWriterMatchesRegionWriter, ::testing::ValuesIn(Cases()),
                         [](const auto& info) { return info.param.name; });

// What opening an unfinished stream gives: NotFound naming zarr.json.
void ExpectNoArray(const std::shared_ptr<store::Store>& store, const std::string& prefix = "") {
  EXPECT_FALSE(*store->Exists(prefix + "zarr.json"));
  const Status opened = formats::zarr::Array::Open(store, prefix).status();
  EXPECT_EQ(opened.code(), StatusCode::kNotFound);
  EXPECT_THAT(opened.message(), HasSubstr("zarr.json"));
  EXPECT_THAT(opened.message(), HasSubstr("a write not finished"));
}

TEST(StreamWriterTest, NothingIsPublishedBeforeCloseThenTheShapeIsExact) {
  Case c = Simple({D(0, 4, 2), D(16, 8, 1), D(16, 8, 1)}, "uint16");
  auto store = store::MemoryStore::Create();
  auto writer = StreamWriter::Create(ConfigOf(c), store, "");
  ASSERT_TRUE(writer.ok());
  ExpectNoArray(store);
  const Bytes input = MakeInput((*writer)->plan().frame_bytes * 19, 3);
  // 16 frames complete two shard epochs (tile 4, 2 tiles per shard; the first
  // is all fill value): the second's shards are in the store after Flush, the
  // array is not.
  ASSERT_TRUE((*writer)->Append(ByteView(input).first((*writer)->plan().frame_bytes * 18)).ok());
  ASSERT_TRUE((*writer)->Flush().ok());
  EXPECT_TRUE(*store->Exists("c/1/0/0"));
  EXPECT_TRUE(*store->Exists(".chunkwise-incomplete"));
  ExpectNoArray(store);
  ASSERT_TRUE((*writer)->Append(ByteView(input).subspan((*writer)->plan().frame_bytes * 18)).ok());
  ASSERT_TRUE((*writer)->Close().ok());
  EXPECT_EQ(formats::zarr::Array::Open(store, "")->metadata().shape[0], 19);
  EXPECT_FALSE(*store->Exists(".chunkwise-incomplete"));
  // Shard epochs of frames 0-7, 8-15 and 16-18, four shards each, less the all-fill ones.
  EXPECT_EQ((*writer)->stats().shards, Contents(*store).size() - 1);
  EXPECT_GE((*writer)->stats().shards, 3u);
}

TEST(StreamWriterTest, InputEndingInsideAnElementIsAnErrorButWholeFramesLand) {
  Case c = Simple({D(0, 2, 1), D(4, 4, 1)}, "uint32");
  auto store = store::MemoryStore::Create();
  auto writer = StreamWriter::Create(ConfigOf(c), store, "");
  ASSERT_TRUE(writer.ok());
  const Bytes input = MakeInput(16 * 3 + 6, 5);  // Three frames and a half element more.
  ASSERT_TRUE((*writer)->Append(input).ok());
  const Status closed = (*writer)->Close();
  EXPECT_EQ(closed.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(closed.message(), HasSubstr("inside an element"));
  EXPECT_THAT(closed.message(), HasSubstr("frame 3"));
  // The whole frames are published though the input's tail is reported.
  auto array = formats::zarr::Array::Open(store, "");
  ASSERT_TRUE(array.ok());
  EXPECT_EQ(array->metadata().shape[0], 3);
  auto data = array->Read(core::Region::Full(array->metadata().shape));
  EXPECT_TRUE(*data == Bytes(input.begin(), input.begin() + 48));
}

TEST(StreamWriterTest, InputEndingInsideAFrameIsReported) {
  Case c = Simple({D(0, 2, 1), D(4, 4, 1)}, "uint8");
  auto store = store::MemoryStore::Create();
  auto writer = StreamWriter::Create(ConfigOf(c), store, "");
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->Append(MakeInput(9, 1)).ok());
  const Status closed = (*writer)->Close();
  EXPECT_THAT(closed.message(), HasSubstr("ends 1 bytes into frame 2"));
}

TEST(StreamWriterTest, InputLongerThanABoundedArrayIsRefused) {
  Case c = Simple({D(3, 2, 1), D(4, 4, 1)}, "uint8");
  auto writer = StreamWriter::Create(ConfigOf(c), store::MemoryStore::Create(), "");
  ASSERT_TRUE(writer.ok());
  const Status status = (*writer)->Append(MakeInput(16, 1));
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("longer than the array"));
}

TEST(StreamWriterTest, ConfigsThatCannotWorkAreRefused) {
  Case c = Simple({D(0, 4, 2), D(64, 16, 2)}, "uint16");
  StreamConfig config = ConfigOf(c);
  config.dimensions[1].size = 0;
  EXPECT_THAT(PlanStream(config).status().message(), HasSubstr("dimension 1"));
  config = ConfigOf(c);
  config.dimensions[1].tile_size = 0;
  EXPECT_THAT(PlanStream(config).status().message(), HasSubstr("tile"));
  config = ConfigOf(c);
  config.codec = "brotli";  // A codec the library lacks.
  EXPECT_THAT(PlanStream(config).status().message(), HasSubstr("the codecs: codec shorthand"));
  config = ConfigOf(c);
  config.max_memory = 1000;
  EXPECT_EQ(PlanStream(config).status().code(), StatusCode::kResourceExhausted);
  EXPECT_THAT(PlanStream(config).status().message(), HasSubstr("over the memory limit"));
  config = ConfigOf(c);
  config.epochs_per_batch = 3;
  EXPECT_THAT(PlanStream(config).status().message(), HasSubstr("must divide"));
  EXPECT_EQ(PlanStream(StreamConfig{}).status().code(), StatusCode::kInvalidArgument);
}

TEST(StreamWriterTest, MemoryEstimateDoesNotDependOnTheLengthOfDimensionZero) {
  Case c = Simple({D(0, 8, 4), D(256, 64, 2), D(256, 64, 2)}, "uint16");
  StreamConfig config = ConfigOf(c);
  const MemoryEstimate unbounded = *EstimateMemory(config);
  config.dimensions[0].size = 1 << 30;
  const MemoryEstimate huge = *EstimateMemory(config);
  EXPECT_EQ(unbounded.total(), huge.total());
  // Two batches of 4·4 tiles of 8·64·64 uint16 per epoch, and the fill tile.
  const StreamPlan plan = *PlanStream(config);
  EXPECT_EQ(unbounded.staging, (2u * plan.epochs_per_batch * 16 + 1) * 8 * 64 * 64 * 2);
  EXPECT_GE(unbounded.total(), unbounded.staging + unbounded.aggregated);
  EXPECT_THAT(DescribePlan(plan), HasSubstr("memory"));
}

TEST(StreamWriterTest, WriterDroppedBeforeCloseLeavesNoPartialShardAndNoArray) {
  const std::filesystem::path dir = test::FreshScratchDirectory("stream_drop");
  auto store = *store::FileStore::Open(dir);
  Case c = Simple({D(0, 4, 4), D(32, 16, 1), D(32, 16, 1)}, "uint16");
  {
    auto writer = StreamWriter::Create(ConfigOf(c), store, "");
    ASSERT_TRUE(writer.ok());
    // 24 frames: one shard epoch (16 frames) finished, one half done.
    ASSERT_TRUE((*writer)->Append(MakeInput((*writer)->plan().frame_bytes * 24, 9)).ok());
    ASSERT_TRUE((*writer)->Flush().ok());
  }
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) files.push_back(entry.path().lexically_relative(dir).string());
  }
  std::sort(files.begin(), files.end());
  // The finished shard epoch, and the marker that makes the keys ours; no zarr.json.
  EXPECT_EQ(files, (std::vector<std::string>{".chunkwise-incomplete", "c/0/0/0", "c/0/0/1",
                                             "c/0/1/0", "c/0/1/1"}));
  ExpectNoArray(store);
  std::filesystem::remove_all(dir);
}

TEST(StreamWriterTest, ExistingArrayIsRefusedUnlessOverwriting) {
  auto store = store::MemoryStore::Create();
  Case c = Simple({D(0, 2, 1), D(4, 4, 1)}, "uint8");
  ASSERT_TRUE(StreamWriter::Create(ConfigOf(c), store, "")->get()->Close().ok());
  EXPECT_EQ(StreamWriter::Create(ConfigOf(c), store, "").status().code(),
            StatusCode::kInvalidArgument);
  StreamWriterOptions options;
  options.overwrite = true;
  EXPECT_TRUE(StreamWriter::Create(ConfigOf(c), store, "", options).ok());
}

// A memory store whose Set of a shard fails once `good_shards` shards were stored.
class ShardFailingStore final : public test::ForwardingStore {
 public:
  explicit ShardFailingStore(int good_shards) : good_shards_(good_shards) {}
  Status Set(std::string_view key, ByteView value) override {
    if (key.starts_with("c/") && shards_.fetch_add(1) >= good_shards_) {
      return Status::IOError("memory:" + std::string(key) + ": disk full");
    }
    return ForwardingStore::Set(key, value);
  }

 private:
  const int good_shards_;
  std::atomic<int> shards_{0};
};

TEST(StreamWriterTest, AStoreFailingHalfWayPublishesNoArray) {
  auto store = std::make_shared<ShardFailingStore>(3);
  Case c = Simple({D(0, 4, 2), D(32, 16, 1), D(32, 16, 1)}, "uint16");
  auto writer = StreamWriter::Create(ConfigOf(c), store, "");
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  // 40 frames: 5 shard epochs of 4 shards; the 4th shard fails.
  const Status appended = (*writer)->Append(MakeInput((*writer)->plan().frame_bytes * 40, 4));
  const Status closed = appended.ok() ? (*writer)->Close() : appended;
  EXPECT_EQ(closed.code(), StatusCode::kIOError);
  EXPECT_THAT(closed.message(), HasSubstr("disk full"));
  ExpectNoArray(store);
  EXPECT_TRUE(*store->Exists("c/0/0/0"));  // The shards before the failure stay, unpublished.
  EXPECT_TRUE(*store->Exists(".chunkwise-incomplete"));
}

TEST(StreamWriterTest, OverwriteReplacesAnUnfinishedStreamButNotSomeoneElsesFiles) {
  auto store = store::MemoryStore::Create();
  Case c = Simple({D(0, 2, 1), D(4, 4, 1)}, "uint8");
  {
    auto dropped = StreamWriter::Create(ConfigOf(c), store, "");
    ASSERT_TRUE(dropped.ok());
    ASSERT_TRUE((*dropped)->Append(Bytes(4 * 5, 7)).ok());  // 5 frames, none all fill.
    ASSERT_TRUE((*dropped)->Flush().ok());
  }
  ExpectNoArray(store);
  EXPECT_TRUE(*store->Exists("c/0/0"));
  // Not replaced without overwrite; replaced with it, as zarr convert's output is.
  EXPECT_EQ(StreamWriter::Create(ConfigOf(c), store, "").status().code(),
            StatusCode::kInvalidArgument);
  StreamWriterOptions options;
  options.overwrite = true;
  auto writer = StreamWriter::Create(ConfigOf(c), store, "", options);
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  const Bytes input = MakeInput(4 * 3, 2);  // 3 frames of 4 bytes.
  ASSERT_TRUE((*writer)->Append(input).ok());
  ASSERT_TRUE((*writer)->Close().ok());
  auto array = formats::zarr::Array::Open(store, "");
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  EXPECT_EQ(array->metadata().shape[0], 3);
  EXPECT_TRUE(*array->Read(core::Region::Full(array->metadata().shape)) == input);

  auto notes = store::MemoryStore::Create();
  ASSERT_TRUE(notes->Set("notes/today.txt", AsBytes(std::string("mine"))).ok());
  const Status refused = StreamWriter::Create(ConfigOf(c), notes, "notes", options).status();
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.message(), HasSubstr("not a zarr array or group"));
  EXPECT_TRUE(*notes->Exists("notes/today.txt"));
}

TEST(StreamWriterTest, MeteringSinkCountsWhatTheStoreGets) {
  Case c = Simple({D(0, 4, 2), D(40, 8, 2), D(24, 8, 3)}, "uint16");
  auto store = store::MemoryStore::Create();
  auto memory = store::MemoryStore::Create();
  StoreShardSink to_store(memory, "", formats::zarr::ChunkKeyEncoding::Default('/'),
                          formats::zarr::IndexLocation::kEnd,
                          formats::zarr::ShardIndex::EncodedSize(2 * 2 * 3));
  MeteringShardSink meter(&to_store);
  StreamWriterOptions options;
  options.sink = &meter;
  auto writer = StreamWriter::Create(ConfigOf(c), store, "", options);
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->Append(MakeInput((*writer)->plan().frame_bytes * 13, 2)).ok());
  ASSERT_TRUE((*writer)->Close().ok());
  std::uint64_t stored = 0;
  for (const auto& [key, value] : Contents(*memory)) stored += value.size();
  EXPECT_EQ(meter.bytes(), stored);
  EXPECT_EQ(meter.shards(), Contents(*memory).size());
  EXPECT_EQ(meter.bytes(), (*writer)->stats().bytes_out);
  EXPECT_EQ(Contents(*store).size(), 1u);  // Only zarr.json: the shards went to the sink.
  EXPECT_TRUE(Contents(*store).count("zarr.json"));
}

// Appends of megabytes are staged by several threads (split at arbitrary
// bytes, rows and tiles cut mid-way) and shards are written by several: the
// array must equal one staged a few kilobytes at a time.
TEST(StreamWriterTest, LargeAppendsStagedInParallelMatchSmallOnes) {
  StreamConfig config = ConfigOf(Simple({D(0, 8, 2), D(512, 64, 4), D(384, 96, 2)}, "uint16"));
  config.threads = 4;
  const std::size_t frame_bytes = std::size_t{512} * 384 * 2;
  const Bytes input = MakeInput(frame_bytes * 37, 5);
  std::map<std::string, Bytes> contents[2];
  for (int large = 0; large < 2; ++large) {
    auto store = store::MemoryStore::Create();
    auto writer = StreamWriter::Create(config, store, "");
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    if (large == 1) {
      const std::size_t piece = (std::size_t{3} << 20) + 7;  // Crosses batches off any boundary.
      for (std::size_t at = 0; at < input.size(); at += piece) {
        ASSERT_TRUE((*writer)
                        ->Append(ByteView(input).subspan(at, std::min(piece, input.size() - at)))
                        .ok());
      }
    } else {
      ASSERT_TRUE(AppendInOddPieces(**writer, input, 11).ok());
    }
    ASSERT_TRUE((*writer)->Close().ok());
    EXPECT_EQ((*writer)->stats().frames, 37);
    contents[large] = Contents(*store);
  }
  EXPECT_EQ(contents[0].size(), 13u);  // zarr.json and 3 shard epochs of 2 × 2 shards.
  EXPECT_TRUE(contents[0] == contents[1]);
}

}  // namespace
}  // namespace chunkwise::pipelines::stream
