// bcolz datasets to and from array files, and the data/ directories bcolz's
// open() needs on disk.
#include "chunkwise/io/bcolz_files.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "chunkwise/io/file.h"
#include "chunkwise/io/npy_file.h"
#include "unit/scratch_directory.h"

namespace chunkwise::io {
namespace {

namespace fs = std::filesystem;

// `rows` rows of the dtype a numpy descr literal names, with bytes 0, 1, 2, ...
core::NpyArray Rows(std::string_view descr, std::int64_t rows) {
  core::NpyArray array;
  array.dtype = *core::NpyDtype::FromDescr(descr);
  array.shape = {rows};
  array.data.resize(static_cast<std::size_t>(rows) * array.dtype.itemsize());
  for (std::size_t i = 0; i < array.data.size(); ++i) array.data[i] = static_cast<std::uint8_t>(i);
  return array;
}

TEST(BcolzFiles, EmptyCarrayGetsItsDataDirectoryAndTakesAppends) {
  const fs::path dir = test::FreshScratchDirectory("bcolz");
  fs::create_directories(dir.parent_path());
  const fs::path none = dir.string() + ".empty.npy", rows_file = dir.string() + ".npy";
  ASSERT_TRUE(WriteNpy(none, Rows("'<i4'", 0)).ok());
  const core::NpyArray rows = Rows("'<i4'", 10);
  ASSERT_TRUE(WriteNpy(rows_file, rows).ok());
  auto store = OpenDirectory(dir, /*create=*/true);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  auto created = CreateBcolzFromFile(none, *store, "", {});
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_FALSE(created->ctable);
  EXPECT_EQ(created->length, 0);
  // No chunk file, so nothing under data/: the store made no directory.
  EXPECT_FALSE(fs::exists(dir / "data"));
  ASSERT_TRUE(AddBcolzDataDirectories(dir).ok());
  EXPECT_TRUE(fs::is_directory(dir / "data"));
  EXPECT_TRUE(fs::is_regular_file(dir / "meta" / "storage"));
  auto appended = AppendBcolzFromFile(rows_file, *store, "", {});
  ASSERT_TRUE(appended.ok()) << appended.status().ToString();
  EXPECT_EQ(appended->rows_added, 10);
  const fs::path output = dir.string() + ".out.npy";
  auto written = ExportBcolzSelection(*store, "", {}, output);
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_EQ(*written, 10);
  auto back = ReadNpy(output);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->data, rows.data);
}

TEST(BcolzFiles, EveryCtableColumnGetsItsDataDirectory) {
  const fs::path dir = test::FreshScratchDirectory("bcolz");
  const fs::path input = dir.string() + ".npy";
  fs::create_directories(dir.parent_path());
  ASSERT_TRUE(WriteNpy(input, Rows("[('a', '<i4'), ('b', '<f8')]", 3)).ok());
  auto store = OpenDirectory(dir, /*create=*/true);
  ASSERT_TRUE(store.ok());
  auto summary = CreateBcolzFromFile(input, *store, "", {});
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  EXPECT_TRUE(summary->ctable);
  ASSERT_TRUE(AddBcolzDataDirectories(dir).ok());
  EXPECT_TRUE(fs::is_directory(dir / "a" / "data"));
  EXPECT_TRUE(fs::is_directory(dir / "b" / "data"));
  EXPECT_FALSE(fs::exists(dir / "data"));  // A ctable's columns hold the data.
}

TEST(BcolzFiles, MissingRootIsNotFound) {
  const fs::path dir = test::FreshScratchDirectory("none");
  const Status status = AddBcolzDataDirectories(dir);
  EXPECT_EQ(status.code(), StatusCode::kNotFound);
  EXPECT_NE(status.ToString().find(dir.string()), std::string::npos) << status.ToString();
}

}  // namespace
}  // namespace chunkwise::io
