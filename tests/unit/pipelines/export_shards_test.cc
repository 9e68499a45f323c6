#include "pipelines/export_shards.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "chunkwise/core/thread_pool.h"
#include "chunkwise/store/file_store.h"
#include "formats/dvid/arrow_shard_reader.h"
#include "formats/dvid/block_key.h"
#include "formats/dvid/ingest.h"
#include "pipelines/exported_volume_reader.h"
#include "unit/scratch_directory.h"

namespace chunkwise::pipelines {
namespace {

namespace fs = std::filesystem;
namespace dvid = formats::dvid;
using nlohmann::json;
using ::testing::HasSubstr;

constexpr std::array<std::int64_t, 3> kShape{150, 140, 200};  // z, y, x: 3 x 3 x 4 blocks.

std::vector<std::uint64_t> Volume() {
  std::vector<std::uint64_t> volume(kShape[0] * kShape[1] * kShape[2]);
  std::size_t i = 0;
  for (std::int64_t z = 0; z < kShape[0]; ++z) {
    for (std::int64_t y = 0; y < kShape[1]; ++y) {
      for (std::int64_t x = 0; x < kShape[2]; ++x) {
        // Zero in one corner block; segments elsewhere.
        volume[i++] = (z < 64 && y < 64 && x < 64) ? 0 : 1 + (z / 9) * 400 + (y / 13) * 20 + x / 17;
      }
    }
  }
  return volume;
}

struct Fixture {
  fs::path db_path;
  std::shared_ptr<store::RocksDbStore> db;
  std::unique_ptr<dvid::Labelmap> labelmap;
};

Fixture MakeLabelmap(const std::vector<dvid::LabelPair>& mapping) {
  Fixture f{test::FreshScratchDirectory("db"), nullptr, nullptr};
  auto db = store::RocksDbStore::Open(f.db_path, {.create_if_missing = true});
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  f.db = *db;
  auto labelmap = dvid::Labelmap::Open(f.db, true);
  EXPECT_TRUE(labelmap.ok());
  f.labelmap = std::move(*labelmap);
  const std::vector<std::uint64_t> volume = Volume();
  EXPECT_TRUE(dvid::IngestVolume(*f.labelmap, volume, kShape, {.downsample_scales = 2}).ok());
  EXPECT_TRUE(f.labelmap->SetMappings(1, mapping).ok());
  return f;
}

json Spec(int preshift, int minishard, int shard, const std::string& hash = "identity") {
  json scales = json::array();
  for (int s = 0; s < 3; ++s) {
    scales.push_back({{"key", std::string("s").append(std::to_string(s))},
                      {"size",
                       {(kShape[2] + (1 << s) - 1) >> s, (kShape[1] + (1 << s) - 1) >> s,
                        (kShape[0] + (1 << s) - 1) >> s}},
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

// Where an export goes: the directory `path` under the scratch root, as the
// prefix "<name>/" of the FileStore over the root, so that erasing every key
// of a failed export leaves no directory behind.
struct Destination {
  fs::path path;
  std::shared_ptr<store::FileStore> store;
  std::string prefix;
};

Destination FreshDestination(std::string_view name) {
  Destination dest;
  dest.path = test::FreshScratchDirectory(name);
  auto store = store::FileStore::Open(dest.path.parent_path());
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  dest.store = *store;
  dest.prefix = dest.path.filename().string() + "/";
  return dest;
}

Result<ExportSummary> Export(const dvid::Labelmap& labelmap, const ExportSpec& spec,
                             const Destination& dest, const ExportShardsOptions& options) {
  return ExportShards(labelmap, spec, dest.store, dest.prefix, options);
}

Result<std::unique_ptr<ExportedVolumeReader>> OpenExport(const Destination& dest) {
  return ExportedVolumeReader::Open(dest.store, dest.prefix);
}

ExportSpec ParsedSpec(const json& info) {
  Result<ExportSpec> spec = ParseExportSpec(info.dump(), "spec.json");
  EXPECT_TRUE(spec.ok()) << spec.status().ToString();
  return *spec;
}

// Reads every scale back through the export and compares it with the database.
void ExpectRoundTrip(const Fixture& f, const Destination& dest) {
  Result<std::unique_ptr<ExportedVolumeReader>> reader = OpenExport(dest);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  ASSERT_EQ((*reader)->num_scales(), 3);
  const auto mapping = f.labelmap->MappingAt(1);
  ASSERT_TRUE(mapping.ok());
  core::ThreadPool pool(2);
  for (int s = 0; s < 3; ++s) {
    const core::GridCoord3 size = (*reader)->scale(s).size;
    const dvid::VoxelBox box{{0, 0, 0}, {size[2], size[1], size[0]}};
    auto supervoxels = f.labelmap->ReadRegion(1, s, box);
    ASSERT_TRUE(supervoxels.ok());
    auto got_sv = (*reader)->Read(s, box, /*supervoxels=*/true, &pool);
    ASSERT_TRUE(got_sv.ok()) << got_sv.status().ToString();
    EXPECT_EQ(*got_sv, *supervoxels) << "scale " << s;
    std::vector<std::uint64_t> mapped = *supervoxels;
    dvid::ApplyMapping(*mapping, mapped);
    auto got = (*reader)->Read(s, box, /*supervoxels=*/false, nullptr);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(*got, mapped) << "scale " << s;
  }
  // An unaligned box across shards.
  const dvid::VoxelBox inner{{30, 50, 70}, {100, 60, 120}};
  auto got = (*reader)->Read(0, inner, true);
  auto want = f.labelmap->ReadRegion(1, 0, inner);
  ASSERT_TRUE(got.ok() && want.ok());
  EXPECT_EQ(*got, *want);
}

TEST(ExportShards, RoundTripFileFormatRecordIndex) {
  const Fixture f = MakeLabelmap({{1, 5}, {2, 5}, {421, 7}});
  const Destination dest = FreshDestination("out");
  Result<ExportSummary> summary =
      Export(*f.labelmap, ParsedSpec(Spec(0, 1, 8)), dest, {.workers = 3});
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  ASSERT_EQ(summary->scales.size(), 3u);
  EXPECT_EQ(summary->scales[0].blocks_read, 3u * 3 * 4 - 1);  // The zero corner is not stored.
  EXPECT_EQ(summary->scales[0].blocks_written, 3u * 3 * 4 - 1);
  EXPECT_EQ(summary->scales[2].blocks_read, 1u);
  // 9 Morton bits, 1 in-shard bit (x): shards of 2 x 1 x 1 chunks.
  EXPECT_EQ(summary->scales[0].shards, 2u * 3 * 3 - 0);
  EXPECT_TRUE(fs::exists(dest.path / "s0" / "0_64_0.arrow"));
  EXPECT_TRUE(fs::exists(dest.path / "s0" / "128_0_0.csv"));
  EXPECT_TRUE(fs::exists(dest.path / "info"));
  EXPECT_TRUE(fs::exists(dest.path / "export.log"));
  ExpectRoundTrip(f, dest);
  for (const auto& entry : fs::recursive_directory_iterator(dest.path.parent_path())) {
    EXPECT_FALSE(store::FileStore::IsTemporaryName(entry.path().filename().string()))
        << entry.path();
  }
}

TEST(ExportShards, RoundTripStreamFormatOffsetsIndexMurmur) {
  const Fixture f = MakeLabelmap({{1, 9}});
  const Destination dest = FreshDestination("out");
  ExportShardsOptions options{.workers = 2, .writers = 2};
  options.format = formats::arrow::IpcFormat::kStream;
  options.index_form = dvid::ChunkIndexForm::kOffsets;
  Result<ExportSummary> summary =
      Export(*f.labelmap, ParsedSpec(Spec(0, 1, 3, "murmurhash3_x86_128")), dest, options);
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  Result<dvid::ArrowShardReader> shard = dvid::ArrowShardReader::Open(
      dest.store,
      dest.prefix + "s0/" +
          ParsedSpec(Spec(0, 1, 3, "murmurhash3_x86_128")).scales[0].ShardStem({1, 0, 0}) +
          ".arrow");
  ASSERT_TRUE(shard.ok()) << shard.status().ToString();
  EXPECT_FALSE(shard->is_file_format());
  EXPECT_EQ(shard->index().form, dvid::ChunkIndexForm::kOffsets);
  ExpectRoundTrip(f, dest);
}

TEST(ExportShards, ExportsTheRequestedVersion) {
  const Fixture f = MakeLabelmap({});
  ASSERT_TRUE(f.labelmap->Commit(1, "ingested").ok());
  Result<std::uint32_t> child = f.labelmap->Branch(1, "edits");
  ASSERT_TRUE(child.ok());
  ASSERT_TRUE(f.labelmap->SetMappings(*child, std::vector<dvid::LabelPair>{{81, 77}}).ok());
  const ExportSpec spec = ParsedSpec(Spec(0, 1, 8));
  const Destination newest = FreshDestination("out"), first = FreshDestination("out");
  ASSERT_TRUE(Export(*f.labelmap, spec, newest, {.num_scales = 1}).ok());
  ASSERT_TRUE(Export(*f.labelmap, spec, first, {.num_scales = 1, .version = 1}).ok());
  // Chunk x,y,z (0, 1, 0) holds supervoxel 81 (voxel z,y,x 0,64,0: 1 + 4 * 20).
  auto newest_reader = OpenExport(newest);
  auto first_reader = OpenExport(first);
  ASSERT_TRUE(newest_reader.ok() && first_reader.ok());
  auto mapped = (*newest_reader)->ReadRecord(0, {0, 1, 0});
  auto unmapped = (*first_reader)->ReadRecord(0, {0, 1, 0});
  ASSERT_TRUE(mapped.ok() && mapped->has_value() && unmapped.ok() && unmapped->has_value());
  EXPECT_EQ((*mapped)->supervoxels, (*unmapped)->supervoxels);
  EXPECT_EQ((*unmapped)->labels, (*unmapped)->supervoxels);
  std::vector<std::uint64_t> want = (*mapped)->supervoxels;
  std::replace(want.begin(), want.end(), std::uint64_t{81}, std::uint64_t{77});
  EXPECT_EQ((*mapped)->labels, want);
  EXPECT_NE(std::find(want.begin(), want.end(), 77u), want.end());
}

TEST(ExportShards, ExistingDestinationNeedsOverwrite) {
  const Fixture f = MakeLabelmap({});
  const Destination dest = FreshDestination("out");
  const ExportSpec spec = ParsedSpec(Spec(0, 1, 8));
  ASSERT_TRUE(Export(*f.labelmap, spec, dest, {.workers = 1}).ok());
  Result<ExportSummary> again = Export(*f.labelmap, spec, dest, {.workers = 1});
  ASSERT_FALSE(again.ok());
  EXPECT_THAT(std::string(again.status().message()), HasSubstr("overwrite not requested"));
  ExportShardsOptions overwrite{.num_scales = 1, .workers = 1};
  overwrite.overwrite = true;
  ASSERT_TRUE(Export(*f.labelmap, spec, dest, overwrite).ok());
  EXPECT_FALSE(fs::exists(dest.path / "s1"));  // The old export was replaced, not merged.
  auto replaced = OpenExport(dest);
  ASSERT_TRUE(replaced.ok()) << replaced.status().ToString();
  EXPECT_EQ((*replaced)->num_scales(), 1);
  // A directory that is not an export is never replaced.
  const Destination other = FreshDestination("other");
  ASSERT_TRUE(other.store->Set(other.prefix + "precious.txt", AsBytes("keep")).ok());
  Result<ExportSummary> refused = Export(*f.labelmap, spec, other, overwrite);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(refused.status().message()), HasSubstr("not an export"));
  EXPECT_THAT(std::string(refused.status().message()), HasSubstr("precious.txt"));
  EXPECT_TRUE(fs::exists(other.path / "precious.txt"));
}

// Every key under `dest`'s prefix (relative to it) and its bytes, export.log
// (it holds timings) left out.
std::map<std::string, Bytes> ExportFiles(const Destination& dest) {
  std::map<std::string, Bytes> files;
  auto keys = dest.store->List(dest.prefix);
  EXPECT_TRUE(keys.ok());
  for (const std::string& key : *keys) {
    if (key.ends_with("export.log")) continue;
    auto value = dest.store->Get(key);
    EXPECT_TRUE(value.ok() && value->has_value()) << key;
    files[key.substr(dest.prefix.size())] = **value;
  }
  return files;
}

// A job of independent tasks (dask): prepare, the parts in any order,
// publish; the same bytes as one process, visible only once published. One
// chunk handler each: with several, a shard's records may come in another order.
TEST(ExportShards, PartsOfATaskJobGiveTheOneProcessExport) {
  const Fixture f = MakeLabelmap({{1, 5}, {421, 7}});
  const ExportSpec spec = ParsedSpec(Spec(0, 1, 8));
  const Destination alone = FreshDestination("alone");
  Result<ExportSummary> whole = Export(*f.labelmap, spec, alone, {.workers = 1});
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();

  const Destination dest = FreshDestination("parts");
  const ExportShardsOptions options{.workers = 1};
  ASSERT_TRUE(PrepareExportShards(dest.store, dest.prefix, options).ok());
  std::vector<ExportSummary> parts;
  for (int part = 2; part >= 0; --part) {
    Result<ExportSummary> done =
        ExportShardsPart(*f.labelmap, spec, dest.store, dest.prefix, part, 3, options);
    ASSERT_TRUE(done.ok()) << done.status().ToString();
    EXPECT_LT(done->scales[0].shards, whole->scales[0].shards);  // Only its own.
    parts.push_back(*done);
  }
  EXPECT_FALSE(fs::exists(dest.path / "info"));
  EXPECT_EQ(OpenExport(dest).status().code(), StatusCode::kNotFound);
  Result<ExportSummary> job =
      PublishExportShards(*f.labelmap, spec, dest.store, dest.prefix, parts, options);
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  ASSERT_EQ(job->scales.size(), whole->scales.size());
  for (std::size_t s = 0; s < job->scales.size(); ++s) {
    EXPECT_EQ(job->scales[s].blocks_written, whole->scales[s].blocks_written) << s;
    EXPECT_EQ(job->scales[s].shards, whole->scales[s].shards) << s;
    EXPECT_EQ(job->scales[s].file_bytes, whole->scales[s].file_bytes) << s;
  }
  EXPECT_EQ(ExportFiles(dest), ExportFiles(alone));
  EXPECT_FALSE(fs::exists(dest.path / ".chunkwise-incomplete"));
  ExpectRoundTrip(f, dest);

  auto outside = ExportShardsPart(*f.labelmap, spec, dest.store, dest.prefix, 3, 3, options);
  EXPECT_EQ(outside.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(outside.status().message()), HasSubstr("part 3 of 3"));
  // Published: nothing prepared is left to publish again.
  auto twice = PublishExportShards(*f.labelmap, spec, dest.store, dest.prefix, parts, options);
  EXPECT_EQ(twice.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(twice.status().message()), HasSubstr(".chunkwise-incomplete"));
  // Prepare keeps the overwrite rule.
  auto again = PrepareExportShards(dest.store, dest.prefix, options);
  EXPECT_EQ(again.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(again.message()), HasSubstr("overwrite not requested"));
}

TEST(ExportShards, BlocksWhoseLabelsAllMapToZeroAreSkipped) {
  // Supervoxel 1 fills block x=1..: map every label of block (3, 2, 2) to 0.
  Fixture f = MakeLabelmap({});
  std::vector<std::uint64_t> solid(64 * 64 * 64, 999999);
  ASSERT_TRUE(f.labelmap->PutBlock(1, 0, {3, 2, 2}, solid).ok());
  ASSERT_TRUE(f.labelmap->SetMappings(1, std::vector<dvid::LabelPair>{{999999, 0}}).ok());
  const Destination dest = FreshDestination("out");
  Result<ExportSummary> summary =
      Export(*f.labelmap, ParsedSpec(Spec(0, 1, 8)), dest, {.num_scales = 1});
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  EXPECT_EQ(summary->scales[0].blocks_skipped, 1u);
  auto reader = OpenExport(dest);
  ASSERT_TRUE(reader.ok());
  auto record = (*reader)->ReadRecord(0, {3, 2, 2});
  ASSERT_TRUE(record.ok());
  EXPECT_FALSE(record->has_value());
}

TEST(ExportShards, CorruptValueFailsAndLeavesNoDestination) {
  Fixture f = MakeLabelmap({});
  const std::string key =
      dvid::EncodeBlockKey({.instance = f.labelmap->instance(), .scale = 0, .coord = {2, 1, 1}});
  std::vector<std::uint8_t> bad{0x40, 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3};
  ASSERT_TRUE(f.db->SetBinary(key, bad).ok());
  const Destination dest = FreshDestination("out");
  Result<ExportSummary> summary =
      Export(*f.labelmap, ParsedSpec(Spec(0, 1, 8)), dest, {.workers = 2});
  ASSERT_FALSE(summary.ok());
  EXPECT_THAT(std::string(summary.status().message()), HasSubstr("block x,y,z 2,1,1"));
  EXPECT_FALSE(fs::exists(dest.path));
  for (const auto& entry : fs::recursive_directory_iterator(dest.path.parent_path())) {
    EXPECT_FALSE(store::FileStore::IsTemporaryName(entry.path().filename().string()))
        << entry.path();
  }
}

TEST(ExportShards, BlockOutsideTheSpecIsAnError) {
  const Fixture f = MakeLabelmap({});
  json spec = Spec(0, 1, 8);
  spec["scales"][0]["size"] = {128, 140, 150};  // x stops at 2 chunks; the data has 4.
  const Destination dest = FreshDestination("out");
  Result<ExportSummary> summary = Export(*f.labelmap, ParsedSpec(spec), dest, {});
  ASSERT_FALSE(summary.ok());
  EXPECT_THAT(std::string(summary.status().message()), HasSubstr("outside the spec's volume"));
  EXPECT_FALSE(fs::exists(dest.path));
}

TEST(ExportedVolumeReader, RefusesBoxesOutsideTheVolume) {
  const Fixture f = MakeLabelmap({});
  const Destination dest = FreshDestination("out");
  ASSERT_TRUE(Export(*f.labelmap, ParsedSpec(Spec(0, 1, 8)), dest, {.num_scales = 1}).ok());
  auto reader = OpenExport(dest);
  ASSERT_TRUE(reader.ok());
  EXPECT_FALSE((*reader)->Read(0, {{0, 0, 0}, {151, 10, 10}}, false).ok());
  EXPECT_FALSE((*reader)->Read(1, {{0, 0, 0}, {1, 1, 1}}, false).ok());
  EXPECT_EQ(OpenExport(FreshDestination("missing")).status().code(), StatusCode::kNotFound);
}

// A shard's CSV index with the chunk of its first row replaced by `chunk`
// ("x,y,z"), the record count unchanged: the chunk the row named would read as
// zeros, the forged one is never asked of this shard (#44). Returns the old "x,y,z".
std::string ForgeFirstRow(const fs::path& csv, const std::string& chunk) {
  std::ifstream in(csv);
  std::string text, line, first;
  bool done = false;
  while (std::getline(in, line)) {
    if (!done && !line.empty() && std::isdigit(static_cast<unsigned char>(line[0]))) {
      std::size_t third = 0;
      for (int i = 0; i < 3; ++i) third = line.find(',', third) + 1;
      first = line.substr(0, third - 1);
      line = chunk + line.substr(third - 1);
      done = true;
    }
    text += line + "\n";
  }
  in.close();
  std::ofstream(csv, std::ios::trunc) << text;
  return first;
}

std::vector<fs::path> CsvFiles(const fs::path& scale) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(scale)) {
    if (entry.path().extension() == ".csv") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(ExportedVolumeReader, IndexRowOutsideTheVolumeIsCorruption) {
  const Fixture f = MakeLabelmap({});
  const Destination dest = FreshDestination("out");
  ASSERT_TRUE(Export(*f.labelmap, ParsedSpec(Spec(0, 1, 1)), dest, {.num_scales = 1}).ok());
  const fs::path csv = CsvFiles(dest.path / "s0").front();
  ForgeFirstRow(csv, "9,0,0");  // The grid is 4 x 3 x 3 chunks.
  auto reader = OpenExport(dest);
  ASSERT_TRUE(reader.ok());
  const Status status = (*reader)->Read(0, {{0, 0, 0}, {150, 140, 200}}, false).status();
  EXPECT_EQ(status.code(), StatusCode::kCorruption) << status.ToString();
  EXPECT_THAT(std::string(status.message()), HasSubstr(csv.filename().string()));
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("chunk (9, 0, 0), which lies outside the volume's grid of 4 x 3 x 3 "
                        "chunks, is not that chunk's"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("points to a record of chunk"));
}

TEST(ExportedVolumeReader, BlocksOutsideTheGridThatAreTheirOwnAreLeftUnread) {
  // DVID exports blocks past the spec's size (x one past the grid, y and z
  // unclipped): rows outside the grid that carry their own records are not errors.
  const Fixture f = MakeLabelmap({});
  const Destination dest = FreshDestination("out");
  ASSERT_TRUE(Export(*f.labelmap, ParsedSpec(Spec(0, 0, 0)), dest, {.num_scales = 1}).ok());
  json info = json::parse(std::ifstream(dest.path / "info"));
  info["scales"][0]["size"] = {128, 140, 150};  // x: 2 chunks of the 4 exported.
  std::ofstream(dest.path / "info", std::ios::trunc) << info.dump();
  auto reader = OpenExport(dest);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  const dvid::VoxelBox box{{0, 0, 0}, {150, 140, 128}};
  auto got = (*reader)->Read(0, box, /*supervoxels=*/true);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  auto expected = f.labelmap->ReadRegion(1, 0, box);
  ASSERT_TRUE(expected.ok());
  EXPECT_EQ(*got, *expected);
}

TEST(ExportedVolumeReader, IndexRowOfAnotherShardIsCorruption) {
  const Fixture f = MakeLabelmap({});
  const Destination dest = FreshDestination("out");
  ASSERT_TRUE(Export(*f.labelmap, ParsedSpec(Spec(0, 1, 1)), dest, {.num_scales = 1}).ok());
  const std::vector<fs::path> csvs = CsvFiles(dest.path / "s0");
  ASSERT_EQ(csvs.size(), 2u);
  // Shard 0's first row renamed to shard 1's first chunk: in the grid, but not shard 0's.
  const std::string other = ForgeFirstRow(csvs[1], "0,0,0");
  ForgeFirstRow(csvs[1], other);  // Put back: the forgery was only to read it.
  ForgeFirstRow(csvs[0], other);
  auto reader = OpenExport(dest);
  ASSERT_TRUE(reader.ok());
  const Status status = (*reader)->Read(0, {{0, 0, 0}, {150, 140, 200}}, false).status();
  EXPECT_EQ(status.code(), StatusCode::kCorruption) << status.ToString();
  EXPECT_THAT(std::string(status.message()), HasSubstr(csvs[0].filename().string()));
  EXPECT_THAT(std::string(status.message()), HasSubstr("belongs to shard"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("is not that chunk's"));
}

}  // namespace
}  // namespace chunkwise::pipelines
