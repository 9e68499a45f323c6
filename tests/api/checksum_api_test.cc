// Checksums by default (#44): the zarr v3 arrays the facade makes end their
// (inner) chunk chain with crc32c unless the spec opts out, so a bit flipped
// in a stored chunk is Corruption naming its key; zarr v2 arrays, codec
// documents and a convert that keeps the source's codecs are left as given.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api_test_support.h"
#include "chunkwise/chunkwise.h"

namespace chunkwise {
namespace {

using api_test::Message;
using api_test::Ramp16;
using ::testing::HasSubstr;

ZarrArraySpec Spec16(std::optional<core::Shape> shards = std::nullopt) {
  ZarrArraySpec spec;
  spec.shape = {8, 12};
  spec.data_type = *ParseDataType("uint16");
  spec.chunks = {4, 6};
  spec.shards = std::move(shards);
  return spec;
}

// The names of the array's (inner) chunk codecs.
std::vector<std::string> ChunkCodecNames(const ZarrArray& array) {
  nlohmann::json codecs = array.metadata().codecs;
  if (!codecs.empty() && codecs[0]["name"] == "sharding_indexed") {
    codecs = codecs[0]["configuration"]["codecs"];
  }
  std::vector<std::string> names;
  for (const nlohmann::json& codec : codecs) names.push_back(codec["name"].get<std::string>());
  return names;
}

TEST(ChecksumApi, ParsesItsWords) {
  EXPECT_EQ(*ParseChunkChecksum("default"), std::nullopt);
  EXPECT_EQ(*ParseChunkChecksum(""), std::nullopt);
  EXPECT_EQ(*ParseChunkChecksum("none"), ChunkChecksum::kNone);
  EXPECT_EQ(*ParseChunkChecksum("crc32c"), ChunkChecksum::kCrc32c);
  EXPECT_EQ(*ParseChunkChecksum("zstd"), ChunkChecksum::kZstd);
  const Status bad = ParseChunkChecksum("md5").status();
  EXPECT_EQ(bad.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.field(), "checksum");
  EXPECT_THAT(Message(bad), HasSubstr("accepted: default, none, crc32c, zstd"));
}

TEST(ChecksumApi, NewV3ArraysEndTheirChunksWithCrc32cUnlessTheSpecOptsOut) {
  Context context;
  auto plain = CreateZarrArray(context, "memory://plain", Spec16());
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_EQ(ChunkCodecNames(*plain), (std::vector<std::string>{"bytes", "zstd", "crc32c"}));
  auto sharded = CreateZarrArray(context, "memory://sharded", Spec16(core::Shape{8, 12}));
  ASSERT_TRUE(sharded.ok()) << sharded.status().ToString();
  EXPECT_EQ(ChunkCodecNames(*sharded), (std::vector<std::string>{"bytes", "zstd", "crc32c"}));

  ZarrArraySpec none = Spec16();
  none.checksum = ChunkChecksum::kNone;
  auto unchecked = CreateZarrArray(context, "memory://none", none);
  ASSERT_TRUE(unchecked.ok()) << unchecked.status().ToString();
  EXPECT_EQ(ChunkCodecNames(*unchecked), (std::vector<std::string>{"bytes", "zstd"}));

  ZarrArraySpec zstd = Spec16();
  zstd.checksum = ChunkChecksum::kZstd;
  auto framed = CreateZarrArray(context, "memory://zstd", zstd);
  ASSERT_TRUE(framed.ok()) << framed.status().ToString();
  EXPECT_EQ(ChunkCodecNames(*framed), (std::vector<std::string>{"bytes", "zstd"}));
  EXPECT_EQ(framed->metadata().codecs[1]["configuration"]["checksum"], true);
}

TEST(ChecksumApi, V2ArraysAndCodecDocumentsAreLeftAsGiven) {
  Context context;
  ZarrArraySpec v2 = Spec16();
  v2.zarr_format = 2;
  auto made = CreateZarrArray(context, "memory://v2", v2);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  EXPECT_EQ(ChunkCodecNames(*made), (std::vector<std::string>{"bytes", "zstd"}));
  v2.checksum = ChunkChecksum::kCrc32c;  // Asked for where v2 has no such codec.
  const Status refused = CreateZarrArray(context, "memory://v2-crc", v2).status();
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument) << refused.ToString();
  EXPECT_THAT(Message(refused), HasSubstr("crc32c"));

  ZarrArraySpec documents = Spec16();
  documents.codec_documents = nlohmann::json::parse(R"([{"name": "gzip",
                                                        "configuration": {"level": 1}}])");
  auto given = CreateZarrArray(context, "memory://documents", documents);
  ASSERT_TRUE(given.ok()) << given.status().ToString();
  EXPECT_EQ(ChunkCodecNames(*given), (std::vector<std::string>{"bytes", "gzip"}));
  documents.checksum = ChunkChecksum::kCrc32c;
  const Status beside = CreateZarrArray(context, "memory://documents-crc", documents).status();
  EXPECT_EQ(beside.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(beside.field(), "checksum");
}

// A bit flipped in a stored chunk was read as data before #44 (zstd frames
// carry no checksum unless asked); the default crc32c refuses it.
TEST(ChecksumApi, AFlippedBitInAStoredChunkIsCorruptionNamingTheKey) {
  for (const bool sharded : {false, true}) {
    SCOPED_TRACE(sharded ? "sharded" : "unsharded");
    Context context;
    const std::string url = sharded ? "memory://flip-sharded" : "memory://flip";
    auto array = CreateZarrArray(
        context, url, Spec16(sharded ? std::optional(core::Shape{8, 12}) : std::nullopt));
    ASSERT_TRUE(array.ok()) << array.status().ToString();
    const core::Region all = core::Region::Full(array->metadata().shape);
    ASSERT_TRUE(WriteRegion(context, *array, all, Ramp16(96, 0)).ok());
    auto store = OpenStore(context, url);
    ASSERT_TRUE(store.ok());
    auto stored = (*store)->Get("c/0/0");
    ASSERT_TRUE(stored.ok() && stored->has_value());
    Bytes damaged = **stored;
    damaged[3] ^= 1;  // Inside the first (inner) chunk's compressed bytes.
    ASSERT_TRUE((*store)->Set("c/0/0", damaged).ok());

    auto opened = OpenZarrArray(context, url);
    ASSERT_TRUE(opened.ok());
    const Status read = ReadRegion(context, *opened, all).status();
    EXPECT_EQ(read.code(), StatusCode::kCorruption) << read.ToString();
    EXPECT_THAT(Message(read), HasSubstr("c/0/0"));
    EXPECT_THAT(Message(read), HasSubstr("crc32c"));
  }
}

TEST(ChecksumApi, ConvertAddsItToTheCodecsGivenAndKeepsTheSourcesOtherwise) {
  Context context;
  ZarrArraySpec source = Spec16();
  source.checksum = ChunkChecksum::kNone;
  auto made = CreateZarrArray(context, "memory://source", source);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  ASSERT_TRUE(WriteRegion(context, *made, core::Region::Full(source.shape), Ramp16(96, 0)).ok());

  auto recoded =
      ConvertZarrArray(context, "memory://source", "memory://recoded", {.codecs = "gzip:1"});
  ASSERT_TRUE(recoded.ok()) << recoded.status().ToString();
  EXPECT_EQ(ChunkCodecNames(*recoded), (std::vector<std::string>{"bytes", "gzip", "crc32c"}));
  auto kept = ConvertZarrArray(context, "memory://source", "memory://kept", {});
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  EXPECT_EQ(ChunkCodecNames(*kept), (std::vector<std::string>{"bytes", "zstd"}));
  const Status refused = ConvertZarrArray(context, "memory://source", "memory://refused", {},
                                          {.checksum = ChunkChecksum::kCrc32c})
                             .status();
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(refused.field(), "checksum");

  // A default array copied to zarr v2 leaves its crc32c out: v2 has no such codec.
  auto v2 = ConvertZarrArray(context, "memory://recoded", "memory://v2", {.zarr_format = 2});
  ASSERT_TRUE(v2.ok()) << v2.status().ToString();
  EXPECT_EQ(ChunkCodecNames(*v2), (std::vector<std::string>{"bytes", "gzip"}));
  auto back = ReadRegion(context, *v2, core::Region::Full(source.shape));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, Ramp16(96, 0));
}

TEST(ChecksumApi, TheStreamsDefaultIsNone) {
  EXPECT_EQ(*StreamCodecsWithChecksum("zstd:1", std::nullopt), "zstd:1");
  EXPECT_EQ(*StreamCodecsWithChecksum("zstd:1", ChunkChecksum::kCrc32c), "zstd:1+crc32c");
  EXPECT_EQ(*StreamCodecsWithChecksum("none", ChunkChecksum::kCrc32c), "crc32c");
  EXPECT_EQ(StreamCodecsWithChecksum("gzip:1", ChunkChecksum::kZstd).status().field(), "checksum");
}

}  // namespace
}  // namespace chunkwise
