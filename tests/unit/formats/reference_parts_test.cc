#include "formats/refs/reference_parts.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "formats/refs/json_writer.h"

namespace chunkwise::formats::refs {
namespace {

using store::Reference;

Reference Text(std::string_view text) { return Reference::Inline(CopyToBytes(AsBytes(text))); }

// A set of `n` range references "a/<i>" into one file, plus metadata.
ReferenceSet Whole(int n) {
  ReferenceSet set;
  set.Set(".zarray", Text("{\"zarr_format\":2}"));
  for (int i = 0; i < n; ++i) {
    set.Set("a/" + std::to_string(i), Reference::Range("/data/shard", 100 * i, 90 + i));
  }
  const std::uint8_t binary[] = {0, 255, 7};
  set.Set("b/0", Reference::Inline(Bytes(std::begin(binary), std::end(binary))));
  set.Set("c/0", Reference::WholeFile("/data/c0"));
  return set;
}

// Part `rank` of `size`: the metadata, and the chunks i with i % size == rank.
ReferenceSet Part(const ReferenceSet& whole, int rank, int size) {
  ReferenceSet part;
  int i = 0;
  for (const auto& [key, reference] : whole.entries()) {
    if (key == ".zarray" || i++ % size == rank) part.Set(key, reference);
  }
  return part;
}

std::string Json(const ReferenceSet& set) {
  Result<std::string> text = FormatReferenceJson(set, {});
  EXPECT_TRUE(text.ok()) << text.status().ToString();
  return text.ok() ? *text : "";
}

TEST(ReferencePartsTest, MergedPartsWriteTheWholeSetsBytes) {
  const ReferenceSet whole = Whole(25);
  for (const int size : {1, 2, 3, 7}) {
    std::vector<std::string> parts;
    for (int rank = 0; rank < size; ++rank) {
      Result<std::string> encoded = EncodeReferencePart(Part(whole, rank, size));
      ASSERT_TRUE(encoded.ok()) << encoded.status().ToString();
      parts.push_back(*encoded);
    }
    Result<ReferenceSet> merged = MergeReferenceParts(parts);
    ASSERT_TRUE(merged.ok()) << merged.status().ToString();
    EXPECT_EQ(merged->size(), whole.size()) << size << " parts";
    EXPECT_EQ(Json(*merged), Json(whole)) << size << " parts";
  }
}

TEST(ReferencePartsTest, AKeyWithTwoDifferentReferencesIsRefusedNamingBoth) {
  ReferenceSet first;
  first.Set("s0/1_2_3", Reference::Range("/export/s0/a.arrow", 10, 20));
  ReferenceSet second;
  second.Set("s0/1_2_3", Reference::Range("/export/s0/b.arrow", 30, 40));
  const Result<ReferenceSet> merged =
      MergeReferenceParts({*EncodeReferencePart(first), *EncodeReferencePart(second)});
  ASSERT_EQ(merged.status().code(), StatusCode::kInvalidArgument);
  const std::string message(merged.status().message());
  EXPECT_NE(message.find("s0/1_2_3"), std::string::npos) << message;
  EXPECT_NE(message.find("/export/s0/a.arrow [10, +20)"), std::string::npos) << message;
  EXPECT_NE(message.find("/export/s0/b.arrow [30, +40)"), std::string::npos) << message;
}

TEST(ReferencePartsTest, APartThatDoesNotParseIsNamed) {
  const Result<ReferenceSet> merged = MergeReferenceParts({"{\"version\":1,\"refs\":{}}", "{"});
  ASSERT_EQ(merged.status().code(), StatusCode::kCorruption) << merged.status().ToString();
  EXPECT_NE(merged.status().message().find("reference part 1"), std::string_view::npos)
      << merged.status().ToString();
}

TEST(ReferencePartsTest, NoPartsMergeToAnEmptySet) {
  const Result<ReferenceSet> merged = MergeReferenceParts({});
  ASSERT_TRUE(merged.ok());
  EXPECT_EQ(merged->size(), 0u);
}

}  // namespace
}  // namespace chunkwise::formats::refs
