// Read-modify-writes in batches (store::UpdateObjects) against a server in
// this process that counts the requests it holds at once and stores what
// PUTs send, reached as an S3 bucket (counting_bucket.h): a zarr array over
// S3 with a pool of ONE thread writes chunks it covers in part, and shards
// (whole or in part), with every object's GET on the wire together and then
// every object's PUT; what lands is byte for byte what the same writes leave
// in memory. A PUT refused because another writer changed the object since
// it was read (412 on If-Match) is read, merged and written again over that
// writer's change; one refused at every try ends Conflict naming its URL.
// `zarr info`'s sizes of plain chunks, and the chunks of a copy into or out
// of a remote store, go as one batch too.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "chunkwise/core/thread_pool.h"
#include "formats/zarr/array.h"
#include "formats/zarr/array_copy.h"
#include "store/batched_gets.h"
#include "store/http_store.h"
#include "store/memory_store.h"
#include "store/s3_store.h"
#include "store/update_object.h"
#include "unit/store/counting_bucket.h"

namespace chunkwise::store {
namespace {

using test::BucketServer;
using test::CountingServer;
using test::OpenBucket;
using ::testing::HasSubstr;

const nlohmann::json kBytes = {{"name", "bytes"}, {"configuration", {{"endian", "little"}}}};
const nlohmann::json kZstd = {{"name", "zstd"},
                              {"configuration", {{"level", 1}, {"checksum", false}}}};

// A zarr v3 array of shape 4x40, uint16, fill value 7, in objects of
// `object_shape` coded by `codecs`, in bucket "bkt" of a counting server and
// in memory (`expected_`), each opened with a pool of one thread; data_ is
// 3i + 100 at element i but for columns 15-19, all fill.
class BatchedUpdatesTest : public ::testing::Test {
 protected:
  void Make(const std::vector<int>& object_shape, const nlohmann::json& codecs) {
    const nlohmann::json metadata = {
        {"zarr_format", 3},
        {"node_type", "array"},
        {"shape", {4, 40}},
        {"data_type", "uint16"},
        {"chunk_grid", {{"name", "regular"}, {"configuration", {{"chunk_shape", object_shape}}}}},
        {"chunk_key_encoding", {{"name", "default"}, {"configuration", {{"separator", "/"}}}}},
        {"fill_value", 7},
        {"codecs", codecs},
    };
    Result<formats::zarr::ArrayMetadata> parsed =
        formats::zarr::ParseV3ArrayMetadata(metadata.dump(), "zarr.json");
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    Result<formats::zarr::Array> created =
        formats::zarr::Array::Create(memory_, "", *parsed, false, OnePoolThread());
    ASSERT_TRUE(created.ok()) << created.status().ToString();
    expected_.emplace(std::move(created).value());
    server_->AddFile("/bkt/zarr.json", **memory_->Get("zarr.json"));
    store_ = OpenBucket(*server_);
    ASSERT_NE(store_, nullptr);
    Result<formats::zarr::Array> opened = formats::zarr::Array::Open(store_, "", OnePoolThread());
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    array_.emplace(std::move(opened).value());
    data_.resize(4 * 40);
    for (std::size_t i = 0; i < data_.size(); ++i) {
      data_[i] = static_cast<std::uint16_t>(i * 3 + 100);
      if (i % 40 / 5 == 3) data_[i] = 7;
    }
  }

  // Unsharded: 8 chunks of 4x5, zstd.
  void MakeChunked() { Make({4, 5}, nlohmann::json::array({kBytes, kZstd})); }

  // Sharded: 4 shards of 4x10, each of 4 inner chunks 2x5, zstd.
  void MakeSharded() {
    Make({4, 10}, nlohmann::json::array({{{"name", "sharding_indexed"},
                                          {"configuration",
                                           {{"chunk_shape", {2, 5}},
                                            {"codecs", nlohmann::json::array({kBytes, kZstd})},
                                            {"index_location", "end"}}}}}));
  }

  static formats::zarr::ArrayOptions OnePoolThread() {
    formats::zarr::ArrayOptions options;
    options.pool = *core::ThreadPool::Create(1);
    return options;
  }

  static ByteView View(const std::vector<std::uint16_t>& values) {
    return ByteView(reinterpret_cast<const std::uint8_t*>(values.data()), values.size() * 2);
  }

  // Writes `region` of both arrays from `values`.
  void WriteBoth(const core::Region& region, const std::vector<std::uint16_t>& values) {
    ASSERT_TRUE(expected_->Write(region, View(values)).ok());
    const Status written = array_->Write(region, View(values));
    ASSERT_TRUE(written.ok()) << written.ToString();
  }

  // Every object key memory holds (and no other) is on the server with
  // memory's bytes; the array reads back what memory's does.
  void ExpectAsInMemory(int objects) {
    server_->Hold(0);  // The reads below go at once.
    for (int c = 0; c < objects; ++c) {
      const std::string key = "c/0/" + std::to_string(c);
      EXPECT_EQ(server_->file("/bkt/" + key), *memory_->Get(key)) << key;
    }
    Result<Bytes> read = array_->Read(all_);
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    EXPECT_EQ(*read, *expected_->Read(all_));
  }

  std::unique_ptr<CountingServer> server_ = BucketServer();
  std::shared_ptr<MemoryStore> memory_ = std::make_shared<MemoryStore>();
  const core::Region all_ = core::Region::Full(core::Shape{4, 40});
  std::vector<std::uint16_t> data_;
  std::optional<formats::zarr::Array> expected_;
  std::optional<formats::zarr::Array> array_;
  std::shared_ptr<S3Store> store_;
};

// Rows 1-2 of every chunk: each of the 8 chunks is read, merged and written
// conditionally; the 8 GETs are on the wire together, then the 8 PUTs (the
// server holds each wave until all 8 are there, or a second), though one
// pool thread decodes and encodes.
TEST_F(BatchedUpdatesTest, PartialChunkWritesAreOneBatchOfGetsThenOneOfPuts) {
  MakeChunked();
  WriteBoth(all_, data_);  // Chunk c/0/3 all fill: not stored, so absent when merged.
  EXPECT_EQ(server_->file("/bkt/c/0/3"), std::nullopt);
  server_->HoldEachWave(7);
  WriteBoth(core::Region({1, 0}, {3, 40}), std::vector<std::uint16_t>(2 * 40, 9));
  EXPECT_EQ(server_->max_held("GET"), 8);
  EXPECT_EQ(server_->max_held("PUT"), 8);
  // The first write's DELETE (all fill), then this one's GET (404) and PUT.
  EXPECT_EQ(server_->requests("/bkt/c/0/3"), 3);
  ExpectAsInMemory(8);
}

// More chunks written in part than one batch holds (1024): the batches go
// two at a time, and every chunk ends as the same writes leave it in memory.
TEST(BatchedUpdatesManyTest, ChunksWrittenInPartInSeveralBatchesEndAsInMemory) {
  const nlohmann::json metadata = {
      {"zarr_format", 3},
      {"node_type", "array"},
      {"shape", {2, 2600}},
      {"data_type", "uint32"},
      {"chunk_grid", {{"name", "regular"}, {"configuration", {{"chunk_shape", {2, 2}}}}}},
      {"chunk_key_encoding", {{"name", "default"}, {"configuration", {{"separator", "/"}}}}},
      {"fill_value", 0},
      {"codecs", nlohmann::json::array({kBytes})},
  };
  Result<formats::zarr::ArrayMetadata> parsed =
      formats::zarr::ParseV3ArrayMetadata(metadata.dump(), "zarr.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  auto memory = std::make_shared<MemoryStore>();
  Result<formats::zarr::Array> expected = formats::zarr::Array::Create(memory, "", *parsed, false);
  ASSERT_TRUE(expected.ok()) << expected.status().ToString();
  std::unique_ptr<CountingServer> server = BucketServer();
  server->AddFile("/bkt/zarr.json", **memory->Get("zarr.json"));
  std::shared_ptr<S3Store> store = OpenBucket(*server);
  ASSERT_NE(store, nullptr);
  formats::zarr::ArrayOptions options;
  options.pool = *core::ThreadPool::Create(2);
  Result<formats::zarr::Array> array = formats::zarr::Array::Open(store, "", options);
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  std::vector<std::uint32_t> data(2 * 2600);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint32_t>(i + 1);
  const ByteView all(reinterpret_cast<const std::uint8_t*>(data.data()), data.size() * 4);
  const core::Region whole = core::Region::Full(core::Shape{2, 2600});
  ASSERT_TRUE(expected->Write(whole, all).ok());
  ASSERT_TRUE(array->Write(whole, all).ok());
  const core::Region row({1, 0}, {2, 2600});  // Half of each of the 1300 chunks.
  const ByteView half(all.data(), 2600 * 4);
  ASSERT_TRUE(expected->Write(row, half).ok());
  const Status written = array->Write(row, half);
  ASSERT_TRUE(written.ok()) << written.ToString();
  EXPECT_EQ(store->stats().puts, 2600u);
  for (int c : {0, 1, 1023, 1024, 1025, 1299}) {
    const std::string key = "c/0/" + std::to_string(c);
    EXPECT_EQ(server->file("/bkt/" + key), **memory->Get(key)) << key;
  }
}

// A region covering the four shards whole sends their PUTs as one batch,
// unread; one covering each in part reads them as one batch of GETs first.
TEST_F(BatchedUpdatesTest, ShardWritesAreOneBatchOfGetsThenOneOfPuts) {
  MakeSharded();
  server_->Hold(3);  // Four shards, all replaced unread: one wave of 4 PUTs.
  WriteBoth(all_, data_);
  EXPECT_EQ(server_->max_held("PUT"), 4);
  EXPECT_EQ(server_->requests("/bkt/c/0/0"), 1);  // Its PUT: no GET.
  ExpectAsInMemory(4);

  server_->HoldEachWave(3);  // Four shards written in part: 4 GETs, then 4 PUTs.
  WriteBoth(core::Region({0, 2}, {3, 38}), std::vector<std::uint16_t>(3 * 36, 11));
  EXPECT_EQ(server_->max_held("GET"), 4);
  EXPECT_EQ(server_->max_held("PUT"), 4);
  ExpectAsInMemory(4);
}

// A region over the four shards, read with one pool thread (#42): the
// shards' indexes (a suffix GET each, its reply naming the size and ETag),
// then their inner chunks' ranges are each one batch of four GETs on the
// wire together (the server holds each wave until all four are there, or a
// second), and the values are those written; a region over part of each
// shard, and one shard left out, too.
TEST_F(BatchedUpdatesTest, ShardedRegionReadsAreBatchesOfGetsWithOnePoolThread) {
  MakeSharded();
  WriteBoth(all_, data_);  // Whole shards: PUTs only (one GET so far: zarr.json).
  ASSERT_EQ(server_->max_held("GET"), 1);
  server_->HoldEachWave(3);
  const int before = server_->requests("/bkt/c/0/1");
  Result<Bytes> read = array_->Read(all_);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(*read, *expected_->Read(all_));
  EXPECT_EQ(server_->max_held("GET"), 4);
  // Its index (no GET of its size first), and its four inner chunks joined
  // into one range.
  EXPECT_EQ(server_->requests("/bkt/c/0/1") - before, 2);

  const core::Region part({1, 3}, {3, 37});
  read = array_->Read(part);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(*read, *expected_->Read(part));

  server_->Hold(0);
  ASSERT_TRUE(store_->Erase("c/0/2").ok());
  ASSERT_TRUE(memory_->Erase("c/0/2").ok());
  read = array_->Read(all_);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(*read, *expected_->Read(all_));  // Its columns: the fill value.
  EXPECT_EQ((*read)[2 * 25] | (*read)[2 * 25 + 1] << 8, 7);
}

// Another writer changes a chunk between its GET and its PUT: the PUT is
// refused (412 on If-Match), the chunk read again and the write merged over
// the other writer's bytes, which are kept outside the write's box.
TEST_F(BatchedUpdatesTest, AChunkChangedBetweenReadAndWriteIsMergedAgain) {
  MakeChunked();
  WriteBoth(all_, data_);
  // The other writer's chunk c/0/2: every element 500.
  ASSERT_TRUE(
      expected_->Write(core::Region({0, 10}, {4, 15}), View(std::vector<std::uint16_t>(20, 500)))
          .ok());
  server_->ChangeBeforeNextPut("/bkt/c/0/2", **memory_->Get("c/0/2"));
  const int before = server_->requests("/bkt/c/0/2");
  WriteBoth(core::Region({1, 0}, {2, 40}), std::vector<std::uint16_t>(40, 9));
  EXPECT_EQ(server_->requests("/bkt/c/0/2") - before, 4);  // GET, PUT (412), GET, PUT.
  ExpectAsInMemory(8);
  Result<Bytes> chunk = array_->Read(core::Region({0, 10}, {4, 15}));
  ASSERT_TRUE(chunk.ok());
  EXPECT_EQ((*chunk)[0] | (*chunk)[1] << 8, 500);  // Row 0: the other writer's.
  EXPECT_EQ((*chunk)[10] | (*chunk)[11] << 8, 9);  // Row 1: this write's.
}

// A chunk whose PUT is refused at every try: Conflict naming its URL once
// store::kUpdateAttempts tries are spent; the other chunks are written.
TEST_F(BatchedUpdatesTest, AWriteRefusedAtEveryTryIsAConflictNamingTheUrl) {
  MakeChunked();
  WriteBoth(all_, data_);
  server_->RefusePuts("/bkt/c/0/1", -1);
  const Status written =
      array_->Write(core::Region({1, 0}, {2, 40}), View(std::vector<std::uint16_t>(40, 9)));
  EXPECT_EQ(written.code(), StatusCode::kConflict) << written.ToString();
  EXPECT_THAT(written.message(), HasSubstr("s3://bkt/c/0/1"));
  EXPECT_EQ(server_->requests("/bkt/c/0/1"), 1 + 2 * kUpdateAttempts);
  ASSERT_TRUE(
      expected_->Write(core::Region({1, 5}, {2, 40}), View(std::vector<std::uint16_t>(35, 9)))
          .ok());
  for (int c : {2, 5, 7}) {
    const std::string key = "c/0/" + std::to_string(c);
    EXPECT_EQ(server_->file("/bkt/" + key), **memory_->Get(key)) << key;
  }
}

// `zarr info`'s sizes of an unsharded array over HTTP (which cannot list:
// every grid key is asked for) are one batch of one-byte GETs, each reply
// naming its chunk's size, with one pool thread.
TEST_F(BatchedUpdatesTest, ChunkSizesAreOneBatchInFlightWithOnePoolThread) {
  MakeChunked();
  WriteBoth(all_, data_);
  HttpStoreOptions options;
  options.base_url = server_->Url("/bkt");
  Result<std::shared_ptr<HttpStore>> http = HttpStore::Open(options);
  ASSERT_TRUE(http.ok()) << http.status().ToString();
  Result<formats::zarr::Array> array = formats::zarr::Array::Open(*http, "", OnePoolThread());
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  server_->Hold(7);  // Eight chunks' requests, one (c/0/3) for a chunk not stored.
  Result<formats::zarr::ArrayStorageStats> stats = array->Stats();
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(server_->max_held("GET"), 8);
  std::uint64_t bytes = 0;
  for (int c = 0; c < 8; ++c) {
    if (std::optional<Bytes> chunk = *memory_->Get("c/0/" + std::to_string(c))) {
      bytes += chunk->size();
    }
  }
  EXPECT_EQ(stats->stored_keys, 7u);
  EXPECT_EQ(stats->stored_bytes, bytes);
  EXPECT_EQ(stats->grid_chunks, 8u);
}

// The same for a sharded array: the 4 shards' indexes are one batch of
// suffix GETs, whose replies name the shards' sizes (no batch of sizes
// before), and the counts are memory's.
TEST_F(BatchedUpdatesTest, ShardIndexesAreOneBatchInFlightWithOnePoolThread) {
  MakeSharded();
  WriteBoth(all_, data_);
  HttpStoreOptions options;
  options.base_url = server_->Url("/bkt");
  Result<std::shared_ptr<HttpStore>> http = HttpStore::Open(options);
  ASSERT_TRUE(http.ok()) << http.status().ToString();
  Result<formats::zarr::Array> array = formats::zarr::Array::Open(*http, "", OnePoolThread());
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  server_->HoldEachWave(3);
  Result<formats::zarr::ArrayStorageStats> stats = array->Stats();
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(server_->max_held("GET"), 4);
  EXPECT_EQ(server_->requests("/bkt/c/0/1"), 1 + 1);  // Its PUT, its index.
  Result<formats::zarr::ArrayStorageStats> expected = expected_->Stats();
  ASSERT_TRUE(expected.ok());
  EXPECT_EQ(stats->stored_keys, 4u);
  EXPECT_EQ(stats->stored_bytes, expected->stored_bytes);
  EXPECT_EQ(stats->stored_inner_chunks, expected->stored_inner_chunks);
  EXPECT_EQ(stats->stored_inner_chunks, 14u);  // Columns 15-19 (2 inner chunks) all fill.
}

// A copy (`zarr convert`) into the bucket from memory, with one pool thread:
// the chunks the source stores (7; c/0/3 is all fill) are PUT as one batch.
TEST_F(BatchedUpdatesTest, ACopyIntoTheBucketPutsItsChunksAsOneBatch) {
  MakeChunked();
  ASSERT_TRUE(expected_->Write(all_, View(data_)).ok());
  server_->Hold(6);
  const Status copied =
      formats::zarr::CopyArray(*expected_, *array_, **core::ThreadPool::Create(1));
  ASSERT_TRUE(copied.ok()) << copied.ToString();
  EXPECT_EQ(server_->max_held("PUT"), 7);
  EXPECT_EQ(server_->requests("/bkt/c/0/0"), 1);  // Its PUT: no GET.
  EXPECT_EQ(server_->file("/bkt/c/0/3"), std::nullopt);
  ExpectAsInMemory(8);
}

// A copy out of an HTTP store (no listing: the whole grid is walked) into
// memory, with one pool thread: the 8 chunks' GETs are one batch.
TEST_F(BatchedUpdatesTest, ACopyFromHttpGetsItsChunksAsOneBatch) {
  MakeChunked();
  WriteBoth(all_, data_);
  HttpStoreOptions options;
  options.base_url = server_->Url("/bkt");
  Result<std::shared_ptr<HttpStore>> http = HttpStore::Open(options);
  ASSERT_TRUE(http.ok()) << http.status().ToString();
  Result<formats::zarr::Array> source = formats::zarr::Array::Open(*http, "", OnePoolThread());
  ASSERT_TRUE(source.ok()) << source.status().ToString();
  auto copy = std::make_shared<MemoryStore>();
  Result<formats::zarr::Array> destination =
      formats::zarr::Array::Create(copy, "", expected_->metadata(), false, OnePoolThread());
  ASSERT_TRUE(destination.ok()) << destination.status().ToString();
  server_->Hold(7);
  const Status copied =
      formats::zarr::CopyArray(*source, *destination, **core::ThreadPool::Create(1));
  ASSERT_TRUE(copied.ok()) << copied.ToString();
  EXPECT_EQ(server_->max_held("GET"), 8);
  for (int c = 0; c < 8; ++c) {
    const std::string key = "c/0/" + std::to_string(c);
    EXPECT_EQ(*copy->Get(key), *memory_->Get(key)) << key;
  }
}

// GetVersionedMany sends its GETs together and reports the ETag each value
// was read at, which a conditional write at it then meets.
TEST_F(BatchedUpdatesTest, VersionedGetsAreInFlightTogetherWithTheirEtags) {
  server_->AddFile("/bkt/a", Bytes{1, 2, 3});
  server_->AddFile("/bkt/b", Bytes{4});
  store_ = OpenBucket(*server_);
  ASSERT_NE(store_, nullptr);
  server_->Hold(2);
  const std::vector<std::string> keys = {"a", "b", "absent"};
  std::vector<Result<std::optional<VersionedValue>>> got = GetVersionedMany(*store_, keys);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(server_->max_held("GET"), 3);
  ASSERT_TRUE(got[0].ok() && got[0]->has_value()) << got[0].status().ToString();
  EXPECT_EQ((*got[0])->value, (Bytes{1, 2, 3}));
  EXPECT_EQ((*got[0])->generation, Generation::Of(CountingServer::ETag(Bytes{1, 2, 3})));
  ASSERT_TRUE(got[1].ok() && got[1]->has_value());
  EXPECT_EQ((*got[1])->generation, Generation::Of(CountingServer::ETag(Bytes{4})));
  ASSERT_TRUE(got[2].ok());
  EXPECT_FALSE(got[2]->has_value());
}

}  // namespace
}  // namespace chunkwise::store
