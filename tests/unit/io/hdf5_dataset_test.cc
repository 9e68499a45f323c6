// HDF5 datasets: files written here with libhdf5 (contiguous and chunked,
// gzip and shuffle, big-endian, h5py's float16 and bool layouts, scalar)
// read back value for value with their chunks and simple attributes, and the
// inputs that are not one readable dataset refused naming the file and path.
#include "io/hdf5_dataset.h"

#include <gtest/gtest.h>
#include <hdf5.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include "unit/scratch_directory.h"
#include "unit/value_or_die.h"

namespace chunkwise::io {
namespace {

using test::ValueOrDie;

// How a test dataset is stored.
struct Storage {
  std::vector<hsize_t> chunks;  // Empty: contiguous.
  bool shuffle = false;
  int gzip = -1;  // A level, or -1 for none.
};

class Hdf5DatasetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::FreshScratchDirectory("hdf5");
    std::filesystem::create_directories(dir_);
    path_ = dir_ / "data.h5";
    file_ = H5Fcreate(path_.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    ASSERT_GE(file_, 0);
  }
  void TearDown() override { Close(); }
  void Close() {
    if (file_ >= 0) H5Fclose(file_);
    file_ = -1;
  }

  // Writes `values` (in `memory_type`) as dataset `name` of `file_type` and `dims`.
  hid_t Write(const char* name, hid_t file_type, hid_t memory_type, std::vector<hsize_t> dims,
              const void* values, const Storage& storage = {}) {
    const hid_t space = dims.empty()
                            ? H5Screate(H5S_SCALAR)
                            : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
    const hid_t create = H5Pcreate(H5P_DATASET_CREATE);
    if (!storage.chunks.empty()) {
      H5Pset_chunk(create, static_cast<int>(storage.chunks.size()), storage.chunks.data());
    }
    if (storage.shuffle) H5Pset_shuffle(create);
    if (storage.gzip >= 0) H5Pset_deflate(create, static_cast<unsigned>(storage.gzip));
    const hid_t dataset =
        H5Dcreate2(file_, name, file_type, space, H5P_DEFAULT, create, H5P_DEFAULT);
    EXPECT_GE(dataset, 0) << name;
    EXPECT_GE(H5Dwrite(dataset, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values), 0) << name;
    H5Pclose(create);
    H5Sclose(space);
    return dataset;  // Open, for attributes; closed by the file's close (strong).
  }

  std::unique_ptr<Hdf5Dataset> Open(std::string_view dataset) {
    Close();
    return ValueOrDie(Hdf5Dataset::Open(path_, dataset));
  }
  Status OpenFails(std::string_view dataset) {
    Close();
    Result<std::unique_ptr<Hdf5Dataset>> opened = Hdf5Dataset::Open(path_, dataset);
    EXPECT_FALSE(opened.ok()) << dataset;
    return opened.ok() ? Status::Ok() : opened.status();
  }

  std::filesystem::path dir_;
  std::filesystem::path path_;
  hid_t file_ = -1;
};

std::vector<std::uint16_t> Ramp(std::size_t n) {
  std::vector<std::uint16_t> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<std::uint16_t>(i * 257 + 3);
  return values;
}

template <typename T>
std::vector<T> ReadAll(Hdf5Dataset& dataset) {
  const core::Index rows = dataset.shape().empty() ? 1 : dataset.shape()[0];
  std::vector<T> out(rows * dataset.row_bytes() / sizeof(T));
  const std::span bytes(reinterpret_cast<std::uint8_t*>(out.data()), out.size() * sizeof(T));
  EXPECT_TRUE(dataset.ReadRows(0, rows, bytes).ok());
  return out;
}

TEST_F(Hdf5DatasetTest, ChunkedGzipShuffleReadsBackInSlabs) {
  const std::vector<std::uint16_t> values = Ramp(7 * 5 * 6);
  H5Dclose(Write("/volume", H5T_STD_U16LE, H5T_NATIVE_UINT16, {7, 5, 6}, values.data(),
                 {.chunks = {3, 4, 4}, .shuffle = true, .gzip = 6}));
  std::unique_ptr<Hdf5Dataset> dataset = Open("/volume");
  EXPECT_EQ(dataset->name(), path_.string() + ":/volume");
  EXPECT_EQ(dataset->shape(), (core::Shape{7, 5, 6}));
  EXPECT_EQ(dataset->data_type(), core::DataType(core::DataTypeId::kUInt16));
  EXPECT_EQ(dataset->chunks(), (core::Shape{3, 4, 4}));
  EXPECT_EQ(dataset->row_bytes(), 5u * 6 * 2);
  // Rows 2..6 alone: a slab that cuts the file's chunks.
  std::vector<std::uint16_t> rows(4 * 30);
  ASSERT_TRUE(
      dataset
          ->ReadRows(2, 4, std::span(reinterpret_cast<std::uint8_t*>(rows.data()), rows.size() * 2))
          .ok());
  EXPECT_TRUE(std::equal(rows.begin(), rows.end(), values.begin() + 60));
  EXPECT_EQ(ReadAll<std::uint16_t>(*dataset), values);
}

TEST_F(Hdf5DatasetTest, BigEndianValuesArriveInHostOrder) {
  const std::vector<std::uint16_t> values = Ramp(12);
  H5Dclose(Write("be", H5T_STD_U16BE, H5T_NATIVE_UINT16, {3, 4}, values.data()));
  std::unique_ptr<Hdf5Dataset> dataset = Open("be");  // No leading "/": from the root.
  EXPECT_EQ(dataset->name(), path_.string() + ":/be");
  EXPECT_FALSE(dataset->chunks().has_value());  // Contiguous.
  EXPECT_EQ(ReadAll<std::uint16_t>(*dataset), values);
}

TEST_F(Hdf5DatasetTest, EachIntegerAndFloatWidthHasItsType) {
  const std::vector<double> doubles{1.5, -2.25, 1e300, -0.0};
  const std::vector<float> floats{1.5f, -2.25f, 3e38f, 0.125f};
  const std::vector<std::int64_t> longs{-1, INT64_MIN, INT64_MAX, 7};
  const std::vector<std::int8_t> bytes{-128, 127, 0, -1};
  H5Dclose(Write("f8", H5T_IEEE_F64BE, H5T_NATIVE_DOUBLE, {4}, doubles.data()));
  H5Dclose(Write("f4", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, {4}, floats.data()));
  H5Dclose(Write("i8", H5T_STD_I64BE, H5T_NATIVE_INT64, {4}, longs.data()));
  H5Dclose(Write("i1", H5T_STD_I8LE, H5T_NATIVE_INT8, {4}, bytes.data()));
  std::unique_ptr<Hdf5Dataset> f8 = Open("f8");
  EXPECT_EQ(f8->data_type(), core::DataType(core::DataTypeId::kFloat64));
  EXPECT_EQ(ReadAll<double>(*f8), doubles);
  std::unique_ptr<Hdf5Dataset> f4 = Open("f4");
  EXPECT_EQ(f4->data_type(), core::DataType(core::DataTypeId::kFloat32));
  EXPECT_EQ(ReadAll<float>(*f4), floats);
  std::unique_ptr<Hdf5Dataset> i8 = Open("i8");
  EXPECT_EQ(i8->data_type(), core::DataType(core::DataTypeId::kInt64));
  EXPECT_EQ(ReadAll<std::int64_t>(*i8), longs);
  std::unique_ptr<Hdf5Dataset> i1 = Open("i1");
  EXPECT_EQ(i1->data_type(), core::DataType(core::DataTypeId::kInt8));
  EXPECT_EQ(ReadAll<std::int8_t>(*i1), bytes);
}

// h5py writes numpy's float16 as a 2-byte IEEE layout of its own, and bool
// as an enum FALSE = 0, TRUE = 1 over int8.
TEST_F(Hdf5DatasetTest, H5pyFloat16AndBoolLayoutsAreRead) {
  const hid_t half = H5Tcopy(H5T_IEEE_F32LE);
  H5Tset_fields(half, 15, 10, 5, 0, 10);
  H5Tset_precision(half, 16);
  H5Tset_size(half, 2);
  H5Tset_ebias(half, 15);
  const std::vector<std::uint16_t> half_bits{0x3c00, 0xc000, 0x7c00, 0x0001};  // 1, -2, inf, tiny
  H5Dclose(Write("half", half, half, {4}, half_bits.data()));
  const hid_t boolean = H5Tenum_create(H5T_NATIVE_INT8);
  std::int8_t no = 0, yes = 1;
  H5Tenum_insert(boolean, "FALSE", &no);
  H5Tenum_insert(boolean, "TRUE", &yes);
  const std::vector<std::uint8_t> flags{1, 0, 0, 1, 1};
  H5Dclose(Write("flags", boolean, boolean, {5}, flags.data()));
  H5Tclose(half);
  H5Tclose(boolean);
  std::unique_ptr<Hdf5Dataset> halves = Open("half");
  EXPECT_EQ(halves->data_type(), core::DataType(core::DataTypeId::kFloat16));
  EXPECT_EQ(ReadAll<std::uint16_t>(*halves), half_bits);
  std::unique_ptr<Hdf5Dataset> bools = Open("flags");
  EXPECT_EQ(bools->data_type(), core::DataType(core::DataTypeId::kBool));
  EXPECT_EQ(ReadAll<std::uint8_t>(*bools), flags);
}

TEST_F(Hdf5DatasetTest, AScalarDatasetIsOneRowOfNoShape) {
  const double value = 2.5;
  H5Dclose(Write("scalar", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {}, &value));
  std::unique_ptr<Hdf5Dataset> dataset = Open("scalar");
  EXPECT_TRUE(dataset->shape().empty());
  EXPECT_EQ(dataset->row_bytes(), 8u);
  EXPECT_EQ(ReadAll<double>(*dataset), std::vector<double>{2.5});
}

TEST_F(Hdf5DatasetTest, ChunksLargerThanTheShapeAreClipped) {
  const std::vector<std::uint16_t> values = Ramp(3 * 2);
  const hsize_t dims[] = {3, 2};
  const hsize_t unlimited[] = {H5S_UNLIMITED, H5S_UNLIMITED};
  const hid_t space = H5Screate_simple(2, dims, unlimited);
  const hid_t create = H5Pcreate(H5P_DATASET_CREATE);
  const hsize_t chunk[] = {64, 64};
  H5Pset_chunk(create, 2, chunk);
  const hid_t dataset =
      H5Dcreate2(file_, "grows", H5T_STD_U16LE, space, H5P_DEFAULT, create, H5P_DEFAULT);
  H5Dwrite(dataset, H5T_NATIVE_UINT16, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
  H5Dclose(dataset);
  H5Pclose(create);
  H5Sclose(space);
  EXPECT_EQ(Open("grows")->chunks(), (core::Shape{3, 2}));
}

// Writes attribute `name` of `type` and `dims` (empty: scalar) on `object`,
// from `values` in `memory_type` (by default `type` itself).
void Attribute(hid_t object, const char* name, hid_t type, std::vector<hsize_t> dims,
               const void* values, hid_t memory_type = H5I_INVALID_HID) {
  const hid_t space = dims.empty()
                          ? H5Screate(H5S_SCALAR)
                          : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
  const hid_t attribute = H5Acreate2(object, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(attribute, 0) << name;
  EXPECT_GE(H5Awrite(attribute, memory_type >= 0 ? memory_type : type, values), 0) << name;
  H5Aclose(attribute);
  H5Sclose(space);
}

TEST_F(Hdf5DatasetTest, SimpleAttributesBecomeJsonAndTheRestAreLeftOut) {
  const std::uint8_t value = 1;
  const hid_t dataset = Write("d", H5T_STD_U8LE, H5T_NATIVE_UINT8, {1}, &value);
  const std::int32_t offset = -7;
  Attribute(dataset, "offset", H5T_NATIVE_INT32, {}, &offset);
  const std::uint64_t big = UINT64_MAX;
  Attribute(dataset, "big", H5T_NATIVE_UINT64, {}, &big);
  const double resolution[] = {4.0, 4.0, 40.5};
  Attribute(dataset, "resolution", H5T_NATIVE_DOUBLE, {3}, resolution);
  const std::int16_t grid[] = {1, 2, 3, 4, 5, 6};
  Attribute(dataset, "grid", H5T_STD_I16BE, {2, 3}, grid, H5T_NATIVE_INT16);
  const double odd[] = {std::nan(""), -INFINITY};
  Attribute(dataset, "odd", H5T_NATIVE_DOUBLE, {2}, odd);
  // A variable-length UTF-8 string (h5py's str) and fixed-length ASCII ones (numpy bytes).
  const hid_t text = H5Tcopy(H5T_C_S1);
  H5Tset_size(text, H5T_VARIABLE);
  H5Tset_cset(text, H5T_CSET_UTF8);
  const char* unit = "µm";
  Attribute(dataset, "unit", text, {}, &unit);
  const hid_t fixed = H5Tcopy(H5T_C_S1);
  H5Tset_size(fixed, 4);
  H5Tset_strpad(fixed, H5T_STR_NULLPAD);
  Attribute(dataset, "axes", fixed, {3}, "z\0\0\0y\0\0\0x\0\0\0");
  const hid_t latin = H5Tcopy(H5T_C_S1);
  H5Tset_size(latin, 2);
  Attribute(dataset, "latin1", latin, {}, "\xb5m");  // Not UTF-8: left out.
  // A compound attribute: left out.
  const hid_t pair = H5Tcreate(H5T_COMPOUND, 8);
  H5Tinsert(pair, "a", 0, H5T_NATIVE_INT32);
  H5Tinsert(pair, "b", 4, H5T_NATIVE_INT32);
  const std::int32_t pair_value[] = {1, 2};
  Attribute(dataset, "pair", pair, {}, pair_value);
  for (const hid_t type : {text, fixed, latin, pair}) H5Tclose(type);
  H5Dclose(dataset);

  const nlohmann::json attributes = Open("d")->attributes();
  EXPECT_EQ(attributes, nlohmann::json::parse(R"({
    "offset": -7, "big": 18446744073709551615, "resolution": [4.0, 4.0, 40.5],
    "grid": [[1, 2, 3], [4, 5, 6]], "odd": ["NaN", "-Infinity"], "unit": "µm",
    "axes": ["z", "y", "x"]})"))
      << attributes.dump();
}

TEST_F(Hdf5DatasetTest, AMissingFileIsNotFoundNamingItAndTheDataset) {
  const Status status = Hdf5Dataset::Open(dir_ / "absent.h5", "/volume").status();
  EXPECT_EQ(status.code(), StatusCode::kNotFound);
  EXPECT_EQ(status.message(), (dir_ / "absent.h5").string() + ":/volume: no such file " +
                                  (dir_ / "absent.h5").string());
}

TEST_F(Hdf5DatasetTest, AFileThatIsNotHdf5IsInvalidArgument) {
  std::ofstream(dir_ / "notes.h5") << "just some text, long enough to hold no HDF5 signature\n";
  const Status status = Hdf5Dataset::Open(dir_ / "notes.h5", "/volume").status();
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find((dir_ / "notes.h5").string() + ":/volume: "), std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find("is not an HDF5 file"), std::string::npos) << status.message();
}

TEST_F(Hdf5DatasetTest, MissingPathsAndGroupsAreNamed) {
  const std::uint8_t value = 1;
  H5Gclose(H5Gcreate2(file_, "/group", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  H5Gclose(H5Gcreate2(file_, "/group/inner", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  H5Dclose(Write("/group/inner/a", H5T_STD_U8LE, H5T_NATIVE_UINT8, {1}, &value));
  H5Dclose(Write("/group/b", H5T_STD_U8LE, H5T_NATIVE_UINT8, {1}, &value));
  const std::string file = path_.string();

  Status status = OpenFails("/group/missing");
  EXPECT_EQ(status.code(), StatusCode::kNotFound);
  EXPECT_EQ(status.message(),
            file + ":/group/missing: no such dataset (nothing named \"missing\" in /group)");
  status = OpenFails("/nowhere/deep");
  EXPECT_EQ(status.code(), StatusCode::kNotFound);
  EXPECT_EQ(status.message(),
            file + ":/nowhere/deep: no such dataset (nothing named \"nowhere\" in /)");
  status = OpenFails("/group/b/c");  // A dataset is no group.
  EXPECT_EQ(status.code(), StatusCode::kNotFound);
  EXPECT_EQ(status.message(), file + ":/group/b/c: no such dataset (/group/b is not a group)");

  status = OpenFails("/group");
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), file +
                                  ":/group: a group, not a dataset (datasets in it: /group/b, "
                                  "/group/inner/a)");
  status = OpenFails("/");
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            file + ":/: a group, not a dataset (datasets in it: /group/b, /group/inner/a)");
  status = OpenFails("");
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), file + ": no dataset named; name one after the file, as " + file +
                                  ":/path/to/dataset (datasets in it: /group/b, /group/inner/a)");
}

TEST_F(Hdf5DatasetTest, ACompoundDatasetIsUnsupportedNamingIt) {
  const hid_t pair = H5Tcreate(H5T_COMPOUND, 8);
  H5Tinsert(pair, "a", 0, H5T_NATIVE_INT32);
  H5Tinsert(pair, "b", 4, H5T_NATIVE_INT32);
  const std::int32_t values[] = {1, 2, 3, 4};
  H5Dclose(Write("pairs", pair, pair, {2}, values));
  H5Tclose(pair);
  const Status status = OpenFails("/pairs");
  EXPECT_EQ(status.code(), StatusCode::kUnsupported);
  EXPECT_EQ(status.message().rfind(path_.string() + ":/pairs: a dataset of compound values", 0), 0u)
      << status.message();
}

TEST_F(Hdf5DatasetTest, AFilterThisLibraryLacksIsUnsupportedBeforeAnyRead) {
  // An optional filter libhdf5 does not have: the file is written (the
  // filter skipped), but a reader cannot know every chunk skipped it.
  const std::uint8_t values[] = {1, 2, 3, 4};
  const hsize_t dims[] = {4};
  const hid_t space = H5Screate_simple(1, dims, nullptr);
  const hid_t create = H5Pcreate(H5P_DATASET_CREATE);
  const hsize_t chunk[] = {2};
  H5Pset_chunk(create, 1, chunk);
  ASSERT_GE(H5Pset_filter(create, 32000, H5Z_FLAG_OPTIONAL, 0, nullptr), 0);
  const hid_t dataset =
      H5Dcreate2(file_, "lzf", H5T_STD_U8LE, space, H5P_DEFAULT, create, H5P_DEFAULT);
  ASSERT_GE(dataset, 0);
  H5Dwrite(dataset, H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, values);
  H5Dclose(dataset);
  H5Pclose(create);
  H5Sclose(space);
  const Status status = OpenFails("/lzf");
  EXPECT_EQ(status.code(), StatusCode::kUnsupported);
  EXPECT_EQ(status.message().rfind(path_.string() + ":/lzf: stored with HDF5 filter 32000", 0), 0u)
      << status.message();
}

TEST_F(Hdf5DatasetTest, ADamagedChunkIsCorruptionNamingTheRows) {
  std::vector<std::uint16_t> values(8 * 64);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<std::uint16_t>(i * i);
  const hid_t written = Write("/d", H5T_STD_U16LE, H5T_NATIVE_UINT16, {8, 64}, values.data(),
                              {.chunks = {4, 64}, .gzip = 6});
  // Where the second chunk (rows 4..8) lies in the file, and how long it is.
  hsize_t offset[2] = {0, 0};
  unsigned mask = 0;
  haddr_t address = 0;
  hsize_t size = 0;
  const hid_t space = H5Dget_space(written);
  ASSERT_GE(H5Dget_chunk_info(written, space, 1, offset, &mask, &address, &size), 0);
  H5Sclose(space);
  ASSERT_EQ(offset[0], 4u);
  H5Dclose(written);
  Close();
  {
    std::fstream file(path_, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(static_cast<std::streamoff>(address));
    const std::string garbage(static_cast<std::size_t>(size), '\x5a');
    file.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  }
  std::unique_ptr<Hdf5Dataset> dataset = Open("/d");
  std::vector<std::uint8_t> out(4 * dataset->row_bytes());
  EXPECT_TRUE(dataset->ReadRows(0, 4, out).ok());  // The first chunk is whole.
  const Status status = dataset->ReadRows(4, 4, out);
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
  // libhdf5's own innermost reason, taken before anything else clears it.
  EXPECT_EQ(status.message(),
            path_.string() + ":/d: rows 4..8: libhdf5 cannot read them: inflate() failed");
}

TEST_F(Hdf5DatasetTest, ReadsOutsideTheRowsAreOutOfRange) {
  const std::vector<std::uint16_t> values = Ramp(6);
  H5Dclose(Write("d", H5T_STD_U16LE, H5T_NATIVE_UINT16, {3, 2}, values.data()));
  std::unique_ptr<Hdf5Dataset> dataset = Open("d");
  std::vector<std::uint8_t> out(8);
  EXPECT_EQ(dataset->ReadRows(2, 2, out).code(), StatusCode::kOutOfRange);
  EXPECT_EQ(dataset->ReadRows(0, 1, out).code(), StatusCode::kOutOfRange);  // 4 bytes, not 8.
}

TEST(Hdf5Source, TheFirstColonSlashAfterAnHdf5NameSplits) {
  const std::optional<Hdf5Source> split = SplitHdf5Source("data/run.H5:/volumes/raw:x");
  ASSERT_TRUE(split.has_value());
  EXPECT_EQ(split->file, "data/run.H5");
  EXPECT_EQ(split->dataset, "/volumes/raw:x");
  EXPECT_EQ(SplitHdf5Source("a.hdf5:/d")->file, "a.hdf5");
  EXPECT_FALSE(SplitHdf5Source("a.tif:/d").has_value());
  EXPECT_FALSE(SplitHdf5Source("a.h5").has_value());
  EXPECT_FALSE(SplitHdf5Source("s3://bucket/a.h5").has_value());
}

}  // namespace
}  // namespace chunkwise::io
