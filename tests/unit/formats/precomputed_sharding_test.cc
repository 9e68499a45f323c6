#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "codec/gzip_codec.h"
#include "formats/precomputed/shard_prefixes.h"
#include "formats/precomputed/sharding.h"

namespace chunkwise::formats::precomputed {
namespace {

using ::testing::HasSubstr;

ShardingSpec Spec(int preshift, int minishard, int shard, ShardHash hash = ShardHash::kIdentity,
                  ShardEncoding index = ShardEncoding::kRaw) {
  ShardingSpec spec;
  spec.preshift_bits = preshift;
  spec.minishard_bits = minishard;
  spec.shard_bits = shard;
  spec.hash = hash;
  spec.minishard_index_encoding = index;
  return spec;
}

Bytes Join(const ShardImage& image) {
  Bytes out;
  for (ByteView part : image.parts) AppendBytes(out, part);
  return out;
}

TEST(ShardingSpec, ParsesAndWritesBack) {
  const nlohmann::json json = {{"@type", "neuroglancer_uint64_sharded_v1"},
                               {"preshift_bits", 9},
                               {"hash", "murmurhash3_x86_128"},
                               {"minishard_bits", 6},
                               {"shard_bits", 19},
                               {"minishard_index_encoding", "gzip"}};
  Result<ShardingSpec> spec = ParseShardingSpec(json, "info");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(*spec, Spec(9, 6, 19, ShardHash::kMurmurHash3X86_128, ShardEncoding::kGzip));
  EXPECT_EQ(spec->data_encoding, ShardEncoding::kRaw);
  EXPECT_EQ(*ParseShardingSpec(ShardingSpecToJson(*spec), "again"), *spec);
}

TEST(ShardingSpec, RefusesBadFields) {
  nlohmann::json json = {{"@type", "neuroglancer_uint64_sharded_v1"},
                         {"preshift_bits", 9},
                         {"hash", "identity"},
                         {"minishard_bits", 40},
                         {"shard_bits", 19}};
  Result<ShardingSpec> spec = ParseShardingSpec(json, "vol/info");
  EXPECT_EQ(spec.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(spec.status().message(), HasSubstr("vol/info"));
  json["minishard_bits"] = 6;
  json["hash"] = "sha1";
  EXPECT_EQ(ParseShardingSpec(json, "x").status().code(), StatusCode::kUnsupported);
  json["hash"] = "identity";
  json["data_encoding"] = "zstd";
  EXPECT_EQ(ParseShardingSpec(json, "x").status().code(), StatusCode::kUnsupported);
  json.erase("data_encoding");
  json.erase("shard_bits");
  EXPECT_THAT(ParseShardingSpec(json, "x").status().message(), HasSubstr("shard_bits"));
}

TEST(ShardingSpec, LocatesChunks) {
  // Identity: chunk 0b1011'0110 >> 2 = 0b10'1101; minishard = low 3 bits, shard = next 2.
  EXPECT_EQ(LocateChunk(Spec(2, 3, 2), 0b10110110), (ChunkShard{0b01, 0b101}));
  // murmurhash3_x86_128 of 0 (seed 0) has low 64 bits 0x...; only check
  // that hashing happens and both fields come from the hash.
  const ShardingSpec hashed = Spec(0, 4, 4, ShardHash::kMurmurHash3X86_128);
  const std::uint64_t h = HashedChunkId(hashed, 5);
  EXPECT_NE(h, 5u);
  EXPECT_EQ(LocateChunk(hashed, 5), (ChunkShard{(h >> 4) & 15, h & 15}));
  EXPECT_EQ(HashedChunkId(Spec(64, 0, 0), 12345), 0u);
}

TEST(ShardingSpec, NamesShardFiles) {
  EXPECT_EQ(ShardFileName(Spec(0, 0, 0), 0), "0.shard");
  EXPECT_EQ(ShardFileName(Spec(0, 0, 12), 0xa3), "0a3.shard");
  EXPECT_EQ(ShardFileName(Spec(0, 0, 19), 0x1234), "01234.shard");
  EXPECT_EQ(ShardFileName(Spec(0, 0, 1), 1), "1.shard");
}

TEST(BuildShard, HasTheDocumentedLayout) {
  // One minishard bit: ids 4 and 6 in minishard 0, id 3 in minishard 1.
  const ShardingSpec spec = Spec(0, 1, 0);
  const Bytes a{1, 2, 3}, b{4}, c{5, 6};
  Result<ShardImage> image = BuildShard({{6, b}, {3, c}, {4, a}}, spec);
  ASSERT_TRUE(image.ok()) << image.status().ToString();
  const Bytes shard = Join(*image);
  ASSERT_EQ(shard.size(), image->size);
  const auto u64 = [&](std::size_t at) { return LoadLittleEndian<std::uint64_t>(&shard[at]); };
  // Index (32 bytes), then a(3) b(1), minishard 0's index (48), c(2), minishard 1's (24).
  EXPECT_EQ(u64(0), 4u);
  EXPECT_EQ(u64(8), 52u);
  EXPECT_EQ(u64(16), 54u);
  EXPECT_EQ(u64(24), 78u);
  // Minishard 0: ids 4, +2; offsets 0, +0 (delta from the end of the prior chunk); sizes 3, 1.
  const std::vector<std::uint64_t> m0{4, 2, 0, 0, 3, 1};
  for (std::size_t i = 0; i < m0.size(); ++i) EXPECT_EQ(u64(32 + 4 + 8 * i), m0[i]) << i;
  // Minishard 1 after the 48-byte index: id 3, offset 52 (after index end), size 2.
  EXPECT_EQ(u64(32 + 54), 3u);
  EXPECT_EQ(u64(32 + 54 + 8), 52u);
  EXPECT_EQ(u64(32 + 54 + 16), 2u);
}

TEST(BuildShard, ParsesBackWithEitherIndexEncoding) {
  for (const ShardEncoding encoding : {ShardEncoding::kRaw, ShardEncoding::kGzip}) {
    const ShardingSpec spec = Spec(1, 2, 3, ShardHash::kIdentity, encoding);
    std::vector<Bytes> data;
    std::vector<ShardChunk> chunks;
    // Ids whose shard (bits 3..5 after the preshift) is 2.
    for (std::uint64_t id = 0; id < 128; ++id) {
      if (LocateChunk(spec, id).shard != 2) continue;
      data.emplace_back(id % 7 + 1, static_cast<std::uint8_t>(id));
    }
    std::size_t k = 0;
    for (std::uint64_t id = 0; id < 128; ++id) {
      if (LocateChunk(spec, id).shard == 2) chunks.push_back({id, data[k++]});
    }
    Result<ShardImage> image = BuildShard(chunks, spec);
    ASSERT_TRUE(image.ok());
    const Bytes shard = Join(*image);
    Result<std::vector<MinishardSpan>> spans =
        ParseShardIndex(ByteView(shard).first(spec.shard_index_size()), spec, shard.size(), "s");
    ASSERT_TRUE(spans.ok()) << spans.status().ToString();
    std::size_t found = 0;
    for (std::uint64_t m = 0; m < spans->size(); ++m) {
      const MinishardSpan span = (*spans)[m];
      Result<std::vector<MinishardEntry>> entries = DecodeMinishardIndex(
          ByteView(shard).subspan(span.start, span.end - span.start), spec, shard.size(), m, "s");
      ASSERT_TRUE(entries.ok()) << entries.status().ToString();
      for (const MinishardEntry& e : *entries) {
        EXPECT_EQ(LocateChunk(spec, e.chunk_id), (ChunkShard{2, m}));
        EXPECT_EQ(e.size, e.chunk_id % 7 + 1);
        EXPECT_EQ(shard[e.offset], static_cast<std::uint8_t>(e.chunk_id));
        ++found;
      }
    }
    EXPECT_EQ(found, chunks.size());
  }
}

TEST(BuildShard, PrefixesLieJustBeforeTheirChunkOutsideItsRange) {
  // As HasTheDocumentedLayout, with two bytes before 4 and one before 3.
  const ShardingSpec spec = Spec(0, 1, 0);
  const Bytes a{1, 2, 3}, b{4}, c{5, 6}, before_a{7, 7}, before_c{8};
  Result<ShardImage> image =
      BuildShardWithPrefixes({{6, b}, {3, c}, {4, a}}, {{}, before_c, before_a}, spec);
  ASSERT_TRUE(image.ok()) << image.status().ToString();
  const Bytes shard = Join(*image);
  ASSERT_EQ(shard.size(), image->size);
  const auto u64 = [&](std::size_t at) { return LoadLittleEndian<std::uint64_t>(&shard[at]); };
  // Index (32), 7 7 a(3) b(1), minishard 0's index (48), 8 c(2), minishard 1's (24).
  EXPECT_EQ(u64(0), 6u);
  EXPECT_EQ(u64(8), 54u);
  // Minishard 0: ids 4, +2; offsets 2 (past the prefix), +0; sizes 3, 1.
  const std::vector<std::uint64_t> m0{4, 2, 2, 0, 3, 1};
  for (std::size_t i = 0; i < m0.size(); ++i) EXPECT_EQ(u64(32 + 6 + 8 * i), m0[i]) << i;
  EXPECT_EQ(shard[32], 7);
  EXPECT_EQ(shard[34], 1);
  // Minishard 1: id 3 at 55 (54 and the prefix byte 8), size 2.
  EXPECT_EQ(shard[32 + 54], 8);
  EXPECT_EQ(u64(32 + 57), 3u);
  EXPECT_EQ(u64(32 + 57 + 8), 55u);
  EXPECT_EQ(u64(32 + 57 + 16), 2u);
}

TEST(BuildShard, RefusesMixedShardsAndDuplicates) {
  const Bytes a{1};
  EXPECT_EQ(BuildShard({{0, a}, {1, a}}, Spec(0, 0, 1)).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildShard({{1, a}, {1, a}}, Spec(0, 0, 1)).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(ShardIndex, ReportsTruncationAndRangesPastTheEnd) {
  const ShardingSpec spec = Spec(0, 1, 0);
  Bytes index(32, 0);
  Result<std::vector<MinishardSpan>> spans =
      ParseShardIndex(ByteView(index).first(20), spec, 20, "vol/s0/0.shard");
  EXPECT_EQ(spans.status().code(), StatusCode::kCorruption);
  EXPECT_THAT(spans.status().message(), HasSubstr("vol/s0/0.shard"));
  EXPECT_THAT(spans.status().message(), HasSubstr("truncated"));
  StoreLittleEndian<std::uint64_t>(10, &index[16]);
  StoreLittleEndian<std::uint64_t>(500, &index[24]);
  spans = ParseShardIndex(index, spec, 100, "vol/s0/0.shard");
  EXPECT_EQ(spans.status().code(), StatusCode::kCorruption);
  EXPECT_THAT(spans.status().message(), HasSubstr("minishard 1"));
  EXPECT_THAT(spans.status().message(), HasSubstr("past the end of the 100-byte shard"));
}

TEST(MinishardIndex, ReportsChunksPastTheEndAndBadLengths) {
  const ShardingSpec spec = Spec(0, 0, 0);
  Bytes index(24);
  StoreLittleEndian<std::uint64_t>(7, &index[0]);
  StoreLittleEndian<std::uint64_t>(10, &index[8]);
  StoreLittleEndian<std::uint64_t>(90, &index[16]);
  Result<std::vector<MinishardEntry>> entries = ParseMinishardIndex(index, spec, 100, 0, "z.shard");
  EXPECT_EQ(entries.status().code(), StatusCode::kCorruption);
  EXPECT_THAT(entries.status().message(), HasSubstr("z.shard: minishard 0: chunk 7"));
  StoreLittleEndian<std::uint64_t>(20, &index[16]);
  entries = ParseMinishardIndex(index, spec, 100, 0, "z.shard");
  ASSERT_TRUE(entries.ok());
  EXPECT_EQ((*entries)[0], (MinishardEntry{7, 26, 20}));
  EXPECT_EQ(ParseMinishardIndex(ByteView(index).first(23), spec, 100, 0, "z").status().code(),
            StatusCode::kCorruption);
  const ShardingSpec gzipped = Spec(0, 0, 0, ShardHash::kIdentity, ShardEncoding::kGzip);
  EXPECT_EQ(DecodeMinishardIndex(index, gzipped, 100, 0, "z").status().code(),
            StatusCode::kCorruption);
}

TEST(MinishardIndex, EntryHashingToAnotherMinishardIsCorruption) {
  // Identity hash, no preshift, 1 minishard bit: chunk 7 lives in minishard 1.
  const ShardingSpec spec = Spec(0, 1, 0);
  Bytes index(24);
  StoreLittleEndian<std::uint64_t>(7, &index[0]);
  StoreLittleEndian<std::uint64_t>(20, &index[16]);
  ASSERT_TRUE(ParseMinishardIndex(index, spec, 100, 1, "z.shard").ok());
  Result<std::vector<MinishardEntry>> entries = ParseMinishardIndex(index, spec, 100, 0, "z.shard");
  EXPECT_EQ(entries.status().code(), StatusCode::kCorruption);
  EXPECT_THAT(entries.status().message(),
              HasSubstr("z.shard: minishard 0: chunk 7 belongs to minishard 1"));
}

}  // namespace
}  // namespace chunkwise::formats::precomputed
