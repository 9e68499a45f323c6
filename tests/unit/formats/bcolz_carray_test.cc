// Carray: round trips for every dtype class, leftover handling, assignment,
// trim/resize, modes, attributes, crash states and bad files.
#include <gtest/gtest.h>

#include <random>

#include "formats/bcolz/carray.h"
#include "store/memory_store.h"
#include "unit/forwarding_store.h"

namespace chunkwise::formats::bcolz {
namespace {

core::NpyDtype Dtype(const char* text) {
  auto dtype = DtypeFromString(text);
  CHUNKWISE_CHECK(dtype.ok());
  return *dtype;
}

Bytes RandomBytes(std::size_t n, unsigned seed) {
  std::mt19937 random(seed);
  Bytes bytes(n);
  // Runs of repeated bytes, so that chunks really compress.
  for (std::size_t i = 0; i < n; ++i) bytes[i] = static_cast<std::uint8_t>(random() % 4 + i / 64);
  return bytes;
}

CarrayOptions Options(const char* dtype, std::int64_t chunklen,
                      std::vector<std::int64_t> atom = {}) {
  CarrayOptions options;
  options.dtype = Dtype(dtype);
  options.atom_shape = std::move(atom);
  options.chunklen = chunklen;
  return options;
}

// A copy of every key: the store as a crash would leave it.
std::shared_ptr<store::MemoryStore> Snapshot(const store::Store& source) {
  auto copy = store::MemoryStore::Create();
  const std::vector<std::string> keys = *source.List("");
  for (const std::string& key : keys) {
    CHUNKWISE_CHECK(copy->Set(key, **source.Get(key)).ok());
  }
  return copy;
}

void ExpectError(const Status& status, StatusCode code, std::string_view fragment) {
  EXPECT_EQ(status.code(), code) << status.ToString();
  EXPECT_NE(status.message().find(fragment), std::string::npos) << status.ToString();
}

TEST(Carray, RoundTripEveryDtypeClass) {
  struct Case {
    const char* dtype;
    std::vector<std::int64_t> atom;
  };
  const Case cases[] = {
      {"bool", {}},
      {"int8", {}},
      {"int16", {}},
      {"int32", {}},
      {"int64", {}},
      {"uint16", {}},
      {"uint64", {}},
      {"float16", {}},
      {"float32", {}},
      {"float64", {3, 2}},
      {"complex64", {}},
      {"complex128", {2}},
      {">i4", {}},
      {">f8", {4}},
      {"datetime64[ns]", {}},
      {"timedelta64[s]", {}},
      {"|S7", {}},
      {"<U3", {2}},
      {"|V5", {}},
      {"|V300", {}},
      {"[('a', '<i4'), ('b', '<f8', (2,)), ('c', '|S3')]", {}},
      {"[('x', '>u2'), ('y', [('p', '<f4'), ('q', '|b1')])]", {2, 2}},
  };
  unsigned seed = 1;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.dtype);
    auto store = store::MemoryStore::Create();
    auto carray = Carray::Create(store, "arr/", Options(c.dtype, 7, c.atom));
    ASSERT_TRUE(carray.ok()) << carray.status().ToString();
    const std::size_t atomsize = (*carray)->atomsize();
    const Bytes data = RandomBytes(atomsize * 101, seed++);
    std::size_t at = 0;
    for (std::size_t rows : {1, 5, 13, 30, 0, 52}) {
      ASSERT_TRUE((*carray)->Append(ByteView(data.data() + at, rows * atomsize)).ok());
      at += rows * atomsize;
    }
    ASSERT_EQ(at, data.size());
    ASSERT_TRUE((*carray)->Close().ok());
    auto reopened = Carray::Open(store, "arr/", Mode::kRead);
    ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
    Carray& array = **reopened;
    EXPECT_EQ(array.length(), 101);
    EXPECT_EQ(array.dtype(), Dtype(c.dtype));
    EXPECT_EQ(array.atom_shape(), c.atom);
    EXPECT_EQ(array.chunk_count(), 15);
    auto all = array.Read(0, 101);
    ASSERT_TRUE(all.ok()) << all.status().ToString();
    EXPECT_EQ(*all, data);
    for (auto [start, stop] : {std::pair{0, 1}, {6, 8}, {50, 51}, {3, 99}, {98, 101}, {7, 14}}) {
      auto part = array.Read(start, stop);
      ASSERT_TRUE(part.ok());
      EXPECT_EQ(*part, Bytes(data.begin() + start * atomsize, data.begin() + stop * atomsize))
          << start << ":" << stop;
    }
  }
}

TEST(Carray, LeftoverStaysInMemoryUntilFlush) {
  auto store = store::MemoryStore::Create();
  auto carray = *Carray::Create(store, "", Options("int32", 4));
  const Bytes data = RandomBytes(10 * 4, 3);
  ASSERT_TRUE(carray->Append(data).ok());
  EXPECT_TRUE(*store->Exists("data/__0.blp"));
  EXPECT_TRUE(*store->Exists("data/__1.blp"));
  EXPECT_FALSE(*store->Exists("data/__2.blp"));
  // Completed chunks are already counted in meta/sizes; the leftover is not.
  EXPECT_EQ(AsChars(**store->Get("meta/sizes")).substr(0, 25), "{\"shape\":[8],\"nbytes\":32,");
  EXPECT_EQ(carray->length(), 10);
  EXPECT_EQ(*carray->Read(8, 10), Bytes(data.begin() + 32, data.end()));  // From memory.
  ASSERT_TRUE(carray->Flush().ok());
  EXPECT_TRUE(*store->Exists("data/__2.blp"));
  EXPECT_EQ(AsChars(**store->Get("meta/sizes")).substr(0, 26), "{\"shape\":[10],\"nbytes\":40,");
}

TEST(Carray, CrashKeepsFlushedRowsAndCompletedChunks) {
  auto store = store::MemoryStore::Create();
  auto carray = *Carray::Create(store, "", Options("int64", 8));
  const Bytes data = RandomBytes(40 * 8, 4);
  ASSERT_TRUE(carray->Append(ByteView(data.data(), 5 * 8)).ok());
  ASSERT_TRUE(carray->Flush().ok());  // 5 rows on disk, leftover file __0.
  ASSERT_TRUE(carray->Append(ByteView(data.data() + 40, 2 * 8)).ok());  // 7: memory only.
  {
    auto crashed = Carray::Open(Snapshot(*store), "", Mode::kRead);
    ASSERT_TRUE(crashed.ok()) << crashed.status().ToString();
    EXPECT_EQ((*crashed)->length(), 5);
    EXPECT_EQ(*(*crashed)->Read(0, 5), Bytes(data.begin(), data.begin() + 40));
  }
  // Completing chunk 0 rewrites __0.blp and advances sizes; 19 rows stay in memory.
  ASSERT_TRUE(carray->Append(ByteView(data.data() + 56, 28 * 8)).ok());
  auto crashed = Carray::Open(Snapshot(*store), "", Mode::kAppend);
  ASSERT_TRUE(crashed.ok()) << crashed.status().ToString();
  EXPECT_EQ((*crashed)->length(), 32);
  EXPECT_EQ(*(*crashed)->Read(0, 32), Bytes(data.begin(), data.begin() + 32 * 8));
}

constexpr std::size_t kInt32 = sizeof(std::int32_t), kInt64 = sizeof(std::int64_t);

// A MemoryStore whose Set of one key fails.
class FailingSetStore final : public test::ForwardingStore {
 public:
  explicit FailingSetStore(std::string bad_key) : bad_key_(std::move(bad_key)) {}
  Status Set(std::string_view key, ByteView value) override {
    if (key == bad_key_) return Status::IOError("mem:" + std::string(key) + ": disk full");
    return ForwardingStore::Set(key, value);
  }

 private:
  std::string bad_key_;
};

TEST(Carray, ParallelAppendWritesTheFilesOneThreadWrites) {
  const Bytes data = RandomBytes(1000 * kInt64, 11);
  auto one = store::MemoryStore::Create();
  auto four = store::MemoryStore::Create();
  CarrayOptions options = Options("int64", 16);
  options.threads = 1;
  auto serial = *Carray::Create(one, "", options);
  options.threads = 4;
  auto parallel = *Carray::Create(four, "", options);
  // 5 rows first, so that the big append completes the leftover chunk too.
  for (auto [carray, store] : {std::pair(serial.get(), one), std::pair(parallel.get(), four)}) {
    ASSERT_TRUE(carray->Append(ByteView(data.data(), 5 * kInt64)).ok());
    ASSERT_TRUE(carray->Append(ByteView(data.data() + 5 * kInt64, 990 * kInt64)).ok());
    // 995 rows: 62 chunks are in place before Flush, 3 rows in memory.
    EXPECT_TRUE(*store->Exists("data/__61.blp"));
    EXPECT_FALSE(*store->Exists("data/__62.blp"));
    ASSERT_TRUE(carray->Append(ByteView(data.data() + 995 * kInt64, 5 * kInt64)).ok());
    ASSERT_TRUE(carray->Close().ok());
  }
  const std::vector<std::string> keys = *one->List("");
  ASSERT_EQ(keys, *four->List(""));
  ASSERT_EQ(keys.size(), 63u + 3u);  // 63 chunk files and the three meta files.
  for (const std::string& key : keys) EXPECT_EQ(**one->Get(key), **four->Get(key)) << key;
  auto reopened = *Carray::Open(four, "", Mode::kRead);
  EXPECT_EQ(reopened->length(), 1000);
  EXPECT_EQ(*reopened->Read(0, 1000), data);
}

TEST(Carray, FailedParallelAppendKeepsSizesAndReportsTheKey) {
  auto store = std::make_shared<FailingSetStore>("data/__7.blp");
  CarrayOptions options = Options("int32", 8);
  options.threads = 3;
  auto carray = *Carray::Create(store, "", options);
  const Bytes data = RandomBytes(200 * kInt32, 12);
  ASSERT_TRUE(carray->Append(ByteView(data.data(), 16 * kInt32)).ok());
  const Status status = carray->Append(ByteView(data.data() + 16 * kInt32, 184 * kInt32));
  ExpectError(status, StatusCode::kIOError, "data/__7.blp");
  // meta/sizes still names only the two chunks written before.
  auto reopened = *Carray::Open(Snapshot(store->inner()), "", Mode::kRead);
  EXPECT_EQ(reopened->length(), 16);
  EXPECT_EQ(*reopened->Read(0, 16), Bytes(data.begin(), data.begin() + 16 * kInt32));
}

TEST(Carray, ReadsLeftoverFileHoldingMoreRowsThanSizes) {
  // The state between completing the leftover chunk and rewriting meta/sizes.
  auto store = store::MemoryStore::Create();
  auto carray = *Carray::Create(store, "", Options("int32", 4));
  const Bytes data = RandomBytes(4 * 4, 5);
  ASSERT_TRUE(carray->Append(ByteView(data.data(), 8)).ok());
  ASSERT_TRUE(carray->Flush().ok());
  const Bytes sizes = **store->Get("meta/sizes");
  ASSERT_TRUE(carray->Append(ByteView(data.data() + 8, 8)).ok());
  ASSERT_TRUE(store->Set("meta/sizes", sizes).ok());
  auto reopened = Carray::Open(store, "", Mode::kAppend);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  EXPECT_EQ((*reopened)->length(), 2);
  EXPECT_EQ(*(*reopened)->Read(0, 2), Bytes(data.begin(), data.begin() + 8));
}

TEST(Carray, WriteRewritesOnlyTouchedChunks) {
  auto store = store::MemoryStore::Create();
  auto carray = *Carray::Create(store, "", Options("uint16", 4));
  Bytes data = RandomBytes(14 * 2, 6);
  ASSERT_TRUE(carray->Append(data).ok());
  const Bytes chunk0 = **store->Get("data/__0.blp"), chunk2 = **store->Get("data/__2.blp");
  const Bytes patch = {9, 9, 8, 8, 7, 7};
  ASSERT_TRUE(carray->Write(5, patch).ok());         // Inside chunk 1.
  ASSERT_TRUE(carray->Write(12, Bytes{1, 2}).ok());  // The leftover.
  std::copy(patch.begin(), patch.end(), data.begin() + 10);
  data[24] = 1, data[25] = 2;
  EXPECT_EQ(**store->Get("data/__0.blp"), chunk0);
  EXPECT_EQ(**store->Get("data/__2.blp"), chunk2);
  EXPECT_EQ(*carray->Read(0, 14), data);
  ASSERT_TRUE(carray->Close().ok());
  EXPECT_EQ(*(*Carray::Open(store, "", Mode::kRead))->Read(0, 14), data);
  ExpectError(carray->Write(13, Bytes{1, 2, 3, 4}), StatusCode::kOutOfRange, "does not fit");
}

TEST(Carray, TrimDeletesStaleChunksAndResizeFillsDflt) {
  auto store = store::MemoryStore::Create();
  CarrayOptions options = Options("int32", 4);
  options.dflt = -1;
  auto carray = *Carray::Create(store, "", options);
  const Bytes data = RandomBytes(18 * 4, 7);
  ASSERT_TRUE(carray->Append(data).ok());
  ASSERT_TRUE(carray->Trim(11).ok());  // 7 rows: chunk 0 full, 3 rows leftover in __1.
  EXPECT_EQ(carray->length(), 7);
  EXPECT_FALSE(*store->Exists("data/__2.blp"));
  EXPECT_FALSE(*store->Exists("data/__4.blp"));
  ASSERT_TRUE(carray->Resize(10).ok());
  auto reopened = *Carray::Open(store, "", Mode::kAppend);
  Bytes expected(data.begin(), data.begin() + 28);
  for (int i = 0; i < 3; ++i) expected.insert(expected.end(), {0xff, 0xff, 0xff, 0xff});
  EXPECT_EQ(*reopened->Read(0, 10), expected);
  ASSERT_TRUE(reopened->Resize(0).ok());
  EXPECT_EQ(reopened->length(), 0);
  EXPECT_TRUE(store->List("data/")->empty());
  ExpectError(reopened->Trim(1), StatusCode::kOutOfRange, "trim");
}

TEST(Carray, ModesAndAttrs) {
  auto store = store::MemoryStore::Create();
  {
    auto carray = *Carray::Create(store, "", Options("float32", 16));
    ASSERT_TRUE(carray->Append(RandomBytes(40 * 4, 8)).ok());
    ASSERT_TRUE(carray->SetAttr("temp", 22.5).ok());
  }  // The destructor flushes.
  EXPECT_EQ(AsChars(**store->Get("__attrs__")), "{\"temp\":22.5}\n");
  auto reader = *Carray::Open(store, "", Mode::kRead);
  EXPECT_EQ(reader->length(), 40);
  EXPECT_EQ(reader->attrs()["temp"], 22.5);
  ExpectError(reader->Append(Bytes(4)), StatusCode::kInvalidArgument, "read-only");
  auto writer = *Carray::Open(store, "", Mode::kWrite);
  EXPECT_EQ(writer->length(), 0);
  EXPECT_EQ((*Carray::Open(store, "", Mode::kRead))->length(), 0);
  EXPECT_FALSE(ParseMode("x").ok());
}

TEST(Carray, BadFilesGiveErrorsNamingThem) {
  auto store = store::MemoryStore::Create();
  {
    auto carray = *Carray::Create(store, "c/", Options("int32", 4));
    ASSERT_TRUE(carray->Append(RandomBytes(10 * 4, 9)).ok());
  }
  auto broken = Snapshot(*store);
  ASSERT_TRUE(broken->Erase("c/meta/sizes").ok());
  ExpectError(Carray::Open(broken, "c/", Mode::kRead).status(), StatusCode::kNotFound,
              "c/meta/sizes");
  broken = Snapshot(*store);
  Bytes chunk = **broken->Get("c/data/__1.blp");
  chunk.resize(chunk.size() - 3);
  ASSERT_TRUE(broken->Set("c/data/__1.blp", chunk).ok());
  auto opened = *Carray::Open(broken, "c/", Mode::kRead);
  ExpectError(opened->Read(4, 5).status(), StatusCode::kCorruption, "c/data/__1.blp: truncated");
  broken = Snapshot(*store);
  ASSERT_TRUE(broken->Set("c/meta/sizes", AsBytes("{\"shape\":[20],\"nbytes\":80}")).ok());
  opened = *Carray::Open(broken, "c/", Mode::kRead);
  EXPECT_TRUE(opened->Read(0, 8).ok());
  ExpectError(opened->Read(0, 20).status(), StatusCode::kCorruption,
              "c/data/__2.blp: chunk holds 8 bytes, but meta/sizes and meta/storage call for 16");
  ExpectError(opened->Read(12, 16).status(), StatusCode::kCorruption, "c/data/__3.blp: missing");
  broken = Snapshot(*store);
  ASSERT_TRUE(broken->Set("c/meta/sizes", AsBytes("{\"shape\":[11],\"nbytes\":44}")).ok());
  ExpectError(Carray::Open(broken, "c/", Mode::kRead).status(), StatusCode::kCorruption,
              "c/data/__2.blp: chunk holds 8 bytes");
  broken = Snapshot(*store);
  std::string storage(AsChars(**broken->Get("c/meta/storage")));
  storage.replace(storage.find("int32"), 5, "int33");
  ASSERT_TRUE(broken->Set("c/meta/storage", AsBytes(storage)).ok());
  ExpectError(Carray::Open(broken, "c/", Mode::kRead).status(), StatusCode::kInvalidArgument,
              "c/meta/storage");
}

}  // namespace
}  // namespace chunkwise::formats::bcolz

namespace chunkwise::formats::bcolz {
namespace {

// Cancels `cancellation` once the reporter has counted anything.
class CancelOnProgress : public core::ProgressObserver {
 public:
  explicit CancelOnProgress(core::Cancellation& cancellation) : cancellation_(cancellation) {}
  void OnProgress(std::string_view, std::uint64_t) override { cancellation_.Cancel(); }

 private:
  core::Cancellation& cancellation_;
};

TEST(CarrayHooks, ACancelledAppendKeepsTheBatchesDoneWholeAndReadStopsToo) {
  auto store = store::MemoryStore::Create();
  CarrayOptions options = Options("int32", 1000);
  options.threads = 1;  // A batch is one chunk.
  auto carray = *Carray::Create(store, "", options);
  const Bytes rows = RandomBytes(10 * 1000 * 4, 7);
  core::Cancellation cancellation;
  CancelOnProgress observer(cancellation);
  core::ProgressReporter progress(
      {.label = "append", .mode = core::ProgressMode::kQuiet, .observer = &observer});
  carray->set_hooks({&progress, &cancellation});
  const Status appended = carray->Append(rows);
  EXPECT_EQ(appended.code(), StatusCode::kCancelled) << appended.ToString();
  EXPECT_NE(appended.message().find("appending to"), std::string::npos);
  EXPECT_EQ(carray->length(), 1000);
  EXPECT_EQ(progress.done(), 4000u);
  carray.reset();
  auto reopened = *Carray::Open(store, "", Mode::kRead);
  ASSERT_EQ(reopened->length(), 1000);  // In meta/sizes: the batch is on disk.
  const Bytes back = *reopened->Read(0, 1000);
  EXPECT_EQ(back, Bytes(rows.begin(), rows.begin() + 4000));
  reopened->set_hooks({nullptr, &cancellation});  // Still cancelled.
  const Result<Bytes> read = reopened->Read(0, 1000);
  EXPECT_EQ(read.status().code(), StatusCode::kCancelled);
  EXPECT_NE(read.status().message().find("reading"), std::string::npos);
}

}  // namespace
}  // namespace chunkwise::formats::bcolz
