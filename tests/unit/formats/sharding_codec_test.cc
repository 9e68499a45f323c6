#include "formats/zarr/sharding_codec.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "codec/crc32c.h"

namespace chunkwise::formats::zarr {
namespace {

using codec::ChunkSpec;
using core::DataType;
using core::DataTypeId;
using nlohmann::json;

const json kBytesLittle = {{"name", "bytes"}, {"configuration", {{"endian", "little"}}}};
const json kStandardIndex = json::array({kBytesLittle, {{"name", "crc32c"}}});

json Configuration(json chunk_shape, json codecs, const char* location = "end") {
  return {{"chunk_shape", std::move(chunk_shape)},
          {"codecs", std::move(codecs)},
          {"index_codecs", kStandardIndex},
          {"index_location", location}};
}

json ShardingJson(json configuration) {
  return {{"name", "sharding_indexed"}, {"configuration", std::move(configuration)}};
}

// Builds the codec through the registry, as zarr.json does.
std::shared_ptr<const ShardingCodec> Make(const json& configuration) {
  const codec::CodecRegistry registry = ZarrCodecRegistry();
  Result<std::shared_ptr<const codec::Codec>> created =
      registry.Create(ShardingJson(configuration));
  EXPECT_TRUE(created.ok()) << created.status().ToString();
  if (!created.ok()) return nullptr;
  auto sharding = std::dynamic_pointer_cast<const ShardingCodec>(*created);
  EXPECT_NE(sharding, nullptr);
  return sharding;
}

// A whole shard encoded and decoded through EncodeMerged and DecodeRegion
// with `context` (Encode and Decode run on the calling thread).
Result<Bytes> EncodeIn(const ShardingCodec& sharding, const ChunkSpec& spec, const Bytes& data,
                       const ShardCallContext& context) {
  const core::Coord origin(spec.shape.size(), 0);
  const ShardWriteSource write{{data.data(), spec.shape, origin}, core::Region::Full(spec.shape)};
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<EncodedShard> shard,
                             sharding.EncodeMerged(spec, write, std::nullopt, {}, "s", context));
  if (!shard) return sharding.Encode(spec, data);  // All fill: the codec's empty index.
  return shard->Join();
}

Result<Bytes> DecodeIn(const ShardingCodec& sharding, const ChunkSpec& spec, const Bytes& shard,
                       const ShardCallContext& context) {
  const ShardByteReader read = MemoryShardReader(shard);
  const auto n = static_cast<std::size_t>(sharding.InnerGrid(spec.shape).num_chunks());
  CHUNKWISE_ASSIGN_OR_RETURN(ShardIndex index, sharding.ReadIndex(read, shard.size(), n, "s"));
  Bytes out(spec.num_bytes());
  const core::Coord origin(spec.shape.size(), 0);
  CHUNKWISE_RETURN_IF_ERROR(sharding.DecodeRegion(spec, index, read, core::Region::Full(spec.shape),
                                                  {out.data(), spec.shape, origin}, "s", context));
  return out;
}

Bytes RandomBytes(std::size_t size, std::uint32_t seed) {
  std::mt19937 rng(seed);
  Bytes bytes(size);
  for (auto& byte : bytes) byte = static_cast<std::uint8_t>(rng());
  return bytes;
}

// uint16 elements 1, 2, 3, ... (never the fill value 0).
Bytes Counting(std::size_t elements) {
  Bytes bytes(2 * elements);
  for (std::size_t i = 0; i < elements; ++i) {
    StoreLittleEndian(static_cast<std::uint16_t>(i + 1), bytes.data() + 2 * i);
  }
  return bytes;
}

ChunkSpec U16Spec(core::Shape shape, std::uint16_t fill = 0) {
  std::vector<std::uint8_t> element(2);
  StoreLittleEndian(fill, element.data());
  return ChunkSpec{DataType(DataTypeId::kUInt16), std::move(shape), element};
}

void ExpectCorruptionNaming(const Status& status, std::string_view key) {
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kCorruption) << status.ToString();
  EXPECT_NE(std::string(status.message()).find(key), std::string::npos) << status.ToString();
}

// A reader over an in-memory shard, as the Array uses for whole-shard reads.
ShardByteReader ReaderOf(const Bytes& shard) {
  return [&shard](std::uint64_t offset, std::uint64_t nbytes, Bytes&) -> Result<ByteView> {
    return ByteView(shard).subspan(offset, nbytes);
  };
}

TEST(ShardingCodec, FromJsonThroughTheRegistry) {
  {
    const codec::CodecRegistry registry = ZarrCodecRegistry();
    EXPECT_TRUE(registry.Contains("sharding_indexed"));
    EXPECT_TRUE(registry.Contains("zstd"));
    const auto sharding =
        Make(Configuration({2, 3}, json::array({kBytesLittle, {{"name", "zstd"}}}), "start"));
    ASSERT_NE(sharding, nullptr);
    EXPECT_EQ(sharding->name(), "sharding_indexed");
    EXPECT_EQ(sharding->kind(), codec::CodecKind::kArrayToBytes);
    EXPECT_EQ(sharding->chunk_shape(), (core::Shape{2, 3}));
    EXPECT_EQ(sharding->index_location(), IndexLocation::kStart);
    ASSERT_EQ(sharding->inner_codecs().bytes_codecs().size(), 1u);
    EXPECT_EQ(sharding->inner_codecs().bytes_codecs()[0]->name(), "zstd");
  }
}

TEST(ShardingCodec, DefaultsForAbsentIndexFields) {
  const auto sharding = Make({{"chunk_shape", {4}}, {"codecs", json::array({kBytesLittle})}});
  ASSERT_NE(sharding, nullptr);
  EXPECT_EQ(sharding->index_location(), IndexLocation::kEnd);
  EXPECT_EQ(sharding->ToJson()["configuration"]["index_codecs"], kStandardIndex);
  // "crc32c" as a bare name is the same index codec.
  EXPECT_NE(Make({{"chunk_shape", {4}},
                  {"codecs", json::array({kBytesLittle})},
                  {"index_codecs", json::array({kBytesLittle, "crc32c"})}}),
            nullptr);
}

TEST(ShardingCodec, BadConfigurationsAreRefused) {
  const codec::CodecRegistry registry = ZarrCodecRegistry();
  const json codecs = json::array({kBytesLittle});
  const std::vector<std::pair<json, StatusCode>> cases = {
      {{{"codecs", codecs}}, StatusCode::kInvalidArgument},
      {{{"chunk_shape", {4}}}, StatusCode::kInvalidArgument},
      {{{"chunk_shape", json::array()}, {"codecs", codecs}}, StatusCode::kInvalidArgument},
      {{{"chunk_shape", {0, 4}}, {"codecs", codecs}}, StatusCode::kInvalidArgument},
      {{{"chunk_shape", {2.5}}, {"codecs", codecs}}, StatusCode::kInvalidArgument},
      {{{"chunk_shape", "4"}, {"codecs", codecs}}, StatusCode::kInvalidArgument},
      {{{"chunk_shape", {4}}, {"codecs", codecs}, {"index_location", "middle"}},
       StatusCode::kInvalidArgument},
      {{{"chunk_shape", {4}}, {"codecs", codecs}, {"extra", 1}}, StatusCode::kInvalidArgument},
      {{{"chunk_shape", {4}},
        {"codecs", codecs},
        {"index_codecs",
         json::array({{{"name", "bytes"}, {"configuration", {{"endian", "big"}}}}, "crc32c"})}},
       StatusCode::kUnsupported},
      {{{"chunk_shape", {4}}, {"codecs", codecs}, {"index_codecs", json::array({kBytesLittle})}},
       StatusCode::kUnsupported},
      {{{"chunk_shape", {4}},
        {"codecs", codecs},
        {"index_codecs", json::array({kBytesLittle, "crc32c", "zstd"})}},
       StatusCode::kUnsupported},
      {{{"chunk_shape", {4}}, {"codecs", json::array({"lz4"})}}, StatusCode::kUnsupported},
      {{{"chunk_shape", {4}}, {"codecs", json::array({"zstd"})}}, StatusCode::kInvalidArgument},
  };
  for (const auto& [configuration, code] : cases) {
    const Result<std::shared_ptr<const codec::Codec>> created =
        registry.Create(ShardingJson(configuration));
    ASSERT_FALSE(created.ok()) << configuration.dump();
    EXPECT_EQ(created.status().code(), code)
        << configuration.dump() << ": " << created.status().ToString();
  }
  // Fields of the wrong JSON type anywhere give an error, never an exception.
  for (const json& configuration :
       {json(
            {{"chunk_shape", {4}},
             {"codecs", codecs},
             {"index_codecs", json::array({{{"name", "bytes"}, {"configuration", 5}}, "crc32c"})}}),
        json({{"chunk_shape", {4}}, {"codecs", codecs}, {"index_location", 3}}),
        json({{"chunk_shape", {4}}, {"codecs", 7}}), json::array({1, 2}), json("x")}) {
    EXPECT_FALSE(registry.Create(ShardingJson(configuration)).ok()) << configuration.dump();
  }
}

TEST(ShardingCodec, NestingDeeperThanTheLimitIsRefused) {
  json codecs = json::array({kBytesLittle});
  for (int depth = 0; depth < 20; ++depth) {
    codecs = json::array({ShardingJson(Configuration({1}, codecs))});
  }
  const codec::CodecRegistry registry = ZarrCodecRegistry();
  const Result<std::shared_ptr<const codec::Codec>> created = registry.Create(codecs[0]);
  ASSERT_FALSE(created.ok());
  EXPECT_NE(std::string(created.status().message()).find("nested"), std::string::npos)
      << created.status().ToString();
}

TEST(ShardingCodec, RoundTripsEveryDataType) {
  core::ThreadPool pool(4);
  ShardScratch scratch;
  const ShardCallContext parallel{&pool, &scratch};
  const std::vector<json> inner_chains = {
      json::array({kBytesLittle}),
      json::array({kBytesLittle, {{"name", "zstd"}, {"configuration", {{"level", 3}}}}}),
      json::array({{{"name", "bytes"}, {"configuration", {{"endian", "big"}}}},
                   {{"name", "gzip"}, {"configuration", {{"level", 1}}}}}),
      json::array({{{"name", "transpose"}, {"configuration", {{"order", {1, 0}}}}},
                   kBytesLittle,
                   "crc32c"}),
  };
  std::uint32_t seed = 1;
  for (const DataType dtype : DataType::All()) {
    for (std::size_t c = 0; c < inner_chains.size(); ++c) {
      json chain = inner_chains[c];
      if (dtype.size() == 1 && c == 0) chain = json::array({"bytes"});
      for (const char* location : {"end", "start"}) {
        const auto sharding = Make(Configuration({4, 3}, chain, location));
        ASSERT_NE(sharding, nullptr);
        const ChunkSpec spec{dtype, {8, 9}, std::vector<std::uint8_t>(dtype.size(), 0)};
        Bytes data = RandomBytes(spec.num_bytes(), seed++);
        // One inner chunk equal to the fill value, to exercise empty entries too.
        for (std::int64_t row = 4; row < 8; ++row) {
          std::memset(data.data() + (row * 9 + 3) * dtype.size(), 0, 3 * dtype.size());
        }
        const Result<Bytes> encoded = sharding->Encode(spec, data);
        ASSERT_TRUE(encoded.ok()) << encoded.status().ToString();
        const Result<Bytes> decoded = sharding->Decode(spec, *encoded);
        ASSERT_TRUE(decoded.ok()) << dtype.zarr_name() << " " << chain.dump() << ": "
                                  << decoded.status().ToString();
        EXPECT_EQ(*decoded, data) << dtype.zarr_name() << " " << chain.dump() << " " << location;
        // On a pool, with the caller's scratch: the same bytes both ways.
        const Result<Bytes> encoded_in = EncodeIn(*sharding, spec, data, parallel);
        ASSERT_TRUE(encoded_in.ok()) << encoded_in.status().ToString();
        EXPECT_EQ(*encoded_in, *encoded) << dtype.zarr_name() << " " << chain.dump();
        const Result<Bytes> decoded_in = DecodeIn(*sharding, spec, *encoded, parallel);
        ASSERT_TRUE(decoded_in.ok()) << decoded_in.status().ToString();
        EXPECT_EQ(*decoded_in, data) << dtype.zarr_name() << " " << chain.dump();
      }
    }
  }
}

// uint16 shard 4×4 of inner chunks 2×2, raw bytes: every inner chunk is 8 bytes.
TEST(ShardingCodec, IndexAtEndLayout) {
  const auto sharding = Make(Configuration({2, 2}, json::array({kBytesLittle}), "end"));
  ASSERT_NE(sharding, nullptr);
  const ChunkSpec spec = U16Spec({4, 4});
  const Bytes data = Counting(16);
  const Result<Bytes> encoded = sharding->Encode(spec, data);
  ASSERT_TRUE(encoded.ok()) << encoded.status().ToString();
  ASSERT_EQ(encoded->size(), 4 * 8 + 68u);
  const std::uint8_t* index = encoded->data() + 32;
  for (std::uint64_t k = 0; k < 4; ++k) {
    EXPECT_EQ(LoadLittleEndian<std::uint64_t>(index + 16 * k), 8 * k) << k;
    EXPECT_EQ(LoadLittleEndian<std::uint64_t>(index + 16 * k + 8), 8u) << k;
  }
  EXPECT_EQ(LoadLittleEndian<std::uint32_t>(index + 64), codec::Crc32c(ByteView(index, 64)));
  // Inner chunk 0 holds elements (0,0) (0,1) (1,0) (1,1) = 1, 2, 5, 6; chunk 3 holds 11 12 15 16.
  const std::vector<std::uint16_t> chunk0 = {1, 2, 5, 6};
  const std::vector<std::uint16_t> chunk3 = {11, 12, 15, 16};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(LoadLittleEndian<std::uint16_t>(encoded->data() + 2 * i), chunk0[i]);
    EXPECT_EQ(LoadLittleEndian<std::uint16_t>(encoded->data() + 24 + 2 * i), chunk3[i]);
  }
}

TEST(ShardingCodec, IndexAtStartLayout) {
  const auto sharding = Make(Configuration({2, 2}, json::array({kBytesLittle}), "start"));
  ASSERT_NE(sharding, nullptr);
  const ChunkSpec spec = U16Spec({4, 4});
  const Result<Bytes> encoded = sharding->Encode(spec, Counting(16));
  ASSERT_TRUE(encoded.ok()) << encoded.status().ToString();
  ASSERT_EQ(encoded->size(), 68 + 4 * 8u);
  const std::uint8_t* index = encoded->data();
  for (std::uint64_t k = 0; k < 4; ++k) {
    // Offsets count from the start of the shard, so they include the index (errata 3).
    EXPECT_EQ(LoadLittleEndian<std::uint64_t>(index + 16 * k), 68 + 8 * k) << k;
    EXPECT_EQ(LoadLittleEndian<std::uint64_t>(index + 16 * k + 8), 8u) << k;
  }
  EXPECT_EQ(LoadLittleEndian<std::uint32_t>(index + 64), codec::Crc32c(ByteView(index, 64)));
  EXPECT_EQ(LoadLittleEndian<std::uint16_t>(encoded->data() + 68), 1u);
  EXPECT_EQ(LoadLittleEndian<std::uint16_t>(encoded->data() + 68 + 8),
            3u);  // Chunk 1 starts at (0,2).
}

TEST(ShardingCodec, FillValuedInnerChunksAreEmptyEntries) {
  const auto sharding = Make(Configuration({2, 2}, json::array({kBytesLittle})));
  ASSERT_NE(sharding, nullptr);
  const ChunkSpec spec = U16Spec({4, 4}, /*fill=*/7);
  Bytes data = Counting(16);
  for (const auto& [row, col] : std::vector<std::pair<int, int>>{{0, 2}, {0, 3}, {1, 2}, {1, 3}}) {
    StoreLittleEndian<std::uint16_t>(7, data.data() + 2 * (row * 4 + col));
  }
  const Result<Bytes> encoded = sharding->Encode(spec, data);
  ASSERT_TRUE(encoded.ok());
  ASSERT_EQ(encoded->size(), 3 * 8 + 68u);
  const Result<ShardIndex> index =
      ShardIndex::Decode(ByteView(*encoded).last(68), 4, encoded->size(), "s");
  ASSERT_TRUE(index.ok()) << index.status().ToString();
  EXPECT_EQ(index->at(0), (ChunkLocation{0, 8}));
  EXPECT_TRUE(index->at(1).empty());
  EXPECT_EQ(index->at(2), (ChunkLocation{8, 8}));
  EXPECT_EQ(index->at(3), (ChunkLocation{16, 8}));
  const Result<Bytes> decoded = sharding->Decode(spec, *encoded);
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(*decoded, data);
  // A chunk that is all zero is stored: zero is not this array's fill value.
  Bytes zeros = data;
  for (int i = 0; i < 16; ++i) StoreLittleEndian<std::uint16_t>(0, zeros.data() + 2 * i);
  const Result<Bytes> zero_encoded = sharding->Encode(spec, zeros);
  ASSERT_TRUE(zero_encoded.ok());
  EXPECT_EQ(zero_encoded->size(), 4 * 8 + 68u);
}

TEST(ShardingCodec, AllFillShardEncodesToIndexOnly) {
  for (const char* location : {"end", "start"}) {
    const auto sharding = Make(Configuration({2, 2}, json::array({kBytesLittle}), location));
    ASSERT_NE(sharding, nullptr);
    const ChunkSpec spec = U16Spec({4, 6}, 9);
    Bytes data(spec.num_bytes());
    for (std::size_t i = 0; i < 24; ++i) StoreLittleEndian<std::uint16_t>(9, data.data() + 2 * i);
    const Result<Bytes> encoded = sharding->Encode(spec, data);
    ASSERT_TRUE(encoded.ok());
    ASSERT_EQ(encoded->size(), 16 * 6 + 4u);
    for (std::size_t i = 0; i < 96; ++i) ASSERT_EQ((*encoded)[i], 0xFF) << i;
    EXPECT_EQ(LoadLittleEndian<std::uint32_t>(encoded->data() + 96),
              codec::Crc32c(ByteView(*encoded).first(96)));
    const Result<Bytes> decoded = sharding->Decode(spec, *encoded);
    ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
    EXPECT_EQ(*decoded, data);
  }
}

TEST(ShardingCodec, EmptyFillValueMeansZero) {
  const auto sharding = Make(Configuration({2}, json::array({kBytesLittle})));
  ASSERT_NE(sharding, nullptr);
  const ChunkSpec spec{DataType(DataTypeId::kInt32), {4}, {}};
  const Bytes zeros(16, 0);
  const Result<Bytes> encoded = sharding->Encode(spec, zeros);
  ASSERT_TRUE(encoded.ok());
  EXPECT_EQ(encoded->size(), 2 * 16 + 4u);
  const Result<Bytes> decoded = sharding->Decode(spec, *encoded);
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(*decoded, zeros);
}

TEST(ShardingCodec, NestedShardingRoundTrip) {
  core::ThreadPool pool(4);
  ShardScratch scratch;
  const json innermost = json::array({kBytesLittle, {{"name", "zstd"}}});
  const json middle = ShardingJson(Configuration({2, 2}, innermost, "start"));
  for (const ShardCallContext context : {ShardCallContext{&pool, &scratch}, ShardCallContext{}}) {
    const auto sharding = Make(Configuration({4, 4}, json::array({middle})));
    ASSERT_NE(sharding, nullptr);
    const ChunkSpec spec = U16Spec({8, 12});
    Bytes data = Counting(96);
    for (int col = 4; col < 8; ++col) {  // Inner shard (0,1) all fill.
      for (int row = 0; row < 4; ++row) {
        StoreLittleEndian<std::uint16_t>(0, data.data() + 2 * (row * 12 + col));
      }
    }
    StoreLittleEndian<std::uint16_t>(0, data.data() + 2 * (4 * 12 + 0));  // Cuts one chunk.
    const Result<Bytes> encoded = EncodeIn(*sharding, spec, data, context);
    ASSERT_TRUE(encoded.ok()) << encoded.status().ToString();
    EXPECT_EQ(*encoded, *sharding->Encode(spec, data));
    const Result<Bytes> decoded = DecodeIn(*sharding, spec, *encoded, context);
    ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
    EXPECT_EQ(*decoded, data);
    EXPECT_EQ(*sharding->Decode(spec, *encoded), data);
    // The outer index has six entries; the all-fill inner shard is empty, the others not.
    const Result<ShardIndex> index =
        ShardIndex::Decode(ByteView(*encoded).last(16 * 6 + 4), 6, encoded->size(), "s");
    ASSERT_TRUE(index.ok());
    EXPECT_TRUE(index->at(1).empty());
    EXPECT_FALSE(index->at(0).empty());
    EXPECT_FALSE(index->at(5).empty());
    const auto again = Make(sharding->ToJson()["configuration"]);
    ASSERT_NE(again, nullptr);
    EXPECT_EQ(again->ToJson(), sharding->ToJson());
  }
}

TEST(ShardingCodec, ChunkShapeMustDivideTheShard) {
  const auto sharding = Make(Configuration({4, 3}, json::array({kBytesLittle})));
  ASSERT_NE(sharding, nullptr);
  EXPECT_TRUE(sharding->CheckShardShape({8, 9}).ok());
  EXPECT_TRUE(sharding->CheckShardShape({4, 3}).ok());
  for (const core::Shape& bad : {core::Shape{8, 8}, core::Shape{6, 9}, core::Shape{8},
                                 core::Shape{8, 9, 1}, core::Shape{0, 9}, core::Shape{2, 3}}) {
    const Status status = sharding->CheckShardShape(bad);
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << core::FormatShape(bad);
  }
  const ChunkSpec spec = U16Spec({8, 8});
  const Result<Bytes> encoded = sharding->Encode(spec, Bytes(spec.num_bytes(), 1));
  ASSERT_FALSE(encoded.ok());
  EXPECT_EQ(encoded.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(encoded.status().message()).find("divide"), std::string::npos);
  EXPECT_FALSE(sharding->Decode(spec, Bytes(100, 0)).ok());
}

class ShardingCorruption : public ::testing::Test {
 protected:
  void SetUp() override {
    sharding_ = Make(Configuration({2, 2}, json::array({kBytesLittle})));
    ASSERT_NE(sharding_, nullptr);
    const Result<Bytes> encoded = sharding_->Encode(spec_, Counting(16));
    ASSERT_TRUE(encoded.ok());
    shard_ = *encoded;
  }
  // Reads the index of `shard` under `key_` then decodes all of it through DecodeRegion.
  Status ReadAll(const Bytes& shard) const {
    const ShardByteReader read = ReaderOf(shard);
    CHUNKWISE_ASSIGN_OR_RETURN(ShardIndex index, sharding_->ReadIndex(read, shard.size(), 4, key_));
    Bytes out(spec_.num_bytes());
    const core::Coord origin = {0, 0};
    return sharding_->DecodeRegion(spec_, index, read, core::Region::Full(spec_.shape),
                                   {out.data(), spec_.shape, origin}, key_);
  }
  // Rewrites index entry k's field (0 offset, 1 nbytes) and fixes the CRC.
  void PatchEntry(std::size_t k, int field, std::uint64_t value) {
    std::uint8_t* index = shard_.data() + shard_.size() - 68;
    StoreLittleEndian(value, index + 16 * k + 8 * field);
    StoreLittleEndian(codec::Crc32c(ByteView(index, 64)), index + 64);
  }

  std::shared_ptr<const ShardingCodec> sharding_;
  const ChunkSpec spec_ = U16Spec({4, 4});
  const std::string key_ = "arr/c/3/1";
  Bytes shard_;
};

TEST_F(ShardingCorruption, IntactShardReads) { EXPECT_TRUE(ReadAll(shard_).ok()); }

TEST_F(ShardingCorruption, WrongIndexChecksum) {
  shard_.back() ^= 0x01;
  ExpectCorruptionNaming(ReadAll(shard_), key_);
  EXPECT_NE(std::string(ReadAll(shard_).message()).find("checksum"), std::string::npos);
  ExpectCorruptionNaming(sharding_->Decode(spec_, shard_).status(), "shard");
  shard_.back() ^= 0x01;
  shard_[shard_.size() - 68 + 3] ^= 0x40;  // An index byte instead of the CRC.
  ExpectCorruptionNaming(ReadAll(shard_), key_);
}

TEST_F(ShardingCorruption, TruncatedShard) {
  Bytes truncated(shard_.begin(), shard_.begin() + 50);  // Shorter than the index.
  ExpectCorruptionNaming(ReadAll(truncated), key_);
  EXPECT_NE(std::string(ReadAll(truncated).message()).find("truncated"), std::string::npos);
  ExpectCorruptionNaming(sharding_->Decode(spec_, truncated).status(), "shard");
  // Data bytes cut from the front: the index still reads but points past the data.
  Bytes cut(shard_.begin() + 8, shard_.end());
  ExpectCorruptionNaming(ReadAll(cut), key_);
  ExpectCorruptionNaming(sharding_->Decode(spec_, Bytes()).status(), "shard");
}

TEST_F(ShardingCorruption, OffsetsPastTheEnd) {
  PatchEntry(2, 0, 1000);
  ExpectCorruptionNaming(ReadAll(shard_), key_);
  ExpectCorruptionNaming(sharding_->Decode(spec_, shard_).status(), "shard");
}

TEST_F(ShardingCorruption, OffsetPlusSizeWrapsAround) {
  PatchEntry(1, 0, 8);
  PatchEntry(1, 1, ~std::uint64_t{0} - 4);
  ExpectCorruptionNaming(ReadAll(shard_), key_);
}

TEST_F(ShardingCorruption, ChunkOfTheWrongSize) {
  PatchEntry(3, 1, 6);  // The bytes codec needs exactly 8 bytes.
  const Status status = ReadAll(shard_);
  ExpectCorruptionNaming(status, key_);
  EXPECT_NE(std::string(status.message()).find("inner chunk [1,1]"), std::string::npos)
      << status.ToString();
  PatchEntry(3, 1, 0);  // Zero-length entries are legal in the index but do not decode here.
  ExpectCorruptionNaming(ReadAll(shard_), key_);
}

TEST_F(ShardingCorruption, HalfEmptyEntry) {
  PatchEntry(0, 0, ~std::uint64_t{0});
  ExpectCorruptionNaming(ReadAll(shard_), key_);
}

TEST(ShardingCodec, CorruptInnerChunkNamesKeyAndChunk) {
  const auto sharding =
      Make(Configuration({2, 2}, json::array({kBytesLittle, {{"name", "zstd"}}}), "start"));
  ASSERT_NE(sharding, nullptr);
  const ChunkSpec spec = U16Spec({4, 4});
  Result<Bytes> encoded = sharding->Encode(spec, Counting(16));
  ASSERT_TRUE(encoded.ok());
  Bytes shard = *encoded;
  const Result<ShardIndex> index = sharding->ReadIndex(ReaderOf(shard), shard.size(), 4, "k");
  ASSERT_TRUE(index.ok()) << index.status().ToString();
  const ChunkLocation chunk2 = index->at(2);
  for (std::uint64_t i = 0; i < chunk2.nbytes; ++i) shard[chunk2.offset + i] = 0x5A;
  Bytes out(spec.num_bytes());
  const core::Coord origin = {0, 0};
  const Status status =
      sharding->DecodeRegion(spec, *index, ReaderOf(shard), core::Region::Full(spec.shape),
                             {out.data(), spec.shape, origin}, "grp/arr/c/0/0");
  ExpectCorruptionNaming(status, "grp/arr/c/0/0");
  EXPECT_NE(std::string(status.message()).find("[1,0]"), std::string::npos) << status.ToString();
}

TEST(ShardingCodec, DecodeRegionReadsOnlyTouchedChunks) {
  const auto sharding = Make(Configuration({2, 3}, json::array({kBytesLittle})));
  ASSERT_NE(sharding, nullptr);
  const ChunkSpec spec = U16Spec({6, 9});
  const Bytes data = Counting(54);
  const Result<Bytes> encoded = sharding->Encode(spec, data);
  ASSERT_TRUE(encoded.ok());
  const Bytes& shard = *encoded;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> reads;
  std::mutex mutex;
  const ShardByteReader read = [&](std::uint64_t offset, std::uint64_t nbytes,
                                   Bytes&) -> Result<ByteView> {
    std::lock_guard<std::mutex> lock(mutex);
    reads.emplace_back(offset, nbytes);
    return ByteView(shard).subspan(offset, nbytes);
  };
  const Result<ShardIndex> index = sharding->ReadIndex(read, shard.size(), 9, "k");
  ASSERT_TRUE(index.ok());
  ASSERT_EQ(reads.size(), 1u);
  EXPECT_EQ(reads[0],
            std::make_pair(std::uint64_t{shard.size() - (16 * 9 + 4)}, std::uint64_t{16 * 9 + 4}));
  reads.clear();
  // Rows 1..3, columns 4..5: inner chunks (0,1) and (1,1) only.
  const core::Region box({1, 4}, {3, 6});
  Bytes out(2 * 4, 0);
  const core::Shape out_shape = {2, 2};
  const core::Coord origin = {0, 0};
  ASSERT_TRUE(
      sharding->DecodeRegion(spec, *index, read, box, {out.data(), out_shape, origin}, "k").ok());
  EXPECT_EQ(reads.size(), 2u);
  const std::vector<std::uint16_t> expected = {1 * 9 + 4 + 1, 1 * 9 + 5 + 1, 2 * 9 + 4 + 1,
                                               2 * 9 + 5 + 1};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(LoadLittleEndian<std::uint16_t>(out.data() + 2 * i), expected[i]) << i;
  }
}

TEST(ShardingCodec, EncodeMergedKeepsUntouchedChunksBytewise) {
  const auto sharding = Make(Configuration(
      {2, 2}, json::array({kBytesLittle, {{"name", "gzip"}, {"configuration", {{"level", 5}}}}}),
      "end"));
  ASSERT_NE(sharding, nullptr);
  const ChunkSpec spec = U16Spec({4, 4});
  const Bytes data = Counting(16);
  const Result<Bytes> old = sharding->Encode(spec, data);
  ASSERT_TRUE(old.ok());
  const Result<ShardIndex> old_index = sharding->ReadIndex(ReaderOf(*old), old->size(), 4, "k");
  ASSERT_TRUE(old_index.ok());
  // Write 9 over element (3,3), which is in inner chunk 3 only.
  const std::vector<std::uint16_t> value = {9};
  const core::Shape one = {1, 1};
  const core::Coord zero = {0, 0};
  const ShardWriteSource write{{value.data(), one, zero}, core::Region({3, 3}, {4, 4})};
  const auto merged = sharding->EncodeMerged(spec, write, *old_index, ReaderOf(*old), "k");
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  ASSERT_TRUE(merged->has_value());
  const Bytes shard = (*merged)->Join();
  const Result<ShardIndex> index = sharding->ReadIndex(ReaderOf(shard), shard.size(), 4, "k");
  ASSERT_TRUE(index.ok());
  for (std::size_t k = 0; k < 3; ++k) {
    const ChunkLocation a = old_index->at(k);
    const ChunkLocation b = index->at(k);
    ASSERT_EQ(a.nbytes, b.nbytes);
    EXPECT_TRUE(std::equal(old->begin() + a.offset, old->begin() + a.offset + a.nbytes,
                           shard.begin() + b.offset))
        << k;
  }
  Bytes expected = data;
  StoreLittleEndian<std::uint16_t>(9, expected.data() + 2 * 15);
  const Result<Bytes> decoded = sharding->Decode(spec, shard);
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(*decoded, expected);
}

TEST(ShardingCodec, ShardOfManyChunksRoundTrips) {
  // 16384 one-element chunks, each bounded at 64 KiB by gzip: more than the
  // slots of one buffer may take, so every chunk gets a buffer of its own.
  const auto sharding = Make(Configuration(
      {1, 1}, json::array({kBytesLittle, {{"name", "gzip"}, {"configuration", {{"level", 1}}}}})));
  ASSERT_NE(sharding, nullptr);
  const ChunkSpec spec = U16Spec({128, 128});
  const Bytes data = Counting(128 * 128);
  const Result<Bytes> encoded = sharding->Encode(spec, data);
  ASSERT_TRUE(encoded.ok()) << encoded.status().ToString();
  const Result<Bytes> decoded = sharding->Decode(spec, *encoded);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(*decoded, data);
}

TEST(ShardingCodec, EncodeMergedOfOnlyFillReturnsNothing) {
  const auto sharding = Make(Configuration({2, 2}, json::array({kBytesLittle})));
  ASSERT_NE(sharding, nullptr);
  const ChunkSpec spec = U16Spec({4, 4});
  const std::vector<std::uint16_t> zeros(4, 0);
  const core::Shape two = {2, 2};
  const core::Coord zero = {0, 0};
  const ShardWriteSource write{{zeros.data(), two, zero}, core::Region({1, 1}, {3, 3})};
  const auto merged = sharding->EncodeMerged(spec, write, std::nullopt, {}, "k");
  ASSERT_TRUE(merged.ok());
  EXPECT_FALSE(merged->has_value());
}

TEST(ShardingCodec, ToJsonRoundTrip) {
  const json configuration =
      Configuration({2, 3, 1},
                    json::array({{{"name", "transpose"}, {"configuration", {{"order", {2, 0, 1}}}}},
                                 kBytesLittle,
                                 {{"name", "blosc"},
                                  {"configuration",
                                   {{"cname", "lz4"},
                                    {"clevel", 5},
                                    {"shuffle", "shuffle"},
                                    {"typesize", 4},
                                    {"blocksize", 0}}}}}),
                    "start");
  const auto sharding = Make(configuration);
  ASSERT_NE(sharding, nullptr);
  const json written = sharding->ToJson();
  EXPECT_EQ(written["name"], "sharding_indexed");
  EXPECT_EQ(written["configuration"]["chunk_shape"], json({2, 3, 1}));
  EXPECT_EQ(written["configuration"]["index_location"], "start");
  EXPECT_EQ(written["configuration"]["index_codecs"], kStandardIndex);
  ASSERT_EQ(written["configuration"]["codecs"].size(), 3u);
  EXPECT_EQ(written["configuration"]["codecs"][2]["name"], "blosc");
  const auto again = Make(written["configuration"]);
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again->ToJson(), written);
  EXPECT_EQ(again->index_location(), IndexLocation::kStart);
}

}  // namespace
}  // namespace chunkwise::formats::zarr
