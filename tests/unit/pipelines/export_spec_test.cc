#include "pipelines/export_spec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/file_io.h"
#include "core/murmurhash3.h"

namespace chunkwise::pipelines {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

json Scale(std::array<std::int64_t, 3> size, int preshift, int minishard, int shard,
           const std::string& hash = "identity") {
  return {{"key", "s0"},
          {"size", size},
          {"resolution", {8, 8, 8}},
          {"chunk_sizes", {{64, 64, 64}}},
          {"encoding", "compressed_segmentation"},
          {"sharding",
           {{"@type", "neuroglancer_uint64_sharded_v1"},
            {"preshift_bits", preshift},
            {"hash", hash},
            {"minishard_bits", minishard},
            {"shard_bits", shard},
            {"minishard_index_encoding", "gzip"},
            {"data_encoding", "gzip"}}}};
}

json Info(std::vector<json> scales) {
  return {{"@type", "neuroglancer_multiscale_volume"},
          {"type", "segmentation"},
          {"data_type", "uint64"},
          {"num_channels", 1},
          {"scales", scales}};
}

ExportSpec Parse(const json& info) {
  Result<ExportSpec> spec = ParseExportSpec(info.dump(), "spec.json");
  EXPECT_TRUE(spec.ok()) << spec.status().ToString();
  return spec.ok() ? *spec : ExportSpec{};
}

// The mCNS s0 vectors of docs/formats/precomputed.md, "Sharding".
TEST(ExportSpec, McnsScaleZeroShards) {
  const ExportSpec spec = Parse(Info({Scale({94088, 78317, 134576}, 9, 6, 19)}));
  ASSERT_EQ(spec.scales.size(), 1u);
  const ExportScaleSpec& s0 = spec.scales[0];
  EXPECT_EQ(s0.bits.grid, (core::GridCoord3{1471, 1224, 2103}));
  EXPECT_TRUE(s0.shards_are_boxes);
  EXPECT_EQ(s0.shard_chunks, (core::GridCoord3{32, 32, 32}));
  EXPECT_EQ(s0.ShardOf({32, 0, 0}), 1u);
  EXPECT_EQ(s0.ShardStem({32, 0, 0}), "2048_0_0");
  EXPECT_EQ(s0.ShardOf({1470, 1223, 2102}), 361173u);
  EXPECT_EQ(s0.ShardStem({1470, 1223, 2102}), "92160_77824_133120");
  EXPECT_EQ(s0.ShardZEnd({1470, 1223, 2102}), 2112);
  EXPECT_EQ(s0.ShardZEnd({0, 0, 31}), 32);
}

// DVID's own spec for the male CNS (../shared/testdata/dvid/mcns-ng-specs.json): a
// neuroglancer multiscale info from CI's shared test data (CHUNKWISE_SHARED_DIR).
TEST(ExportSpec, ParsesDvidMcnsSpecs) {
  const Result<Bytes> text =
      core::ReadFile(std::string(CHUNKWISE_SHARED_DIR) + "/testdata/dvid/mcns-ng-specs.json");
  if (!text.ok()) GTEST_SKIP() << text.status().ToString();
  const Result<ExportSpec> spec = ParseExportSpec(
      std::string_view(reinterpret_cast<const char*>(text->data()), text->size()), "mcns");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  ASSERT_GE(spec->scales.size(), 2u);
  EXPECT_EQ(spec->scales[0].key, "8x8x8");
  EXPECT_EQ(spec->scales[0].shard_chunks, (core::GridCoord3{32, 32, 32}));
  EXPECT_EQ(spec->scales[1].bits.grid, (core::GridCoord3{736, 612, 1052}));
  EXPECT_TRUE(spec->scales[1].shards_are_boxes);
  EXPECT_EQ(spec->scales[1].ShardStem({480, 0, 0}), "30720_0_0");
}

TEST(ExportSpec, NonCubicShardExtent) {
  const ExportSpec spec = Parse(Info({Scale({94088, 78317, 134576}, 9, 7, 18)}));
  EXPECT_EQ(spec.scales[0].shard_chunks, (core::GridCoord3{64, 32, 32}));
  EXPECT_EQ(spec.scales[0].ShardStem({100, 40, 70}), "4096_2048_4096");
}

// Every chunk of a small grid lands in the shard its box name says, and the
// boxes partition the grid.
TEST(ExportSpec, BoxShardsPartitionTheGrid) {
  const ExportSpec spec = Parse(Info({Scale({64 * 9, 64 * 5, 64 * 3}, 1, 2, 10)}));
  const ExportScaleSpec& s = spec.scales[0];
  ASSERT_TRUE(s.shards_are_boxes);
  std::map<std::uint64_t, std::set<std::string>> stems;
  for (core::Index z = 0; z < 3; ++z) {
    for (core::Index y = 0; y < 5; ++y) {
      for (core::Index x = 0; x < 9; ++x)
        stems[s.ShardOf({x, y, z})].insert(s.ShardStem({x, y, z}));
    }
  }
  std::set<std::string> all;
  for (const auto& [shard, names] : stems) {
    EXPECT_EQ(names.size(), 1u) << "shard " << shard;
    all.insert(names.begin(), names.end());
  }
  EXPECT_EQ(all.size(), stems.size());
}

TEST(ExportSpec, MurmurHashShardsAreNamedInHex) {
  const ExportSpec spec =
      Parse(Info({Scale({64 * 16, 64 * 16, 64 * 16}, 0, 2, 6, "murmurhash3_x86_128")}));
  const ExportScaleSpec& s = spec.scales[0];
  EXPECT_FALSE(s.shards_are_boxes);
  const std::uint64_t morton = core::CompressedMortonCode({3, 5, 7}, s.bits);
  const std::uint64_t expected = (core::MurmurHash3X86_128Uint64(morton) >> 2) & 63;
  EXPECT_EQ(s.ShardOf({3, 5, 7}), expected);
  char hex[8];
  std::snprintf(hex, sizeof(hex), "%02llx", static_cast<unsigned long long>(expected));
  EXPECT_EQ(s.ShardStem({3, 5, 7}), hex);
  EXPECT_EQ(s.ShardZEnd({3, 5, 7}), std::numeric_limits<std::int64_t>::max());
}

TEST(ExportSpec, IdentityPastTheBitBoundIsNotABox) {
  // 12 Morton bits but preshift + minishard + shard = 6: shards wrap, so hex names.
  const ExportSpec spec = Parse(Info({Scale({64 * 16, 64 * 16, 64 * 16}, 2, 2, 2)}));
  EXPECT_FALSE(spec.scales[0].shards_are_boxes);
  EXPECT_EQ(spec.scales[0].ShardStem({15, 15, 15}), "3");
}

TEST(ExportSpec, RefusesOtherChunkSizes) {
  json info = Info({Scale({1000, 1000, 1000}, 9, 6, 19)});
  info["scales"][0]["chunk_sizes"] = {{32, 32, 32}};
  const Result<ExportSpec> spec = ParseExportSpec(info.dump(), "spec.json");
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(spec.status().message()),
              HasSubstr("spec.json: scales[0].chunk_sizes: [32,32,32] is not supported"));
}

TEST(ExportSpec, RefusesUnsupportedHash) {
  const Result<ExportSpec> spec =
      ParseExportSpec(Info({Scale({1000, 1000, 1000}, 9, 6, 19, "sha1")}).dump(), "spec.json");
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().code(), StatusCode::kUnsupported);
  EXPECT_THAT(std::string(spec.status().message()),
              HasSubstr("scales[0].sharding.hash: \"sha1\" is not supported"));
}

TEST(ExportSpec, RefusesBadFields) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"not json", "spec.json: not valid JSON"},
      {"[1, 2]", "not a JSON object"},
      {R"({"scales": []})", "scales: missing or empty"},
      {R"({"data_type": "uint32", "scales": [{}]})", "data_type"},
      {R"({"scales": [{"size": [1, 2]}]})", "scales[0].size: must be an array of three integers"},
      {R"({"scales": [{"size": [0, 2, 3], "chunk_sizes": [[64,64,64]]}]})", "scales[0].size"},
      {R"({"scales": [{"size": [1, 2, 3], "chunk_sizes": [[64,64,64]]}]})",
       "scales[0].sharding: missing"},
  };
  for (const auto& [text, message] : cases) {
    const Result<ExportSpec> spec = ParseExportSpec(text, "spec.json");
    ASSERT_FALSE(spec.ok()) << text;
    EXPECT_THAT(std::string(spec.status().message()), HasSubstr(message)) << text;
  }
  json info = Info({Scale({1000, 1000, 1000}, 30, 30, 30)});
  EXPECT_THAT(std::string(ParseExportSpec(info.dump(), "x").status().message()),
              HasSubstr("must not pass 64"));
  info = Info({Scale({1000, 1000, 1000}, 9, 6, 19)});
  info["scales"][0]["sharding"]["@type"] = "neuroglancer_uint64_sharded_v2";
  EXPECT_EQ(ParseExportSpec(info.dump(), "x").status().code(), StatusCode::kUnsupported);
  info["scales"][0]["sharding"]["@type"] = "neuroglancer_uint64_sharded_v1";
  info["scales"][0]["voxel_offset"] = {1, 0, 0};
  EXPECT_THAT(std::string(ParseExportSpec(info.dump(), "x").status().message()),
              HasSubstr("voxel_offset"));
}

TEST(ExportSpec, InfoForScalesCutsScales) {
  const ExportSpec spec =
      Parse(Info({Scale({1000, 1000, 1000}, 9, 6, 19), Scale({500, 500, 500}, 9, 6, 19)}));
  Result<std::string> info = InfoForScales(spec, 1);
  ASSERT_TRUE(info.ok());
  const json parsed = json::parse(*info);
  EXPECT_EQ(parsed["scales"].size(), 1u);
  EXPECT_EQ(parsed["type"], "segmentation");
  EXPECT_TRUE(ParseExportSpec(*info, "info").ok());
}

// A FlyEM-sized volume (about 34k x 40k x 41k voxels: 10 Morton bits per
// axis) gets 9 preshift, 6 minishard and 15 shard bits at scale 0: shards of
// 32³ chunks; each halving takes 3 bits from the shard bits first.
TEST(ExportSpecForVolume, ShardsAreBoxesOfAtMost32CubedChunks) {
  Result<ExportSpec> spec = ExportSpecForVolume({34427, 39725, 41394}, 8, {8, 8, 8});
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  ASSERT_EQ(spec->scales.size(), 8u);
  const ExportScaleSpec& s0 = spec->scales[0];
  EXPECT_EQ(s0.sharding.preshift_bits, 9);
  EXPECT_EQ(s0.sharding.minishard_bits, 6);
  EXPECT_EQ(s0.sharding.shard_bits, 15);
  EXPECT_TRUE(s0.shards_are_boxes);
  EXPECT_EQ(s0.shard_chunks, (core::GridCoord3{32, 32, 32}));
  EXPECT_EQ(spec->scales[1].size, (core::GridCoord3{17214, 19863, 20697}));
  EXPECT_EQ(spec->scales[1].sharding.shard_bits, 12);
  // Scale 5: 1076 x 1242 x 1294 voxels, 17 x 20 x 21 chunks: 15 bits, one shard.
  EXPECT_EQ(spec->scales[5].sharding.preshift_bits, 9);
  EXPECT_EQ(spec->scales[5].sharding.minishard_bits, 6);
  EXPECT_EQ(spec->scales[5].sharding.shard_bits, 0);
  // Scale 7: 269 x 311 x 324 voxels, 5 x 5 x 6 chunks: 9 bits, all preshift.
  EXPECT_EQ(spec->scales[7].sharding.preshift_bits, 9);
  EXPECT_EQ(spec->scales[7].sharding.minishard_bits, 0);
  EXPECT_EQ(spec->scales[7].sharding.shard_bits, 0);
  const json info = json::parse(spec->info_json);
  EXPECT_EQ(info["scales"][2]["resolution"], json({32.0, 32.0, 32.0}));
  EXPECT_EQ(info["scales"][2]["key"], "s2");
  EXPECT_EQ(info["type"], "segmentation");
}

TEST(ExportSpecForVolume, ASmallVolumeIsOneShardOfPreshiftBitsOnly) {
  Result<ExportSpec> spec = ExportSpecForVolume({100, 100, 1}, 1, {4, 4, 40});
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->scales[0].sharding.preshift_bits, 2);  // 2 x 2 x 1 chunks.
  EXPECT_EQ(spec->scales[0].sharding.minishard_bits, 0);
  EXPECT_EQ(spec->scales[0].sharding.shard_bits, 0);
  EXPECT_EQ(json::parse(spec->info_json)["scales"][0]["resolution"], json({4.0, 4.0, 40.0}));
}

TEST(ExportSpecForVolume, SizesAndScaleCountsOutOfRangeAreInvalid) {
  const Status empty = ExportSpecForVolume({0, 10, 10}, 1, {8, 8, 8}).status();
  EXPECT_EQ(empty.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(empty.message()), HasSubstr("a volume size of 0 voxels"));
  const Status huge = ExportSpecForVolume({std::int64_t{1} << 28, 10, 10}, 1, {8, 8, 8}).status();
  EXPECT_EQ(huge.code(), StatusCode::kInvalidArgument);
  const Status scales = ExportSpecForVolume({10, 10, 10}, 0, {8, 8, 8}).status();
  EXPECT_EQ(scales.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(scales.message()), HasSubstr("0 scales"));
}

}  // namespace
}  // namespace chunkwise::pipelines
