// A shard written as a stream (inner chunks appended, then the index) is the
// sharding codec's shard byte for byte, with its index at the start or the
// end; a writer dropped before Finish leaves no key; an index of the wrong
// size is refused naming the key.
#include "formats/zarr/shard_stream_writer.h"

#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "chunkwise/store/file_store.h"
#include "formats/zarr/sharding_codec.h"
#include "store/memory_store.h"
#include "unit/scratch_directory.h"

namespace chunkwise::formats::zarr {
namespace {

using nlohmann::json;

std::shared_ptr<const ShardingCodec> MakeCodec(const char* location) {
  const json configuration = {
      {"chunk_shape", {2, 3}},
      {"codecs", json::array({{{"name", "bytes"}, {"configuration", {{"endian", "little"}}}},
                              {{"name", "zstd"}}})},
      {"index_location", location}};
  Result<std::shared_ptr<const ShardingCodec>> codec =
      ShardingCodec::FromJson(configuration, ZarrCodecRegistry());
  EXPECT_TRUE(codec.ok()) << codec.status().ToString();
  return codec.ok() ? *codec : nullptr;
}

// uint16 elements 1..24 but for inner chunk 1 (rows 0-1, columns 3-5), all
// fill: an empty index entry among stored ones.
Bytes Data() {
  Bytes bytes(48, 0);
  for (std::size_t i = 0; i < 24; ++i) {
    if (i / 6 < 2 && i % 6 >= 3) continue;
    StoreLittleEndian(static_cast<std::uint16_t>(i + 1), &bytes[2 * i]);
  }
  return bytes;
}

const codec::ChunkSpec kSpec{core::DataType(core::DataTypeId::kUInt16), {4, 6}, {0, 0}};

TEST(ShardStreamWriter, WritesTheCodecsShardOnEveryStore) {
  for (const bool file : {false, true}) {
    std::shared_ptr<store::Store> store;
    if (file) {
      store = *store::FileStore::Open(test::FreshScratchDirectory("shard_stream_writer"));
    } else {
      store = store::MemoryStore::Create();
    }
    for (const char* location : {"start", "end"}) {
      const auto codec = MakeCodec(location);
      ASSERT_NE(codec, nullptr);
      const Result<Bytes> expected = codec->Encode(kSpec, Data());
      ASSERT_TRUE(expected.ok()) << expected.status().ToString();
      const Result<ShardIndex> index =
          codec->ReadIndex(MemoryShardReader(*expected), expected->size(), 4, "s");
      ASSERT_TRUE(index.ok()) << index.status().ToString();
      ASSERT_TRUE(index->at(1).empty());
      const std::string key = std::string("c/0/") + location;
      auto writer =
          ShardStreamWriter::Open(*store, key, codec->index_location(), ShardIndex::EncodedSize(4));
      ASSERT_TRUE(writer.ok()) << writer.status().ToString();
      for (std::size_t k = 0; k < 4; ++k) {  // The inner chunks in the order they are laid out.
        const ChunkLocation at = index->at(k);
        if (!at.empty()) {
          ASSERT_TRUE((*writer)->Append(ByteView(*expected).subspan(at.offset, at.nbytes)).ok());
        }
      }
      EXPECT_FALSE(*store->Exists(key));  // Not before Finish.
      ASSERT_TRUE((*writer)->Finish(index->Encode()).ok());
      const Result<std::optional<Bytes>> stored = store->Get(key);
      ASSERT_TRUE(stored.ok() && stored->has_value());
      EXPECT_EQ(**stored, *expected) << location << (file ? " file" : " memory");
    }
  }
}

TEST(ShardStreamWriter, DroppedBeforeFinishLeavesNoKey) {
  auto store = store::MemoryStore::Create();
  {
    auto writer =
        ShardStreamWriter::Open(*store, "c/0/0", IndexLocation::kStart, ShardIndex::EncodedSize(4));
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->Append(Bytes(10, 7)).ok());
  }
  EXPECT_FALSE(*store->Exists("c/0/0"));
}

TEST(ShardStreamWriter, AnIndexOfAnotherSizeIsRefusedNamingTheKey) {
  auto store = store::MemoryStore::Create();
  auto writer =
      ShardStreamWriter::Open(*store, "arr/c/0/0", IndexLocation::kEnd, ShardIndex::EncodedSize(4));
  ASSERT_TRUE(writer.ok());
  const Status finished = (*writer)->Finish(ShardIndex::Empty(2).Encode());
  EXPECT_EQ(finished.code(), StatusCode::kInternal);
  EXPECT_NE(std::string(finished.message()).find("arr/c/0/0"), std::string::npos)
      << finished.ToString();
  EXPECT_FALSE(*store->Exists("arr/c/0/0"));
}

}  // namespace
}  // namespace chunkwise::formats::zarr
