// DetectFormat: what a store holds under a prefix, for every format chunkwise
// reads, and the errors for nothing and for keys of no known format.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api_test_support.h"
#include "chunkwise/chunkwise.h"

namespace chunkwise {
namespace {

using api_test::Message;
using ::testing::HasSubstr;

class DetectFormatApi : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = OpenStore(context_, "memory://detect", {.create = true});
    ASSERT_TRUE(store.ok());
    store_ = *store;
  }
  void Put(const std::string& key, std::string_view value) {
    ASSERT_TRUE(store_->Set(key, AsBytes(value)).ok());
  }
  FormatKind Kind(std::string_view prefix) {
    Result<DetectedFormat> detected = DetectFormat(*store_, prefix);
    EXPECT_TRUE(detected.ok()) << prefix << ": " << detected.status().ToString();
    return detected.ok() ? detected->kind : FormatKind::kBcolzCtable;
  }

  Context context_;
  std::shared_ptr<store::Store> store_;
};

TEST_F(DetectFormatApi, ZarrArraysAndGroupsBothVersions) {
  ZarrArraySpec spec{.shape = {4, 4}, .data_type = *ParseDataType("uint8"), .chunks = {2, 2}};
  ASSERT_TRUE(CreateZarrArray(context_, "memory://detect3/a", spec).ok());
  spec.zarr_format = 2;
  ASSERT_TRUE(CreateZarrArray(context_, "memory://detect3/b", spec).ok());
  auto v3 = OpenStore(context_, "memory://detect3/a");
  auto v2 = OpenStore(context_, "memory://detect3/b");
  ASSERT_TRUE(v3.ok() && v2.ok());
  EXPECT_EQ(DetectFormat(**v3)->kind, FormatKind::kZarrV3Array);
  EXPECT_EQ(DetectFormat(**v3)->key, "zarr.json");
  EXPECT_EQ(DetectFormat(**v2)->kind, FormatKind::kZarrV2Array);
  Put("g3/zarr.json", R"({"zarr_format": 3, "node_type": "group"})");
  Put("g2/.zgroup", R"({"zarr_format": 2})");
  EXPECT_EQ(Kind("g3"), FormatKind::kZarrV3Group);
  EXPECT_EQ(Kind("g2/"), FormatKind::kZarrV2Group);
  EXPECT_EQ(FormatName(FormatKind::kZarrV3Group), "zarr v3 group");
}

TEST_F(DetectFormatApi, TheOtherFormats) {
  Put("vec/zarr.json",
      R"({"zarr_format": 3, "node_type": "group", "attributes": {"zarr_vectors": {}}})");
  Put("ng/info", R"({"@type": "neuroglancer_multiscale_volume", "scales": [{"key": "s0"}]})");
  Put("ng/s0/0-64_0-64_0-64", "x");
  Put("export/info", R"({"@type": "neuroglancer_multiscale_volume", "scales": [{"key": "s0"}]})");
  Put("export/s0/0.0.0.arrow", "x");
  Put("shards/s0/1.arrow", "x");
  Put("carray/meta/storage", "{}");
  Put("ctable/__rootdirs__", "{}");
  Put("refs.json", R"({"version": 1, "refs": {".zgroup": "{\"zarr_format\": 2}"}})");
  Put("parquet/.zmetadata", R"({"metadata": {}, "record_size": 100})");
  EXPECT_EQ(Kind("vec"), FormatKind::kZarrVectors);
  EXPECT_EQ(Kind("ng"), FormatKind::kPrecomputed);
  EXPECT_EQ(Kind("export"), FormatKind::kDvidExport);
  EXPECT_EQ(Kind("shards"), FormatKind::kDvidExport);
  EXPECT_EQ(Kind("export/s0/0.0.0.arrow"), FormatKind::kArrowShard);
  EXPECT_EQ(Kind("carray"), FormatKind::kBcolzCarray);
  EXPECT_EQ(Kind("ctable"), FormatKind::kBcolzCtable);
  EXPECT_EQ(Kind("refs.json"), FormatKind::kReferencesJson);
  EXPECT_EQ(Kind("parquet"), FormatKind::kReferencesParquet);
}

TEST_F(DetectFormatApi, NothingUnknownAndDamaged) {
  Result<DetectedFormat> empty = DetectFormat(*store_, "nothing");
  EXPECT_EQ(empty.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(Message(empty.status()), HasSubstr("nothing"));
  Put("junk/a.txt", "hello");
  Result<DetectedFormat> junk = DetectFormat(*store_, "junk");
  EXPECT_EQ(junk.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(junk.status()), HasSubstr("junk/"));
  Put("bad/zarr.json", R"({"zarr_format": 3, "node_type": "tree"})");
  Result<DetectedFormat> bad = DetectFormat(*store_, "bad");
  EXPECT_EQ(bad.status().code(), StatusCode::kCorruption);
  EXPECT_THAT(Message(bad.status()), HasSubstr("bad/zarr.json"));
  Put("notjson/zarr.json", "{");
  EXPECT_EQ(DetectFormat(*store_, "notjson").status().code(), StatusCode::kCorruption);
  Put("value.bin", "abc");
  EXPECT_EQ(DetectFormat(*store_, "value.bin").status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace chunkwise
