#include "formats/refs/reference_set.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace chunkwise::formats::refs {
namespace {

using store::Reference;

std::string Describe(const ReferenceView& reference) {
  switch (reference.kind) {
    case Reference::Kind::kInline:
      return "inline:" + std::string(AsChars(reference.data));
    case Reference::Kind::kWholeFile:
      return "file:" + std::string(reference.url);
    case Reference::Kind::kRange:
      return "range:" + std::string(reference.url) + "@" + std::to_string(reference.offset) + "+" +
             std::to_string(reference.length);
  }
  return "?";
}

// The set as key → description, in iteration order (checked sorted).
std::vector<std::pair<std::string, std::string>> Contents(const ReferenceSet& set) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [key, reference] : set.entries()) {
    out.emplace_back(std::string(key), Describe(reference));
  }
  EXPECT_TRUE(std::is_sorted(out.begin(), out.end()));
  EXPECT_EQ(out.size(), set.size());
  return out;
}

std::vector<std::pair<std::string, std::string>> Expected(
    const std::map<std::string, std::string>& model) {
  return {model.begin(), model.end()};
}

Reference Range(int n) { return Reference::Range("/f/" + std::to_string(n % 5), n, n + 1); }
std::string RangeText(int n) {
  return "range:/f/" + std::to_string(n % 5) + "@" + std::to_string(n) + "+" +
         std::to_string(n + 1);
}

TEST(ReferenceSet, KeepsKeysSortedAndTheLastValueInAnyOrder) {
  ReferenceSet set;
  std::map<std::string, std::string> model;
  // Sorted appends, out-of-order keys (enough to merge the side map several
  // times), and replacements of both kinds.
  for (int i = 0; i < 5000; ++i) {
    const int n = (i * 7919) % 3000;
    const std::string key = "k/" + std::to_string(n);
    set.Set(key, Range(i));
    model[key] = RangeText(i);
    if (i % 997 == 0) {
      const std::string past = "z/" + std::to_string(i);
      set.Set(past, Reference::Inline(CopyToBytes(AsBytes("v" + std::to_string(i)))));
      model[past] = "inline:v" + std::to_string(i);
    }
  }
  EXPECT_EQ(Contents(set), Expected(model));
  for (const auto& [key, description] : model) {
    auto found = set.Find(key);
    ASSERT_TRUE(found.ok() && found->has_value()) << key;
    EXPECT_EQ(Describe(ReferenceView::Of(**found)), description);
  }
  EXPECT_FALSE(set.Find("k/3000")->has_value());
}

TEST(ReferenceSet, ShadowedKeysCountOnceAndEraseRemovesEveryCopy) {
  ReferenceSet set;
  set.Set("a", Reference::WholeFile("/1"));
  set.Set("c", Reference::WholeFile("/3"));
  set.Set("b", Reference::WholeFile("/2"));   // Out of order: side map.
  set.Set("a", Reference::WholeFile("/1b"));  // Shadows the sorted "a".
  set.Set("c", Reference::WholeFile("/3b"));  // The last key: replaced in place.
  EXPECT_EQ(Contents(set), Expected({{"a", "file:/1b"}, {"b", "file:/2"}, {"c", "file:/3b"}}));
  EXPECT_EQ(*set.Keys("a"), std::vector<std::string>({"a"}));
  EXPECT_EQ(*set.Keys(""), std::vector<std::string>({"a", "b", "c"}));
  set.Erase("a");
  set.Erase("missing");
  EXPECT_EQ(Contents(set), Expected({{"b", "file:/2"}, {"c", "file:/3b"}}));
  EXPECT_FALSE(set.Find("a")->has_value());
}

TEST(ReferenceSet, AbsorbAppendsFollowingPartsAndMergesOthers) {
  ReferenceSet first, second, overlapping;
  first.Set("a/0", Reference::Range("/x", 0, 1));
  first.Set("a/1", Reference::Inline(CopyToBytes(AsBytes("one"))));
  second.Set("b/0", Reference::Range("/y", 2, 3));
  second.Set("b/1", Reference::Range("/x", 4, 5));
  overlapping.Set("a/1", Reference::WholeFile("/z"));
  first.Absorb(std::move(second));
  EXPECT_EQ(second.size(), 0u);
  first.Absorb(std::move(overlapping));
  EXPECT_EQ(Contents(first), Expected({{"a/0", "range:/x@0+1"},
                                       {"a/1", "file:/z"},
                                       {"b/0", "range:/y@2+3"},
                                       {"b/1", "range:/x@4+5"}}));
}

TEST(ReferenceSet, BuilderSortsOnceAndTheLastDuplicateWins) {
  ReferenceSetBuilder builder;
  std::map<std::string, std::string> model;
  for (int i = 0; i < 300; ++i) {
    const std::string key = "k" + std::to_string((i * 37) % 100);
    builder.Add(key, Range(i));
    model[key] = RangeText(i);
  }
  ReferenceSet set = builder.Build();
  EXPECT_EQ(Contents(set), Expected(model));
  // Continuing a set: additions replace its keys.
  ReferenceSetBuilder more(std::move(set));
  more.Add("k5", Reference::WholeFile("/new"));
  more.Add("a", Reference::WholeFile("/first"));
  model["k5"] = "file:/new";
  model["a"] = "file:/first";
  EXPECT_EQ(Contents(more.Build()), Expected(model));
}

TEST(ReferenceSet, CopiesAndTakesItsOwnViews) {
  ReferenceSet set;
  for (int i = 0; i < 100; ++i) set.Set("k" + std::to_string(i), Range(i));
  ReferenceSet copy = set;
  set.Set("k5", Reference::WholeFile("/changed"));
  EXPECT_EQ(Describe(ReferenceView::Of(**copy.Find("k5"))), RangeText(5));
  // A view of the set given back to it (valid until this Set), while its storage grows.
  for (int i = 0; i < 100; ++i) {
    for (const ReferenceSet::Entry entry : copy.entries()) {
      if (entry.key != "k" + std::to_string(i)) continue;
      copy.Set(std::string(entry.key) + "x", entry.reference);
      break;
    }
  }
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(Describe(ReferenceView::Of(**copy.Find("k" + std::to_string(i) + "x"))),
              RangeText(i));
  }
}

}  // namespace
}  // namespace chunkwise::formats::refs
