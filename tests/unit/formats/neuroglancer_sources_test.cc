#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "chunkwise/formats/precomputed/volume.h"
#include "formats/neuroglancer/sources.h"
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

}  // namespace
}  // namespace chunkwise::formats::neuroglancer
