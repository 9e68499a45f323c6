#include "chunkwise/io/array_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "chunkwise/io/file.h"
#include "core/file_io.h"

namespace chunkwise::io {
namespace {

using core::Endian;
using core::NpyArray;
using core::NpyDtype;

NpyDtype Typestr(std::string_view text) { return *NpyDtype::FromTypestr(text); }

NpyArray Sequence(std::string_view typestr, std::vector<std::int64_t> shape, bool fortran) {
  NpyArray array;
  array.dtype = Typestr(typestr);
  array.shape = std::move(shape);
  array.fortran_order = fortran;
  std::size_t size = array.dtype.itemsize();
  for (std::int64_t dim : array.shape) size *= static_cast<std::size_t>(dim);
  for (std::size_t i = 0; i < size; ++i) array.data.push_back(static_cast<std::uint8_t>(i));
  return array;
}

class ArrayFileTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(testing::TempDir()) /
           ("array_file_test_" +
            std::string(testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path WriteRaw(std::string_view name, std::size_t size) {
    Bytes bytes(size);
    for (std::size_t i = 0; i < size; ++i) bytes[i] = static_cast<std::uint8_t>(i);
    EXPECT_TRUE(io::WriteFile(dir_ / name, bytes).ok());
    return dir_ / name;
  }

  std::filesystem::path dir_;
};

TEST(ArrayFile, HasNpyExtension) {
  EXPECT_TRUE(HasNpyExtension("a/b.npy"));
  EXPECT_TRUE(HasNpyExtension("B.NPY"));
  EXPECT_FALSE(HasNpyExtension("b.raw"));
  EXPECT_FALSE(HasNpyExtension("npy"));
}

TEST_F(ArrayFileTest, RecognizesNpyByMagicNotExtension) {
  const NpyArray array = Sequence(">i4", {2, 3}, true);
  ASSERT_TRUE(WriteArrayFile(dir_ / "data.bin", array, false).ok());
  Result<NpyArray> back = ReadArrayFile(dir_ / "data.bin", {});
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->dtype, array.dtype);
  EXPECT_EQ(back->shape, array.shape);
  EXPECT_TRUE(back->fortran_order);
  EXPECT_EQ(back->data, array.data);
}

TEST_F(ArrayFileTest, ReadsRawWithAGivenShape) {
  const auto path = WriteRaw("a.raw", 24);
  Result<NpyArray> array = ReadArrayFile(path, {Typestr("<u2"), std::vector<std::int64_t>{3, 4}});
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  EXPECT_EQ(array->shape, (std::vector<std::int64_t>{3, 4}));
  EXPECT_FALSE(array->fortran_order);
  EXPECT_EQ(array->data.size(), 24u);
  EXPECT_EQ(array->data[23], 23);

  Result<NpyArray> wrong = ReadArrayFile(path, {Typestr("<u2"), std::vector<std::int64_t>{5, 4}});
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(wrong.status().message().find("24 bytes"), std::string_view::npos);
  EXPECT_NE(wrong.status().message().find("needs 40"), std::string_view::npos);
}

TEST_F(ArrayFileTest, InfersDimZeroFromTheFileSize) {
  const auto path = WriteRaw("a.raw", 48);
  Result<NpyArray> array =
      ReadArrayFile(path, {Typestr("<f4"), std::vector<std::int64_t>{0, 2, 3}});
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  EXPECT_EQ(array->shape, (std::vector<std::int64_t>{2, 2, 3}));
  Result<NpyArray> flat = ReadArrayFile(path, {Typestr("<u8"), std::nullopt});
  ASSERT_TRUE(flat.ok());
  EXPECT_EQ(flat->shape, (std::vector<std::int64_t>{6}));
  Result<NpyArray> scalar =
      ReadArrayFile(WriteRaw("s.raw", 8), {Typestr("<f8"), std::vector<std::int64_t>{}});
  ASSERT_TRUE(scalar.ok());
  EXPECT_TRUE(scalar->shape.empty());

  Result<NpyArray> uneven = ReadArrayFile(path, {Typestr("<f4"), std::vector<std::int64_t>{0, 5}});
  ASSERT_FALSE(uneven.ok());
  EXPECT_NE(uneven.status().message().find("not a multiple of 20 bytes"), std::string_view::npos)
      << uneven.status().ToString();
  Result<NpyArray> empty =
      ReadArrayFile(WriteRaw("e.raw", 0), {Typestr("<f4"), std::vector<std::int64_t>{0, 0}});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->shape, (std::vector<std::int64_t>{0, 0}));
  EXPECT_FALSE(ReadArrayFile(path, {Typestr("<f4"), std::vector<std::int64_t>{0, 0}}).ok());
  EXPECT_FALSE(ReadArrayFile(path, {Typestr("<f4"), std::vector<std::int64_t>{0, -2}}).ok());
}

TEST_F(ArrayFileTest, RawFilesAreLittleEndianWhateverTheHint) {
  const auto path = WriteRaw("a.raw", 8);
  Result<NpyArray> array = ReadArrayFile(path, {Typestr(">u4"), std::nullopt});
  ASSERT_TRUE(array.ok());
  EXPECT_EQ(array->dtype.typestr(), "<u4");
}

TEST_F(ArrayFileTest, RawNeedsADtype) {
  Result<NpyArray> array = ReadArrayFile(WriteRaw("a.raw", 8), {});
  ASSERT_FALSE(array.ok());
  EXPECT_EQ(array.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(array.status().message().find("no dtype"), std::string_view::npos);
  EXPECT_EQ(ReadArrayFile(dir_ / "missing", {}).status().code(), StatusCode::kNotFound);
}

TEST_F(ArrayFileTest, WritesRawAsCOrderLittleEndian) {
  NpyArray array;
  array.dtype = Typestr(">u2");
  array.shape = {2, 2};
  array.fortran_order = true;
  // Fortran order: a[0,0]=1, a[1,0]=2, a[0,1]=3, a[1,1]=4, big-endian.
  array.data = {0, 1, 0, 2, 0, 3, 0, 4};
  ASSERT_TRUE(WriteArrayFile(dir_ / "out.raw", array, true).ok());
  Result<Bytes> bytes = core::ReadFile(dir_ / "out.raw");
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(*bytes, (Bytes{1, 0, 3, 0, 2, 0, 4, 0}));

  array.data.pop_back();
  EXPECT_EQ(WriteArrayFile(dir_ / "bad.raw", array, true).code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "bad.raw"));
}

TEST_F(ArrayFileTest, StreamsDataInPieces) {
  const NpyArray array = Sequence("<u2", {5, 7}, false);
  ASSERT_TRUE(WriteArrayFile(dir_ / "a.npy", array, false).ok());
  ASSERT_TRUE(WriteArrayFile(dir_ / "a.raw", array, true).ok());
  for (const char* name : {"a.npy", "a.raw"}) {
    auto reader =
        ArrayStreamReader::Open(dir_ / name, {Typestr("<u2"), std::vector<std::int64_t>{0, 7}});
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    EXPECT_EQ((*reader)->shape(), array.shape);
    EXPECT_EQ((*reader)->data_size(), 70u);
    Bytes all;
    Bytes piece(16);
    while (true) {
      Result<std::size_t> got = (*reader)->Read(piece);
      ASSERT_TRUE(got.ok());
      if (*got == 0) break;
      all.insert(all.end(), piece.begin(), piece.begin() + static_cast<std::ptrdiff_t>(*got));
    }
    EXPECT_EQ(all, array.data) << name;
    EXPECT_EQ((*reader)->remaining(), 0u);
  }
}

}  // namespace
}  // namespace chunkwise::io
