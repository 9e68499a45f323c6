#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "chunkwise/store/file_store.h"
#include "formats/bcolz/dataset.h"

namespace chunkwise::formats::bcolz {
namespace {

using ::testing::HasSubstr;

// The corpus ctable whose column a holds 30 rows and b 10: an append cut
// short between columns. Reads see the 10 both hold; describing it says so
// instead of leaving the 20 rows to be noticed in the column shapes.
std::shared_ptr<store::Store> InterruptedAppend() {
  auto store = store::FileStore::Open(std::string(CHUNKWISE_SOURCE_DIR) +
                                      "/tests/corpus/bcolz-info/interrupted-append.bcolz");
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return store.ok() ? *store : nullptr;
}

TEST(DescribeDataset, ColumnsPastTheTablesLengthAreNamed) {
  Result<std::string> text = DescribeDataset(InterruptedAppend(), "");
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_THAT(*text, HasSubstr("bcolz ctable: 10 rows, 2 columns"));
  EXPECT_THAT(*text, HasSubstr("note: some columns hold up to 20 rows past the 10"));
  Result<nlohmann::ordered_json> json = DescribeDatasetJson(InterruptedAppend(), "");
  ASSERT_TRUE(json.ok()) << json.status().ToString();
  EXPECT_EQ((*json)["length"], 10);
  EXPECT_EQ((*json)["rows_past_length"], 20);
}

}  // namespace
}  // namespace chunkwise::formats::bcolz
