#include "store/rocksdb_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "unit/scratch_directory.h"
#include "unit/store/store_suite.h"

namespace chunkwise::store {
namespace {

namespace fs = std::filesystem;
using suite::B;
using suite::StoreFactory;
using suite::StoreSuite;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::shared_ptr<RocksDbStore> OpenStore(const fs::path& path, RocksDbStoreOptions options = {}) {
  Result<std::shared_ptr<RocksDbStore>> store = RocksDbStore::Open(path, options);
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return store.ok() ? *store : nullptr;
}

INSTANTIATE_TEST_SUITE_P(RocksDb, StoreSuite,
                         ::testing::Values(StoreFactory{"rocksdb",
                                                        [] {
                                                          return std::shared_ptr<Store>(OpenStore(
                                                              test::FreshScratchDirectory("db")));
                                                        }}),
                         suite::StoreFactoryName);

std::vector<std::string> ScanKeys(const RocksDbStore& store, std::string_view begin,
                                  std::string_view end, bool binary) {
  std::vector<std::string> keys;
  auto visit = [&](const KeyValueView& entry) -> Result<bool> {
    keys.emplace_back(entry.key);
    return true;
  };
  const Status status =
      binary ? store.ScanBinary(begin, end, visit) : store.Scan(begin, end, visit);
  EXPECT_TRUE(status.ok()) << status.ToString();
  return keys;
}

TEST(RocksDbStore, ValuesSurviveReopen) {
  const fs::path path = test::FreshScratchDirectory("db");
  {
    std::shared_ptr<RocksDbStore> store = OpenStore(path);
    ASSERT_TRUE(store->Set("a/b", AsBytes("value")).ok());
    ASSERT_TRUE(store->SetBinary(std::string_view("\x00\xff", 2), AsBytes("bin")).ok());
  }
  std::shared_ptr<RocksDbStore> store = OpenStore(path, {.read_only = true});
  ASSERT_NE(store, nullptr);
  Result<std::optional<Bytes>> value = store->Get("a/b");
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(*value, B("value"));
  Result<std::optional<Bytes>> binary = store->GetBinary(std::string_view("\x00\xff", 2));
  ASSERT_TRUE(binary.ok());
  EXPECT_EQ(*binary, B("bin"));
  EXPECT_FALSE(store->capabilities().writable);
  EXPECT_FALSE(store->Set("x", AsBytes("y")).ok());
}

TEST(RocksDbStore, MissingDatabaseWithoutCreateIsNotFound) {
  const fs::path path = test::FreshScratchDirectory("db");
  Result<std::shared_ptr<RocksDbStore>> store =
      RocksDbStore::Open(path, {.create_if_missing = false});
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(std::string(store.status().message()), HasSubstr(path.string()));
}

TEST(RocksDbStore, SecondWriterIsRefusedWithPath) {
  const fs::path path = test::FreshScratchDirectory("db");
  std::shared_ptr<RocksDbStore> first = OpenStore(path);
  Result<std::shared_ptr<RocksDbStore>> second = RocksDbStore::Open(path);
  ASSERT_FALSE(second.ok());
  EXPECT_THAT(std::string(second.status().message()), HasSubstr(path.string()));
}

TEST(RocksDbStore, BinaryKeysScanInUnsignedByteOrderAndStayOutOfList) {
  std::shared_ptr<RocksDbStore> store = OpenStore(test::FreshScratchDirectory("db"));
  for (std::string key :
       {std::string("\x80", 1), std::string("\x01\x02", 2), std::string("\x7f", 1),
        std::string("\x01", 1), std::string("\xff", 1), std::string("\x00", 1)}) {
    ASSERT_TRUE(store->SetBinary(key, AsBytes(key)).ok());
  }
  EXPECT_THAT(ScanKeys(*store, "", "", true),
              ElementsAre(std::string("\x00", 1), "\x01", "\x01\x02", "\x7f", "\x80", "\xff"));
  EXPECT_THAT(ScanKeys(*store, "\x01\x01", "\x80", true), ElementsAre("\x01\x02", "\x7f"));
  Result<std::vector<std::string>> listed = store->List("");
  ASSERT_TRUE(listed.ok());
  EXPECT_TRUE(listed->empty());
}

TEST(RocksDbStore, ScanStopsWhenVisitorSaysSoAndPassesErrors) {
  std::shared_ptr<RocksDbStore> store = OpenStore(test::FreshScratchDirectory("db"));
  for (const char* key : {"a", "b", "c", "d"}) ASSERT_TRUE(store->Set(key, AsBytes(key)).ok());
  EXPECT_THAT(ScanKeys(*store, "b", "d", false), ElementsAre("b", "c"));
  int visits = 0;
  ASSERT_TRUE(store
                  ->Scan("", "",
                         [&](const KeyValueView& entry) -> Result<bool> {
                           ++visits;
                           return entry.key != "b";
                         })
                  .ok());
  EXPECT_EQ(visits, 2);
  const Status failed = store->Scan("", "", [](const KeyValueView& entry) -> Result<bool> {
    return Status::Corruption("bad value at " + std::string(entry.key));
  });
  EXPECT_EQ(failed.code(), StatusCode::kCorruption);
  EXPECT_THAT(std::string(failed.message()), HasSubstr("bad value at a"));
}

TEST(RocksDbStore, BinaryBatchIsAppliedWhole) {
  std::shared_ptr<RocksDbStore> store = OpenStore(test::FreshScratchDirectory("db"));
  ASSERT_TRUE(store->SetBinary("gone", AsBytes("x")).ok());
  std::vector<BinaryWrite> writes;
  writes.push_back({"k1", Bytes{1, 2}, false});
  writes.push_back({"k2", Bytes{}, false});
  writes.push_back({"gone", Bytes{}, true});
  ASSERT_TRUE(store->WriteBinary(writes).ok());
  EXPECT_THAT(ScanKeys(*store, "", "", true), ElementsAre("k1", "k2"));
  Result<std::optional<Bytes>> empty = store->GetBinary("k2");
  ASSERT_TRUE(empty.ok());
  ASSERT_TRUE(empty->has_value());
  EXPECT_TRUE((*empty)->empty());
}

TEST(RocksDbStore, DescribeNamesDatabaseAndKey) {
  const fs::path path = test::FreshScratchDirectory("db");
  std::shared_ptr<RocksDbStore> store = OpenStore(path);
  EXPECT_EQ(store->Describe("c/0"), "rocksdb:" + path.string() + ":c/0");
  EXPECT_TRUE(store->capabilities().durable);
}

}  // namespace
}  // namespace chunkwise::store
