// Listing-driven walks: zarr info (Array::Stats), zarr convert (PlanArrayCopy,
// CopyArrayPlan) and refs build visit the keys a listing finds, not the
// declared grid. A sparse array with a grid of 2^40 chunks and three stored
// ones costs three chunks' calls, counted on the store (no timing).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "chunkwise/core/progress.h"
#include "core/ravel.h"
#include "formats/refs/zarr_references.h"
#include "formats/zarr/array.h"
#include "formats/zarr/array_copy.h"
#include "formats/zarr/array_layout.h"
#include "unit/forwarding_store.h"
#include "unit/value_or_die.h"

namespace chunkwise::formats::zarr {
namespace {

using core::DataType;
using core::DataTypeId;
using core::Index;
using core::Region;
using core::Shape;

using test::ValueOrDie;

// Counts the calls a walk makes; `lists_every_key` as told, so that a test
// can see the grid walk a store without a full listing gets.
class CountingStore final : public test::ForwardingStore {
 public:
  explicit CountingStore(bool lists_every_key = true) : lists_every_key_(lists_every_key) {}

  Result<std::optional<Bytes>> Get(std::string_view key) const override {
    ++gets;
    return ForwardingStore::Get(key);
  }
  Result<std::optional<Bytes>> GetRange(std::string_view key,
                                        store::ByteRange range) const override {
    ++range_gets;
    Result<std::optional<Bytes>> value = ForwardingStore::GetRange(key, range);
    if (value.ok() && value->has_value()) range_bytes += (*value)->size();
    return value;
  }
  Result<std::unique_ptr<store::ValueReader>> OpenReader(std::string_view key) const override {
    ++readers;
    return ForwardingStore::OpenReader(key);
  }
  Result<std::vector<std::string>> List(std::string_view prefix) const override {
    ++lists;
    return ForwardingStore::List(prefix);
  }
  Result<std::optional<std::uint64_t>> Size(std::string_view key) const override {
    ++sizes;
    return ForwardingStore::Size(key);
  }
  store::StoreCapabilities capabilities() const override {
    store::StoreCapabilities capabilities = ForwardingStore::capabilities();
    capabilities.lists_every_key = lists_every_key_;
    return capabilities;
  }

  void ResetCounts() { gets = range_gets = range_bytes = readers = lists = sizes = 0; }
  int Calls() const { return gets + range_gets + readers + lists + sizes; }

  mutable std::atomic<int> gets{0};
  mutable std::atomic<int> range_gets{0};
  mutable std::atomic<std::uint64_t> range_bytes{0};  // What the range reads returned.
  mutable std::atomic<int> readers{0};
  mutable std::atomic<int> lists{0};
  mutable std::atomic<int> sizes{0};

 private:
  bool lists_every_key_;
};

// uint16, 2^22 × 2^22 elements in 4 × 4 chunks: a grid of 2^40 chunks.
constexpr Index kHuge = Index{1} << 22;

ArrayLayout Layout(const Shape& shape, DataTypeId type, const Shape& chunk_shape) {
  ArrayLayout layout;
  layout.shape = shape;
  layout.data_type = DataType(type);
  layout.chunk_shape = chunk_shape;
  return layout;
}

ArrayLayout HugeLayout() {
  ArrayLayout layout = Layout({kHuge, kHuge}, DataTypeId::kUInt16, {4, 4});
  layout.codec = "zstd:1";
  return layout;
}

// The three 4 × 4 boxes the sparse array stores, each in its own chunk.
const std::vector<Region> kStoredBoxes = {
    Region({0, 4}, {4, 8}),
    Region({kHuge / 2, 1000}, {kHuge / 2 + 4, 1004}),
    Region({kHuge - 4, kHuge - 4}, {kHuge, kHuge}),
};

Bytes BoxValues(std::size_t box) {
  Bytes data(std::size_t{16} * 2);
  for (std::size_t i = 0; i < 16; ++i) {
    StoreLittleEndian(static_cast<std::uint16_t>(100 * (box + 1) + i), data.data() + 2 * i);
  }
  return data;
}

Array CreateSparse(const std::shared_ptr<store::Store>& store, const ArrayLayout& layout) {
  Array array = ValueOrDie(Array::Create(store, "", ValueOrDie(BuildArrayMetadata(layout)), false));
  for (std::size_t b = 0; b < kStoredBoxes.size(); ++b) {
    EXPECT_TRUE(array.Write(kStoredBoxes[b], BoxValues(b)).ok());
  }
  return array;
}

TEST(ZarrListingWalk, ListStoredObjectsFindsOnlyChunkKeysOfTheGridInGridOrder) {
  auto store = std::make_shared<CountingStore>();
  ArrayLayout layout = Layout({100, 100}, DataTypeId::kUInt8, {10, 10});
  Array array =
      ValueOrDie(Array::Create(store, "a", ValueOrDie(BuildArrayMetadata(layout)), false));
  for (const char* key : {"a/c/9/0", "a/c/10/0", "a/c/0/2", "a/c/3/9"}) {
    ASSERT_TRUE(store->inner().Set(key, AsBytes("x")).ok());
  }
  // Keys that are not chunk keys of this grid are passed over.
  for (const char* key : {"a/c/10/10", "a/c/01/0", "a/c/1", "a/c/.0.tmp.12.3", "a/c/x/0",
                          "a/.chunkwise-incomplete", "a/config", "b/c/0/0", "ac/0/0"}) {
    ASSERT_TRUE(store->inner().Set(key, AsBytes("x")).ok());
  }
  store->ResetCounts();
  const std::optional<std::vector<Index>> objects = ValueOrDie(array.ListStoredObjects());
  ASSERT_TRUE(objects.has_value());
  // c/10/0 lies outside the 10 × 10 grid; the others in C order.
  EXPECT_EQ(*objects, (std::vector<Index>{2, 39, 90}));
  EXPECT_EQ(store->lists, 1);
  EXPECT_EQ(store->Calls(), 1);
}

TEST(ZarrListingWalk, ListStoredObjectsReadsEveryKeyEncoding) {
  struct Case {
    int format;
    ChunkKeyEncoding encoding;
    Shape shape;
    std::vector<std::string> keys;  // Of chunks [1, 2] (or the 0-d chunk).
  };
  const std::vector<Case> cases = {
      {3, ChunkKeyEncoding::Default('/'), {20, 30}, {"c/1/2"}},
      {3, ChunkKeyEncoding::Default('.'), {20, 30}, {"c.1.2"}},
      {2, ChunkKeyEncoding::V2('.'), {20, 30}, {"1.2"}},
      {2, ChunkKeyEncoding::V2('/'), {20, 30}, {"1/2"}},
      {3, ChunkKeyEncoding::Default('/'), {}, {"c"}},
      {2, ChunkKeyEncoding::V2('.'), {}, {"0"}},
  };
  for (const Case& c : cases) {
    auto store = std::make_shared<CountingStore>();
    ArrayMetadata metadata;
    metadata.zarr_format = c.format;
    metadata.chunk_key_encoding = c.encoding;
    metadata.shape = c.shape;
    metadata.chunk_shape = c.shape.empty() ? Shape{} : Shape{10, 10};
    metadata.data_type = DataType(DataTypeId::kUInt8);
    metadata.fill_value = {0};
    metadata.codecs = nlohmann::json::array({{{"name", "bytes"}}});
    Array array = ValueOrDie(Array::Create(store, "p/", metadata, false));
    const std::string label = c.keys[0];
    Bytes ones(static_cast<std::size_t>(c.shape.empty() ? 1 : 100), 1);
    const Region box = c.shape.empty() ? Region::Full(Shape{}) : Region({10, 20}, {20, 30});
    ASSERT_TRUE(array.Write(box, ones).ok()) << label;
    ASSERT_TRUE(ValueOrDie(store->inner().Exists("p/" + c.keys[0]))) << label;
    const std::optional<std::vector<Index>> objects = ValueOrDie(array.ListStoredObjects());
    ASSERT_TRUE(objects.has_value()) << label;
    EXPECT_EQ(*objects, std::vector<Index>{c.shape.empty() ? 0 : 5}) << label;
  }
}

TEST(ZarrListingWalk, StoreThatCannotListEveryKeyGetsNoListing) {
  auto store = std::make_shared<CountingStore>(false);
  Array array = CreateSparse(store, HugeLayout());
  store->ResetCounts();
  EXPECT_EQ(ValueOrDie(array.ListStoredObjects()), std::nullopt);
  EXPECT_EQ(store->Calls(), 0);
}

TEST(ZarrListingWalk, InfoOfASparseHugeGridCountsItsStoredChunksFromTheListing) {
  auto store = std::make_shared<CountingStore>();
  Array array = CreateSparse(store, HugeLayout());
  store->ResetCounts();
  const ArrayStorageStats stats = ValueOrDie(array.Stats());
  EXPECT_EQ(stats.grid_chunks, std::uint64_t{1} << 40);
  EXPECT_EQ(stats.stored_keys, 3u);
  std::uint64_t bytes = 0;
  for (const std::string& key : ValueOrDie(store->inner().List("c/"))) {
    bytes += ValueOrDie(store->inner().Size(key)).value();
  }
  EXPECT_EQ(stats.stored_bytes, bytes);
  // One listing, one size per stored chunk: no key of the grid is probed.
  EXPECT_EQ(store->lists, 1);
  EXPECT_EQ(store->sizes, 3);
  EXPECT_EQ(store->Calls(), 4);
}

// Holds each Size call until two have been in flight at once (or 5 s have
// passed, so that a serial walk fails instead of hanging), and records the
// most seen.
class OverlapStore final : public test::ForwardingStore {
 public:
  Result<std::optional<std::uint64_t>> Size(std::string_view key) const override {
    {
      std::unique_lock lock(mutex_);
      max_in_flight = std::max(max_in_flight, ++in_flight_);
      overlapped_.notify_all();
      overlapped_.wait_for(lock, std::chrono::seconds(5), [&] { return max_in_flight >= 2; });
    }
    Result<std::optional<std::uint64_t>> size = ForwardingStore::Size(key);
    std::lock_guard lock(mutex_);
    --in_flight_;
    return size;
  }

  mutable int max_in_flight = 0;

 private:
  mutable std::mutex mutex_;
  mutable std::condition_variable overlapped_;
  mutable int in_flight_ = 0;
};

TEST(ZarrListingWalk, InfoAsksForTheStoredChunksInParallel) {
  // On object storage each size is a round trip: two threads keep two in flight.
  auto store = std::make_shared<OverlapStore>();
  ArrayOptions options;
  options.pool = std::make_shared<core::ThreadPool>(2);
  Array array = ValueOrDie(
      Array::Create(store, "", ValueOrDie(BuildArrayMetadata(HugeLayout())), false, options));
  for (std::size_t b = 0; b < kStoredBoxes.size(); ++b) {
    ASSERT_TRUE(array.Write(kStoredBoxes[b], BoxValues(b)).ok());
  }
  const ArrayStorageStats stats = ValueOrDie(array.Stats());
  EXPECT_EQ(stats.stored_keys, 3u);
  EXPECT_GE(store->max_in_flight, 2);
}

TEST(ZarrListingWalk, InfoOfASparseShardedHugeGridReadsOnlyStoredShards) {
  auto store = std::make_shared<CountingStore>();
  ArrayLayout layout = HugeLayout();
  layout.shard_shape = Shape{8, 8};
  Array array = CreateSparse(store, layout);
  store->ResetCounts();
  const ArrayStorageStats stats = ValueOrDie(array.Stats());
  EXPECT_EQ(stats.grid_chunks, std::uint64_t{1} << 38);
  EXPECT_EQ(stats.grid_inner_chunks, std::uint64_t{1} << 40);
  EXPECT_EQ(stats.stored_keys, 3u);
  EXPECT_EQ(stats.stored_inner_chunks, 3u);
  EXPECT_EQ(store->lists, 1);
  EXPECT_EQ(store->readers, 3);  // One per stored shard, for its index and its size.
  // Only the readers' own size requests (Store's default OpenReader asks for
  // the size it reads within): none beside them for the shards' sizes.
  EXPECT_EQ(store->sizes, 3);
}

TEST(ZarrListingWalk, ConvertOfASparseHugeGridCopiesOnlyWhatIsStored) {
  auto source_store = std::make_shared<CountingStore>();
  const Array source = CreateSparse(source_store, HugeLayout());
  // Into 8 × 8 chunks in 16 × 16 shards: each stored chunk meets one shard.
  ArrayLayout layout = HugeLayout();
  layout.chunk_shape = {8, 8};
  layout.shard_shape = Shape{16, 16};
  const ArrayMetadata metadata = ValueOrDie(BuildArrayMetadata(layout));
  auto destination_store = std::make_shared<CountingStore>();
  Array destination = ValueOrDie(Array::Create(destination_store, "", metadata, false));
  source_store->ResetCounts();

  const ArrayCopyPlan plan = ValueOrDie(PlanArrayCopy(source, metadata, 0, 1));
  ASSERT_TRUE(plan.objects.has_value());
  std::vector<Index> expected;
  const Shape shards = {kHuge / 16, kHuge / 16};
  for (const Region& box : kStoredBoxes) {
    const core::Coord shard = {box.start()[0] / 16, box.start()[1] / 16};
    expected.push_back(core::Ravel(shard, shards));
  }
  EXPECT_EQ(*plan.objects, expected);
  // Each shard is written over the one 4 × 4 chunk stored in it, not whole.
  EXPECT_EQ(plan.bytes, 3u * 4 * 4 * 2);
  ASSERT_TRUE(
      CopyArrayPlan(source, destination, plan, *std::make_shared<core::ThreadPool>(2)).ok());
  // One listing, then each stored source chunk read once (not the 4 × 4
  // chunks of each destination shard).
  EXPECT_EQ(source_store->lists, 1);
  EXPECT_EQ(source_store->gets, 3);
  EXPECT_EQ(source_store->sizes, 0);

  const Array written = ValueOrDie(Array::Open(destination_store, ""));
  for (std::size_t b = 0; b < kStoredBoxes.size(); ++b) {
    EXPECT_EQ(ValueOrDie(written.Read(kStoredBoxes[b])), BoxValues(b)) << b;
  }
  EXPECT_EQ(ValueOrDie(written.Read(Region({4, 4}, {8, 8}))), Bytes(32, 0));
  EXPECT_EQ(ValueOrDie(destination_store->inner().List("c/")).size(), 3u);
}

// uint16, 256^3 in shards of 64^3 made of 2^3 inner chunks: 32^3 inner
// chunks per shard, 64 shards declared. One 3^3 box is stored, across the
// 2^3 inner chunks [4, 8)^3 of shard 0.
const Region kSmallBox({5, 5, 5}, {8, 8, 8});

Bytes SmallBoxValues() {
  Bytes data(std::size_t{27} * 2);
  for (std::size_t i = 0; i < 27; ++i) {
    StoreLittleEndian(static_cast<std::uint16_t>(1000 + i), data.data() + 2 * i);
  }
  return data;
}

// kSmallBox's values inside the box [4, 8)^3, zeros (fill) around them.
Bytes SmallBoxInItsInnerChunks() {
  Bytes expected(std::size_t{64} * 2, 0);
  const Bytes values = SmallBoxValues();
  std::size_t at = 0;
  for (Index z = 5; z < 8; ++z) {
    for (Index y = 5; y < 8; ++y) {
      for (Index x = 5; x < 8; ++x, at += 2) {
        const std::size_t i = static_cast<std::size_t>(((z - 4) * 4 + (y - 4)) * 4 + (x - 4));
        expected[2 * i] = values[at];
        expected[2 * i + 1] = values[at + 1];
      }
    }
  }
  return expected;
}

TEST(ZarrListingWalk, ConvertOfOneSmallBoxInABigShardCostsTheBoxNotTheShard) {
  auto source_store = std::make_shared<CountingStore>();
  ArrayLayout layout = Layout({256, 256, 256}, DataTypeId::kUInt16, {2, 2, 2});
  layout.shard_shape = Shape{64, 64, 64};
  Array source =
      ValueOrDie(Array::Create(source_store, "", ValueOrDie(BuildArrayMetadata(layout)), false));
  ASSERT_TRUE(source.Write(kSmallBox, SmallBoxValues()).ok());
  const Region around({0, 0, 0}, {12, 12, 12});
  const Bytes expected_around = ValueOrDie(source.Read(around));
  const std::uint64_t index_bytes = ShardIndex::EncodedSize(32 * 32 * 32);
  // The shard holds its index and the 8 inner chunks.
  const std::uint64_t chunk_bytes =
      ValueOrDie(source_store->inner().Size("c/0/0/0")).value() - index_bytes;

  // The same layout, and unsharded chunks of the inner chunks' shape.
  for (const bool sharded : {true, false}) {
    ArrayLayout to = layout;
    if (!sharded) to.shard_shape = std::nullopt;
    const ArrayMetadata metadata = ValueOrDie(BuildArrayMetadata(to));
    auto destination_store = std::make_shared<CountingStore>();
    Array destination = ValueOrDie(Array::Create(destination_store, "", metadata, false));
    core::ProgressOptions quiet;
    quiet.mode = core::ProgressMode::kQuiet;
    core::ProgressReporter progress(quiet);
    destination.set_progress(&progress);
    source_store->ResetCounts();

    const ArrayCopyPlan plan = ValueOrDie(PlanArrayCopy(source, metadata, 0, 1));
    ASSERT_TRUE(plan.objects.has_value());
    std::vector<Index> expected_objects = {0};  // Shard 0.
    if (!sharded) {                             // The 2^3 chunks [2, 4)^3 of a grid of 128^3.
      expected_objects.clear();
      for (Index z = 2; z < 4; ++z) {
        for (Index y = 2; y < 4; ++y) {
          for (Index x = 2; x < 4; ++x) expected_objects.push_back((z * 128 + y) * 128 + x);
        }
      }
    }
    EXPECT_EQ(*plan.objects, expected_objects) << sharded;
    // The 4^3 elements of the stored inner chunks, not the shard's 64^3.
    EXPECT_EQ(plan.bytes, 64u * 2) << sharded;
    ASSERT_TRUE(
        CopyArrayPlan(source, destination, plan, *std::make_shared<core::ThreadPool>(2)).ok());
    EXPECT_EQ(progress.done(), 64u * 2) << sharded;
    // Planning: one listing, the stored shard's index (one reader, one range).
    // Copying: per destination object, the shard's index again and the
    // stored inner chunks it meets, each once.
    const int objects = sharded ? 1 : 8;
    EXPECT_EQ(source_store->lists, 1) << sharded;
    EXPECT_EQ(source_store->gets, 0) << sharded;
    EXPECT_EQ(source_store->readers, 1 + objects) << sharded;
    EXPECT_EQ(source_store->range_gets, 1 + objects + 8) << sharded;
    EXPECT_EQ(source_store->range_bytes, (1u + objects) * index_bytes + chunk_bytes) << sharded;

    const Array written = ValueOrDie(Array::Open(destination_store, ""));
    EXPECT_EQ(ValueOrDie(written.Read(around)), expected_around) << sharded;
    EXPECT_EQ(ValueOrDie(written.Read(Region({4, 4, 4}, {8, 8, 8}))), SmallBoxInItsInnerChunks())
        << sharded;
    const ArrayStorageStats stats = ValueOrDie(written.Stats());
    EXPECT_EQ(stats.stored_keys, sharded ? 1u : 8u);
    EXPECT_EQ(stats.stored_inner_chunks, sharded ? 8u : 0u);
  }
}

TEST(ZarrListingWalk, ConvertIntoFinerChunksMeetsEachStoredInnerChunkNotTheirBox) {
  // Two inner chunks in opposite corners of a shard of 32 × 32 of them: into
  // unsharded chunks of their shape, the two chunks, not the 1024 of the
  // box that spans them.
  auto store = std::make_shared<CountingStore>();
  ArrayLayout layout = Layout({128, 128}, DataTypeId::kUInt8, {2, 2});
  layout.shard_shape = Shape{64, 64};
  Array source =
      ValueOrDie(Array::Create(store, "", ValueOrDie(BuildArrayMetadata(layout)), false));
  ASSERT_TRUE(source.Write(Region({0, 0}, {1, 1}), Bytes{5}).ok());
  ASSERT_TRUE(source.Write(Region({63, 63}, {64, 64}), Bytes{9}).ok());
  layout.shard_shape = std::nullopt;
  const ArrayCopyPlan plan =
      ValueOrDie(PlanArrayCopy(source, ValueOrDie(BuildArrayMetadata(layout)), 0, 1));
  EXPECT_EQ(plan.objects, (std::vector<Index>{0, 31 * 64 + 31}));
  ASSERT_TRUE(plan.boxes.has_value());
  EXPECT_EQ(*plan.boxes, (std::vector<Region>{Region({0, 0}, {2, 2}), Region({62, 62}, {64, 64})}));
  EXPECT_EQ(plan.bytes, 8u);
}

TEST(ZarrListingWalk, RanksDealTheListedObjectsDisjointlyAndCompletely) {
  auto store = std::make_shared<CountingStore>();
  ArrayLayout layout = Layout({40, 40}, DataTypeId::kUInt8, {3, 3});
  Array source =
      ValueOrDie(Array::Create(store, "", ValueOrDie(BuildArrayMetadata(layout)), false));
  for (Index i = 0; i < 40; i += 7) {
    ASSERT_TRUE(source.Write(Region({i, 39 - i}, {i + 1, 40 - i}), Bytes{9}).ok());
  }
  layout.chunk_shape = {4, 4};
  layout.shard_shape = Shape{8, 8};
  const ArrayMetadata metadata = ValueOrDie(BuildArrayMetadata(layout));
  const std::vector<Index> whole =
      ValueOrDie(PlanArrayCopy(source, metadata, 0, 1)).objects.value();
  ASSERT_GE(whole.size(), 6u);  // Six points, some on a shard's edge.
  for (const int ranks : {2, 3, 4, 7}) {
    std::set<Index> dealt;
    for (int rank = 0; rank < ranks; ++rank) {
      const ArrayCopyPlan plan = ValueOrDie(PlanArrayCopy(source, metadata, rank, ranks));
      // Planned again, the same part: every rank's plan is its own, deterministically.
      EXPECT_EQ(ValueOrDie(PlanArrayCopy(source, metadata, rank, ranks)).objects, plan.objects);
      for (const Index i : plan.objects.value()) {
        EXPECT_EQ(core::OwnerRank(static_cast<std::uint64_t>(i), ranks), rank) << i;
        EXPECT_TRUE(dealt.insert(i).second) << "object " << i << " dealt twice";
      }
    }
    EXPECT_EQ(std::vector<Index>(dealt.begin(), dealt.end()), whole) << ranks << " ranks";
  }
}

// The stored values of `store`, key by key.
std::map<std::string, Bytes> Contents(const store::Store& store) {
  std::map<std::string, Bytes> contents;
  for (const std::string& key : ValueOrDie(store.List(""))) {
    contents[key] = ValueOrDie(store.Get(key)).value();
  }
  return contents;
}

TEST(ZarrListingWalk, ConvertByListingWritesWhatTheGridWalkWrites) {
  // Layouts whose objects meet several source chunks, and chunks that meet
  // several; from plain chunks and from shards (whose stored inner chunks
  // give each destination object the box it is written over).
  for (const std::optional<Shape>& source_shards :
       {std::optional<Shape>(), std::optional<Shape>(Shape{8, 12})})
    for (const std::pair<Shape, std::optional<Shape>>& to :
         {std::pair<Shape, std::optional<Shape>>{{5, 5}, std::nullopt},
          {{2, 3}, std::nullopt},
          {{4, 4}, Shape{8, 12}},
          {{2, 2}, Shape{16, 16}},
          {{3, 3}, Shape{3, 3}}}) {
      std::map<std::string, Bytes> outputs[2];
      for (const bool listing : {true, false}) {
        auto source_store = std::make_shared<CountingStore>(listing);
        ArrayLayout layout = Layout({23, 31}, DataTypeId::kInt32, {4, 6});
        layout.shard_shape = source_shards;
        Array source = ValueOrDie(
            Array::Create(source_store, "", ValueOrDie(BuildArrayMetadata(layout)), false));
        Bytes values(std::size_t{12} * 4);
        for (std::size_t i = 0; i < values.size(); ++i)
          values[i] = static_cast<std::uint8_t>(i + 1);
        ASSERT_TRUE(source.Write(Region({1, 2}, {4, 6}), values).ok());
        ASSERT_TRUE(source.Write(Region({17, 25}, {20, 29}), values).ok());
        ASSERT_TRUE(source.Write(Region({20, 0}, {23, 4}), values).ok());
        // With the first box, in opposite corners of the source's first shard.
        ASSERT_TRUE(source.Write(Region({6, 10}, {8, 12}), Bytes(16, 7)).ok());
        layout.chunk_shape = to.first;
        layout.shard_shape = to.second;
        auto destination_store = std::make_shared<CountingStore>();
        Array destination = ValueOrDie(
            Array::Create(destination_store, "", ValueOrDie(BuildArrayMetadata(layout)), false));
        const ArrayCopyPlan plan = ValueOrDie(PlanArrayCopy(source, destination.metadata(), 0, 1));
        EXPECT_EQ(plan.objects.has_value(), listing);
        ASSERT_TRUE(CopyArray(source, destination, *std::make_shared<core::ThreadPool>(2)).ok());
        outputs[listing ? 0 : 1] = Contents(destination_store->inner());
      }
      EXPECT_EQ(outputs[0], outputs[1])
          << core::FormatShape(to.first) << (source_shards ? " from shards" : "");
      EXPECT_GT(outputs[0].size(), 2u);
    }
}

TEST(ZarrListingWalk, AFillValueThatDiffersWalksTheGrid) {
  auto store = std::make_shared<CountingStore>();
  ArrayLayout layout = Layout({8, 8}, DataTypeId::kUInt8, {4, 4});
  Array source =
      ValueOrDie(Array::Create(store, "", ValueOrDie(BuildArrayMetadata(layout)), false));
  ASSERT_TRUE(source.Write(Region({0, 0}, {1, 1}), Bytes{5}).ok());
  ArrayMetadata metadata = source.metadata();
  EXPECT_TRUE(ValueOrDie(PlanArrayCopy(source, metadata, 0, 1)).objects.has_value());
  metadata.fill_value = {3};  // Chunks the source leaves out must be written as 0s.
  EXPECT_FALSE(ValueOrDie(PlanArrayCopy(source, metadata, 0, 1)).objects.has_value());
  metadata = source.metadata();
  metadata.zarr_format = 2;
  metadata.fill_value_null = true;  // Every chunk stored.
  EXPECT_FALSE(ValueOrDie(PlanArrayCopy(source, metadata, 0, 1)).objects.has_value());
}

TEST(ZarrListingWalk, APlanTooLargeForMemoryIsRefusedBeforeItIsMade) {
  // One stored source chunk of 2^40 elements, copied into 1 x 1 chunks: 2^40
  // destination chunks meet it, 8 TiB as a list of indices.
  auto store = std::make_shared<CountingStore>();
  constexpr Index kSide = Index{1} << 20;
  ArrayLayout layout = Layout({4 * kSide, 4 * kSide}, DataTypeId::kUInt8, {kSide, kSide});
  const Array source =
      ValueOrDie(Array::Create(store, "big", ValueOrDie(BuildArrayMetadata(layout)), false));
  ASSERT_TRUE(store->inner().Set("big/c/1/2", AsBytes("stored")).ok());  // Listed, never read.
  ArrayMetadata metadata = source.metadata();
  metadata.chunk_shape = {1, 1};
  const Result<ArrayCopyPlan> plan = PlanArrayCopy(source, metadata, 0, 1);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(plan.status().message().find("big"), std::string::npos) << plan.status().ToString();
  EXPECT_NE(plan.status().message().find("1099511627777 destination chunks"), std::string::npos)
      << plan.status().ToString();
}

TEST(ZarrListingWalk, RefsOfASparseHugeGridReferenceOnlyStoredChunks) {
  for (const bool sharded : {false, true}) {
    auto store = std::make_shared<CountingStore>();
    ArrayLayout layout = HugeLayout();
    if (sharded) layout.shard_shape = Shape{8, 8};
    CreateSparse(store, layout);
    store->ResetCounts();
    refs::ZarrReferenceOptions references;
    references.url_base = "base/";
    const refs::ReferenceSet set = ValueOrDie(refs::BuildZarrReferences(store, "", references));
    std::vector<std::string> expected = {".zarray", ".zattrs"};
    for (const Region& box : kStoredBoxes) {
      expected.push_back(std::to_string(box.start()[0] / 4) + "." +
                         std::to_string(box.start()[1] / 4));
    }
    std::vector<std::string> keys = ValueOrDie(set.Keys(""));
    std::sort(keys.begin(), keys.end());
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(keys, expected) << sharded;
    const store::Reference chunk = ValueOrDie(set.Find("0.1")).value();
    EXPECT_EQ(chunk.url.rfind("base/c/", 0), 0u) << chunk.url;
    // The hierarchy's listing and the array's, then one size per stored object
    // (a shard's from the reader that reads its index: no request before it).
    EXPECT_EQ(store->lists, 2) << sharded;
    EXPECT_EQ(store->sizes, 3) << sharded;
  }
}

}  // namespace
}  // namespace chunkwise::formats::zarr
