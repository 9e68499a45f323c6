#include "chunkwise/store/file_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
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

std::shared_ptr<FileStore> OpenStore(const fs::path& root, FileStoreOptions options = {}) {
  Result<std::shared_ptr<FileStore>> store = FileStore::Open(root, options);
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return store.ok() ? *store : nullptr;
}

void WriteFile(const fs::path& path, std::string_view text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

INSTANTIATE_TEST_SUITE_P(
    File, StoreSuite,
    ::testing::Values(StoreFactory{"file",
                                   [] {
                                     return std::shared_ptr<Store>(
                                         OpenStore(test::FreshScratchDirectory("store")));
                                   }},
                      StoreFactory{"file_fsync_all",
                                   [] {
                                     return std::shared_ptr<Store>(
                                         OpenStore(test::FreshScratchDirectory("store"),
                                                   {.fsync = FsyncPolicy::kFileAndDirectory}));
                                   }},
                      StoreFactory{"file_confined",
                                   [] {
                                     return std::shared_ptr<Store>(
                                         OpenStore(test::FreshScratchDirectory("store"),
                                                   {.confine_to_root = true}));
                                   }}),
    suite::StoreFactoryName);

class FileStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = test::FreshScratchDirectory("store");
    store_ = OpenStore(root_);
    ASSERT_NE(store_, nullptr);
  }
  std::vector<std::string> List(std::string_view prefix = "") {
    Result<std::vector<std::string>> keys = store_->List(prefix);
    EXPECT_TRUE(keys.ok()) << keys.status().ToString();
    return keys.ok() ? *keys : std::vector<std::string>();
  }

  fs::path root_;
  std::shared_ptr<FileStore> store_;
};

TEST_F(FileStoreTest, KeyIsFileUnderRoot) {
  ASSERT_TRUE(store_->Set("c/0/1", AsBytes("chunk")).ok());
  std::ifstream file(root_ / "c" / "0" / "1", std::ios::binary);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(file), {}), "chunk");
  EXPECT_EQ(store_->Describe("c/0/1"), (root_ / "c/0/1").string());
}

TEST_F(FileStoreTest, OpenMakesRootAbsolute) {
  EXPECT_TRUE(store_->root().is_absolute());
  std::shared_ptr<FileStore> store = OpenStore(root_.string() + "/");
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->root(), root_);
}

TEST(FileStore, OpenMissingRootWithoutCreateIsNotFound) {
  const fs::path root = test::FreshScratchDirectory("store") / "missing";
  Result<std::shared_ptr<FileStore>> store = FileStore::Open(root, {.create_root = false});
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(std::string(store.status().message()), HasSubstr(root.string()));
  EXPECT_FALSE(fs::exists(root));
}

TEST(FileStore, OpenCreatesNestedRoot) {
  const fs::path root = test::FreshScratchDirectory("store") / "x" / "y";
  ASSERT_NE(OpenStore(root), nullptr);
  EXPECT_TRUE(fs::is_directory(root));
}

// "bad\0name.zarr" once created "bad": the system reads a path up to its NUL.
TEST(FileStore, ARootWithANulByteIsRefusedBeforeAnythingIsMade) {
  const fs::path parent = test::FreshScratchDirectory("nul");
  fs::create_directories(parent);
  const std::string root = (parent / "bad").string() + std::string(1, '\0') + "name.zarr";
  const auto store = FileStore::Open(root, {.create_root = true});
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(store.status().message()), HasSubstr("bad\\x00name.zarr"));
  EXPECT_THAT(std::string(store.status().message()), HasSubstr("NUL byte"));
  EXPECT_TRUE(fs::is_empty(parent));
}

TEST(FileStore, OpenOnRegularFileIsIOError) {
  const fs::path file = test::FreshScratchDirectory("store") / "file";
  WriteFile(file, "x");
  Result<std::shared_ptr<FileStore>> store = FileStore::Open(file);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kIOError);
}

TEST(FileStore, ValuesPersistAcrossReopen) {
  const fs::path root = test::FreshScratchDirectory("store");
  ASSERT_TRUE(OpenStore(root)->Set("a/b", AsBytes("kept")).ok());
  std::shared_ptr<FileStore> reopened = OpenStore(root, {.create_root = false});
  ASSERT_NE(reopened, nullptr);
  Result<std::optional<Bytes>> value = reopened->Get("a/b");
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(*value, B("kept"));
}

TEST(FileStore, EveryFsyncPolicyWritesReadsAndErases) {
  for (FsyncPolicy policy :
       {FsyncPolicy::kNone, FsyncPolicy::kFile, FsyncPolicy::kFileAndDirectory}) {
    std::shared_ptr<FileStore> store =
        OpenStore(test::FreshScratchDirectory("store"), {.fsync = policy});
    ASSERT_NE(store, nullptr);
    EXPECT_EQ(store->options().fsync, policy);
    ASSERT_TRUE(store->Set("deep/er/key", AsBytes("v")).ok());
    Result<std::optional<Bytes>> value = store->Get("deep/er/key");
    ASSERT_TRUE(value.ok());
    EXPECT_EQ(*value, B("v"));
    EXPECT_TRUE(store->Erase("deep/er/key").ok());
    EXPECT_TRUE(fs::is_empty(store->root()));
  }
}

TEST_F(FileStoreTest, EraseRemovesEmptyParentsButNotRoot) {
  ASSERT_TRUE(store_->Set("a/b/c/d", AsBytes("1")).ok());
  ASSERT_TRUE(store_->Set("a/x", AsBytes("2")).ok());
  ASSERT_TRUE(store_->Erase("a/b/c/d").ok());
  EXPECT_FALSE(fs::exists(root_ / "a" / "b"));
  EXPECT_TRUE(fs::exists(root_ / "a" / "x"));
  ASSERT_TRUE(store_->Erase("a/x").ok());
  EXPECT_FALSE(fs::exists(root_ / "a"));
  EXPECT_TRUE(fs::is_directory(root_));
}

// A writer dropped before Commit (a failed or cancelled output) takes its
// temporary file and the directories made for it: a failed export must leave
// no empty folder where its output would have been.
TEST_F(FileStoreTest, AbandonedWriterLeavesNoDirectoryItMade) {
  ASSERT_TRUE(store_->Set("keep/x", AsBytes("1")).ok());
  {
    Result<std::unique_ptr<ValueWriter>> writer = store_->OpenWriter("out/s0/shard.arrow");
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    ASSERT_TRUE((*writer)->Append(AsBytes("partial")).ok());
    EXPECT_TRUE(fs::is_directory(root_ / "out" / "s0"));
  }
  EXPECT_FALSE(fs::exists(root_ / "out"));
  {
    Result<std::unique_ptr<ValueWriter>> writer = store_->OpenWriter("keep/y");
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  }
  EXPECT_TRUE(fs::exists(root_ / "keep" / "x"));
  EXPECT_THAT(List(), ElementsAre("keep/x"));
}

TEST_F(FileStoreTest, TemporaryFilesAreNotListed) {
  ASSERT_TRUE(store_->Set("c/0", AsBytes("v")).ok());
  WriteFile(root_ / "c" / ".0.tmp.123.4", "partial");
  WriteFile(root_ / ".zarr.json.tmp.99.0", "partial");
  EXPECT_THAT(List(), ElementsAre("c/0"));
  EXPECT_THAT(List("c/"), ElementsAre("c/0"));
}

// A crash between creating and renaming a temporary file leaves it behind;
// it must not disturb the key it was meant for.
TEST_F(FileStoreTest, LeftoverTemporaryFileDoesNotBreakReadsOrWrites) {
  ASSERT_TRUE(store_->Set("a/key", AsBytes("old")).ok());
  WriteFile(root_ / "a" / (".key.tmp." + std::to_string(::getpid()) + ".0"), "torn");
  Result<std::optional<Bytes>> value = store_->Get("a/key");
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(*value, B("old"));
  ASSERT_TRUE(store_->Set("a/key", AsBytes("new")).ok());
  value = store_->Get("a/key");
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(*value, B("new"));
  EXPECT_THAT(List(), ElementsAre("a/key"));
  // The leftover keeps its directory alive, so Erase leaves it in place.
  EXPECT_TRUE(store_->Erase("a/key").ok());
  EXPECT_THAT(List(), ::testing::IsEmpty());
}

// A directory where a value should be (a shard path made a directory) is
// Corruption naming it, never an absent value that would read as fill.
TEST_F(FileStoreTest, DirectoryWhereAValueIsExpectedIsCorruption) {
  ASSERT_TRUE(store_->Set("a/b", AsBytes("v")).ok());
  const std::string where = (root_ / "a").string();
  auto expect_corruption = [&](const Status& status, const char* call) {
    EXPECT_EQ(status.code(), StatusCode::kCorruption) << call << ": " << status.ToString();
    EXPECT_THAT(std::string(status.message()), HasSubstr(where)) << call;
  };
  expect_corruption(store_->Get("a").status(), "Get");
  expect_corruption(store_->GetRange("a", ByteRange::Span(0, 1)).status(), "GetRange");
  expect_corruption(store_->OpenReader("a").status(), "OpenReader");
  expect_corruption(store_->Size("a").status(), "Size");
  expect_corruption(store_->Exists("a").status(), "Exists");
  expect_corruption(store_->GetGeneration("a").status(), "GetGeneration");
  expect_corruption(store_->SetIf("a", AsBytes("x"), Generation::Absent()).status(), "SetIf");
  Bytes out(1);
  const ByteRange one[] = {ByteRange::Span(0, 1)};
  expect_corruption(store_->GetRangesInto("a", one, out).status(), "GetRangesInto");
  // Erasing it is erasing an absent key: the keys below stay.
  EXPECT_TRUE(store_->Erase("a").ok());
  EXPECT_TRUE(fs::exists(root_ / "a" / "b"));
}

// Generations of conditional writes never repeat, even for values of one
// size written faster than the clock ticks.
TEST_F(FileStoreTest, ConditionalWritesGiveEveryValueANewGeneration) {
  Result<Generation> generation = store_->CreateIfAbsent("g", AsBytes("0000"));
  ASSERT_TRUE(generation.ok()) << generation.status().ToString();
  std::set<std::string> seen = {generation->token()};
  for (int i = 0; i < 200; ++i) {
    generation = store_->SetIf("g", AsBytes(i % 2 ? "1111" : "0000"), *generation);
    ASSERT_TRUE(generation.ok()) << generation.status().ToString();
    EXPECT_TRUE(seen.insert(generation->token()).second) << generation->token();
  }
  EXPECT_THAT(List(), ElementsAre("g"));  // No temporary or lock file shows.
}

// Two to eight processes, each with its own FileStore on one directory, set
// interleaved bytes of one value by read-modify-write with retry: none is lost.
TEST(FileStoreProcesses, ConcurrentReadModifyWritesLoseNothing) {
  for (const int processes : {2, 4, 8}) {
    const fs::path root = test::FreshScratchDirectory("store");
    constexpr int kSlotsPerProcess = 24;
    const std::size_t size = static_cast<std::size_t>(processes) * kSlotsPerProcess;
    std::vector<pid_t> children;
    for (int p = 0; p < processes; ++p) {
      const pid_t child = ::fork();
      ASSERT_GE(child, 0);
      if (child == 0) {
        Result<std::shared_ptr<FileStore>> store = FileStore::Open(root);
        int conflicts = 0;
        bool ok = store.ok();
        for (int s = 0; ok && s < kSlotsPerProcess; ++s) {
          ok = suite::SetOwnBytes(**store, "c/0/0", s * processes + p, 1, size, &conflicts).ok();
        }
        ::_exit(ok ? 0 : 1);
      }
      children.push_back(child);
    }
    for (const pid_t child : children) {
      int status = 0;
      ASSERT_EQ(::waitpid(child, &status, 0), child);
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << processes << " processes";
    }
    Result<std::optional<Bytes>> value = OpenStore(root)->Get("c/0/0");
    ASSERT_TRUE(value.ok() && value->has_value()) << processes << " processes";
    EXPECT_EQ(**value, Bytes(size, 'x')) << processes << " processes";
  }
}

TEST_F(FileStoreTest, FailedSetNamesPathAndLeavesNoTemporary) {
  ASSERT_TRUE(store_->Set("a", AsBytes("file")).ok());
  const Status status = store_->Set("a/b", AsBytes("v"));
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kIOError);
  EXPECT_THAT(std::string(status.message()), HasSubstr(root_.string()));
  EXPECT_THAT(std::string(status.message()), HasSubstr("Not a directory"));
  ASSERT_TRUE(store_->Set("d", AsBytes("v")).ok());  // "d" becomes a directory below.
  fs::create_directories(root_ / "dir" / "child");
  EXPECT_FALSE(store_->Set("dir", AsBytes("v")).ok());
  EXPECT_EQ(std::distance(fs::directory_iterator(root_ / "dir"), {}), 1);
  EXPECT_THAT(List(), ElementsAre("a", "d"));
}

// A killed writer's temporary files go with the next writer; a live one's stay.
TEST_F(FileStoreTest, RemovesOnlyDeadWritersTemporaries) {
  ASSERT_TRUE(store_->Set("c/0/0", AsBytes("v")).ok());
  // A process that has exited: its id runs nothing (until reused, which the
  // test cannot rule out, so it only asks that live ids are kept).
  const pid_t dead = ::fork();
  ASSERT_GE(dead, 0);
  if (dead == 0) ::_exit(0);
  ASSERT_EQ(::waitpid(dead, nullptr, 0), dead);
  const std::string dead_name = ".0.tmp." + std::to_string(dead) + ".3";
  const std::string live_name = ".0.tmp." + std::to_string(::getpid()) + ".4";
  WriteFile(root_ / "c" / "0" / dead_name, "torn");
  WriteFile(root_ / "c" / "0" / live_name, "being written");
  WriteFile(root_ / (".zarr.json.tmp." + std::to_string(dead) + ".0"), "torn");
  Result<std::size_t> removed = store_->RemoveDeadTemporaries();
  ASSERT_TRUE(removed.ok()) << removed.status().ToString();
  EXPECT_EQ(*removed, 2u);
  EXPECT_FALSE(fs::exists(root_ / "c" / "0" / dead_name));
  EXPECT_TRUE(fs::exists(root_ / "c" / "0" / live_name));
  EXPECT_TRUE(fs::exists(root_ / "c" / "0" / "0"));
  EXPECT_THAT(List(), ElementsAre("c/0/0"));
}

TEST_F(FileStoreTest, NamesThatAreNotKeysAreSkipped) {
  WriteFile(root_ / "back\\slash", "x");
  WriteFile(root_ / "ok", "x");
  EXPECT_THAT(List(), ElementsAre("ok"));
}

TEST_F(FileStoreTest, SymlinkToFileInsideRootIsFollowed) {
  ASSERT_TRUE(store_->Set("target", AsBytes("v")).ok());
  fs::create_symlink(root_ / "target", root_ / "link");
  fs::create_directories(root_ / "loop");
  fs::create_directory_symlink(root_, root_ / "loop" / "back");
  Result<std::optional<Bytes>> value = store_->Get("link");
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(*value, B("v"));
  EXPECT_THAT(List(), ElementsAre("link", "target"));  // No descent into loop/back.
}

// What a server needs (#44): a link that leads out of the root reads as
// absent, by every read; links that stay inside are still followed.
TEST(FileStoreConfined, LinksOutOfTheRootReadAsAbsent) {
  const fs::path base = test::FreshScratchDirectory("confined");
  const fs::path root = base / "root";
  WriteFile(base / "outside" / "secret", "secret");
  WriteFile(root / "vol" / "info", "{}");
  fs::create_symlink(base / "outside" / "secret", root / "vol" / "leak");
  fs::create_symlink("../../outside/secret", root / "vol" / "relative_leak");
  fs::create_directory_symlink(base / "outside", root / "outdir");
  fs::create_symlink(root / "vol" / "info", root / "vol" / "alias");
  // The root itself reached through a link: its files are still inside.
  fs::create_directory_symlink(root, base / "root_link");
  std::shared_ptr<FileStore> confined = OpenStore(base / "root_link", {.confine_to_root = true});
  std::shared_ptr<FileStore> plain = OpenStore(root);
  ASSERT_NE(confined, nullptr);
  for (const char* key : {"vol/leak", "vol/relative_leak", "outdir/secret", "outdir"}) {
    SCOPED_TRACE(key);
    Result<std::optional<Bytes>> value = confined->Get(key);
    ASSERT_TRUE(value.ok()) << value.status().ToString();
    EXPECT_FALSE(value->has_value());
    Result<std::optional<Bytes>> range = confined->GetRange(key, ByteRange::Span(0, 2));
    ASSERT_TRUE(range.ok()) << range.status().ToString();
    EXPECT_FALSE(range->has_value());
    Result<std::optional<std::uint64_t>> size = confined->Size(key);
    ASSERT_TRUE(size.ok()) << size.status().ToString();
    EXPECT_FALSE(size->has_value());
    Result<std::unique_ptr<ValueReader>> reader = confined->OpenReader(key);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    EXPECT_EQ(*reader, nullptr);
    Result<Generation> generation = confined->GetGeneration(key);
    ASSERT_TRUE(generation.ok()) << generation.status().ToString();
    EXPECT_EQ(*generation, Generation::Absent());
  }
  EXPECT_EQ(*confined->Get("vol/alias"), B("{}"));
  EXPECT_EQ(*confined->Get("vol/info"), B("{}"));
  EXPECT_EQ(*confined->Size("vol/info"), std::optional<std::uint64_t>(2));
  // Unconfined, the owner's links are followed wherever they lead.
  EXPECT_EQ(*plain->Get("vol/leak"), B("secret"));
}

TEST(FileStorePath, KeysStayUnderRoot) {
  const fs::path root = "/data/root";
  Result<fs::path> path = FileStore::PathForKey(root, "c/0/1");
  ASSERT_TRUE(path.ok());
  EXPECT_EQ(*path, fs::path("/data/root/c/0/1"));
  for (const char* key : {"../etc/passwd", "/etc/passwd", "a/../../b", "..", "a/./b"}) {
    EXPECT_EQ(FileStore::PathForKey(root, key).status().code(), StatusCode::kInvalidArgument)
        << key;
  }
}

TEST(FileStorePath, TemporaryLookingKeysAreRejected) {
  EXPECT_EQ(FileStore::PathForKey("/r", "a/.x.tmp.1.2").status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(FileStore::PathForKey("/r", ".x.tmp.1.2/b").status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_TRUE(FileStore::PathForKey("/r", ".zarray").ok());
  EXPECT_TRUE(FileStore::PathForKey("/r", "x.tmp.1.2").ok());
}

TEST(FileStorePath, IsTemporaryNameMatchesOnlyTheTemporaryForm) {
  EXPECT_TRUE(FileStore::IsTemporaryName(".key.tmp.12.0"));
  EXPECT_TRUE(FileStore::IsTemporaryName(".zarr.json.tmp.1.99"));
  EXPECT_TRUE(FileStore::IsTemporaryName("..tmp.tmp.1.2"));
  for (const char* name : {"", ".", ".5", ".tmp.1.2", "key.tmp.1.2", ".key.tmp.1.", ".key.tmp..2",
                           ".key.tmp.a.2", ".key.tmp.1.2x", ".key.tmp.1", ".zattrs", "..1.2"}) {
    EXPECT_FALSE(FileStore::IsTemporaryName(name)) << name;
  }
}

TEST(FileStore, CapabilitiesAreDurable) {
  std::shared_ptr<FileStore> store = OpenStore(test::FreshScratchDirectory("store"));
  ASSERT_NE(store, nullptr);
  EXPECT_TRUE(store->capabilities().durable);
  EXPECT_TRUE(store->capabilities().efficient_ranges);
}

}  // namespace
}  // namespace chunkwise::store
