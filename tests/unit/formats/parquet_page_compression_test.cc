#include <gtest/gtest.h>

#include <string>

#include "formats/parquet/page_compression.h"

namespace chunkwise::formats::parquet {
namespace {

// A 6-byte snappy page (a varint of 2 GiB - 1 and a one-byte literal's tag)
// whose page header states the same size: snappy decodes at most 64 bytes a
// 3-byte copy, so it is Corruption naming the page before the size is
// allocated.
TEST(ParquetPageCompression, RefusesASnappyPageDeclaringMoreThanSnappyDecodes) {
  const Bytes page = {0xff, 0xff, 0xff, 0xff, 0x07, 0x00};
  const Status status =
      DecompressPage(page, static_cast<std::int32_t>(Compression::kSnappy), 0x7fffffff, "page 3")
          .status();
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
  EXPECT_NE(status.ToString().find("page 3: snappy page of 6 bytes declares 2147483647 decoded "
                                   "bytes, more than snappy decodes from it"),
            std::string::npos)
      << status.ToString();
}

// The bound is not tighter than snappy: 16 MiB of zeros, as dense as snappy
// writes them, decode.
TEST(ParquetPageCompression, DecodesTheDensestSnappyPages) {
  const Bytes zeros(std::size_t{16} << 20, 0);
  const Bytes page = *CompressPage(zeros, Compression::kSnappy, 0);
  EXPECT_GT(zeros.size() / page.size(), 15u);
  const Result<Bytes> decoded =
      DecompressPage(page, static_cast<std::int32_t>(Compression::kSnappy), zeros.size(), "page");
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(*decoded, zeros);
}

}  // namespace
}  // namespace chunkwise::formats::parquet
