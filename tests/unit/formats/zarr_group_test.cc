#include <gtest/gtest.h>

#include "chunkwise/core/bytes.h"
#include "core/dtype_text.h"
#include "formats/zarr/array.h"
#include "formats/zarr/array_layout.h"
#include "formats/zarr/group.h"
#include "store/memory_store.h"

namespace chunkwise::formats::zarr {
namespace {

void AddArray(const std::shared_ptr<store::Store>& store, const std::string& prefix,
              const core::Shape& shape, const char* dtype, int format,
              std::optional<core::Shape> shard = std::nullopt) {
  ArrayLayout layout;
  layout.shape = shape;
  layout.data_type = *core::ParseDataType(dtype);
  layout.chunk_shape = core::Shape(shape.size(), 2);
  layout.shard_shape = shard;
  layout.zarr_format = format;
  Result<ArrayMetadata> metadata = BuildArrayMetadata(layout);
  ASSERT_TRUE(metadata.ok()) << metadata.status().ToString();
  ASSERT_TRUE(Array::Create(store, prefix, *metadata, false).ok());
}

TEST(ZarrGroup, ListsArraysAndGroupsAtAnyDepthSortedByPath) {
  std::shared_ptr<store::Store> store = store::MemoryStore::Create();
  ASSERT_TRUE(CreateGroup(*store, "", 3, nlohmann::json::object()).ok());
  ASSERT_TRUE(CreateGroup(*store, "labels/", 3, nlohmann::json::object()).ok());
  AddArray(store, "raw/", {10, 20}, "float32", 3);
  AddArray(store, "labels/s0/", {8, 8, 8}, "<u8", 3, core::Shape{4, 4, 4});
  AddArray(store, "old/", {6}, "int16", 2);
  ASSERT_TRUE(store->Set("raw/c/0/0", AsBytes("x")).ok());  // Chunks are not members.

  EXPECT_TRUE(*IsGroup(*store, ""));
  EXPECT_TRUE(*IsGroup(*store, "labels/"));
  EXPECT_FALSE(*IsGroup(*store, "raw/"));
  Result<std::vector<GroupMember>> members = ListGroupMembers(*store, "");
  ASSERT_TRUE(members.ok()) << members.status().ToString();
  ASSERT_EQ(members->size(), 4u);
  EXPECT_EQ((*members)[0].path, "labels");
  EXPECT_TRUE((*members)[0].is_group);
  EXPECT_EQ((*members)[1].path, "labels/s0");
  EXPECT_EQ((*members)[1].shape, (core::Shape{8, 8, 8}));
  EXPECT_EQ((*members)[1].data_type, core::DataType(core::DataTypeId::kUInt64));
  EXPECT_EQ((*members)[1].chunk_shape, (core::Shape{2, 2, 2}));
  EXPECT_EQ((*members)[1].shard_shape, (core::Shape{4, 4, 4}));
  EXPECT_EQ((*members)[2].path, "old");
  EXPECT_EQ((*members)[2].zarr_format, 2);
  EXPECT_EQ((*members)[2].data_type, core::DataType(core::DataTypeId::kInt16));
  EXPECT_EQ((*members)[3].path, "raw");
  EXPECT_FALSE((*members)[3].shard_shape.has_value());
}

// A group holding a string array (zarr-python writes "|O") used to fail to
// list at all (InvalidArgument on the member's dtype); the member is now
// listed, its dtype named as written.
TEST(ZarrGroup, AMemberOfATypeThisLibraryLacksIsListed) {
  std::shared_ptr<store::Store> store = store::MemoryStore::Create();
  ASSERT_TRUE(CreateGroup(*store, "", 2, nlohmann::json::object()).ok());
  ASSERT_TRUE(store
                  ->Set("words/.zarray",
                        AsBytes(R"({"zarr_format": 2, "shape": [3], "chunks": [2], "dtype": "|O",
                                    "fill_value": "", "order": "C", "compressor": null,
                                    "filters": [{"id": "vlen-utf8"}]})"))
                  .ok());
  AddArray(store, "nums/", {4}, "uint16", 2);
  Result<std::vector<GroupMember>> members = ListGroupMembers(*store, "");
  ASSERT_TRUE(members.ok()) << members.status().ToString();
  ASSERT_EQ(members->size(), 2u);
  EXPECT_EQ((*members)[0].data_type_name, "uint16");
  EXPECT_EQ((*members)[1].path, "words");
  EXPECT_EQ((*members)[1].data_type_name, "|O");
  EXPECT_FALSE((*members)[1].data_type.has_value());
  EXPECT_EQ((*members)[1].shape, (core::Shape{3}));
}

TEST(ZarrGroup, ABrokenMemberIsCorruptionNamingItsKey) {
  std::shared_ptr<store::Store> store = store::MemoryStore::Create();
  ASSERT_TRUE(CreateGroup(*store, "", 3, nlohmann::json::object()).ok());
  ASSERT_TRUE(store->Set("bad/zarr.json", AsBytes("{not json")).ok());
  Result<std::vector<GroupMember>> members = ListGroupMembers(*store, "");
  EXPECT_EQ(members.status().code(), StatusCode::kCorruption);
  EXPECT_NE(members.status().message().find("bad/zarr.json"), std::string::npos)
      << members.status().ToString();
}

}  // namespace
}  // namespace chunkwise::formats::zarr
