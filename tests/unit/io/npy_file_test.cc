// .npy files: written atomically, read back, and errors that name the path.
#include "chunkwise/io/npy_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "chunkwise/io/file.h"

namespace chunkwise::io {
namespace {

using namespace std::string_view_literals;
using core::NpyArray;
using core::NpyDtype;
using core::NpyHeader;

// np.arange(6, dtype='<u2').reshape(2, 3), written by numpy 1.24.2.
constexpr std::string_view kGoldenU2C =
    "\223NUMPY\001\000v\000{'descr': '<u2', 'fortran_order': False, 'shape': (2, 3), }       "
    "                                                   \012\000\000\001\000\002\000\003\000"
    "\004\000\005\000"sv;

ByteView View(std::string_view bytes) { return AsBytes(bytes); }

NpyArray Make(std::string_view typestr, std::vector<std::int64_t> shape, bool fortran = false) {
  NpyArray array;
  array.dtype = *NpyDtype::FromTypestr(typestr);
  array.shape = std::move(shape);
  array.fortran_order = fortran;
  std::size_t size = array.dtype.itemsize();
  for (std::int64_t dim : array.shape) size *= static_cast<std::size_t>(dim);
  array.data.resize(size);
  for (std::size_t i = 0; i < size; ++i) array.data[i] = static_cast<std::uint8_t>(i * 7 + 1);
  return array;
}

class NpyFileTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        std::filesystem::path(testing::TempDir()) /
        ("npy_test_" + std::string(testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(NpyFileTest, WritesAndReadsFiles) {
  const NpyArray array = Make(">c16", {3, 2}, true);
  const std::filesystem::path path = dir_ / "a.npy";
  ASSERT_TRUE(WriteNpy(path, array).ok());
  Result<NpyArray> back = ReadNpy(path);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->data, array.data);
  EXPECT_EQ(back->dtype, array.dtype);
  EXPECT_TRUE(back->fortran_order);
  Result<NpyHeader> header = ReadNpyHeader(path);
  ASSERT_TRUE(header.ok());
  EXPECT_EQ(header->data_offset, 128u);
  EXPECT_EQ(header->data_size, 96u);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_), {}), 1);  // No temp left.
}

TEST_F(NpyFileTest, ReportsFileErrorsWithThePath) {
  EXPECT_EQ(ReadNpy(dir_ / "missing.npy").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(ReadNpy(dir_).status().code(), StatusCode::kIOError);
  const std::filesystem::path path = dir_ / "short.npy";
  ASSERT_TRUE(WriteFile(path, View(kGoldenU2C.substr(0, 138))).ok());
  for (const Status& status : {ReadNpy(path).status(), ReadNpyHeader(path).status()}) {
    EXPECT_EQ(status.code(), StatusCode::kCorruption);
    EXPECT_NE(status.message().find(path.string()), std::string_view::npos);
    EXPECT_NE(status.message().find("data is 10 bytes, but shape (2, 3) of <u2 needs 12"),
              std::string_view::npos)
        << status.ToString();
  }
  ASSERT_TRUE(WriteFile(path, View(kGoldenU2C.substr(0, 11))).ok());
  EXPECT_NE(ReadNpy(path).status().message().find("past the end"), std::string_view::npos);
  ASSERT_TRUE(WriteFile(path, View(kGoldenU2C.substr(0, 7))).ok());
  EXPECT_NE(ReadNpyHeader(path).status().message().find("truncated"), std::string_view::npos);
  NpyArray wrong = Make("<u2", {3});
  wrong.data.push_back(0);
  EXPECT_EQ(WriteNpy(dir_ / "wrong.npy", wrong).code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "wrong.npy"));
}

}  // namespace
}  // namespace chunkwise::io
