#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include "formats/precomputed/volume.h"
#include "store/memory_store.h"

namespace chunkwise::formats::precomputed {
namespace {

using ::testing::HasSubstr;

// (x, y, z) = (70, 50, 40) voxels in 32³ chunks: a 3 x 2 x 2 grid with cut edges.
constexpr GridCoord3 kSize{70, 50, 40};

std::uint64_t Label(core::Index x, core::Index y, core::Index z) {
  return 1 + (x / 11) + 7 * (y / 9) + 49 * (z / 13) + (((x + y + z) % 97 == 0) ? 1000000 : 0);
}

// The whole volume, C order (z, y, x).
std::vector<std::uint64_t> Volume64() {
  std::vector<std::uint64_t> v;
  for (core::Index z = 0; z < kSize[2]; ++z) {
    for (core::Index y = 0; y < kSize[1]; ++y) {
      for (core::Index x = 0; x < kSize[0]; ++x) v.push_back(Label(x, y, z));
    }
  }
  return v;
}

VolumeInfo Info(ChunkEncoding encoding, std::optional<ShardingSpec> sharding) {
  VolumeInfo info;
  info.type = VolumeType::kSegmentation;
  info.data_type = core::DataType(core::DataTypeId::kUInt64);
  ScaleInfo scale;
  scale.key = "s0";
  scale.size = kSize;
  scale.voxel_offset = {3, 0, -2};
  scale.chunk_size = {32, 32, 32};
  scale.resolution = {8, 8, 8};
  scale.encoding = encoding;
  scale.sharding = sharding;
  info.scales.push_back(scale);
  return info;
}

ShardingSpec Sharding(ShardHash hash) {
  ShardingSpec spec;
  spec.preshift_bits = 1;
  spec.minishard_bits = 1;
  spec.shard_bits = 2;
  spec.hash = hash;
  spec.minishard_index_encoding = ShardEncoding::kGzip;
  spec.data_encoding = ShardEncoding::kGzip;
  return spec;
}

// The voxels of grid cell `cell`, C order (z, y, x) of its extent.
Bytes ChunkOf(const std::vector<std::uint64_t>& volume, const ScaleInfo& scale,
              const GridCoord3& cell) {
  const GridCoord3 e = scale.ChunkExtent(cell);
  Bytes out(e[0] * e[1] * e[2] * 8);
  std::size_t i = 0;
  for (core::Index z = 0; z < e[2]; ++z) {
    for (core::Index y = 0; y < e[1]; ++y) {
      for (core::Index x = 0; x < e[0]; ++x) {
        const core::Index gx = cell[0] * 32 + x, gy = cell[1] * 32 + y, gz = cell[2] * 32 + z;
        std::memcpy(&out[8 * i++], &volume[(gz * kSize[1] + gy) * kSize[0] + gx], 8);
      }
    }
  }
  return out;
}

// Writes the whole volume through the scale's path (chunks or shards).
void WriteAll(Volume& volume, const std::vector<std::uint64_t>& voxels) {
  const ScaleInfo& scale = volume.scale(0);
  const GridCoord3 grid = scale.grid();
  std::map<std::uint64_t, std::vector<std::pair<GridCoord3, Bytes>>> shards;
  for (core::Index z = 0; z < grid[2]; ++z) {
    for (core::Index y = 0; y < grid[1]; ++y) {
      for (core::Index x = 0; x < grid[0]; ++x) {
        const GridCoord3 cell{x, y, z};
        const Bytes chunk = ChunkOf(voxels, scale, cell);
        if (!scale.sharding.has_value()) {
          ASSERT_TRUE(volume.WriteChunk(0, cell, chunk).ok());
          continue;
        }
        Result<Bytes> stored = volume.EncodeChunk(0, cell, chunk);
        ASSERT_TRUE(stored.ok());
        shards[LocateChunk(*scale.sharding, scale.ChunkId(cell)).shard].emplace_back(cell, *stored);
      }
    }
  }
  for (const auto& [shard, chunks] : shards) {
    std::vector<StoredChunk> stored;
    for (const auto& [cell, data] : chunks) stored.push_back({cell, data});
    const Status status = volume.WriteShard(0, shard, stored).status();
    ASSERT_TRUE(status.ok()) << status.ToString();
  }
}

std::vector<std::uint64_t> ReadAll(const Volume& volume, const core::Region& region) {
  Result<Bytes> bytes = volume.Read(0, region);
  EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
  std::vector<std::uint64_t> out(bytes.ok() ? bytes->size() / 8 : 0);
  if (bytes.ok()) std::memcpy(out.data(), bytes->data(), bytes->size());
  return out;
}

TEST(PrecomputedInfo, RoundTripsAndKeepsUnknownMembers) {
  VolumeInfo info = Info(ChunkEncoding::kCompressedSegmentation, Sharding(ShardHash::kIdentity));
  info.extra["mesh"] = "mesh";
  const std::string text = VolumeInfoToJson(info).dump();
  Result<VolumeInfo> parsed = ParseVolumeInfo(text, "info");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(VolumeInfoToJson(*parsed), VolumeInfoToJson(info));
  EXPECT_EQ(parsed->extra["mesh"], "mesh");
  EXPECT_EQ(parsed->scales[0].UnshardedChunkKey({2, 1, 0}), "s0/67-73_32-50_-2-30");
  EXPECT_EQ(parsed->scales[0].ShardKey(3), "s0/3.shard");
}

TEST(PrecomputedInfo, AListOfMoreThan1024ScalesIsCorruptionNamingItsCount) {
  nlohmann::json json = VolumeInfoToJson(Info(ChunkEncoding::kRaw, std::nullopt));
  const nlohmann::json scale = json["scales"][0];
  // Refused before any scale is parsed: the last one is malformed.
  while (json["scales"].size() < 1025) json["scales"].push_back(scale);
  json["scales"].push_back(nlohmann::json::object());
  Result<VolumeInfo> info = ParseVolumeInfo(json.dump(), "vol/info");
  EXPECT_EQ(info.status().code(), StatusCode::kCorruption);
  EXPECT_THAT(info.status().message(), HasSubstr("vol/info: scales: 1026 scales (at most 1024)"));
}

TEST(PrecomputedInfo, ReportsBadFieldsByName) {
  nlohmann::json json = VolumeInfoToJson(Info(ChunkEncoding::kRaw, std::nullopt));
  json["scales"][0]["size"] = {1, 2};
  Result<VolumeInfo> info = ParseVolumeInfo(json.dump(), "vol/info");
  EXPECT_EQ(info.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(info.status().message(), HasSubstr("vol/info: scales[0].size"));
  json = VolumeInfoToJson(Info(ChunkEncoding::kRaw, std::nullopt));
  json["scales"][0]["encoding"] = "jpeg";
  EXPECT_EQ(ParseVolumeInfo(json.dump(), "i").status().code(), StatusCode::kUnsupported);
  json["scales"][0]["encoding"] = "raw";
  json["scales"][0]["key"] = "../up";
  EXPECT_EQ(ParseVolumeInfo(json.dump(), "i").status().code(), StatusCode::kUnsupported);
  EXPECT_EQ(ParseVolumeInfo("[]", "i").status().code(), StatusCode::kInvalidArgument);
}

class PrecomputedVolume : public ::testing::TestWithParam<int> {
 protected:
  VolumeInfo InfoForParam() const {
    switch (GetParam()) {
      case 0:
        return Info(ChunkEncoding::kRaw, std::nullopt);
      case 1:
        return Info(ChunkEncoding::kCompressedSegmentation, std::nullopt);
      case 2:
        return Info(ChunkEncoding::kCompressedSegmentation, Sharding(ShardHash::kIdentity));
      default:
        return Info(ChunkEncoding::kRaw, Sharding(ShardHash::kMurmurHash3X86_128));
    }
  }
};

TEST_P(PrecomputedVolume, ReadsBackWhatItWrote) {
  auto store = store::MemoryStore::Create();
  Result<std::unique_ptr<Volume>> volume = Volume::Create(store, "v/", InfoForParam(), false);
  ASSERT_TRUE(volume.ok()) << volume.status().ToString();
  const std::vector<std::uint64_t> voxels = Volume64();
  WriteAll(**volume, voxels);
  Result<std::unique_ptr<Volume>> reopened = Volume::Open(store, "v/");
  ASSERT_TRUE(reopened.ok());
  EXPECT_EQ(ReadAll(**reopened, core::Region({0, 0, 0}, {40, 50, 70})), voxels);
  // A box across chunk edges.
  const core::Region box({5, 20, 30}, {38, 45, 69});
  std::vector<std::uint64_t> expected;
  for (core::Index z = 5; z < 38; ++z) {
    for (core::Index y = 20; y < 45; ++y) {
      for (core::Index x = 30; x < 69; ++x) expected.push_back(Label(x, y, z));
    }
  }
  EXPECT_EQ(ReadAll(**reopened, box), expected);
}

INSTANTIATE_TEST_SUITE_P(Encodings, PrecomputedVolume, ::testing::Range(0, 4));

TEST(PrecomputedVolumeErrors, CreateRefusesAnExistingVolume) {
  auto store = store::MemoryStore::Create();
  ASSERT_TRUE(Volume::Create(store, "", Info(ChunkEncoding::kRaw, std::nullopt), false).ok());
  Result<std::unique_ptr<Volume>> again =
      Volume::Create(store, "", Info(ChunkEncoding::kRaw, std::nullopt), false);
  EXPECT_EQ(again.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Volume::Open(store, "missing/").status().code(), StatusCode::kNotFound);
}

TEST(PrecomputedVolumeErrors, AbsentChunksReadAsZero) {
  auto store = store::MemoryStore::Create();
  auto volume = Volume::Create(
      store, "", Info(ChunkEncoding::kCompressedSegmentation, Sharding(ShardHash::kIdentity)),
      false);
  ASSERT_TRUE(volume.ok());
  EXPECT_EQ(ReadAll(**volume, core::Region({0, 0, 0}, {2, 2, 2})),
            std::vector<std::uint64_t>(8, 0));
  Result<std::optional<std::vector<std::uint64_t>>> listed = (*volume)->ListShard(0, 0);
  ASSERT_TRUE(listed.ok());
  EXPECT_FALSE(listed->has_value());
}

class DamagedShard : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = store::MemoryStore::Create();
    auto volume = Volume::Create(
        store_, "", Info(ChunkEncoding::kCompressedSegmentation, Sharding(ShardHash::kIdentity)),
        false);
    ASSERT_TRUE(volume.ok());
    WriteAll(**volume, Volume64());
    key_ = "s0/0.shard";
    shard_ = **store_->Get(key_);
  }
  Status ReadFirstChunk() {
    auto volume = Volume::Open(store_, "");
    EXPECT_TRUE(volume.ok());
    return (*volume)->Read(0, core::Region({0, 0, 0}, {1, 1, 1})).status();
  }
  std::shared_ptr<store::MemoryStore> store_;
  std::string key_;
  Bytes shard_;
};

TEST_F(DamagedShard, Truncated) {
  ASSERT_TRUE(store_->Set(key_, ByteView(shard_).first(20)).ok());
  const Status status = ReadFirstChunk();
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
  EXPECT_THAT(status.message(), HasSubstr("s0/0.shard"));
  EXPECT_THAT(status.message(), HasSubstr("truncated"));
}

TEST_F(DamagedShard, MinishardIndexPastTheEnd) {
  Bytes bad = shard_;
  StoreLittleEndian<std::uint64_t>(bad.size() * 2, &bad[8]);  // minishard 0's end
  ASSERT_TRUE(store_->Set(key_, bad).ok());
  const Status status = ReadFirstChunk();
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
  EXPECT_THAT(status.message(), HasSubstr("s0/0.shard"));
  EXPECT_THAT(status.message(), HasSubstr("minishard 0"));
}

TEST_F(DamagedShard, CompressedSegmentationTableOffsetOutOfRange) {
  // An unsharded raw-gzip-free copy: rewrite the first chunk's header so its
  // table offset points far past the chunk.
  auto store = store::MemoryStore::Create();
  VolumeInfo info = Info(ChunkEncoding::kCompressedSegmentation, std::nullopt);
  auto volume = Volume::Create(store, "", info, false);
  ASSERT_TRUE(volume.ok());
  WriteAll(**volume, Volume64());
  const std::string key = info.scales[0].UnshardedChunkKey({0, 0, 0});
  Bytes chunk = **store->Get(key);
  StoreLittleEndian<std::uint32_t>(0x00ffffff, &chunk[4]);
  ASSERT_TRUE(store->Set(key, chunk).ok());
  const Status status = (*volume)->Read(0, core::Region({0, 0, 0}, {1, 1, 1})).status();
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
  EXPECT_THAT(status.message(), HasSubstr(key));
  EXPECT_THAT(status.message(), HasSubstr("lookup table"));
}

// Forged index rows (#44): an entry naming a chunk that is not this shard's, or
// not the grid's, is never looked up, so the chunk it displaced would read as
// zeros; both are Corruption naming the shard and the chunk id.
TEST_F(DamagedShard, MinishardEntryOfAnotherShard) {
  ASSERT_TRUE(store_->Set(key_, **store_->Get("s0/1.shard")).ok());
  const Status status = ReadFirstChunk();
  EXPECT_EQ(status.code(), StatusCode::kCorruption) << status.ToString();
  EXPECT_THAT(status.message(), HasSubstr("s0/0.shard: minishard 0: chunk id 4"));
  EXPECT_THAT(status.message(), HasSubstr("belongs to shard 1"));
}

TEST(ForgedShardIndex, MinishardEntryOutsideTheGrid) {
  auto store = store::MemoryStore::Create();
  ShardingSpec sharding = Sharding(ShardHash::kIdentity);
  sharding.minishard_index_encoding = ShardEncoding::kRaw;
  auto volume =
      Volume::Create(store, "", Info(ChunkEncoding::kCompressedSegmentation, sharding), false);
  ASSERT_TRUE(volume.ok());
  WriteAll(**volume, Volume64());
  Bytes shard = **store->Get("s0/0.shard");
  // Minishard 0's index starts where the 32-byte shard index says; its first
  // word is the first id. 2^40 more keeps every id's shard and minishard bits.
  const std::uint64_t start = 32 + LoadLittleEndian<std::uint64_t>(&shard[0]);
  StoreLittleEndian<std::uint64_t>(LoadLittleEndian<std::uint64_t>(&shard[start]) + (1ULL << 40),
                                   &shard[start]);
  ASSERT_TRUE(store->Set("s0/0.shard", shard).ok());
  auto reopened = Volume::Open(store, "");
  ASSERT_TRUE(reopened.ok());
  const Status status = (*reopened)->Read(0, core::Region({0, 0, 0}, {1, 1, 1})).status();
  EXPECT_EQ(status.code(), StatusCode::kCorruption) << status.ToString();
  EXPECT_THAT(status.message(), HasSubstr("s0/0.shard: minishard 0: chunk id 1099511627776"));
  EXPECT_THAT(status.message(), HasSubstr("outside the grid (3, 2, 2)"));
}

}  // namespace
}  // namespace chunkwise::formats::precomputed
