// TIFF stacks: files written here with libtiff (strips, tiles, BigTIFF,
// deflate, folders of planes) read back value for value, and the inputs that
// are not one volume refused with the file and plane named.
#include "io/tiff_stack.h"

#include <gtest/gtest.h>
#include <tiffio.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "unit/scratch_directory.h"
#include "unit/value_or_die.h"

namespace chunkwise::io {
namespace {

using test::ValueOrDie;

struct Layout {
  std::uint16_t bits = 16;
  std::uint16_t format = SAMPLEFORMAT_UINT;
  std::uint16_t samples = 1;
  bool big = false;
  std::uint32_t tile = 0;  // 0: strips of 3 rows.
  std::uint16_t compression = COMPRESSION_NONE;
  std::string description;  // Of the first page; empty: none.
};

// The byte of element i of plane z: distinct across planes and positions.
std::uint8_t ByteAt(std::size_t z, std::size_t i) { return static_cast<std::uint8_t>(z * 31 + i); }

// Writes `planes` pages of height x width to `path`.
void WriteTiff(const std::filesystem::path& path, std::size_t planes, std::uint32_t height,
               std::uint32_t width, const Layout& layout, std::size_t first_z = 0) {
  TIFF* tiff = TIFFOpen(path.c_str(), layout.big ? "w8" : "w");
  ASSERT_NE(tiff, nullptr);
  const std::size_t element = layout.bits / 8 * layout.samples;
  for (std::size_t z = 0; z < planes; ++z) {
    TIFFSetField(tiff, TIFFTAG_IMAGEWIDTH, width);
    TIFFSetField(tiff, TIFFTAG_IMAGELENGTH, height);
    TIFFSetField(tiff, TIFFTAG_SAMPLESPERPIXEL, layout.samples);
    TIFFSetField(tiff, TIFFTAG_BITSPERSAMPLE, layout.bits);
    TIFFSetField(tiff, TIFFTAG_SAMPLEFORMAT, layout.format);
    TIFFSetField(tiff, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    TIFFSetField(tiff, TIFFTAG_PHOTOMETRIC,
                 layout.samples == 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
    TIFFSetField(tiff, TIFFTAG_COMPRESSION, layout.compression);
    if (z == 0 && !layout.description.empty()) {
      TIFFSetField(tiff, TIFFTAG_IMAGEDESCRIPTION, layout.description.c_str());
    }
    std::vector<std::uint8_t> plane(height * width * element);
    for (std::size_t i = 0; i < plane.size(); ++i) plane[i] = ByteAt(first_z + z, i);
    if (layout.tile != 0) {
      TIFFSetField(tiff, TIFFTAG_TILEWIDTH, layout.tile);
      TIFFSetField(tiff, TIFFTAG_TILELENGTH, layout.tile);
      std::vector<std::uint8_t> tile(layout.tile * layout.tile * element, 0);
      for (std::uint32_t y0 = 0; y0 < height; y0 += layout.tile) {
        for (std::uint32_t x0 = 0; x0 < width; x0 += layout.tile) {
          std::fill(tile.begin(), tile.end(), 0);
          for (std::uint32_t r = 0; r < layout.tile && y0 + r < height; ++r) {
            const std::size_t run = std::min(layout.tile, width - x0) * element;
            std::memcpy(&tile[r * layout.tile * element], &plane[((y0 + r) * width + x0) * element],
                        run);
          }
          ASSERT_GE(TIFFWriteTile(tiff, tile.data(), x0, y0, 0, 0), 0);
        }
      }
    } else {
      TIFFSetField(tiff, TIFFTAG_ROWSPERSTRIP, 3);
      for (std::uint32_t y = 0; y < height; ++y) {
        ASSERT_EQ(TIFFWriteScanline(tiff, &plane[y * width * element], y, 0), 1);
      }
    }
    ASSERT_EQ(TIFFWriteDirectory(tiff), 1);
  }
  TIFFClose(tiff);
}

// Every plane of `stack` as WriteTiff wrote it (planes numbered from 0).
void ExpectPlanes(TiffStack& stack) {
  std::vector<std::uint8_t> plane(stack.plane_bytes());
  for (core::Index z = 0; z < stack.shape()[0]; ++z) {
    ASSERT_TRUE(stack.ReadPlane(z, plane).ok()) << z;
    for (std::size_t i = 0; i < plane.size(); ++i) {
      ASSERT_EQ(plane[i], ByteAt(static_cast<std::size_t>(z), i)) << "plane " << z << " byte " << i;
    }
  }
}

class TiffStackTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::FreshScratchDirectory("tiff");
    std::filesystem::create_directories(dir_);
  }
  std::filesystem::path dir_;
};

TEST(NaturalLessTest, DigitsCompareAsNumbers) {
  EXPECT_TRUE(NaturalLess("plane2.tif", "plane10.tif"));
  EXPECT_FALSE(NaturalLess("plane10.tif", "plane2.tif"));
  EXPECT_TRUE(NaturalLess("a9b", "a10a"));
  EXPECT_TRUE(NaturalLess("z_1_2", "z_1_10"));
  EXPECT_TRUE(NaturalLess("p1", "q0"));
  EXPECT_TRUE(NaturalLess("p", "p0"));
  EXPECT_FALSE(NaturalLess("p7", "p7"));
  // Leading zeros: the same number, still a strict order.
  EXPECT_NE(NaturalLess("p007", "p7"), NaturalLess("p7", "p007"));
  EXPECT_TRUE(NaturalLess("p007", "p8"));
  EXPECT_TRUE(NaturalLess("p99999999999999999999998", "p99999999999999999999999"));
}

TEST_F(TiffStackTest, MultiPageStripsReadPlaneByPlane) {
  const std::filesystem::path path = dir_ / "stack.tif";
  WriteTiff(path, 5, 7, 6, {});
  std::unique_ptr<TiffStack> stack = ValueOrDie(TiffStack::Open(path));
  EXPECT_EQ(stack->shape(), (core::Shape{5, 7, 6}));
  EXPECT_EQ(stack->data_type(), core::DataType(core::DataTypeId::kUInt16));
  EXPECT_FALSE(stack->physical_sizes().has_value());
  ExpectPlanes(*stack);
  // Out of order too (a directory looked up, not the next one).
  std::vector<std::uint8_t> plane(stack->plane_bytes());
  ASSERT_TRUE(stack->ReadPlane(1, plane).ok());
  EXPECT_EQ(plane[3], ByteAt(1, 3));
  EXPECT_EQ(stack->ReadPlane(5, plane).code(), StatusCode::kOutOfRange);
}

TEST_F(TiffStackTest, BigTiffTiledDeflateWithEdgeTiles) {
  const std::filesystem::path path = dir_ / "big.tiff";
  WriteTiff(path, 3, 37, 21,
            {.bits = 32,
             .format = SAMPLEFORMAT_IEEEFP,
             .big = true,
             .tile = 16,
             .compression = COMPRESSION_ADOBE_DEFLATE});
  std::unique_ptr<TiffStack> stack = ValueOrDie(TiffStack::Open(path));
  EXPECT_EQ(stack->shape(), (core::Shape{3, 37, 21}));
  EXPECT_EQ(stack->data_type(), core::DataType(core::DataTypeId::kFloat32));
  ExpectPlanes(*stack);
}

TEST_F(TiffStackTest, DataTypesFromBitsAndSampleFormat) {
  const std::pair<Layout, core::DataTypeId> cases[] = {
      {{.bits = 8}, core::DataTypeId::kUInt8},
      {{.bits = 8, .format = SAMPLEFORMAT_INT}, core::DataTypeId::kInt8},
      {{.bits = 16, .format = SAMPLEFORMAT_INT}, core::DataTypeId::kInt16},
      {{.bits = 32}, core::DataTypeId::kUInt32},
      {{.bits = 32, .format = SAMPLEFORMAT_INT}, core::DataTypeId::kInt32},
      {{.bits = 64, .format = SAMPLEFORMAT_IEEEFP}, core::DataTypeId::kFloat64},
      {{.bits = 16, .format = SAMPLEFORMAT_IEEEFP}, core::DataTypeId::kFloat16},
      {{.bits = 64}, core::DataTypeId::kUInt64},
      {{.bits = 64, .format = SAMPLEFORMAT_INT}, core::DataTypeId::kInt64}};
  int n = 0;
  for (const auto& [layout, id] : cases) {
    const std::filesystem::path path = dir_ / ("t" + std::to_string(n++) + ".tif");
    WriteTiff(path, 2, 4, 5, layout);
    std::unique_ptr<TiffStack> stack = ValueOrDie(TiffStack::Open(path));
    EXPECT_EQ(stack->data_type(), core::DataType(id)) << path;
    ExpectPlanes(*stack);
  }
}

TEST_F(TiffStackTest, FolderOfPlanesInNaturalOrder) {
  const std::filesystem::path folder = dir_ / "planes";
  std::filesystem::create_directories(folder);
  // Written out of order; plane10 is z=10 only in natural order.
  for (std::size_t z : {10, 2, 0, 1, 3, 4, 5, 6, 7, 8, 9, 11}) {
    WriteTiff(folder / ("plane" + std::to_string(z) + ".TIF"), 1, 3, 4, {.bits = 8}, z);
  }
  std::ofstream(folder / "notes.txt") << "not a plane";
  std::unique_ptr<TiffStack> stack = ValueOrDie(TiffStack::Open(folder));
  EXPECT_EQ(stack->shape(), (core::Shape{12, 3, 4}));
  ExpectPlanes(*stack);
}

TEST_F(TiffStackTest, FolderPlaneOfAnotherShapeIsNamed) {
  const std::filesystem::path folder = dir_ / "mixed";
  std::filesystem::create_directories(folder);
  WriteTiff(folder / "p0.tif", 1, 3, 4, {});
  WriteTiff(folder / "p1.tif", 1, 3, 4, {});
  WriteTiff(folder / "p2.tif", 1, 4, 3, {});
  Result<std::unique_ptr<TiffStack>> stack = TiffStack::Open(folder);
  ASSERT_EQ(stack.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(stack.status().message().find("p2.tif"), std::string::npos)
      << stack.status().ToString();
  EXPECT_NE(stack.status().message().find("plane 2"), std::string::npos)
      << stack.status().ToString();
  EXPECT_NE(stack.status().message().find("4x3"), std::string::npos) << stack.status().ToString();
}

TEST_F(TiffStackTest, FolderPlaneOfAnotherDataTypeIsNamed) {
  const std::filesystem::path folder = dir_ / "types";
  std::filesystem::create_directories(folder);
  WriteTiff(folder / "p0.tif", 1, 3, 4, {});
  WriteTiff(folder / "p1.tif", 1, 3, 4, {.bits = 8});
  Result<std::unique_ptr<TiffStack>> stack = TiffStack::Open(folder);
  ASSERT_EQ(stack.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(stack.status().message().find("p1.tif"), std::string::npos)
      << stack.status().ToString();
  EXPECT_NE(stack.status().message().find("uint8"), std::string::npos) << stack.status().ToString();
}

TEST_F(TiffStackTest, FolderFileOfSeveralPagesIsRefused) {
  const std::filesystem::path folder = dir_ / "pages";
  std::filesystem::create_directories(folder);
  WriteTiff(folder / "a.tif", 2, 3, 4, {});
  Result<std::unique_ptr<TiffStack>> stack = TiffStack::Open(folder);
  ASSERT_EQ(stack.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(stack.status().message().find("a.tif: 2 pages"), std::string::npos)
      << stack.status().ToString();
}

TEST_F(TiffStackTest, MissingAndEmptyAreNotFound) {
  EXPECT_EQ(TiffStack::Open(dir_ / "absent.tif").status().code(), StatusCode::kNotFound);
  std::filesystem::create_directories(dir_ / "empty");
  const Status empty = TiffStack::Open(dir_ / "empty").status();
  EXPECT_EQ(empty.code(), StatusCode::kNotFound);
  EXPECT_NE(empty.message().find("no .tif"), std::string::npos) << empty.ToString();
}

TEST_F(TiffStackTest, TruncatedFileIsCorruptionNamingIt) {
  const std::filesystem::path path = dir_ / "cut.tif";
  WriteTiff(path, 4, 16, 16, {});
  // Strips first, directories after: cutting the middle off leaves
  // directories (libtiff writes the last at the end) that point past it.
  const auto size = std::filesystem::file_size(path);
  std::filesystem::resize_file(path, size / 2);
  Result<std::unique_ptr<TiffStack>> stack = TiffStack::Open(path);
  ASSERT_FALSE(stack.ok());
  EXPECT_EQ(stack.status().code(), StatusCode::kCorruption) << stack.status().ToString();
  EXPECT_NE(stack.status().message().find("cut.tif"), std::string::npos)
      << stack.status().ToString();
}

TEST_F(TiffStackTest, StripsPastTheEndAreTruncation) {
  // Whole directories, a strip that reaches past the end of the file: 3 rows
  // are one strip, whose byte count is inline in the directory; set it far
  // past the file's end, as a file cut short in its last strip would be.
  // Compressed, because libtiff re-estimates a bogus count of one
  // uncompressed strip by itself.
  const std::filesystem::path path = dir_ / "short.tif";
  WriteTiff(path, 1, 3, 16, {.compression = COMPRESSION_ADOBE_DEFLATE});
  std::ifstream in(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), {});
  in.close();
  std::uint32_t ifd = 0;
  std::memcpy(&ifd, &bytes[4], 4);
  std::uint16_t entries = 0;
  std::memcpy(&entries, &bytes[ifd], 2);
  bool found = false;
  for (std::uint16_t e = 0; e < entries; ++e) {
    char* entry = &bytes[ifd + 2 + 12 * e];
    std::uint16_t tag = 0;
    std::uint16_t type = 0;
    std::memcpy(&tag, entry, 2);
    std::memcpy(&type, entry + 2, 2);
    if (tag != TIFFTAG_STRIPBYTECOUNTS) continue;
    const std::uint32_t count = type == TIFF_SHORT ? 0xFFFF : 1u << 30;
    std::memcpy(entry + 8, &count, type == TIFF_SHORT ? 2 : 4);
    found = true;
  }
  ASSERT_TRUE(found);
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  const Status status = TiffStack::Open(path).status();
  ASSERT_EQ(status.code(), StatusCode::kCorruption) << status.ToString();
  EXPECT_NE(status.message().find("short.tif: page 0"), std::string::npos) << status.ToString();
  EXPECT_NE(status.message().find("truncated"), std::string::npos) << status.ToString();
}

TEST_F(TiffStackTest, TilesFarLargerThanTheImageAreRefusedBeforeTheirBuffer) {
  // A 2048x2048 tile (4 Mi elements) for a 4x4 image: decoding it would
  // allocate for the tile, not the image (found by tiff_stack_fuzz). A tile
  // overhanging a small image, as writers with one tile size make, still reads.
  const std::filesystem::path path = dir_ / "huge_tile.tif";
  WriteTiff(path, 1, 4, 4, {.bits = 8, .tile = 2048, .compression = COMPRESSION_ADOBE_DEFLATE});
  std::unique_ptr<TiffStack> stack = ValueOrDie(TiffStack::Open(path));
  std::vector<std::uint8_t> plane(stack->plane_bytes());
  const Status status = stack->ReadPlane(0, plane);
  ASSERT_EQ(status.code(), StatusCode::kCorruption) << status.ToString();
  EXPECT_NE(status.message().find("huge_tile.tif: page 0 (plane 0): tiles of 2048x2048"),
            std::string::npos)
      << status.ToString();
  WriteTiff(dir_ / "overhang.tif", 2, 5, 3, {.bits = 8, .tile = 256});
  std::unique_ptr<TiffStack> overhang = ValueOrDie(TiffStack::Open(dir_ / "overhang.tif"));
  ExpectPlanes(*overhang);
}

TEST_F(TiffStackTest, OtherBitDepthsAreUnsupportedNamingThem) {
  const std::filesystem::path path = dir_ / "twelve.tif";
  WriteTiff(path, 1, 4, 4, {.bits = 24});
  const Status status = TiffStack::Open(path).status();
  ASSERT_EQ(status.code(), StatusCode::kUnsupported) << status.ToString();
  EXPECT_NE(status.message().find("twelve.tif: page 0: 24-bit unsigned"), std::string::npos)
      << status.ToString();
}

TEST_F(TiffStackTest, RgbIsUnsupportedNamingFileAndSamples) {
  const std::filesystem::path path = dir_ / "rgb.tif";
  WriteTiff(path, 1, 4, 4, {.bits = 8, .samples = 3});
  const Status status = TiffStack::Open(path).status();
  ASSERT_EQ(status.code(), StatusCode::kUnsupported) << status.ToString();
  EXPECT_NE(status.message().find("rgb.tif: page 0"), std::string::npos) << status.ToString();
  EXPECT_NE(status.message().find("3 samples per pixel"), std::string::npos) << status.ToString();
}

TEST_F(TiffStackTest, OmeDescriptionGivesPhysicalSizes) {
  const std::filesystem::path path = dir_ / "ome.tif";
  const std::string xml =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?><OME xmlns=\"http://www.openmicroscopy.org/"
      "Schemas/OME/2016-06\"><Image ID=\"Image:0\"><Pixels ID=\"Pixels:0\" "
      "DimensionOrder=\"XYZCT\" Type=\"uint16\" SizeX=\"6\" SizeY=\"7\" SizeZ=\"3\" SizeC=\"1\" "
      "SizeT=\"1\" PhysicalSizeX=\"0.25\" PhysicalSizeY='0.5' PhysicalSizeYUnit=\"nm\" "
      "PhysicalSizeZ=\"2\" PhysicalSizeZUnit=\"mm\"/></Image></OME>";
  WriteTiff(path, 3, 7, 6, {.description = xml});
  std::unique_ptr<TiffStack> stack = ValueOrDie(TiffStack::Open(path));
  ASSERT_TRUE(stack->physical_sizes().has_value());
  EXPECT_EQ(stack->physical_sizes()->scale, (std::vector<double>{2, 0.5, 0.25}));
  EXPECT_EQ(stack->physical_sizes()->units,
            (std::vector<std::string>{"millimeter", "nanometer", "micrometer"}));
  ExpectPlanes(*stack);
}

TEST_F(TiffStackTest, OmeFileOfAMultiFileSetIsRefused) {
  // SizeZ=4 in the XML, two pages in the file: the other planes are in other files.
  const std::filesystem::path path = dir_ / "part.ome.tif";
  WriteTiff(path, 2, 3, 3,
            {.description = "<OME><Image><Pixels SizeZ=\"4\" PhysicalSizeX=\"1\"/></Image></OME>"});
  const Status status = TiffStack::Open(path).status();
  ASSERT_EQ(status.code(), StatusCode::kUnsupported) << status.ToString();
  EXPECT_NE(status.message().find("part.ome.tif: its OME-XML describes SizeZ=4 planes but it "
                                  "holds 2 pages"),
            std::string::npos)
      << status.ToString();
  EXPECT_TRUE(CheckOmePlaneCount("<OME><Pixels SizeZ=\"2\"/>", 2).ok());
  EXPECT_TRUE(CheckOmePlaneCount("<OME><Pixels SizeX=\"2\"/>", 7).ok());
}

TEST(OmePhysicalSizesTest, PrefixedTagsMissingSizesAndChannels) {
  const auto sizes = ValueOrDie(ParseOmePhysicalSizes(
      "<ome:OME><ome:Pixels PhysicalSizeX=\"3\" PhysicalSizeXUnit=\"\xC2\xB5m\">"));
  ASSERT_TRUE(sizes.has_value());
  EXPECT_EQ(sizes->scale, (std::vector<double>{1, 1, 3}));
  EXPECT_EQ(sizes->units, (std::vector<std::string>{"", "", "micrometer"}));
  // PixelsX is not Pixels; no sizes at all is none.
  EXPECT_FALSE(ValueOrDie(ParseOmePhysicalSizes("<OME><PixelsX PhysicalSizeX=\"3\"/>")));
  EXPECT_FALSE(ValueOrDie(ParseOmePhysicalSizes("<OME><Pixels SizeZ=\"3\"/>")));
  EXPECT_EQ(ParseOmePhysicalSizes("<OME><Pixels SizeC=\"3\"/>").status().code(),
            StatusCode::kUnsupported);
  EXPECT_EQ(ParseOmePhysicalSizes("<OME><Pixels PhysicalSizeZ=\"-1\"/>").status().code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace chunkwise::io
