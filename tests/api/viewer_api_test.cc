// `chunkwise view`'s state (facade/viewer_state.h) and server (facade/viewer.h):
// contrast from the data, layer kinds, an OME-Zarr pyramid as one layer, the
// position at the data's centre, and the client and data served from one address.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "api_test_support.h"

namespace chunkwise {
namespace {

using api_test::FreshDirectory;
using nlohmann::json;
using ::testing::HasSubstr;

// A uint16 array of shape (z, y, x) = (4, 32, 64) whose value is 1000 + 200 * x / 63.
void MakeNarrowImage(const Context& context, const std::string& url, bool named = true) {
  ZarrArraySpec spec{.shape = {4, 32, 64},
                     .data_type = core::DataType(core::DataTypeId::kUInt16),
                     .chunks = {2, 16, 32}};
  if (named) spec.dimension_names = {"z", "y", "x"};
  Result<ZarrArray> array = CreateZarrArray(context, url, spec);
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  Bytes data(4 * 32 * 64 * 2);
  for (std::size_t i = 0; i < 4 * 32 * 64; ++i) {
    const auto value = static_cast<std::uint16_t>(1000 + 200 * (i % 64) / 63);
    std::memcpy(data.data() + 2 * i, &value, 2);
  }
  ASSERT_TRUE(WriteRegion(context, *array, core::Region::Full(spec.shape), data).ok());
}

void MakeLabels(const Context& context, const std::string& url) {
  ZarrArraySpec spec{.shape = {2, 8, 8},
                     .data_type = core::DataType(core::DataTypeId::kUInt32),
                     .chunks = {2, 8, 8},
                     .dimension_names = {"z", "y", "x"}};
  Result<ZarrArray> array = CreateZarrArray(context, url, spec);
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  ASSERT_TRUE(
      WriteRegion(context, *array, core::Region::Full(spec.shape), Bytes(2 * 64 * 4, 7)).ok());
}

// An OME-Zarr v0.5 group of three scales (s0 is 4 x 32 x 64, halved in y and x),
// in micrometres, the coarsest holding 100 and 300 only.
void MakeOmePyramid(const Context& context, const std::filesystem::path& group) {
  std::filesystem::create_directories(group);
  json datasets = json::array();
  for (int level = 0; level < 3; ++level) {
    const std::string url = (group / ("s" + std::to_string(level))).string();
    ZarrArraySpec spec{.shape = {4, 32 >> level, 64 >> level},
                       .data_type = core::DataType(core::DataTypeId::kUInt8),
                       .chunks = {4, 8, 8}};
    Result<ZarrArray> array = CreateZarrArray(context, url, spec);
    ASSERT_TRUE(array.ok()) << array.status().ToString();
    const core::Index n = spec.shape[0] * spec.shape[1] * spec.shape[2];
    Bytes data(n);
    for (core::Index i = 0; i < n; ++i) data[i] = level == 2 ? (i % 2 ? 100 : 44) : 5;
    ASSERT_TRUE(WriteRegion(context, *array, core::Region::Full(spec.shape), data).ok());
    const double f = 1 << level;
    datasets.push_back({{"path", "s" + std::to_string(level)},
                        {"coordinateTransformations",
                         json::array({{{"type", "scale"}, {"scale", {2.0, 0.5 * f, 0.5 * f}}}})}});
  }
  const json axes = json::array({{{"name", "z"}, {"type", "space"}, {"unit", "micrometer"}},
                                 {{"name", "y"}, {"type", "space"}, {"unit", "micrometer"}},
                                 {{"name", "x"}, {"type", "space"}, {"unit", "micrometer"}}});
  const json group_json = {
      {"zarr_format", 3},
      {"node_type", "group"},
      {"attributes",
       {{"ome",
         {{"version", "0.5"},
          {"multiscales", json::array({{{"axes", axes}, {"datasets", datasets}}})}}}}}};
  std::ofstream(group / "zarr.json") << group_json.dump();
}

TEST(ViewerStateApi, ImageContrastSpansTheDataNotTheType) {
  Context context;
  const auto dir = FreshDirectory("viewer_contrast");
  MakeNarrowImage(context, (dir / "img.zarr").string());
  const std::vector<ViewedData> data = {{(dir / "img.zarr").string(), "http://h:1/data/0/"}};
  Result<ViewerStateResult> result = BuildViewerState(context, data);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_EQ(result->layers.size(), 1u);
  const ViewerLayer& layer = result->layers[0];
  EXPECT_EQ(layer.type, "image");
  EXPECT_EQ(layer.name, "img.zarr");
  EXPECT_EQ(layer.source, "zarr3://http://h:1/data/0/");
  ASSERT_TRUE(layer.contrast.has_value());
  // The 1st and 99th percentiles of 1000..1200 in steps of about 3.2.
  EXPECT_GE((*layer.contrast)[0], 1000);
  EXPECT_LE((*layer.contrast)[0], 1010);
  EXPECT_GE((*layer.contrast)[1], 1190);
  EXPECT_LE((*layer.contrast)[1], 1200);
  const json& state = result->state;
  const json range = state["layers"][0]["shaderControls"]["normalized"]["range"];
  EXPECT_EQ(range[0].get<double>(), (*layer.contrast)[0]);
  EXPECT_EQ(range[1].get<double>(), (*layer.contrast)[1]);
  // Dimensions by name, x y z in that order, the position at the centre.
  EXPECT_EQ(state["dimensions"].dump(), R"({"x":[1.0,""],"y":[1.0,""],"z":[1.0,""]})");
  EXPECT_EQ(state["position"].dump(), "[32.0,16.0,2.0]");
}

TEST(ViewerStateApi, ContrastRangeIsThePercentiles) {
  std::vector<double> values;
  for (int i = 0; i <= 100; ++i) values.push_back(1000 + 2 * i);
  const std::array<double, 2> range = ContrastRange(values, 1, 99);
  EXPECT_EQ(range[0], 1002);
  EXPECT_EQ(range[1], 1198);
  EXPECT_EQ(ContrastRange({5, 5, 5}, 1, 99)[1], 6);  // Flat data: still a range.
}

TEST(ViewerStateApi, LabelsAreSegmentationAndSeveralPathsAreLayersOfOneView) {
  Context context;
  const auto dir = FreshDirectory("viewer_kinds");
  MakeNarrowImage(context, (dir / "img.zarr").string());
  MakeLabels(context, (dir / "labels.zarr").string());
  const std::vector<ViewedData> data = {{(dir / "img.zarr").string(), "http://h:1/data/0/"},
                                        {(dir / "labels.zarr").string(), "http://h:1/data/1/"}};
  Result<ViewerStateResult> result = BuildViewerState(context, data);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_EQ(result->layers.size(), 2u);
  EXPECT_EQ(result->layers[1].type, "segmentation");
  EXPECT_EQ(result->layers[1].source, "zarr3://http://h:1/data/1/");
  EXPECT_FALSE(result->layers[1].contrast.has_value());
  EXPECT_FALSE(result->state["layers"][1].contains("shaderControls"));
  EXPECT_EQ(result->state["layers"].size(), 2u);
}

TEST(ViewerStateApi, OmeZarrPyramidIsOneLayerWithItsUnits) {
  Context context;
  const auto dir = FreshDirectory("viewer_ome");
  MakeOmePyramid(context, dir / "pyramid.ome.zarr");
  const std::vector<ViewedData> data = {{dir.string(), "http://h:1/data/0/"}};
  Result<ViewerStateResult> result = BuildViewerState(context, data);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_EQ(result->layers.size(), 1u);  // Not one per scale.
  const ViewerLayer& layer = result->layers[0];
  EXPECT_EQ(layer.name, "pyramid.ome.zarr");
  EXPECT_EQ(layer.kind, "OME-Zarr (zarr v3)");
  EXPECT_EQ(layer.source, "zarr3://http://h:1/data/0/pyramid.ome.zarr/");
  // Sampled from the coarsest scale (values 44 and 100), not the finest (all 5).
  ASSERT_TRUE(layer.contrast.has_value());
  EXPECT_EQ((*layer.contrast)[0], 44);
  EXPECT_EQ((*layer.contrast)[1], 100);
  const json& dimensions = result->state["dimensions"];
  EXPECT_DOUBLE_EQ(dimensions["x"][0].get<double>(), 0.5e-6);
  EXPECT_EQ(dimensions["x"][1], "m");
  EXPECT_DOUBLE_EQ(dimensions["z"][0].get<double>(), 2e-6);
  EXPECT_EQ(result->state["position"].dump(), "[32.0,16.0,2.0]");
}

TEST(ViewerStateApi, SegmentationWithMeshesSelectsItsLabels) {
  Context context;
  const auto dir = FreshDirectory("viewer_meshes");
  const std::string labels = (dir / "labels.zarr").string();
  ZarrArraySpec spec{.shape = {8, 8, 8},
                     .data_type = core::DataType(core::DataTypeId::kUInt32),
                     .chunks = {8, 8, 8}};
  Result<ZarrArray> array = CreateZarrArray(context, labels, spec);
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  Bytes data(8 * 8 * 8 * 4, 0);
  for (std::size_t i = 0; i < 8 * 8 * 8; ++i) {
    const std::uint32_t x = i % 8, y = i / 8 % 8, z = i / 64;
    const std::uint32_t label =
        x >= 1 && x < 7 && y >= 1 && y < 7 && z >= 1 && z < 7 ? (x < 4 ? 7 : 9) : 0;
    std::memcpy(data.data() + 4 * i, &label, 4);
  }
  ASSERT_TRUE(WriteRegion(context, *array, core::Region::Full(spec.shape), data).ok());
  const std::string seg = (dir / "seg").string();
  ZarrToPrecomputedOptions to{.type = PrecomputedVolumeType::kSegmentation};
  to.resolution = {4, 4, 40};
  ASSERT_TRUE(ZarrToPrecomputed(context, labels, seg, to).ok());
  const std::vector<ViewedData> plain = {{seg, "http://h:1/data/0/"}};
  Result<ViewerStateResult> before = BuildViewerState(context, plain);
  ASSERT_TRUE(before.ok()) << before.status().ToString();
  EXPECT_TRUE(before->layers[0].segments.empty());  // No meshes yet: nothing to select.
  Result<MeshSummary> meshes = GenerateMeshes(context, seg, seg);
  ASSERT_TRUE(meshes.ok()) << meshes.status().ToString();
  Result<ViewerStateResult> result = BuildViewerState(context, plain);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_EQ(result->layers.size(), 1u);
  EXPECT_EQ(result->layers[0].type, "segmentation");
  EXPECT_EQ(result->layers[0].source, "precomputed://http://h:1/data/0");
  EXPECT_THAT(result->layers[0].segments, ::testing::ElementsAre(7u, 9u));
  EXPECT_EQ(result->state["layers"][0]["segments"].dump(), R"(["7","9"])");
  // precomputed's nanometres, x y z, the centre of the 8 x 8 x 8 voxels.
  EXPECT_DOUBLE_EQ(result->state["dimensions"]["z"][0].get<double>(), 40e-9);
  EXPECT_EQ(result->state["position"].dump(), "[4.0,4.0,4.0]");
}

TEST(ViewerStateApi, MissingPathIsNotFoundNamingIt) {
  Context context;
  const std::string missing = (FreshDirectory("viewer_missing") / "nothing.zarr").string();
  const std::vector<ViewedData> data = {{missing, "http://h:1/data/0/"}};
  Result<ViewerStateResult> result = BuildViewerState(context, data);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(std::string(result.status().message()), HasSubstr(missing));
}

TEST(ViewerStateApi, FolderWithNothingToShowIsNotFound) {
  Context context;
  const auto dir = FreshDirectory("viewer_empty");
  std::ofstream(dir / "notes.txt") << "x";
  const std::vector<ViewedData> data = {{dir.string(), "http://h:1/data/0/"}};
  Result<ViewerStateResult> result = BuildViewerState(context, data);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(std::string(result.status().message()),
              HasSubstr("nothing here that neuroglancer opens"));
}

TEST(ViewerApi, ServesClientAndDataFromOneAddress) {
  Context context;
  const auto dir = FreshDirectory("viewer_server");
  MakeNarrowImage(context, (dir / "img.zarr").string());
  std::filesystem::create_directories(dir / "client");
  std::ofstream(dir / "client" / "index.html") << "<html>client</html>";
  const std::vector<std::string> urls = {(dir / "img.zarr").string()};
  Result<std::unique_ptr<Viewer>> viewer =
      Viewer::Start(context, urls, {.client_dir = (dir / "client").string()});
  ASSERT_TRUE(viewer.ok()) << viewer.status().ToString();
  const std::string base = (*viewer)->url();
  EXPECT_THAT(base, ::testing::StartsWith("http://127.0.0.1:"));
  EXPECT_THAT((*viewer)->link(), ::testing::StartsWith(base + "v/chunkwise/index.html#!"));
  // Read back through an http:// store: the client page and the data's metadata.
  Result<Bytes> page = ReadUrl(context, base + "v/chunkwise/index.html");
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_EQ(std::string(AsChars(*page)), "<html>client</html>");
  Result<Bytes> metadata = ReadUrl(context, base + "data/0/zarr.json");
  ASSERT_TRUE(metadata.ok()) << metadata.status().ToString();
  EXPECT_THAT(std::string(AsChars(*metadata)), HasSubstr("\"uint16\""));
  EXPECT_EQ((*viewer)->state()["layers"][0]["source"], "zarr3://" + base + "data/0/");
  (*viewer)->Stop();
}

TEST(ViewerApi, ClientFolderWithoutIndexIsNotFound) {
  Context context;
  const auto dir = FreshDirectory("viewer_no_client");
  MakeNarrowImage(context, (dir / "img.zarr").string());
  const std::vector<std::string> urls = {(dir / "img.zarr").string()};
  Result<std::unique_ptr<Viewer>> viewer =
      Viewer::Start(context, urls, {.client_dir = dir.string()});
  ASSERT_FALSE(viewer.ok());
  EXPECT_EQ(viewer.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(std::string(viewer.status().message()), HasSubstr("no index.html"));
  EXPECT_EQ(FindNeuroglancerClient(dir.string()).status().code(), StatusCode::kNotFound);
}

// With no folder given, no variable and a python3 that imports no neuroglancer,
// the library says how to get a client in its own terms: the CLI's flag is the
// CLI's to add (cli.view checks that it does).
TEST(ViewerApi, NoClientAnywhereNamesThePackageAndTheVariableNotAFlag) {
  const auto dir = FreshDirectory("viewer_no_python_client");
  const auto python = dir / "python3";
  std::ofstream(python) << "#!/bin/sh\nexit 1\n";
  std::filesystem::permissions(python, std::filesystem::perms::owner_all);
  const char* old_path = std::getenv("PATH");
  const std::string saved_path = old_path != nullptr ? old_path : "";
  const char* old_client = std::getenv("CHUNKWISE_NEUROGLANCER_CLIENT");
  const std::string saved_client = old_client != nullptr ? old_client : "";
  ::setenv("PATH", dir.c_str(), 1);
  ::unsetenv("CHUNKWISE_NEUROGLANCER_CLIENT");
  Result<std::string> client = FindNeuroglancerClient("");
  ::setenv("PATH", saved_path.c_str(), 1);
  if (old_client != nullptr) ::setenv("CHUNKWISE_NEUROGLANCER_CLIENT", saved_client.c_str(), 1);
  ASSERT_FALSE(client.ok()) << *client;
  EXPECT_EQ(client.status().code(), StatusCode::kNotFound);
  const std::string message(client.status().message());
  EXPECT_THAT(message, HasSubstr("pip install neuroglancer"));
  EXPECT_THAT(message, HasSubstr("CHUNKWISE_NEUROGLANCER_CLIENT"));
  EXPECT_THAT(message, ::testing::Not(HasSubstr("--client-dir")));
}

}  // namespace
}  // namespace chunkwise
