// libFuzzer target: the `sharding_indexed` codec decoding arbitrary bytes as a
// shard, as an Array does with what a store returns.
//
// The first byte picks one of a few fixed small configurations (index at the
// start or end; raw, zstd, crc32c or nested-shard inner chunks); the rest is
// the shard. Decode, a region decode and a partial rewrite over the shard
// (the write path's merge) must return a value or an error and never crash;
// a successful decode has exactly the shard's size, and a successful rewrite
// decodes again.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "chunkwise/core/check.h"
#include "formats/zarr/sharding_codec.h"

namespace {

using chunkwise::Bytes;
using chunkwise::ByteView;
using chunkwise::Result;
using chunkwise::codec::ChunkSpec;
using chunkwise::formats::zarr::ShardingCodec;
using nlohmann::json;

const json kBytes = {{"name", "bytes"}, {"configuration", {{"endian", "little"}}}};

json Sharding(json chunk_shape, json codecs, const char* index_location) {
  return {{"chunk_shape", std::move(chunk_shape)},
          {"codecs", std::move(codecs)},
          {"index_codecs", json::array({kBytes, {{"name", "crc32c"}}})},
          {"index_location", index_location}};
}

std::vector<std::shared_ptr<const ShardingCodec>> MakeCodecs() {
  const chunkwise::codec::CodecRegistry registry = chunkwise::formats::zarr::ZarrCodecRegistry();
  const json zstd = {{"name", "zstd"}, {"configuration", {{"level", 1}}}};
  const json nested = {{"name", "sharding_indexed"},
                       {"configuration", Sharding({2, 3}, json::array({kBytes}), "start")}};
  const std::vector<json> configurations = {
      Sharding({4, 3}, json::array({kBytes}), "end"),
      Sharding({4, 3}, json::array({kBytes}), "start"),
      Sharding({2, 3}, json::array({kBytes, zstd}), "end"),
      Sharding({4, 3}, json::array({kBytes, {{"name", "crc32c"}}}), "start"),
      Sharding({4, 6}, json::array({nested}), "end"),
  };
  std::vector<std::shared_ptr<const ShardingCodec>> codecs;
  for (const json& configuration : configurations) {
    auto codec = ShardingCodec::FromJson(configuration, registry);
    CHUNKWISE_CHECK(codec.ok());
    codecs.push_back(std::move(codec).value());
  }
  return codecs;
}

// The write path over an old shard: a partial box keeps, decodes or replaces inner chunks.
void Rewrite(const ShardingCodec& codec, const ChunkSpec& spec, ByteView shard) {
  const chunkwise::formats::zarr::ShardByteReader read =
      [shard](std::uint64_t offset, std::uint64_t nbytes, Bytes&) -> Result<ByteView> {
    return shard.subspan(offset, nbytes);
  };
  const std::size_t n = static_cast<std::size_t>(codec.InnerGrid(spec.shape).num_chunks());
  Result<chunkwise::formats::zarr::ShardIndex> index = codec.ReadIndex(read, shard.size(), n, "f");
  if (!index.ok()) return;
  const std::vector<std::uint16_t> values(6, 0x1234);
  const chunkwise::core::Shape box_shape = {2, 3};
  const chunkwise::core::Coord origin = {0, 0};
  const chunkwise::core::Region box({1, 2}, {3, 5});  // Cuts several inner chunks.
  const chunkwise::formats::zarr::ShardWriteSource write{{values.data(), box_shape, origin}, box};
  const auto merged = codec.EncodeMerged(spec, write, *index, read, "f");
  if (!merged.ok() || !merged->has_value()) return;
  const Result<Bytes> decoded = codec.Decode(spec, (*merged)->Join());
  CHUNKWISE_CHECK(decoded.ok() && decoded->size() == spec.num_bytes());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<std::shared_ptr<const ShardingCodec>> codecs = MakeCodecs();
  if (size == 0) return 0;
  const ShardingCodec& codec = *codecs[data[0] % codecs.size()];
  const ByteView shard(data + 1, size - 1);
  const ChunkSpec spec{
      chunkwise::core::DataType(chunkwise::core::DataTypeId::kUInt16), {8, 6}, {0x07, 0x00}};
  const Result<Bytes> decoded = codec.Decode(spec, shard);
  if (decoded.ok()) CHUNKWISE_CHECK(decoded->size() == spec.num_bytes());
  Rewrite(codec, spec, shard);
  return 0;
}
