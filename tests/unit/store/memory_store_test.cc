#include "store/memory_store.h"

#include <gtest/gtest.h>

#include "unit/store/store_suite.h"

namespace chunkwise::store {
namespace {

using suite::StoreFactory;
using suite::StoreSuite;

INSTANTIATE_TEST_SUITE_P(Memory, StoreSuite,
                         ::testing::Values(StoreFactory{
                             "memory",
                             [] { return std::shared_ptr<Store>(MemoryStore::Create()); }}),
                         suite::StoreFactoryName);

TEST(MemoryStore, DescribeUsesMemoryScheme) {
  EXPECT_EQ(MemoryStore::Create()->Describe("a/b"), "memory:a/b");
}

TEST(MemoryStore, CapabilitiesAreNotDurable) {
  const StoreCapabilities capabilities = MemoryStore::Create()->capabilities();
  EXPECT_FALSE(capabilities.durable);
  EXPECT_TRUE(capabilities.efficient_ranges);
}

TEST(MemoryStore, SizeCountsKeys) {
  std::shared_ptr<MemoryStore> store = MemoryStore::Create();
  ASSERT_TRUE(store->Set("a", AsBytes("1")).ok());
  ASSERT_TRUE(store->Set("b/c", AsBytes("2")).ok());
  ASSERT_TRUE(store->Set("a", AsBytes("3")).ok());
  EXPECT_EQ(store->size(), 2u);
}

TEST(MemoryStore, KeyAndPrefixedKeyCoexist) {
  // Unlike a file system, memory holds "a" and "a/b" at once.
  std::shared_ptr<MemoryStore> store = MemoryStore::Create();
  ASSERT_TRUE(store->Set("a", AsBytes("1")).ok());
  ASSERT_TRUE(store->Set("a/b", AsBytes("2")).ok());
  Result<std::vector<std::string>> keys = store->List("a");
  ASSERT_TRUE(keys.ok());
  EXPECT_EQ(*keys, (std::vector<std::string>{"a", "a/b"}));
}

}  // namespace
}  // namespace chunkwise::store
