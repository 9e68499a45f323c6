// Variable-length string arrays through the facade (zarr_strings.h): created,
// written and read by URL, with errors naming the URL or the chunk's key.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "api_test_support.h"
#include "chunkwise/chunkwise.h"
#include "chunkwise/io/npy_file.h"

namespace chunkwise {
namespace {

using api_test::FreshDirectory;
using api_test::Message;
using ::testing::HasSubstr;

TEST(ZarrStringsApi, CreatedArraysAreWrittenAndReadByBox) {
  Context context;
  for (const int format : {3, 2}) {
    const std::string url =
        (FreshDirectory("strings_v" + std::to_string(format)) / "s.zarr").string();
    const Result<ZarrStringArrayInfo> made = CreateZarrStringArray(
        context, url,
        {.shape = {3, 2}, .chunks = {2, 2}, .fill_value = "?", .zarr_format = format});
    ASSERT_TRUE(made.ok()) << made.status().ToString();
    EXPECT_EQ(made->zarr_format, format);
    EXPECT_EQ(made->fill_value, "?");
    ASSERT_TRUE(
        WriteZarrStrings(context, url, core::Region({1, 0}, {3, 1}), {"", "h\xc3\xa9"}).ok());
    const Result<std::vector<std::string>> all =
        ReadZarrStrings(context, url, core::Region({0, 0}, {3, 2}));
    ASSERT_TRUE(all.ok()) << all.status().ToString();
    EXPECT_EQ(*all, (std::vector<std::string>{"?", "?", "", "?", "h\xc3\xa9", "?"}));
    // Outside the array: InvalidArgument naming the URL.
    const Status outside = WriteZarrStrings(context, url, core::Region({2, 0}, {4, 1}), {"a", "b"});
    EXPECT_EQ(outside.code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(Message(outside), HasSubstr(url));
    // Again at the same URL: refused without overwrite, replaced with it.
    EXPECT_EQ(CreateZarrStringArray(context, url, {.shape = {1}, .chunks = {1}}).status().code(),
              StatusCode::kInvalidArgument);
    EXPECT_TRUE(
        CreateZarrStringArray(context, url, {.shape = {1}, .chunks = {1}}, {.overwrite = true})
            .ok());
  }
}

TEST(ZarrStringsApi, VariableLengthBytesAreCreatedWrittenAndReadAsBytes) {
  Context context;
  const std::string zero_ff("\x00\xff", 2);  // Not UTF-8: text would refuse it.
  for (const int format : {3, 2}) {
    const std::string url =
        (FreshDirectory("bytes_v" + std::to_string(format)) / "b.zarr").string();
    const Result<ZarrStringArrayInfo> made = CreateZarrStringArray(
        context, url,
        {.shape = {3}, .chunks = {2}, .fill_value = zero_ff, .bytes = true, .zarr_format = format});
    ASSERT_TRUE(made.ok()) << made.status().ToString();
    EXPECT_TRUE(made->bytes);
    ASSERT_TRUE(WriteZarrStrings(context, url, core::Region({1}, {3}), {"\xfe", ""}).ok());
    const Result<ZarrStringArrayInfo> described = DescribeZarrStringArray(context, url);
    ASSERT_TRUE(described.ok()) << described.status().ToString();
    EXPECT_TRUE(described->bytes);
    EXPECT_EQ(described->fill_value, zero_ff);
    const Result<std::vector<std::string>> all =
        ReadZarrStrings(context, url, core::Region({0}, {3}));
    ASSERT_TRUE(all.ok()) << all.status().ToString();
    EXPECT_EQ(*all, (std::vector<std::string>{zero_ff, "\xfe", ""}));
  }
}

TEST(ZarrStringsApi, StringsExportToAFixedWidthUnicodeNpyAsNumpySavesThem) {
  Context context;
  const std::filesystem::path dir = FreshDirectory("strings_npy");
  const std::string url = (dir / "s.zarr").string();
  ASSERT_TRUE(
      CreateZarrStringArray(context, url, {.shape = {4}, .chunks = {3}, .fill_value = "?"}).ok());
  ASSERT_TRUE(WriteZarrStrings(context, url, core::Region({0}, {3}), {"a", "h\xc3\xa9", ""}).ok());
  const Result<std::size_t> width =
      ExportZarrStringsToNpy(context, url, core::Region({0}, {4}), dir / "s.npy");
  ASSERT_TRUE(width.ok()) << width.status().ToString();
  EXPECT_EQ(*width, 2u);  // "hé": two code points.
  const Result<core::NpyArray> npy = io::ReadNpy(dir / "s.npy");
  ASSERT_TRUE(npy.ok()) << npy.status().ToString();
  EXPECT_EQ(npy->dtype.typestr(), "<U2");
  EXPECT_EQ(npy->shape, (std::vector<std::int64_t>{4}));
  // UTF-32 little-endian code points, NUL-padded to the width.
  const Bytes expected = {'a', 0, 0, 0, 0, 0, 0, 0, 'h', 0, 0, 0, 0xe9, 0, 0, 0,
                          0,   0, 0, 0, 0, 0, 0, 0, '?', 0, 0, 0, 0,    0, 0, 0};
  EXPECT_EQ(npy->data, expected);
  // Bytes have no .npy dtype that keeps them whole: Unsupported naming the URL.
  const std::string bytes_url = (dir / "b.zarr").string();
  ASSERT_TRUE(
      CreateZarrStringArray(context, bytes_url, {.shape = {1}, .chunks = {1}, .bytes = true}).ok());
  const Status refused =
      ExportZarrStringsToNpy(context, bytes_url, core::Region({0}, {1}), dir / "b.npy").status();
  EXPECT_EQ(refused.code(), StatusCode::kUnsupported) << refused.ToString();
  EXPECT_THAT(Message(refused), HasSubstr(bytes_url));
}

TEST(ZarrStringsApi, BadSpecsAndChunksAreRefusedNamingThem) {
  Context context;
  const std::filesystem::path dir = FreshDirectory("strings_bad");
  const std::string url = (dir / "s.zarr").string();
  const Status v2_shards =
      CreateZarrStringArray(
          context, url, {.shape = {4}, .chunks = {2}, .shards = core::Shape{4}, .zarr_format = 2})
          .status();
  EXPECT_EQ(v2_shards.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(v2_shards.field(), "zarr_format") << v2_shards.ToString();
  // A chunk whose crc32c (the default checksum) does not match, and one
  // whose length runs past its bytes: Corruption naming its key.
  for (const std::optional<ChunkChecksum> checksum :
       {std::optional<ChunkChecksum>(), std::optional(ChunkChecksum::kNone)}) {
    ASSERT_TRUE(CreateZarrStringArray(
                    context, url, {.shape = {4}, .chunks = {2}, .codecs = {}, .checksum = checksum},
                    {.overwrite = true})
                    .ok());
    ASSERT_TRUE(WriteZarrStrings(context, url, core::Region({0}, {2}), {"ab", "c"}).ok());
    {
      std::ofstream chunk(dir / "s.zarr" / "c" / "0", std::ios::binary | std::ios::trunc);
      chunk.write("\x02\x00\x00\x00\xff\x00\x00\x00ab", 10);
    }
    const Result<std::vector<std::string>> read =
        ReadZarrStrings(context, url, core::Region({0}, {1}));
    EXPECT_EQ(read.status().code(), StatusCode::kCorruption);
    EXPECT_THAT(Message(read.status()), HasSubstr("c/0"));
  }
}

}  // namespace
}  // namespace chunkwise
