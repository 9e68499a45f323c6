#include "pipelines/meshing/mesh_output.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "formats/precomputed/legacy_mesh.h"
#include "formats/precomputed/multires_mesh.h"
#include "formats/precomputed/segment_properties.h"
#include "formats/precomputed/sharding.h"
#include "unit/forwarding_store.h"

namespace chunkwise::pipelines {
namespace {

namespace pc = formats::precomputed;

constexpr std::string_view kInfo =
    R"({"@type":"neuroglancer_multiscale_volume","type":"segmentation","data_type":"uint64",)"
    R"("num_channels":1,"scales":[{"key":"s0","size":[4,4,4],"resolution":[1,1,1],)"
    R"("voxel_offset":[0,0,0],"chunk_sizes":[[4,4,4]],"encoding":"raw"}]})";

ByteView View(std::string_view text) {
  return ByteView(reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
}

std::string Text(const store::Store& store, const std::string& key) {
  auto value = store.Get(key);
  if (!value.ok() || !*value) return "";
  return std::string((*value)->begin(), (*value)->end());
}

MeshedLabels Two() {
  MeshedLabels meshed;
  meshed.meshes[3] = {{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}, {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3}};
  meshed.meshes[12] = {{0, 0, 0, 2, 0, 0, 0, 2, 0}, {0, 1, 2}};
  meshed.voxel_counts = {{3, 10}, {12, 5'000'000'000}};
  return meshed;
}

// Fails every write of a key containing `poison` once armed.
class FailingStore : public test::ForwardingStore {
 public:
  std::string poison;
  Status Set(std::string_view key, ByteView value) override {
    if (!poison.empty() && key.find(poison) != std::string_view::npos) {
      return Status::IOError("disk full writing " + std::string(key));
    }
    return ForwardingStore::Set(key, value);
  }
};

TEST(MeshOutput, WritesFragmentsManifestsPropertiesAndNamesThemInTheInfo) {
  FailingStore store;
  ASSERT_TRUE(store.Set("v/info", View(kInfo)).ok());
  MeshOutputOptions options;
  options.names[12] = {"twelve", {"b", "a"}};
  auto summary = WriteLegacyMeshes(store, "v/", Two(), options);
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  EXPECT_EQ(summary->segments, 2u);
  EXPECT_EQ(summary->vertices, 7u);
  EXPECT_EQ(summary->triangles, 5u);
  const auto info = nlohmann::json::parse(Text(store, "v/info"));
  EXPECT_EQ(info["mesh"], "mesh");
  EXPECT_EQ(info["segment_properties"], "segment_properties");
  EXPECT_EQ(info["scales"][0]["key"], "s0");
  EXPECT_EQ(nlohmann::json::parse(Text(store, "v/mesh/info")),
            nlohmann::json({{"@type", "neuroglancer_legacy_mesh"}}));
  auto fragments = pc::ParseLegacyManifest(Text(store, "v/mesh/12:0"), "12:0");
  ASSERT_TRUE(fragments.ok());
  ASSERT_EQ(*fragments, std::vector<std::string>{"12:0:all"});
  const std::string bytes = Text(store, "v/mesh/12:0:all");
  auto mesh = pc::DecodeLegacyFragment(View(bytes), "12:0:all");
  ASSERT_TRUE(mesh.ok()) << mesh.status().ToString();
  EXPECT_EQ(mesh->vertices, Two().meshes[12].vertices);
  EXPECT_EQ(mesh->triangles, Two().meshes[12].triangles);
  const auto properties = nlohmann::json::parse(Text(store, "v/segment_properties/info"));
  EXPECT_EQ(properties["inline"]["ids"], nlohmann::json({"3", "12"}));
  const auto& list = properties["inline"]["properties"];
  EXPECT_EQ(list[0]["values"], nlohmann::json({"", "twelve"}));
  // A count past uint32 makes the property float32.
  EXPECT_EQ(list[1]["data_type"], "float32");
  EXPECT_EQ(list[2]["tags"], nlohmann::json({"a", "b"}));
  EXPECT_EQ(list[2]["values"], nlohmann::json({nlohmann::json::array(), {0, 1}}));
}

TEST(MeshOutput, AFailedWriteLeavesTheSegmentationAsItWas) {
  for (const std::string poison : {"12:0:all", "segment_properties/info", "v/info"}) {
    SCOPED_TRACE(poison);
    FailingStore store;
    ASSERT_TRUE(store.Set("v/info", View(kInfo)).ok());
    store.poison = poison;
    auto summary = WriteLegacyMeshes(store, "v/", Two(), {});
    ASSERT_FALSE(summary.ok());
    EXPECT_EQ(summary.status().code(), StatusCode::kIOError);
    EXPECT_NE(summary.status().message().find(poison), std::string::npos);
    EXPECT_EQ(Text(store, "v/info"), kInfo);
    auto keys = store.List("v/");
    ASSERT_TRUE(keys.ok());
    EXPECT_EQ(*keys, std::vector<std::string>{"v/info"});
  }
}

TEST(MeshOutput, ExistingMeshesAreRefusedWithoutOverwrite) {
  FailingStore store;
  ASSERT_TRUE(store.Set("info", View(kInfo)).ok());
  ASSERT_TRUE(store.Set("mesh/old:0", View("{}")).ok());
  auto refused = WriteLegacyMeshes(store, "", Two(), {});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(refused.status().field(), "overwrite");
  EXPECT_EQ(Text(store, "info"), kInfo);
  MeshOutputOptions options;
  options.overwrite = true;
  ASSERT_TRUE(WriteLegacyMeshes(store, "", Two(), options).ok());
  EXPECT_EQ(Text(store, "mesh/old:0"), "");
}

TEST(MeshOutput, OnlyASegmentationTakesMeshes) {
  FailingStore store;
  auto missing = WriteLegacyMeshes(store, "", Two(), {});
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  std::string image(kInfo);
  image.replace(image.find("segmentation"), 12, "image");
  ASSERT_TRUE(store.Set("info", View(image)).ok());
  auto refused = WriteLegacyMeshes(store, "", Two(), {});
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
}

// Label 5 on voxels x 1..4, y 1..4, z 5..8 of a 10^3 volume, meshed in voxels.
MeshedLabels Block() {
  LabelSource source{
      {10, 10, 10}, [](const core::Region& r) -> Result<std::vector<std::uint64_t>> {
        std::vector<std::uint64_t> out;
        for (auto z = r.start()[0]; z < r.stop()[0]; ++z)
          for (auto y = r.start()[1]; y < r.stop()[1]; ++y)
            for (auto x = r.start()[2]; x < r.stop()[2]; ++x)
              out.push_back(x >= 1 && x <= 4 && y >= 1 && y <= 4 && z >= 5 && z <= 8 ? 5 : 0);
        return out;
      }};
  auto meshed = MeshLabels(source, {});
  EXPECT_TRUE(meshed.ok()) << meshed.status().ToString();
  return meshed.ok() ? std::move(*meshed) : MeshedLabels{};
}

TEST(MeshOutput, WritesMultiresManifestsAndFragmentsAndTheTransform) {
  FailingStore store;
  ASSERT_TRUE(store.Set("v/info", View(kInfo)).ok());
  MultiresOutputOptions multires;
  multires.fragment = {2, 2, 2};  // Cells from -0.5: the block spans 3 x 3 x 3 of them.
  multires.resolution = {4, 4, 40};
  multires.voxel_offset = {10, 0, -1};
  const MeshedLabels block = Block();
  auto summary = WriteMultiresMeshes(store, "v/", block, {}, multires);
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  EXPECT_EQ(summary->segments, 1u);
  EXPECT_EQ(summary->vertices, block.meshes.at(5).num_vertices());
  EXPECT_EQ(summary->triangles, block.meshes.at(5).num_triangles());
  const auto info = nlohmann::json::parse(Text(store, "v/mesh/info"));
  EXPECT_EQ(info["@type"], "neuroglancer_multilod_draco");
  EXPECT_EQ(info["vertex_quantization_bits"], 16);
  EXPECT_EQ(info["transform"],
            nlohmann::json({4.0, 0.0, 0.0, 40.0, 0.0, 4.0, 0.0, 0.0, 0.0, 0.0, 40.0, -40.0}));
  EXPECT_EQ(nlohmann::json::parse(Text(store, "v/info"))["mesh"], "mesh");
  const std::string index = Text(store, "v/mesh/5.index");
  auto manifest = pc::DecodeMultiresManifest(View(index), "5.index");
  ASSERT_TRUE(manifest.ok()) << manifest.status().ToString();
  EXPECT_EQ(manifest->grid_origin, (std::array<float, 3>{-0.5f, -0.5f, -0.5f}));
  EXPECT_EQ(manifest->chunk_shape, (std::array<float, 3>{2, 2, 2}));
  // Three levels (the default), each cell's parent listed in the next.
  ASSERT_EQ(manifest->lods.size(), 3u);
  EXPECT_EQ(manifest->lods[0].positions.size(), 26u);  // 3^3 cells but the hollow middle.
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(manifest->lods[k].scale, static_cast<float>(1 << k));
    if (k == 0) continue;
    for (const auto& p : manifest->lods[k - 1].positions) {
      const std::array<std::uint32_t, 3> parent{p[0] >> 1, p[1] >> 1, p[2] >> 1};
      const auto& up = manifest->lods[k].positions;
      EXPECT_NE(std::find(up.begin(), up.end(), parent), up.end()) << "lod " << k;
    }
  }
  const std::string data = Text(store, "v/mesh/5");
  std::size_t total = 0;
  for (const auto& lod : manifest->lods) {
    for (std::uint32_t size : lod.sizes) {
      auto fragment = pc::DecodeDracoFragment(View(data.substr(total, size)), 16, "5");
      if (size != 0) {
        EXPECT_TRUE(fragment.ok()) << fragment.status().ToString();
      }
      total += size;
    }
  }
  EXPECT_EQ(total, data.size());

  // Cells of 128 hold the block whole: one level, whatever lods asks.
  MultiresOutputOptions one_cell;
  one_cell.lods = 5;
  MeshOutputOptions replace;
  replace.overwrite = true;
  auto whole = WriteMultiresMeshes(store, "v/", block, replace, one_cell);
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  auto single = pc::DecodeMultiresManifest(View(Text(store, "v/mesh/5.index")), "5.index");
  ASSERT_TRUE(single.ok()) << single.status().ToString();
  EXPECT_EQ(single->lods.size(), 1u);
  EXPECT_EQ(single->lods[0].positions, (std::vector<std::array<std::uint32_t, 3>>{{0, 0, 0}}));

  multires.lods = 0;
  auto refused = WriteMultiresMeshes(store, "w/", block, {}, multires);
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(refused.status().field(), "lods");
}

TEST(MeshOutput, ShardedMultiresPutsTheFragmentsRightBeforeTheManifest) {
  FailingStore store;
  ASSERT_TRUE(store.Set("u/info", View(kInfo)).ok());
  ASSERT_TRUE(store.Set("s/info", View(kInfo)).ok());
  MultiresOutputOptions multires;
  multires.fragment = {2, 2, 2};
  const MeshedLabels block = Block();
  ASSERT_TRUE(WriteMultiresMeshes(store, "u/", block, {}, multires).ok());
  multires.sharded = true;
  auto summary = WriteMultiresMeshes(store, "s/", block, {}, multires);
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  const auto info = nlohmann::json::parse(Text(store, "s/mesh/info"));
  EXPECT_EQ(info["sharding"]["@type"], "neuroglancer_uint64_sharded_v1");
  EXPECT_EQ(info["sharding"]["hash"], "murmurhash3_x86_128");
  EXPECT_EQ(info["sharding"]["data_encoding"], "raw");
  auto keys = store.List("s/mesh/");
  ASSERT_TRUE(keys.ok());
  EXPECT_EQ(*keys, (std::vector<std::string>{"s/mesh/0.shard", "s/mesh/info"}));
  // One segment: no shard or minishard bits, so minishard 0 of shard 0 holds it.
  const pc::ShardingSpec spec = pc::MultiresMeshSharding(1);
  const std::string shard = Text(store, "s/mesh/0.shard");
  EXPECT_EQ(summary->bytes, shard.size());
  auto spans = pc::ParseShardIndex(View(shard).first(spec.shard_index_size()), spec, shard.size(),
                                   "0.shard");
  ASSERT_TRUE(spans.ok()) << spans.status().ToString();
  const pc::MinishardSpan span = spans->at(0);
  auto entries = pc::DecodeMinishardIndex(View(shard).subspan(span.start, span.end - span.start),
                                          spec, shard.size(), 0, "0.shard");
  ASSERT_TRUE(entries.ok()) << entries.status().ToString();
  ASSERT_EQ(entries->size(), 1u);
  const pc::MinishardEntry& e = entries->front();
  EXPECT_EQ(e.chunk_id, 5u);
  EXPECT_EQ(shard.substr(e.offset, e.size), Text(store, "u/mesh/5.index"));
  const std::string data = Text(store, "u/mesh/5");
  ASSERT_GE(e.offset, data.size());
  EXPECT_EQ(shard.substr(e.offset - data.size(), data.size()), data);
}

TEST(LegacyMeshFormat, BadFragmentsAreCorruptionNamingThem) {
  const Bytes good = pc::EncodeLegacyFragment(Two().meshes[12]);
  EXPECT_EQ(good.size(), 4u + 3 * 12 + 12);
  struct Case {
    Bytes bytes;
    std::string says;
  };
  Bytes short_count(good.begin(), good.begin() + 3);
  Bytes cut(good.begin(), good.begin() + 20);
  Bytes ragged(good.begin(), good.end() - 4);
  Bytes past = good;
  past[good.size() - 4] = 7;  // The last index names vertex 7 of 3.
  for (const Case& c : {Case{short_count, "no vertex count"}, Case{cut, "vertices need"},
                        Case{ragged, "whole triangles"}, Case{past, "names vertex 7"}}) {
    auto decoded = pc::DecodeLegacyFragment(c.bytes, "mesh/12:0:all");
    ASSERT_FALSE(decoded.ok());
    EXPECT_EQ(decoded.status().code(), StatusCode::kCorruption);
    EXPECT_NE(decoded.status().message().find("mesh/12:0:all"), std::string::npos);
    EXPECT_NE(decoded.status().message().find(c.says), std::string::npos)
        << decoded.status().message();
  }
  EXPECT_EQ(pc::ParseLegacyManifest("{\"fragments\": 3}", "m").status().code(),
            StatusCode::kCorruption);
}

TEST(SegmentNamesCsv, RowsHeadersQuotesAndErrors) {
  auto names =
      pc::ParseSegmentNamesCsv("id,name,tags\n\n7,\"a, \"\"b\"\"\",x;y z\n9\n10,ten\r\n", "n.csv");
  ASSERT_TRUE(names.ok()) << names.status().ToString();
  ASSERT_EQ(names->size(), 3u);
  EXPECT_EQ(names->at(7).name, "a, \"b\"");
  EXPECT_EQ(names->at(7).tags, (std::vector<std::string>{"x", "y", "z"}));
  EXPECT_EQ(names->at(9).name, "");
  EXPECT_EQ(names->at(10).name, "ten");
  for (const auto& [text, says] : std::vector<std::pair<std::string, std::string>>{
           {"1,a\n-2,b\n", "line 2"},
           {"1,a,b,c\n", "4 fields"},
           {"1,a\n1,b\n", "twice"},
           {"1,\"a\n", "quote"},
           {"1,a\n7,bad\xff\xfename\n", "line 2: the row is not UTF-8"}}) {
    auto bad = pc::ParseSegmentNamesCsv(text, "n.csv");
    ASSERT_FALSE(bad.ok()) << text;
    EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(bad.status().message().find(says), std::string::npos) << bad.status().message();
  }
}

}  // namespace
}  // namespace chunkwise::pipelines
