// Batched puts (store/batched_puts.h) against a server in this process that
// counts the requests it holds at once and stores what PUTs send
// (counting_http_server.h), reached as an S3 bucket (counting_bucket.h): an S3Store's PutMany
// has every item on the wire together from one thread, and an unsharded
// zarr array written over S3 with a pool of one thread sends its chunks'
// PUTs as one batch; a failing chunk's error names its key and status, a
// refused condition is Conflict, a cancelled write ends its requests on the
// wire, and a folder's view batches as the store beneath does.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <nlohmann/json.hpp>
#include <thread>

#include "chunkwise/core/thread_pool.h"
#include "facade/subtree_store.h"
#include "formats/zarr/array.h"
#include "store/batched_puts.h"
#include "store/memory_store.h"
#include "store/s3_store.h"
#include "unit/formats/small_chunked_array.h"
#include "unit/store/counting_bucket.h"

namespace chunkwise::store {
namespace {

using test::BucketServer;
using test::CountingServer;
using test::OpenBucket;
using ::testing::HasSubstr;

Bytes Text(std::string_view text) { return Bytes(text.begin(), text.end()); }

TEST(BatchedPutsTest, AnS3StoresPutsAreInFlightTogetherFromOneThread) {
  std::unique_ptr<CountingServer> server = BucketServer();
  server->AddFile("/bkt/gone", Text("old"));
  std::shared_ptr<S3Store> store = OpenBucket(*server);
  ASSERT_NE(store, nullptr);
  EXPECT_TRUE(BatchesPuts(*store));
  std::vector<Bytes> values;
  for (int i = 0; i < 7; ++i) values.push_back(Text("value " + std::to_string(i)));
  std::vector<PutItem> items;
  for (int i = 0; i < 7; ++i) items.push_back({"k" + std::to_string(i), ByteView(values[i]), {}});
  items.push_back({"gone", std::nullopt, {}});  // A DELETE in the same batch.
  server->Hold(7);  // The eighth held at once releases them all; fewer wait a second.
  const std::vector<Status> statuses = PutMany(*store, items);
  ASSERT_EQ(statuses.size(), items.size());
  for (const Status& status : statuses) EXPECT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(server->max_held(), 8);
  for (int i = 0; i < 7; ++i) EXPECT_EQ(server->file("/bkt/k" + std::to_string(i)), values[i]);
  EXPECT_EQ(server->file("/bkt/gone"), std::nullopt);
  EXPECT_EQ(store->stats().puts, 7u);
  EXPECT_EQ(store->stats().deletes, 1u);
}

// A condition the server refuses (412) is Conflict naming the key's URL, as
// SetPartsIf's is; the other items of the batch are written.
TEST(BatchedPutsTest, ARefusedConditionIsAConflictNamingTheKey) {
  std::unique_ptr<CountingServer> server = BucketServer();
  server->AddFile("/bkt/there", Text("old"));
  std::shared_ptr<S3Store> store = OpenBucket(*server);
  ASSERT_NE(store, nullptr);
  const Bytes value = Text("new");
  const Generation current = Generation::Of(CountingServer::ETag(Text("old")));
  const std::vector<PutItem> items = {
      {"there", ByteView(value), Generation::Absent()},         // Exists: refused.
      {"there", ByteView(value), Generation::Of("\"stale\"")},  // Another version: refused.
      {"fresh", ByteView(value), Generation::Absent()},
      {"../bad", ByteView(value), {}},
  };
  std::vector<Status> statuses = PutMany(*store, items);
  ASSERT_EQ(statuses.size(), items.size());
  EXPECT_EQ(statuses[0].code(), StatusCode::kConflict) << statuses[0].ToString();
  EXPECT_THAT(statuses[0].message(), HasSubstr("PUT s3://bkt/there"));
  EXPECT_THAT(statuses[0].message(), HasSubstr("already exists"));
  EXPECT_EQ(statuses[1].code(), StatusCode::kConflict) << statuses[1].ToString();
  EXPECT_THAT(statuses[1].message(), HasSubstr("\"stale\""));
  EXPECT_TRUE(statuses[2].ok()) << statuses[2].ToString();
  EXPECT_EQ(statuses[3].code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(server->file("/bkt/there"), Text("old"));
  EXPECT_EQ(server->file("/bkt/fresh"), value);
  EXPECT_EQ(server->requests("/bkt/there"), 2);  // A 412 is not retried.

  // At the generation it holds, the write and then the erase go ahead.
  statuses = PutMany(*store, std::vector<PutItem>{{"there", ByteView(value), current}});
  EXPECT_TRUE(statuses[0].ok()) << statuses[0].ToString();
  const Generation now = Generation::Of(CountingServer::ETag(value));
  statuses = PutMany(
      *store, std::vector<PutItem>{{"there", std::nullopt, current}, {"fresh", std::nullopt, now}});
  EXPECT_EQ(statuses[0].code(), StatusCode::kConflict) << statuses[0].ToString();
  EXPECT_THAT(statuses[0].message(), HasSubstr("DELETE s3://bkt/there"));
  EXPECT_TRUE(statuses[1].ok()) << statuses[1].ToString();
  EXPECT_EQ(server->file("/bkt/there"), value);
  EXPECT_EQ(server->file("/bkt/fresh"), std::nullopt);
}

TEST(BatchedPutsTest, ALocalStoreWritesItsItemsOneAfterAnother) {
  MemoryStore memory;
  ASSERT_TRUE(memory.Set("gone", Text("old")).ok());
  ASSERT_TRUE(memory.Set("there", Text("old")).ok());
  EXPECT_FALSE(BatchesPuts(memory));
  const Bytes value = Text("A");
  const std::vector<PutItem> items = {{"a", ByteView(value), {}},
                                      {"gone", std::nullopt, {}},
                                      {"there", ByteView(value), Generation::Absent()}};
  const std::vector<Status> statuses = PutMany(memory, items);
  ASSERT_EQ(statuses.size(), 3u);
  EXPECT_TRUE(statuses[0].ok());
  EXPECT_TRUE(statuses[1].ok());
  EXPECT_EQ(statuses[2].code(), StatusCode::kConflict);
  EXPECT_EQ(*memory.Get("a"), value);
  EXPECT_EQ(*memory.Get("gone"), std::nullopt);
  EXPECT_EQ(*memory.Get("there"), Text("old"));
}

// An unsharded zarr v3 array of 8 chunks (shape 4x40, chunks 4x5, uint16,
// fill value 7) in bucket "bkt" of the server and in its folder v/, written
// with a pool of one thread; `expected_` holds what the same write leaves
// in memory.
class BatchedArrayWriteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const formats::zarr::ArrayMetadata parsed = formats::zarr::Uint16ZstdChunksOf4By5();
    metadata_ = parsed;
    data_.resize(4 * 40);
    for (std::size_t i = 0; i < data_.size(); ++i) {
      data_[i] = static_cast<std::uint16_t>(i * 3 + 100);
      if (i % 40 / 5 == 3) data_[i] = 7;  // Chunk c/0/3 (columns 15-19) all fill: not stored.
    }
    formats::zarr::ArrayOptions options;
    options.pool = *core::ThreadPool::Create(1);
    Result<formats::zarr::Array> created =
        formats::zarr::Array::Create(memory_, "", metadata_, false, options);
    ASSERT_TRUE(created.ok()) << created.status().ToString();
    expected_.emplace(std::move(created).value());
    // The bucket holds the metadata only (the server cannot list, which
    // Create would ask for).
    server_->AddFile("/bkt/zarr.json", **memory_->Get("zarr.json"));
    server_->AddFile("/bkt/v/zarr.json", **memory_->Get("zarr.json"));
    ASSERT_TRUE(expected_->Write(all_, Data()).ok());
    store_ = OpenBucket(*server_);
    ASSERT_NE(store_, nullptr);
  }

  // The array at `prefix` of `store`, with a pool of one thread.
  std::optional<formats::zarr::Array> Open(std::shared_ptr<Store> store,
                                           const std::string& prefix) {
    formats::zarr::ArrayOptions options;
    options.pool = *core::ThreadPool::Create(1);
    Result<formats::zarr::Array> array =
        formats::zarr::Array::Open(std::move(store), prefix, options);
    EXPECT_TRUE(array.ok()) << array.status().ToString();
    if (!array.ok()) return std::nullopt;
    return std::move(array).value();
  }

  ByteView Data() const {
    return ByteView(reinterpret_cast<const std::uint8_t*>(data_.data()), data_.size() * 2);
  }

  // Every chunk the server holds under `folder` is the one memory holds.
  void ExpectChunksAsInMemory(const std::string& folder) {
    for (int c = 0; c < 8; ++c) {
      const std::string key = "c/0/" + std::to_string(c);
      Result<std::optional<Bytes>> chunk = memory_->Get(key);
      ASSERT_TRUE(chunk.ok());
      EXPECT_EQ(server_->file(folder + key), *chunk) << key;
    }
  }

  std::unique_ptr<CountingServer> server_ = BucketServer();
  std::shared_ptr<MemoryStore> memory_ = std::make_shared<MemoryStore>();
  formats::zarr::ArrayMetadata metadata_;
  const core::Region all_ = core::Region::Full(core::Shape{4, 40});
  std::vector<std::uint16_t> data_;
  std::optional<formats::zarr::Array> expected_;
  std::shared_ptr<S3Store> store_;
};

TEST_F(BatchedArrayWriteTest, ChunksAreOneBatchInFlightWithOnePoolThread) {
  server_->AddFile("/bkt/c/0/3", Text("stale"));  // All fill now: removed.
  std::optional<formats::zarr::Array> array = Open(store_, "");
  ASSERT_TRUE(array.has_value());
  server_->Hold(7);  // The eighth request held at once releases them all.
  const Status written = array->Write(all_, Data());
  ASSERT_TRUE(written.ok()) << written.ToString();
  // Every chunk's request on the wire at once, though one thread encodes.
  EXPECT_EQ(server_->max_held(), 8);
  ExpectChunksAsInMemory("/bkt/");
  EXPECT_EQ(server_->file("/bkt/c/0/3"), std::nullopt);
  EXPECT_EQ(store_->stats().puts, 7u);
  EXPECT_EQ(store_->stats().deletes, 1u);
}

// A write of part of some chunks: the chunks it covers go as one batch, the
// ones it covers in part merge into the stored chunk (a conditional write
// at the ETag read), and the array reads back what memory holds.
TEST_F(BatchedArrayWriteTest, PartsOfChunksMergeIntoTheStoredOnes) {
  std::optional<formats::zarr::Array> array = Open(store_, "");
  ASSERT_TRUE(array.has_value());
  ASSERT_TRUE(array->Write(all_, Data()).ok());
  const core::Region part({1, 3}, {3, 27});
  std::vector<std::uint16_t> values(2 * 24, 9);
  const ByteView bytes(reinterpret_cast<const std::uint8_t*>(values.data()), values.size() * 2);
  ASSERT_TRUE(expected_->Write(part, bytes).ok());
  const Status written = array->Write(part, bytes);
  ASSERT_TRUE(written.ok()) << written.ToString();
  Result<Bytes> read = array->Read(all_);
  Result<Bytes> expected = expected_->Read(all_);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(*read, *expected);
}

TEST_F(BatchedArrayWriteTest, AChunksServerErrorNamesItsKeyAndStatus) {
  std::optional<formats::zarr::Array> array = Open(store_, "");
  ASSERT_TRUE(array.has_value());
  server_->Fail("/bkt/c/0/5", 500);
  Status written = array->Write(all_, Data());
  EXPECT_EQ(written.code(), StatusCode::kIOError) << written.ToString();
  EXPECT_THAT(written.message(), HasSubstr("PUT s3://bkt/c/0/5"));
  EXPECT_THAT(written.message(), HasSubstr("HTTP 500"));
  EXPECT_EQ(server_->requests("/bkt/c/0/5"), 2);  // Retried once, as its policy says.
  EXPECT_EQ(server_->file("/bkt/c/0/4"), **memory_->Get("c/0/4"));  // Its batch's.

  server_->Fail("/bkt/c/0/1", 403);
  written = array->Write(all_, Data());
  EXPECT_EQ(written.code(), StatusCode::kIOError) << written.ToString();
  EXPECT_THAT(written.message(), HasSubstr("PUT s3://bkt/c/0/1"));
  EXPECT_THAT(written.message(), HasSubstr("HTTP 403"));
}

// A cancelled write ends its batch's requests on the wire: the server holds
// every request until it stops, so the write returns only by cancelling.
TEST_F(BatchedArrayWriteTest, CancellingAWriteEndsItsRequestsOnTheWire) {
  std::optional<formats::zarr::Array> array = Open(store_, "");
  ASSERT_TRUE(array.has_value());
  server_->Hold(0, /*until_stop=*/true);
  core::Cancellation cancellation;
  std::thread canceller([&] {
    server_->WaitForHeld(8);  // The whole batch is on the wire.
    cancellation.Cancel();
  });
  const Status status = array->Write(all_, Data(), {nullptr, &cancellation});
  canceller.join();
  EXPECT_EQ(status.code(), StatusCode::kCancelled) << status.ToString();
  EXPECT_THAT(status.message(), HasSubstr("s3://bkt/c/0/"));
  server_->Release();
}

// An array in a folder of the bucket (as the facade opens a path inside a
// reference set): its chunk PUTs are still one batch on the wire.
TEST_F(BatchedArrayWriteTest, AnArrayInAFolderViewSendsItsChunksAsOneBatch) {
  std::shared_ptr<Store> folder = MakeSubtreeStore(store_, "v");
  EXPECT_TRUE(BatchesPuts(*folder));
  EXPECT_FALSE(BatchesPuts(*MakeSubtreeStore(std::make_shared<MemoryStore>(), "v")));
  std::optional<formats::zarr::Array> array = Open(folder, "");
  ASSERT_TRUE(array.has_value());
  server_->Hold(7);  // The eighth request held at once releases them all.
  const Status written = array->Write(all_, Data());
  ASSERT_TRUE(written.ok()) << written.ToString();
  EXPECT_EQ(server_->max_held(), 8);  // 7 PUTs and the DELETE of all-fill chunk c/0/3.
  ExpectChunksAsInMemory("/bkt/v/");
  EXPECT_EQ(server_->requests("/bkt/c/0/0"), 0);
}

// More chunks than one batch holds (1024): the batches follow one another,
// the next one encoding while the last one is on the wire, and the chunks
// at the ends, written in part, merge into the stored ones.
TEST(BatchedPutsTest, AnArrayOfManyChunksWritesInSeveralBatches) {
  const formats::zarr::ArrayMetadata parsed = formats::zarr::Uint32ChunksOfTwo(2600);
  auto memory = std::make_shared<MemoryStore>();
  Result<formats::zarr::Array> expected = formats::zarr::Array::Create(memory, "", parsed, false);
  ASSERT_TRUE(expected.ok()) << expected.status().ToString();
  std::unique_ptr<CountingServer> server = BucketServer();
  server->AddFile("/bkt/zarr.json", **memory->Get("zarr.json"));
  const Bytes stored = {5, 0, 0, 0, 6, 0, 0, 0};  // Chunk 0's elements: 5 and 6.
  server->AddFile("/bkt/c/0", stored);
  ASSERT_TRUE(memory->Set("c/0", stored).ok());
  std::shared_ptr<S3Store> store = OpenBucket(*server);
  ASSERT_NE(store, nullptr);
  formats::zarr::ArrayOptions options;
  options.pool = *core::ThreadPool::Create(2);
  Result<formats::zarr::Array> array = formats::zarr::Array::Open(store, "", options);
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  std::vector<std::uint32_t> data(2598);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint32_t>(i + 1);
  const core::Region region({1}, {2599});
  const ByteView bytes(reinterpret_cast<const std::uint8_t*>(data.data()), data.size() * 4);
  ASSERT_TRUE(expected->Write(region, bytes).ok());
  const Status written = array->Write(region, bytes);
  ASSERT_TRUE(written.ok()) << written.ToString();
  EXPECT_EQ(store->stats().puts, 1300u);
  for (int c : {0, 1, 511, 1023, 1024, 1025, 1298, 1299}) {
    const std::string key = "c/" + std::to_string(c);
    EXPECT_EQ(server->file("/bkt/" + key), **memory->Get(key)) << key;
  }
  const Bytes first = **memory->Get("c/0");
  EXPECT_EQ(first[0], 5);  // Kept by the merge.
  EXPECT_EQ(first[4], 1);
}

}  // namespace
}  // namespace chunkwise::store
