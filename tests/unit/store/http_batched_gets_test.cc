// Batched gets (store/batched_gets.h) against a server in this process that
// counts the requests it holds at once: an HttpStore's GetMany has every key
// on the wire together from one thread, and an unsharded zarr array read
// over HTTP sends its chunks' GETs as one batch while its pool has a single
// thread; missing chunks read as the fill value, a failing chunk's error
// names its URL, and a cancelled read ends its requests on the wire. Stores
// that forward keys (a folder's view, a store of mounts) batch as the store
// beneath does. A read of more chunks than one piece (128 here) has its
// pieces on the wire together, within the store's limit on requests in flight.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <thread>

#include "chunkwise/core/progress.h"
#include "chunkwise/core/thread_pool.h"
#include "core/chunk_cache.h"
#include "facade/subtree_store.h"
#include "formats/zarr/array.h"
#include "store/batched_gets.h"
#include "store/http_store.h"
#include "store/memory_store.h"
#include "store/mount_store.h"
#include "unit/formats/small_chunked_array.h"
#include "unit/store/counting_http_server.h"

namespace chunkwise::store {
namespace {

using test::CountingServer;
using ::testing::HasSubstr;

Bytes Text(std::string_view text) { return Bytes(text.begin(), text.end()); }

std::shared_ptr<HttpStore> OpenStore(const CountingServer& server, std::size_t max_in_flight) {
  HttpStoreOptions options;
  options.base_url = server.Url("");
  options.http.max_in_flight = max_in_flight;
  options.http.retry.max_attempts = 2;
  options.http.retry.initial_backoff = std::chrono::milliseconds(1);
  options.http.retry.max_backoff = std::chrono::milliseconds(2);
  Result<std::shared_ptr<HttpStore>> store = HttpStore::Open(options);
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return store.ok() ? *store : nullptr;
}

TEST(BatchedGetsTest, AnHttpStoresKeysAreInFlightTogetherFromOneThread) {
  CountingServer server(Bytes{});
  std::vector<std::string> keys;
  for (int i = 0; i < 8; ++i) {
    keys.push_back("k" + std::to_string(i));
    server.AddFile("/" + keys.back(), Text("value " + std::to_string(i)));
  }
  keys.push_back("missing");
  server.Hold(8);  // The ninth held at once releases them all; fewer wait a second.
  std::shared_ptr<HttpStore> store = OpenStore(server, 16);
  ASSERT_NE(store, nullptr);
  EXPECT_TRUE(BatchesGets(*store));
  const std::vector<Result<std::optional<Bytes>>> values = GetMany(*store, keys);
  ASSERT_EQ(values.size(), keys.size());
  for (int i = 0; i < 8; ++i) {
    ASSERT_TRUE(values[i].ok()) << values[i].status().ToString();
    EXPECT_EQ(*values[i], Text("value " + std::to_string(i)));
  }
  ASSERT_TRUE(values[8].ok()) << values[8].status().ToString();
  EXPECT_EQ(*values[8], std::nullopt);
  EXPECT_EQ(server.max_held(), 9);
}

TEST(BatchedGetsTest, AnHttpStoresRangesAreInFlightTogetherFromOneThread) {
  CountingServer server(Bytes{});
  std::vector<RangedKey> reads;
  for (int i = 0; i < 6; ++i) {
    const std::string key = "k" + std::to_string(i);
    server.AddFile("/" + key, Text("value " + std::to_string(i)));
    reads.push_back({key, ByteRange::Span(2, 3), std::nullopt});
  }
  reads.push_back({"missing", ByteRange::Span(0, 1), std::nullopt});
  reads.push_back({"k0", ByteRange::Span(5, 10), std::nullopt});  // Past the end of "value 0".
  server.Hold(7);  // The eighth held at once releases them all; fewer wait a second.
  std::shared_ptr<HttpStore> store = OpenStore(server, 16);
  ASSERT_NE(store, nullptr);
  const std::vector<Result<std::optional<Bytes>>> values = GetRangeMany(*store, reads);
  ASSERT_EQ(values.size(), reads.size());
  for (int i = 0; i < 7; ++i) ASSERT_TRUE(values[i].ok()) << values[i].status().ToString();
  for (int i = 0; i < 6; ++i) EXPECT_EQ(*values[i], Text("lue"));
  EXPECT_EQ(*values[6], std::nullopt);
  EXPECT_EQ(values[7].status().code(), StatusCode::kOutOfRange) << values[7].status().ToString();
  EXPECT_THAT(values[7].status().message(), HasSubstr(server.Url("/k0")));
  EXPECT_EQ(server.max_held(), 8);
}

TEST(BatchedGetsTest, ALocalStoreReadsItsKeysOneAfterAnother) {
  MemoryStore memory;
  ASSERT_TRUE(memory.Set("a", Text("A")).ok());
  EXPECT_FALSE(BatchesGets(memory));
  const std::vector<std::string> keys = {"a", "b"};
  const std::vector<Result<std::optional<Bytes>>> values = GetMany(memory, keys);
  ASSERT_EQ(values.size(), 2u);
  EXPECT_EQ(*values[0], Text("A"));
  EXPECT_EQ(*values[1], std::nullopt);
}

// An unsharded zarr v3 array of 8 chunks (shape 4x40, chunks 4x5, uint16,
// fill value 7), written to memory and served at the server's root and in
// its folder v/; chunk c/0/3 is left out.
class BatchedArrayTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const formats::zarr::ArrayMetadata parsed = formats::zarr::Uint16ZstdChunksOf4By5();
    auto memory = std::make_shared<MemoryStore>();
    Result<formats::zarr::Array> written = formats::zarr::Array::Create(memory, "", parsed, false);
    ASSERT_TRUE(written.ok()) << written.status().ToString();
    data_.resize(4 * 40);
    for (std::size_t i = 0; i < data_.size(); ++i)
      data_[i] = static_cast<std::uint16_t>(i * 3 + 100);
    ASSERT_TRUE(written
                    ->Write(all_, ByteView(reinterpret_cast<const std::uint8_t*>(data_.data()),
                                           data_.size() * 2))
                    .ok());
    ASSERT_TRUE(memory->Erase("c/0/3").ok());
    for (std::size_t i = 0; i < data_.size(); ++i) {
      if (i % 40 / 5 == 3) data_[i] = 7;  // Chunk c/0/3 holds columns 15-19.
    }
    Result<std::vector<std::string>> keys = memory->List("");
    ASSERT_TRUE(keys.ok());
    ASSERT_EQ(keys->size(), 8u);  // zarr.json and 7 chunks.
    for (const std::string& key : *keys) {
      server_.AddFile("/" + key, **memory->Get(key));
      server_.AddFile("/v/" + key, **memory->Get(key));
    }
    store_ = OpenStore(server_, 16);
    ASSERT_NE(store_, nullptr);
    formats::zarr::ArrayOptions options;
    options.pool = *core::ThreadPool::Create(1);
    Result<formats::zarr::Array> array = formats::zarr::Array::Open(store_, "", options);
    ASSERT_TRUE(array.ok()) << array.status().ToString();
    array_.emplace(std::move(array).value());
  }

  CountingServer server_{Bytes{}};
  const core::Region all_ = core::Region::Full(core::Shape{4, 40});
  std::vector<std::uint16_t> data_;
  std::shared_ptr<HttpStore> store_;
  std::optional<formats::zarr::Array> array_;
};

TEST_F(BatchedArrayTest, ChunksAreOneBatchInFlightWithOnePoolThread) {
  server_.Hold(7);  // The eighth request held at once releases them all.
  Result<Bytes> read = array_->Read(all_);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ASSERT_EQ(read->size(), data_.size() * 2);
  std::vector<std::uint16_t> values(data_.size());
  std::memcpy(values.data(), read->data(), read->size());
  EXPECT_EQ(values, data_);  // The missing chunk reads as the fill value.
  // Every chunk's request on the wire at once, though one thread decodes.
  EXPECT_EQ(server_.max_held(), 8);
  EXPECT_EQ(server_.requests("/c/0/3"), 1);
}

TEST_F(BatchedArrayTest, AChunksServerErrorNamesItsUrlAndAMissingOneIsFill) {
  server_.Fail("/c/0/5", 500);
  Result<Bytes> read = array_->Read(all_);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), StatusCode::kIOError);
  EXPECT_THAT(read.status().message(), HasSubstr("GET " + server_.Url("/c/0/5")));
  EXPECT_THAT(read.status().message(), HasSubstr("HTTP 500"));
  EXPECT_EQ(server_.requests("/c/0/5"), 2);  // Retried once, as its policy says.
  // The chunks around it read, the missing one as its fill value.
  Result<Bytes> part = array_->Read(core::Region({0, 10}, {4, 25}));
  ASSERT_TRUE(part.ok()) << part.status().ToString();
  const auto* values = reinterpret_cast<const std::uint16_t*>(part->data());
  EXPECT_EQ(values[0], data_[10]);
  EXPECT_EQ(values[5], 7);
  EXPECT_EQ(values[14], data_[24]);
}

TEST_F(BatchedArrayTest, AForbiddenChunkIsAnErrorNotFill) {
  server_.Fail("/c/0/1", 403);
  Result<Bytes> read = array_->Read(all_);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), StatusCode::kIOError);
  EXPECT_THAT(read.status().message(), HasSubstr("GET " + server_.Url("/c/0/1")));
  EXPECT_THAT(read.status().message(), HasSubstr("HTTP 403"));
}

TEST_F(BatchedArrayTest, AChunkBatchSaysWhichChunksAreStored) {
  server_.Hold(1);  // The second request held at once releases them.
  const formats::zarr::ChunkTransfer transfers[] = {
      {{0, 2}, core::Region({0, 0}, {4, 5}), {0, 0}},
      {{0, 3}, core::Region({0, 0}, {4, 5}), {0, 5}},
  };
  std::vector<std::uint16_t> out(4 * 10, 0);
  Result<std::vector<bool>> stored = array_->ReadChunks(transfers, out.data(), {4, 10});
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  EXPECT_EQ(*stored, std::vector<bool>({true, false}));
  EXPECT_EQ(out[0], data_[10]);
  EXPECT_EQ(out[4], data_[14]);
  EXPECT_EQ(out[5], 7);
  EXPECT_EQ(out[39], 7);
  EXPECT_EQ(server_.max_held(), 2);
}

// A cancelled read ends its batch's requests on the wire: the server holds
// every request until it stops, so the read returns only by cancelling.
TEST_F(BatchedArrayTest, CancellingAReadEndsItsRequestsOnTheWire) {
  server_.Hold(0, /*until_stop=*/true);
  core::Cancellation cancellation;
  std::thread canceller([&] {
    server_.WaitForHeld(8);  // The whole batch is on the wire.
    cancellation.Cancel();
  });
  std::vector<std::uint16_t> out(data_.size());
  const Status status = array_->ReadInto(all_, out.data(), {nullptr, &cancellation});
  canceller.join();
  EXPECT_EQ(status.code(), StatusCode::kCancelled) << status.ToString();
  EXPECT_THAT(status.message(), HasSubstr(server_.Url("/c/0/")));
  server_.Release();
}

TEST_F(BatchedArrayTest, ChunksKeptInTheCacheAreNotRequestedAgain) {
  formats::zarr::ArrayOptions options;
  options.pool = *core::ThreadPool::Create(1);
  options.cache = std::make_shared<core::ChunkCache>(std::uint64_t{1} << 20);
  Result<formats::zarr::Array> array = formats::zarr::Array::Open(store_, "", options);
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  for (int pass = 0; pass < 2; ++pass) {
    Result<Bytes> read = array->Read(all_);
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    std::vector<std::uint16_t> values(data_.size());
    std::memcpy(values.data(), read->data(), read->size());
    EXPECT_EQ(values, data_) << "pass " << pass;
  }
  EXPECT_EQ(server_.requests("/c/0/0"), 1);
  EXPECT_EQ(server_.requests("/c/0/7"), 1);
  EXPECT_EQ(server_.requests("/c/0/3"), 2);  // A missing chunk is not kept: asked again.
}

// The array `store` holds at `prefix`, read with one pool thread.
std::optional<formats::zarr::Array> OpenWithOneThread(std::shared_ptr<Store> store,
                                                      const std::string& prefix) {
  formats::zarr::ArrayOptions options;
  options.pool = *core::ThreadPool::Create(1);
  Result<formats::zarr::Array> array = formats::zarr::Array::Open(store, prefix, options);
  EXPECT_TRUE(array.ok()) << array.status().ToString();
  if (!array.ok()) return std::nullopt;
  return std::move(array).value();
}

// Reads all of `array` and checks its values against `expected`.
void ExpectReadsAll(const formats::zarr::Array& array, const std::vector<std::uint16_t>& expected) {
  Result<Bytes> read = array.Read(core::Region::Full(core::Shape{4, 40}));
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ASSERT_EQ(read->size(), expected.size() * 2);
  std::vector<std::uint16_t> values(expected.size());
  std::memcpy(values.data(), read->data(), read->size());
  EXPECT_EQ(values, expected);
}

// An array in a folder of a remote store (as the facade opens a path inside
// a reference set): its chunk GETs are still one batch on the wire.
TEST_F(BatchedArrayTest, AnArrayInAFolderViewSendsItsChunksAsOneBatch) {
  std::shared_ptr<Store> folder = MakeSubtreeStore(store_, "v");
  EXPECT_TRUE(BatchesGets(*folder));
  std::optional<formats::zarr::Array> array = OpenWithOneThread(folder, "");
  ASSERT_TRUE(array.has_value());
  server_.Hold(7);  // The eighth request held at once releases them all.
  ExpectReadsAll(*array, data_);
  EXPECT_EQ(server_.max_held(), 8);
  EXPECT_EQ(server_.requests("/v/c/0/3"), 1);
  EXPECT_EQ(server_.requests("/c/0/0"), 0);
}

TEST_F(BatchedArrayTest, AnArrayInAMountSendsItsChunksAsOneBatch) {
  auto client = MemoryStore::Create();
  ASSERT_TRUE(client->Set("index.html", AsBytes("<html>")).ok());
  auto mounts =
      std::make_shared<MountStore>(std::vector<Mount>{{"client/", client}, {"data/0/", store_}});
  EXPECT_TRUE(BatchesGets(*mounts));
  EXPECT_FALSE(BatchesGets(MountStore({{"client/", client}})));
  std::optional<formats::zarr::Array> array = OpenWithOneThread(mounts, "data/0");
  ASSERT_TRUE(array.has_value());
  server_.Hold(7);
  ExpectReadsAll(*array, data_);
  EXPECT_EQ(server_.max_held(), 8);
  // Keys of several mounts and of none: each mount's keys in one batch,
  // results in the order asked.
  const std::vector<std::string> keys = {"data/0/c/0/0", "client/index.html", "elsewhere/k",
                                         "data/0/c/0/3", "data/0/c/0/1"};
  const std::vector<Result<std::optional<Bytes>>> values = GetMany(*mounts, keys);
  ASSERT_EQ(values.size(), keys.size());
  for (const auto& value : values) ASSERT_TRUE(value.ok()) << value.status().ToString();
  EXPECT_EQ(*values[0], **store_->Get("c/0/0"));
  EXPECT_EQ(*values[1], Text("<html>"));
  EXPECT_EQ(*values[2], std::nullopt);
  EXPECT_EQ(*values[3], std::nullopt);  // Left out of the array.
  EXPECT_EQ(*values[4], **store_->Get("c/0/1"));
  EXPECT_EQ(server_.requests("/c/0/3"), 2);  // Once by the read, once here.
}

// More chunks than one batch holds (1024): the batches follow one another,
// the next one's requests sent while the last one decodes.
TEST(BatchedGetsTest, AnArrayOfManyChunksReadsInSeveralBatches) {
  const formats::zarr::ArrayMetadata parsed = formats::zarr::Uint32ChunksOfTwo(2600);
  auto memory = std::make_shared<MemoryStore>();
  Result<formats::zarr::Array> written = formats::zarr::Array::Create(memory, "", parsed, false);
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  std::vector<std::uint32_t> data(2600);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint32_t>(i + 1);
  const core::Region all = core::Region::Full(core::Shape{2600});
  ASSERT_TRUE(
      written->Write(all, ByteView(reinterpret_cast<const std::uint8_t*>(data.data()), 2600 * 4))
          .ok());
  CountingServer server(Bytes{});
  Result<std::vector<std::string>> keys = memory->List("");
  ASSERT_TRUE(keys.ok());
  ASSERT_EQ(keys->size(), 1301u);
  for (const std::string& key : *keys) server.AddFile("/" + key, **memory->Get(key));
  std::shared_ptr<HttpStore> store = OpenStore(server, 64);
  ASSERT_NE(store, nullptr);
  formats::zarr::ArrayOptions options;
  options.pool = *core::ThreadPool::Create(2);
  Result<formats::zarr::Array> array = formats::zarr::Array::Open(store, "", options);
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  Result<Bytes> read = array->Read(core::Region({1}, {2599}));
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ASSERT_EQ(read->size(), 2598u * 4);
  std::vector<std::uint32_t> values(2598);
  std::memcpy(values.data(), read->data(), read->size());
  EXPECT_TRUE(std::equal(values.begin(), values.end(), data.begin() + 1));
  EXPECT_EQ(server.requests("/c/0"), 1);
  EXPECT_EQ(server.requests("/c/1299"), 1);
  EXPECT_EQ(store->stats().requests, 1301u);  // zarr.json and every chunk once.
}

// A 1-d uint32 array of `chunks` chunks of 2 values (1, 2, 3, ...), written
// to memory and served by `server` at its root; the values.
std::vector<std::uint32_t> ServeArrayOfChunks(CountingServer& server, int chunks) {
  const formats::zarr::ArrayMetadata parsed = formats::zarr::Uint32ChunksOfTwo(2 * chunks);
  auto memory = std::make_shared<MemoryStore>();
  Result<formats::zarr::Array> written = formats::zarr::Array::Create(memory, "", parsed, false);
  EXPECT_TRUE(written.ok()) << written.status().ToString();
  std::vector<std::uint32_t> data(2 * chunks);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint32_t>(i + 1);
  EXPECT_TRUE(
      written
          ->Write(core::Region::Full(core::Shape{2 * chunks}),
                  ByteView(reinterpret_cast<const std::uint8_t*>(data.data()), data.size() * 4))
          .ok());
  Result<std::vector<std::string>> keys = memory->List("");
  EXPECT_TRUE(keys.ok());
  for (const std::string& key : *keys) server.AddFile("/" + key, **memory->Get(key));
  return data;
}

// 300 chunks of 8 bytes are read in pieces of 128 chunks (a batch's 1024 over
// the 8 pieces a read may have on their way), each piece's GETs sent by a
// thread of its own: every piece is on the wire at once (the server holds
// each request until all 300 are there; pieces sent one after another would
// have at most 128 there), and the pool, one thread here, decodes them.
TEST(BatchedGetsTest, AReadOfManyChunksHasItsPiecesOnTheWireTogether) {
  CountingServer server(Bytes{});
  const std::vector<std::uint32_t> data = ServeArrayOfChunks(server, 300);
  std::shared_ptr<HttpStore> store = OpenStore(server, 512);
  ASSERT_NE(store, nullptr);
  std::optional<formats::zarr::Array> array = OpenWithOneThread(store, "");
  ASSERT_TRUE(array.has_value());
  server.Hold(0, /*until_stop=*/true);
  bool all_held = false;
  std::thread releaser([&] {
    // 30 s at most: the test then fails rather than hangs.
    all_held = server.WaitForHeld(300, std::chrono::seconds(30));
    server.Release();
  });
  Result<Bytes> read = array->Read(core::Region::Full(core::Shape{600}));
  releaser.join();
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ASSERT_EQ(read->size(), 600u * 4);
  std::vector<std::uint32_t> values(600);
  std::memcpy(values.data(), read->data(), read->size());
  EXPECT_EQ(values, data);
  EXPECT_TRUE(all_held);
  EXPECT_EQ(server.max_held(), 300);
  EXPECT_EQ(server.requests("/c/0"), 1);
  EXPECT_EQ(server.requests("/c/299"), 1);
  EXPECT_EQ(store->stats().requests, 301u);  // zarr.json and every chunk once.
}

// The pool decodes each piece as soon as it is in: with the last piece's
// chunk c/299 held by the server, the first two pieces (256 chunks, 2,048
// bytes) are in the caller's buffer before it is answered, and no more. (A
// read that decoded only once every chunk was in would have none there.)
TEST(BatchedGetsTest, AReadOfManyChunksDecodesEachPieceAsItArrives) {
  CountingServer server(Bytes{});
  const std::vector<std::uint32_t> data = ServeArrayOfChunks(server, 300);
  std::shared_ptr<HttpStore> store = OpenStore(server, 512);
  ASSERT_NE(store, nullptr);
  std::optional<formats::zarr::Array> array = OpenWithOneThread(store, "");
  ASSERT_TRUE(array.has_value());
  server.HoldPath("/c/299");
  core::ProgressReporter progress({.mode = core::ProgressMode::kQuiet});
  std::uint64_t done_while_held = 0;
  std::thread watcher([&] {
    // Until two pieces are in place, or 30 s have passed: the test then
    // fails rather than hangs.
    for (int i = 0; i < 3000 && progress.done() < 256 * 8; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    done_while_held = progress.done();
    server.Release();
  });
  std::vector<std::uint32_t> out(600);
  const Status status =
      array->ReadInto(core::Region::Full(core::Shape{600}), out.data(), {&progress, nullptr});
  watcher.join();
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(out, data);
  EXPECT_EQ(done_while_held, 256u * 8);
  EXPECT_EQ(progress.done(), 600u * 4);
  EXPECT_EQ(server.requests("/c/299"), 1);
}

// The pieces of one read, sent from threads of their own, share the store's
// limit on requests in flight (4 here): the server holds every request, and
// no more than 4 arrive; cancelling the read ends every piece's requests,
// on the wire or queued, with an error naming a chunk's URL.
TEST(BatchedGetsTest, AReadOfManyChunksKeepsTheStoresLimitOnRequestsInFlight) {
  CountingServer server(Bytes{});
  const std::vector<std::uint32_t> data = ServeArrayOfChunks(server, 300);
  std::shared_ptr<HttpStore> store = OpenStore(server, 4);
  ASSERT_NE(store, nullptr);
  std::optional<formats::zarr::Array> array = OpenWithOneThread(store, "");
  ASSERT_TRUE(array.has_value());
  server.Hold(0, /*until_stop=*/true);
  core::Cancellation cancellation;
  std::thread canceller([&] {
    server.WaitForHeld(4);
    cancellation.Cancel();
  });
  std::vector<std::uint32_t> out(600);
  const Status status =
      array->ReadInto(core::Region::Full(core::Shape{600}), out.data(), {nullptr, &cancellation});
  canceller.join();
  EXPECT_EQ(status.code(), StatusCode::kCancelled) << status.ToString();
  EXPECT_THAT(status.message(), HasSubstr(server.Url("/c/")));
  EXPECT_EQ(server.max_held(), 4);
  EXPECT_LT(store->stats().requests, 300u);  // The queued pieces never went.
  server.Release();
}

}  // namespace
}  // namespace chunkwise::store
