// Precomputed volumes through chunkwise.h alone: a zarr array converted,
// opened, described by the facade's own info types and read back.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "api_test_support.h"
#include "chunkwise/chunkwise.h"

namespace chunkwise {
namespace {

using ::testing::HasSubstr;

constexpr std::int64_t kZ = 10, kY = 20, kX = 36;

std::vector<std::uint32_t> Labels() {
  std::vector<std::uint32_t> v(kZ * kY * kX);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::uint32_t>(i % 7);
  return v;
}

std::string MakeZarr(const Context& context, const std::filesystem::path& root) {
  const std::string url = (root / "labels.zarr").string();
  ZarrArraySpec spec{
      .shape = {kZ, kY, kX}, .data_type = *ParseDataType("uint32"), .chunks = {8, 16, 16}};
  auto array = CreateZarrArray(context, url, spec);
  EXPECT_TRUE(array.ok()) << array.status().ToString();
  const std::vector<std::uint32_t> labels = Labels();
  Bytes bytes(labels.size() * 4);
  std::memcpy(bytes.data(), labels.data(), bytes.size());
  EXPECT_TRUE(WriteRegion(context, *array, core::Region({0, 0, 0}, {kZ, kY, kX}), bytes).ok());
  return url;
}

TEST(PrecomputedApi, AConvertedArrayOpensWithItsScalesAndReadsBack) {
  Context context;
  const auto root = api_test::FreshDirectory("precomputed_api");
  const std::string zarr = MakeZarr(context, root);
  const std::string volume_url = (root / "seg").string();
  ZarrToPrecomputedOptions convert;
  convert.chunk_size = {16, 16, 8};
  convert.resolution = {4, 4, 40};
  convert.num_scales = 2;
  auto summary = ZarrToPrecomputed(context, zarr, volume_url, convert);
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  EXPECT_EQ(summary->chunks_per_scale, (std::vector<std::uint64_t>{3 * 2 * 2, 2 * 1 * 1}));
  EXPECT_EQ(summary->bytes_read, static_cast<std::uint64_t>(kZ * kY * kX * 4));

  auto volume = OpenPrecomputed(context, volume_url);
  ASSERT_TRUE(volume.ok()) << volume.status().ToString();
  const PrecomputedVolumeInfo& info = (*volume)->info();
  EXPECT_EQ(info.type, PrecomputedVolumeType::kSegmentation);
  EXPECT_EQ(info.data_type.zarr_name(), "uint32");
  EXPECT_EQ(info.num_channels, 1);
  ASSERT_EQ((*volume)->num_scales(), 2);
  const PrecomputedScaleInfo& finest = (*volume)->scale(0);
  EXPECT_EQ(finest.size, (core::GridCoord3{kX, kY, kZ}));
  EXPECT_EQ(finest.chunk_size, (core::GridCoord3{16, 16, 8}));
  EXPECT_EQ(finest.grid(), (core::GridCoord3{3, 2, 2}));
  EXPECT_EQ(finest.resolution, (std::array<double, 3>{4, 4, 40}));
  EXPECT_EQ(finest.encoding, PrecomputedChunkEncoding::kCompressedSegmentation);
  EXPECT_FALSE(finest.sharding.has_value());
  EXPECT_EQ((*volume)->scale(1).size, (core::GridCoord3{18, 10, 5}));
  EXPECT_EQ(ChunkEncodingName(finest.encoding), "compressed_segmentation");
  EXPECT_EQ(VolumeTypeName(info.type), "segmentation");
  // The info as the facade gives it is the info as stored.
  const nlohmann::json json = VolumeInfoToJson(info);
  EXPECT_EQ(json["@type"], "neuroglancer_multiscale_volume");
  EXPECT_EQ(json["scales"].size(), 2u);

  auto storage = DescribePrecomputedStorage(**volume);
  ASSERT_TRUE(storage.ok()) << storage.status().ToString();
  ASSERT_EQ(storage->size(), 2u);
  EXPECT_EQ((*storage)[0].key, finest.key);
  EXPECT_EQ((*storage)[0].objects, 12u);
  EXPECT_GT((*storage)[0].bytes, 0u);

  const core::Region box({1, 2, 3}, {5, 7, 9});  // start, stop
  auto bytes = ReadPrecomputedRegion(context, **volume, 0, box);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  ASSERT_EQ(bytes->size(), 4u * 5 * 6 * 4);
  const std::vector<std::uint32_t> labels = Labels();
  std::vector<std::uint32_t> read(4 * 5 * 6);
  std::memcpy(read.data(), bytes->data(), bytes->size());
  for (std::int64_t z = 0; z < 4; ++z)
    for (std::int64_t y = 0; y < 5; ++y)
      for (std::int64_t x = 0; x < 6; ++x) {
        ASSERT_EQ(read[(z * 5 + y) * 6 + x], labels[((z + 1) * kY + (y + 2)) * kX + (x + 3)]);
      }

  auto missing = ReadPrecomputedRegion(context, **volume, 2, box);
  ASSERT_EQ(missing.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(missing.status().message(), HasSubstr("no scale 2 (scales 0..1)"));
}

TEST(PrecomputedApi, ShardingSpecsAndNamesAreTheFacadesOwn) {
  auto spec = ParsePrecomputedSharding(
      R"({"@type": "neuroglancer_uint64_sharded_v1", "preshift_bits": 3, "hash": "murmurhash3_x86_128",
          "minishard_bits": 2, "shard_bits": 4, "minishard_index_encoding": "gzip",
          "data_encoding": "raw"})",
      "--sharding");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(*spec,
            (PrecomputedShardingSpec{.preshift_bits = 3,
                                     .minishard_bits = 2,
                                     .shard_bits = 4,
                                     .hash = PrecomputedShardHash::kMurmurHash3X86_128,
                                     .minishard_index_encoding = PrecomputedShardEncoding::kGzip,
                                     .data_encoding = PrecomputedShardEncoding::kRaw}));
  auto bad = ParsePrecomputedSharding("{", "--sharding");
  ASSERT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("--sharding is not JSON"));

  EXPECT_EQ(*ParsePrecomputedVolumeType("image"), PrecomputedVolumeType::kImage);
  EXPECT_EQ(*ParsePrecomputedChunkEncoding("raw"), PrecomputedChunkEncoding::kRaw);
  EXPECT_EQ(ParsePrecomputedVolumeType("labels").status().code(), StatusCode::kInvalidArgument);
}

TEST(PrecomputedApi, ASummaryCrossesAsJsonAndBack) {
  ExportToPrecomputedSummary summary;
  summary.seconds = 1.5;
  summary.scales.push_back({.key = "8.0x8.0x8.0",
                            .arrow_shards = 2,
                            .shards_written = 2,
                            .shards_kept = 0,
                            .blocks = 17,
                            .input_bytes = 1000,
                            .output_bytes = 800,
                            .seconds = 1.25,
                            .sources = {{3, "s0/0_0_0.arrow"}, {5, "s0/1_0_0.arrow"}}});
  auto back = ExportToPrecomputedSummary::FromJson(summary.ToJson());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->scales.size(), 1u);
  EXPECT_EQ(back->scales[0].key, "8.0x8.0x8.0");
  EXPECT_EQ(back->scales[0].blocks, 17u);
  EXPECT_EQ(back->scales[0].output_bytes, 800u);
  EXPECT_EQ(back->scales[0].sources, summary.scales[0].sources);
  EXPECT_EQ(back->ToJson(), summary.ToJson());
  EXPECT_THAT(summary.Format(), HasSubstr("8.0x8.0x8.0"));
  EXPECT_EQ(ExportToPrecomputedSummary::FromJson("[]").status().code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace chunkwise
