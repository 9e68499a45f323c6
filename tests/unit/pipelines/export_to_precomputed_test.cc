#include "pipelines/export_to_precomputed.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "chunkwise/store/file_store.h"
#include "formats/dvid/ingest.h"
#include "formats/precomputed/volume.h"
#include "pipelines/export_shards.h"
#include "pipelines/exported_volume_reader.h"
#include "store/memory_store.h"
#include "unit/scratch_directory.h"

namespace chunkwise::pipelines {
namespace {

namespace fs = std::filesystem;
namespace dvid = formats::dvid;
namespace pc = formats::precomputed;
using nlohmann::json;
using ::testing::HasSubstr;

constexpr std::array<std::int64_t, 3> kShape{150, 140, 200};  // z, y, x: cut edge chunks.

struct Export {
  fs::path root;
  std::shared_ptr<store::RocksDbStore> db;
  std::unique_ptr<dvid::Labelmap> labelmap;
  std::shared_ptr<store::Store> source;
};

json Spec(const std::string& hash, int preshift, int minishard, int shard) {
  json scales = json::array();
  for (int s = 0; s < 2; ++s) {
    scales.push_back({{"key", std::to_string(8 << s) + "nm"},
                      {"size",
                       {(kShape[2] + (1 << s) - 1) >> s, (kShape[1] + (1 << s) - 1) >> s,
                        (kShape[0] + (1 << s) - 1) >> s}},
                      {"resolution", {8 << s, 8 << s, 8 << s}},
                      {"chunk_sizes", {{64, 64, 64}}},
                      {"sharding",
                       {{"@type", "neuroglancer_uint64_sharded_v1"},
                        {"preshift_bits", preshift},
                        {"hash", hash},
                        {"minishard_bits", minishard},
                        {"shard_bits", shard}}}});
  }
  return {{"@type", "neuroglancer_multiscale_volume"}, {"data_type", "uint64"}, {"scales", scales}};
}

Export MakeExport(const json& spec) {
  Export e{test::FreshScratchDirectory("export"), nullptr, nullptr, nullptr};
  auto db = store::RocksDbStore::Open(e.root / "db", {.create_if_missing = true});
  EXPECT_TRUE(db.ok());
  e.db = *db;
  auto labelmap = dvid::Labelmap::Open(e.db, true);
  EXPECT_TRUE(labelmap.ok());
  e.labelmap = std::move(*labelmap);
  std::vector<std::uint64_t> volume;
  for (std::int64_t z = 0; z < kShape[0]; ++z) {
    for (std::int64_t y = 0; y < kShape[1]; ++y) {
      for (std::int64_t x = 0; x < kShape[2]; ++x) {
        volume.push_back(1 + (z / 9) * 400 + (y / 13) * 20 + x / 17);
      }
    }
  }
  EXPECT_TRUE(dvid::IngestVolume(*e.labelmap, volume, kShape, {.downsample_scales = 1}).ok());
  EXPECT_TRUE(e.labelmap->SetMappings(1, std::vector<dvid::LabelPair>{{1, 77}, {2, 77}}).ok());
  auto parsed = ParseExportSpec(spec.dump(), "spec");
  EXPECT_TRUE(parsed.ok());
  auto source = store::FileStore::Open(e.root / "out");
  EXPECT_TRUE(source.ok());
  e.source = *source;
  EXPECT_TRUE(ExportShards(*e.labelmap, *parsed, e.source, "", {.workers = 2}).ok());
  return e;
}

// Every scale of the volume equals the export read back.
void ExpectSameVolume(const Export& e, const std::shared_ptr<store::Store>& dest,
                      bool supervoxels) {
  auto volume = pc::Volume::Open(dest, "");
  ASSERT_TRUE(volume.ok()) << volume.status().ToString();
  auto reader = ExportedVolumeReader::Open(e.source, "");
  ASSERT_TRUE(reader.ok());
  for (int s = 0; s < 2; ++s) {
    const core::GridCoord3 size = (*reader)->scale(s).size;
    auto want = (*reader)->Read(s, {{0, 0, 0}, {size[2], size[1], size[0]}}, supervoxels);
    ASSERT_TRUE(want.ok());
    auto got = (*volume)->Read(s, core::Region({0, 0, 0}, {size[2], size[1], size[0]}));
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_EQ(got->size(), want->size() * 8);
    EXPECT_EQ(std::memcmp(got->data(), want->data(), got->size()), 0) << "scale " << s;
  }
}

TEST(ExportToPrecomputed, IdentityShardsMappedLabels) {
  const Export e = MakeExport(Spec("identity", 0, 1, 3));
  auto dest = store::MemoryStore::Create();
  auto summary = ExportToPrecomputed(e.source, "", std::nullopt, dest, "", {.threads = 2});
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  ASSERT_EQ(summary->scales.size(), 2u);
  EXPECT_EQ(summary->scales[0].blocks, 3u * 3 * 4);
  EXPECT_EQ(summary->scales[0].shards_written, summary->scales[0].arrow_shards);
  ExpectSameVolume(e, dest, false);
  // The info: the spec's keys, compressed_segmentation in 8³ blocks, gzip.
  auto volume = pc::Volume::Open(dest, "");
  ASSERT_TRUE(volume.ok());
  const pc::ScaleInfo& scale = (*volume)->scale(1);
  EXPECT_EQ(scale.key, "16nm");
  EXPECT_EQ(scale.encoding, pc::ChunkEncoding::kCompressedSegmentation);
  EXPECT_EQ(scale.sharding->data_encoding, pc::ShardEncoding::kGzip);
  EXPECT_EQ(scale.sharding->minishard_index_encoding, pc::ShardEncoding::kGzip);
  EXPECT_EQ(scale.resolution[0], 16);
}

TEST(ExportToPrecomputed, MurmurShardsSupervoxels) {
  const Export e = MakeExport(Spec("murmurhash3_x86_128", 0, 2, 2));
  auto dest = store::MemoryStore::Create();
  auto summary = ExportToPrecomputed(e.source, "", std::nullopt, dest, "",
                                     {.threads = 2, .supervoxels = true});
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  ExpectSameVolume(e, dest, true);
}

TEST(ExportToPrecomputed, RefusesATakenDestinationAndResumes) {
  const Export e = MakeExport(Spec("identity", 0, 1, 3));
  auto dest = store::MemoryStore::Create();
  ASSERT_TRUE(ExportToPrecomputed(e.source, "", std::nullopt, dest, "", {}).ok());
  auto again = ExportToPrecomputed(e.source, "", std::nullopt, dest, "", {});
  EXPECT_EQ(again.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(again.status().message(), HasSubstr("exists already"));
  auto keys = dest->List("8nm/");
  ASSERT_TRUE(keys.ok() && keys->size() > 1);
  ASSERT_TRUE(dest->Erase(keys->front()).ok());
  auto resumed = ExportToPrecomputed(e.source, "", std::nullopt, dest, "", {.resume = true});
  ASSERT_TRUE(resumed.ok()) << resumed.status().ToString();
  EXPECT_EQ(resumed->scales[0].shards_written, 1u);
  EXPECT_EQ(resumed->scales[0].shards_kept, resumed->scales[0].arrow_shards - 1);
  EXPECT_EQ(resumed->scales[1].shards_written, 0u);
  ExpectSameVolume(e, dest, false);
  auto overwritten = ExportToPrecomputed(e.source, "", std::nullopt, dest, "", {.overwrite = true});
  ASSERT_TRUE(overwritten.ok());
  EXPECT_EQ(overwritten->scales[0].shards_kept, 0u);
}

TEST(ExportToPrecomputed, NamesTheShardOfBadInput) {
  const Export e = MakeExport(Spec("identity", 0, 1, 3));
  fs::path arrow;
  for (const auto& entry : fs::directory_iterator(e.root / "out" / "s0")) {
    if (entry.path().extension() == ".arrow") arrow = entry.path();
  }
  ASSERT_FALSE(arrow.empty());
  fs::resize_file(arrow, fs::file_size(arrow) / 2);
  auto dest = store::MemoryStore::Create();
  auto summary = ExportToPrecomputed(e.source, "", std::nullopt, dest, "", {});
  EXPECT_EQ(summary.status().code(), StatusCode::kCorruption);
  EXPECT_THAT(summary.status().message(), HasSubstr(arrow.filename().string()));
  auto info = dest->Get("info");
  ASSERT_TRUE(info.ok());
  EXPECT_FALSE(info->has_value()) << "no info is written for a failed conversion";
}

TEST(ExportToPrecomputed, PartsGiveTheBytesOfOneProcess) {
  const Export e = MakeExport(Spec("identity", 0, 1, 3));
  auto alone = store::MemoryStore::Create();
  ASSERT_TRUE(ExportToPrecomputed(e.source, "", std::nullopt, alone, "", {}).ok());
  auto count = CountExportToPrecomputedShards(e.source, "", std::nullopt, {});
  ASSERT_TRUE(count.ok()) << count.status().ToString();
  const int parts = 3;
  ASSERT_GT(*count, static_cast<std::uint64_t>(parts));
  auto dest = store::MemoryStore::Create();
  ASSERT_TRUE(PrepareExportToPrecomputed(e.source, "", std::nullopt, dest, "", {}).ok());
  std::vector<ExportToPrecomputedSummary> summaries;
  for (int part = 0; part < parts; ++part) {
    auto summary = ExportToPrecomputedPart(e.source, "", std::nullopt, dest, "", {part, parts}, {});
    ASSERT_TRUE(summary.ok()) << summary.status().ToString();
    // Each summary crosses to the driver as JSON.
    auto decoded = ExportToPrecomputedSummary::FromJson(summary->ToJson());
    ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
    EXPECT_EQ(decoded->ToJson(), summary->ToJson());
    summaries.push_back(*decoded);
  }
  EXPECT_FALSE(dest->Get("info")->has_value()) << "no info before the driver publishes";
  auto job = PublishExportToPrecomputed(e.source, "", std::nullopt, dest, "", summaries, {});
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  std::uint64_t shards = 0;
  for (const auto& scale : job->scales) shards += scale.shards_written;
  EXPECT_EQ(shards, *count);
  auto want = alone->List("");
  auto got = dest->List("");
  ASSERT_TRUE(want.ok() && got.ok());
  EXPECT_EQ(*got, *want);
  for (const std::string& key : *want) {
    EXPECT_EQ(**dest->Get(key), **alone->Get(key)) << key;
  }
}

TEST(ExportToPrecomputed, PublishRefusesTwoPartsFillingOneShard) {
  const Export e = MakeExport(Spec("identity", 0, 1, 3));
  auto dest = store::MemoryStore::Create();
  ExportToPrecomputedSummary first;
  first.scales.push_back({.key = "8nm", .sources = {{1, "s0/a.arrow"}}});
  ExportToPrecomputedSummary second;
  second.scales.push_back({.key = "8nm", .sources = {{1, "s0/b.arrow"}}});
  auto job = PublishExportToPrecomputed(e.source, "", std::nullopt, dest, "", {first, second}, {});
  EXPECT_EQ(job.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(job.status().message(), HasSubstr("a.arrow"));
  EXPECT_THAT(job.status().message(), HasSubstr("b.arrow"));
  EXPECT_THAT(job.status().message(), HasSubstr("both hold chunks of precomputed shard 8nm/"));
  EXPECT_FALSE(dest->Get("info")->has_value());
}

TEST(ExportToPrecomputed, APartOutsideTheJobIsRefused) {
  const Export e = MakeExport(Spec("identity", 0, 1, 3));
  auto dest = store::MemoryStore::Create();
  auto part = ExportToPrecomputedPart(e.source, "", std::nullopt, dest, "", {3, 3}, {});
  EXPECT_EQ(part.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(part.status().message(), HasSubstr("part 3 of 3"));
}

TEST(ExportToPrecomputed, NeedsASpec) {
  const Export e = MakeExport(Spec("identity", 0, 1, 3));
  ASSERT_TRUE(e.source->Erase("info").ok());
  auto summary =
      ExportToPrecomputed(e.source, "", std::nullopt, store::MemoryStore::Create(), "", {});
  EXPECT_EQ(summary.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(summary.status().message(), HasSubstr("info"));
}

}  // namespace
}  // namespace chunkwise::pipelines
