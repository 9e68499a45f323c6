#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "formats/neuroglancer/sources.h"
#include "formats/precomputed/volume.h"
#include "store/memory_store.h"

namespace chunkwise::formats::neuroglancer {
namespace {

using ::testing::HasSubstr;

std::shared_ptr<store::MemoryStore> Outputs() {
  auto store = store::MemoryStore::Create();
  precomputed::VolumeInfo info;
  precomputed::ScaleInfo scale;
  scale.key = "s0";
  scale.size = {10, 10, 10};
  info.scales.push_back(scale);
  EXPECT_TRUE(precomputed::Volume::Create(store, "out/seg/", info, false).ok());
  info.type = precomputed::VolumeType::kImage;
  info.data_type = core::DataType(core::DataTypeId::kUInt8);
  EXPECT_TRUE(precomputed::Volume::Create(store, "out/img/", info, false).ok());
  const std::string zarr =
      R"({"zarr_format":3,"node_type":"array","shape":[4,4],"data_type":"uint16",)"
      R"("chunk_grid":{"name":"regular","configuration":{"chunk_shape":[2,2]}},)"
      R"("chunk_key_encoding":{"name":"default"},"fill_value":0,)"
      R"("codecs":[{"name":"bytes","configuration":{"endian":"little"}}]})";
  EXPECT_TRUE(store->Set("out/frames.zarr/zarr.json", AsBytes(zarr)).ok());
  EXPECT_TRUE(store->Set("out/frames.zarr/c/0/0", AsBytes("........")).ok());
  EXPECT_TRUE(store->Set("out/shards/info", AsBytes("{}")).ok());
  EXPECT_TRUE(store->Set("out/shards/s0/0_0_0.arrow", AsBytes("x")).ok());
  EXPECT_TRUE(store->Set("out/notes.txt", AsBytes("x")).ok());
  return store;
}

TEST(NeuroglancerSources, FindsWhatNeuroglancerOpens) {
  auto store = Outputs();
  Result<std::vector<Source>> sources = FindSources(*store, "out/");
  ASSERT_TRUE(sources.ok()) << sources.status().ToString();
  ASSERT_EQ(sources->size(), 4u);
  EXPECT_EQ((*sources)[0].prefix, "out/frames.zarr/");
  EXPECT_EQ((*sources)[0].kind, SourceKind::kZarr3);
  EXPECT_EQ((*sources)[0].layer_type, "image");
  EXPECT_EQ((*sources)[1].prefix, "out/img/");
  EXPECT_EQ((*sources)[1].layer_type, "image");
  EXPECT_EQ((*sources)[2].prefix, "out/seg/");
  EXPECT_EQ((*sources)[2].layer_type, "segmentation");
  EXPECT_EQ((*sources)[3].prefix, "out/shards/");
  EXPECT_EQ((*sources)[3].kind, SourceKind::kArrowShards);
  EXPECT_FALSE((*sources)[3].openable());
  EXPECT_EQ(SourceUrl((*sources)[2], "http://h:1/"), "precomputed://http://h:1/out/seg");
  EXPECT_EQ(SourceUrl((*sources)[0], "http://h:1/"), "zarr3://http://h:1/out/frames.zarr/");
}

TEST(NeuroglancerSources, LinksCarryTheStateInTheFragment) {
  auto store = Outputs();
  const std::vector<Source> sources = *FindSources(*store, "out/");
  const nlohmann::json state = ViewerState(sources, "http://h:1/");
  ASSERT_EQ(state["layers"].size(), 3u);  // Not the Arrow shards.
  EXPECT_EQ(state["layers"][2]["type"], "segmentation");
  const std::string link = ViewerLink("https://viewer/", state);
  EXPECT_THAT(link, ::testing::StartsWith("https://viewer/#!%7B%22layers%22"));
  EXPECT_THAT(link, HasSubstr("precomputed://http://h:1/out/seg%22"));
  EXPECT_EQ(link.find(' '), std::string::npos);
}

// An OME-Zarr image group: v0.5 (zarr v3, "ome" in the attributes) or v0.4
// (zarr v2, "multiscales" in .zattrs), of two levels of `data_type`.
void PutOmeGroup(store::MemoryStore& store, const std::string& group, bool v3,
                 const std::string& data_type, bool labels = false) {
  const std::string multiscales =
      R"({"multiscales":[{"axes":[{"name":"y","type":"space"},{"name":"x","type":"space"}],)"
      R"("datasets":[{"path":"0"},{"path":"1"}]}])" +
      std::string(labels ? R"(,"image-label":{})" : "") + "}";
  for (const std::string level : {"0", "1"}) {
    const std::string v3_array =
        R"({"zarr_format":3,"node_type":"array","shape":[4,4],"data_type":")" + data_type +
        R"(","chunk_grid":{"name":"regular","configuration":{"chunk_shape":[2,2]}},)"
        R"("chunk_key_encoding":{"name":"default"},"fill_value":0,)"
        R"("codecs":[{"name":"bytes","configuration":{"endian":"little"}}]})";
    const std::string v2_array =
        R"({"zarr_format":2,"shape":[4,4],"chunks":[2,2],"dtype":"<u2","compressor":null,)"
        R"("fill_value":0,"order":"C","filters":null})";
    ASSERT_TRUE(store
                    .Set(group + level + (v3 ? "/zarr.json" : "/.zarray"),
                         AsBytes(v3 ? v3_array : v2_array))
                    .ok());
  }
  if (v3) {
    const std::string group_json =
        R"({"zarr_format":3,"node_type":"group","attributes":{"ome":)" + multiscales + "}}";
    ASSERT_TRUE(store.Set(group + "zarr.json", AsBytes(group_json)).ok());
  } else {
    ASSERT_TRUE(store.Set(group + ".zgroup", AsBytes(R"({"zarr_format":2})")).ok());
    ASSERT_TRUE(store.Set(group + ".zattrs", AsBytes(multiscales)).ok());
  }
}

TEST(NeuroglancerSources, OmeZarrGroupIsOneSourceNotOnePerLevel) {
  auto store = store::MemoryStore::Create();
  PutOmeGroup(*store, "out/v5.ome.zarr/", true, "uint16");
  PutOmeGroup(*store, "out/v4.ome.zarr/", false, "uint16");
  PutOmeGroup(*store, "out/labels.ome.zarr/", true, "uint8", /*labels=*/true);
  Result<std::vector<Source>> sources = FindSources(*store, "out/");
  ASSERT_TRUE(sources.ok()) << sources.status().ToString();
  ASSERT_EQ(sources->size(), 3u);
  EXPECT_EQ((*sources)[0].prefix, "out/labels.ome.zarr/");
  EXPECT_EQ((*sources)[0].layer_type, "segmentation");  // "image-label".
  EXPECT_EQ((*sources)[1].prefix, "out/v4.ome.zarr/");
  EXPECT_EQ((*sources)[1].kind, SourceKind::kZarr2);
  EXPECT_EQ((*sources)[1].layer_type, "image");
  EXPECT_EQ((*sources)[2].kind, SourceKind::kZarr3);
  EXPECT_EQ((*sources)[2].multiscale["datasets"].size(), 2u);
  EXPECT_EQ(SourceUrl((*sources)[2], "http://h:1/"), "zarr3://http://h:1/out/v5.ome.zarr/");
}

}  // namespace
}  // namespace chunkwise::formats::neuroglancer
