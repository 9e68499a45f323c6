// A sharded array read over HTTP and S3 with the chunk cache on (#42): once a
// shard's index is kept, a read of inner chunks the cache lacks sends only
// their range GETs, pinned to the ETag the index was read at, and no GET of
// the shard's tail to learn its size and version again. A shard another
// writer changed since is read afresh, and what was kept of it is dropped.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>

#include "core/chunk_cache.h"
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

// uint16 16×16 in shards of 8×8 of inner chunks 4×4 (4 a shard), zstd,
// index at the end (4 entries and its crc32c: 68 bytes).
ArrayMetadata Sharded() { return SmallShardedArray({16, 16}, {8, 8}, {4, 4}, Zstd1()); }

// Element (i, j) of the array is base + 16 i + j.
Bytes Expected(const Region& box, std::uint16_t base) {
  Bytes data(2 * static_cast<std::size_t>(box.num_elements()));
  std::size_t at = 0;
  for (core::Index i = box.start()[0]; i < box.stop()[0]; ++i) {
    for (core::Index j = box.start()[1]; j < box.stop()[1]; ++j) {
      const auto value = static_cast<std::uint16_t>(base + 16 * i + j);
      std::memcpy(data.data() + at, &value, 2);
      at += 2;
    }
  }
  return data;
}

// The server's path of `key`: below bucket "bkt" when read as S3.
std::string PathOf(const std::string& key, bool as_bucket) {
  return (as_bucket ? "/bkt/" : "/") + key;
}

// Writes the array with values from `base` and puts every key on `server`
// (replacing what it served: another writer's change).
void Publish(test::CountingServer& server, std::uint16_t base, bool as_bucket) {
  auto memory = std::make_shared<store::MemoryStore>();
  Array writer = ValueOrDie(Array::Create(memory, "a", Sharded(), false));
  const Region all = Region::Full(core::Shape{16, 16});
  ASSERT_TRUE(writer.Write(all, Expected(all, base)).ok());
  for (const std::string& key : ValueOrDie(memory->List(""))) {
    server.AddFile(PathOf(key, as_bucket), *ValueOrDie(memory->Get(key)));
  }
}

// The server's files over HTTP, or as S3 bucket "bkt", a reader's opening
// fetching the shard's last 68 bytes: its index and no inner chunk.
std::shared_ptr<store::Store> OpenStore(const test::CountingServer& server, bool as_bucket) {
  return test::OpenHttpOrBucket(server, as_bucket, ShardIndex::EncodedSize(4));
}

// Parameter: read as S3 (true) or plain HTTP.
class ShardIndexOverHttp : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    if (GetParam()) server_.AddFile("/bkt", {});
  }
  void Publish(std::uint16_t base) { zarr::Publish(server_, base, GetParam()); }
  std::shared_ptr<store::Store> Store() const { return OpenStore(server_, GetParam()); }
  test::CountingServer server_{Bytes{}};
  const std::string shard_ = PathOf("a/c/0/0", GetParam());
};

INSTANTIATE_TEST_SUITE_P(HttpAndS3, ShardIndexOverHttp, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "S3" : "Http"; });

ArrayOptions WithCache() {
  ArrayOptions options;
  options.pool = std::make_shared<core::ThreadPool>(2);
  options.cache = std::make_shared<core::ChunkCache>(1 << 20);
  return options;
}

TEST_P(ShardIndexOverHttp, AKeptIndexSendsOnlyTheMissingChunksRanges) {
  Publish(1000);
  const Array array = ValueOrDie(Array::Open(Store(), "a", WithCache()));
  const Region chunk0({0, 0}, {4, 4}), chunk2({4, 0}, {8, 4}), chunk3({4, 4}, {8, 8});
  EXPECT_EQ(ValueOrDie(array.Read(chunk0)), Expected(chunk0, 1000));
  EXPECT_EQ(server_.requests(shard_), 2);  // The opening (the tail: the index), chunk 0.
  EXPECT_EQ(ValueOrDie(array.Read(chunk2)), Expected(chunk2, 1000));
  EXPECT_EQ(server_.requests(shard_), 3);  // Chunk 2's range only.
  EXPECT_EQ(ValueOrDie(array.Read(chunk3)), Expected(chunk3, 1000));
  EXPECT_EQ(server_.requests(shard_), 4);
  EXPECT_EQ(ValueOrDie(array.Read(Region({0, 0}, {8, 8}))), Expected(Region({0, 0}, {8, 8}), 1000));
  EXPECT_EQ(server_.requests(shard_), 5);  // Chunk 1; 0, 2 and 3 are kept.
}

TEST_P(ShardIndexOverHttp, AShardChangedSinceItsIndexWasKeptIsReadAfresh) {
  Publish(1000);
  const Array array = ValueOrDie(Array::Open(Store(), "a", WithCache()));
  const Region chunk0({0, 0}, {4, 4}), chunk3({4, 4}, {8, 8});
  EXPECT_EQ(ValueOrDie(array.Read(chunk0)), Expected(chunk0, 1000));
  Publish(2000);  // Another writer: a new ETag.
  const int before = server_.requests(shard_);
  // The range GET pinned to the kept index's ETag is refused (412): the
  // shard is read again, index and chunk, from the version there now.
  EXPECT_EQ(ValueOrDie(array.Read(chunk3)), Expected(chunk3, 2000));
  EXPECT_GE(server_.requests(shard_), before + 3);  // Refused range, opening, chunk.
  // What was kept of the old version is gone too.
  EXPECT_EQ(ValueOrDie(array.Read(chunk0)), Expected(chunk0, 2000));
}

}  // namespace
}  // namespace chunkwise::formats::zarr
