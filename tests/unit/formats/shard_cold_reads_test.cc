// What a read of a sharded array asks of its store when the chunks it
// needs are not in the chunk cache (#42): one reader per shard, the index
// read once (and, with the cache on, only while it is not kept), then only
// the byte ranges of the inner chunks the box meets and the cache lacks;
// never the whole shard. And the values are those of a read without the cache.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/chunk_cache.h"
#include "formats/zarr/array.h"
#include "unit/formats/small_sharded_array.h"
#include "unit/forwarding_store.h"
#include "unit/value_or_die.h"

namespace chunkwise::formats::zarr {
namespace {

using core::Region;
using test::ValueOrDie;

// One request a read made of the store.
struct Request {
  std::string what;  // "get", "range" or "size" (a reader's opening).
  std::string key;
  std::uint64_t offset = 0, length = 0;
  bool operator==(const Request&) const = default;
};

std::ostream& operator<<(std::ostream& out, const Request& request) {
  return out << request.what << " " << request.key << " [" << request.offset << ", +"
             << request.length << ")";
}

// Records every read of a value; readers are Store's default (a Size to
// open, one GetRange per range), so each range asked for is one request.
class RecordingStore final : public test::ForwardingStore {
 public:
  Result<std::optional<Bytes>> Get(std::string_view key) const override {
    Record({"get", std::string(key)});
    return ForwardingStore::Get(key);
  }
  Result<std::optional<Bytes>> GetRange(std::string_view key,
                                        store::ByteRange range) const override {
    Record({"range", std::string(key), range.offset, range.length});
    return ForwardingStore::GetRange(key, range);
  }
  Result<std::optional<std::uint64_t>> Size(std::string_view key) const override {
    Record({"size", std::string(key)});
    return ForwardingStore::Size(key);
  }
  std::vector<Request> Take() {
    const std::lock_guard lock(mutex_);
    return std::exchange(requests_, {});
  }

 private:
  void Record(Request request) const {
    const std::lock_guard lock(mutex_);
    requests_.push_back(std::move(request));
  }
  mutable std::mutex mutex_;
  mutable std::vector<Request> requests_;
};

// uint16 16×16 in shards of 8×8 of inner chunks 4×4 (4 a shard), zstd,
// index at the end (with its default crc32c).
ArrayMetadata Sharded() { return SmallShardedArray({16, 16}, {8, 8}, {4, 4}, Zstd1()); }

// Element (i, j) of the array is 1000 + 16 i + j.
Bytes Expected(const Region& box) {
  Bytes data(2 * static_cast<std::size_t>(box.num_elements()));
  std::size_t at = 0;
  for (core::Index i = box.start()[0]; i < box.stop()[0]; ++i) {
    for (core::Index j = box.start()[1]; j < box.stop()[1]; ++j) {
      const auto value = static_cast<std::uint16_t>(1000 + 16 * i + j);
      std::memcpy(data.data() + at, &value, 2);
      at += 2;
    }
  }
  return data;
}

// Parameter: the chunk cache on (1 MiB) or off.
class ShardColdReads : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    Array writer = ValueOrDie(Array::Create(store_, "a", Sharded(), false));
    const Region all = Region::Full(core::Shape{16, 16});
    ASSERT_TRUE(writer.Write(all, Expected(all)).ok());
    // Where shard (0, 0)'s index and chunks lie, read through another array.
    ShardStore shard = writer.Shard(core::Coord{0, 0});
    index_ = *ValueOrDie(shard.ReadIndex(&shard_bytes_));
    store_->Take();
    ArrayOptions options;
    options.pool = std::make_shared<core::ThreadPool>(2);
    if (GetParam()) options.cache = std::make_shared<core::ChunkCache>(1 << 20);
    array_ = std::make_unique<Array>(ValueOrDie(Array::Open(store_, "a", options)));
    store_->Take();  // Opening reads the metadata.
  }

  // Reads `box`, checks its values, and returns the requests it made.
  std::vector<Request> Read(const Region& box) {
    EXPECT_EQ(ValueOrDie(array_->Read(box)), Expected(box)) << box.ToString();
    return store_->Take();
  }
  // The request of shard (0, 0)'s index, and of its inner chunk k.
  Request IndexRequest() const {
    const std::uint64_t size = ShardIndex::EncodedSize(4);
    return {"range", "a/c/0/0", shard_bytes_ - size, size};
  }
  Request ChunkRequest(std::size_t k) const {
    return {"range", "a/c/0/0", index_.at(k).offset, index_.at(k).nbytes};
  }
  static Request Open() { return {"size", "a/c/0/0"}; }

  std::shared_ptr<RecordingStore> store_ = std::make_shared<RecordingStore>();
  std::unique_ptr<Array> array_;
  ShardIndex index_ = ShardIndex::Empty(4);
  std::uint64_t shard_bytes_ = 0;
};

INSTANTIATE_TEST_SUITE_P(CacheOnAndOff, ShardColdReads, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "CacheOn" : "CacheOff"; });

TEST_P(ShardColdReads, OneInnerChunkIsOneOpeningItsIndexAndItsBytes) {
  // Inside inner chunk 0 (rows and columns 0-3) of shard (0, 0).
  EXPECT_EQ(Read(Region({1, 1}, {3, 4})),
            (std::vector<Request>{Open(), IndexRequest(), ChunkRequest(0)}));
}

TEST_P(ShardColdReads, ABoxReadsOnlyTheInnerChunksItMeets) {
  // Inner chunks 1 (rows 0-3, columns 4-7) and 3 (rows 4-7, columns 4-7).
  const std::vector<Request> requests = Read(Region({2, 5}, {6, 7}));
  ASSERT_EQ(requests.size(), 4u);
  EXPECT_EQ(requests[0], Open());
  EXPECT_EQ(requests[1], IndexRequest());
  // Read one request each (local reads are not coalesced), in either order.
  const std::vector<Request> chunks(requests.begin() + 2, requests.end());
  EXPECT_TRUE((chunks == std::vector<Request>{ChunkRequest(1), ChunkRequest(3)}) ||
              (chunks == std::vector<Request>{ChunkRequest(3), ChunkRequest(1)}));
}

TEST_P(ShardColdReads, TheIndexIsReadAgainOnlyWithoutTheCache) {
  Read(Region({0, 0}, {4, 4}));  // Inner chunk 0: the index is now known.
  const std::vector<Request> second = Read(Region({4, 0}, {8, 4}));  // Inner chunk 2.
  if (GetParam()) {
    EXPECT_EQ(second, (std::vector<Request>{Open(), ChunkRequest(2)}));
  } else {
    EXPECT_EQ(second, (std::vector<Request>{Open(), IndexRequest(), ChunkRequest(2)}));
  }
}

TEST_P(ShardColdReads, ChunksTheCacheHoldsAreNotReadAgain) {
  Read(Region({0, 0}, {4, 4}));  // Inner chunk 0.
  // Inner chunks 0 to 3: only 1, 2 and 3 are fetched with the cache on.
  std::vector<Request> requests = Read(Region({2, 2}, {6, 6}));
  if (!GetParam()) {
    ASSERT_EQ(requests.size(), 6u);  // Opening, index, four chunks.
    return;
  }
  ASSERT_EQ(requests.size(), 4u);
  EXPECT_EQ(requests[0], Open());
  std::vector<Request> chunks(requests.begin() + 1, requests.end());
  for (const std::size_t k : {1, 2, 3}) {
    EXPECT_EQ(std::count(chunks.begin(), chunks.end(), ChunkRequest(k)), 1) << k;
  }
  // And all of them again: nothing is read.
  EXPECT_EQ(Read(Region({0, 0}, {8, 8})), std::vector<Request>{});
}

TEST_P(ShardColdReads, NoReadFetchesAWholeShard) {
  for (const Region& box :
       {Region({0, 0}, {16, 16}), Region({3, 3}, {13, 13}), Region({7, 7}, {9, 9})}) {
    for (const Request& request : Read(box)) {
      EXPECT_NE(request.what, "get") << request;
      if (request.what == "range") {
        EXPECT_LT(request.length, shard_bytes_) << request;
      }
    }
  }
}

TEST_P(ShardColdReads, RandomBoxesReadTheValuesWritten) {
  std::mt19937 random(7);
  for (int n = 0; n < 200; ++n) {
    core::Coord start(2), stop(2);
    for (int d = 0; d < 2; ++d) {
      const core::Index a = static_cast<core::Index>(random() % 17);
      const core::Index b = static_cast<core::Index>(random() % 17);
      start[d] = std::min(a, b);
      stop[d] = std::max(a, b);
    }
    Read(Region(start, stop));  // Checks the values.
  }
}

}  // namespace
}  // namespace chunkwise::formats::zarr
