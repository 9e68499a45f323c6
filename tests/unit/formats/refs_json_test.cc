#include <gtest/gtest.h>

#include <string>

#include "chunkwise/store/file_store.h"
#include "core/base64.h"
#include "core/file_io.h"
#include "formats/refs/json_reader.h"
#include "formats/refs/json_writer.h"
#include "formats/refs/reference_template.h"
#include "unit/scratch_directory.h"

namespace chunkwise::formats::refs {
namespace {

using store::Reference;

std::string Text(const Reference& reference) { return std::string(AsChars(reference.data)); }

Reference Get(const ReferenceSet& set, std::string_view key) {
  auto found = set.Find(key);
  EXPECT_TRUE(found.ok());
  EXPECT_TRUE(found->has_value()) << key;
  return found->value_or(Reference());
}

TEST(RefsBase64, RoundTripsEveryLength) {
  for (std::size_t n = 0; n < 10; ++n) {
    Bytes data;
    for (std::size_t i = 0; i < n; ++i) data.push_back(static_cast<std::uint8_t>(i * 37 + 250));
    const std::string text = core::EncodeBase64(data);
    auto decoded = core::DecodeBase64(text);
    ASSERT_TRUE(decoded.ok()) << text;
    EXPECT_EQ(*decoded, data);
  }
  EXPECT_EQ(core::EncodeBase64(AsBytes("hello")), "aGVsbG8=");
  EXPECT_EQ(core::DecodeBase64("aGV").status().code(), StatusCode::kInvalidArgument);
  for (const auto& [text, position] :
       {std::pair<std::string_view, std::string_view>{"a=Vs", "position 1"},
        {"aG!s", "position 2"}}) {
    const Result<Bytes> decoded = core::DecodeBase64(text);
    EXPECT_EQ(decoded.status().code(), StatusCode::kInvalidArgument) << text;
    EXPECT_NE(decoded.status().message().find(position), std::string_view::npos)
        << decoded.status().ToString();
  }
}

TEST(RefsTemplate, RendersArithmeticAndVariables) {
  TemplateVariables variables{{"i", std::int64_t{3}}, {"u", std::string("s3://b/x")}};
  EXPECT_EQ(*RenderTemplate("{{u}}/p{{i}}.bin", variables), "s3://b/x/p3.bin");
  EXPECT_EQ(*RenderTemplate("{{ (i + 1) * 1000 }}", variables), "4000");
  EXPECT_EQ(*RenderTemplate("{{ -7 // 2 }} {{ -7 % 2 }} {{ 8 / 2 }}", variables), "-4 1 4");
  EXPECT_EQ(*RenderTemplate("{{ u ~ '-' ~ i }}", variables), "s3://b/x-3");
  EXPECT_EQ(RenderTemplate("{{ j }}", variables).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RenderTemplate("{{ i | string }}", variables).status().code(),
            StatusCode::kUnsupported);
  EXPECT_FALSE(RenderTemplate("{{ 7 / 2 }}", variables).ok());
  EXPECT_FALSE(RenderTemplate("{{ i / 0 }}", variables).ok());
  EXPECT_FALSE(RenderTemplate("{{ i ", variables).ok());
}

TEST(RefsJsonReader, ReadsVersion0) {
  const std::string text = R"({
    ".zgroup": "{\"zarr_format\": 2}",
    "x/.zarray": {"chunks": [4], "dtype": "<f8"},
    "x/0": ["s3://bucket/mesh.nc", 30000, 73825960],
    "tiny/0": "base64:AAAAAAAA8D8=",
    "whole/0": ["https://host/blob.bin"],
    "esc": "a\"b\\c\u00e9\ud83d\ude00"
  })";
  auto set = ParseReferenceJson(text, "v0.json");
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  EXPECT_EQ(set->size(), 6u);
  EXPECT_EQ(Text(Get(*set, ".zgroup")), "{\"zarr_format\": 2}");
  EXPECT_EQ(Text(Get(*set, "x/.zarray")), R"({"chunks": [4], "dtype": "<f8"})");
  const Reference range = Get(*set, "x/0");
  EXPECT_EQ(range.kind, Reference::Kind::kRange);
  EXPECT_EQ(range.url, "s3://bucket/mesh.nc");
  EXPECT_EQ(range.offset, 30000u);
  EXPECT_EQ(range.length, 73825960u);
  const Reference tiny = Get(*set, "tiny/0");
  ASSERT_EQ(tiny.data.size(), 8u);
  EXPECT_EQ(tiny.data[7], 0x3F);
  EXPECT_EQ(tiny.data[6], 0xF0);
  EXPECT_EQ(Get(*set, "whole/0").kind, Reference::Kind::kWholeFile);
  EXPECT_EQ(Text(Get(*set, "esc")), "a\"b\\c\xC3\xA9\xF0\x9F\x98\x80");
}

TEST(RefsJsonReader, ReadsVersion1TemplatesAndGen) {
  const std::string text = R"({
    "refs": {".zgroup": "{\"zarr_format\": 2}", "a/0": ["{{u}}", 1024, 4096], "a/1": ["{{ u }}"]},
    "version": 1,
    "templates": {"u": "s3://bucket/gfs/2023010100.grib2"},
    "gen": [{
      "key": "t/{{i}}.{{j}}",
      "url": "s3://bucket/parts/p{{i}}.bin",
      "offset": "{{(i + 1) * 1000 + j}}",
      "length": "1000",
      "dimensions": {"i": {"start": 0, "stop": 5, "step": 1}, "j": [7, 9]}
    }, {"key": "w/{{k}}", "url": "{{u}}.{{k}}", "dimensions": {"k": {"stop": 2}}}],
    "ignored": "x"
  })";
  auto set = ParseReferenceJson(text, "v1.json");
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  EXPECT_EQ(set->size(), 3u + 10u + 2u);
  EXPECT_EQ(Get(*set, "a/0").url, "s3://bucket/gfs/2023010100.grib2");
  EXPECT_EQ(Get(*set, "a/1").url, "s3://bucket/gfs/2023010100.grib2");
  const Reference generated = Get(*set, "t/3.9");
  EXPECT_EQ(generated.url, "s3://bucket/parts/p3.bin");
  EXPECT_EQ(generated.offset, 4009u);
  EXPECT_EQ(generated.length, 1000u);
  EXPECT_EQ(Get(*set, "w/1").url, "s3://bucket/gfs/2023010100.grib2.1");
  EXPECT_EQ(Get(*set, "w/1").kind, Reference::Kind::kWholeFile);
  EXPECT_FALSE(set->Find("ignored")->has_value());
}

TEST(RefsJsonReader, Version0KeysNamedLikeSections) {
  auto set = ParseReferenceJson(R"({"refs": {"a": 1}, "gen": "text"})", "v0.json");
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  EXPECT_EQ(Text(Get(*set, "refs")), R"({"a": 1})");
  EXPECT_EQ(Text(Get(*set, "gen")), "text");
}

TEST(RefsJsonReader, RefusesMalformedInput) {
  const char* bad[] = {
      "",
      "[]",
      R"({"a": 1})",
      R"({"a": ["u", -1, 2]})",
      R"({"a": ["u", 1.5, 2]})",
      R"({"a": ["u", 1]})",
      R"({"a": "base64:###"})",
      R"({"a": ["u"] )",
      R"({"a": ["u"]} x)",
      R"({"version": 2})",
      R"({"version": 1, "refs": {"a": ["{{nope}}"]}})",
      R"({"version": 1, "gen": [{"key": "k{{i}}", "url": "u", "dimensions": {"i": {"stop": 99999999999}}}]})",
      R"({"version": 1, "gen": [{"key": "k", "url": "u", "offset": "1"}]})",
      "{\"a\": \"\x01\"}",
  };
  for (const char* text : bad) {
    JsonReadOptions options;
    options.max_generated_references = 1000;
    EXPECT_FALSE(ParseReferenceJson(text, "bad.json", options).ok()) << text;
  }
  std::string deep(100000, '[');
  EXPECT_FALSE(ParseReferenceJson("{\"a\": {\"b\": " + deep, "deep.json").ok());
}

ReferenceSet SampleSet() {
  ReferenceSet set;
  set.Set(".zgroup", Reference::Inline(CopyToBytes(AsBytes("{\"zarr_format\": 2}"))));
  set.Set("x/.zarray", Reference::Inline(CopyToBytes(AsBytes("{\n \"a\": \"\\u00e9\"\n}"))));
  const std::uint8_t binary[] = {0, 0xFF, 0x80, 1};
  set.Set("x/bin", Reference::Inline(CopyToBytes(binary)));
  set.Set("x/fake", Reference::Inline(CopyToBytes(AsBytes("base64:AAAA"))));
  set.Set("x/0", Reference::Range("/data/long/directory/shard.0", 16, 100));
  set.Set("x/1", Reference::Range("/data/long/directory/shard.0", 116, 0));
  set.Set("x/2", Reference::WholeFile("/data/long/directory/whole"));
  set.Set("x/3", Reference::WholeFile("relative.bin"));
  return set;
}

void ExpectSameSet(const ReferenceSet& a, const ReferenceSet& b) {
  ASSERT_EQ(a.size(), b.size());
  for (auto ia = a.entries().begin(), ib = b.entries().begin(); ia != a.entries().end();
       ++ia, ++ib) {
    const ReferenceSet::Entry x = *ia, y = *ib;
    EXPECT_EQ(x.key, y.key);
    EXPECT_EQ(x.reference.kind, y.reference.kind) << x.key;
    EXPECT_EQ(AsChars(x.reference.data), AsChars(y.reference.data)) << x.key;
    EXPECT_EQ(x.reference.url, y.reference.url) << x.key;
    EXPECT_EQ(x.reference.offset, y.reference.offset) << x.key;
    EXPECT_EQ(x.reference.length, y.reference.length) << x.key;
  }
}

TEST(RefsJsonWriter, RoundTripsBothVersions) {
  const ReferenceSet set = SampleSet();
  for (const JsonVersion version : {JsonVersion::kV0, JsonVersion::kV1}) {
    for (const bool templates : {false, true}) {
      auto text = FormatReferenceJson(set, {version, templates});
      ASSERT_TRUE(text.ok());
      auto back = ParseReferenceJson(*text, "written.json");
      ASSERT_TRUE(back.ok()) << back.status().ToString() << "\n" << *text;
      ExpectSameSet(set, *back);
    }
  }
}

TEST(RefsJsonWriter, TemplatesShortenSharedDirectories) {
  auto text = FormatReferenceJson(SampleSet(), {JsonVersion::kV1, true});
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find(R"("templates":{"u0":"/data/long/directory/"})"), std::string::npos)
      << *text;
  EXPECT_NE(text->find(R"(["{{u0}}shard.0",16,100])"), std::string::npos) << *text;
  EXPECT_NE(text->find(R"("x/bin":"base64:AP+AAQ==")"), std::string::npos) << *text;
  EXPECT_NE(text->find(R"("x/fake":"base64:YmFzZTY0OkFBQUE=")"), std::string::npos) << *text;
}

TEST(RefsJsonWriter, WritesAtomicallyAndRefusesExistingOutput) {
  const auto dir = test::FreshScratchDirectory("refs_json");
  std::filesystem::create_directories(dir);
  auto store = store::FileStore::Open(dir);
  ASSERT_TRUE(store.ok());
  store::Store& files = **store;
  ASSERT_TRUE(WriteReferenceJson(files, "refs.json", SampleSet(), {}, false).ok());
  EXPECT_TRUE(std::filesystem::is_regular_file(dir / "refs.json"));
  const Status again = WriteReferenceJson(files, "refs.json", SampleSet(), {}, false);
  EXPECT_EQ(again.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(again.ToString().find((dir / "refs.json").string()), std::string::npos);
  ASSERT_TRUE(
      WriteReferenceJson(files, "refs.json", SampleSet(), {JsonVersion::kV0, false}, true).ok());
  EXPECT_EQ(ReadReferenceJson(files, "none.json").status().code(), StatusCode::kNotFound);
  auto back = ReadReferenceJson(files, "refs.json");
  ASSERT_TRUE(back.ok());
  ExpectSameSet(SampleSet(), *back);
}

// Reads `text` sequentially and cut into parts of a few bytes on 4 threads.
void ExpectParallelReadsTheSame(const std::string& text) {
  JsonReadOptions sequential, parallel;
  sequential.threads = 1;
  parallel.threads = 4;
  parallel.min_part_bytes = 16;
  auto expected = ParseReferenceJson(text, "s.json", sequential);
  auto actual = ParseReferenceJson(text, "p.json", parallel);
  ASSERT_EQ(expected.ok(), actual.ok()) << text;
  if (!expected.ok()) {
    EXPECT_EQ(expected.status().code(), actual.status().code());
    return;
  }
  ExpectSameSet(*expected, *actual);
}

TEST(RefsJsonReader, ParallelPartsReadAsOneSequentialPass) {
  std::string v0 = "{\n", v1 = "{\"version\": 1, \"templates\": {\"d\": \"/data\"},\n\"refs\": {\n";
  for (int i = 0; i < 200; ++i) {
    const std::string entry = "\"x/" + std::to_string(i) + "\": [\"{{d}}/f" +
                              std::to_string(i % 7) + "\", " + std::to_string(i * 10) + ", 10]";
    v0 += (i ? ",\n" : "") + entry;
    v1 += (i ? ",\n  " : "") + entry;
  }
  ExpectParallelReadsTheSame(v0 + "\n}\n");
  ExpectParallelReadsTheSame(v1 + "\n}}\n");
  // Values spread over lines (a cut may land inside them), duplicates (the last wins),
  // keys named like sections, and errors late in the text.
  std::string mixed = "{\n\"a/.zarray\": {\n \"chunks\": [\n1,\n2],\n \"b\": {\"c\": \"d\"}\n},\n";
  for (int i = 0; i < 100; ++i) {
    mixed += "\"k" + std::to_string(i % 60) + "\": [\n\"u\",\n" + std::to_string(i) + ",\n1\n],\n";
  }
  ExpectParallelReadsTheSame(mixed + "\"z\": \"end\"\n}");
  ExpectParallelReadsTheSame(mixed + "\"refs\": {\"q\": 1}\n}");
  ExpectParallelReadsTheSame(mixed + "\"z\": 5\n}");
  ExpectParallelReadsTheSame(v0 + ",\n\"bad\": [\"u\", -1, 2]\n}");
}

}  // namespace
}  // namespace chunkwise::formats::refs
