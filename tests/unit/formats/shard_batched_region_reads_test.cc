// A region over many shards of a sharded array on HTTP and S3 is read in
// batches (ReadShardRegions, #42): each shard's index is one suffix-range GET
// whose reply names the shard's size and ETag (no GET of its size first),
// and the inner chunks' range GETs are pinned (If-Match) to that ETag, so
// that a shard rewritten between the two batches is read afresh, never
// decoded from one version's index and another's bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "formats/zarr/array.h"
#include "store/memory_store.h"
#include "unit/formats/small_sharded_array.h"
#include "unit/store/counting_http_or_bucket.h"
#include "unit/store/counting_http_server.h"
#include "unit/value_or_die.h"

namespace chunkwise::formats::zarr {
namespace {

using core::Region;
using test::ValueOrDie;

constexpr core::Index kSide = 32;  // The array is kSide × kSide: 16 shards.

// uint16 in shards of 8×8 of inner chunks 4×4, uncompressed (so that a
// shard's size depends only on which inner chunks it holds), index at the
// end (4 entries and its crc32c: 68 bytes).
ArrayMetadata Sharded() { return SmallShardedArray({kSide, kSide}, {8, 8}, {4, 4}); }

// Element (i, j) of `box` is base + kSide i + j, or 0 (the fill) inside `hole`.
Bytes Values(const Region& box, std::uint16_t base, const Region& hole) {
  Bytes data(2 * static_cast<std::size_t>(box.num_elements()));
  std::size_t at = 0;
  for (core::Index i = box.start()[0]; i < box.stop()[0]; ++i) {
    for (core::Index j = box.start()[1]; j < box.stop()[1]; ++j) {
      const bool in_hole =
          i >= hole.start()[0] && i < hole.stop()[0] && j >= hole.start()[1] && j < hole.stop()[1];
      const auto value = static_cast<std::uint16_t>(in_hole ? 0 : base + kSide * i + j);
      std::memcpy(data.data() + at, &value, 2);
      at += 2;
    }
  }
  return data;
}

std::string PathOf(const std::string& key, bool as_bucket) {
  return (as_bucket ? "/bkt/" : "/") + key;
}

// The array's keys and values, written with values from `base` and the
// fill inside `hole` (an inner chunk left out of its shard).
std::vector<std::pair<std::string, Bytes>> Written(std::uint16_t base, const Region& hole) {
  auto memory = std::make_shared<store::MemoryStore>();
  Array writer = ValueOrDie(Array::Create(memory, "a", Sharded(), false));
  const Region all = Region::Full(core::Shape{kSide, kSide});
  EXPECT_TRUE(writer.Write(all, Values(all, base, hole)).ok());
  std::vector<std::pair<std::string, Bytes>> keys;
  for (const std::string& key : ValueOrDie(memory->List(""))) {
    keys.emplace_back(key, *ValueOrDie(memory->Get(key)));
  }
  return keys;
}

// A pool of 2 threads, no cache: a region over more than 2 shards goes in
// batches.
ArrayOptions TwoThreads() {
  ArrayOptions options;
  options.pool = std::make_shared<core::ThreadPool>(2);
  return options;
}

// Parameter: read as S3 (true) or plain HTTP.
class ShardBatchedRegionReads : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    if (GetParam()) server_.AddFile("/bkt", {});
  }
  void Publish(std::uint16_t base, const Region& hole) {
    for (auto& [key, value] : Written(base, hole)) {
      server_.AddFile(PathOf(key, GetParam()), std::move(value));
    }
  }
  std::string Path(const std::string& key) const { return PathOf(key, GetParam()); }
  std::shared_ptr<store::Store> Store() const {
    return test::OpenHttpOrBucket(server_, GetParam());
  }
  test::CountingServer server_{Bytes{}};
};

INSTANTIATE_TEST_SUITE_P(HttpAndS3, ShardBatchedRegionReads, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "S3" : "Http"; });

const Region kNoHole({0, 0}, {0, 0});

TEST_P(ShardBatchedRegionReads, EachShardsIndexIsOneSuffixGetAndNoSizeIsAsked) {
  Publish(1000, kNoHole);
  const Array array = ValueOrDie(Array::Open(Store(), "a", TwoThreads()));
  const Region all = Region::Full(core::Shape{kSide, kSide});
  EXPECT_EQ(ValueOrDie(array.Read(all)), Values(all, 1000, kNoHole));
  for (int i = 0; i < kSide / 8; ++i) {
    for (int j = 0; j < kSide / 8; ++j) {
      const std::string shard = Path("a/c/" + std::to_string(i) + "/" + std::to_string(j));
      const std::vector<std::string> ranges = server_.ranges(shard);
      // The index: the last 68 bytes; then the 4 inner chunks as one range.
      EXPECT_EQ(std::count(ranges.begin(), ranges.end(), "-68"), 1) << shard;
      EXPECT_EQ(std::count(ranges.begin(), ranges.end(), "0-0"), 0) << shard;
      EXPECT_EQ(ranges.size(), 2u) << shard;
    }
  }
}

TEST_P(ShardBatchedRegionReads, AShardRewrittenAtTheSameSizeBetweenIndexAndChunksIsReadAfresh) {
  // Shard (0, 0) holds inner chunks 0, 1 and 2 (chunk 3, rows and columns
  // 4..8, is all fill); the rewrite holds 0, 1 and 3 (chunk 2 is fill): the
  // same size, but its third chunk's bytes are chunk 3's. Decoded with the
  // first version's index, chunk 2 would get chunk 3's values.
  const Region chunk2({4, 0}, {8, 4}), chunk3({4, 4}, {8, 8});
  Publish(1000, chunk3);
  Bytes rewritten;
  for (auto& [key, value] : Written(2000, chunk2)) {
    if (key == "a/c/0/0") rewritten = std::move(value);
  }
  ASSERT_EQ(rewritten.size(), server_.file(Path("a/c/0/0"))->size());
  ASSERT_NE(rewritten, *server_.file(Path("a/c/0/0")));
  server_.ChangeAfterNextTailGet(Path("a/c/0/0"), rewritten);

  const Array array = ValueOrDie(Array::Open(Store(), "a", TwoThreads()));
  const Region all = Region::Full(core::Shape{kSide, kSide});
  const Result<Bytes> read = array.Read(all);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  // Shard (0, 0) as rewritten, every other shard as first published.
  const Region shard00({0, 0}, {8, 8});
  Array expected_array =
      ValueOrDie(Array::Create(std::make_shared<store::MemoryStore>(), "e", Sharded(), false));
  ASSERT_TRUE(expected_array.Write(all, Values(all, 1000, chunk3)).ok());
  ASSERT_TRUE(expected_array.Write(shard00, Values(shard00, 2000, chunk2)).ok());
  EXPECT_EQ(*read, ValueOrDie(expected_array.Read(all)));
  EXPECT_EQ(ValueOrDie(array.Read(shard00)), Values(shard00, 2000, chunk2));
}

}  // namespace
}  // namespace chunkwise::formats::zarr
