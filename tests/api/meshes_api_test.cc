// GenerateMeshes through the facade alone: a zarr label array and a
// precomputed segmentation made from it, meshes written into the
// segmentation, its info pointing at them, and the errors of bad input.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "api_test_support.h"

namespace chunkwise {
namespace {

using api_test::FreshDirectory;
using api_test::Message;

std::string Text(const Context& context, const std::string& url, const std::string& key) {
  auto store = OpenStore(context, url);
  if (!store.ok()) return "";
  auto bytes = (*store)->Get(key);
  if (!bytes.ok() || !*bytes) return "";
  return std::string((*bytes)->begin(), (*bytes)->end());
}

class MeshesApi : public ::testing::Test {
 protected:
  // A 10 x 12 x 14 (z, y, x) uint32 array with a box of label 5 and one voxel of label 9,
  // and a precomputed segmentation of it at resolution 4, 4, 40.
  void SetUp() override {
    root_ = FreshDirectory(::testing::UnitTest::GetInstance()->current_test_info()->name());
    zarr_ = (root_ / "labels.zarr").string();
    volume_ = (root_ / "seg").string();
    ZarrArraySpec spec{
        .shape = {10, 12, 14}, .data_type = *ParseDataType("uint32"), .chunks = {4, 5, 6}};
    auto array = CreateZarrArray(context_, zarr_, spec);
    ASSERT_TRUE(array.ok()) << array.status().ToString();
    std::vector<std::uint32_t> labels(10 * 12 * 14, 0);
    for (int z = 2; z < 6; ++z)
      for (int y = 3; y < 9; ++y)
        for (int x = 1; x < 13; ++x) labels[(z * 12 + y) * 14 + x] = 5;
    labels[(8 * 12 + 10) * 14 + 2] = 9;
    Bytes bytes(labels.size() * 4);
    std::memcpy(bytes.data(), labels.data(), bytes.size());
    ASSERT_TRUE(WriteRegion(context_, *array, core::Region({0, 0, 0}, {10, 12, 14}), bytes).ok());
    ZarrToPrecomputedOptions options;
    options.resolution = {4, 4, 40};
    auto converted = ZarrToPrecomputed(context_, zarr_, volume_, options);
    ASSERT_TRUE(converted.ok()) << converted.status().ToString();
  }

  Context context_;
  std::filesystem::path root_;
  std::string zarr_;
  std::string volume_;
};

TEST_F(MeshesApi, MeshesAndPropertiesGoIntoTheSegmentationAndItsInfoNamesThem) {
  MeshOptions options;
  options.chunk = {3, 4, 5};
  options.max_simplification_error = 0;  // Marching cubes as it is.
  auto summary = GenerateMeshes(context_, zarr_, volume_, options);
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  EXPECT_EQ(summary->segments, 2u);
  EXPECT_EQ(summary->voxels, 10u * 12 * 14);
  const auto info = nlohmann::json::parse(Text(context_, volume_, "info"));
  EXPECT_EQ(info["mesh"], "mesh");
  EXPECT_EQ(info["segment_properties"], "segment_properties");
  EXPECT_EQ(info["scales"][0]["resolution"], nlohmann::json({4, 4, 40}));  // Kept.
  EXPECT_EQ(nlohmann::json::parse(Text(context_, volume_, "mesh/info"))["@type"],
            "neuroglancer_legacy_mesh");
  EXPECT_EQ(nlohmann::json::parse(Text(context_, volume_, "mesh/5:0"))["fragments"],
            nlohmann::json({"5:0:all"}));
  // Label 9's one voxel (z 8, y 10, x 2): an octahedron at its face centres, in nm.
  const std::string fragment = Text(context_, volume_, "mesh/9:0:all");
  ASSERT_EQ(fragment.size(), 4u + 6 * 12 + 8 * 12);
  std::uint32_t count = 0;
  std::memcpy(&count, fragment.data(), 4);
  EXPECT_EQ(count, 6u);
  float first[3];
  std::memcpy(first, fragment.data() + 4, 12);
  float lowest_x = 1e9f;
  for (int v = 0; v < 6; ++v) {
    float p[3];
    std::memcpy(p, fragment.data() + 4 + 12 * v, 12);
    lowest_x = std::min(lowest_x, p[0]);
    EXPECT_TRUE(p[2] == 340.0f || p[2] == 320.0f || p[2] == 360.0f) << p[2];
  }
  EXPECT_EQ(lowest_x, 8.0f);  // x 2 * 4 nm.
  const auto properties = nlohmann::json::parse(Text(context_, volume_, "segment_properties/info"));
  EXPECT_EQ(properties["@type"], "neuroglancer_segment_properties");
  EXPECT_EQ(properties["inline"]["ids"], nlohmann::json({"5", "9"}));
  EXPECT_EQ(properties["inline"]["properties"][0]["id"], "voxels");
  EXPECT_EQ(properties["inline"]["properties"][0]["values"], nlohmann::json({4 * 6 * 12, 1}));
}

TEST_F(MeshesApi, ThePrecomputedVolumeIsItsOwnSourceAndNamesComeFromACsv) {
  const std::string csv = (root_ / "names.csv").string();
  std::ofstream(csv) << "id,name,tags\n5,\"slab, big\",wide flat\n";
  MeshOptions options;
  options.names_csv = csv;
  options.labels = {5};
  auto summary = GenerateMeshes(context_, volume_, volume_, options);
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  EXPECT_EQ(summary->segments, 1u);
  EXPECT_EQ(Text(context_, volume_, "mesh/9:0"), "");
  const auto properties =
      nlohmann::json::parse(Text(context_, volume_, "segment_properties/info"))["inline"];
  EXPECT_EQ(properties["ids"], nlohmann::json({"5"}));
  EXPECT_EQ(properties["properties"][0],
            nlohmann::json({{"id", "name"}, {"type", "label"}, {"values", {"slab, big"}}}));
  EXPECT_EQ(properties["properties"][2]["tags"], nlohmann::json({"flat", "wide"}));
  EXPECT_EQ(properties["properties"][2]["values"], nlohmann::json({{0, 1}}));
}

TEST_F(MeshesApi, ExistingMeshesAreRefusedUnlessOverwrite) {
  ASSERT_TRUE(GenerateMeshes(context_, zarr_, volume_).ok());
  const std::string before = Text(context_, volume_, "mesh/5:0:all");
  auto again = GenerateMeshes(context_, zarr_, volume_);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(again.status().field(), "overwrite");
  EXPECT_NE(Message(again.status()).find("mesh"), std::string::npos);
  MeshOptions options;
  options.overwrite = true;
  options.labels = {9};
  ASSERT_TRUE(GenerateMeshes(context_, zarr_, volume_, options).ok());
  EXPECT_EQ(Text(context_, volume_, "mesh/5:0:all"), "");  // The old folder was emptied.
  EXPECT_FALSE(before.empty());
}

TEST_F(MeshesApi, NoLabelsIsAnEmptyResult) {
  const std::string empty = (root_ / "empty.zarr").string();
  ZarrArraySpec spec{
      .shape = {10, 12, 14}, .data_type = *ParseDataType("uint64"), .chunks = {5, 6, 7}};
  ASSERT_TRUE(CreateZarrArray(context_, empty, spec).ok());
  auto summary = GenerateMeshes(context_, empty, volume_);
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  EXPECT_EQ(summary->segments, 0u);
  const auto properties =
      nlohmann::json::parse(Text(context_, volume_, "segment_properties/info"))["inline"];
  EXPECT_EQ(properties["ids"], nlohmann::json::array());

  // As a zarr-vectors store: one with no vertices.
  MeshOptions vectors;
  vectors.format = "vectors";
  const std::string store = (root_ / "empty.zarrvectors").string();
  auto none = GenerateMeshes(context_, empty, store, vectors);
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_EQ(none->segments, 0u);
  auto read = ReadVectors(context_, store);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_TRUE(read->geometry.positions.empty());
}

TEST_F(MeshesApi, BadInputIsNamed) {
  auto missing = GenerateMeshes(context_, (root_ / "nothing").string(), volume_);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(Message(missing.status()).find("nothing"), std::string::npos);

  auto no_destination = GenerateMeshes(context_, zarr_, (root_ / "elsewhere").string());
  ASSERT_FALSE(no_destination.ok());
  EXPECT_EQ(no_destination.status().code(), StatusCode::kNotFound);
  EXPECT_NE(Message(no_destination.status()).find("elsewhere"), std::string::npos);

  const std::string floats = (root_ / "floats.zarr").string();
  ZarrArraySpec spec{
      .shape = {10, 12, 14}, .data_type = *ParseDataType("float32"), .chunks = {5, 6, 7}};
  ASSERT_TRUE(CreateZarrArray(context_, floats, spec).ok());
  auto wrong_type = GenerateMeshes(context_, floats, volume_);
  ASSERT_FALSE(wrong_type.ok());
  EXPECT_EQ(wrong_type.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(Message(wrong_type.status()).find("float32"), std::string::npos);

  const std::string other = (root_ / "other.zarr").string();
  spec = {.shape = {10, 12, 15}, .data_type = *ParseDataType("uint8"), .chunks = {5, 6, 7}};
  ASSERT_TRUE(CreateZarrArray(context_, other, spec).ok());
  auto wrong_size = GenerateMeshes(context_, other, volume_);
  ASSERT_FALSE(wrong_size.ok());
  EXPECT_EQ(wrong_size.status().code(), StatusCode::kInvalidArgument);

  const std::string csv = (root_ / "bad.csv").string();
  std::ofstream(csv) << "5,a\nfive,b\n";
  MeshOptions options;
  options.names_csv = csv;
  auto bad_csv = GenerateMeshes(context_, zarr_, volume_, options);
  ASSERT_FALSE(bad_csv.ok());
  EXPECT_EQ(bad_csv.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(Message(bad_csv.status()).find("bad.csv line 2"), std::string::npos)
      << Message(bad_csv.status());

  options = {};
  options.format = "multires";
  options.lods = 17;
  auto too_many = GenerateMeshes(context_, zarr_, volume_, options);
  EXPECT_EQ(too_many.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(too_many.status().field(), "lods");
  // Nothing was written by any of these.
  EXPECT_EQ(Text(context_, volume_, "mesh/info"), "");
  EXPECT_FALSE(nlohmann::json::parse(Text(context_, volume_, "info")).contains("mesh"));
}

TEST_F(MeshesApi, AnyStoreTakesTheMeshes) {
  ASSERT_TRUE(ZarrToPrecomputed(context_, zarr_, "memory://meshes/seg").ok());
  MeshOptions options;
  options.max_simplification_error = 0;
  auto summary = GenerateMeshes(context_, zarr_, "memory://meshes/seg", options);
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  EXPECT_EQ(summary->segments, 2u);
  EXPECT_EQ(nlohmann::json::parse(Text(context_, "memory://meshes/seg", "info"))["mesh"], "mesh");
  EXPECT_EQ(Text(context_, "memory://meshes/seg", "mesh/9:0:all").size(), 4u + 6 * 12 + 8 * 12);
}

// By default (igneous's factor 100 and 40 nm) the meshes are simplified:
// label 5's slab keeps far fewer triangles, and the octahedron of label 9's
// one voxel (4 nm from its centre) becomes the smallest closed mesh.
TEST_F(MeshesApi, MeshesAreSimplifiedByDefault) {
  ASSERT_TRUE(ZarrToPrecomputed(context_, zarr_, "memory://full/seg").ok());
  ASSERT_TRUE(ZarrToPrecomputed(context_, zarr_, "memory://simple/seg").ok());
  MeshOptions unsimplified;
  unsimplified.max_simplification_error = 0;
  auto full = GenerateMeshes(context_, zarr_, "memory://full/seg", unsimplified);
  auto simple = GenerateMeshes(context_, zarr_, "memory://simple/seg");
  ASSERT_TRUE(full.ok()) << full.status().ToString();
  ASSERT_TRUE(simple.ok()) << simple.status().ToString();
  EXPECT_LT(simple->triangles * 4, full->triangles);
  EXPECT_LT(simple->bytes, full->bytes);
  const std::string octahedron = Text(context_, "memory://simple/seg", "mesh/9:0:all");
  EXPECT_EQ(octahedron.size(), 4u + 4 * 12 + 4 * 12);  // A tetrahedron.
}

TEST_F(MeshesApi, SimplificationNeedsANonNegativeFactorAndError) {
  MeshOptions options;
  options.simplification_factor = -1;
  auto factor = GenerateMeshes(context_, zarr_, volume_, options);
  EXPECT_EQ(factor.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(factor.status().field(), "simplification_factor");
  options.simplification_factor = 100;
  options.max_simplification_error = std::nan("");
  auto error = GenerateMeshes(context_, zarr_, volume_, options);
  EXPECT_EQ(error.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(error.status().field(), "max_simplification_error");
  EXPECT_EQ(Text(context_, volume_, "mesh/info"), "");
}

TEST_F(MeshesApi, MultiresMeshesGoIntoAnyStore) {
  ASSERT_TRUE(ZarrToPrecomputed(context_, zarr_, "memory://multires/seg").ok());
  MeshOptions options;
  options.format = "multires";
  options.chunk = {4, 4, 4};
  auto summary = GenerateMeshes(context_, zarr_, "memory://multires/seg", options);
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  EXPECT_EQ(summary->segments, 2u);
  const auto info = nlohmann::json::parse(Text(context_, "memory://multires/seg", "mesh/info"));
  EXPECT_EQ(info["@type"], "neuroglancer_multilod_draco");
  const std::string index = Text(context_, "memory://multires/seg", "mesh/9.index");
  ASSERT_GE(index.size(), 28u);
  std::uint32_t lods = 0;
  std::memcpy(&lods, index.data() + 24, 4);
  EXPECT_GE(lods, 1u);
  EXPECT_LE(lods, 3u);
  ASSERT_GE(index.size(), 28u + 20 * lods);
  EXPECT_EQ((index.size() - 28 - 20 * lods) % 16, 0u);  // 16 bytes per fragment.
  EXPECT_FALSE(Text(context_, "memory://multires/seg", "mesh/9").empty());
  EXPECT_EQ(Text(context_, "memory://multires/seg", "mesh/9:0"), "");
}

TEST_F(MeshesApi, ACancelledCallWritesNothing) {
  core::Cancellation cancelled;
  cancelled.Cancel();
  CallOptions call;
  call.cancellation = &cancelled;
  auto result = GenerateMeshes(context_, zarr_, volume_, {}, call);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kCancelled);
  EXPECT_EQ(Text(context_, volume_, "mesh/info"), "");
}

// The legacy fragment at `key` as triangles of (x, y, z) corners, in order.
std::vector<std::array<float, 9>> LegacyTriangles(const std::string& fragment) {
  std::uint32_t count = 0;
  std::memcpy(&count, fragment.data(), 4);
  std::vector<float> xyz(3 * count);
  std::memcpy(xyz.data(), fragment.data() + 4, 12 * count);
  const std::size_t triangles = (fragment.size() - 4 - 12 * count) / 12;
  std::vector<std::array<float, 9>> out(triangles);
  for (std::size_t t = 0; t < triangles; ++t) {
    for (int c = 0; c < 3; ++c) {
      std::uint32_t v = 0;
      std::memcpy(&v, fragment.data() + 4 + 12 * count + 12 * t + 4 * c, 4);
      for (int a = 0; a < 3; ++a) out[t][3 * c + a] = xyz[3 * v + a];
    }
  }
  return out;
}

TEST_F(MeshesApi, AVectorsStoreHoldsTheLegacyTrianglesByLabel) {
  MeshOptions options;
  options.chunk = {3, 4, 5};
  ASSERT_TRUE(GenerateMeshes(context_, volume_, volume_, options).ok());
  const std::string store = (root_ / "mesh.zarrvectors").string();
  options.format = "vectors";
  auto summary = GenerateMeshes(context_, volume_, store, options);
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  EXPECT_EQ(summary->segments, 2u);
  EXPECT_TRUE(summary->mesh_dir.empty());
  auto described = DescribeVectors(context_, store);
  ASSERT_TRUE(described.ok()) << described.status().ToString();
  EXPECT_EQ(described->root.geometry_type, VectorGeometryType::kMesh);
  // Chunks of 3, 4, 5 voxels (z, y, x) at 4, 4, 40 nm: 20, 16, 120 nm (x, y, z).
  EXPECT_EQ(described->root.chunk_shape, (std::array<double, 3>{20, 16, 120}));
  std::uint64_t triangles = 0;
  for (std::uint64_t label : {5, 9}) {
    VectorsReadOptions read;
    read.object_id = static_cast<std::int64_t>(label);
    auto got = ReadVectors(context_, store, read);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    const VectorGeometry& g = got->geometry;
    std::vector<std::array<float, 9>> ours;
    for (std::size_t t = 0; t < g.num_links(); ++t) {
      std::array<float, 9> corners{};
      for (int c = 0; c < 3; ++c) {
        for (int a = 0; a < 3; ++a) corners[3 * c + a] = g.positions[g.links[3 * t + c]][a];
      }
      ours.push_back(corners);
    }
    std::vector<std::array<float, 9>> legacy =
        LegacyTriangles(Text(context_, volume_, "mesh/" + std::to_string(label) + ":0:all"));
    ASSERT_FALSE(legacy.empty());
    std::sort(ours.begin(), ours.end());
    std::sort(legacy.begin(), legacy.end());
    EXPECT_EQ(ours, legacy) << label;  // positions exact, winding kept
    triangles += legacy.size();
  }
  EXPECT_EQ(summary->triangles, triangles);

  // Layout 0.9, options.lods (3) levels; each coarser level holds every
  // label, in no more triangles than the level below.
  EXPECT_EQ(described->root.version, "0.9.2");
  ASSERT_EQ(described->root.num_levels, 3);
  ASSERT_EQ(described->levels.size(), 3u);
  for (std::uint64_t label : {5, 9}) {
    std::size_t finer = 0;
    for (int level = 0; level < 3; ++level) {
      VectorsReadOptions read;
      read.level = level;
      read.object_id = static_cast<std::int64_t>(label);
      auto got = ReadVectors(context_, store, read);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      const std::size_t faces = got->geometry.num_links();
      EXPECT_GT(faces, 0u) << "label " << label << " level " << level;
      if (level > 0) {
        EXPECT_LE(faces, finer) << "label " << label << " level " << level;
      }
      for (const std::int64_t index : got->geometry.links) {
        EXPECT_LT(static_cast<std::size_t>(index), got->geometry.positions.size());
      }
      finer = faces;
    }
  }
  options.lods = 17;
  options.overwrite = true;
  EXPECT_EQ(GenerateMeshes(context_, volume_, store, options).status().field(), "lods");
  options.lods = 3;
  options.overwrite = false;

  EXPECT_EQ(GenerateMeshes(context_, volume_, store, options).status().code(),
            StatusCode::kInvalidArgument);
  options.overwrite = true;
  options.names_csv = (root_ / "names.csv").string();
  auto names = GenerateMeshes(context_, volume_, store, options);
  EXPECT_EQ(names.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(names.status().field(), "names");
  options.names_csv.clear();
  options.format = "stl";
  auto unknown = GenerateMeshes(context_, volume_, store, options);
  EXPECT_EQ(unknown.status().field(), "format");
  EXPECT_NE(Message(unknown.status()).find("legacy, multires, multires-sharded, vectors"),
            std::string::npos)
      << Message(unknown.status());
}

}  // namespace
}  // namespace chunkwise
