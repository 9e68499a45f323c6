#include "chunkwise/store/reference_store.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "formats/refs/reference_set.h"
#include "store/memory_store.h"
#include "unit/scratch_directory.h"
#include "unit/store/store_suite.h"

namespace chunkwise::store {
namespace {

namespace fs = std::filesystem;
using formats::refs::ReferenceSet;
using suite::ReadableStoreFactory;
using suite::ReadableStoreSuite;

// A reference store holding `contents`, its values spread over every kind of
// reference: inline bytes, ranges of one shared file, whole files.
std::shared_ptr<Store> FilledReferenceStore(const suite::StoreContents& contents) {
  const fs::path dir = test::FreshScratchDirectory("refsuite");
  fs::create_directories(dir);
  auto set = std::make_shared<ReferenceSet>();
  std::ofstream blob(dir / "blob.bin", std::ios::binary);
  std::uint64_t offset = 0;
  int kind = 0;
  for (const auto& [key, value] : contents) {
    const auto* bytes = reinterpret_cast<const char*>(value.data());
    switch (kind++ % 3) {
      case 0:
        set->Set(key, Reference::Inline(value));
        break;
      case 1:
        blob.write(bytes, static_cast<std::streamsize>(value.size()));
        set->Set(key, Reference::Range("blob.bin", offset, value.size()));
        offset += value.size();
        break;
      default: {
        const std::string name = "whole" + std::to_string(kind);
        std::ofstream(dir / name, std::ios::binary)
            .write(bytes, static_cast<std::streamsize>(value.size()));
        set->Set(key, Reference::WholeFile(name));
      }
    }
  }
  blob.close();
  ReferenceStoreOptions options;
  options.base_directory = dir;
  options.name = "suite.json";
  auto store = ReferenceStore::Open(set, options);
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return store.ok() ? *store : nullptr;
}

INSTANTIATE_TEST_SUITE_P(References, ReadableStoreSuite,
                         ::testing::Values(ReadableStoreFactory{"references",
                                                                FilledReferenceStore}),
                         suite::ReadableStoreFactoryName);

std::string Text(const Result<std::optional<Bytes>>& value) {
  EXPECT_TRUE(value.ok()) << value.status().ToString();
  if (!value.ok() || !value->has_value()) return "<absent>";
  return std::string(AsChars(**value));
}

class ReferenceStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::FreshScratchDirectory("refstore");
    fs::create_directories(dir_ / "data");
    std::ofstream(dir_ / "data" / "blob.bin") << "0123456789abcdef";
    outside_ = test::FreshScratchDirectory("refstore_outside");
    fs::create_directories(outside_);
    std::ofstream(outside_ / "secret") << "secret";
    auto set = std::make_shared<ReferenceSet>();
    set->Set("inline", Reference::Inline(CopyToBytes(AsBytes("hello"))));
    set->Set("a/range", Reference::Range("data/blob.bin", 4, 6));
    set->Set("a/whole", Reference::WholeFile((dir_ / "data" / "blob.bin").string()));
    set->Set("a/file_url", Reference::Range("file://" + (dir_ / "data/blob.bin").string(), 0, 2));
    set->Set("a/empty", Reference::Range("data/blob.bin", 16, 0));
    set->Set("bad/past_end", Reference::Range("data/blob.bin", 10, 7));
    set->Set("bad/missing", Reference::WholeFile("data/none.bin"));
    set->Set("bad/escape", Reference::WholeFile("../" + outside_.filename().string() + "/secret"));
    set->Set("bad/absolute", Reference::WholeFile((outside_ / "secret").string()));
    set->Set("bad/remote", Reference::Range("https://example.invalid/x", 0, 1));
    set->Set("bad/s3", Reference::Range("s3://bucket/x", 0, 1));
    set->Set("bad/null", Reference::Range("", 0, 1));
    set->Set("../up", Reference::Inline(CopyToBytes(AsBytes("no"))));
    index_ = set;
  }

  std::shared_ptr<ReferenceStore> Open(std::vector<fs::path> roots = {}) {
    ReferenceStoreOptions options;
    options.base_directory = dir_;
    options.allowed_roots = std::move(roots);
    options.name = "refs.json";
    auto store = ReferenceStore::Open(index_, options);
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return *store;
  }

  fs::path dir_, outside_;
  std::shared_ptr<ReferenceSet> index_;
};

TEST_F(ReferenceStoreTest, ResolvesInlineRangesWholeFilesAndFileUrls) {
  auto store = Open();
  EXPECT_EQ(Text(store->Get("inline")), "hello");
  EXPECT_EQ(Text(store->Get("a/range")), "456789");
  EXPECT_EQ(Text(store->Get("a/whole")), "0123456789abcdef");
  EXPECT_EQ(Text(store->Get("a/file_url")), "01");
  EXPECT_EQ(Text(store->Get("a/empty")), "");
  EXPECT_EQ(Text(store->Get("absent")), "<absent>");
  EXPECT_EQ(*store->Size("a/range"), std::optional<std::uint64_t>(6));
  EXPECT_EQ(*store->Size("a/whole"), std::optional<std::uint64_t>(16));
  EXPECT_EQ(*store->Size("absent"), std::nullopt);
}

TEST_F(ReferenceStoreTest, GetRangeIsRelativeToTheValue) {
  auto store = Open();
  EXPECT_EQ(Text(store->GetRange("a/range", ByteRange::Span(1, 2))), "56");
  EXPECT_EQ(Text(store->GetRange("a/range", ByteRange::Suffix(2))), "89");
  EXPECT_EQ(Text(store->GetRange("inline", ByteRange::Span(1, 3))), "ell");
  EXPECT_EQ(Text(store->GetRange("a/whole", ByteRange::Suffix(3))), "def");
  EXPECT_EQ(store->GetRange("a/range", ByteRange::Span(4, 3)).status().code(),
            StatusCode::kOutOfRange);
  const ByteRange ranges[] = {ByteRange::Span(0, 1), ByteRange::Suffix(1)};
  Bytes parts(2);
  auto found = store->GetRangesInto("a/range", ranges, parts);
  ASSERT_TRUE(found.ok() && *found);
  EXPECT_EQ(std::string(AsChars(parts)), "49");
}

TEST_F(ReferenceStoreTest, ListsKeysAndIsReadOnly) {
  auto store = Open();
  EXPECT_EQ(*store->List("a/"),
            (std::vector<std::string>{"a/empty", "a/file_url", "a/range", "a/whole"}));
  EXPECT_EQ(store->Set("inline", AsBytes("x")).code(), StatusCode::kUnsupported);
  EXPECT_EQ(store->Erase("inline").code(), StatusCode::kUnsupported);
  EXPECT_FALSE(store->capabilities().writable);
  EXPECT_TRUE(store->capabilities().listable);
  EXPECT_EQ(store->Describe("a/range"), "refs.json:a/range");
}

TEST_F(ReferenceStoreTest, ErrorsNameTheKeyTheUrlAndTheFault) {
  auto store = Open();
  auto past_end = store->Get("bad/past_end");
  EXPECT_EQ(past_end.status().code(), StatusCode::kOutOfRange);
  EXPECT_NE(past_end.status().message().find("bad/past_end"), std::string::npos);
  EXPECT_NE(past_end.status().message().find("data/blob.bin"), std::string::npos);
  EXPECT_NE(past_end.status().message().find("16-byte"), std::string::npos);
  EXPECT_EQ(store->Get("bad/missing").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store->Get("bad/s3").status().code(), StatusCode::kUnsupported);
  EXPECT_FALSE(store->Get("bad/null").ok());
  EXPECT_EQ(store->Get("../up").status().code(), StatusCode::kInvalidArgument);
  auto remote = store->Get("bad/remote");
  EXPECT_NE(remote.status().message().find("remote references are not allowed"), std::string::npos);
}

TEST_F(ReferenceStoreTest, TargetsOutsideTheAllowedRootsAreRefused) {
  auto store = Open();
  for (const char* key : {"bad/escape", "bad/absolute"}) {
    auto value = store->Get(key);
    EXPECT_EQ(value.status().code(), StatusCode::kInvalidArgument) << key;
    EXPECT_NE(value.status().message().find("outside the allowed roots"), std::string::npos);
  }
  // A symbolic link inside the root that points out of it is refused too.
  fs::create_symlink(outside_ / "secret", dir_ / "data" / "link");
  index_->Set("bad/link", Reference::WholeFile("data/link"));
  EXPECT_EQ(Open()->Get("bad/link").status().code(), StatusCode::kInvalidArgument);
  auto widened = Open({dir_, outside_});
  EXPECT_EQ(Text(widened->Get("bad/escape")), "secret");
  EXPECT_EQ(Text(widened->Get("bad/link")), "secret");
}

// Targets of other schemes (s3://) go through open_target, e.g. the facade's
// registry; here a memory store stands for the bucket.
TEST_F(ReferenceStoreTest, OpenTargetReadsOtherSchemesWhenRemoteIsAllowed) {
  std::shared_ptr<MemoryStore> bucket = MemoryStore::Create();
  ASSERT_TRUE(bucket->Set("x", AsBytes("0123456789")).ok());
  std::vector<std::string> asked;
  ReferenceStoreOptions options;
  options.base_directory = dir_;
  options.name = "refs.json";
  options.open_target = [&](const std::string& url) -> Result<TargetLocation> {
    asked.push_back(url);
    if (url != "s3://bucket/x") return Status::NotFound(url + " does not exist");
    return TargetLocation{bucket, "x"};
  };
  index_->Set("s3/tail", Reference::Range("s3://bucket/x", 6, 4));
  index_->Set("s3/past_end", Reference::Range("s3://bucket/x", 8, 4));
  index_->Set("s3/missing", Reference::WholeFile("s3://bucket/none"));
  auto refused = ReferenceStore::Open(index_, options);
  ASSERT_TRUE(refused.ok());
  auto not_allowed = (*refused)->Get("s3/tail");
  EXPECT_EQ(not_allowed.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(not_allowed.status().message().find("remote references are not allowed"),
            std::string::npos);
  EXPECT_TRUE(asked.empty());
  options.allow_remote = true;
  auto store = ReferenceStore::Open(index_, options);
  ASSERT_TRUE(store.ok());
  EXPECT_EQ(Text((*store)->Get("s3/tail")), "6789");
  EXPECT_EQ(Text((*store)->GetRange("s3/tail", ByteRange::Span(1, 2))), "78");
  auto past_end = (*store)->Get("s3/past_end");
  EXPECT_EQ(past_end.status().code(), StatusCode::kOutOfRange);
  EXPECT_NE(past_end.status().message().find("s3/past_end"), std::string::npos);
  auto missing = (*store)->Get("s3/missing");
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("s3://bucket/none"), std::string::npos);
  EXPECT_EQ(Text((*store)->Get("a/range")), "456789");  // Local targets still resolve.
}

TEST_F(ReferenceStoreTest, ASetFromObjectStorageRefusesLocalTargets) {
  ReferenceStoreOptions options;
  options.refuse_local_targets = true;
  options.allowed_roots = {dir_};  // Ignored: no local target is read.
  options.name = "s3://bucket/refs.json";
  auto store = ReferenceStore::Open(index_, options);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_EQ(Text((*store)->Get("inline")), "hello");
  for (const char* key : {"a/range", "a/whole", "a/file_url"}) {
    auto value = (*store)->Get(key);
    EXPECT_EQ(value.status().code(), StatusCode::kInvalidArgument) << key;
    EXPECT_NE(value.status().message().find("may not point at this machine's files"),
              std::string::npos);
  }
}

}  // namespace
}  // namespace chunkwise::store
