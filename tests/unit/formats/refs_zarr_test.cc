#include <gtest/gtest.h>

#include <filesystem>

#include "chunkwise/store/file_store.h"
#include "chunkwise/store/reference_store.h"
#include "formats/refs/json_reader.h"
#include "formats/refs/json_writer.h"
#include "formats/refs/zarr_references.h"
#include "formats/zarr/array.h"
#include "unit/scratch_directory.h"
#include "unit/value_or_die.h"

namespace chunkwise::formats::refs {
namespace {

namespace fs = std::filesystem;
using core::DataType;
using core::DataTypeId;
using core::Region;
using core::Shape;
using nlohmann::json;
using zarr::Array;
using zarr::ArrayMetadata;

using test::ValueOrDie;

const json kBytesLittle = {{"name", "bytes"}, {"configuration", {{"endian", "little"}}}};
const json kBytesBig = {{"name", "bytes"}, {"configuration", {{"endian", "big"}}}};
const json kZstd = {{"name", "zstd"}, {"configuration", {{"level", 1}, {"checksum", false}}}};
const json kCrc = {{"name", "crc32c"}};

json Sharded(const Shape& inner, json inner_codecs, const char* location = "end") {
  return json::array({{{"name", "sharding_indexed"},
                       {"configuration",
                        {{"chunk_shape", inner},
                         {"codecs", std::move(inner_codecs)},
                         {"index_codecs", json::array({kBytesLittle, kCrc})},
                         {"index_location", location}}}}});
}

ArrayMetadata Metadata(int format, Shape shape, Shape chunks, json codecs) {
  ArrayMetadata metadata;
  metadata.zarr_format = format;
  if (format == 2) metadata.chunk_key_encoding = zarr::ChunkKeyEncoding::V2('.');
  metadata.shape = std::move(shape);
  metadata.chunk_shape = std::move(chunks);
  metadata.data_type = DataType(DataTypeId::kUInt16);
  metadata.fill_value = {7, 0};
  metadata.codecs = std::move(codecs);
  return metadata;
}

// Writes values to part of the array (so that some chunks stay empty) and returns the whole.
Bytes Fill(Array& array) {
  const Shape& shape = array.metadata().shape;
  Shape part = shape;
  part[0] = shape[0] - shape[0] / 3;
  Bytes data(2 * static_cast<std::size_t>(Region::Full(part).num_elements()));
  for (std::size_t i = 0; i < data.size() / 2; ++i) {
    StoreLittleEndian(static_cast<std::uint16_t>(i * 7 + 1), data.data() + 2 * i);
  }
  EXPECT_TRUE(array.Write(Region::Full(part), data).ok());
  return ValueOrDie(array.Read(Region::Full(shape)));
}

class RefsZarrTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::FreshScratchDirectory("refs_zarr");
    fs::create_directories(dir_);
    store_ = ValueOrDie(store::FileStore::Open(dir_ / "src.zarr"));
  }

  // Builds references for `prefix`, writes them as JSON `version`, reads them
  // back, and reads the array at `prefix` through a ReferenceStore.
  Bytes ReadThroughReferences(const std::string& prefix, JsonVersion version) {
    ZarrReferenceOptions options;
    options.url_base = (dir_ / "src.zarr").string() + "/";
    ReferenceSet set = ValueOrDie(BuildZarrReferences(store_, "", options));
    auto files = ValueOrDie(store::FileStore::Open(dir_));
    EXPECT_TRUE(WriteReferenceJson(*files, "refs.json", set, {version, true}, true).ok());
    auto loaded =
        std::make_shared<ReferenceSet>(ValueOrDie(ReadReferenceJson(*files, "refs.json")));
    store::ReferenceStoreOptions store_options;
    store_options.base_directory = dir_;
    auto references = ValueOrDie(store::ReferenceStore::Open(loaded, store_options));
    Array view = ValueOrDie(Array::Open(references, prefix));
    EXPECT_EQ(view.metadata().zarr_format, 2);
    return ValueOrDie(view.Read(Region::Full(view.metadata().shape)));
  }

  fs::path dir_;
  std::shared_ptr<store::FileStore> store_;
};

TEST_F(RefsZarrTest, ShardedV3ReadsAsV2ViewOfInnerChunks) {
  for (const char* location : {"end", "start"}) {
    Array array = ValueOrDie(
        Array::Create(store_, "a",
                      Metadata(3, {15, 13}, {8, 6},
                               Sharded({2, 3}, json::array({kBytesLittle, kZstd}), location)),
                      true));
    const Bytes expected = Fill(array);
    for (JsonVersion version : {JsonVersion::kV0, JsonVersion::kV1}) {
      EXPECT_EQ(ReadThroughReferences("a", version), expected) << location;
    }
  }
}

TEST_F(RefsZarrTest, EmptyInnerChunksAreAbsentKeys) {
  Array array = ValueOrDie(Array::Create(
      store_, "", Metadata(3, {16, 12}, {8, 6}, Sharded({2, 3}, json::array({kBytesLittle}))),
      true));
  Fill(array);
  ZarrReferenceOptions options;
  options.url_base = "/x/";
  ReferenceSet set = ValueOrDie(BuildZarrReferences(store_, "", options));
  // 16 rows, 11 written: inner rows 0..5 hold data (row 5 partly), 6..7 are fill.
  EXPECT_TRUE(set.Find("5.3")->has_value());
  EXPECT_FALSE(set.Find("6.0")->has_value());
  const auto reference = set.Find("0.0")->value();
  EXPECT_EQ(reference.kind, store::Reference::Kind::kRange);
  EXPECT_EQ(reference.url, "/x/c/0/0");
  EXPECT_EQ(reference.length, 2u * 2 * 3);
  const std::string zarray(AsChars(set.Find(".zarray")->value().data));
  EXPECT_NE(zarray.find("\"chunks\": [\n        2,\n        3\n    ]"), std::string::npos)
      << zarray;
}

TEST_F(RefsZarrTest, UnshardedV3AndV2ArraysAndGroups) {
  ASSERT_TRUE(zarr::CreateGroup(*store_, "", 3, json::object({{"title", "t"}})).ok());
  Array big = ValueOrDie(Array::Create(
      store_, "big", Metadata(3, {9, 7}, {4, 4}, json::array({kBytesBig, kZstd})), true));
  Array old = ValueOrDie(Array::Create(
      store_, "sub/old", Metadata(2, {9, 7}, {4, 4}, json::array({kBytesLittle, kZstd})), true));
  const Bytes big_expected = Fill(big), old_expected = Fill(old);
  EXPECT_EQ(ReadThroughReferences("big", JsonVersion::kV1), big_expected);
  EXPECT_EQ(ReadThroughReferences("sub/old", JsonVersion::kV0), old_expected);
  ReferenceSet set = ValueOrDie(BuildZarrReferences(store_, "", {}));
  EXPECT_TRUE(set.Find(".zgroup")->has_value());
  EXPECT_NE(std::string(AsChars(set.Find(".zattrs")->value().data)).find("\"title\""),
            std::string::npos);
  EXPECT_EQ(set.Find("big/0.0")->value().kind, store::Reference::Kind::kWholeFile);
  EXPECT_EQ(set.Find("big/0.0")->value().url, "big/c/0/0");
  EXPECT_NE(std::string(AsChars(set.Find("big/.zarray")->value().data)).find(">u2"),
            std::string::npos);
}

// crc32c last is chunkwise's default for the arrays it makes (#44); before,
// `refs build` refused every such array. The view leaves the codec out and
// each reference stops short of the chunk's 4-byte checksum.
TEST_F(RefsZarrTest, ChunksEndingWithCrc32cAreReferencedShortOfTheirChecksum) {
  Array flat = ValueOrDie(Array::Create(
      store_, "flat", Metadata(3, {9, 7}, {4, 4}, json::array({kBytesLittle, kZstd, kCrc})), true));
  Array sharded = ValueOrDie(Array::Create(
      store_, "sharded",
      Metadata(3, {15, 13}, {8, 6}, Sharded({2, 3}, json::array({kBytesLittle, kCrc}))), true));
  const Bytes flat_expected = Fill(flat), sharded_expected = Fill(sharded);
  EXPECT_EQ(ReadThroughReferences("flat", JsonVersion::kV1), flat_expected);
  EXPECT_EQ(ReadThroughReferences("sharded", JsonVersion::kV0), sharded_expected);
  ReferenceSet set = ValueOrDie(BuildZarrReferences(store_, "", {}));
  const store::Reference chunk = set.Find("flat/0.0")->value();
  EXPECT_EQ(chunk.kind, store::Reference::Kind::kRange);
  EXPECT_EQ(chunk.offset, 0u);
  EXPECT_EQ(chunk.length + 4, fs::file_size(dir_ / "src.zarr" / "flat" / "c" / "0" / "0"));
  EXPECT_EQ(set.Find("sharded/0.0")->value().length, 2u * 2 * 3);  // The raw inner chunk alone.
  EXPECT_EQ(std::string(AsChars(set.Find("flat/.zarray")->value().data)).find("crc32c"),
            std::string::npos);
}

TEST_F(RefsZarrTest, CodecsWithoutV2FormAreRefused) {
  ASSERT_TRUE(Array::Create(store_, "crc",
                            Metadata(3, {8}, {4}, json::array({kBytesLittle, kCrc, kZstd})), true)
                  .ok());
  auto crc = BuildZarrReferences(store_, "crc/", {});
  EXPECT_EQ(crc.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(crc.status().message().find("crc32c"), std::string::npos) << crc.status().ToString();
  ASSERT_TRUE(
      Array::Create(store_, "nested",
                    Metadata(3, {8}, {4}, Sharded({2}, Sharded({1}, json::array({kBytesLittle})))),
                    true)
          .ok());
  EXPECT_EQ(BuildZarrReferences(store_, "nested/", {}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildZarrReferences(store_, "none/", {}).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace chunkwise::formats::refs
