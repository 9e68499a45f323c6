// The stream writer's sink is the Store: a multiscale stream into an S3
// bucket (the loopback moto server) writes the same objects as into memory,
// each shard in one upload.
#include <gtest/gtest.h>

#include <map>
#include <mutex>

#include "pipelines/stream/stream_writer.h"
#include "store/memory_store.h"
#include "store/s3_store.h"
#include "unit/pipelines/stream_test_cases.h"
#include "unit/store/s3_test_server.h"

namespace chunkwise::pipelines::stream {
namespace {

using testing_cases::D;

// Forwards to `inner`, counting per key the streamed writers opened and the
// whole values set.
class CountingStore final : public store::Store {
 public:
  explicit CountingStore(std::shared_ptr<store::Store> inner) : inner_(std::move(inner)) {}

  Result<std::optional<Bytes>> Get(std::string_view key) const override { return inner_->Get(key); }
  Result<std::optional<Bytes>> GetRange(std::string_view key,
                                        store::ByteRange range) const override {
    return inner_->GetRange(key, range);
  }
  Status Set(std::string_view key, ByteView value) override {
    Count(sets_, key);
    return inner_->Set(key, value);
  }
  Result<std::unique_ptr<store::ValueWriter>> OpenWriter(std::string_view key) override {
    Count(writers_, key);
    return inner_->OpenWriter(key);
  }
  Status Erase(std::string_view key) override { return inner_->Erase(key); }
  Result<std::vector<std::string>> List(std::string_view prefix) const override {
    return inner_->List(prefix);
  }
  Result<std::optional<std::uint64_t>> Size(std::string_view key) const override {
    return inner_->Size(key);
  }
  store::StoreCapabilities capabilities() const override { return inner_->capabilities(); }
  std::string Describe(std::string_view key) const override { return inner_->Describe(key); }

  std::map<std::string, int> sets() const {
    std::lock_guard lock(mutex_);
    return sets_;
  }
  std::map<std::string, int> writers() const {
    std::lock_guard lock(mutex_);
    return writers_;
  }

 private:
  void Count(std::map<std::string, int>& counts, std::string_view key) {
    std::lock_guard lock(mutex_);
    ++counts[std::string(key)];
  }

  std::shared_ptr<store::Store> inner_;
  mutable std::mutex mutex_;
  std::map<std::string, int> sets_;
  std::map<std::string, int> writers_;
};

StreamConfig MultiscaleConfigOf(formats::zarr::IndexLocation location) {
  testing_cases::Case c = testing_cases::Simple({D(0, 4, 2), D(45, 8, 2), D(37, 8, 3)}, "uint16");
  c.location = location;
  StreamConfig config = testing_cases::ConfigOf(c);
  config.multiscale = MultiscaleConfig{};
  config.multiscale->levels = 2;
  return config;
}

Status Stream(const StreamConfig& config, std::shared_ptr<store::Store> store, ByteView input) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<StreamWriter> writer,
                             StreamWriter::Create(config, std::move(store), "image"));
  CHUNKWISE_RETURN_IF_ERROR(testing_cases::AppendInOddPieces(*writer, input, 3));
  CHUNKWISE_RETURN_IF_ERROR(writer->Flush());
  return writer->Close();
}

class StreamToS3Test : public ::testing::TestWithParam<formats::zarr::IndexLocation> {};

TEST_P(StreamToS3Test, TheBucketHoldsWhatMemoryHoldsEachShardUploadedOnce) {
  const test::S3TestServers* servers = test::TestS3Servers();
  ASSERT_NE(servers, nullptr);
  std::shared_ptr<store::S3Store> bucket = test::OpenTestS3Store(test::TestS3Options(*servers));
  ASSERT_NE(bucket, nullptr);
  const StreamConfig config = MultiscaleConfigOf(GetParam());
  Result<StreamPlan> plan = PlanStream(config);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  const Bytes input = testing_cases::MakeInput(plan->frame_bytes * 21, 9);

  auto counting = std::make_shared<CountingStore>(bucket);
  const Status streamed = Stream(config, counting, input);
  ASSERT_TRUE(streamed.ok()) << streamed.ToString();
  auto memory = store::MemoryStore::Create();
  ASSERT_TRUE(Stream(config, memory, input).ok());

  const auto want = testing_cases::Contents(*memory);
  const auto got = testing_cases::Contents(*bucket);
  ASSERT_EQ(got.size(), want.size());
  int shards = 0;
  for (const auto& [key, value] : want) {
    ASSERT_TRUE(got.count(key)) << key;
    EXPECT_TRUE(got.at(key) == value) << key << " differs";
    if (key.ends_with("zarr.json")) continue;
    ++shards;
    EXPECT_EQ(counting->writers()[key], 1) << key;
    EXPECT_EQ(counting->sets().count(key), 0u) << key;
  }
  EXPECT_GT(shards, 6);
  // One PUT per shard (each small enough for one) and per metadata write:
  // nothing uploaded twice, no multipart parts.
  int metadata_sets = 0;
  for (const auto& [key, count] : counting->sets()) metadata_sets += count;
  const store::S3StoreStats stats = bucket->stats();
  EXPECT_EQ(stats.puts, static_cast<std::uint64_t>(shards + metadata_sets));
  EXPECT_EQ(stats.parts, 0u);
}

INSTANTIATE_TEST_SUITE_P(Index, StreamToS3Test,
                         ::testing::Values(formats::zarr::IndexLocation::kEnd,
                                           formats::zarr::IndexLocation::kStart),
                         [](const auto& info) {
                           return info.param == formats::zarr::IndexLocation::kEnd ? "end"
                                                                                   : "start";
                         });

}  // namespace
}  // namespace chunkwise::pipelines::stream
