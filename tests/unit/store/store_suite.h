// The behaviour every Store must show, as value-parameterized suites.
//
// StoreSuite is for stores that can be written. A store's test file
// instantiates it with a factory that makes a fresh, empty store per test:
//
//   INSTANTIATE_TEST_SUITE_P(Memory, StoreSuite,
//                            ::testing::Values(StoreFactory{"memory", MakeStore}),
//                            StoreFactoryName);
//
// ReadableStoreSuite is for stores that can only be read (a reference set):
// its factory makes a store that holds exactly the values it is given. The
// tests of reads are written once (CHUNKWISE_STORE_READ_TEST) and run in both
// suites, on FilledContents(): StoreSuite writes them with Set first.
#ifndef CHUNKWISE_TESTS_UNIT_STORE_STORE_SUITE_H_
#define CHUNKWISE_TESTS_UNIT_STORE_STORE_SUITE_H_

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "chunkwise/store/store.h"

namespace chunkwise::store::suite {

struct StoreFactory {
  std::string name;
  std::function<std::shared_ptr<Store>()> make;
};

inline std::string StoreFactoryName(const ::testing::TestParamInfo<StoreFactory>& info) {
  return info.param.name;
}

// Names the store in test output instead of dumping the struct's bytes.
inline void PrintTo(const StoreFactory& factory, std::ostream* os) { *os << factory.name; }

inline Bytes B(std::string_view text) { return Bytes(text.begin(), text.end()); }

using StoreContents = std::map<std::string, Bytes>;

// What the tests of reads expect a store to hold: nested and flat keys, an
// empty value, a binary value larger than a page.
inline const StoreContents& FilledContents() {
  static const StoreContents* const contents = [] {
    auto* filled =
        new StoreContents{{"c/0/0", B("x")}, {"c/0/1", B("chunk")},  {"c/1/0", B("x")},
                          {"c/10", B("x")},  {"c0", B("x")},         {"d/0", B("x")},
                          {"empty", B("")},  {"v", B("0123456789")}, {"zarr.json", B("{}")}};
    Bytes binary(70000);
    for (std::size_t i = 0; i < binary.size(); ++i) binary[i] = static_cast<std::uint8_t>(i * 131);
    filled->emplace("bin", std::move(binary));
    return filled;
  }();
  return *contents;
}

// Makes a store that holds exactly the given values.
struct ReadableStoreFactory {
  std::string name;
  std::function<std::shared_ptr<Store>(const StoreContents&)> make;
};

inline std::string ReadableStoreFactoryName(
    const ::testing::TestParamInfo<ReadableStoreFactory>& info) {
  return info.param.name;
}

inline void PrintTo(const ReadableStoreFactory& factory, std::ostream* os) { *os << factory.name; }

class StoreSuite : public ::testing::TestWithParam<StoreFactory> {
 protected:
  void SetUp() override {
    store_ = GetParam().make();
    ASSERT_NE(store_, nullptr);
  }
  // The value of `key`, failing the test on an error.
  std::optional<Bytes> Get(std::string_view key) {
    Result<std::optional<Bytes>> value = store_->Get(key);
    EXPECT_TRUE(value.ok()) << value.status().ToString();
    return value.ok() ? *value : std::nullopt;
  }
  void Set(std::string_view key, std::string_view value) {
    ASSERT_TRUE(store_->Set(key, AsBytes(value)).ok()) << key;
  }
  std::vector<std::string> List(std::string_view prefix) {
    Result<std::vector<std::string>> keys = store_->List(prefix);
    EXPECT_TRUE(keys.ok()) << keys.status().ToString();
    return keys.ok() ? *keys : std::vector<std::string>();
  }
  Generation GenerationOf(std::string_view key) {
    Result<Generation> generation = store_->GetGeneration(key);
    EXPECT_TRUE(generation.ok()) << generation.status().ToString();
    return generation.ok() ? *generation : Generation::Of("<error>");
  }
  // Writes FilledContents(), for the tests of reads.
  void Fill() {
    for (const auto& [key, value] : FilledContents()) {
      ASSERT_TRUE(store_->Set(key, value).ok()) << key;
    }
  }

  std::shared_ptr<Store> store_;
};

class ReadableStoreSuite : public ::testing::TestWithParam<ReadableStoreFactory> {
 protected:
  void SetUp() override {
    store_ = GetParam().make(FilledContents());
    ASSERT_NE(store_, nullptr);
  }

  std::shared_ptr<Store> store_;
};

// A store's test file instantiates one suite or the other (or both).
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(StoreSuite);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ReadableStoreSuite);

// Defines a test of reads on a store holding FilledContents(), run in both
// suites. The body sees the store as `store` (const Store&).
#define CHUNKWISE_STORE_READ_TEST(name)                      \
  void name##Reads(const Store& store);                      \
  TEST_P(StoreSuite, name) {                                 \
    ASSERT_NO_FATAL_FAILURE(Fill());                         \
    name##Reads(*store_);                                    \
  }                                                          \
  TEST_P(ReadableStoreSuite, name) { name##Reads(*store_); } \
  void name##Reads(const Store& store)

inline std::vector<std::string> ListOf(const Store& store, std::string_view prefix) {
  Result<std::vector<std::string>> keys = store.List(prefix);
  EXPECT_TRUE(keys.ok()) << keys.status().ToString();
  return keys.ok() ? *keys : std::vector<std::string>();
}

CHUNKWISE_STORE_READ_TEST(AbsentKeyIsNulloptNotError) {
  Result<std::optional<Bytes>> value = store.Get("missing");
  ASSERT_TRUE(value.ok()) << value.status().ToString();
  EXPECT_EQ(*value, std::nullopt);
  Result<std::optional<Bytes>> range = store.GetRange("missing", ByteRange::Span(0, 1));
  ASSERT_TRUE(range.ok());
  EXPECT_EQ(*range, std::nullopt);
  Result<std::optional<std::uint64_t>> size = store.Size("a/missing");
  ASSERT_TRUE(size.ok());
  EXPECT_EQ(*size, std::nullopt);
  Result<bool> exists = store.Exists("missing");
  ASSERT_TRUE(exists.ok());
  EXPECT_FALSE(*exists);
  // A prefix of stored keys is not a value: absent, or, where keys are file
  // paths, Corruption naming it (a directory where a value was looked for).
  Result<std::optional<Bytes>> directory = store.Get("c/0");
  if (directory.ok()) {
    EXPECT_EQ(*directory, std::nullopt);
  } else {
    EXPECT_EQ(directory.status().code(), StatusCode::kCorruption);
    EXPECT_NE(directory.status().message().find("c/0"), std::string_view::npos)
        << directory.status().ToString();
  }
}

CHUNKWISE_STORE_READ_TEST(EveryValueReadsBackWithItsSize) {
  for (const auto& [key, value] : FilledContents()) {
    SCOPED_TRACE(key);
    Result<std::optional<Bytes>> got = store.Get(key);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_TRUE(got->has_value());
    EXPECT_EQ(**got, value);
    Result<std::optional<std::uint64_t>> size = store.Size(key);
    ASSERT_TRUE(size.ok() && size->has_value()) << size.status().ToString();
    EXPECT_EQ(**size, value.size());
    Result<bool> exists = store.Exists(key);
    ASSERT_TRUE(exists.ok());
    EXPECT_TRUE(*exists);
  }
}

CHUNKWISE_STORE_READ_TEST(ListReturnsSortedKeysWithPrefix) {
  EXPECT_THAT(ListOf(store, ""), ::testing::ElementsAre("bin", "c/0/0", "c/0/1", "c/1/0", "c/10",
                                                        "c0", "d/0", "empty", "v", "zarr.json"));
  EXPECT_THAT(ListOf(store, "c/"), ::testing::ElementsAre("c/0/0", "c/0/1", "c/1/0", "c/10"));
  EXPECT_THAT(ListOf(store, "c/1"), ::testing::ElementsAre("c/1/0", "c/10"));
  EXPECT_THAT(ListOf(store, "c"), ::testing::ElementsAre("c/0/0", "c/0/1", "c/1/0", "c/10", "c0"));
  EXPECT_THAT(ListOf(store, "c/0/0"), ::testing::ElementsAre("c/0/0"));
  EXPECT_THAT(ListOf(store, "zz"), ::testing::IsEmpty());
  EXPECT_THAT(ListOf(store, "nothing/here/"), ::testing::IsEmpty());
}

CHUNKWISE_STORE_READ_TEST(GetRangeReadsSpansAndSuffixes) {
  auto range = [&](ByteRange r) {
    Result<std::optional<Bytes>> got = store.GetRange("v", r);
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    return got.ok() && got->has_value() ? std::string(AsChars(**got)) : std::string("<none>");
  };
  EXPECT_EQ(range(ByteRange::Span(2, 3)), "234");
  EXPECT_EQ(range(ByteRange::Span(0, 10)), "0123456789");
  EXPECT_EQ(range(ByteRange::Span(10, 0)), "");
  EXPECT_EQ(range(ByteRange::Suffix(4)), "6789");
  EXPECT_EQ(range(ByteRange::Suffix(10)), "0123456789");
  EXPECT_EQ(range(ByteRange::Suffix(0)), "");
  Result<std::optional<Bytes>> binary = store.GetRange("bin", ByteRange::Span(65536, 3));
  ASSERT_TRUE(binary.ok() && binary->has_value()) << binary.status().ToString();
  const Bytes& whole = FilledContents().at("bin");
  EXPECT_EQ(**binary, Bytes(whole.begin() + 65536, whole.begin() + 65539));
}

CHUNKWISE_STORE_READ_TEST(GetRangeOutsideValueIsOutOfRange) {
  for (ByteRange r : {ByteRange::Span(8, 3), ByteRange::Span(11, 0), ByteRange::Suffix(11),
                      ByteRange::Span(1, UINT64_MAX), ByteRange::Span(UINT64_MAX, 2)}) {
    Result<std::optional<Bytes>> got = store.GetRange("v", r);
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.status().code(), StatusCode::kOutOfRange);
    EXPECT_THAT(std::string(got.status().message()), ::testing::HasSubstr("v"));
  }
}

CHUNKWISE_STORE_READ_TEST(GetRangesIntoReadsRangesBackToBack) {
  // Adjacent ranges (read as one by a file), a gap, a repeat and a suffix.
  const ByteRange ranges[] = {ByteRange::Span(1, 2), ByteRange::Span(3, 2), ByteRange::Span(8, 1),
                              ByteRange::Span(1, 2), ByteRange::Suffix(3)};
  Bytes out(10);
  Result<bool> found = store.GetRangesInto("v", ranges, out);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_TRUE(*found);
  EXPECT_EQ(std::string(AsChars(out)), "1234812789");
  Result<bool> absent = store.GetRangesInto("missing", ranges, out);
  ASSERT_TRUE(absent.ok());
  EXPECT_FALSE(*absent);
}

CHUNKWISE_STORE_READ_TEST(GetRangesIntoPutsEachRangeOfABatchInItsPlace) {
  // One batch of ranges out of order: overlapping, touching, near and far
  // apart and a suffix, which a remote store joins into fewer requests
  // (store/range_coalescing.h) and every store must return as asked.
  const ByteRange ranges[] = {ByteRange::Span(69990, 10), ByteRange::Span(50, 100),
                              ByteRange::Span(0, 100),    ByteRange::Span(150, 50),
                              ByteRange::Span(30000, 1),  ByteRange::Span(400, 1000),
                              ByteRange::Suffix(5),       ByteRange::Span(0, 100)};
  const Bytes& binary = FilledContents().at("bin");
  Bytes expected;
  for (const ByteRange& range : ranges) {
    const ByteRange span = *range.Resolve(binary.size(), "bin");
    expected.insert(expected.end(), binary.begin() + static_cast<std::ptrdiff_t>(span.offset),
                    binary.begin() + static_cast<std::ptrdiff_t>(span.offset + span.length));
  }
  Bytes out(expected.size());
  Result<bool> found = store.GetRangesInto("bin", ranges, out);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_TRUE(*found);
  EXPECT_TRUE(out == expected);  // Not EXPECT_EQ: 1,366 bytes would print.
}

CHUNKWISE_STORE_READ_TEST(GetRangesIntoRefusesAWrongBufferOrARangeOutside) {
  const ByteRange two[] = {ByteRange::Span(0, 2), ByteRange::Span(5, 2)};
  Bytes small(3);
  Result<bool> wrong = store.GetRangesInto("v", two, small);
  EXPECT_EQ(wrong.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(wrong.status().message()), ::testing::HasSubstr("v"));
  const ByteRange outside[] = {ByteRange::Span(0, 2), ByteRange::Span(9, 2)};
  Bytes four(4);
  EXPECT_EQ(store.GetRangesInto("v", outside, four).status().code(), StatusCode::kOutOfRange);
}

CHUNKWISE_STORE_READ_TEST(OpenReaderReadsRangesOfTheValue) {
  Result<std::unique_ptr<ValueReader>> reader = store.OpenReader("v");
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  ASSERT_NE(*reader, nullptr);
  EXPECT_EQ((*reader)->size(), 10u);
  const ByteRange ranges[] = {ByteRange::Span(1, 2), ByteRange::Span(3, 2), ByteRange::Span(8, 1),
                              ByteRange::Suffix(3)};
  Bytes out(8);
  ASSERT_TRUE((*reader)->ReadInto(ranges, out).ok());
  EXPECT_EQ(std::string(AsChars(out)), "12348789");
  // A second read through the same reader, from another thread.
  Bytes again(8);
  std::thread([&] { EXPECT_TRUE((*reader)->ReadInto(ranges, again).ok()); }).join();
  EXPECT_EQ(again, out);
  Bytes small(3);
  const Status wrong = (*reader)->ReadInto(ranges, small);
  EXPECT_EQ(wrong.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(wrong.message()), ::testing::HasSubstr("v"));
  const ByteRange outside[] = {ByteRange::Span(9, 2)};
  Bytes two(2);
  EXPECT_EQ((*reader)->ReadInto(outside, two).code(), StatusCode::kOutOfRange);
}

CHUNKWISE_STORE_READ_TEST(OpenReaderOfAnAbsentKeyIsNull) {
  Result<std::unique_ptr<ValueReader>> reader = store.OpenReader("missing");
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ(*reader, nullptr);
  EXPECT_FALSE(store.OpenReader("../bad").ok());
}

CHUNKWISE_STORE_READ_TEST(InvalidKeysAreRefusedByReads) {
  for (const char* key : {"", "/abs", "a//b", "a/", "./a", "a/./b", "../x", "a/..", "a\\b"}) {
    SCOPED_TRACE(key);
    EXPECT_EQ(store.Get(key).status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(store.GetRange(key, ByteRange::Suffix(1)).status().code(),
              StatusCode::kInvalidArgument);
    EXPECT_EQ(store.Size(key).status().code(), StatusCode::kInvalidArgument);
  }
  EXPECT_EQ(store.Get(std::string_view("a\0b", 3)).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store.List("/").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store.List("../").status().code(), StatusCode::kInvalidArgument);
}

CHUNKWISE_STORE_READ_TEST(DescribeNamesTheKey) {
  EXPECT_THAT(store.Describe("c/0/1"), ::testing::HasSubstr("c/0/1"));
}

CHUNKWISE_STORE_READ_TEST(CapabilitiesAdvertiseLists) {
  EXPECT_TRUE(store.capabilities().listable);
  // Listing-driven walks (zarr convert, refs build, info) trust it to miss nothing.
  EXPECT_TRUE(store.capabilities().lists_every_key);
}

TEST_P(StoreSuite, SetThenGetReturnsValue) {
  Set("zarr.json", "{}");
  Set("c/0/1", "chunk");
  EXPECT_EQ(Get("zarr.json"), B("{}"));
  EXPECT_EQ(Get("c/0/1"), B("chunk"));
  Result<bool> exists = store_->Exists("c/0/1");
  ASSERT_TRUE(exists.ok());
  EXPECT_TRUE(*exists);
}

TEST_P(StoreSuite, EmptyValueIsPresent) {
  Set("empty", "");
  EXPECT_EQ(Get("empty"), Bytes());
  Result<std::optional<std::uint64_t>> size = store_->Size("empty");
  ASSERT_TRUE(size.ok());
  EXPECT_EQ(*size, 0u);
}

TEST_P(StoreSuite, OverwriteReplacesWholeValue) {
  Set("k", "a long first value");
  Set("k", "short");
  EXPECT_EQ(Get("k"), B("short"));
  Result<std::optional<std::uint64_t>> size = store_->Size("k");
  ASSERT_TRUE(size.ok());
  EXPECT_EQ(*size, 5u);
}

TEST_P(StoreSuite, BinaryValuesRoundTrip) {
  Bytes value(70000);
  for (std::size_t i = 0; i < value.size(); ++i) {
    value[i] = static_cast<std::uint8_t>(i * 131);
  }
  ASSERT_TRUE(store_->Set("bin", value).ok());
  EXPECT_EQ(Get("bin"), value);
}

TEST_P(StoreSuite, ValueWriterPublishesOnlyOnCommit) {
  Set("w/old", "previous");
  Result<std::unique_ptr<ValueWriter>> writer = store_->OpenWriter("w/old");
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  ASSERT_TRUE((*writer)->Append(AsBytes(std::string_view("xxxx"))).ok());
  ASSERT_TRUE((*writer)->Append(AsBytes(std::string_view("body"))).ok());
  EXPECT_EQ((*writer)->size(), 8u);
  ASSERT_TRUE((*writer)->Overwrite(0, AsBytes(std::string_view("head"))).ok());
  EXPECT_EQ((*writer)->Overwrite(6, AsBytes(std::string_view("abc"))).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(Get("w/old"), B("previous"));  // Nothing shows before Commit.
  ASSERT_TRUE((*writer)->Commit().ok());
  EXPECT_EQ(Get("w/old"), B("headbody"));
  EXPECT_EQ((*writer)->Append(AsBytes(std::string_view("late"))).code(),
            StatusCode::kInvalidArgument);
}

TEST_P(StoreSuite, ValueWriterDroppedWithoutCommitLeavesNothing) {
  {
    Result<std::unique_ptr<ValueWriter>> writer = store_->OpenWriter("d/new");
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    ASSERT_TRUE((*writer)->Append(AsBytes(std::string_view("partial"))).ok());
  }
  EXPECT_EQ(Get("d/new"), std::nullopt);
  EXPECT_TRUE(List("d").empty());
  EXPECT_EQ(store_->OpenWriter("../escape").status().code(), StatusCode::kInvalidArgument);
}

TEST_P(StoreSuite, EraseRemovesKeyAndAbsentEraseSucceeds) {
  Set("a/b", "1");
  Set("a/c", "2");
  ASSERT_TRUE(store_->Erase("a/b").ok());
  EXPECT_EQ(Get("a/b"), std::nullopt);
  EXPECT_EQ(Get("a/c"), B("2"));
  EXPECT_TRUE(store_->Erase("a/b").ok());
  EXPECT_TRUE(store_->Erase("never/was").ok());
  EXPECT_THAT(List(""), ::testing::ElementsAre("a/c"));
}

TEST_P(StoreSuite, PinnedReaderKeepsTheVersionItOpened) {
  Set("v", "first value");
  Result<std::unique_ptr<ValueReader>> reader = store_->OpenReader("v");
  ASSERT_TRUE(reader.ok() && *reader != nullptr);
  Set("v", "SECOND VALUE, longer");
  const ByteRange all[] = {ByteRange::Span(0, 11)};
  Bytes out(11);
  const Status replaced = (*reader)->ReadInto(all, out);
  if (!(*reader)->pinned()) {
    ASSERT_TRUE(replaced.ok());
    EXPECT_EQ(std::string(AsChars(out)), "SECOND VALU");
    GTEST_SUCCEED() << GetParam().name << " does not pin values";
    return;
  }
  ASSERT_TRUE(replaced.ok()) << replaced.ToString();
  EXPECT_EQ(std::string(AsChars(out)), "first value");
  EXPECT_EQ((*reader)->size(), 11u);
  ASSERT_TRUE(store_->Erase("v").ok());
  Bytes after_erase(11);
  ASSERT_TRUE((*reader)->ReadInto(all, after_erase).ok());
  EXPECT_EQ(std::string(AsChars(after_erase)), "first value");
}

TEST_P(StoreSuite, SetPartsStoresThePartsJoinedAndReplacesTheValue) {
  Set("v", "old value");
  const std::string a = "abc", b, c = "defg";
  const ByteView parts[] = {AsBytes(a), AsBytes(b), AsBytes(c)};
  ASSERT_TRUE(store_->SetParts("v", parts).ok());
  Result<std::optional<Bytes>> got = store_->Get("v");
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ(std::string(AsChars(**got)), "abcdefg");
  EXPECT_EQ(store_->SetParts("a//b", parts).code(), StatusCode::kInvalidArgument);
}

TEST_P(StoreSuite, InvalidKeysAreRejected) {
  for (const char* key : {"", "/abs", "a//b", "a/", "./a", "a/./b", "../x", "a/..", "a\\b"}) {
    SCOPED_TRACE(key);
    EXPECT_EQ(store_->Set(key, AsBytes("x")).code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(store_->Get(key).status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(store_->GetRange(key, ByteRange::Suffix(1)).status().code(),
              StatusCode::kInvalidArgument);
    EXPECT_EQ(store_->Size(key).status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(store_->Erase(key).code(), StatusCode::kInvalidArgument);
  }
  EXPECT_EQ(store_->Set(std::string_view("a\0b", 3), AsBytes("x")).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->List("/").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->List("../").status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(List(""), ::testing::IsEmpty());
}

TEST_P(StoreSuite, CapabilitiesAdvertiseWritesAndLists) {
  const StoreCapabilities capabilities = store_->capabilities();
  EXPECT_TRUE(capabilities.writable);
  EXPECT_TRUE(capabilities.listable);
}

// Writers alternate two values of different lengths and contents; readers
// must always see exactly one of them, never a mix or a truncation.
TEST_P(StoreSuite, ConcurrentWritersAndReadersNeverSeeTornValue) {
  const Bytes first(64 * 1024, 'a');
  const Bytes second(3 * 1024 + 7, 'b');
  ASSERT_TRUE(store_->Set("shared/key", first).ok());
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < 2; ++w) {
    threads.emplace_back([&, w] {
      for (int i = 0; i < 150; ++i) {
        if (!store_->Set("shared/key", (i + w) % 2 ? first : second).ok()) {
          ++failures;
        }
      }
    });
  }
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back([&] {
      for (int i = 0; i < 300; ++i) {
        Result<std::optional<Bytes>> got = store_->Get("shared/key");
        if (!got.ok() || !got->has_value() || (**got != first && **got != second)) {
          ++failures;
        }
      }
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  EXPECT_EQ(failures.load(), 0);
  EXPECT_THAT(List("shared/"), ::testing::ElementsAre("shared/key"));
}

TEST_P(StoreSuite, ConcurrentWritersOfDistinctKeysAllLand) {
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 25; ++i) {
        const std::string key = "c/" + std::to_string(t) + "/" + std::to_string(i);
        EXPECT_TRUE(store_->Set(key, AsBytes(key)).ok());
      }
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  EXPECT_EQ(List("c/").size(), 100u);
  EXPECT_EQ(Get("c/3/24"), B("c/3/24"));
}

// Erase prunes directories that a concurrent Set may be writing into; the
// Set must still land, and neither side may report an error.
TEST_P(StoreSuite, ConcurrentSetAndEraseInOneDirectory) {
  std::mutex mutex;
  std::vector<std::string> errors;
  auto check = [&](const Status& status) {
    if (status.ok()) {
      return;
    }
    std::lock_guard lock(mutex);
    errors.push_back(status.ToString());
  };
  auto churn = [&](std::string key_base, int distinct) {
    for (int i = 0; i < 200; ++i) {
      const std::string key = key_base + std::to_string(i % distinct);
      check(store_->Set(key, AsBytes("x")));
      check(store_->Erase(key));
    }
  };
  std::thread first(churn, "d/e/a", 1);
  std::thread second(churn, "d/e/", 7);
  first.join();
  second.join();
  EXPECT_THAT(errors, ::testing::IsEmpty());
  Set("d/e/last", "z");
  EXPECT_EQ(Get("d/e/last"), B("z"));
}

// Conditional writes: every store that advertises them compares and writes
// atomically (a store without them says Unsupported: store_test.cc).
#define CHUNKWISE_NEEDS_CONDITIONAL_WRITES()      \
  if (!store_->capabilities().conditional_writes) \
  GTEST_SKIP() << GetParam().name << " has no conditional writes"

TEST_P(StoreSuite, SetIfWritesOnlyAtTheGenerationRead) {
  CHUNKWISE_NEEDS_CONDITIONAL_WRITES();
  EXPECT_TRUE(GenerationOf("a/k").absent());
  Set("a/k", "first");
  const Generation first = GenerationOf("a/k");
  EXPECT_FALSE(first.absent());
  Result<Generation> second = store_->SetIf("a/k", AsBytes("second"), first);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_NE(*second, first);
  EXPECT_EQ(GenerationOf("a/k"), *second);
  EXPECT_EQ(Get("a/k"), B("second"));
  // A writer still holding the first generation loses, and changes nothing.
  Result<Generation> stale = store_->SetIf("a/k", AsBytes("stale"), first);
  EXPECT_EQ(stale.status().code(), StatusCode::kConflict);
  EXPECT_THAT(std::string(stale.status().message()), ::testing::HasSubstr("a/k"));
  EXPECT_EQ(Get("a/k"), B("second"));
  const std::string x = "x", y = "yz";
  const ByteView parts[] = {AsBytes(x), AsBytes(y)};
  Result<Generation> joined = store_->SetPartsIf("a/k", parts, *second);
  ASSERT_TRUE(joined.ok()) << joined.status().ToString();
  EXPECT_EQ(Get("a/k"), B("xyz"));
  EXPECT_EQ(store_->SetIf("../k", AsBytes("x"), first).status().code(),
            StatusCode::kInvalidArgument);
}

TEST_P(StoreSuite, CreateIfAbsentCreatesOnce) {
  CHUNKWISE_NEEDS_CONDITIONAL_WRITES();
  Result<Generation> created = store_->CreateIfAbsent("b/new", AsBytes("one"));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(GenerationOf("b/new"), *created);
  Result<Generation> again = store_->CreateIfAbsent("b/new", AsBytes("two"));
  EXPECT_EQ(again.status().code(), StatusCode::kConflict);
  EXPECT_THAT(std::string(again.status().message()), ::testing::HasSubstr("b/new"));
  EXPECT_EQ(Get("b/new"), B("one"));
  // A key expected at a generation but absent is a conflict too.
  ASSERT_TRUE(store_->Erase("b/new").ok());
  EXPECT_EQ(store_->SetIf("b/new", AsBytes("x"), *created).status().code(), StatusCode::kConflict);
  EXPECT_EQ(Get("b/new"), std::nullopt);
}

TEST_P(StoreSuite, EraseIfErasesOnlyAtTheGenerationRead) {
  CHUNKWISE_NEEDS_CONDITIONAL_WRITES();
  Set("e/k", "v1");
  const Generation old = GenerationOf("e/k");
  Set("e/k", "v2 (longer)");
  EXPECT_EQ(store_->EraseIf("e/k", old).code(), StatusCode::kConflict);
  EXPECT_EQ(Get("e/k"), B("v2 (longer)"));
  ASSERT_TRUE(store_->EraseIf("e/k", GenerationOf("e/k")).ok());
  EXPECT_EQ(Get("e/k"), std::nullopt);
  EXPECT_TRUE(store_->EraseIf("e/k", Generation::Absent()).ok());
  EXPECT_TRUE(store_->EraseIf("never/was", Generation::Absent()).ok());
  EXPECT_EQ(store_->EraseIf("e/k", old).code(), StatusCode::kConflict);
}

TEST_P(StoreSuite, ReadsReportTheGenerationTheyRead) {
  CHUNKWISE_NEEDS_CONDITIONAL_WRITES();
  Set("r/k", "value");
  const Generation now = GenerationOf("r/k");
  Result<std::optional<VersionedValue>> versioned = store_->GetVersioned("r/k");
  ASSERT_TRUE(versioned.ok()) << versioned.status().ToString();
  ASSERT_TRUE(versioned->has_value());
  EXPECT_EQ((*versioned)->value, B("value"));
  EXPECT_EQ((*versioned)->generation, now);
  Result<std::optional<VersionedValue>> absent = store_->GetVersioned("r/none");
  ASSERT_TRUE(absent.ok());
  EXPECT_EQ(*absent, std::nullopt);
  Result<std::unique_ptr<ValueReader>> reader = store_->OpenReader("r/k");
  ASSERT_TRUE(reader.ok() && *reader != nullptr);
  if ((*reader)->generation().has_value()) {
    EXPECT_EQ(*(*reader)->generation(), now);
    Set("r/k", "changed");
    EXPECT_EQ(*(*reader)->generation(), now);  // The version it reads.
  }
}

// Read-modify-write with retry on conflict, the way a shard is updated:
// every thread sets its own bytes of one value; none may be lost.
inline Status SetOwnBytes(Store& store, std::string_view key, std::size_t first, std::size_t count,
                          std::size_t size, int* conflicts) {
  for (int attempt = 0; attempt < 100000; ++attempt) {
    CHUNKWISE_ASSIGN_OR_RETURN(std::optional<VersionedValue> current, store.GetVersioned(key));
    Bytes value = current ? current->value : Bytes(size, '.');
    for (std::size_t i = first; i < first + count; ++i) value[i] = 'x';
    Result<Generation> written =
        store.SetIf(key, value, current ? current->generation : Generation::Absent());
    if (written.ok()) return Status::Ok();
    if (written.status().code() != StatusCode::kConflict) return written.status();
    ++*conflicts;
  }
  return Status::Internal("no progress");
}

TEST_P(StoreSuite, ConcurrentReadModifyWritesLoseNothing) {
  CHUNKWISE_NEEDS_CONDITIONAL_WRITES();
  // A remote store (moto on loopback) pays a round trip per request and
  // every conflict costs a re-read: fewer slots and trials keep it to seconds.
  const bool local = store_->capabilities().local;
  const int kThreads = 8, kSlotsPerThread = local ? 16 : 2, kTrials = local ? 10 : 2;
  const std::size_t kSize = std::size_t(kThreads) * kSlotsPerThread;
  for (int trial = 0; trial < kTrials; ++trial) {
    const std::string key = "shard/" + std::to_string(trial);
    std::atomic<int> conflicts{0};
    std::vector<std::string> errors;
    std::mutex mutex;
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        int mine = 0;
        // Interleaved slots: thread t owns every kThreads-th byte.
        for (int s = 0; s < kSlotsPerThread; ++s) {
          const Status status = SetOwnBytes(*store_, key, s * kThreads + t, 1, kSize, &mine);
          if (!status.ok()) {
            std::lock_guard lock(mutex);
            errors.push_back(status.ToString());
          }
        }
        conflicts += mine;
      });
    }
    for (std::thread& thread : threads) thread.join();
    EXPECT_THAT(errors, ::testing::IsEmpty());
    EXPECT_EQ(Get(key), Bytes(kSize, 'x'))
        << "trial " << trial << ", " << conflicts << " conflicts";
  }
}

}  // namespace chunkwise::store::suite

#endif  // CHUNKWISE_TESTS_UNIT_STORE_STORE_SUITE_H_
