// A vectors store's chunks read from a store whose gets are batched (a
// remote one, #42): ReadGeometry fetches every blob of its chunks in one
// batch of requests (store::GetMany) from the calling thread and the pool
// only decodes, so that a pool of one thread keeps them all in flight; what
// it reads is what was written.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>

#include "formats/vectors/blob_array.h"
#include "formats/vectors/geometry_reader.h"
#include "formats/vectors/vector_store.h"
#include "formats/vectors/writer.h"
#include "store/batched_gets.h"
#include "unit/formats/vectors_test_data.h"
#include "unit/forwarding_store.h"

namespace chunkwise::formats::vectors {
namespace {

// A store over memory whose gets are batched, as a remote store's are,
// counting its GetMany calls and the keys they asked, and the Gets of blob
// chunks (keys ending in "/c/0") one at a time.
class BatchCountingStore final : public chunkwise::test::ForwardingStore,
                                 public store::BatchedGets {
 public:
  Result<std::optional<Bytes>> Get(std::string_view key) const override {
    if (key.ends_with("/" + std::string(kBlobChunkKey))) ++chunk_gets_;
    return ForwardingStore::Get(key);
  }
  std::vector<Result<std::optional<Bytes>>> GetMany(std::span<const std::string> keys,
                                                    const core::Cancellation*) const override {
    ++get_many_calls_;
    keys_batched_ += keys.size();
    std::vector<Result<std::optional<Bytes>>> values;
    for (const std::string& key : keys) values.push_back(inner().Get(key));
    return values;
  }
  std::vector<Result<std::optional<Bytes>>> GetRangeMany(std::span<const store::RangedKey> reads,
                                                         const core::Cancellation*) const override {
    std::vector<Result<std::optional<Bytes>>> values;
    for (const store::RangedKey& read : reads)
      values.push_back(inner().GetRange(read.key, read.range));
    return values;
  }
  std::vector<Result<std::optional<std::uint64_t>>> SizeMany(
      std::span<const std::string> keys, const core::Cancellation*) const override {
    std::vector<Result<std::optional<std::uint64_t>>> sizes;
    for (const std::string& key : keys) sizes.push_back(inner().Size(key));
    return sizes;
  }

  void Reset() {
    chunk_gets_ = 0;
    get_many_calls_ = 0;
    keys_batched_ = 0;
  }
  int chunk_gets() const { return chunk_gets_; }
  int get_many_calls() const { return get_many_calls_; }
  std::size_t keys_batched() const { return keys_batched_; }

 private:
  mutable std::atomic<int> chunk_gets_{0};
  mutable std::atomic<int> get_many_calls_{0};
  mutable std::atomic<std::size_t> keys_batched_{0};
};

TEST(VectorsBatchedReadTest, AStoreWithBatchedGetsGetsEveryChunksBlobsInOneBatch) {
  const Geometry points = test::RandomPoints(300);
  auto store = std::make_shared<BatchCountingStore>();
  ASSERT_TRUE(store::BatchesGets(*store));
  const Result<WriteSummary> written = WriteGeometry(store, "", points, test::Options(10.0));
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  VectorStoreOptions options;
  options.pool = std::make_shared<core::ThreadPool>(1);
  Result<VectorStore> opened = VectorStore::Open(store, "", options);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  ASSERT_TRUE(opened->fetches_blobs_in_batches());
  store->Reset();
  const Result<LevelGeometry> read = ReadGeometry(*opened, ReadQuery{});
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  // Every chunk's blobs (vertices, object ids, the attribute: a zarr.json
  // and a chunk each) in one batch; no blob chunk read alone.
  EXPECT_EQ(store->get_many_calls(), 1);
  EXPECT_EQ(store->chunk_gets(), 0);
  EXPECT_GE(store->keys_batched(), 6u * 2);
  EXPECT_EQ(store->keys_batched() % 6, 0u);
  // The values written: every vertex, with its object id and attribute.
  ASSERT_EQ(read->geometry.positions.size(), points.positions.size());
  const std::vector<std::int64_t> match = test::MatchVertices(points, read->geometry);
  for (std::size_t v = 0; v < match.size(); ++v) {
    ASSERT_GE(match[v], 0) << "vertex " << v << " was not read";
    EXPECT_EQ(read->geometry.object_ids[v], points.object_ids[match[v]]);
    EXPECT_EQ(read->geometry.vertex_attributes[0].values[v],
              points.vertex_attributes[0].values[match[v]]);
  }
}

}  // namespace
}  // namespace chunkwise::formats::vectors
