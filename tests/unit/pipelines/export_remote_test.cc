// An export-shards output read from where users keep them: over HTTP (a file
// server with Range support), listed by its info and CSV indexes, and from an
// S3 bucket after an upload through S3Store. Every shard opens through the
// remote store and gives the same records as the local files.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "chunkwise/store/file_store.h"
#include "core/file_io.h"
#include "formats/dvid/arrow_shard_reader.h"
#include "formats/dvid/ingest.h"
#include "pipelines/export_listing.h"
#include "pipelines/export_shards.h"
#include "store/http_store.h"
#include "store/rocksdb_store.h"
#include "store/s3_store.h"
#include "unit/scratch_directory.h"
#include "unit/store/s3_test_server.h"

namespace chunkwise::pipelines {
namespace {

namespace fs = std::filesystem;
namespace dvid = formats::dvid;
using nlohmann::json;

constexpr std::array<std::int64_t, 3> kShape{100, 130, 150};  // z, y, x: 2 x 3 x 3 blocks.

json Spec(const std::string& hash, int shard_bits) {
  json scales = json::array();
  for (int s = 0; s < 2; ++s) {
    scales.push_back({{"key", "s" + std::to_string(s)},
                      {"size",
                       {(kShape[2] + (1 << s) - 1) >> s, (kShape[1] + (1 << s) - 1) >> s,
                        (kShape[0] + (1 << s) - 1) >> s}},
                      {"chunk_sizes", {{64, 64, 64}}},
                      {"sharding",
                       {{"@type", "neuroglancer_uint64_sharded_v1"},
                        {"preshift_bits", 0},
                        {"hash", hash},
                        {"minishard_bits", 1},
                        {"shard_bits", shard_bits}}}});
  }
  return {{"@type", "neuroglancer_multiscale_volume"}, {"data_type", "uint64"}, {"scales", scales}};
}

// Exports a small segmentation to `dest`.
void MakeExport(const fs::path& dest, const json& info) {
  const fs::path db_path = test::FreshScratchDirectory("db");
  auto db = store::RocksDbStore::Open(db_path, {.create_if_missing = true});
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  auto labelmap = dvid::Labelmap::Open(*db, true);
  ASSERT_TRUE(labelmap.ok());
  std::vector<std::uint64_t> volume(kShape[0] * kShape[1] * kShape[2]);
  for (std::size_t i = 0; i < volume.size(); ++i) volume[i] = 1 + (i / 997) % 50;
  ASSERT_TRUE(dvid::IngestVolume(**labelmap, volume, kShape, {.downsample_scales = 1}).ok());
  const std::vector<dvid::LabelPair> mapping = {{1, 5}, {2, 5}};
  ASSERT_TRUE((*labelmap)->SetMappings(1, mapping).ok());
  Result<ExportSpec> spec = ParseExportSpec(info.dump(), "spec.json");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  auto files = store::FileStore::Open(dest);
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  Result<ExportSummary> summary = ExportShards(**labelmap, *spec, *files, "", {.workers = 2});
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
}

std::vector<std::string> LocalKeys(const fs::path& dest) {
  std::vector<std::string> keys;
  for (const auto& entry : fs::recursive_directory_iterator(dest)) {
    if (entry.is_regular_file()) keys.push_back(fs::relative(entry.path(), dest).string());
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

// Every shard of `keys` opens through `store` and gives the local shard's records.
void ExpectSameShards(std::shared_ptr<const store::Store> store, const fs::path& dest,
                      const std::vector<std::string>& keys) {
  int shards = 0;
  for (const std::string& key : keys) {
    if (!key.ends_with(".arrow")) continue;
    ++shards;
    Result<dvid::ArrowShardReader> remote = dvid::ArrowShardReader::Open(store, key);
    ASSERT_TRUE(remote.ok()) << key << ": " << remote.status().ToString();
    auto files = store::FileStore::Open(dest, {.create_root = false});
    ASSERT_TRUE(files.ok()) << files.status().ToString();
    Result<dvid::ArrowShardReader> local = dvid::ArrowShardReader::Open(*files, key);
    ASSERT_TRUE(local.ok()) << local.status().ToString();
    ASSERT_EQ(remote->ListChunks(), local->ListChunks()) << key;
    for (const auto& [x, y, z] : local->ListChunks()) {
      Result<std::optional<dvid::ExportBlock>> a = remote->Get(x, y, z);
      Result<std::optional<dvid::ExportBlock>> b = local->Get(x, y, z);
      ASSERT_TRUE(a.ok() && b.ok()) << key;
      ASSERT_TRUE(a->has_value());
      EXPECT_EQ(**a, **b) << key << " chunk " << x << "," << y << "," << z;
    }
  }
  EXPECT_GT(shards, 1);
}

class ExportRemoteTest : public ::testing::TestWithParam<std::pair<std::string, int>> {
 protected:
  void SetUp() override {
    servers_ = test::TestS3Servers();
    ASSERT_NE(servers_, nullptr);
    folder_ = test::FreshS3Prefix("e");
    dest_ = fs::path(servers_->http_root) / folder_ / "export";
    fs::create_directories(dest_.parent_path());
    MakeExport(dest_, Spec(GetParam().first, GetParam().second));
  }

  const test::S3TestServers* servers_ = nullptr;
  std::string folder_;
  fs::path dest_;
};

TEST_P(ExportRemoteTest, ListedAndReadOverHttp) {
  store::HttpStoreOptions options;
  options.base_url = servers_->http + "/" + folder_ + "export";
  options.lister = std::make_shared<ExportKeyLister>();
  Result<std::shared_ptr<store::HttpStore>> store = store::HttpStore::Open(options);
  ASSERT_TRUE(store.ok());
  Result<std::vector<std::string>> keys = (*store)->List("");
  ASSERT_TRUE(keys.ok()) << keys.status().ToString();
  EXPECT_EQ(*keys, LocalKeys(dest_));
  Result<std::vector<std::string>> s1 = (*store)->List("s1/");
  ASSERT_TRUE(s1.ok());
  EXPECT_FALSE(s1->empty());
  for (const std::string& key : *s1) EXPECT_TRUE(key.starts_with("s1/")) << key;
  ExpectSameShards(*store, dest_, *keys);
}

TEST_P(ExportRemoteTest, UploadedToABucketAndReadBack) {
  store::S3StoreOptions options = test::TestS3Options(*servers_);
  std::shared_ptr<store::S3Store> bucket = test::OpenTestS3Store(options);
  ASSERT_NE(bucket, nullptr);
  const std::vector<std::string> keys = LocalKeys(dest_);
  for (const std::string& key : keys) {
    Result<Bytes> bytes = core::ReadFile(dest_ / key);
    ASSERT_TRUE(bytes.ok());
    ASSERT_TRUE(bucket->Set(key, *bytes).ok()) << key;
  }
  Result<std::vector<std::string>> listed = bucket->List("");
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(*listed, keys);
  ExpectSameShards(bucket, dest_, keys);
}

INSTANTIATE_TEST_SUITE_P(Shards, ExportRemoteTest,
                         ::testing::Values(std::make_pair(std::string("identity"), 4),
                                           std::make_pair(std::string("murmurhash3_x86_128"), 3)),
                         [](const auto& info) {
                           return info.param.first == "identity" ? "boxes" : "hashed";
                         });

}  // namespace
}  // namespace chunkwise::pipelines
