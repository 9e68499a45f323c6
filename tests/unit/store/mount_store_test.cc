#include "store/mount_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "store/memory_store.h"

namespace chunkwise::store {
namespace {

using ::testing::ElementsAre;

MountStore TwoMounts() {
  auto client = MemoryStore::Create();
  auto data = MemoryStore::Create();
  EXPECT_TRUE(client->Set("index.html", AsBytes("<html>")).ok());
  EXPECT_TRUE(data->Set("a/zarr.json", AsBytes("{}")).ok());
  EXPECT_TRUE(data->Set("a/c/0", AsBytes("0123456789")).ok());
  return MountStore({{"v/client/", client}, {"data/0/", data}});
}

TEST(MountStore, KeysRouteToTheirMount) {
  const MountStore store = TwoMounts();
  Result<std::optional<Bytes>> page = store.Get("v/client/index.html");
  ASSERT_TRUE(page.ok() && page->has_value());
  EXPECT_EQ(std::string(AsChars(**page)), "<html>");
  Result<std::optional<Bytes>> range = store.GetRange("data/0/a/c/0", ByteRange::Span(2, 3));
  ASSERT_TRUE(range.ok() && range->has_value());
  EXPECT_EQ(std::string(AsChars(**range)), "234");
  EXPECT_EQ(**store.Size("data/0/a/c/0"), 10u);
}

TEST(MountStore, KeysOutsideEveryMountAreAbsent) {
  const MountStore store = TwoMounts();
  for (const char* key : {"index.html", "data/1/a/zarr.json", "data/0/", "v/clientindex.html"}) {
    Result<std::optional<Bytes>> value = store.Get(key);
    ASSERT_TRUE(value.ok()) << key;
    EXPECT_FALSE(value->has_value()) << key;
    Result<std::unique_ptr<ValueReader>> reader = store.OpenReader(key);
    ASSERT_TRUE(reader.ok()) << key;
    EXPECT_EQ(*reader, nullptr) << key;
  }
}

TEST(MountStore, ListsAcrossMountsWithTheirFolders) {
  const MountStore store = TwoMounts();
  EXPECT_THAT(*store.List(""),
              ElementsAre("data/0/a/c/0", "data/0/a/zarr.json", "v/client/index.html"));
  EXPECT_THAT(*store.List("data/0/a/z"), ElementsAre("data/0/a/zarr.json"));
  EXPECT_THAT(*store.List("v/"), ElementsAre("v/client/index.html"));
}

TEST(MountStore, IsReadOnly) {
  MountStore store = TwoMounts();
  EXPECT_EQ(store.Set("data/0/x", AsBytes("x")).code(), StatusCode::kUnsupported);
  EXPECT_EQ(store.Erase("data/0/a/zarr.json").code(), StatusCode::kUnsupported);
  EXPECT_FALSE(store.capabilities().writable);
}

}  // namespace
}  // namespace chunkwise::store
