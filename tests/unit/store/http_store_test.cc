// HttpStore against a plain HTTP/1.1 file server with Range support
// (tests/support/s3_test_server.py): values, ranges and readers, the zarr
// metadata lister, and a sharded zarr array read through the store.
#include "store/http_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "chunkwise/store/file_store.h"
#include "formats/zarr/array.h"
#include "store/http_listing.h"
#include "unit/store/s3_test_server.h"

namespace chunkwise::store {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Bytes Pattern(std::size_t size, unsigned seed) {
  Bytes bytes(size);
  std::uint32_t state = seed * 2654435761u + 1;
  for (std::size_t i = 0; i < size; ++i) {
    state = state * 1664525u + 1013904223u;
    bytes[i] = static_cast<std::uint8_t>(state >> 24);
  }
  return bytes;
}

Bytes B(std::string_view text) { return Bytes(text.begin(), text.end()); }

class HttpStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    servers_ = test::TestS3Servers();
    ASSERT_NE(servers_, nullptr);
    const std::string folder = test::FreshS3Prefix("h");  // "h<pid>-<n>-<r>/"
    Result<std::shared_ptr<FileStore>> files =
        FileStore::Open(std::filesystem::path(servers_->http_root) / folder, {.create_root = true});
    ASSERT_TRUE(files.ok()) << files.status().ToString();
    files_ = *files;
    base_url_ = servers_->http + "/" + folder;
    Open(nullptr);
  }
  void Open(std::shared_ptr<const HttpKeyLister> lister, RangeReadOptions reads = {}) {
    HttpStoreOptions options;
    options.base_url = base_url_;
    options.lister = std::move(lister);
    options.reads = reads;
    Result<std::shared_ptr<HttpStore>> store = HttpStore::Open(options);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = *store;
  }
  void Put(std::string_view key, ByteView value) {
    ASSERT_TRUE(files_->Set(key, value).ok()) << key;
  }

  const test::S3TestServers* servers_ = nullptr;
  std::shared_ptr<FileStore> files_;
  std::string base_url_;
  std::shared_ptr<HttpStore> store_;
};

TEST_F(HttpStoreTest, ReadsValuesRangesAndSizes) {
  const Bytes value = Pattern(300000, 1);
  Put("a/b.bin", value);
  Put("dir with space/x+y", AsBytes("spaced"));
  Put("empty", {});
  EXPECT_EQ(*store_->Get("a/b.bin"), value);
  EXPECT_EQ(*store_->Get("dir with space/x+y"), B("spaced"));
  EXPECT_EQ(*store_->Get("empty"), Bytes());
  EXPECT_EQ(*store_->Get("missing"), std::nullopt);
  EXPECT_EQ(**store_->Size("a/b.bin"), value.size());
  EXPECT_EQ(*store_->Size("missing"), std::nullopt);
  Result<std::optional<Bytes>> span = store_->GetRange("a/b.bin", ByteRange::Span(1000, 20));
  ASSERT_TRUE(span.ok() && span->has_value()) << span.status().ToString();
  EXPECT_TRUE(std::equal((*span)->begin(), (*span)->end(), value.begin() + 1000));
  Result<std::optional<Bytes>> suffix = store_->GetRange("a/b.bin", ByteRange::Suffix(16));
  ASSERT_TRUE(suffix.ok() && suffix->has_value());
  EXPECT_TRUE(std::equal((*suffix)->begin(), (*suffix)->end(), value.end() - 16));
  Result<std::optional<Bytes>> outside = store_->GetRange("a/b.bin", ByteRange::Span(299990, 20));
  EXPECT_EQ(outside.status().code(), StatusCode::kOutOfRange);
  EXPECT_THAT(std::string(outside.status().message()), HasSubstr(store_->Describe("a/b.bin")));
  EXPECT_EQ(store_->GetRange("a/b.bin", ByteRange::Suffix(300001)).status().code(),
            StatusCode::kOutOfRange);
}

TEST_F(HttpStoreTest, NearbyRangesAreOneRequestAndWastefulJoinsAreNot) {
  const Bytes value = Pattern(200000, 2);
  Put("v", value);
  // The first two join (990 bytes between 10,000 needed); the third would
  // make a request mostly unneeded (RangeCoalescing::max_waste, 0.5).
  const ByteRange ranges[] = {ByteRange::Span(10, 5000), ByteRange::Span(6000, 5000),
                              ByteRange::Span(150000, 5)};
  Bytes out(10005);
  const std::uint64_t before = store_->stats().requests;
  ASSERT_TRUE(*store_->GetRangesInto("v", ranges, out));
  EXPECT_EQ(store_->stats().requests - before, 2u);
  EXPECT_TRUE(std::equal(out.begin(), out.begin() + 5000, value.begin() + 10));
  EXPECT_TRUE(std::equal(out.begin() + 5000, out.begin() + 10000, value.begin() + 6000));
  EXPECT_TRUE(std::equal(out.begin() + 10000, out.end(), value.begin() + 150000));
  Bytes missing(10005);
  EXPECT_FALSE(*store_->GetRangesInto("nope", ranges, missing));
  // With no bound on waste, all three are one request.
  RangeReadOptions reads;
  reads.coalescing.max_waste = 1.0;
  Open(nullptr, reads);
  Bytes again(10005);
  const std::uint64_t then = store_->stats().requests;
  ASSERT_TRUE(*store_->GetRangesInto("v", ranges, again));
  EXPECT_EQ(store_->stats().requests - then, 1u);
  EXPECT_EQ(again, out);
}

TEST_F(HttpStoreTest, ReaderBringsTheTailAndPinsByETag) {
  const Bytes value = Pattern(std::size_t{1} << 20, 3);
  Put("shard", value);
  Result<std::unique_ptr<ValueReader>> reader = store_->OpenReader("shard");
  ASSERT_TRUE(reader.ok() && *reader != nullptr) << reader.status().ToString();
  EXPECT_EQ((*reader)->size(), value.size());
  const ByteRange ranges[] = {ByteRange::Suffix(100), ByteRange::Span(10, 10)};
  Bytes out(110);
  ASSERT_TRUE((*reader)->ReadInto(ranges, out).ok());
  EXPECT_TRUE(std::equal(out.begin() + 100, out.end(), value.begin() + 10));
  Put("shard", Pattern(std::size_t{1} << 20, 4));  // A new ETag: the reader refuses to mix.
  const ByteRange start[] = {ByteRange::Span(0, 10)};
  Bytes ten(10);
  const Status changed = (*reader)->ReadInto(start, ten);
  EXPECT_EQ(changed.code(), StatusCode::kNotFound);
  EXPECT_THAT(std::string(changed.message()), HasSubstr(store_->Describe("shard")));
  EXPECT_EQ(*store_->OpenReader("missing"), nullptr);
}

TEST_F(HttpStoreTest, IsReadOnlyAndListsOnlyWithALayout) {
  EXPECT_EQ(store_->Set("k", AsBytes("v")).code(), StatusCode::kUnsupported);
  EXPECT_EQ(store_->Erase("k").code(), StatusCode::kUnsupported);
  Result<std::vector<std::string>> keys = store_->List("");
  EXPECT_EQ(keys.status().code(), StatusCode::kUnsupported);
  EXPECT_THAT(std::string(keys.status().message()),
              HasSubstr(base_url_.substr(0, base_url_.size() - 1)));
  EXPECT_FALSE(store_->capabilities().writable);
  EXPECT_FALSE(store_->capabilities().listable);
  HttpStoreOptions ftp;
  ftp.base_url = "ftp://x";
  EXPECT_EQ(HttpStore::Open(ftp).status().code(), StatusCode::kInvalidArgument);
  ftp.base_url = "https:///";
  EXPECT_EQ(HttpStore::Open(ftp).status().code(), StatusCode::kInvalidArgument);
}

// A sharded zarr v3 array in a group with consolidated metadata, written to
// files and read back through HTTP: the lister finds the array, the array
// reads its shards by range.
TEST_F(HttpStoreTest, ReadsAShardedZarrArrayFoundThroughConsolidatedMetadata) {
  nlohmann::json array_json = {
      {"zarr_format", 3},
      {"node_type", "array"},
      {"shape", {40, 50}},
      {"data_type", "uint16"},
      {"chunk_grid", {{"name", "regular"}, {"configuration", {{"chunk_shape", {20, 25}}}}}},
      {"chunk_key_encoding", {{"name", "default"}, {"configuration", {{"separator", "/"}}}}},
      {"fill_value", 0},
      {"codecs",
       {{{"name", "sharding_indexed"},
         {"configuration",
          {{"chunk_shape", {10, 5}},
           {"codecs",
            {{{"name", "bytes"}, {"configuration", {{"endian", "little"}}}},
             {{"name", "zstd"}, {"configuration", {{"level", 1}, {"checksum", false}}}}}},
           {"index_codecs",
            {{{"name", "bytes"}, {"configuration", {{"endian", "little"}}}}, {{"name", "crc32c"}}}},
           {"index_location", "end"}}}}}},
  };
  Result<formats::zarr::ArrayMetadata> parsed =
      formats::zarr::ParseV3ArrayMetadata(array_json.dump(), "zarr.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  Result<formats::zarr::Array> written =
      formats::zarr::Array::Create(files_, "vol/", *parsed, false);
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  std::vector<std::uint16_t> data(40 * 50);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint16_t>(i * 7 + 1);
  const core::Shape shape = {40, 50};
  const core::Region all = core::Region::Full(shape);
  ASSERT_TRUE(written
                  ->Write(all, ByteView(reinterpret_cast<const std::uint8_t*>(data.data()),
                                        data.size() * 2))
                  .ok());
  const nlohmann::json group = {
      {"zarr_format", 3},
      {"node_type", "group"},
      {"attributes", nlohmann::json::object()},
      {"consolidated_metadata",
       {{"kind", "inline"}, {"must_understand", false}, {"metadata", {{"vol", array_json}}}}}};
  Put("zarr.json", AsBytes(group.dump()));

  Open(std::make_shared<ZarrMetadataLister>());
  Result<std::vector<std::string>> keys = store_->List("");
  ASSERT_TRUE(keys.ok()) << keys.status().ToString();
  EXPECT_THAT(*keys, ElementsAre("vol/zarr.json", "zarr.json"));
  EXPECT_TRUE(store_->capabilities().listable);
  // The metadata names no chunk: walks of stored chunks walk the grid instead.
  EXPECT_FALSE(store_->capabilities().lists_every_key);
  Result<formats::zarr::Array> array = formats::zarr::Array::Open(store_, "vol/");
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  Result<Bytes> read = array->Read(all);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ASSERT_EQ(read->size(), data.size() * 2);
  EXPECT_EQ(std::memcmp(read->data(), data.data(), read->size()), 0);
  const core::Region box({3, 11}, {17, 42});
  Result<Bytes> part = array->Read(box);
  ASSERT_TRUE(part.ok());
  EXPECT_EQ(reinterpret_cast<const std::uint16_t*>(part->data())[0], data[3 * 50 + 11]);
}

TEST_F(HttpStoreTest, ListsAVersionTwoHierarchyFromZmetadata) {
  Put(".zmetadata", AsBytes(R"({"metadata": {".zgroup": {"zarr_format": 2},
      "a/.zarray": {}, "a/.zattrs": {}, "../escape": {}}, "zarr_consolidated_format": 1})"));
  Open(std::make_shared<ZarrMetadataLister>());
  EXPECT_THAT(*store_->List(""), ElementsAre(".zgroup", ".zmetadata", "a/.zarray", "a/.zattrs"));
  EXPECT_THAT(*store_->List("a/"), ElementsAre("a/.zarray", "a/.zattrs"));
}

TEST_F(HttpStoreTest, ListingWithoutMetadataIsNotFound) {
  Open(std::make_shared<ZarrMetadataLister>());
  Result<std::vector<std::string>> keys = store_->List("");
  EXPECT_EQ(keys.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(std::string(keys.status().message()), HasSubstr("zarr.json"));
}

}  // namespace
}  // namespace chunkwise::store
