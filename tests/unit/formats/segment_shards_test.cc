// formats/precomputed/segment_shards.h: the one shard writer and reader of
// per-segment objects, which sharded multi-resolution meshes and sharded
// skeletons share.
#include "formats/precomputed/segment_shards.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "store/memory_store.h"

namespace chunkwise::formats::precomputed {
namespace {

Bytes Filled(std::size_t n, std::uint8_t seed) {
  Bytes out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::uint8_t>(seed + i * 7);
  return out;
}

TEST(SegmentSharding, GrowsShardAndMinishardBitsWithTheSegmentCount) {
  const ShardingSpec one = SegmentSharding(1);
  EXPECT_EQ(one.shard_bits, 0);
  EXPECT_EQ(one.minishard_bits, 0);
  EXPECT_EQ(one.hash, ShardHash::kMurmurHash3X86_128);
  EXPECT_EQ(one.minishard_index_encoding, ShardEncoding::kGzip);
  EXPECT_EQ(one.data_encoding, ShardEncoding::kRaw);
  const ShardingSpec thousand = SegmentSharding(1000);  // 10 bits: 1 shard, 2^7 minishards
  EXPECT_EQ(thousand.shard_bits, 0);
  EXPECT_EQ(thousand.minishard_bits, 7);
  const ShardingSpec million = SegmentSharding(1'000'000);  // 20 bits
  EXPECT_EQ(million.shard_bits, 8);
  EXPECT_EQ(million.minishard_bits, 9);
  EXPECT_EQ(SegmentSharding(1u << 30).shard_bits, 18);  // about 4096 a shard
}

TEST(SegmentShards, WhatIsWrittenReadsBackByIdWithPrefixesOutsideTheChunk) {
  for (const ShardEncoding data : {ShardEncoding::kRaw, ShardEncoding::kGzip}) {
    store::MemoryStore store;
    ShardingSpec spec = SegmentSharding(300);
    spec.shard_bits = 2;  // several shards even for a few hundred ids
    spec.data_encoding = data;
    std::map<std::uint64_t, Bytes> chunks, prefixes;
    std::vector<SegmentObject> objects;
    for (std::uint64_t id = 1; id <= 300; ++id) {
      chunks[id] = Filled(id % 40, static_cast<std::uint8_t>(id));
      prefixes[id] = Filled(id % 3 == 0 ? 5 : 0, 99);
    }
    for (std::uint64_t id = 1; id <= 300; ++id) objects.push_back({id, chunks[id], prefixes[id]});
    auto written = WriteSegmentShards(store, "skel/", spec, objects);
    ASSERT_TRUE(written.ok()) << written.status().ToString();
    EXPECT_EQ(written->keys.size(), 4u);
    std::uint64_t stored = 0;
    for (const std::string& key : written->keys) {
      EXPECT_EQ(key.substr(0, 5), "skel/");
      stored += **store.Size(key);
    }
    EXPECT_EQ(written->bytes, stored);
    for (std::uint64_t id = 1; id <= 300; ++id) {
      auto read = ReadSegmentChunk(store, "skel/", spec, id);
      ASSERT_TRUE(read.ok()) << read.status().ToString();
      ASSERT_TRUE(read->has_value()) << id;
      EXPECT_EQ(**read, chunks[id]) << id;
    }
    auto absent = ReadSegmentChunk(store, "skel/", spec, 301);
    ASSERT_TRUE(absent.ok());
    EXPECT_FALSE(absent->has_value());
    auto no_folder = ReadSegmentChunk(store, "other/", spec, 5);
    ASSERT_TRUE(no_folder.ok());
    EXPECT_FALSE(no_folder->has_value());
  }
}

TEST(SegmentShards, ARepeatedIdIsRefusedAndACutShardIsCorruptionNamingIt) {
  store::MemoryStore store("m");
  const ShardingSpec spec = SegmentSharding(2);
  const Bytes a = Filled(10, 1);
  auto twice = WriteSegmentShards(store, "", spec, {{7, a, {}}, {7, a, {}}});
  EXPECT_EQ(twice.status().code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(WriteSegmentShards(store, "", spec, {{7, a, {}}}).ok());
  ASSERT_TRUE(store.Set("0.shard", ByteView(a).first(4)).ok());  // shorter than its index
  auto cut = ReadSegmentChunk(store, "", spec, 7);
  EXPECT_EQ(cut.status().code(), StatusCode::kCorruption);
  EXPECT_NE(cut.status().message().find("0.shard"), std::string_view::npos)
      << cut.status().ToString();
}

}  // namespace
}  // namespace chunkwise::formats::precomputed
