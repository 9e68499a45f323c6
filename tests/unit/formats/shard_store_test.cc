#include "chunkwise/formats/zarr/shard_store.h"

#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "chunkwise/core/thread_pool.h"
#include "chunkwise/store/file_store.h"
#include "chunkwise/store/memory_store.h"
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

INSTANTIATE_TEST_SUITE_P(Stores, ShardStoreTest,
                         ::testing::Values(Backend{"MemoryIndexEnd", false, "end"},
                                           Backend{"MemoryIndexStart", false, "start"},
                                           Backend{"FileIndexEnd", true, "end"},
                                           Backend{"FileIndexStart", true, "start"}),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace chunkwise::formats::zarr
