// Ctable and Predicate: column layout, append/select/filter, add/remove
// columns, uneven columns after a crash, and the predicate grammar.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "formats/bcolz/ctable.h"
#include "store/memory_store.h"

namespace chunkwise::formats::bcolz {
namespace {

core::NpyDtype Dtype(const char* text) {
  auto dtype = DtypeFromString(text);
  CHUNKWISE_CHECK(dtype.ok());
  return *dtype;
}

constexpr const char* kRowDtype =
    "[('id', '<i8'), ('x', '<f8'), ('tag', '|S3'), ('v', '<u2', (2,))]";
constexpr std::size_t kRowSize = 8 + 8 + 3 + 4;

// Row i: id = i, x = i / 4, tag = "t" + (i % 3), v = (i, 2i).
Bytes Rows(std::int64_t first, std::int64_t count) {
  Bytes rows(static_cast<std::size_t>(count) * kRowSize);
  for (std::int64_t k = 0; k < count; ++k) {
    const std::int64_t i = first + k;
    std::uint8_t* p = rows.data() + k * kRowSize;
    const double x = static_cast<double>(i) / 4;
    std::memcpy(p, &i, 8);
    std::memcpy(p + 8, &x, 8);
    const char tag[3] = {'t', static_cast<char>('0' + i % 3), 0};
    std::memcpy(p + 16, tag, 3);
    const std::uint16_t v[2] = {static_cast<std::uint16_t>(i), static_cast<std::uint16_t>(2 * i)};
    std::memcpy(p + 19, v, 4);
  }
  return rows;
}

std::int64_t IdAt(const core::NpyArray& array, std::size_t row) {
  std::int64_t id;
  std::memcpy(&id, array.data.data() + row * array.dtype.itemsize(), 8);
  return id;
}

std::unique_ptr<Ctable> MakeTable(std::shared_ptr<store::Store> store, std::int64_t rows) {
  CarrayOptions base;
  base.chunklen = 16;
  auto columns = Ctable::ColumnsFor(Dtype(kRowDtype), base);
  CHUNKWISE_CHECK(columns.ok());
  auto table = Ctable::Create(store, "t/", *columns);
  CHUNKWISE_CHECK(table.ok());
  CHUNKWISE_CHECK((*table)->Append(Dtype(kRowDtype), Rows(0, rows)).ok());
  return std::move(table).value();
}

TEST(Ctable, LayoutAndRoundTrip) {
  auto store = store::MemoryStore::Create();
  auto table = MakeTable(store, 100);
  ASSERT_TRUE(table->Flush().ok());
  EXPECT_EQ(AsChars(**store->Get("t/__rootdirs__")), "{\"names\":[\"id\",\"x\",\"tag\",\"v\"]}\n");
  EXPECT_TRUE(*store->Exists("t/__attrs__"));
  EXPECT_TRUE(*store->Exists("t/v/meta/storage"));
  EXPECT_TRUE(*store->Exists("t/tag/data/__6.blp"));
  EXPECT_EQ(AsChars(**store->Get("t/v/meta/sizes")).substr(0, 17), "{\"shape\":[100,2],");
  auto reopened = *Ctable::Open(store, "t/", Mode::kRead);
  EXPECT_EQ(reopened->length(), 100);
  auto all = reopened->Read(0, 100, {});
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(all->dtype, Dtype(kRowDtype));
  EXPECT_EQ(all->data, Rows(0, 100));
  auto some = reopened->Read(10, 12, {"v", "id"});
  ASSERT_TRUE(some.ok());
  EXPECT_EQ(some->dtype.ToDescr(), "[('v', '<u2', (2,)), ('id', '<i8')]");
  EXPECT_EQ(IdAt(*some, 0) & 0xffff, 10);  // v[0] of row 10 comes first.
  EXPECT_EQ(reopened->Read(0, 101, {}).status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(reopened->Read(0, 1, {"nope"}).status().code(), StatusCode::kNotFound);
}

TEST(Ctable, WhereFiltersChunkByChunk) {
  auto store = store::MemoryStore::Create();
  auto table = MakeTable(store, 100);
  auto predicate = *Predicate::Parse("(id >= 10) & (x < 20) & ~(tag == 't1') | id == 99");
  auto hits = table->Where(predicate, {"id"}, 0, 100);
  ASSERT_TRUE(hits.ok()) << hits.status().ToString();
  std::vector<std::int64_t> expected;
  for (std::int64_t i = 0; i < 100; ++i) {
    if ((i >= 10 && i / 4.0 < 20 && i % 3 != 1) || i == 99) expected.push_back(i);
  }
  ASSERT_EQ(hits->shape[0], static_cast<std::int64_t>(expected.size()));
  for (std::size_t r = 0; r < expected.size(); ++r) EXPECT_EQ(IdAt(*hits, r), expected[r]);
  auto none = table->Where(*Predicate::Parse("x > 1e9"), {}, 0, 100);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->shape[0], 0);
  auto ranged = table->Where(*Predicate::Parse("5 < id"), {"id"}, 0, 8);
  ASSERT_TRUE(ranged.ok());
  EXPECT_EQ(ranged->shape[0], 2);
  EXPECT_EQ(table->Where(*Predicate::Parse("tag > 3"), {}, 0, 100).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(table->Where(*Predicate::Parse("zz > 3"), {}, 0, 100).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(Ctable, AddAndRemoveColumns) {
  auto store = store::MemoryStore::Create();
  auto table = MakeTable(store, 20);
  ColumnSpec spec{"w", {}};
  spec.options.dtype = Dtype("int32");
  Bytes values(20 * 4, 7);
  ASSERT_TRUE(table->AddColumn(spec, values).ok());
  EXPECT_EQ(table->AddColumn(spec, values).code(), StatusCode::kInvalidArgument);
  spec.name = "short";
  EXPECT_EQ(table->AddColumn(spec, Bytes(4)).code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(table->RemoveColumn("x").ok());
  EXPECT_TRUE(store->List("t/x/")->empty());
  auto reopened = *Ctable::Open(store, "t/", Mode::kAppend);
  EXPECT_EQ(reopened->names(), (std::vector<std::string>{"id", "tag", "v", "w"}));
  EXPECT_EQ((*reopened->Read(3, 4, {"w"})).data, Bytes(4, 7));
  EXPECT_EQ(reopened->RemoveColumn("x").code(), StatusCode::kNotFound);
}

TEST(Ctable, OpenTrimsColumnsLeftUnevenByACrash) {
  auto store = store::MemoryStore::Create();
  {
    auto table = MakeTable(store, 40);
    ASSERT_TRUE(table->Flush().ok());
  }
  // As if a crash came after column "id" completed chunks for 20 more rows.
  auto id = *Carray::Open(store, "t/id/", Mode::kAppend);
  ASSERT_TRUE(id->Append(Bytes(20 * 8, 1)).ok());
  ASSERT_TRUE(id->Flush().ok());
  EXPECT_EQ((*Ctable::Open(store, "t/", Mode::kRead))->length(), 40);
  auto table = *Ctable::Open(store, "t/", Mode::kAppend);
  EXPECT_EQ(table->length(), 40);
  EXPECT_EQ((*Carray::Open(store, "t/id/", Mode::kRead))->length(), 40);
  EXPECT_EQ(table->Read(0, 40, {})->data, Rows(0, 40));
}

TEST(Ctable, RejectsMismatchedRowsAndBadNames) {
  auto store = store::MemoryStore::Create();
  auto table = MakeTable(store, 1);
  EXPECT_EQ(table->Append(Dtype("[('id', '<i4')]"), Bytes(4)).code(), StatusCode::kInvalidArgument);
  CarrayOptions base;
  auto columns = *Ctable::ColumnsFor(Dtype("[('a', '<i4')]"), base);
  columns[0].name = "../evil";
  EXPECT_EQ(Ctable::Create(store, "u/", columns).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Ctable::Open(store, "nothing/", Mode::kRead).status().code(), StatusCode::kNotFound);
}

TEST(Predicate, GrammarAndPrecedence) {
  const std::pair<const char*, const char*> cases[] = {
      {"a > 1", "(a > 1)"},
      {"a > 1 & b < 2 | c == 3", "(((a > 1) & (b < 2)) | (c == 3))"},
      {"a > 1 & (b < 2 | c == 3)", "((a > 1) & ((b < 2) | (c == 3)))"},
      {"~(a != -1.5e3)", "~(a != -1.5e3)"},
      {"2 <= a", "(a >= 2)"},
      {"name == 'x y'", "(name == 'x y')"},
      {"flag == True", "(flag == True)"},
  };
  for (const auto& [text, canonical] : cases) {
    auto predicate = Predicate::Parse(text);
    ASSERT_TRUE(predicate.ok()) << text << ": " << predicate.status().ToString();
    EXPECT_EQ(predicate->ToString(), canonical);
  }
  for (const char* bad : {"", "a >", "a > 1 &", "(a > 1", "a ! 1", "a > 'x", "a > 1 b", "1 > 2",
                          "2 < True", "3 >= False"}) {
    EXPECT_EQ(Predicate::Parse(bad).status().code(), StatusCode::kInvalidArgument) << bad;
  }
  EXPECT_EQ(Predicate::Parse(std::string(1000, '(')).status().code(), StatusCode::kInvalidArgument);
  std::string long_chain = "a > 1";
  for (int i = 0; i < 200; ++i) long_chain += " & a > 1";
  EXPECT_EQ(Predicate::Parse(long_chain).status().code(), StatusCode::kInvalidArgument);
}

TEST(Predicate, ComparesEveryNumericKindAndByteOrder) {
  const std::uint8_t big[] = {0, 0, 1, 0, 0, 0, 0, 5};  // >i4: 256, 5
  auto predicate = *Predicate::Parse("a > 100");
  auto mask = predicate.Evaluate({{"a", {Dtype(">i4"), ByteView(big, 8), 4}}}, 2);
  EXPECT_EQ(mask, (std::vector<std::uint8_t>{1, 0}));
  const std::uint64_t huge[] = {~std::uint64_t{0}, 3};
  mask =
      (*Predicate::Parse("a >= 18446744073709551615"))
          .Evaluate(
              {{"a",
                {Dtype("uint64"), ByteView(reinterpret_cast<const std::uint8_t*>(huge), 16), 8}}},
              2);
  EXPECT_EQ(mask, (std::vector<std::uint8_t>{1, 0}));
  const char text[] = "ab\0\0cd\0\0";
  mask = (*Predicate::Parse("s != 'ab'"))
             .Evaluate({{"s", {Dtype("|S4"), AsBytes(std::string_view(text, 8)), 4}}}, 2);
  EXPECT_EQ(mask, (std::vector<std::uint8_t>{0, 1}));
}

// Comparisons are done as numpy 2 does them: the literal in the column's own type.
template <typename T>
std::vector<std::uint8_t> Mask(const char* predicate, const char* dtype, std::vector<T> values) {
  auto parsed = Predicate::Parse(predicate);
  EXPECT_TRUE(parsed.ok()) << predicate;
  const std::map<std::string, core::NpyDtype> dtypes{{"v", Dtype(dtype)}};
  EXPECT_TRUE(parsed->Check(dtypes).ok()) << predicate << ": " << parsed->Check(dtypes).ToString();
  const ByteView data(reinterpret_cast<const std::uint8_t*>(values.data()),
                      values.size() * sizeof(T));
  return parsed->Evaluate({{"v", {Dtype(dtype), data, sizeof(T)}}}, values.size());
}

TEST(Predicate, ComparesInTheColumnsOwnType) {
  using Bits = std::vector<std::uint8_t>;
  const double below = std::nextafter(0.9, 0.0), above = std::nextafter(0.9, 1.0);
  EXPECT_EQ(Mask("v == 0.9", "<f8", std::vector<double>{0.9, below, above}), (Bits{1, 0, 0}));
  EXPECT_EQ(Mask("v > 0.9", "<f8", std::vector<double>{0.9, below, above}), (Bits{0, 0, 1}));
  EXPECT_EQ(Mask("v == 0.9", "<f4", std::vector<float>{0.9F, 0.8F}), (Bits{1, 0}));
  EXPECT_EQ(Mask("v <= 0.9", "<f4", std::vector<float>{0.9F, std::nextafter(0.9F, 1.0F)}),
            (Bits{1, 0}));
  // 16777217 rounds to float32 16777216; 2049 to float16 2048 (0x6800).
  EXPECT_EQ(Mask("v == 16777217", "<f4", std::vector<float>{16777216.0F}), (Bits{1}));
  EXPECT_EQ(Mask("v == 2049", "<f2", std::vector<std::uint16_t>{0x6800, 0x6801}), (Bits{1, 0}));
  // An integer column against a float literal compares as float64, as numpy.
  const std::int64_t two53 = std::int64_t{1} << 53;
  EXPECT_EQ(Mask("v == 9007199254740992.0", "<i8", std::vector<std::int64_t>{two53 + 1}),
            (Bits{1}));
  // Integer against integer is exact at every magnitude.
  EXPECT_EQ(Mask("v == 9007199254740993", "<i8", std::vector<std::int64_t>{two53, two53 + 1}),
            (Bits{0, 1}));
  const std::int64_t min = std::numeric_limits<std::int64_t>::min();
  EXPECT_EQ(Mask("v > -9223372036854775809", "<i8", std::vector<std::int64_t>{min}), (Bits{1}));
  EXPECT_EQ(Mask("v < 18446744073709551616", "<u8", std::vector<std::uint64_t>{~0ULL}), (Bits{1}));
  EXPECT_EQ(Mask("v > -1", "<u8", std::vector<std::uint64_t>{0}), (Bits{1}));
  EXPECT_EQ(Mask("v == 0x10", "<i4", std::vector<std::int32_t>{16, 10}), (Bits{1, 0}));
  EXPECT_EQ(Mask("v != nan", "<f8", std::vector<double>{std::nan("")}), (Bits{1}));
}

TEST(Predicate, RefusesWhatNumpyRefuses) {
  auto refused = [](const char* text, const char* dtype) {
    const Status status = Predicate::Parse(text)->Check({{"v", Dtype(dtype)}});
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << text << " on " << dtype;
    EXPECT_NE(status.message().find("\"v\""), std::string::npos) << status.ToString();
  };
  const std::string too_big_for_float = "v < 1" + std::string(400, '0');
  refused(too_big_for_float.c_str(), "<f8");
  refused("v < 100000000000000000000", "|b1");
  refused("v > 1.5", "<M8[D]");
  refused("v > 'x'", "<i4");
  for (const char* bad : {"v > 1.2.3", "v > 0x", "v > 1e", "v > 0b2", "v > 12abc"}) {
    EXPECT_EQ(Predicate::Parse(bad).status().code(), StatusCode::kInvalidArgument) << bad;
  }
}

}  // namespace
}  // namespace chunkwise::formats::bcolz
