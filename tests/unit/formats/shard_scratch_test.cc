// ShardScratch lends buffers that come back to it, and the sharding codec
// borrows every per-chunk buffer from the scratch of the call's context (none
// kept per thread): after a parallel call, the caller's scratch holds them.
#include "formats/zarr/shard_scratch.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "chunkwise/core/thread_pool.h"
#include "formats/zarr/sharding_codec.h"

namespace chunkwise::formats::zarr {
namespace {

using codec::ChunkSpec;
using nlohmann::json;

TEST(ShardScratch, AGivenBackBufferIsLentAgainWithItsMemory) {
  ShardScratch scratch;
  const std::uint8_t* first = nullptr;
  {
    ShardScratch::Lease lease(scratch);
    EXPECT_EQ(lease.get().capacity(), 0u);
    lease.get().resize(1000);
    first = lease.get().data();
    EXPECT_EQ(scratch.idle_count(), 0u);
  }
  EXPECT_EQ(scratch.idle_count(), 1u);
  EXPECT_GE(scratch.idle_bytes(), 1000u);
  ShardScratch::Lease again(scratch);
  EXPECT_EQ(again.get().data(), first);
  EXPECT_GE(again.get().capacity(), 1000u);
  EXPECT_EQ(scratch.idle_count(), 0u);
}

TEST(ShardScratch, LeasesHeldAtOnceGetBuffersOfTheirOwn) {
  ShardScratch scratch;
  {
    ShardScratch::Lease a(scratch);
    a.get().resize(10);
  }
  ShardScratch::Lease a(scratch);
  ShardScratch::Lease b(scratch);
  EXPECT_EQ(a.get().size(), 10u);     // The idle one.
  EXPECT_EQ(b.get().capacity(), 0u);  // A new, empty one.
  b.get().resize(20);
  EXPECT_NE(a.get().data(), b.get().data());
}

TEST(ShardScratch, ABufferGrownPastTheLimitIsFreedNotKept) {
  ShardScratch scratch;
  {
    ShardScratch::Lease huge(scratch);
    huge.get().resize(ShardScratch::kMaxKeptBytes + 1);
  }
  EXPECT_EQ(scratch.idle_count(), 0u);
  {
    ShardScratch::Lease unused(scratch);  // Never grown: nothing to keep.
  }
  EXPECT_EQ(scratch.idle_count(), 0u);
}

// uint16 elements 1, 2, 3, ... in host order (never the fill value 0).
Bytes Counting(std::size_t elements) {
  Bytes bytes(2 * elements);
  for (std::size_t i = 0; i < elements; ++i) {
    const auto value = static_cast<std::uint16_t>(i + 1);
    std::memcpy(bytes.data() + 2 * i, &value, 2);
  }
  return bytes;
}

std::shared_ptr<const ShardingCodec> Sharding(const json& inner_codecs) {
  const json configuration = {{"chunk_shape", {4, 4}}, {"codecs", inner_codecs}};
  Result<std::shared_ptr<const ShardingCodec>> codec =
      ShardingCodec::FromJson(configuration, ZarrCodecRegistry());
  EXPECT_TRUE(codec.ok()) << codec.status().ToString();
  return codec.ok() ? *codec : nullptr;
}

// A transpose inner chain cannot decode into the caller's array, so every
// inner chunk goes through a decoded buffer borrowed from the scratch.
TEST(ShardScratch, ShardCallsBorrowFromTheContextsScratchOnItsPool) {
  const auto sharding =
      Sharding(json::array({{{"name", "transpose"}, {"configuration", {{"order", {1, 0}}}}},
                            {{"name", "bytes"}, {"configuration", {{"endian", "little"}}}},
                            "crc32c"}));
  ASSERT_NE(sharding, nullptr);
  const ChunkSpec spec{core::DataType(core::DataTypeId::kUInt16), {16, 16}, {0, 0}};
  const Bytes data = Counting(256);
  core::ThreadPool pool(3);
  ShardScratch scratch;
  const ShardCallContext context{&pool, &scratch};
  const core::Coord origin = {0, 0};
  const ShardWriteSource write{{data.data(), spec.shape, origin}, core::Region::Full(spec.shape)};
  Result<std::optional<EncodedShard>> encoded =
      sharding->EncodeMerged(spec, write, std::nullopt, {}, "k", context);
  ASSERT_TRUE(encoded.ok()) << encoded.status().ToString();
  ASSERT_TRUE(encoded->has_value());
  const Bytes shard = (*encoded)->Join();
  // The same bytes as the codec made on one thread with buffers of its own.
  const Result<Bytes> serial = sharding->Encode(spec, data);
  ASSERT_TRUE(serial.ok());
  EXPECT_EQ(shard, *serial);
  // Every inner chunk's buffer went back to the caller's scratch: at most one
  // per task running at once (3 workers and the calling thread), each at least
  // an inner chunk (4×4 uint16).
  const std::size_t after_encode = scratch.idle_count();
  EXPECT_GE(after_encode, 1u);
  EXPECT_LE(after_encode, 2u * 4u);
  EXPECT_GE(scratch.idle_bytes(), 32u);

  const ShardByteReader read = MemoryShardReader(shard);
  const Result<ShardIndex> index = sharding->ReadIndex(read, shard.size(), 16, "k");
  ASSERT_TRUE(index.ok()) << index.status().ToString();
  for (int pass = 0; pass < 3; ++pass) {  // Reused, not grown, from call to call.
    Bytes out(spec.num_bytes());
    ASSERT_TRUE(sharding
                    ->DecodeRegion(spec, *index, read, core::Region::Full(spec.shape),
                                   {out.data(), spec.shape, origin}, "k", context)
                    .ok());
    EXPECT_EQ(out, data);
    EXPECT_LE(scratch.idle_count(), 2u * 4u);
  }
}

}  // namespace
}  // namespace chunkwise::formats::zarr
