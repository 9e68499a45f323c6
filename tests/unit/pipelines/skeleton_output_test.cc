// pipelines/skeletons WriteSkeletons with SkeletonOutput::kPrecomputedSharded:
// shard files through formats/precomputed/segment_shards.h, the info naming
// the sharding, and whole-or-nothing writing.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "formats/precomputed/segment_shards.h"
#include "pipelines/skeletons/skeletonize.h"
#include "unit/forwarding_store.h"

namespace chunkwise::pipelines::skeletons {
namespace {

namespace pc = formats::precomputed;

// Fails every write of a key containing `poison` once armed.
class FailingStore : public test::ForwardingStore {
 public:
  std::string poison;
  Status Set(std::string_view key, ByteView value) override {
    if (!poison.empty() && key.find(poison) != std::string_view::npos) {
      return Status::IOError("disk full writing " + std::string(key));
    }
    return ForwardingStore::Set(key, value);
  }
};

std::vector<Skeleton> Some(int n) {
  std::vector<Skeleton> out;
  for (int i = 0; i < n; ++i) {
    Skeleton s;
    s.label = 1000 + 37 * static_cast<std::uint64_t>(i);
    for (int v = 0; v <= i % 4; ++v) {
      s.vertices.push_back({float(i), float(v), 0.5f});
      s.radii.push_back(float(v) + 1);
      if (v > 0) s.edges.push_back({std::uint32_t(v), std::uint32_t(v - 1)});
    }
    out.push_back(std::move(s));
  }
  return out;
}

TEST(SkeletonOutput, ShardedSkeletonsAreTheEncodedFilesByLabel) {
  FailingStore store;
  const std::vector<Skeleton> skeletons = Some(40);  // 6 bits: 3 minishard bits, one shard
  WriteSkeletonsOptions options;
  options.output = SkeletonOutput::kPrecomputedSharded;
  auto written = WriteSkeletons(store, skeletons, options);
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_EQ(written->prefix, "");
  EXPECT_EQ(written->files, 2u);
  const auto info = nlohmann::json::parse(**store.Get("info"));
  auto spec = pc::ParseShardingSpec(info["sharding"], "info");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(*spec, pc::SegmentSharding(40));
  EXPECT_EQ(spec->minishard_bits, 3);
  EXPECT_EQ(*store.List(""), (std::vector<std::string>{"0.shard", "info"}));
  for (const Skeleton& s : skeletons) {
    auto chunk = pc::ReadSegmentChunk(store, "", *spec, s.label);
    ASSERT_TRUE(chunk.ok() && chunk->has_value()) << s.label;
    EXPECT_EQ(**chunk, pc::EncodeSkeleton(s)) << s.label;
  }
}

TEST(SkeletonOutput, AFailedShardedWriteLeavesNothing) {
  for (const char* poison : {"shard", "info"}) {
    FailingStore store;
    store.poison = poison;
    WriteSkeletonsOptions options;
    options.output = SkeletonOutput::kPrecomputedSharded;
    auto written = WriteSkeletons(store, Some(5), options);
    EXPECT_EQ(written.status().code(), StatusCode::kIOError) << poison;
    EXPECT_TRUE(store.List("")->empty()) << poison;
  }
}

}  // namespace
}  // namespace chunkwise::pipelines::skeletons
