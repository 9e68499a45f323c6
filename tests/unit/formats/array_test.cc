#include "formats/zarr/array.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "chunkwise/store/file_store.h"
#include "store/memory_store.h"
#include "unit/forwarding_store.h"
#include "unit/scratch_directory.h"

namespace chunkwise::formats::zarr {
namespace {

using core::DataType;
using core::DataTypeId;
using core::Index;
using core::Region;
using core::Shape;
using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

// ---------------------------------------------------------------------------
// Test doubles and helpers.

// Counts the calls that read values, so tests can prove what a write or read
// fetched. Reports efficient_ranges and local as told.
class CountingStore final : public test::ForwardingStore {
 public:
  // Not local by default: reads fetch a shard's inner chunks in one batch.
  explicit CountingStore(bool efficient_ranges = true, bool local = false)
      : efficient_ranges_(efficient_ranges), local_(local) {}

  Result<std::optional<Bytes>> Get(std::string_view key) const override {
    ++gets;
    return ForwardingStore::Get(key);
  }
  Result<std::optional<Bytes>> GetRange(std::string_view key,
                                        store::ByteRange range) const override {
    ++range_gets;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ranges.push_back(range);
    }
    return ForwardingStore::GetRange(key, range);
  }
  Status Set(std::string_view key, ByteView value) override {
    ++sets;
    return ForwardingStore::Set(key, value);
  }
  Status Erase(std::string_view key) override {
    ++erases;
    return ForwardingStore::Erase(key);
  }
  // The conditional forms count as the plain ones: a shard's read-modify-write
  // uses them on stores that have them.
  Result<std::optional<store::VersionedValue>> GetVersioned(std::string_view key) const override {
    ++gets;
    return ForwardingStore::GetVersioned(key);
  }
  Result<store::Generation> SetPartsIf(std::string_view key, std::span<const ByteView> parts,
                                       const store::Generation& expected) override {
    ++sets;
    return ForwardingStore::SetPartsIf(key, parts, expected);
  }
  Status EraseIf(std::string_view key, const store::Generation& expected) override {
    ++erases;
    return ForwardingStore::EraseIf(key, expected);
  }
  Result<std::optional<std::uint64_t>> Size(std::string_view key) const override {
    ++sizes;
    return ForwardingStore::Size(key);
  }
  store::StoreCapabilities capabilities() const override {
    store::StoreCapabilities capabilities = ForwardingStore::capabilities();
    capabilities.efficient_ranges = efficient_ranges_;
    capabilities.local = local_;
    return capabilities;
  }

  void ResetCounts() {
    gets = range_gets = sets = erases = sizes = 0;
    ranges.clear();
  }

  mutable std::atomic<int> gets{0};
  mutable std::atomic<int> range_gets{0};
  std::atomic<int> sets{0};
  std::atomic<int> erases{0};
  mutable std::atomic<int> sizes{0};
  mutable std::vector<store::ByteRange> ranges;  // Guarded by mutex_.

 private:
  bool efficient_ranges_;
  bool local_;
  mutable std::mutex mutex_;
};

// A MemoryStore (local, with cheap ranges) whose readers run `after_first_read`
// once, after the first read through any of them: a concurrent writer
// replacing a shard between its index read and its chunk reads.
class ReplacingStore final : public test::ForwardingStore {
 public:
  Result<std::unique_ptr<store::ValueReader>> OpenReader(std::string_view key) const override {
    CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<store::ValueReader> reader, inner().OpenReader(key));
    if (reader == nullptr) return reader;
    return std::unique_ptr<store::ValueReader>(
        std::make_unique<HookedReader>(std::move(reader), after_first_read));
  }

  mutable std::function<void()> after_first_read;

 private:
  class HookedReader final : public store::ValueReader {
   public:
    HookedReader(std::unique_ptr<store::ValueReader> reader, std::function<void()>& hook)
        : reader_(std::move(reader)), hook_(hook) {}
    std::uint64_t size() const override { return reader_->size(); }
    bool pinned() const override { return reader_->pinned(); }
    Status ReadInto(std::span<const store::ByteRange> ranges, MutableByteView out) const override {
      const Status status = reader_->ReadInto(ranges, out);
      if (hook_) std::exchange(hook_, nullptr)();
      return status;
    }

   private:
    std::unique_ptr<store::ValueReader> reader_;
    std::function<void()>& hook_;
  };
};

// The array as a dense C-order buffer: what every read must return.
class Reference {
 public:
  Reference(Shape shape, std::vector<std::uint8_t> fill) : shape_(std::move(shape)), fill_(fill) {
    const Index n = *core::NumElements(shape_);
    for (Index i = 0; i < n; ++i) data_.insert(data_.end(), fill.begin(), fill.end());
  }

  void Write(const Region& region, ByteView bytes) {
    std::size_t i = 0;
    ForEach(region, [&](std::size_t at) {
      std::memcpy(data_.data() + at, bytes.data() + i, fill_.size());
      i += fill_.size();
    });
  }
  Bytes Read(const Region& region) const {
    Bytes out;
    ForEach(region, [&](std::size_t at) {
      out.insert(out.end(), data_.begin() + at, data_.begin() + at + fill_.size());
    });
    return out;
  }
  bool AllFill(const Region& region) const {
    bool all = true;
    ForEach(region, [&](std::size_t at) {
      all = all && std::memcmp(data_.data() + at, fill_.data(), fill_.size()) == 0;
    });
    return all;
  }

 private:
  // Calls visit(byte offset) for every element of `region`, in C order.
  template <typename Visit>
  void ForEach(const Region& region, Visit visit) const {
    if (region.IsEmpty()) return;
    core::Coord coord = region.start();
    do {
      Index flat = 0;
      for (std::size_t d = 0; d < coord.size(); ++d) flat = flat * shape_[d] + coord[d];
      visit(static_cast<std::size_t>(flat) * fill_.size());
    } while (core::AdvanceOdometer(coord, region.start(), region.stop()));
  }

  Shape shape_;
  std::vector<std::uint8_t> fill_;
  Bytes data_;
};

template <typename T>
std::vector<std::uint8_t> ElementOf(T value) {
  std::vector<std::uint8_t> bytes(sizeof(T));
  std::memcpy(bytes.data(), &value, sizeof(T));
  return bytes;
}

const json kBytesLittle = {{"name", "bytes"}, {"configuration", {{"endian", "little"}}}};
const json kZstd = {{"name", "zstd"}, {"configuration", {{"level", 1}}}};

json ShardingCodecs(const Shape& inner, const char* location, json inner_codecs) {
  return json::array({{{"name", "sharding_indexed"},
                       {"configuration",
                        {{"chunk_shape", inner},
                         {"codecs", std::move(inner_codecs)},
                         {"index_codecs", json::array({kBytesLittle, {{"name", "crc32c"}}})},
                         {"index_location", location}}}}});
}

ArrayMetadata Metadata(Shape shape, Shape chunk_shape, DataType dtype,
                       std::vector<std::uint8_t> fill, json codecs) {
  ArrayMetadata metadata;
  metadata.shape = std::move(shape);
  metadata.chunk_shape = std::move(chunk_shape);
  metadata.data_type = dtype;
  metadata.fill_value = std::move(fill);
  metadata.codecs = std::move(codecs);
  return metadata;
}

// A random box of `shape` with at least one element in each dimension.
Region RandomRegion(std::mt19937& rng, const Shape& shape) {
  core::Coord start(shape.size()), stop(shape.size());
  for (std::size_t d = 0; d < shape.size(); ++d) {
    start[d] = static_cast<Index>(rng() % static_cast<std::uint32_t>(shape[d]));
    stop[d] =
        start[d] + 1 + static_cast<Index>(rng() % static_cast<std::uint32_t>(shape[d] - start[d]));
  }
  return Region(start, stop);
}

// Element values for a write: noise that often equals the fill, all fill, or a constant.
Bytes RandomData(std::mt19937& rng, std::size_t elements, const std::vector<std::uint8_t>& fill) {
  const std::size_t size = fill.size();
  Bytes data(elements * size);
  const int mode = static_cast<int>(rng() % 4);
  for (std::size_t i = 0; i < elements; ++i) {
    if (mode == 1 || (mode == 0 && rng() % 3 == 0)) {
      std::memcpy(data.data() + i * size, fill.data(), size);
    } else if (mode == 2) {
      std::memset(data.data() + i * size, 0x42, size);
    } else {
      for (std::size_t b = 0; b < size; ++b) data[i * size + b] = static_cast<std::uint8_t>(rng());
    }
  }
  return data;
}

template <typename T>
T ValueOrDie(Result<T> result) {
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  return std::move(result).value();
}

bool Exists(const store::Store& store, const std::string& key) {
  return ValueOrDie(store.Exists(key));
}

// ---------------------------------------------------------------------------
// Random region writes and reads against a reference, per layout and store.

struct Layout {
  std::string name;
  int zarr_format;
  ChunkKeyEncoding encoding;
  Shape chunk_shape;  // Shard shape when sharded.
  json codecs;
  bool sharded;
  Shape inner_shape;  // Inner chunk shape when sharded.
};

struct Param {
  Layout layout;
  bool file_store;
};

// Names the layout in test output instead of dumping the struct's bytes.
void PrintTo(const Param& param, std::ostream* os) {
  *os << param.layout.name << (param.file_store ? "/file" : "/memory");
}

const Shape kShape = {21, 13, 11};

std::vector<Param> AllParams() {
  const json v2_codecs = json::array({kBytesLittle,
                                      {{"name", "blosc"},
                                       {"configuration",
                                        {{"cname", "lz4"},
                                         {"clevel", 5},
                                         {"shuffle", "shuffle"},
                                         {"typesize", 2},
                                         {"blocksize", 0}}}}});
  const std::vector<Layout> layouts = {
      {"v3",
       3,
       ChunkKeyEncoding::Default('/'),
       {5, 4, 3},
       json::array({kBytesLittle, kZstd}),
       false,
       {}},
      {"v3_dot",
       3,
       ChunkKeyEncoding::Default('.'),
       {8, 13, 2},
       json::array({kBytesLittle}),
       false,
       {}},
      {"v3_shard_end",
       3,
       ChunkKeyEncoding::Default('/'),
       {8, 6, 6},
       ShardingCodecs({4, 3, 2}, "end", json::array({kBytesLittle, kZstd})),
       true,
       {4, 3, 2}},
      {"v3_shard_start",
       3,
       ChunkKeyEncoding::Default('/'),
       {10, 6, 4},
       ShardingCodecs({5, 2, 4}, "start", json::array({kBytesLittle})),
       true,
       {5, 2, 4}},
      {"v2_dot", 2, ChunkKeyEncoding::V2('.'), {5, 4, 3}, v2_codecs, false, {}},
      {"v2_slash",
       2,
       ChunkKeyEncoding::V2('/'),
       {7, 7, 7},
       json::array({kBytesLittle, kZstd}),
       false,
       {}},
  };
  std::vector<Param> params;
  for (const Layout& layout : layouts) {
    params.push_back({layout, false});
    params.push_back({layout, true});
  }
  return params;
}

class ArrayLayoutTest : public ::testing::TestWithParam<Param> {
 protected:
  void SetUp() override {
    const Layout& layout = GetParam().layout;
    if (GetParam().file_store) {
      store_ = ValueOrDie(store::FileStore::Open(test::FreshScratchDirectory("zarr_array")));
    } else {
      store_ = store::MemoryStore::Create();
    }
    metadata_ =
        Metadata(kShape, layout.chunk_shape, DataType(DataTypeId::kUInt16), fill_, layout.codecs);
    metadata_.zarr_format = layout.zarr_format;
    metadata_.chunk_key_encoding = layout.encoding;
    metadata_.attributes = {{"test", GetParam().layout.name}};
  }

  Array CreateArray() {
    ArrayOptions options;
    options.pool = pool_;
    return ValueOrDie(Array::Create(store_, "group/arr", metadata_, false, options));
  }

  // Every stored object and index entry must match what the reference holds:
  // a chunk (or inner chunk) that is all fill value is not stored.
  void ExpectStorageMatches(const Array& array, const Reference& reference) {
    const Layout& layout = GetParam().layout;
    const core::RegularChunkGrid& grid = array.grid();
    std::uint64_t stored = 0;
    for (const core::Coord& coord : grid.ChunksIntersecting(Region::Full(kShape))) {
      const bool expected = !reference.AllFill(grid.ChunkRegion(coord));
      EXPECT_EQ(Exists(*store_, array.ChunkKey(coord)), expected) << array.ChunkKey(coord);
      stored += expected;
    }
    const ArrayStorageStats stats = ValueOrDie(array.Stats());
    EXPECT_EQ(stats.stored_keys, stored);
    if (!layout.sharded) return;
    const core::RegularChunkGrid inner =
        ValueOrDie(core::RegularChunkGrid::Create(kShape, layout.inner_shape));
    std::uint64_t stored_inner = 0;
    for (const core::Coord& coord : inner.ChunksIntersecting(Region::Full(kShape))) {
      stored_inner += !reference.AllFill(inner.ChunkRegion(coord));
    }
    EXPECT_EQ(stats.stored_inner_chunks, stored_inner);
  }

  std::shared_ptr<store::Store> store_;
  std::shared_ptr<core::ThreadPool> pool_ = std::make_shared<core::ThreadPool>(3);
  const std::vector<std::uint8_t> fill_ = ElementOf<std::uint16_t>(3);
  ArrayMetadata metadata_;
};

TEST_P(ArrayLayoutTest, RandomRegionWritesMatchAReference) {
  Array array = CreateArray();
  EXPECT_EQ(array.sharding() != nullptr, GetParam().layout.sharded);
  Reference reference(kShape, fill_);
  std::mt19937 rng(20240611);
  for (int iteration = 0; iteration < 60; ++iteration) {
    const Region region = iteration % 10 == 9 ? Region::Full(kShape) : RandomRegion(rng, kShape);
    const Bytes data = RandomData(rng, static_cast<std::size_t>(region.num_elements()), fill_);
    ASSERT_TRUE(array.Write(region, data).ok()) << region;
    reference.Write(region, data);
    for (int r = 0; r < 2; ++r) {
      const Region read_region = RandomRegion(rng, kShape);
      const Result<Bytes> read = array.Read(read_region);
      ASSERT_TRUE(read.ok()) << read.status().ToString();
      ASSERT_EQ(*read, reference.Read(read_region))
          << "iteration " << iteration << " read " << read_region << " after write " << region;
    }
    if (iteration % 6 == 0) ExpectStorageMatches(array, reference);
  }
  const Region full = Region::Full(kShape);
  EXPECT_EQ(ValueOrDie(array.Read(full)), reference.Read(full));
  ExpectStorageMatches(array, reference);
  // A fresh Open sees the same metadata and data.
  ArrayOptions options;
  options.pool = pool_;
  const Array reopened = ValueOrDie(Array::Open(store_, "group/arr/", options));
  EXPECT_EQ(reopened.metadata().shape, kShape);
  EXPECT_EQ(reopened.metadata().zarr_format, GetParam().layout.zarr_format);
  if (GetParam().layout.zarr_format == 3) {
    EXPECT_EQ(reopened.metadata().codecs, metadata_.codecs);
  } else {  // v2 spells the codecs its own way; the names survive.
    ASSERT_EQ(reopened.metadata().codecs.size(), metadata_.codecs.size());
    for (std::size_t i = 0; i < metadata_.codecs.size(); ++i) {
      EXPECT_EQ(reopened.metadata().codecs[i]["name"], metadata_.codecs[i]["name"]);
    }
  }
  EXPECT_EQ(reopened.metadata().chunk_key_encoding, GetParam().layout.encoding);
  EXPECT_EQ(reopened.metadata().attributes, metadata_.attributes);
  EXPECT_EQ(ValueOrDie(reopened.Read(full)), reference.Read(full));
}

TEST_P(ArrayLayoutTest, KeysFollowTheEncoding) {
  Array array = CreateArray();
  const std::vector<std::uint16_t> value = {77};
  const Shape& chunk = GetParam().layout.chunk_shape;
  // One element in grid chunk (1, 0, 1).
  const Region one({chunk[0], 0, chunk[2]}, {chunk[0] + 1, 1, chunk[2] + 1});
  ASSERT_TRUE(
      array.Write(one, ByteView(reinterpret_cast<const std::uint8_t*>(value.data()), 2)).ok());
  const ChunkKeyEncoding& encoding = GetParam().layout.encoding;
  const std::string sep(1, encoding.separator);
  const std::string expected = encoding.kind == ChunkKeyEncoding::Kind::kDefault
                                   ? "group/arr/c" + sep + "1" + sep + "0" + sep + "1"
                                   : "group/arr/1" + sep + "0" + sep + "1";
  EXPECT_EQ(array.ChunkKey(std::vector<Index>{1, 0, 1}), expected);
  const std::vector<std::string> keys = ValueOrDie(store_->List("group/arr/"));
  std::vector<std::string> expected_keys;
  if (GetParam().layout.zarr_format == 3) {
    expected_keys = {"group/arr/zarr.json", expected};
  } else {
    expected_keys = {"group/arr/.zarray", "group/arr/.zattrs", expected};
  }
  std::sort(expected_keys.begin(), expected_keys.end());
  EXPECT_EQ(keys, expected_keys);
}

TEST_P(ArrayLayoutTest, WritingFillOverAWholeChunkRemovesIt) {
  Array array = CreateArray();
  const Region chunk0 = array.grid().ChunkRegion(std::vector<Index>{0, 0, 0});
  const Region last = array.grid().ChunkRegion(
      std::vector<Index>{array.grid().grid_shape()[0] - 1, array.grid().grid_shape()[1] - 1,
                         array.grid().grid_shape()[2] - 1});  // An edge chunk.
  for (const Region& region : {chunk0, last}) {
    const std::size_t n = static_cast<std::size_t>(region.num_elements());
    Bytes data(2 * n);
    for (std::size_t i = 0; i < n; ++i)
      StoreLittleEndian<std::uint16_t>(1000 + i, data.data() + 2 * i);
    ASSERT_TRUE(array.Write(region, data).ok());
    const std::string key = array.ChunkKey(array.grid().ChunkCoordOf(region.start()));
    EXPECT_TRUE(Exists(*store_, key)) << key;
    Bytes fill;
    for (std::size_t i = 0; i < n; ++i) fill.insert(fill.end(), fill_.begin(), fill_.end());
    ASSERT_TRUE(array.Write(region, fill).ok());
    EXPECT_FALSE(Exists(*store_, key)) << key;
    EXPECT_EQ(ValueOrDie(array.Read(region)), fill);
  }
}

TEST_P(ArrayLayoutTest, EmptyRegionsAreNoOps) {
  Array array = CreateArray();
  const Region empty({2, 3, 4}, {2, 9, 9});
  EXPECT_TRUE(array.Write(empty, ByteView()).ok());
  const Result<Bytes> read = array.Read(empty);
  ASSERT_TRUE(read.ok());
  EXPECT_TRUE(read->empty());
  EXPECT_EQ(ValueOrDie(store_->List("group/arr/c")).size(), 0u);
}

TEST_P(ArrayLayoutTest, BadRegionsAreRefused) {
  Array array = CreateArray();
  const Bytes two(4, 0);
  EXPECT_EQ(array.Write(Region({20, 0, 0}, {22, 1, 1}), two).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(array.Write(Region({0, 0}, {1, 2}), two).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(array.Write(Region({0, 0, 0}, {1, 1, 3}), two).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(array.Read(Region({0, 0, 10}, {1, 1, 12})).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(array.Read(Region()).status().code(), StatusCode::kInvalidArgument);
}

std::string ParamName(const ::testing::TestParamInfo<Param>& info) {
  return info.param.layout.name + (info.param.file_store ? "_file" : "_memory");
}

INSTANTIATE_TEST_SUITE_P(Layouts, ArrayLayoutTest, ::testing::ValuesIn(AllParams()), ParamName);

// ---------------------------------------------------------------------------
// Sharded arrays: what is read and written.

// uint16 16×12 in shards of 8×6, inner chunks 2×3: 8 inner chunks per shard.
ArrayMetadata ShardedMetadata(const char* location = "end", Shape shape = {16, 12}) {
  return Metadata(std::move(shape), {8, 6}, DataType(DataTypeId::kUInt16),
                  ElementOf<std::uint16_t>(0),
                  ShardingCodecs({2, 3}, location, json::array({kBytesLittle, kZstd})));
}

Bytes Iota16(std::size_t n, std::uint16_t first = 1) {
  Bytes data(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    StoreLittleEndian(static_cast<std::uint16_t>(first + i), data.data() + 2 * i);
  }
  return data;
}

TEST(ArraySharded, WholeShardWritesNeverRead) {
  for (const char* location : {"end", "start"}) {
    auto store = std::make_shared<CountingStore>();
    Array array = ValueOrDie(Array::Create(store, "a", ShardedMetadata(location, {15, 12}), false));
    store->ResetCounts();
    // Two whole shards, then the two clipped edge shards along dimension 0.
    ASSERT_TRUE(array.Write(Region({0, 0}, {8, 12}), Iota16(96)).ok());
    ASSERT_TRUE(array.Write(Region({8, 0}, {15, 12}), Iota16(84, 500)).ok());
    EXPECT_EQ(store->gets, 0);
    EXPECT_EQ(store->range_gets, 0);
    EXPECT_EQ(store->sets, 4);
    // Overwriting whole shards again still reads nothing.
    ASSERT_TRUE(array.Write(Region({0, 0}, {15, 12}), Iota16(180, 7)).ok());
    EXPECT_EQ(store->gets, 0);
    EXPECT_EQ(store->range_gets, 0);
    EXPECT_EQ(ValueOrDie(array.Read(Region({0, 0}, {15, 12}))), Iota16(180, 7));
  }
}

// Reads of 64 MiB and more stream into the caller's buffer (non-temporal
// stores); decoded chunks, clipped edges and fill-valued gaps must land as
// ordinary copies would put them, into a buffer not 16-byte aligned. With
// blosc lz4 the whole inner chunks decode straight into the buffer
// (BloscCodec::DecodeIntoRegion) and the clipped ones through a copy.
void ExpectLargeReadIntoAnUnalignedBufferMatches(const json& inner_codecs) {
  const Shape shape{33, 1000, 1024};  // 67.6 MB of uint16, edge shards on two axes.
  auto store = store::MemoryStore::Create();
  const ArrayMetadata metadata =
      Metadata(shape, {16, 256, 256}, DataType(DataTypeId::kUInt16), ElementOf<std::uint16_t>(7),
               ShardingCodecs({8, 128, 128}, "end", inner_codecs));
  Array array = ValueOrDie(Array::Create(store, "a", metadata, false));
  const Region written({0, 0, 0}, {33, 600, 1024});
  const auto value = [](Index z, Index y, Index x) {
    return static_cast<std::uint16_t>(z * 7 + y * 13 + x);
  };
  Bytes data(static_cast<std::size_t>(written.num_elements()) * 2);
  Bytes expected(static_cast<std::size_t>(Region::Full(shape).num_elements()) * 2);
  std::size_t at = 0;
  for (Index z = 0; z < shape[0]; ++z) {
    for (Index y = 0; y < shape[1]; ++y) {
      for (Index x = 0; x < shape[2]; ++x, at += 2) {
        const std::uint16_t v = y < 600 ? value(z, y, x) : 7;
        StoreLittleEndian(v, expected.data() + at);
        if (y < 600) StoreLittleEndian(v, data.data() + ((z * 600 + y) * 1024 + x) * 2);
      }
    }
  }
  ASSERT_TRUE(array.Write(written, data).ok());
  Bytes out(expected.size() + 2, 0);
  ASSERT_TRUE(array.ReadInto(Region::Full(shape), out.data() + 2).ok());
  EXPECT_EQ(out[0], 0);
  EXPECT_EQ(out[1], 0);
  EXPECT_TRUE(std::equal(expected.begin(), expected.end(), out.begin() + 2));
}

TEST(ArraySharded, LargeReadsIntoAnUnalignedBufferMatch) {
  ExpectLargeReadIntoAnUnalignedBufferMatches(json::array({kBytesLittle}));
}

TEST(ArraySharded, LargeBloscLz4ReadsIntoAnUnalignedBufferMatch) {
  const json blosc_lz4 = {{"name", "blosc"},
                          {"configuration",
                           {{"cname", "lz4"},
                            {"clevel", 5},
                            {"shuffle", "shuffle"},
                            {"typesize", 2},
                            {"blocksize", 0}}}};
  ExpectLargeReadIntoAnUnalignedBufferMatches(json::array({kBytesLittle, blosc_lz4}));
}

TEST(ArraySharded, PartialWriteReadsTheShardOnceAndKeepsOtherChunks) {
  auto store = std::make_shared<CountingStore>();
  Array array = ValueOrDie(Array::Create(store, "a", ShardedMetadata(), false));
  ASSERT_TRUE(array.Write(Region({0, 0}, {8, 6}), Iota16(48)).ok());
  const Bytes before = *ValueOrDie(store->Get("a/c/0/0"));
  store->ResetCounts();
  const std::vector<std::uint16_t> value = {999};
  ASSERT_TRUE(array
                  .Write(Region({3, 4}, {4, 5}),
                         ByteView(reinterpret_cast<const std::uint8_t*>(value.data()), 2))
                  .ok());
  EXPECT_EQ(store->gets, 1);
  EXPECT_EQ(store->sets, 1);
  Bytes expected = Iota16(48);
  StoreLittleEndian<std::uint16_t>(999, expected.data() + 2 * (3 * 6 + 4));
  EXPECT_EQ(ValueOrDie(array.Read(Region({0, 0}, {8, 6}))), expected);
  // The seven untouched inner chunks kept their encoded bytes.
  const Bytes after = *ValueOrDie(store->Get("a/c/0/0"));
  const ShardByteReader read_before = [&](std::uint64_t o, std::uint64_t n,
                                          Bytes&) -> Result<ByteView> {
    return ByteView(before).subspan(o, n);
  };
  const ShardByteReader read_after = [&](std::uint64_t o, std::uint64_t n,
                                         Bytes&) -> Result<ByteView> {
    return ByteView(after).subspan(o, n);
  };
  const ShardIndex old_index =
      ValueOrDie(array.sharding()->ReadIndex(read_before, before.size(), 8, "a"));
  const ShardIndex new_index =
      ValueOrDie(array.sharding()->ReadIndex(read_after, after.size(), 8, "a"));
  for (std::size_t k = 0; k < 8; ++k) {
    if (k == 3) continue;  // Inner chunk (1,1) holds element (3,4).
    Bytes scratch;
    const ByteView a =
        ValueOrDie(read_before(old_index.at(k).offset, old_index.at(k).nbytes, scratch));
    const ByteView b =
        ValueOrDie(read_after(new_index.at(k).offset, new_index.at(k).nbytes, scratch));
    EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin(), b.end())) << k;
  }
}

TEST(ArraySharded, SmallReadsUseRangeRequests) {
  auto store = std::make_shared<CountingStore>(/*efficient_ranges=*/true);
  Array array = ValueOrDie(Array::Create(store, "a", ShardedMetadata(), false));
  ASSERT_TRUE(array.Write(Region({0, 0}, {16, 12}), Iota16(192)).ok());
  const std::uint64_t shard_size = *ValueOrDie(store->Size("a/c/0/0"));
  store->ResetCounts();
  // One element: the index and one inner chunk.
  Bytes one = ValueOrDie(array.Read(Region({2, 3}, {3, 4})));
  EXPECT_EQ(LoadLittleEndian<std::uint16_t>(one.data()), 2 * 12 + 3 + 1);
  EXPECT_EQ(store->gets, 0);
  EXPECT_EQ(store->range_gets, 2);
  EXPECT_EQ(store->sizes, 1);
  ASSERT_EQ(store->ranges.size(), 2u);
  const store::ByteRange index_range = ValueOrDie(store->ranges[0].Resolve(shard_size, "a"));
  EXPECT_EQ(index_range.offset, shard_size - (16 * 8 + 4));
  EXPECT_EQ(index_range.length, 16u * 8 + 4);
  // Two inner chunks of one shard, one chunk between them: the index and
  // one request for both (coalesced: the gap is small).
  store->ResetCounts();
  const Bytes two = ValueOrDie(array.Read(Region({1, 3}, {3, 4})));
  EXPECT_EQ(LoadLittleEndian<std::uint16_t>(two.data()), 1 * 12 + 3 + 1);
  EXPECT_EQ(LoadLittleEndian<std::uint16_t>(two.data() + 2), 2 * 12 + 3 + 1);
  EXPECT_EQ(store->gets, 0);
  EXPECT_EQ(store->range_gets, 2);
  // A whole shard: one request for all of it, or the index and its 8 chunks.
  store->ResetCounts();
  const Bytes shard = ValueOrDie(array.Read(Region({0, 0}, {8, 6})));
  EXPECT_EQ(LoadLittleEndian<std::uint16_t>(shard.data() + 2 * (7 * 6 + 5)), 7 * 12 + 5 + 1);
  EXPECT_LE(store->gets, 1);
  EXPECT_LE(store->gets + store->range_gets, 1 + 8);
}

// Every index entry of shard a/c/0/0 pointed at the bytes of entry 0.
void PointEveryEntryAtTheFirst(store::Store& store) {
  const Bytes shard = *ValueOrDie(store.Get("a/c/0/0"));
  const std::size_t index_size = ShardIndex::EncodedSize(8);
  const ByteView index_bytes(shard.data() + shard.size() - index_size, index_size);
  ShardIndex index =
      ValueOrDie(ShardIndex::Decode(index_bytes, 8, shard.size(), "a", IndexLocation::kEnd));
  for (std::size_t k = 1; k < 8; ++k) index.Set(k, index.at(0));
  Bytes edited(shard.begin(), shard.end() - static_cast<std::ptrdiff_t>(index_size));
  AppendBytes(edited, index.Encode());
  ASSERT_TRUE(store.Set("a/c/0/0", edited).ok());
}

TEST(ArraySharded, EntriesSharingBytesAreFetchedOnce) {
  auto store = std::make_shared<CountingStore>(/*efficient_ranges=*/true);
  Array array = ValueOrDie(Array::Create(store, "a", ShardedMetadata(), false));
  // Eight equal 2×3 inner chunks, as a writer that stores repeats once would leave them.
  Bytes data(2 * 8 * 6);
  for (Index i = 0; i < 8; ++i) {
    for (Index j = 0; j < 6; ++j) {
      StoreLittleEndian(static_cast<std::uint16_t>((i % 2) * 3 + j % 3 + 1),
                        data.data() + 2 * (i * 6 + j));
    }
  }
  ASSERT_TRUE(array.Write(Region({0, 0}, {8, 6}), data).ok());
  PointEveryEntryAtTheFirst(*store);
  const std::uint64_t shard_size = *ValueOrDie(store->Size("a/c/0/0"));
  store->ResetCounts();
  EXPECT_EQ(ValueOrDie(array.Read(Region({0, 0}, {8, 6}))), data);
  // The index, then one range: no more bytes than the shard holds.
  ASSERT_EQ(store->ranges.size(), 2u);
  EXPECT_LE(store->ranges[1].length, shard_size);
}

// A local store (files, memory) is read one inner chunk at a time, each range
// exactly its index entry, into a buffer reused from chunk to chunk.
TEST(ArraySharded, LocalStoresReadEachInnerChunkByItsOwnRange) {
  auto store = std::make_shared<CountingStore>(/*efficient_ranges=*/true, /*local=*/true);
  Array array = ValueOrDie(Array::Create(store, "a", ShardedMetadata(), false));
  ASSERT_TRUE(array.Write(Region({0, 0}, {8, 6}), Iota16(48)).ok());
  const auto n = static_cast<std::size_t>(8);
  const Bytes shard = *ValueOrDie(store->Get("a/c/0/0"));
  const ShardIndex index = ValueOrDie(
      ShardIndex::Decode(ByteView(shard).subspan(shard.size() - ShardIndex::EncodedSize(n)), n,
                         shard.size(), "a", IndexLocation::kEnd));
  store->ResetCounts();
  // Rows 2..5 of columns 0..5: inner chunks 2 to 5 of the 4×2 grid.
  const Bytes rows = ValueOrDie(array.Read(Region({2, 0}, {6, 6})));
  const Bytes all = Iota16(48);
  EXPECT_EQ(rows, Bytes(all.begin() + 24, all.begin() + 72));  // Elements 12 to 35.
  ASSERT_EQ(store->ranges.size(), 5u);                         // The index, then four chunks.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> fetched, expected;
  for (std::size_t r = 1; r < store->ranges.size(); ++r) {
    fetched.emplace_back(store->ranges[r].offset, store->ranges[r].length);
  }
  for (std::size_t k = 2; k < 6; ++k) expected.emplace_back(index.at(k).offset, index.at(k).nbytes);
  std::sort(fetched.begin(), fetched.end());
  EXPECT_EQ(fetched, expected);
}

// A shard replaced after its index was read: the chunks still come from the
// version the index describes. Without checksums, pairing one version's
// index with the other's bytes would read wrong values with no error.
TEST(ArraySharded, ReadsOneVersionOfAShardReplacedMidRead) {
  const ArrayMetadata metadata =
      Metadata({8, 6}, {8, 6}, DataType(DataTypeId::kUInt16), ElementOf<std::uint16_t>(0),
               ShardingCodecs({2, 3}, "end", json::array({kBytesLittle})));
  auto store = std::make_shared<ReplacingStore>();
  Array array = ValueOrDie(Array::Create(store, "a", metadata, false));
  ASSERT_TRUE(array.Write(Region({0, 0}, {8, 6}), Iota16(48, 1)).ok());
  auto other = std::make_shared<ReplacingStore>();
  Array newer = ValueOrDie(Array::Create(other, "a", metadata, false));
  ASSERT_TRUE(newer.Write(Region({0, 0}, {8, 6}), Iota16(48, 1000)).ok());
  const Bytes newer_shard = *ValueOrDie(other->Get("a/c/0/0"));
  store->after_first_read = [&] { ASSERT_TRUE(store->inner().Set("a/c/0/0", newer_shard).ok()); };
  EXPECT_EQ(ValueOrDie(array.Read(Region({0, 0}, {8, 6}))), Iota16(48, 1));
  EXPECT_EQ(store->after_first_read, nullptr);  // The shard was replaced during the read.
  EXPECT_EQ(ValueOrDie(array.Read(Region({0, 0}, {8, 6}))), Iota16(48, 1000));
}

TEST(ArraySharded, ReadsOfEmptyInnerChunksFetchOnlyTheIndex) {
  auto store = std::make_shared<CountingStore>();
  Array array = ValueOrDie(Array::Create(store, "a", ShardedMetadata("start"), false));
  ASSERT_TRUE(array.Write(Region({0, 0}, {2, 3}), Iota16(6)).ok());  // Inner chunk 0 only.
  store->ResetCounts();
  const Bytes read = ValueOrDie(array.Read(Region({4, 3}, {5, 5})));
  EXPECT_EQ(read, Bytes(4, 0));
  EXPECT_EQ(store->range_gets, 1);
  ASSERT_EQ(store->ranges.size(), 1u);
  EXPECT_FALSE(store->ranges[0].suffix && store->ranges[0].offset != 0);
  const store::ByteRange index_range =
      ValueOrDie(store->ranges[0].Resolve(*ValueOrDie(store->Size("a/c/0/0")), "a"));
  EXPECT_EQ(index_range.offset, 0u);  // The index is at the start.
  // A missing shard costs one size query and no reads.
  store->ResetCounts();
  EXPECT_EQ(ValueOrDie(array.Read(Region({9, 7}, {10, 8}))), Bytes(2, 0));
  EXPECT_EQ(store->gets + store->range_gets, 0);
}

TEST(ArraySharded, WithoutEfficientRangesReadsWholeShards) {
  auto store = std::make_shared<CountingStore>(/*efficient_ranges=*/false);
  Array array = ValueOrDie(Array::Create(store, "a", ShardedMetadata(), false));
  ASSERT_TRUE(array.Write(Region({0, 0}, {16, 12}), Iota16(192)).ok());
  store->ResetCounts();
  const Bytes one = ValueOrDie(array.Read(Region({2, 3}, {3, 4})));
  EXPECT_EQ(LoadLittleEndian<std::uint16_t>(one.data()), 2 * 12 + 3 + 1);
  EXPECT_EQ(store->gets, 1);
  EXPECT_EQ(store->range_gets, 0);
}

TEST(ArraySharded, FillOverInnerChunksEmptiesEntriesThenRemovesTheShard) {
  auto store = store::MemoryStore::Create();
  Array array = ValueOrDie(Array::Create(store, "", ShardedMetadata(), false));
  ASSERT_TRUE(array.Write(Region({0, 0}, {8, 6}), Iota16(48)).ok());
  ArrayStorageStats stats = ValueOrDie(array.Stats());
  EXPECT_EQ(stats.stored_keys, 1u);
  EXPECT_EQ(stats.stored_inner_chunks, 8u);
  // Zero (the fill) over inner chunk (0,0) and half of (0,1).
  ASSERT_TRUE(array.Write(Region({0, 0}, {2, 3}), Bytes(12, 0)).ok());
  ASSERT_TRUE(array.Write(Region({0, 3}, {1, 6}), Bytes(6, 0)).ok());
  stats = ValueOrDie(array.Stats());
  EXPECT_EQ(stats.stored_keys, 1u);
  EXPECT_EQ(stats.stored_inner_chunks, 7u);
  ASSERT_TRUE(array.Write(Region({0, 0}, {8, 6}), Bytes(96, 0)).ok());
  EXPECT_FALSE(Exists(*store, "c/0/0"));
  stats = ValueOrDie(array.Stats());
  EXPECT_EQ(stats.stored_keys, 0u);
  EXPECT_EQ(stats.stored_inner_chunks, 0u);
  // A partial write of fill into a missing shard stores nothing.
  ASSERT_TRUE(array.Write(Region({9, 1}, {11, 2}), Bytes(4, 0)).ok());
  EXPECT_EQ(store->size(), 1u);  // Only zarr.json.
}

TEST(ArraySharded, CorruptShardNamesTheKey) {
  auto store = store::MemoryStore::Create();
  Array array = ValueOrDie(Array::Create(store, "arr", ShardedMetadata(), false));
  ASSERT_TRUE(array.Write(Region({0, 0}, {16, 12}), Iota16(192)).ok());
  Bytes shard = *ValueOrDie(store->Get("arr/c/1/0"));
  shard[shard.size() - 1] ^= 0xFF;  // The index checksum.
  ASSERT_TRUE(store->Set("arr/c/1/0", shard).ok());
  for (const Region& region : {Region({8, 0}, {16, 6}), Region({9, 1}, {10, 2})}) {
    const Result<Bytes> read = array.Read(region);
    ASSERT_FALSE(read.ok());
    EXPECT_EQ(read.status().code(), StatusCode::kCorruption);
    EXPECT_NE(std::string(read.status().message()).find("memory:arr/c/1/0"), std::string::npos)
        << read.status().ToString();
  }
  // A partial write over a corrupt shard fails rather than dropping its chunks.
  const Status write = array.Write(Region({9, 1}, {10, 2}), Bytes(2, 1));
  EXPECT_EQ(write.code(), StatusCode::kCorruption);
  EXPECT_EQ(*ValueOrDie(store->Get("arr/c/1/0")), shard);
  // The shard that is intact still reads.
  EXPECT_TRUE(array.Read(Region({0, 0}, {8, 12})).ok());
}

// Codecs other than exactly [sharding_indexed] go through the codec chain,
// which must let the crc32c step produce a whole shard: its chunks plus the
// index, more bytes than the shard's elements when the chunks do not shrink.
TEST(ArraySharded, ShardingFollowedByABytesCodecReadsBack) {
  auto store = store::MemoryStore::Create();
  json codecs = ShardingCodecs({2, 3}, "end", json::array({kBytesLittle}));
  codecs.push_back({{"name", "crc32c"}});
  Array array = ValueOrDie(Array::Create(
      store, "c", Metadata({8, 6}, {8, 6}, DataType(DataTypeId::kUInt16), {0, 0}, codecs), false));
  EXPECT_EQ(array.sharding(), nullptr);  // Not the region-reading fast path.
  ASSERT_TRUE(array.Write(Region({0, 0}, {8, 6}), Iota16(48)).ok());
  EXPECT_EQ(*ValueOrDie(store->Size("c/c/0/0")), 96u + 16 * 8 + 4 + 4);
  const Result<Bytes> read = array.Read(Region({0, 0}, {8, 6}));
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(*read, Iota16(48));
}

TEST(ArraySharded, StatsCount) {
  auto store = store::MemoryStore::Create();
  Array array = ValueOrDie(Array::Create(store, "s", ShardedMetadata("end", {15, 12}), false));
  ArrayStorageStats stats = ValueOrDie(array.Stats());
  EXPECT_EQ(stats.grid_chunks, 4u);
  EXPECT_EQ(stats.grid_inner_chunks, 32u);
  EXPECT_EQ(stats.logical_bytes, 15u * 12 * 2);
  EXPECT_EQ(stats.stored_keys, 0u);
  EXPECT_EQ(stats.stored_bytes, 0u);
  // Three inner chunks of shard (0,0), one of shard (1,1).
  ASSERT_TRUE(array.Write(Region({0, 0}, {2, 6}), Iota16(12)).ok());
  ASSERT_TRUE(array.Write(Region({2, 0}, {3, 1}), Iota16(1)).ok());
  ASSERT_TRUE(array.Write(Region({14, 11}, {15, 12}), Iota16(1)).ok());
  stats = ValueOrDie(array.Stats());
  EXPECT_EQ(stats.stored_keys, 2u);
  EXPECT_EQ(stats.stored_inner_chunks, 4u);
  EXPECT_EQ(stats.stored_bytes,
            *ValueOrDie(store->Size("s/c/0/0")) + *ValueOrDie(store->Size("s/c/1/1")));
}

// ---------------------------------------------------------------------------
// Create and Open.

TEST(Array, CreateRefusesAnExistingArrayWithoutOverwrite) {
  auto store = store::MemoryStore::Create();
  const ArrayMetadata metadata =
      Metadata({10}, {4}, DataType(DataTypeId::kUInt8), {0}, json::array({"bytes"}));
  Array array = ValueOrDie(Array::Create(store, "x", metadata, false));
  ASSERT_TRUE(array.Write(Region({0}, {10}), Bytes(10, 5)).ok());
  const Result<Array> again = Array::Create(store, "x", metadata, false);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ValueOrDie(array.Read(Region({0}, {10}))), Bytes(10, 5));  // Untouched.
  // With overwrite: the old chunks are gone and the new metadata holds.
  ArrayMetadata replacement = metadata;
  replacement.shape = {6};
  replacement.fill_value = {9};
  Array replaced = ValueOrDie(Array::Create(store, "x", replacement, true));
  EXPECT_FALSE(Exists(*store, "x/c/0"));
  EXPECT_EQ(ValueOrDie(replaced.Read(Region({0}, {6}))), Bytes(6, 9));
  const Array opened = ValueOrDie(Array::Open(store, "x"));
  EXPECT_EQ(opened.metadata().shape, (Shape{6}));
  // A v2 array at the same prefix replaces the v3 one entirely.
  ArrayMetadata v2 = replacement;
  v2.zarr_format = 2;
  v2.chunk_key_encoding = ChunkKeyEncoding::V2('.');
  ASSERT_TRUE(Array::Create(store, "x", v2, true).ok());
  EXPECT_FALSE(Exists(*store, "x/zarr.json"));
  EXPECT_EQ(ValueOrDie(Array::Open(store, "x")).metadata().zarr_format, 2);
  // A group is refused too.
  ASSERT_TRUE(CreateGroup(*store, "g", 3, json::object()).ok());
  EXPECT_FALSE(Array::Create(store, "g", metadata, false).ok());
  // Metadata that does not validate is refused before anything is written.
  ArrayMetadata bad = metadata;
  bad.chunk_shape = {4, 4};
  EXPECT_FALSE(Array::Create(store, "y", bad, false).ok());
  bad = metadata;
  bad.codecs = json::array({"zstd"});
  EXPECT_FALSE(Array::Create(store, "y", bad, false).ok());
  bad = metadata;
  bad.codecs = ShardingCodecs({3}, "end", json::array({"bytes"}));  // 3 does not divide 4.
  EXPECT_FALSE(Array::Create(store, "y", bad, false).ok());
  bad = metadata;
  bad.zarr_format = 2;
  bad.codecs = json::array({"bytes", "crc32c"});  // No v2 form.
  EXPECT_FALSE(Array::Create(store, "y", bad, false).ok());
  EXPECT_TRUE(ValueOrDie(store->List("y")).empty());
}

TEST(Array, OpenOfAMissingArrayIsNotFound) {
  auto store = store::MemoryStore::Create();
  const Result<Array> missing = Array::Open(store, "nothing/here");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  auto files = ValueOrDie(store::FileStore::Open(test::FreshScratchDirectory("zarr_array")));
  EXPECT_EQ(Array::Open(files, "").status().code(), StatusCode::kNotFound);
}

TEST(Array, OpenReportsBadMetadataWithItsKey) {
  auto store = store::MemoryStore::Create();
  ASSERT_TRUE(store->Set("bad/zarr.json", AsBytes("{\"zarr_format\": 3,")).ok());
  const Result<Array> bad = Array::Open(store, "bad");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.status().message()).find("bad/zarr.json"), std::string::npos)
      << bad.status().ToString();
  ASSERT_TRUE(CreateGroup(*store, "grp", 3, json::object()).ok());
  EXPECT_EQ(Array::Open(store, "grp").status().code(), StatusCode::kUnsupported);
  ASSERT_TRUE(store->Set("v2/.zarray", AsBytes("{\"zarr_format\": 2}")).ok());
  const Result<Array> v2 = Array::Open(store, "v2");
  ASSERT_FALSE(v2.ok());
  EXPECT_NE(std::string(v2.status().message()).find("v2/.zarray"), std::string::npos)
      << v2.status().ToString();
}

TEST(Array, CreateGroupWritesGroupDocuments) {
  auto store = store::MemoryStore::Create();
  ASSERT_TRUE(CreateGroup(*store, "g3", 3, {{"a", 1}}).ok());
  ASSERT_TRUE(CreateGroup(*store, "g2", 2, {{"a", 1}}).ok());
  EXPECT_EQ(json::parse(AsChars(*ValueOrDie(store->Get("g3/zarr.json"))))["node_type"], "group");
  EXPECT_EQ(json::parse(AsChars(*ValueOrDie(store->Get("g2/.zgroup")))),
            json({{"zarr_format", 2}}));
  EXPECT_EQ(json::parse(AsChars(*ValueOrDie(store->Get("g2/.zattrs")))), json({{"a", 1}}));
}

TEST(Array, ZeroDimensional) {
  for (int format : {3, 2}) {
    auto store = store::MemoryStore::Create();
    ArrayMetadata metadata = Metadata({}, {}, DataType(DataTypeId::kFloat64), ElementOf(1.5),
                                      json::array({kBytesLittle, kZstd}));
    metadata.zarr_format = format;
    if (format == 2) metadata.chunk_key_encoding = ChunkKeyEncoding::V2('.');
    Array array = ValueOrDie(Array::Create(store, "s", metadata, false));
    const std::vector<std::uint8_t> fill = ElementOf(1.5);
    EXPECT_EQ(ValueOrDie(array.Read(Region())), Bytes(fill.begin(), fill.end()));
    const std::vector<std::uint8_t> value = ElementOf(-2.25);
    ASSERT_TRUE(array.Write(Region(), value).ok());
    const std::string key = format == 3 ? "s/c" : "s/0";
    EXPECT_TRUE(Exists(*store, key)) << key;
    const Array reopened = ValueOrDie(Array::Open(store, "s"));
    EXPECT_TRUE(reopened.metadata().shape.empty());
    EXPECT_EQ(ValueOrDie(reopened.Read(Region())), Bytes(value.begin(), value.end()));
    ASSERT_TRUE(array.Write(Region(), ElementOf(1.5)).ok());  // The fill: the chunk goes.
    EXPECT_FALSE(Exists(*store, key));
    const ArrayStorageStats stats = ValueOrDie(array.Stats());
    EXPECT_EQ(stats.grid_chunks, 1u);
    EXPECT_EQ(stats.logical_bytes, 8u);
  }
}

TEST(Array, ZeroExtentArray) {
  auto store = store::MemoryStore::Create();
  Array array = ValueOrDie(Array::Create(
      store, "z",
      Metadata({0, 5}, {2, 2}, DataType(DataTypeId::kInt8), {0}, json::array({"bytes"})), false));
  EXPECT_TRUE(ValueOrDie(array.Read(Region({0, 0}, {0, 5}))).empty());
  const ArrayStorageStats stats = ValueOrDie(array.Stats());
  EXPECT_EQ(stats.grid_chunks, 0u);
  EXPECT_EQ(stats.logical_bytes, 0u);
}

// Random writes and reads for one dtype, with a small array and its own fill value.
void CheckDtypeRoundTrip(DataType dtype, std::vector<std::uint8_t> fill, json codecs,
                         bool sharded) {
  auto store = store::MemoryStore::Create();
  const Shape shape = {9, 14};
  if (sharded) codecs = ShardingCodecs({2, 3}, "end", codecs);
  const Shape chunk = sharded ? Shape{4, 6} : Shape{4, 5};
  Array array =
      ValueOrDie(Array::Create(store, "d", Metadata(shape, chunk, dtype, fill, codecs), false));
  Reference reference(shape, fill);
  std::mt19937 rng(static_cast<std::uint32_t>(dtype.size() * 131 + sharded));
  for (int iteration = 0; iteration < 40; ++iteration) {
    const Region region = RandomRegion(rng, shape);
    Bytes data = RandomData(rng, static_cast<std::size_t>(region.num_elements()), fill);
    if (dtype.id() == DataTypeId::kBool) {
      for (auto& byte : data) byte &= 1;
    }
    ASSERT_TRUE(array.Write(region, data).ok()) << dtype.zarr_name();
    reference.Write(region, data);
    const Region read_region = RandomRegion(rng, shape);
    ASSERT_EQ(ValueOrDie(array.Read(read_region)), reference.Read(read_region))
        << dtype.zarr_name() << " iteration " << iteration;
  }
  const Array reopened = ValueOrDie(Array::Open(store, "d"));
  EXPECT_EQ(reopened.metadata().fill_value, fill) << dtype.zarr_name();
  EXPECT_EQ(ValueOrDie(reopened.Read(Region::Full(shape))), reference.Read(Region::Full(shape)));
}

TEST(Array, BoolDtype) {
  CheckDtypeRoundTrip(DataType(DataTypeId::kBool), {1}, json::array({"bytes"}), false);
  CheckDtypeRoundTrip(DataType(DataTypeId::kBool), {0}, json::array({"bytes", kZstd}), true);
}

TEST(Array, Float16Dtype) {
  CheckDtypeRoundTrip(DataType(DataTypeId::kFloat16), ElementOf<std::uint16_t>(0x3c00),
                      json::array({kBytesLittle, kZstd}), false);
  CheckDtypeRoundTrip(DataType(DataTypeId::kFloat16), ElementOf<std::uint16_t>(0xbc00),
                      json::array({{{"name", "bytes"}, {"configuration", {{"endian", "big"}}}}}),
                      true);
}

TEST(Array, Float64Dtype) {
  CheckDtypeRoundTrip(DataType(DataTypeId::kFloat64), ElementOf(-0.0),
                      json::array({kBytesLittle,
                                   {{"name", "blosc"},
                                    {"configuration",
                                     {{"cname", "zstd"},
                                      {"clevel", 3},
                                      {"shuffle", "bitshuffle"},
                                      {"typesize", 8},
                                      {"blocksize", 0}}}}}),
                      false);
  CheckDtypeRoundTrip(DataType(DataTypeId::kFloat64), ElementOf(2.5), json::array({kBytesLittle}),
                      true);
}

TEST(Array, Int64Dtype) {
  CheckDtypeRoundTrip(DataType(DataTypeId::kInt64), ElementOf<std::int64_t>(-1),
                      json::array({{{"name", "transpose"}, {"configuration", {{"order", {1, 0}}}}},
                                   kBytesLittle,
                                   {{"name", "gzip"}, {"configuration", {{"level", 1}}}}}),
                      false);
  CheckDtypeRoundTrip(DataType(DataTypeId::kInt64), ElementOf<std::int64_t>(INT64_MIN),
                      json::array({kBytesLittle, "crc32c"}), true);
}

TEST(Array, NanFillValue) {
  for (bool sharded : {false, true}) {
    auto store = store::MemoryStore::Create();
    const std::vector<std::uint8_t> nan = ElementOf<std::uint32_t>(0x7fc00000);
    json codecs = json::array({kBytesLittle});
    if (sharded) codecs = ShardingCodecs({2, 2}, "end", codecs);
    Array array = ValueOrDie(Array::Create(
        store, "n", Metadata({4, 4}, {4, 4}, DataType(DataTypeId::kFloat32), nan, codecs), false));
    const json written = json::parse(AsChars(*ValueOrDie(store->Get("n/zarr.json"))));
    EXPECT_EQ(written["fill_value"], "NaN");
    // Missing chunks read as the NaN's exact bits.
    Bytes all_nan;
    for (int i = 0; i < 16; ++i) all_nan.insert(all_nan.end(), nan.begin(), nan.end());
    EXPECT_EQ(ValueOrDie(array.Read(Region({0, 0}, {4, 4}))), all_nan);
    Bytes data = all_nan;
    StoreLittleEndian<std::uint32_t>(0x3f800000, data.data() + 4 * 5);  // 1.0 at (1,1).
    ASSERT_TRUE(array.Write(Region({0, 0}, {4, 4}), data).ok());
    EXPECT_TRUE(Exists(*store, "n/c/0/0"));
    EXPECT_EQ(ValueOrDie(array.Read(Region({0, 0}, {4, 4}))), data);
    if (sharded) {
      EXPECT_EQ(ValueOrDie(array.Stats()).stored_inner_chunks, 1u);
    }
    // NaN over the 1.0 makes the chunk all fill: it is removed (NaN != NaN does not matter).
    ASSERT_TRUE(array.Write(Region({1, 1}, {2, 2}), nan).ok());
    EXPECT_FALSE(Exists(*store, "n/c/0/0"));
    // A NaN with other bits is data, not fill.
    ASSERT_TRUE(array.Write(Region({1, 1}, {2, 2}), ElementOf<std::uint32_t>(0x7fc00001)).ok());
    EXPECT_TRUE(Exists(*store, "n/c/0/0"));
  }
}

TEST(Array, V2NullFillValueStoresEveryChunk) {
  auto store = store::MemoryStore::Create();
  ArrayMetadata metadata =
      Metadata({8}, {4}, DataType(DataTypeId::kUInt16), {0, 0}, json::array({kBytesLittle}));
  metadata.zarr_format = 2;
  metadata.chunk_key_encoding = ChunkKeyEncoding::V2('.');
  metadata.fill_value_null = true;
  Array array = ValueOrDie(Array::Create(store, "v", metadata, false));
  ASSERT_TRUE(array.Write(Region({0}, {4}), Bytes(8, 0)).ok());
  EXPECT_TRUE(Exists(*store, "v/0"));  // With a null fill, zeros are data.
  EXPECT_FALSE(Exists(*store, "v/1"));
  EXPECT_TRUE(json::parse(AsChars(*ValueOrDie(store->Get("v/.zarray"))))["fill_value"].is_null());
  EXPECT_TRUE(ValueOrDie(Array::Open(store, "v")).metadata().fill_value_null);
}

TEST(Array, ChunksAreStoredAtFullSizeAtTheEdges) {
  auto store = store::MemoryStore::Create();
  Array array =
      ValueOrDie(Array::Create(store, "e",
                               Metadata({5, 3}, {4, 2}, DataType(DataTypeId::kUInt16),
                                        ElementOf<std::uint16_t>(6), json::array({kBytesLittle})),
                               false));
  ASSERT_TRUE(array.Write(Region({0, 0}, {5, 3}), Iota16(15)).ok());
  // The edge chunk (1,1) holds element (4,2) and is padded with the fill value to 4×2.
  const Bytes edge = *ValueOrDie(store->Get("e/c/1/1"));
  ASSERT_EQ(edge.size(), 16u);
  EXPECT_EQ(LoadLittleEndian<std::uint16_t>(edge.data()), 4 * 3 + 2 + 1);
  for (std::size_t i = 1; i < 8; ++i)
    EXPECT_EQ(LoadLittleEndian<std::uint16_t>(edge.data() + 2 * i), 6u) << i;
}

TEST(Array, ProgressCountsBytes) {
  auto store = store::MemoryStore::Create();
  core::ProgressOptions progress_options;
  progress_options.mode = core::ProgressMode::kQuiet;
  core::ProgressReporter progress(progress_options);
  ArrayOptions options;
  options.progress = &progress;
  Array array = ValueOrDie(Array::Create(store, "p",
                                         Metadata({10, 10}, {3, 3}, DataType(DataTypeId::kUInt16),
                                                  {0, 0}, json::array({kBytesLittle})),
                                         false, options));
  ASSERT_TRUE(array.Write(Region({1, 1}, {9, 9}), Iota16(64)).ok());
  ASSERT_TRUE(array.Read(Region({0, 0}, {10, 10})).ok());
  EXPECT_EQ(progress.done(), 2u * 64 + 2u * 100);
}

// --overwrite replaces a zarr array or group, never a directory of other files.
// Records the keys erased, in order.
class EraseRecordingStore : public test::ForwardingStore {
 public:
  Status Erase(std::string_view key) override {
    erased.emplace_back(key);
    return ForwardingStore::Erase(key);
  }
  std::vector<std::string> erased;
};

TEST(Array, OverwriteErasesTheRootMetadataFirst) {
  // A group over a nested array: its member's zarr.json sorts before the
  // root's, and a replacement killed after erasing only the member's would
  // leave a root that lists a broken member.
  auto store = std::make_shared<EraseRecordingStore>();
  ASSERT_TRUE(CreateGroup(*store, "g", 3, json::object()).ok());
  const ArrayMetadata metadata =
      Metadata({4, 4}, {2, 2}, DataType(DataTypeId::kUInt16), {0, 0}, json::array({kBytesLittle}));
  Array member = ValueOrDie(Array::Create(store, "g/0/links", metadata, false));
  ASSERT_TRUE(member.Write(Region({0, 0}, {4, 4}), Iota16(16)).ok());
  ASSERT_TRUE(CreateUnpublishedGroup(*store, "g", true).ok());
  ASSERT_FALSE(store->erased.empty());
  EXPECT_EQ(store->erased.front(), "g/zarr.json");
  EXPECT_EQ(ValueOrDie(store->inner().List("g/")),
            std::vector<std::string>{"g/.chunkwise-incomplete"});
}

TEST(Array, OverwriteRefusesWhatIsNotZarr) {
  const auto directory = test::FreshScratchDirectory("overwrite");
  auto store = ValueOrDie(store::FileStore::Open(directory));
  const ArrayMetadata metadata =
      Metadata({4, 4}, {2, 2}, DataType(DataTypeId::kUInt16), {0, 0}, json::array({kBytesLittle}));
  ASSERT_TRUE(store->Set("thesis/chapter1.tex", AsBytes(std::string_view("keep me"))).ok());
  for (const bool overwrite : {false, true}) {
    const Status refused = Array::Create(store, "thesis", metadata, overwrite).status();
    EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument) << overwrite;
    EXPECT_NE(refused.message().find((directory / "thesis").string()), std::string_view::npos)
        << refused.ToString();
  }
  EXPECT_TRUE(ValueOrDie(store->Exists("thesis/chapter1.tex")));
  // An array is ours to replace: every key of the old one goes.
  Array old = ValueOrDie(Array::Create(store, "arr", metadata, false));
  ASSERT_TRUE(old.Write(Region({0, 0}, {4, 4}), Iota16(16)).ok());
  ASSERT_GT(ValueOrDie(store->List("arr/")).size(), 1u);
  EXPECT_EQ(Array::Create(store, "arr", metadata, false).status().code(),
            StatusCode::kInvalidArgument);
  ASSERT_TRUE(Array::Create(store, "arr", metadata, true).ok());
  EXPECT_EQ(ValueOrDie(store->List("arr/")), std::vector<std::string>{"arr/zarr.json"});
}

// A replacement killed while erasing (metadata gone, chunks left) leaves its
// marker, so the next overwrite still knows the debris for its own.
TEST(Array, OverwriteFinishesAReplacementThatWasKilled) {
  auto store = std::make_shared<store::MemoryStore>();
  const ArrayMetadata metadata =
      Metadata({4, 4}, {2, 2}, DataType(DataTypeId::kUInt16), {0, 0}, json::array({kBytesLittle}));
  ASSERT_TRUE(store->Set("arr/c/0/0", AsBytes(std::string_view("debris"))).ok());
  EXPECT_EQ(Array::Create(store, "arr/", metadata, true).status().code(),
            StatusCode::kInvalidArgument);
  ASSERT_TRUE(store->Set("arr/" + std::string(kIncompleteMarkerKey), ByteView()).ok());
  ASSERT_TRUE(Array::Create(store, "arr/", metadata, true).ok());
  EXPECT_EQ(ValueOrDie(store->List("arr/")), std::vector<std::string>{"arr/zarr.json"});
}

// An array written before its metadata is published is no array to a reader;
// its debris is still ours to overwrite.
TEST(Array, UnpublishedArrayIsInvisibleUntilPublished) {
  auto store = std::make_shared<store::MemoryStore>();
  for (const int format : {3, 2}) {
    ArrayMetadata metadata = Metadata({4, 4}, {2, 2}, DataType(DataTypeId::kUInt16), {0, 0},
                                      json::array({kBytesLittle}));
    const std::string prefix = "v" + std::to_string(format);
    if (format == 2) {
      metadata.zarr_format = 2;
      metadata.chunk_key_encoding = ChunkKeyEncoding::V2('.');
    }
    Array array = ValueOrDie(Array::CreateUnpublished(store, prefix, metadata, false));
    ASSERT_TRUE(array.Write(Region({0, 0}, {4, 4}), Iota16(16)).ok());
    EXPECT_EQ(Array::Open(store, prefix).status().code(), StatusCode::kNotFound) << format;
    // A rerun replaces the debris of one that never published (killed, or failed).
    EXPECT_EQ(Array::CreateUnpublished(store, prefix, metadata, false).status().code(),
              StatusCode::kInvalidArgument);
    Array again = ValueOrDie(Array::CreateUnpublished(store, prefix, metadata, true));
    EXPECT_EQ(ValueOrDie(store->List(prefix + "/")),
              std::vector<std::string>{prefix + "/" + std::string(kIncompleteMarkerKey)});
    ASSERT_TRUE(again.Write(Region({0, 0}, {4, 4}), Iota16(16, 9)).ok());
    ASSERT_TRUE(again.Publish().ok());
    Array opened = ValueOrDie(Array::Open(store, prefix));
    EXPECT_EQ(ValueOrDie(opened.Read(Region({0, 0}, {4, 4}))), Iota16(16, 9)) << format;
    EXPECT_FALSE(ValueOrDie(store->Exists(prefix + "/" + std::string(kIncompleteMarkerKey))));
  }
}

// A plain create onto an array begun and never published is refused as an
// unfinished array, its marker named, with the resume it allows said in the
// library's words (the CLI names the flag).
TEST(Array, CreateOntoAnUnfinishedArraySaysItCanBeResumed) {
  auto store = std::make_shared<store::MemoryStore>();
  const ArrayMetadata metadata =
      Metadata({4, 4}, {2, 2}, DataType(DataTypeId::kUInt16), {0, 0}, json::array({kBytesLittle}));
  Array begun = ValueOrDie(Array::CreateUnpublished(store, "arr", metadata, false));
  ASSERT_TRUE(begun.Write(Region({0, 0}, {2, 4}), Iota16(8)).ok());
  const std::string marker = store->Describe("arr/" + std::string(kIncompleteMarkerKey));
  for (const bool publish_last : {true, false}) {
    const Status refused = publish_last
                               ? Array::CreateUnpublished(store, "arr", metadata, false).status()
                               : Array::Create(store, "arr", metadata, false).status();
    EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(refused.message(), HasSubstr(marker));
    EXPECT_THAT(refused.message(), HasSubstr("already holds 3 keys of an unfinished array"));
    EXPECT_THAT(refused.message(), HasSubstr("resume not requested"));
    EXPECT_THAT(refused.message(), HasSubstr("overwrite not requested"));
  }
  // Nothing was erased: the resume finds the chunks written.
  Array resumed = ValueOrDie(Array::ResumeUnpublished(store, "arr", metadata));
  ASSERT_TRUE(resumed.Write(Region({2, 0}, {4, 4}), Iota16(8, 9)).ok());
  ASSERT_TRUE(resumed.Publish().ok());
  EXPECT_EQ(ValueOrDie(ValueOrDie(Array::Open(store, "arr")).Read(Region({0, 0}, {4, 4}))),
            Iota16(16));
  // An array that is published is no unfinished one.
  const Status published = Array::Create(store, "arr", metadata, false).status();
  EXPECT_EQ(published.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(published.message(), Not(HasSubstr("unfinished")));
  EXPECT_THAT(published.message(), HasSubstr("overwrite not requested"));
}

// A memory store whose erase of a chunk key fails, as a kill there would stop it.
class ChunkEraseFailingStore final : public test::ForwardingStore {
 public:
  Status Erase(std::string_view key) override {
    if (key.find("/c/") != std::string_view::npos || key.find("/0.") != std::string_view::npos) {
      return Status::IOError("memory:" + std::string(key) + ": erase failed");
    }
    return ForwardingStore::Erase(key);
  }
};

// An overwrite stopped half-way must not leave metadata beside erased chunks
// (zarr.json sorts after the chunks under c/, so erasing in order would).
TEST(Array, OverwriteErasesTheMetadataBeforeTheChunks) {
  auto store = std::make_shared<ChunkEraseFailingStore>();
  for (const int format : {3, 2}) {
    ArrayMetadata metadata = Metadata({4, 4}, {2, 2}, DataType(DataTypeId::kUInt16), {0, 0},
                                      json::array({kBytesLittle}));
    const std::string prefix = "v" + std::to_string(format);
    if (format == 2) {
      metadata.zarr_format = 2;
      metadata.chunk_key_encoding = ChunkKeyEncoding::V2('.');
    }
    Array array = ValueOrDie(Array::Create(store, prefix, metadata, false));
    ASSERT_TRUE(array.Write(Region({0, 0}, {4, 4}), Iota16(16)).ok());
    const Status stopped = Array::CreateUnpublished(store, prefix, metadata, true).status();
    EXPECT_EQ(stopped.code(), StatusCode::kIOError) << format;
    EXPECT_EQ(Array::Open(store, prefix).status().code(), StatusCode::kNotFound) << format;
    EXPECT_TRUE(ValueOrDie(store->Exists(prefix + "/" + std::string(kIncompleteMarkerKey))));
  }
}

// zarr v2 arrays with numcodecs filters and compressors read and write
// through the codec chain their .zarray translates to.
TEST(ArrayV2, NumcodecsFiltersAndCompressorsRoundTrip) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"<u2",
       R"("filters": [{"id": "delta", "dtype": "<u2"}], "compressor": {"id": "zlib", "level": 1})"},
      {">u2", R"("filters": null, "compressor": {"id": "lz4", "acceleration": 1})"},
      {"<u2",
       R"("filters": [{"id": "shuffle", "elementsize": 2}], "compressor": {"id": "bz2", "level": 9})"},
      {"<u2",
       R"("filters": [{"id": "astype", "encode_dtype": "<u4", "decode_dtype": "<u2"}], "compressor": {"id": "lzma", "format": 1, "check": -1, "preset": null, "filters": null})"},
  };
  for (const auto& [dtype, codecs] : cases) {
    auto store = store::MemoryStore::Create();
    const std::string zarray =
        R"({"zarr_format": 2, "shape": [20, 30], "chunks": [8, 16], "dtype": ")" + dtype +
        R"(", "fill_value": 0, "order": "F", )" + codecs + "}";
    ASSERT_TRUE(store->Set("a/.zarray", AsBytes(zarray)).ok());
    Result<Array> array = Array::Open(store, "a");
    ASSERT_TRUE(array.ok()) << codecs << ": " << array.status().ToString();
    const Bytes data = Iota16(600);
    ASSERT_TRUE(array->Write(Region({0, 0}, {20, 30}), data).ok()) << codecs;
    EXPECT_EQ(ValueOrDie(array->Read(Region({0, 0}, {20, 30}))), data) << codecs;
    EXPECT_EQ(ValueOrDie(array->Read(Region({3, 5}, {4, 6}))).size(), 2u) << codecs;
  }
}

// A string array (zarr-python writes "|O" with a vlen-utf8 filter) and an
// array with a compressor this library lacks: the metadata is still read,
// and opening the array is Unsupported, naming what is missing.
TEST(ArrayV2, UnsupportedTypesAndCodecsAreNamed) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"("dtype": "|O", "filters": [{"id": "vlen-utf8"}], "compressor": null, "fill_value": "")",
       "|O"},
      {R"("dtype": "<f4", "filters": null, "compressor": {"id": "zfpy", "mode": 4}, "fill_value": 0)",
       "numcodecs.zfpy"},
      {R"("dtype": "<f4", "filters": [{"id": "bitround", "keepbits": 3}], "compressor": null, "fill_value": 0)",
       "numcodecs.bitround"},
  };
  for (const auto& [fields, named] : cases) {
    auto store = store::MemoryStore::Create();
    const std::string zarray =
        R"({"zarr_format": 2, "shape": [5, 6], "chunks": [5, 3], "order": "C", )" + fields + "}";
    ASSERT_TRUE(store->Set(".zarray", AsBytes(zarray)).ok());
    const Result<Array> array = Array::Open(store, "");
    ASSERT_FALSE(array.ok()) << fields;
    EXPECT_EQ(array.status().code(), StatusCode::kUnsupported) << array.status().ToString();
    EXPECT_THAT(std::string(array.status().message()), HasSubstr(named));
    const Result<ArrayMetadata> metadata = ReadArrayMetadata(*store, "");
    ASSERT_TRUE(metadata.ok()) << metadata.status().ToString();
    EXPECT_EQ(metadata->shape, (Shape{5, 6}));
    EXPECT_EQ(metadata->chunk_shape, (Shape{5, 3}));
  }
}

}  // namespace
}  // namespace chunkwise::formats::zarr
