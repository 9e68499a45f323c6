#include "chunkwise/core/csv.h"

#include <gtest/gtest.h>

#include <cstring>

namespace chunkwise::core {
namespace {

TEST(Csv, InfersColumnDtypesAndQuotes) {
  auto array =
      ParseCsv("id,score,name,ok\r\n1,2.5,\"a,\"\"b\"\"\",True\n-7,1e3,c,false\n", "t.csv");
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  EXPECT_EQ(array->dtype.ToDescr(),
            "[('id', '<i8'), ('score', '<f8'), ('name', '|S5'), ('ok', '|b1')]");
  ASSERT_EQ(array->shape, (std::vector<std::int64_t>{2}));
  std::int64_t id;
  double score;
  std::memcpy(&id, array->data.data() + 22, 8);
  std::memcpy(&score, array->data.data() + 22 + 8, 8);
  EXPECT_EQ(id, -7);
  EXPECT_EQ(score, 1000.0);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(array->data.data() + 16), 5), "a,\"b\"");
  EXPECT_EQ(array->data[21], 1);
}

TEST(Csv, FormatReadsBackExactly) {
  auto array = ParseCsv("x,s\n0.1,\"q,r\"\n3,t\n", "t.csv");
  ASSERT_TRUE(array.ok());
  auto text = FormatCsv(*array);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "x,s\n0.10000000000000001,\"q,r\"\n3,t\n");
  EXPECT_EQ(ParseCsv(*text, "again")->data, array->data);
}

TEST(Csv, ErrorsNameTheFileAndRecord) {
  for (auto [text, fragment] : {std::pair{"", "no header"},
                                {"a,a\n1,2\n", "repeated"},
                                {"a,b\n1\n", "record 2 has 1 fields"},
                                {"a\n\"x\n", "unterminated"}}) {
    auto array = ParseCsv(text, "in.csv");
    ASSERT_FALSE(array.ok()) << text;
    EXPECT_NE(array.status().message().find("in.csv"), std::string::npos);
    EXPECT_NE(array.status().message().find(fragment), std::string::npos)
        << array.status().ToString();
  }
  NpyArray complex_array{*NpyDtype::FromTypestr("<c8"), {1}, false, Bytes(8)};
  EXPECT_EQ(FormatCsv(complex_array).status().code(), StatusCode::kUnsupported);
}

}  // namespace
}  // namespace chunkwise::core
