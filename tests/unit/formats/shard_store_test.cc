#include "formats/zarr/shard_store.h"

#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "chunkwise/core/thread_pool.h"
#include "chunkwise/store/file_store.h"
#include "store/memory_store.h"
#include "unit/forwarding_store.h"
#include "unit/scratch_directory.h"

namespace chunkwise::formats::zarr {
namespace {

using codec::ChunkSpec;
using core::Region;
using nlohmann::json;

const json kBytesLittle = {{"name", "bytes"}, {"configuration", {{"endian", "little"}}}};

// A 4x6 uint16 shard of 2x3 inner chunks (four of them), index at `location`.
std::shared_ptr<const ShardingCodec> MakeCodec(const char* location) {
  const json configuration = {{"chunk_shape", {2, 3}},
                              {"codecs", json::array({kBytesLittle})},
                              {"index_codecs", ShardIndexCodecs()},
                              {"index_location", location}};
  const codec::CodecRegistry registry = ZarrCodecRegistry();
  Result<std::shared_ptr<const ShardingCodec>> codec =
      ShardingCodec::FromJson(configuration, registry);
  EXPECT_TRUE(codec.ok()) << codec.status().ToString();
  return codec.ok() ? *codec : nullptr;
}

const core::Coord kOrigin{0, 0};
const core::Shape kInnerShape{2, 3};
const ChunkSpec kSpec{core::DataType(core::DataTypeId::kUInt16), {4, 6}, {0, 0}};

// Elements 1..24 in row-major order (none is the fill value 0).
Bytes Counting() {
  Bytes bytes(48);
  for (std::size_t i = 0; i < 24; ++i)
    StoreLittleEndian(static_cast<std::uint16_t>(i + 1), &bytes[2 * i]);
  return bytes;
}

// The raw little-endian bytes of inner chunk k of Counting(): rows 2·(k/2)..,
// columns 3·(k%2)...
Bytes InnerOfCounting(std::size_t k) {
  Bytes bytes;
  for (std::size_t row = 0; row < 2; ++row) {
    for (std::size_t column = 0; column < 3; ++column) {
      const std::size_t element = (2 * (k / 2) + row) * 6 + 3 * (k % 2) + column;
      bytes.push_back(static_cast<std::uint8_t>(element + 1));
      bytes.push_back(0);
    }
  }
  return bytes;
}

struct Backend {
  const char* name;
  bool file;
  const char* location;
};

class ShardStoreTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    if (GetParam().file) {
      store_ = *store::FileStore::Open(test::FreshScratchDirectory("shard_store"));
    } else {
      store_ = store::MemoryStore::Create();
    }
    codec_ = MakeCodec(GetParam().location);
    ASSERT_NE(codec_, nullptr);
  }

  ShardStore Shard() const { return ShardStore(*store_, "a/c/0/0", *codec_, kSpec); }

  // Writes the whole of Counting() to the shard.
  void WriteCounting(core::ThreadPool* pool = nullptr) {
    const Bytes data = Counting();
    ShardStore shard = Shard();
    const ShardWriteSource write{{data.data(), kSpec.shape, kOrigin}, Region::Full(kSpec.shape)};
    ASSERT_TRUE(shard.Write(write, true, {pool}).ok());
  }

  std::shared_ptr<store::Store> store_;
  std::shared_ptr<const ShardingCodec> codec_;
};

TEST_P(ShardStoreTest, WholeWriteStoresTheCodecsBytes) {
  core::ThreadPool pool(3);
  WriteCounting(&pool);
  const std::optional<Bytes> stored = *store_->Get("a/c/0/0");
  ASSERT_TRUE(stored.has_value());
  // The adapter writes exactly what the codec encodes: byte-identical shards.
  EXPECT_EQ(*stored, *codec_->Encode(kSpec, Counting()));
}

TEST_P(ShardStoreTest, GetInnerReturnsEachChunksEncodedBytes) {
  WriteCounting();
  const ShardStore shard = Shard();
  EXPECT_EQ(shard.num_inner_chunks(), 4u);
  for (std::size_t k = 0; k < 4; ++k) {
    const Result<std::optional<Bytes>> inner = shard.GetInner(k);
    ASSERT_TRUE(inner.ok()) << inner.status().ToString();
    ASSERT_TRUE(inner->has_value());
    EXPECT_EQ(**inner, InnerOfCounting(k)) << "inner chunk " << k;
  }
}

TEST_P(ShardStoreTest, GetInnersKeepsTheOrderAsked) {
  WriteCounting();
  const std::vector<std::size_t> ks = {3, 0, 3, 1};
  const Result<std::vector<std::optional<Bytes>>> inners = Shard().GetInners(ks);
  ASSERT_TRUE(inners.ok()) << inners.status().ToString();
  ASSERT_EQ(inners->size(), ks.size());
  for (std::size_t i = 0; i < ks.size(); ++i) {
    ASSERT_TRUE((*inners)[i].has_value());
    EXPECT_EQ(*(*inners)[i], InnerOfCounting(ks[i]));
  }
}

TEST_P(ShardStoreTest, GetInnerOutOfRangeIsInvalidArgument) {
  WriteCounting();
  const Result<std::optional<Bytes>> inner = Shard().GetInner(4);
  EXPECT_EQ(inner.status().code(), StatusCode::kInvalidArgument);
}

TEST_P(ShardStoreTest, MissingShardReadsAsFill) {
  const ShardStore shard = Shard();
  EXPECT_FALSE(shard.ReadIndex()->has_value());
  EXPECT_FALSE(shard.GetInner(2)->has_value());
  Bytes out(48, 0xAB);
  const Result<bool> stored =
      shard.ReadRegion(Region::Full(kSpec.shape), {out.data(), kSpec.shape, kOrigin}, {});
  ASSERT_TRUE(stored.ok());
  EXPECT_FALSE(*stored);
  EXPECT_EQ(out, Bytes(48, 0));
}

TEST_P(ShardStoreTest, ReadRegionDecodesTheBox) {
  WriteCounting();
  core::ThreadPool pool(2);
  // Rows 1..3, columns 2..5: it cuts all four inner chunks.
  const Region box({1, 2}, {3, 5});
  Bytes out(2 * 2 * 3);
  const Result<bool> stored = Shard().ReadRegion(box, {out.data(), kInnerShape, kOrigin}, {&pool});
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  EXPECT_TRUE(*stored);
  const Bytes all = Counting();
  for (int row = 0; row < 2; ++row) {
    for (int column = 0; column < 3; ++column) {
      const std::size_t from = ((row + 1) * 6 + column + 2) * 2;
      const std::size_t to = (row * 3 + column) * 2;
      EXPECT_EQ(out[to], all[from]) << row << "," << column;
    }
  }
}

TEST_P(ShardStoreTest, PartialWriteOfFillEmptiesOneEntryAndKeepsTheRest) {
  WriteCounting();
  ShardStore shard = Shard();
  const Bytes zeros(12, 0);
  const ShardWriteSource write{{zeros.data(), kInnerShape, kOrigin}, Region({0, 3}, {2, 6})};
  ASSERT_TRUE(shard.Write(write, false, {}).ok());
  const std::optional<ShardIndex> index = *shard.ReadIndex();
  ASSERT_TRUE(index.has_value());
  EXPECT_TRUE(index->at(1).empty());
  EXPECT_FALSE(shard.GetInner(1)->has_value());
  for (const std::size_t k : {0u, 2u, 3u}) EXPECT_EQ(**shard.GetInner(k), InnerOfCounting(k));
}

TEST_P(ShardStoreTest, WritingAllFillErasesTheShard) {
  WriteCounting();
  ShardStore shard = Shard();
  const Bytes zeros(48, 0);
  const ShardWriteSource write{{zeros.data(), kSpec.shape, kOrigin}, Region::Full(kSpec.shape)};
  ASSERT_TRUE(shard.Write(write, true, {}).ok());
  EXPECT_FALSE(store_->Get("a/c/0/0")->has_value());
}

TEST_P(ShardStoreTest, TruncatedIndexIsCorruptionNamingTheKey) {
  ASSERT_TRUE(store_->Set("a/c/0/0", Bytes(10, 1)).ok());  // The index alone is 68 bytes.
  const ShardStore shard = Shard();
  const std::string where = store_->Describe("a/c/0/0");
  Bytes out(48);
  const std::vector<Status> statuses = {
      shard.ReadIndex().status(), shard.GetInner(0).status(),
      shard.ReadRegion(Region::Full(kSpec.shape), {out.data(), kSpec.shape, kOrigin}, {}).status()};
  for (const Status& status : statuses) {
    EXPECT_EQ(status.code(), StatusCode::kCorruption) << status.ToString();
    EXPECT_NE(std::string(status.message()).find(where), std::string::npos) << status.ToString();
  }
}

TEST_P(ShardStoreTest, BadChecksumIsCorruptionNamingTheKey) {
  WriteCounting();
  Bytes stored = **store_->Get("a/c/0/0");
  // Flip a byte of the index's first entry, wherever the index lies.
  const std::size_t at = std::string(GetParam().location) == "start" ? 0 : stored.size() - 68;
  stored[at] ^= 0xFF;
  ASSERT_TRUE(store_->Set("a/c/0/0", stored).ok());
  const Status status = Shard().GetInner(0).status();
  EXPECT_EQ(status.code(), StatusCode::kCorruption) << status.ToString();
  EXPECT_NE(std::string(status.message()).find(store_->Describe("a/c/0/0")), std::string::npos);
}

TEST_P(ShardStoreTest, IsAStoreOfInnerChunksByCoordinates) {
  WriteCounting();
  const ShardStore shard = Shard();
  const std::vector<std::string> keys = {"0/0", "0/1", "1/0", "1/1"};
  for (std::size_t k = 0; k < 4; ++k) {
    EXPECT_EQ(shard.InnerKey(k), keys[k]);
    EXPECT_EQ(*shard.InnerPosition(keys[k]), k);
    const store::Store& as_store = shard;
    const std::optional<Bytes> value = *as_store.Get(keys[k]);
    ASSERT_TRUE(value.has_value()) << keys[k];
    EXPECT_EQ(*value, InnerOfCounting(k)) << keys[k];
    EXPECT_EQ(*as_store.Size(keys[k]), std::optional<std::uint64_t>(12));
  }
  EXPECT_EQ(*shard.List(""), keys);
  EXPECT_EQ(*shard.List("1/"), (std::vector<std::string>{"1/0", "1/1"}));
  const std::optional<Bytes> range = *shard.GetRange("1/1", store::ByteRange::Span(2, 4));
  ASSERT_TRUE(range.has_value());
  const Bytes last = InnerOfCounting(3);
  EXPECT_EQ(*range, Bytes(last.begin() + 2, last.begin() + 6));
  EXPECT_TRUE(shard.capabilities().lists_every_key);
  EXPECT_FALSE(shard.capabilities().conditional_writes);
  EXPECT_NE(shard.Describe("1/0").find(store_->Describe("a/c/0/0")), std::string::npos);
}

TEST_P(ShardStoreTest, KeysThatNameNoInnerChunkAreInvalidArgument) {
  const ShardStore shard = Shard();
  for (const char* key :
       {"", "0", "0/", "/0", "2/0", "0/2", "0/0/0", "a/0", "-1/0", "+1/0", "0/1x"}) {
    EXPECT_EQ(shard.Get(key).status().code(), StatusCode::kInvalidArgument) << key;
  }
}

TEST_P(ShardStoreTest, SetAndEraseOfOneInnerChunkKeepTheOthers) {
  WriteCounting();
  ShardStore shard = Shard();
  const Bytes ones(12, 1);
  ASSERT_TRUE(shard.Set("1/0", ones).ok());
  ASSERT_TRUE(shard.Erase("0/1").ok());
  EXPECT_EQ(*shard.List(""), (std::vector<std::string>{"0/0", "1/0", "1/1"}));
  EXPECT_EQ(**shard.Get("1/0"), ones);
  EXPECT_EQ(**shard.Get("0/0"), InnerOfCounting(0));
  EXPECT_EQ(**shard.Get("1/1"), InnerOfCounting(3));
  // The last inner chunk gone, the shard is gone.
  for (const char* key : {"0/0", "1/0", "1/1"}) ASSERT_TRUE(shard.Erase(key).ok());
  EXPECT_FALSE(store_->Get("a/c/0/0")->has_value());
}

TEST_P(ShardStoreTest, ThreadsSettingInnerChunksOfOneShardLoseNothing) {
  for (int trial = 0; trial < 5; ++trial) {
    ASSERT_TRUE(store_->Erase("a/c/0/0").ok());
    std::vector<std::thread> writers;
    std::vector<Status> statuses(4);
    for (std::size_t k = 0; k < 4; ++k) {
      writers.emplace_back([&, k] {
        ShardStore shard = Shard();
        statuses[k] = shard.Set(shard.InnerKey(k), Bytes(12, static_cast<std::uint8_t>(k + 1)));
      });
    }
    for (std::thread& writer : writers) writer.join();
    const ShardStore shard = Shard();
    for (std::size_t k = 0; k < 4; ++k) {
      ASSERT_TRUE(statuses[k].ok()) << statuses[k].ToString();
      const std::optional<Bytes> value = *shard.GetInner(k);
      ASSERT_TRUE(value.has_value()) << "trial " << trial << ", inner chunk " << k;
      EXPECT_EQ(*value, Bytes(12, static_cast<std::uint8_t>(k + 1)));
    }
  }
}

TEST_P(ShardStoreTest, SetInnersOfEveryChunkWritesTheCodecsBytes) {
  ShardStore shard = Shard();
  std::vector<Bytes> chunks;
  for (std::size_t k = 0; k < 4; ++k) chunks.push_back(InnerOfCounting(k));
  // Out of order: the shard lays them out by position, as the codec does.
  const std::vector<InnerValue> batch = {
      {2, chunks[2]}, {0, chunks[0]}, {3, chunks[3]}, {1, chunks[1]}};
  ASSERT_TRUE(shard.SetInners(batch).ok());
  EXPECT_EQ(**store_->Get("a/c/0/0"), *codec_->Encode(kSpec, Counting()));
}

TEST_P(ShardStoreTest, SetInnersRefusesABadBatchAndWritesNothing) {
  WriteCounting();
  const Bytes before = **store_->Get("a/c/0/0");
  ShardStore shard = Shard();
  const Bytes ones(12, 1);
  const std::vector<std::vector<InnerValue>> bad = {
      {{4, ByteView(ones)}}, {{1, ByteView(ones)}, {1, std::nullopt}}, {{0, ByteView()}}};
  for (const std::vector<InnerValue>& batch : bad) {
    EXPECT_EQ(shard.SetInners(batch).code(), StatusCode::kInvalidArgument);
  }
  EXPECT_EQ(**store_->Get("a/c/0/0"), before);
}

INSTANTIATE_TEST_SUITE_P(Stores, ShardStoreTest,
                         ::testing::Values(Backend{"MemoryIndexEnd", false, "end"},
                                           Backend{"MemoryIndexStart", false, "start"},
                                           Backend{"FileIndexEnd", true, "end"},
                                           Backend{"FileIndexStart", true, "start"}),
                         [](const auto& info) { return std::string(info.param.name); });

// Counts the writes of whole values (plain and conditional).
class CountingStore : public test::ForwardingStore {
 public:
  Status Set(std::string_view key, ByteView value) override {
    ++writes;
    return ForwardingStore::Set(key, value);
  }
  Result<store::Generation> SetPartsIf(std::string_view key, std::span<const ByteView> parts,
                                       const store::Generation& expected) override {
    ++writes;
    return ForwardingStore::SetPartsIf(key, parts, expected);
  }
  int writes = 0;
};

TEST(ShardStoreBatch, ABatchOfInnerChunksWritesTheShardOnce) {
  const std::shared_ptr<const ShardingCodec> codec = MakeCodec("end");
  ASSERT_NE(codec, nullptr);
  CountingStore parent;
  ShardStore shard(parent, "s", *codec, kSpec);
  const Bytes ones(12, 1), twos(12, 2), threes(12, 3);
  const std::vector<InnerValue> batch = {{0, ones}, {1, twos}, {3, threes}};
  ASSERT_TRUE(shard.SetInners(batch).ok());
  EXPECT_EQ(parent.writes, 1);
  EXPECT_EQ(*shard.List(""), (std::vector<std::string>{"0/0", "0/1", "1/1"}));
  EXPECT_EQ(**shard.Get("0/1"), twos);
}

}  // namespace
}  // namespace chunkwise::formats::zarr
