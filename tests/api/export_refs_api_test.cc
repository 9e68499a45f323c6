// export-shards from a DVID labelmap and kerchunk references through the
// facade: a labelmap ingested, exported to memory:// and to a directory,
// detected, and references built for the export and for a zarr array, then
// read back through the reference store as a zarr array.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "api_test_support.h"
#include "chunkwise/chunkwise.h"

namespace chunkwise {
namespace {

using api_test::At16;
using api_test::Message;
using api_test::Ramp16;
using ::testing::HasSubstr;

constexpr std::array<std::int64_t, 3> kShape{64, 64, 128};  // z, y, x: two blocks.

std::string SpecJson() {
  return R"({"@type": "neuroglancer_multiscale_volume", "data_type": "uint64",
             "scales": [{"key": "s0", "size": [128, 64, 64], "chunk_sizes": [[64, 64, 64]],
                         "sharding": {"@type": "neuroglancer_uint64_sharded_v1",
                                      "preshift_bits": 0, "hash": "identity",
                                      "minishard_bits": 0, "shard_bits": 0}}]})";
}

class ExportApi : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = api_test::FreshDirectory("export");
    auto labelmap = OpenLabelmap((root_ / "db").string(), /*create=*/true);
    ASSERT_TRUE(labelmap.ok()) << labelmap.status().ToString();
    labelmap_ = std::move(*labelmap);
    std::vector<std::uint64_t> volume(kShape[0] * kShape[1] * kShape[2]);
    for (std::size_t i = 0; i < volume.size(); ++i) volume[i] = 1 + (i % 128) / 64;  // 1 | 2.
    ASSERT_TRUE(IngestLabels(context_, *labelmap_, volume, kShape).ok());
    std::ofstream(root_ / "spec.json") << SpecJson();
    auto spec = ReadExportSpec(context_, (root_ / "spec.json").string());
    ASSERT_TRUE(spec.ok()) << spec.status().ToString();
    spec_ = *spec;
  }

  Context context_{{.threads = 2}};
  std::filesystem::path root_;
  std::unique_ptr<Labelmap> labelmap_;
  ExportSpec spec_;
};

TEST_F(ExportApi, ExportsToAMemoryStoreAndBuildsReferences) {
  auto summary = ExportShards(context_, *labelmap_, spec_, "memory://export");
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  ASSERT_EQ(summary->scales.size(), 1u);
  EXPECT_EQ(summary->scales[0].blocks_written, 2u);
  auto store = OpenStore(context_, "memory://export");
  ASSERT_TRUE(store.ok());
  auto format = DetectFormat(**store);
  ASSERT_TRUE(format.ok()) << format.status().ToString();
  EXPECT_EQ(format->kind, FormatKind::kDvidExport);

  auto set = BuildReferences(context_, "memory://export");
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  auto written = WriteReferences(context_, *set, "memory://refs/export.json", {});
  ASSERT_TRUE(written.ok()) << written.ToString();
  auto refs_store = OpenStore(context_, "memory://refs");
  ASSERT_TRUE(refs_store.ok());
  EXPECT_EQ(DetectFormat(**refs_store, "export.json")->kind, FormatKind::kReferencesJson);
  // Parquet references hold only zarr chunk keys: the export's x_y_z block
  // keys are refused before the scan, and by the writer, naming what and why.
  auto for_parquet = BuildReferences(context_, "memory://export", {.zarr_chunk_keys_only = true});
  EXPECT_EQ(for_parquet.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(for_parquet.status().message().find("memory://export (DVID export shards)"),
            std::string_view::npos)
      << for_parquet.status().ToString();
  EXPECT_NE(for_parquet.status().message().find("only as JSON references"), std::string_view::npos);
  const Status parquet = WriteReferences(context_, *set, "memory://refs/export.parq",
                                         {.format = ReferenceFormat::kParquet});
  EXPECT_EQ(parquet.code(), StatusCode::kUnsupported);
  EXPECT_NE(parquet.message().find("there is no 's0/.zarray'"), std::string_view::npos)
      << parquet.ToString();
  const auto zmetadata = (*refs_store)->Get("export.parq/.zmetadata");
  ASSERT_TRUE(zmetadata.ok());
  EXPECT_FALSE(zmetadata->has_value());
  // Again, refused without overwrite.
  EXPECT_EQ(ExportShards(context_, *labelmap_, spec_, "memory://export").status().code(),
            StatusCode::kInvalidArgument);
}

TEST_F(ExportApi, ExportsToADirectory) {
  const std::string dest = (root_ / "out").string();
  auto summary = ExportShards(context_, *labelmap_, spec_, dest);
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  EXPECT_EQ(summary->scales[0].blocks_written, 2u);
  EXPECT_TRUE(std::filesystem::exists(root_ / "out" / "info"));
  auto set = BuildReferences(context_, dest);
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  auto labels = OpenLabelmap((root_ / "missing-db").string(), false);
  EXPECT_NE(labels.status().code(), StatusCode::kOk);
}

// The spec export-shards takes when given none covers the stored blocks
// (1 x 1 x 2 of them: 128 x 64 x 64 voxels, x y z) and exports them all.
TEST_F(ExportApi, TheDefaultSpecCoversTheStoredBlocks) {
  Result<ExportSpec> spec = DefaultExportSpec(*labelmap_, {.resolution = {4, 4, 40}});
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  ASSERT_EQ(spec->num_scales(), static_cast<std::size_t>(labelmap_->num_scales()));
  const nlohmann::json info = nlohmann::json::parse(spec->info_json());
  EXPECT_EQ(info["scales"][0]["size"], nlohmann::json::parse("[128, 64, 64]"));
  EXPECT_EQ(info["scales"][0]["sharding"]["preshift_bits"], 1);  // 2 x 1 x 1 chunks: 1 bit.
  EXPECT_NE(spec->info_json().find("40"), std::string::npos);
  auto summary = ExportShards(context_, *labelmap_, *spec, "memory://default-spec");
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  EXPECT_EQ(summary->scales[0].blocks_written, 2u);
}

TEST(LabelmapApi, ADefaultSpecOfAnEmptyLabelmapIsNotFound) {
  auto labelmap = OpenLabelmap((api_test::FreshDirectory("empty") / "db").string(), true);
  ASSERT_TRUE(labelmap.ok()) << labelmap.status().ToString();
  const Status status = DefaultExportSpec(**labelmap).status();
  EXPECT_EQ(status.code(), StatusCode::kNotFound);
  EXPECT_THAT(std::string(status.message()), HasSubstr("stores no block at scale 0"));
}

TEST_F(ExportApi, ReadsALabelmapRegionAsSupervoxelsOrMapped) {
  const VoxelBox box{{0, 5, 60}, {2, 3, 8}};  // x 60..67 crosses the 1 | 2 boundary.
  std::vector<std::uint64_t> expected(2 * 3 * 8);
  for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = 60 + (i % 8) < 64 ? 1 : 2;
  auto supervoxels = ReadLabelmapRegion(context_, *labelmap_, box);
  ASSERT_TRUE(supervoxels.ok()) << supervoxels.status().ToString();
  EXPECT_EQ(*supervoxels, expected);

  const std::uint64_t one = 1;
  ASSERT_TRUE(labelmap_->Merge(1, 9, std::span(&one, 1)).ok());
  auto mapped = ReadLabelmapRegion(context_, *labelmap_, box, {.mapped = true});
  ASSERT_TRUE(mapped.ok()) << mapped.status().ToString();
  for (std::uint64_t& label : expected) label = label == 1 ? 9 : label;
  EXPECT_EQ(*mapped, expected);

  auto unbuilt = ReadLabelmapRegion(context_, *labelmap_, box, {.scale = 1});
  EXPECT_EQ(unbuilt.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(unbuilt.status()), HasSubstr((root_ / "db").string()));
  EXPECT_THAT(Message(unbuilt.status()), HasSubstr("scale 1 is not built"));
  auto unknown = ReadLabelmapRegion(context_, *labelmap_, box, {.version = 5});
  EXPECT_EQ(unknown.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(Message(unknown.status()), HasSubstr("version 5"));
}

// A URL may name an array inside a group's reference set, as a path names an
// array inside a group's directory: "g.json/v", "g.parq/v", "refs://g.json/v".
TEST(ReferencesApi, AnArrayInsideAGroupReferenceSetOpensByItsPath) {
  Context context;
  const auto root = api_test::FreshDirectory("group_refs");
  const std::string group_url = (root / "g.zarr").string();
  auto group = OpenStore(context, group_url, {.create = true});
  ASSERT_TRUE(group.ok()) << group.status().ToString();
  ASSERT_TRUE(
      (*group)->Set("zarr.json", AsBytes(R"({"zarr_format": 3, "node_type": "group"})")).ok());
  ZarrArraySpec spec{.shape = {6, 4}, .data_type = *ParseDataType("uint16"), .chunks = {3, 2}};
  auto array = CreateZarrArray(context, group_url + "/v", spec);
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  ASSERT_TRUE(WriteRegion(context, *array, core::Region({0, 0}, {6, 4}), Ramp16(24, 100)).ok());
  auto set = BuildReferences(context, group_url);
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  const std::string json = (root / "g.json").string();
  ASSERT_TRUE(WriteReferences(context, *set, json, {}).ok());
  ReferenceWriteOptions parquet;
  parquet.format = ReferenceFormat::kParquet;
  const std::string parq = (root / "g.parq").string();
  ASSERT_TRUE(WriteReferences(context, *set, parq, parquet).ok());

  for (const std::string& url :
       {json + "/v", "file://" + json + "/v", "refs://" + json + "/v", parq + "/v", json + "/v/"}) {
    SCOPED_TRACE(url);
    auto through = OpenZarrArray(context, url);
    ASSERT_TRUE(through.ok()) << through.status().ToString();
    auto values = ReadRegion(context, *through, core::Region({1, 1}, {6, 4}));
    ASSERT_TRUE(values.ok()) << values.status().ToString();
    ASSERT_EQ(values->size(), 2u * 15);
    EXPECT_EQ(At16(*values, 0), 105);   // (1, 1)
    EXPECT_EQ(At16(*values, 14), 123);  // (5, 3)
  }
  // The set itself is still the group (references are zarr v2), and a path
  // to nothing in it is an empty folder of the set: NotFound naming it.
  auto whole = OpenStore(context, json);
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  EXPECT_EQ(DetectFormat(**whole)->kind, FormatKind::kZarrV2Group);
  auto absent = OpenZarrArray(context, json + "/w");
  EXPECT_EQ(absent.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(Message(absent.status()), HasSubstr("g.json:w"));
  // Not writable: the set is a file, so no folder can be made inside it.
  auto written = OpenStore(context, json + "/v", {.create = true});
  EXPECT_EQ(written.status().code(), StatusCode::kIOError) << written.status().ToString();
  EXPECT_THAT(Message(written.status()), HasSubstr("g.json/v"));
}

// A Parquet set of one array names it after the source unless told (#38):
// `refs build` and Python's refs.build both leave the name to the facade.
TEST(ReferencesApi, TheRootArrayIsNamedAfterTheSource) {
  EXPECT_EQ(ReferenceRootArrayName("/data/src.zarr"), "src");
  EXPECT_EQ(ReferenceRootArrayName("s3://bucket/volume.zarr/"), "volume");
  EXPECT_EQ(ReferenceRootArrayName("memory://plane"), "plane");
  EXPECT_EQ(ReferenceRootArrayName("/"), "data");
  Context context;
  const auto root = api_test::FreshDirectory("refs-root-name");
  const std::string array_url = (root / "plane.zarr").string();
  ZarrArraySpec spec{.shape = {6, 4}, .data_type = *ParseDataType("uint16"), .chunks = {3, 2}};
  spec.zarr_format = 2;
  ASSERT_TRUE(CreateZarrArray(context, array_url, spec).ok());
  ReferenceWriteOptions parquet;
  parquet.format = ReferenceFormat::kParquet;
  auto job = BuildReferencesInto(context, array_url, (root / "a.parq").string(), {}, parquet);
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  auto parquet_store = OpenStore(context, (root / "a.parq").string());
  ASSERT_TRUE(parquet_store.ok()) << parquet_store.status().ToString();
  auto array = DetectFormat(**parquet_store, "plane");
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  EXPECT_EQ(array->kind, FormatKind::kZarrV2Array);
}

TEST(ReferencesApi, ZarrArrayThroughJsonAndParquetReferences) {
  Context context;
  const auto root = api_test::FreshDirectory("refs");
  const std::string array_url = (root / "a.zarr").string();
  ZarrArraySpec spec{.shape = {6, 4}, .data_type = *ParseDataType("uint16"), .chunks = {3, 2}};
  spec.zarr_format = 2;
  auto array = CreateZarrArray(context, array_url, spec);
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  ASSERT_TRUE(WriteRegion(context, *array, core::Region({0, 0}, {6, 4}), Ramp16(24, 50)).ok());

  auto set = BuildReferences(context, array_url);
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  const std::string json = (root / "a.json").string();
  ASSERT_TRUE(WriteReferences(context, *set, json, {}).ok());
  ReferenceWriteOptions parquet;
  parquet.format = ReferenceFormat::kParquet;
  parquet.root_array_name = "a";
  const std::string parq = (root / "a.parq").string();
  ASSERT_TRUE(WriteReferences(context, *set, parq, parquet).ok());
  EXPECT_EQ(WriteReferences(context, *set, json, {}).code(), StatusCode::kInvalidArgument);

  // The JSON set opens as a store that is the array.
  auto through_json = OpenZarrArray(context, json);
  ASSERT_TRUE(through_json.ok()) << through_json.status().ToString();
  auto values = ReadRegion(context, *through_json, core::Region({0, 0}, {6, 4}));
  ASSERT_TRUE(values.ok()) << values.status().ToString();
  EXPECT_EQ(At16(*values, 0), 50);
  EXPECT_EQ(At16(*values, 23), 73);
  // The Parquet set holds the array under "a/".
  auto parquet_store = OpenStore(context, parq);
  ASSERT_TRUE(parquet_store.ok()) << parquet_store.status().ToString();
  auto group = DetectFormat(**parquet_store);
  ASSERT_TRUE(group.ok()) << group.status().ToString();
  EXPECT_EQ(group->kind, FormatKind::kZarrV2Group);
  EXPECT_EQ(DetectFormat(**parquet_store, "a")->kind, FormatKind::kZarrV2Array);
  auto on_disk = OpenStore(context, root.string());
  ASSERT_TRUE(on_disk.ok());
  EXPECT_EQ(DetectFormat(**on_disk, "a.parq/")->kind, FormatKind::kReferencesParquet);

  auto volume = OpenStore(context, "memory://ng", {.create = true});
  ASSERT_TRUE(volume.ok());
  ASSERT_TRUE((*volume)
                  ->Set("info", AsBytes(R"({"@type": "neuroglancer_multiscale_volume",
                                                  "scales": []})"))
                  .ok());
  auto unsupported = BuildReferences(context, "memory://ng");
  EXPECT_EQ(unsupported.status().code(), StatusCode::kUnsupported);
  EXPECT_THAT(Message(unsupported.status()), HasSubstr("neuroglancer precomputed volume"));
  auto nothing = BuildReferences(context, (root / "absent").string());
  EXPECT_EQ(nothing.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(Message(nothing.status()), HasSubstr("absent"));
}

}  // namespace
}  // namespace chunkwise

namespace chunkwise {
namespace {

// A set built locally for data then uploaded: url_base (refs build
// --target-prefix) names the upload, and a "/" is added when missing.
TEST(ReferencesApi, UrlBaseNamesWhereTheDataWasUploaded) {
  Context context;
  const auto root = api_test::FreshDirectory("refs_target");
  const std::string array_url = (root / "a.zarr").string();
  ZarrArraySpec spec{.shape = {4, 4}, .data_type = *ParseDataType("uint16"), .chunks = {2, 4}};
  spec.zarr_format = 2;
  auto array = CreateZarrArray(context, array_url, spec);
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  ASSERT_TRUE(WriteRegion(context, *array, core::Region({0, 0}, {4, 4}), Ramp16(16, 7)).ok());
  auto set = BuildReferences(context, array_url, {.url_base = "memory://upload/a.zarr"});
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  auto first = set->Find("0.0");
  ASSERT_TRUE(first.ok() && first->has_value());
  EXPECT_EQ((*first)->url, "memory://upload/a.zarr/0.0");

  // Read through a store: targets of a scheme other than s3/gs are refused, naming it.
  const std::string json = (root / "a.json").string();
  ASSERT_TRUE(WriteReferences(context, *set, json, {}).ok());
  auto store = OpenReferenceStore(context, json, {.allow_remote = true});
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  auto refused = (*store)->Get("0.0");
  EXPECT_EQ(refused.status().code(), StatusCode::kUnsupported);
  EXPECT_THAT(Message(refused.status()), HasSubstr("memory://upload/a.zarr/0.0"));
  auto index = ReadReferenceIndex(context, (root / "none.json").string());
  EXPECT_EQ(index.status().code(), StatusCode::kNotFound);
}

// A labelmap database is a local RocksDB directory: other schemes are refused by name.
TEST(LabelmapApi, ObjectStorageIsRefusedAndFileUrlsAreLocal) {
  for (const char* url : {"s3://bucket/labels.db", "https://host/labels.db", "memory://db"}) {
    auto refused = OpenLabelmap(url, /*create=*/true);
    EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument) << url;
    EXPECT_THAT(Message(refused.status()), HasSubstr(url));
    EXPECT_THAT(Message(refused.status()),
                HasSubstr("a DVID labelmap database is a local RocksDB directory"));
    EXPECT_THAT(Message(refused.status()), HasSubstr("export-shards"));
  }
  const auto root = api_test::FreshDirectory("labelmap_url");
  auto created = OpenLabelmap("file://" + (root / "db").string(), /*create=*/true);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_TRUE(std::filesystem::is_directory(root / "db"));
}

// bcolz by URL: a carray in a memory store, refused when there, replaced on request.
TEST(BcolzApi, CreatesAppendsAndOpensByUrl) {
  Context context;
  const auto root = api_test::FreshDirectory("bcolz_url");
  const auto input = root / "rows.npy";
  {
    // A .npy of 5 little-endian int32 rows 0..4.
    std::string header = "{'descr': '<i4', 'fortran_order': False, 'shape': (5,), }";
    header += std::string(64 - (10 + header.size() + 1) % 64, ' ') + "\n";
    std::ofstream out(input, std::ios::binary);
    out << "\x93NUMPY" << '\x01' << '\x00' << static_cast<char>(header.size())
        << static_cast<char>(header.size() >> 8) << header;
    for (std::int32_t i = 0; i < 5; ++i) out.write(reinterpret_cast<const char*>(&i), 4);
  }
  auto created = CreateBcolz(context, "memory://t.bcolz", input, {}, /*overwrite=*/false);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(created->length, 5);
  auto again = CreateBcolz(context, "memory://t.bcolz", input, {}, /*overwrite=*/false);
  EXPECT_EQ(again.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(again.status()), HasSubstr("memory://t.bcolz"));
  EXPECT_THAT(Message(again.status()), HasSubstr("overwrite not requested"));
  auto appended = AppendBcolz(context, "memory://t.bcolz", input, {});
  ASSERT_TRUE(appended.ok()) << appended.status().ToString();
  EXPECT_EQ(appended->length, 10);
  EXPECT_TRUE(OpenBcolz(context, "memory://t.bcolz").ok());
  auto missing = OpenBcolz(context, "memory://other");
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  // A local dataset gets the data/ directory bcolz's open() wants.
  auto local = CreateBcolz(context, (root / "t.bcolz").string(), input, {}, false);
  ASSERT_TRUE(local.ok()) << local.status().ToString();
  EXPECT_TRUE(std::filesystem::is_directory(root / "t.bcolz" / "data"));
  std::filesystem::create_directories(root / "foreign");
  std::ofstream(root / "foreign" / "other.txt") << "x";
  auto foreign = CreateBcolz(context, (root / "foreign").string(), input, {}, /*overwrite=*/true);
  EXPECT_EQ(foreign.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(foreign.status()), HasSubstr("not a bcolz carray or ctable"));
  EXPECT_TRUE(std::filesystem::exists(root / "foreign" / "other.txt"));
}

}  // namespace
}  // namespace chunkwise
