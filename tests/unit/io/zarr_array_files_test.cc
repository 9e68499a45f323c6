// zarr import: a new array from a .npy file appears whole or not at all.
#include "io/zarr_array_files.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <vector>

#include "chunkwise/core/region.h"
#include "chunkwise/io/array_file.h"
#include "formats/zarr/array.h"
#include "unit/forwarding_store.h"
#include "unit/scratch_directory.h"

namespace chunkwise::io {
namespace {

using ::testing::HasSubstr;

// A memory store whose Set of a chunk fails once `good_chunks` chunks were stored.
class ChunkFailingStore final : public test::ForwardingStore {
 public:
  explicit ChunkFailingStore(int good_chunks) : good_chunks_(good_chunks) {}
  Status Set(std::string_view key, ByteView value) override {
    if (key.starts_with("c/") && chunks_.fetch_add(1) >= good_chunks_) {
      return Status::IOError("memory:" + std::string(key) + ": disk full");
    }
    return ForwardingStore::Set(key, value);
  }

 private:
  const int good_chunks_;
  std::atomic<int> chunks_{0};
};

std::filesystem::path WriteRamp(const std::filesystem::path& dir) {
  core::NpyArray npy;
  npy.dtype = *core::NpyDtype::FromTypestr("<u2");
  npy.shape = {16, 8};
  for (int i = 0; i < 16 * 8; ++i) {
    npy.data.push_back(static_cast<std::uint8_t>(i));
    npy.data.push_back(static_cast<std::uint8_t>(i >> 8));
  }
  const std::filesystem::path path = dir / "ramp.npy";
  EXPECT_TRUE(WriteArrayFile(path, npy, false).ok());
  return path;
}

formats::zarr::ArrayLayout Chunks() {
  formats::zarr::ArrayLayout layout;
  layout.chunk_shape = {2, 8};
  layout.codec = "zstd:1";
  return layout;
}

TEST(ZarrImport, FailedImportLeavesNoArray) {
  const std::filesystem::path dir = test::FreshScratchDirectory("zarr_import");
  std::filesystem::create_directories(dir);
  const std::filesystem::path input = WriteRamp(dir);
  auto store = std::make_shared<ChunkFailingStore>(3);  // Of 8 chunks, the 4th fails.
  const Status failed = ImportNpyAsNewArray(input, Chunks(), store, "", false).status();
  EXPECT_EQ(failed.code(), StatusCode::kIOError);
  EXPECT_THAT(failed.message(), HasSubstr("disk full"));
  EXPECT_FALSE(store->List("c/")->empty());  // Chunks written before the failure, unpublished.
  EXPECT_FALSE(*store->Exists("zarr.json"));
  const Status opened = formats::zarr::Array::Open(store, "").status();
  EXPECT_EQ(opened.code(), StatusCode::kNotFound);
  EXPECT_THAT(opened.message(), HasSubstr("zarr.json"));
  // A rerun with overwrite replaces what it left.
  auto fine = std::make_shared<ChunkFailingStore>(1000);
  ASSERT_TRUE(fine->inner().Set("c/7/0", Bytes{1}).ok());
  ASSERT_TRUE(fine->inner().Set(".chunkwise-incomplete", Bytes{}).ok());
  auto imported = ImportNpyAsNewArray(input, Chunks(), fine, "", true);
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  auto array = formats::zarr::Array::Open(fine, "");
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  EXPECT_EQ(array->metadata().shape, (core::Shape{16, 8}));
  EXPECT_FALSE(*fine->Exists(".chunkwise-incomplete"));
  std::filesystem::remove_all(dir);
}

TEST(ZarrImport, ResumeKeepsTheStoredBoxesAndWritesTheRest) {
  const std::filesystem::path dir = test::FreshScratchDirectory("zarr_import_resume");
  std::filesystem::create_directories(dir);
  const std::filesystem::path input = WriteRamp(dir);
  // A clean import: the bytes a resumed one must end with.
  auto clean = std::make_shared<ChunkFailingStore>(1000);
  ASSERT_TRUE(ImportNpyAsNewArray(input, Chunks(), clean, "", false).ok());

  // Stopped before its 4th box (of 8 rows of chunks): 3 chunks stored, unpublished.
  auto store = std::make_shared<ChunkFailingStore>(1000);
  int boxes = 0;
  const auto stop_at_4th = [&](const std::string& key) -> Status {
    return ++boxes > 3 ? Status::Internal(key + ": stopped") : Status::Ok();
  };
  const Status stopped =
      ImportNpyAsNewArray(input, Chunks(), store, "", false, {}, {.before_box = stop_at_4th})
          .status();
  EXPECT_EQ(stopped.code(), StatusCode::kInternal);
  EXPECT_THAT(stopped.message(), HasSubstr("c/3/0: stopped"));
  EXPECT_EQ(store->List("c/")->size(), 3u);
  EXPECT_FALSE(*store->Exists("zarr.json"));

  // Another layout does not resume it.
  formats::zarr::ArrayLayout other = Chunks();
  other.chunk_shape = {4, 8};
  const Status refused =
      ImportNpyAsNewArray(input, other, store, "", false, {}, {.resume = true}).status();
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.message(), HasSubstr(".chunkwise-incomplete"));
  EXPECT_THAT(refused.message(), HasSubstr("begun with other metadata"));

  // The same layout resumes: only the 5 missing boxes are written.
  std::vector<std::string> written;
  const auto record = [&](const std::string& key) -> Status {
    written.push_back(key);
    return Status::Ok();
  };
  auto resumed = ImportNpyAsNewArray(input, Chunks(), store, "", false, {},
                                     {.resume = true, .before_box = record});
  ASSERT_TRUE(resumed.ok()) << resumed.status().ToString();
  EXPECT_EQ(written, (std::vector<std::string>{"c/3/0", "c/4/0", "c/5/0", "c/6/0", "c/7/0"}));
  EXPECT_FALSE(*store->Exists(".chunkwise-incomplete"));
  const auto clean_keys = clean->List("");
  ASSERT_TRUE(clean_keys.ok());
  for (const std::string& key : *clean_keys) {
    EXPECT_EQ(*store->Get(key), *clean->Get(key)) << key;
  }
  EXPECT_EQ(store->List("")->size(), clean->List("")->size());

  // A published array resumed is left as it is; with another layout it is refused.
  written.clear();
  ASSERT_TRUE(ImportNpyAsNewArray(input, Chunks(), store, "", false, {},
                                  {.resume = true, .before_box = record})
                  .ok());
  EXPECT_TRUE(written.empty());
  EXPECT_EQ(
      ImportNpyAsNewArray(input, other, store, "", false, {}, {.resume = true}).status().code(),
      StatusCode::kInvalidArgument);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace chunkwise::io
