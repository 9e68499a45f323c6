// Changing zarr nodes through the facade: an array's byte order, attributes
// and shape (zarr_arrays.h, zarr_array_updates.h), and groups by URL
// (zarr_groups.h): what the Python module's zarr-python-like API stands on.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "api_test_support.h"
#include "chunkwise/chunkwise.h"

namespace chunkwise {
namespace {

using api_test::At16;
using api_test::FreshDirectory;
using api_test::Ramp16;
using ::testing::HasSubstr;

ZarrArraySpec Plain16() {
  ZarrArraySpec spec;
  spec.shape = {4, 6};
  spec.data_type = *ParseDataType("uint16");
  spec.chunks = {2, 3};
  spec.codecs = {};  // No compressor: the chunk files hold the elements.
  return spec;
}

std::string FileText(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

TEST(ZarrUpdatesApi, BigEndianChunksReadInHostOrder) {
  const std::filesystem::path dir = FreshDirectory("big_endian") / "a.zarr";
  Context context;
  ZarrArraySpec spec = Plain16();
  spec.endian = core::Endian::kBig;
  auto array = CreateZarrArray(context, dir.string(), spec);
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  EXPECT_EQ(ZarrByteOrder(*array), core::Endian::kBig);
  ASSERT_TRUE(
      WriteRegion(context, *array, core::Region::Full(spec.shape), Ramp16(24, 0x0102)).ok());
  EXPECT_THAT(FileText(dir / "zarr.json"), HasSubstr("\"endian\": \"big\""));
  const std::string chunk = FileText(dir / "c" / "0" / "0");
  ASSERT_EQ(chunk.size(), 12u + 4);  // 6 elements, then the default crc32c (#44).
  EXPECT_EQ(chunk[0], '\x01');       // 0x0102, most significant byte first.
  EXPECT_EQ(chunk[1], '\x02');

  auto opened = OpenZarrArray(context, dir.string());
  ASSERT_TRUE(opened.ok());
  EXPECT_EQ(ZarrByteOrder(*opened), core::Endian::kBig);
  auto values = ReadRegion(context, *opened, core::Region::Full(spec.shape));
  ASSERT_TRUE(values.ok());
  EXPECT_EQ(At16(*values, 0), 0x0102);  // Host order.
  EXPECT_EQ(At16(*values, 23), 0x0102 + 23);
}

TEST(ZarrUpdatesApi, AttributesAreWrittenAndKept) {
  Context context;
  const std::string url = "memory://zarr-updates-attributes";
  auto array = CreateZarrArray(context, url, Plain16());
  ASSERT_TRUE(array.ok());
  ASSERT_TRUE(SetZarrAttributes(*array, {{"unit", "nm"}}).ok());
  EXPECT_EQ(array->metadata().attributes, nlohmann::json({{"unit", "nm"}}));
  auto opened = OpenZarrArray(context, url);
  ASSERT_TRUE(opened.ok());
  EXPECT_EQ(opened->metadata().attributes, nlohmann::json({{"unit", "nm"}}));
  const Status refused = SetZarrAttributes(*array, nlohmann::json::array({1}));
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(refused.message()), HasSubstr("JSON object"));
}

TEST(ZarrUpdatesApi, ResizeErasesChunksOutsideAndKeepsCutOnes) {
  const std::filesystem::path dir = FreshDirectory("resize") / "a.zarr";
  Context context;
  auto array = CreateZarrArray(context, dir.string(), Plain16());
  ASSERT_TRUE(array.ok());
  ASSERT_TRUE(
      WriteRegion(context, *array, core::Region::Full(core::Shape{4, 6}), Ramp16(24, 1)).ok());
  ASSERT_TRUE(ResizeZarrArray(*array, {3, 3}).ok());
  EXPECT_EQ(array->metadata().shape, (core::Shape{3, 3}));
  EXPECT_TRUE(std::filesystem::exists(dir / "c" / "1" / "0"));   // Cut: kept.
  EXPECT_FALSE(std::filesystem::exists(dir / "c" / "0" / "1"));  // Outside: erased.
  ASSERT_TRUE(ResizeZarrArray(*array, {4, 6}).ok());
  auto values = ReadRegion(context, *array, core::Region::Full(core::Shape{4, 6}));
  ASSERT_TRUE(values.ok());
  EXPECT_EQ(At16(*values, 3 * 6 + 0), 19);  // The cut chunk's row comes back.
  EXPECT_EQ(At16(*values, 0 * 6 + 3), 0);   // The erased chunk reads as fill.
  auto opened = OpenZarrArray(context, dir.string());
  ASSERT_TRUE(opened.ok());
  EXPECT_EQ(opened->metadata().shape, (core::Shape{4, 6}));
  EXPECT_EQ(ResizeZarrArray(*array, {4}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ResizeZarrArray(*array, {4, -1}).code(), StatusCode::kInvalidArgument);
}

TEST(ZarrUpdatesApi, GroupsOpenCreateAndNameMembers) {
  const std::filesystem::path dir = FreshDirectory("groups");
  Context context;
  for (const int format : {3, 2}) {
    const std::string url = (dir / ("g" + std::to_string(format) + ".zarr")).string();
    auto group = CreateZarrGroup(context, url, {.zarr_format = format, .attributes = {{"a", 1}}});
    ASSERT_TRUE(group.ok()) << group.status().ToString();
    ZarrArraySpec spec = Plain16();
    spec.zarr_format = format;
    ASSERT_TRUE(CreateZarrArray(context, url + "/raw", spec).ok());
    ASSERT_TRUE(CreateZarrGroup(context, url + "/sub", {.zarr_format = format}).ok());
    ASSERT_TRUE(CreateZarrGroup(context, url + "/sub/deeper", {.zarr_format = format}).ok());
    ASSERT_TRUE(SetZarrGroupAttributes(*group, {{"b", 2}}).ok());

    auto opened = OpenZarrGroup(context, url);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    EXPECT_EQ(opened->zarr_format, format);
    EXPECT_EQ(opened->attributes, nlohmann::json({{"b", 2}}));
    auto members = ListZarrGroupMembers(*opened);
    ASSERT_TRUE(members.ok());
    ASSERT_EQ(members->size(), 2u);  // Direct members only.
    EXPECT_EQ((*members)[0].name, "raw");
    EXPECT_FALSE((*members)[0].is_group);
    EXPECT_EQ((*members)[1].name, "sub");
    EXPECT_TRUE((*members)[1].is_group);

    EXPECT_EQ(OpenZarrGroup(context, url + "/raw").status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(CreateZarrGroup(context, url, {}).status().code(), StatusCode::kInvalidArgument);
  }
  const auto missing = OpenZarrGroup(context, (dir / "none.zarr").string());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr("none.zarr"));
  EXPECT_FALSE(std::filesystem::exists(dir / "none.zarr"));
}

}  // namespace
}  // namespace chunkwise
