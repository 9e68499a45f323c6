// Batched gets through a reference set (store/reference_batch.h) against a
// server in this process that counts the requests it holds at once: an
// unsharded zarr array whose chunks are ranges of http objects reads a
// region's chunks as one batch of ranged GETs from the calling thread while
// its pool has a single thread; inline chunks are answered without a
// request, touching ranges of one object are one request, no HEAD goes
// before the GETs, and a target that is missing or fails names the reference
// key and the target URL.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "chunkwise/core/thread_pool.h"
#include "chunkwise/store/reference_store.h"
#include "facade/subtree_store.h"
#include "formats/refs/reference_set.h"
#include "formats/zarr/array.h"
#include "store/batched_gets.h"
#include "store/memory_store.h"
#include "store/reference_batch.h"
#include "unit/store/counting_http_server.h"

namespace chunkwise::store {
namespace {

using formats::refs::ReferenceSet;
using test::CountingServer;
using ::testing::HasSubstr;

// Farther apart than kReferenceCoalescing joins: one request per range.
constexpr std::uint64_t kSpacing = std::uint64_t{256} << 10;

// An unsharded zarr v3 array of 8 chunks (shape 4x40, chunks 4x5, uint16,
// fill value 7), written to memory; chunk c/0/3 is left out. Its chunks are
// then referenced from a set whose targets the server holds: c/0/6 inline,
// c/0/7 a whole file (/data/whole.bin), and the others ranges of one object,
// kSpacing apart (/data/spaced.bin) or touching (/data/packed.bin).
class BatchedReferencesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const nlohmann::json metadata = {
        {"zarr_format", 3},
        {"node_type", "array"},
        {"shape", {4, 40}},
        {"data_type", "uint16"},
        {"chunk_grid", {{"name", "regular"}, {"configuration", {{"chunk_shape", {4, 5}}}}}},
        {"chunk_key_encoding", {{"name", "default"}, {"configuration", {{"separator", "/"}}}}},
        {"fill_value", 7},
        {"codecs",
         {{{"name", "bytes"}, {"configuration", {{"endian", "little"}}}},
          {{"name", "zstd"}, {"configuration", {{"level", 1}, {"checksum", false}}}}}},
    };
    Result<formats::zarr::ArrayMetadata> parsed =
        formats::zarr::ParseV3ArrayMetadata(metadata.dump(), "zarr.json");
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    memory_ = std::make_shared<MemoryStore>();
    Result<formats::zarr::Array> written =
        formats::zarr::Array::Create(memory_, "", *parsed, false);
    ASSERT_TRUE(written.ok()) << written.status().ToString();
    std::vector<std::uint16_t> data(4 * 40);
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint16_t>(i * 3 + 100);
    ASSERT_TRUE(written
                    ->Write(all_, ByteView(reinterpret_cast<const std::uint8_t*>(data.data()),
                                           data.size() * 2))
                    .ok());
    ASSERT_TRUE(memory_->Erase("c/0/3").ok());
    Result<std::vector<std::string>> keys = memory_->List("");
    ASSERT_TRUE(keys.ok());
    ASSERT_EQ(keys->size(), 8u);  // zarr.json and 7 chunks.
    Bytes spaced, packed;
    for (const std::string& key : *keys) {
      const Bytes value = **memory_->Get(key);
      if (key == "zarr.json" || key == "c/0/6") {
        spaced_->Set(key, Reference::Inline(value));
        packed_->Set(key, Reference::Inline(value));
      } else if (key == "c/0/7") {
        server_.AddFile("/data/whole.bin", value);
        spaced_->Set(key, Reference::WholeFile(server_.Url("/data/whole.bin")));
        packed_->Set(key, Reference::WholeFile(server_.Url("/data/whole.bin")));
      } else {
        spaced.resize(spaced.size() + kSpacing);  // A gap, then the chunk.
        spaced_->Set(
            key, Reference::Range(server_.Url("/data/spaced.bin"), spaced.size(), value.size()));
        spaced.insert(spaced.end(), value.begin(), value.end());
        packed_->Set(
            key, Reference::Range(server_.Url("/data/packed.bin"), packed.size(), value.size()));
        packed.insert(packed.end(), value.begin(), value.end());
      }
    }
    for (const std::string& key : *keys) {  // The spaced set again, as the folder v/.
      nested_->Set("v/" + key, **spaced_->Find(key));
    }
    server_.AddFile("/data/spaced.bin", spaced);
    server_.AddFile("/data/packed.bin", packed);
    Result<formats::zarr::Array> direct = formats::zarr::Array::Open(memory_, "");
    ASSERT_TRUE(direct.ok()) << direct.status().ToString();
    direct_.emplace(std::move(direct).value());
  }

  std::shared_ptr<ReferenceStore> OpenReferences(std::shared_ptr<ReferenceSet> set) {
    ReferenceStoreOptions options;
    options.allow_remote = true;
    options.name = "refs.json";
    Result<std::shared_ptr<ReferenceStore>> store = ReferenceStore::Open(set, options);
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return store.ok() ? *store : nullptr;
  }

  // The array over `store`, with a pool of one thread.
  formats::zarr::Array OpenArray(std::shared_ptr<ReferenceStore> store) {
    formats::zarr::ArrayOptions options;
    options.pool = *core::ThreadPool::Create(1);
    Result<formats::zarr::Array> array = formats::zarr::Array::Open(store, "", options);
    EXPECT_TRUE(array.ok()) << array.status().ToString();
    return std::move(array).value();
  }

  Bytes DirectRead(const core::Region& region) {
    Result<Bytes> read = direct_->Read(region);
    EXPECT_TRUE(read.ok()) << read.status().ToString();
    return read.ok() ? *read : Bytes();
  }

  CountingServer server_{Bytes{}};
  const core::Region all_ = core::Region::Full(core::Shape{4, 40});
  std::shared_ptr<MemoryStore> memory_;
  std::optional<formats::zarr::Array> direct_;
  std::shared_ptr<ReferenceSet> spaced_ = std::make_shared<ReferenceSet>();
  std::shared_ptr<ReferenceSet> packed_ = std::make_shared<ReferenceSet>();
  std::shared_ptr<ReferenceSet> nested_ = std::make_shared<ReferenceSet>();
};

TEST_F(BatchedReferencesTest, ChunksAreOneBatchInFlightWithOnePoolThread) {
  std::shared_ptr<ReferenceStore> store = OpenReferences(spaced_);
  ASSERT_NE(store, nullptr);
  EXPECT_TRUE(BatchesGets(*store));
  formats::zarr::Array array = OpenArray(store);
  // Five ranged GETs in one batch, then the whole file's (c/0/6 is inline,
  // c/0/3 absent).
  server_.Hold(4);  // The fifth held at once releases them all; fewer wait a second.
  Result<Bytes> read = array.Read(all_);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(*read, DirectRead(all_));
  EXPECT_EQ(server_.max_held(), 5);
  // A GET per range and none before: the replies say the object's size.
  EXPECT_EQ(server_.requests("/data/spaced.bin"), 5);
  EXPECT_EQ(server_.requests("/data/whole.bin"), 1);
}

TEST_F(BatchedReferencesTest, AnArrayInAFolderOfTheSetSendsItsChunksAsOneBatch) {
  std::shared_ptr<ReferenceStore> store = OpenReferences(nested_);
  ASSERT_NE(store, nullptr);
  std::shared_ptr<Store> folder = MakeSubtreeStore(store, "v");  // As OpenStore("refs.json/v").
  EXPECT_TRUE(BatchesGets(*folder));
  formats::zarr::ArrayOptions options;
  options.pool = *core::ThreadPool::Create(1);
  Result<formats::zarr::Array> array = formats::zarr::Array::Open(folder, "", options);
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  server_.Hold(4);  // The fifth held at once releases them all.
  Result<Bytes> read = array->Read(all_);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(*read, DirectRead(all_));
  EXPECT_EQ(server_.max_held(), 5);
}

TEST_F(BatchedReferencesTest, CancellingAReadEndsItsRequestsOnTheWire) {
  std::shared_ptr<ReferenceStore> store = OpenReferences(spaced_);
  ASSERT_NE(store, nullptr);
  formats::zarr::Array array = OpenArray(store);
  server_.Hold(0, /*until_stop=*/true);
  core::Cancellation cancellation;
  std::thread canceller([&] {
    server_.WaitForHeld(5);  // The ranges' batch is on the wire.
    cancellation.Cancel();
  });
  std::vector<std::uint16_t> out(4 * 40);
  const Status status = array.ReadInto(all_, out.data(), {nullptr, &cancellation});
  canceller.join();
  EXPECT_EQ(status.code(), StatusCode::kCancelled) << status.ToString();
  EXPECT_THAT(status.message(), HasSubstr("refs.json:c/0/"));
  EXPECT_THAT(status.message(), HasSubstr(server_.Url("/data/spaced.bin")));
  server_.Release();
}

TEST_F(BatchedReferencesTest, ARegionReadsEqualToADirectRead) {
  std::shared_ptr<ReferenceStore> store = OpenReferences(spaced_);
  ASSERT_NE(store, nullptr);
  formats::zarr::Array array = OpenArray(store);
  const core::Region region({1, 7}, {3, 33});
  Result<Bytes> read = array.Read(region);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(*read, DirectRead(region));
}

TEST_F(BatchedReferencesTest, TouchingRangesOfOneObjectAreOneRequest) {
  std::shared_ptr<ReferenceStore> store = OpenReferences(packed_);
  ASSERT_NE(store, nullptr);
  formats::zarr::Array array = OpenArray(store);
  Result<Bytes> read = array.Read(all_);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(*read, DirectRead(all_));
  EXPECT_EQ(server_.requests("/data/packed.bin"), 1);
}

TEST_F(BatchedReferencesTest, EveryKeyOfABatchReadsAsGetReadsIt) {
  std::shared_ptr<ReferenceStore> store = OpenReferences(spaced_);
  ASSERT_NE(store, nullptr);
  const std::vector<std::string> keys = {"c/0/0", "c/0/6", "c/0/3", "c/0/7", "c/0/0", "zarr.json"};
  const std::vector<Result<std::optional<Bytes>>> values = GetMany(*store, keys);
  ASSERT_EQ(values.size(), keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    ASSERT_TRUE(values[i].ok()) << keys[i] << ": " << values[i].status().ToString();
    EXPECT_EQ(*values[i], *memory_->Get(keys[i])) << keys[i];
  }
}

TEST_F(BatchedReferencesTest, AMissingTargetIsNotFoundNamingTheKeyAndTheUrl) {
  spaced_->Set("c/0/1", Reference::Range(server_.Url("/data/gone.bin"), 0, 10));
  std::shared_ptr<ReferenceStore> store = OpenReferences(spaced_);
  ASSERT_NE(store, nullptr);
  formats::zarr::Array array = OpenArray(store);
  const Result<Bytes> read = array.Read(all_);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), StatusCode::kNotFound) << read.status().ToString();
  EXPECT_THAT(read.status().message(), HasSubstr("refs.json:c/0/1"));
  EXPECT_THAT(read.status().message(), HasSubstr(server_.Url("/data/gone.bin")));
}

TEST_F(BatchedReferencesTest, AMissingWholeFileIsNotFoundNamingTheKeyAndTheUrl) {
  std::shared_ptr<ReferenceStore> store = OpenReferences(spaced_);
  ASSERT_NE(store, nullptr);
  server_.Fail("/data/whole.bin", 404);
  const std::vector<std::string> keys = {"c/0/0", "c/0/7"};
  const std::vector<Result<std::optional<Bytes>>> values = GetMany(*store, keys);
  ASSERT_EQ(values.size(), 2u);
  ASSERT_TRUE(values[0].ok()) << values[0].status().ToString();
  EXPECT_EQ(*values[0], *memory_->Get("c/0/0"));
  ASSERT_FALSE(values[1].ok());
  EXPECT_EQ(values[1].status().code(), StatusCode::kNotFound) << values[1].status().ToString();
  EXPECT_THAT(values[1].status().message(), HasSubstr("refs.json:c/0/7"));
  EXPECT_THAT(values[1].status().message(), HasSubstr(server_.Url("/data/whole.bin")));
}

TEST_F(BatchedReferencesTest, AFailingTargetNamesTheKeyAndTheUrl) {
  std::shared_ptr<ReferenceStore> store = OpenReferences(spaced_);
  ASSERT_NE(store, nullptr);
  server_.Fail("/data/whole.bin", 403);  // Not retried; read again by Get, then an error.
  const std::vector<std::string> keys = {"c/0/7"};
  const std::vector<Result<std::optional<Bytes>>> values = GetMany(*store, keys);
  ASSERT_EQ(values.size(), 1u);
  ASSERT_FALSE(values[0].ok());
  EXPECT_EQ(values[0].status().code(), StatusCode::kIOError) << values[0].status().ToString();
  EXPECT_THAT(values[0].status().message(), HasSubstr("refs.json:c/0/7"));
  EXPECT_THAT(values[0].status().message(), HasSubstr(server_.Url("/data/whole.bin")));
  EXPECT_EQ(server_.requests("/data/whole.bin"), 2);  // The batch's GET, Get's HEAD.
}

TEST_F(BatchedReferencesTest, ARangePastItsTargetsEndIsOutOfRangeAsGetSays) {
  const Bytes& blob = **memory_->Get("c/0/0");  // Any bytes: only the length matters.
  server_.AddFile("/data/short.bin", blob);
  spaced_->Set("c/0/1", Reference::Range(server_.Url("/data/short.bin"), 2, blob.size()));
  std::shared_ptr<ReferenceStore> store = OpenReferences(spaced_);
  ASSERT_NE(store, nullptr);
  const std::vector<std::string> keys = {"c/0/1"};
  const std::vector<Result<std::optional<Bytes>>> values = GetMany(*store, keys);
  ASSERT_EQ(values.size(), 1u);
  ASSERT_FALSE(values[0].ok());
  EXPECT_EQ(values[0].status().code(), StatusCode::kOutOfRange) << values[0].status().ToString();
  EXPECT_THAT(values[0].status().message(), HasSubstr("refs.json:c/0/1"));
  EXPECT_THAT(values[0].status().message(), HasSubstr("past the end"));
  EXPECT_THAT(values[0].status().message(), HasSubstr(server_.Url("/data/short.bin")));
}

TEST_F(BatchedReferencesTest, ASetThatMayNotReadRemoteTargetsDoesNotBatch) {
  ReferenceStoreOptions options;
  options.name = "refs.json";
  Result<std::shared_ptr<ReferenceStore>> store = ReferenceStore::Open(spaced_, options);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_FALSE(BatchesGets(**store));
}

}  // namespace
}  // namespace chunkwise::store
