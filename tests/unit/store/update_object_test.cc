#include "store/update_object.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "store/memory_store.h"
#include "unit/forwarding_store.h"

namespace chunkwise::store {
namespace {

std::string Text(const std::optional<Bytes>& value) {
  return value ? std::string(AsChars(*value)) : std::string("<none>");
}

// Writes `text` as two parts, so that a store joins them.
Status WriteText(const WriteMerged& write, const std::string& text) {
  const ByteView whole = AsBytes(text);
  const std::vector<ByteView> parts = {whole.subspan(0, text.size() / 2),
                                       whole.subspan(text.size() / 2)};
  return write(std::span<const ByteView>(parts));
}

// Counts reads; conditional writes as the test says.
class CountingStore : public test::ForwardingStore {
 public:
  explicit CountingStore(bool conditional) : conditional_(conditional) {}
  Result<std::optional<Bytes>> Get(std::string_view key) const override {
    ++reads;
    return ForwardingStore::Get(key);
  }
  Result<std::optional<VersionedValue>> GetVersioned(std::string_view key) const override {
    ++reads;
    return ForwardingStore::GetVersioned(key);
  }
  StoreCapabilities capabilities() const override {
    StoreCapabilities capabilities = ForwardingStore::capabilities();
    capabilities.conditional_writes = conditional_;
    return capabilities;
  }
  mutable int reads = 0;

 private:
  bool conditional_;
};

class UpdateObjectTest : public ::testing::TestWithParam<bool> {};

TEST_P(UpdateObjectTest, ReplaceMergesOverNothingWithoutReading) {
  CountingStore store(GetParam());
  ASSERT_TRUE(store.inner().Set("k", AsBytes(std::string("old"))).ok());
  int merges = 0;
  const Status status =
      UpdateObject(store, "k", UpdateMode::kReplace,
                   [&](const std::optional<Bytes>& old, const WriteMerged& write) {
                     ++merges;
                     EXPECT_FALSE(old.has_value());
                     return WriteText(write, "new value");
                   });
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(merges, 1);
  EXPECT_EQ(store.reads, 0);
  EXPECT_EQ(Text(*store.inner().Get("k")), "new value");
  // A replace by nothing removes the value.
  ASSERT_TRUE(UpdateObject(store, "k", UpdateMode::kReplace,
                           [](const std::optional<Bytes>&, const WriteMerged& write) {
                             return write(std::nullopt);
                           })
                  .ok());
  EXPECT_FALSE(store.inner().Get("k")->has_value());
}

TEST_P(UpdateObjectTest, MergeSeesTheStoredValueAndWritesTheResult) {
  CountingStore store(GetParam());
  ASSERT_TRUE(store.inner().Set("k", AsBytes(std::string("abc"))).ok());
  const auto append = [](const std::optional<Bytes>& old, const WriteMerged& write) {
    return WriteText(write, Text(old) + "+x");
  };
  ASSERT_TRUE(UpdateObject(store, "k", UpdateMode::kMerge, append).ok());
  EXPECT_EQ(Text(*store.inner().Get("k")), "abc+x");
  EXPECT_EQ(store.reads, 1);
  // Merged to nothing: removed; a key absent before and after stays absent.
  const auto to_nothing = [](const std::optional<Bytes>&, const WriteMerged& write) {
    return write(std::nullopt);
  };
  ASSERT_TRUE(UpdateObject(store, "k", UpdateMode::kMerge, to_nothing).ok());
  EXPECT_FALSE(store.inner().Get("k")->has_value());
  ASSERT_TRUE(UpdateObject(store, "k", UpdateMode::kMerge, to_nothing).ok());
  EXPECT_FALSE(store.inner().Get("k")->has_value());
}

TEST_P(UpdateObjectTest, AMergeErrorIsReturnedAndNothingWritten) {
  CountingStore store(GetParam());
  ASSERT_TRUE(store.inner().Set("k", AsBytes(std::string("abc"))).ok());
  const Status status = UpdateObject(
      store, "k", UpdateMode::kMerge,
      [](const std::optional<Bytes>&, const WriteMerged&) { return Status::Corruption("k: bad"); });
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
  EXPECT_EQ(Text(*store.inner().Get("k")), "abc");
}

INSTANTIATE_TEST_SUITE_P(Stores, UpdateObjectTest, ::testing::Values(true, false),
                         [](const auto& info) {
                           return std::string(info.param ? "Conditional" : "Unconditional");
                         });

TEST(UpdateObject, AnotherWritersChangeIsMergedAgainNotLost) {
  const std::shared_ptr<MemoryStore> store = MemoryStore::Create();
  ASSERT_TRUE(store->Set("k", AsBytes(std::string("a"))).ok());
  std::vector<std::string> seen;
  const Status status =
      UpdateObject(*store, "k", UpdateMode::kMerge,
                   [&](const std::optional<Bytes>& old, const WriteMerged& write) {
                     seen.push_back(Text(old));
                     // Another writer gets in between the first read and its write.
                     if (seen.size() == 1) {
                       EXPECT_TRUE(store->Set("k", AsBytes(std::string("b"))).ok());
                     }
                     return WriteText(write, Text(old) + "x");
                   });
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(seen, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(Text(*store->Get("k")), "bx");
}

}  // namespace
}  // namespace chunkwise::store
