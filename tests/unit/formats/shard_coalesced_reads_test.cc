// Reads of a sharded array that need several inner chunks of one shard ask
// the store for them in coalesced requests (ArrayOptions::coalescing,
// store/range_coalescing.h): counted here on a store that records each
// request, and read back byte for byte as without coalescing.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "formats/zarr/array.h"
#include "unit/formats/small_sharded_array.h"
#include "unit/forwarding_store.h"
#include "unit/value_or_die.h"

namespace chunkwise::formats::zarr {
namespace {

using core::Region;
using test::ValueOrDie;

// uint16 2×64 in one shard of inner chunks 1×8, stored raw, index at the
// end: inner chunk k (row-major, 8 a row) is the 16 bytes at 16k, so the
// two rows' chunks lie 112 bytes apart.
constexpr std::uint64_t kChunkBytes = 16;
constexpr std::uint64_t kDataBytes = 16 * kChunkBytes;

ArrayMetadata OneShard() { return SmallShardedArray({2, 64}, {2, 64}, {1, 8}); }

// Records the ranges read of chunk data (past the index's reads), with the
// store's reads going through Store's default reader, so each range a read
// asks for is one GetRange: one request. Reports itself local or not.
class RequestCountingStore final : public test::ForwardingStore {
 public:
  explicit RequestCountingStore(bool local) : local_(local) {}

  Result<std::optional<Bytes>> GetRange(std::string_view key,
                                        store::ByteRange range) const override {
    if (!range.suffix && range.offset + range.length <= kDataBytes) {
      const std::lock_guard lock(mutex_);
      requests_.push_back(range);
    }
    return ForwardingStore::GetRange(key, range);
  }
  store::StoreCapabilities capabilities() const override {
    store::StoreCapabilities capabilities = ForwardingStore::capabilities();
    capabilities.local = local_;
    return capabilities;
  }
  std::vector<store::ByteRange> TakeRequests() {
    const std::lock_guard lock(mutex_);
    return std::exchange(requests_, {});
  }

 private:
  bool local_;
  mutable std::mutex mutex_;
  mutable std::vector<store::ByteRange> requests_;
};

Bytes Iota16(std::size_t n) {
  Bytes data(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto value = static_cast<std::uint16_t>(1000 + 7 * i);
    std::memcpy(data.data() + 2 * i, &value, 2);
  }
  return data;
}

// Parameter: whether the store says it is local (files, memory) or remote.
class ShardCoalescedReads : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    store_ = std::make_shared<RequestCountingStore>(GetParam());
    Array writer = ValueOrDie(Array::Create(store_, "a", OneShard(), false));
    ASSERT_TRUE(writer.Write(Region({0, 0}, {2, 64}), Iota16(128)).ok());
    store_->TakeRequests();
  }

  // Reads `box` through an array with `coalescing`: the bytes, and the
  // requests of chunk data it made.
  std::pair<Bytes, std::vector<store::ByteRange>> Read(const Region& box,
                                                       store::ReadCoalescing coalescing) {
    ArrayOptions options;
    options.pool = std::make_shared<core::ThreadPool>(2);
    options.coalescing = coalescing;
    Array array = ValueOrDie(Array::Open(store_, "a", options));
    Bytes data = ValueOrDie(array.Read(box));
    return {std::move(data), store_->TakeRequests()};
  }

  // Coalescing on this store, whichever kind it is, under `limits` with no
  // small gap (this shard's gaps are all small: 16-byte chunks).
  static store::ReadCoalescing On(store::RangeCoalescing limits) {
    limits.small_gap = 0;
    return {true, true, limits};
  }

  std::shared_ptr<RequestCountingStore> store_;
};

TEST_P(ShardCoalescedReads, AdjacentInnerChunksAreOneRequest) {
  // Chunks 1 to 4 of row 0: 64 bytes at 16.
  const Region box = Region({0, 8}, {1, 40});
  const auto [coalesced, requests] = Read(box, On({}));
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].offset, 16u);
  EXPECT_EQ(requests[0].length, 4 * kChunkBytes);
  const auto [uncoalesced, one_each] = Read(box, store::ReadCoalescing::Off());
  EXPECT_EQ(one_each.size(), 4u);
  EXPECT_EQ(coalesced, uncoalesced);
  EXPECT_EQ(coalesced, ValueOrDie(Array::Open(store_, "a")).Read(box).value());
}

TEST_P(ShardCoalescedReads, FarApartInnerChunksAreTwoRequests) {
  // Chunk 0 of each row: 112 bytes between them, 7/9 of a joined request.
  const Region box = Region({0, 0}, {2, 8});
  const auto [coalesced, requests] = Read(box, On({}));
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].offset + requests[1].offset, 8 * kChunkBytes);  // 0 and 128.
  EXPECT_EQ(requests[0].length, kChunkBytes);
  const auto [uncoalesced, one_each] = Read(box, store::ReadCoalescing::Off());
  EXPECT_EQ(one_each.size(), 2u);
  EXPECT_EQ(coalesced, uncoalesced);
}

TEST_P(ShardCoalescedReads, TheLimitsDecideHowManyRequests) {
  // Chunks 0, 1, 8, 9: two pairs 96 bytes apart.
  const Region box = Region({0, 0}, {2, 16});
  const auto [off, one_each] = Read(box, store::ReadCoalescing::Off());
  EXPECT_EQ(one_each.size(), 4u);
  // Chunk 8 joining 0 and 1 would leave 96 of 144 bytes unneeded: past
  // half, so two requests.
  const auto [pairs, two] = Read(box, On({}));
  EXPECT_EQ(two.size(), 2u);
  EXPECT_EQ(pairs, off);
  // Waste up to 0.7 joins them (96 of 144 bytes, then of 160).
  const auto [joined, one] = Read(box, On({1 << 20, 0.7, 1 << 20, 0}));
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].length, 10 * kChunkBytes);
  EXPECT_EQ(joined, off);
  // A gap of 95 bytes at most: two again.
  EXPECT_EQ(Read(box, On({95, 1.0, 1 << 20, 0})).second.size(), 2u);
  // Requests of at most 16 bytes: one per chunk.
  EXPECT_EQ(Read(box, On({1 << 20, 1.0, 16, 0})).second.size(), 4u);
}

TEST_P(ShardCoalescedReads, TheDefaultCoalescesOnRemoteStoresOnly) {
  const Region box = Region({1, 0}, {2, 64});  // Row 1: chunks 8 to 15.
  const auto [data, requests] = Read(box, store::ReadCoalescing{});
  EXPECT_EQ(requests.size(), GetParam() ? 8u : 1u);
  EXPECT_EQ(data, Read(box, store::ReadCoalescing::Off()).first);
}

INSTANTIATE_TEST_SUITE_P(LocalAndRemote, ShardCoalescedReads, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "Local" : "Remote"; });

}  // namespace
}  // namespace chunkwise::formats::zarr
