#include "formats/dvid/export_chunk_index.h"

#include <gtest/gtest.h>

#include <string>

namespace chunkwise::formats::dvid {
namespace {

void ExpectFault(const Result<ChunkIndex>& result, std::string_view where, std::string_view what) {
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kCorruption);
  const std::string message(result.status().message());
  EXPECT_NE(message.find(where), std::string::npos) << message;
  EXPECT_NE(message.find(what), std::string::npos) << message;
}

TEST(ExportChunkIndex, RecordFormRoundTrip) {
  ChunkIndex index;
  index.rows = {{{1, 1, 0}, 0}, {{2, 1, 0}, 1}, {{2, 2, 1}, 2}, {{-5, 7, -2147483647 - 1}, 3}};
  const std::string text = FormatChunkIndex(index);
  EXPECT_EQ(text, "x,y,z,rec\n1,1,0,0\n2,1,0,1\n2,2,1,2\n-5,7,-2147483648,3\n");
  auto parsed = ParseChunkIndex(text, "0_0_0.csv", {4, std::nullopt});
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(*parsed, index);
}

TEST(ExportChunkIndex, OffsetsFormRoundTrip) {
  ChunkIndex index;
  index.form = ChunkIndexForm::kOffsets;
  index.schema_size = 688;
  index.rows = {{{480, 384, 448}, 0, 688, 1312, 0}, {{481, 384, 448}, 0, 2000, 900, 0}};
  const std::string text = FormatChunkIndex(index);
  EXPECT_EQ(text,
            "# schema_size=688\nx,y,z,offset,size,batch_idx\n480,384,448,688,1312,0\n"
            "481,384,448,2000,900,0\n");
  auto parsed = ParseChunkIndex(text, "s0/a.csv", {std::nullopt, 2900});
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(*parsed, index);
}

TEST(ExportChunkIndex, AcceptsCrlfMissingNewlineTransitionalHeaderAndZeroSchemaSize) {
  auto crlf = ParseChunkIndex("x,y,z,rec\r\n1,2,3,0\r\n4,5,6,1", "a.csv");
  ASSERT_TRUE(crlf.ok()) << crlf.status().ToString();
  ASSERT_EQ(crlf->rows.size(), 2u);
  EXPECT_EQ(crlf->rows[1].chunk, (std::array<std::int32_t, 3>{4, 5, 6}));
  EXPECT_EQ(crlf->rows[1].rec, 1);
  auto transitional = ParseChunkIndex("x,y,z,offset,size,batch_idx\n1,2,3,100,50,0\n", "a.csv");
  ASSERT_TRUE(transitional.ok());
  EXPECT_FALSE(transitional->schema_size.has_value());
  auto lazy =
      ParseChunkIndex("# schema_size=0\nx,y,z,offset,size,batch_idx\n1,2,3,0,800,0\n", "a.csv");
  ASSERT_TRUE(lazy.ok());
  EXPECT_EQ(lazy->schema_size, 0u);
}

TEST(ExportChunkIndex, SortsByZYX) {
  ChunkIndex index;
  index.rows = {{{2, 0, 1}, 0}, {{9, 9, 0}, 1}, {{1, 0, 1}, 2}, {{0, 1, 0}, 3}};
  SortChunkIndexRows(index);
  EXPECT_EQ(index.rows[0].chunk, (std::array<std::int32_t, 3>{0, 1, 0}));
  EXPECT_EQ(index.rows[1].chunk, (std::array<std::int32_t, 3>{9, 9, 0}));
  EXPECT_EQ(index.rows[2].chunk, (std::array<std::int32_t, 3>{1, 0, 1}));
  EXPECT_EQ(index.rows[3].chunk, (std::array<std::int32_t, 3>{2, 0, 1}));
}

TEST(ExportChunkIndex, RowPastRecordCountIsRefusedWithItsLine) {
  ExpectFault(ParseChunkIndex("x,y,z,rec\n0,0,0,0\n\n1,0,0,2\n", "s1/x.csv", {2, std::nullopt}),
              "s1/x.csv:4:", "rec 2 points past the 2 records");
}

TEST(ExportChunkIndex, ByteRangePastTheDataIsRefused) {
  ExpectFault(ParseChunkIndex("# schema_size=8\nx,y,z,offset,size,batch_idx\n0,0,0,900,200,0\n",
                              "b.csv", {std::nullopt, 1000}),
              "b.csv:3:", "runs past the 1000-byte shard");
  ExpectFault(ParseChunkIndex("x,y,z,offset,size,batch_idx\n0,0,0,18446744073709551615,2,0\n",
                              "b.csv", {std::nullopt, 1000}),
              "b.csv:2:", "runs past");
  ExpectFault(ParseChunkIndex("x,y,z,offset,size,batch_idx\n0,0,0,16,4,0\n", "b.csv"),
              "b.csv:2:", "below 8 bytes");
}

TEST(ExportChunkIndex, MalformedRowsAreRefusedWithTheirLine) {
  ExpectFault(ParseChunkIndex("x,y,z,rec\n1,2,3\n", "m.csv"), "m.csv:2:", "3 fields, expected 4");
  ExpectFault(ParseChunkIndex("x,y,z,rec\n1,2,3,4,5\n", "m.csv"), "m.csv:2:", "5 fields");
  ExpectFault(ParseChunkIndex("x,y,z,rec\n1,two,3,0\n", "m.csv"),
              "m.csv:2:", "y 'two' is not an int32");
  ExpectFault(ParseChunkIndex("x,y,z,rec\n2147483648,0,0,0\n", "m.csv"),
              "m.csv:2:", "x '2147483648'");
  ExpectFault(ParseChunkIndex("x,y,z,rec\n1,2,3,-1\n", "m.csv"), "m.csv:2:", "rec '-1'");
  ExpectFault(ParseChunkIndex("x,y,z,rec\n1,2,3,1.5\n", "m.csv"), "m.csv:2:", "rec '1.5'");
  ExpectFault(ParseChunkIndex("x,y,z,rec\n1,2,3,0\n1,2,3,1\n", "m.csv"),
              "m.csv:3:", "already listed on line 2");
  ExpectFault(ParseChunkIndex("x,y,z,offset,size,batch_idx\n1,2,3,100,x,0\n", "m.csv"),
              "m.csv:2:", "non-negative integers");
}

TEST(ExportChunkIndex, BadHeadersAreRefused) {
  ExpectFault(ParseChunkIndex("", "h.csv"), "h.csv", "no header");
  ExpectFault(ParseChunkIndex("x,y,z,record\n", "h.csv"), "h.csv:1:", "header 'x,y,z,record'");
  ExpectFault(ParseChunkIndex("# schema_size=abc\nx,y,z,offset,size,batch_idx\n", "h.csv"),
              "h.csv:1:", "schema_size 'abc'");
  ExpectFault(ParseChunkIndex("# schema_size=10\nx,y,z,rec\n", "h.csv"),
              "h.csv:2:", "before a 'x,y,z,rec'");
}

}  // namespace
}  // namespace chunkwise::formats::dvid
