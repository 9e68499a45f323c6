#include "formats/dvid/labelmap.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <random>

#include "chunkwise/core/thread_pool.h"
#include "codec/gzip_codec.h"
#include "core/file_io.h"
#include "formats/dvid/downsample.h"
#include "formats/dvid/ingest.h"
#include "formats/dvid/value_envelope.h"
#include "unit/scratch_directory.h"

namespace chunkwise::formats::dvid {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A volume of blobby segments: labels change every few voxels along each axis.
std::vector<std::uint64_t> Segments(std::array<std::int64_t, 3> shape, std::uint64_t seed) {
  std::vector<std::uint64_t> volume(shape[0] * shape[1] * shape[2]);
  std::size_t i = 0;
  for (std::int64_t z = 0; z < shape[0]; ++z) {
    for (std::int64_t y = 0; y < shape[1]; ++y) {
      for (std::int64_t x = 0; x < shape[2]; ++x) {
        volume[i++] = ((z / 7) * 131 + (y / 11) * 17 + (x / 13) + seed) % 23 + seed * 100;
      }
    }
  }
  return volume;
}

class LabelmapTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = test::FreshScratchDirectory("db");
    Result<std::shared_ptr<store::RocksDbStore>> db = store::RocksDbStore::Open(path_);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = *db;
    Result<std::unique_ptr<Labelmap>> labelmap = Labelmap::Open(db_, true);
    ASSERT_TRUE(labelmap.ok()) << labelmap.status().ToString();
    labelmap_ = std::move(*labelmap);
  }

  IngestSummary Ingest(const std::vector<std::uint64_t>& volume, std::array<std::int64_t, 3> shape,
                       std::array<std::int64_t, 3> offset, std::uint32_t version = 0,
                       int scales = 0) {
    IngestOptions options{
        .version = version, .offset = offset, .downsample_scales = scales, .pool = &pool_};
    Result<IngestSummary> summary = IngestVolume(*labelmap_, volume, shape, options);
    EXPECT_TRUE(summary.ok()) << summary.status().ToString();
    return summary.ok() ? *summary : IngestSummary{};
  }

  std::vector<std::uint64_t> Read(std::uint32_t version, int scale, VoxelBox box) {
    Result<std::vector<std::uint64_t>> region = labelmap_->ReadRegion(version, scale, box, &pool_);
    EXPECT_TRUE(region.ok()) << region.status().ToString();
    return region.ok() ? *region : std::vector<std::uint64_t>();
  }

  fs::path path_;
  std::shared_ptr<store::RocksDbStore> db_;
  std::unique_ptr<Labelmap> labelmap_;
  core::ThreadPool pool_{3};
};

TEST(BlockKey, LayoutSortsSignedCoordinatesInZyxOrder) {
  const std::string key = EncodeBlockKey({7, 2, {-1, 0, 1}, 3, 0, KeyType::kData});
  ASSERT_EQ(key.size(), kBlockKeySize);
  EXPECT_EQ(HexKey(key),
            "0100000007ba0102"
            "80000001"
            "80000000"
            "7fffffff"
            "00000003"
            "00000000"
            "03");
  Result<BlockKey> decoded = DecodeBlockKey(key);
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(decoded->coord, (BlockCoord{-1, 0, 1}));
  EXPECT_EQ(decoded->version, 3u);
  EXPECT_LT(BlockPositionKey(1, 0, {5, 5, -2}), BlockPositionKey(1, 0, {0, 0, -1}));
  EXPECT_LT(BlockPositionKey(1, 0, {9, -3, 0}), BlockPositionKey(1, 0, {-9, 4, 0}));
  EXPECT_LT(BlockPositionKey(1, 0, {-2, 0, 0}), BlockPositionKey(1, 0, {1, 0, 0}));
  EXPECT_EQ(DecodeBlockKey(key.substr(1)).status().code(), StatusCode::kCorruption);
}

TEST(VersionDag, BranchNeedsCommitAndAncestryIsNearestFirst) {
  VersionDag dag;
  EXPECT_EQ(dag.Branch(1, "early").status().code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(dag.Commit(1, "").ok());
  EXPECT_EQ(dag.Commit(1, "").code(), StatusCode::kInvalidArgument);
  Result<std::uint32_t> a = dag.Branch(1, "a");
  Result<std::uint32_t> b = dag.Branch(1, "b");
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE(dag.Commit(*a, "").ok());
  Result<std::uint32_t> c = dag.Branch(*a, "c");
  ASSERT_TRUE(c.ok());
  EXPECT_THAT(*dag.Ancestry(*c), ElementsAre(4u, 2u, 1u));
  EXPECT_THAT(*dag.Ancestry(*b), ElementsAre(3u, 1u));
  EXPECT_EQ(dag.newest_open(), 4u);
  Result<VersionDag> again = VersionDag::FromJson(dag.ToJson(), "json");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->ToJson(), dag.ToJson());
  nlohmann::json bad = dag.ToJson();
  bad["versions"][3]["parent"] = 3;  // Version 3 is open: it cannot have a child.
  EXPECT_THAT(std::string(VersionDag::FromJson(bad, "meta").status().message()),
              HasSubstr("branches from open version 3"));
  EXPECT_EQ(dag.Ancestry(9).status().code(), StatusCode::kNotFound);
}

TEST_F(LabelmapTest, UnalignedIngestReadsBackExactly) {
  const std::array<std::int64_t, 3> shape{70, 90, 150};
  const std::array<std::int64_t, 3> offset{-10, 5, 70};
  const std::vector<std::uint64_t> volume = Segments(shape, 1);
  const IngestSummary summary = Ingest(volume, shape, offset);
  EXPECT_EQ(summary.version, 1u);
  EXPECT_EQ(summary.blocks.begin, (BlockCoord{1, 0, -1}));
  EXPECT_EQ(summary.blocks.end, (BlockCoord{4, 2, 1}));
  EXPECT_EQ(summary.blocks_written[0], 12u);
  EXPECT_EQ(Read(1, 0, {offset, shape}), volume);
  // Around it: zeros, and the volume in the middle.
  const std::vector<std::uint64_t> wide = Read(1, 0, {{-20, 0, 60}, {90, 100, 170}});
  for (std::int64_t z = 0; z < 90; ++z) {
    for (std::int64_t y = 0; y < 100; ++y) {
      for (std::int64_t x = 0; x < 170; ++x) {
        const std::int64_t vz = z - 10, vy = y - 5, vx = x - 10;
        const bool inside = vz >= 0 && vz < 70 && vy >= 0 && vy < 90 && vx >= 0 && vx < 150;
        const std::uint64_t expected = inside ? volume[(vz * 90 + vy) * 150 + vx] : 0;
        ASSERT_EQ(wide[(z * 100 + y) * 170 + x], expected) << z << "," << y << "," << x;
      }
    }
  }
}

// dvid read's default: the whole blocks holding every visible block.
TEST_F(LabelmapTest, StoredExtentCoversTheVisibleBlocks) {
  Result<std::optional<VoxelBox>> none = labelmap_->StoredExtent(1, 0);
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_FALSE(none->has_value());
  Ingest(Segments({10, 70, 5}, 1), {10, 70, 5}, {-3, 60, 130});
  Result<std::optional<VoxelBox>> extent = labelmap_->StoredExtent(1, 0);
  ASSERT_TRUE(extent.ok()) << extent.status().ToString();
  ASSERT_TRUE(extent->has_value());
  EXPECT_EQ((*extent)->offset, (std::array<std::int64_t, 3>{-64, 0, 128}));
  EXPECT_EQ((*extent)->shape, (std::array<std::int64_t, 3>{128, 192, 64}));
}

TEST_F(LabelmapTest, ScanIsNativeZyxOrderOfStoredBlocks) {
  const std::array<std::int64_t, 3> shape{130, 70, 130};
  Ingest(Segments(shape, 2), shape, {-64, 0, -64});
  std::vector<std::array<std::int32_t, 3>> seen;
  ASSERT_TRUE(labelmap_
                  ->ScanAllBlocks(1, 0,
                                  [&](const BlockCoord& c, ByteView value) {
                                    EXPECT_EQ(value[0], kGzipEnvelope);
                                    seen.push_back({c.z, c.y, c.x});
                                    return Status::Ok();
                                  })
                  .ok());
  ASSERT_EQ(seen.size(), 3u * 2 * 3);
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
  EXPECT_EQ(seen.front(), (std::array<std::int32_t, 3>{-1, 0, -1}));
}

TEST_F(LabelmapTest, PartialIngestKeepsLabelsOutsideTheVolume) {
  const std::array<std::int64_t, 3> shape{64, 64, 128};
  std::vector<std::uint64_t> base = Segments(shape, 3);
  Ingest(base, shape, {0, 0, 0});
  const std::array<std::int64_t, 3> patch_shape{10, 20, 30};
  const std::vector<std::uint64_t> patch(10 * 20 * 30, 999);
  Ingest(patch, patch_shape, {5, 6, 50});
  for (std::int64_t z = 5; z < 15; ++z) {
    for (std::int64_t y = 6; y < 26; ++y) {
      for (std::int64_t x = 50; x < 80; ++x) base[(z * 64 + y) * 128 + x] = 999;
    }
  }
  EXPECT_EQ(Read(1, 0, {{0, 0, 0}, shape}), base);
}

TEST_F(LabelmapTest, VersionsSeeNearestAncestorAndTombstones) {
  const std::array<std::int64_t, 3> shape{64, 64, 128};
  const std::vector<std::uint64_t> first = Segments(shape, 4);
  Ingest(first, shape, {0, 0, 0});
  ASSERT_TRUE(labelmap_->Commit(1, "first").ok());
  EXPECT_EQ(labelmap_->PutBlock(1, 0, {0, 0, 0}, first).code(), StatusCode::kInvalidArgument);
  Result<std::uint32_t> child = labelmap_->Branch(1, "edit");
  ASSERT_TRUE(child.ok());
  const std::vector<std::uint64_t> patch(64 * 64 * 64, 42);
  Ingest(patch, {64, 64, 64}, {0, 0, 64}, *child);
  ASSERT_TRUE(labelmap_->DeleteBlock(*child, 0, {0, 0, 0}).ok());

  EXPECT_EQ(Read(1, 0, {{0, 0, 0}, shape}), first);
  const std::vector<std::uint64_t> edited = Read(*child, 0, {{0, 0, 0}, shape});
  for (std::size_t i = 0; i < edited.size(); ++i) {
    ASSERT_EQ(edited[i], (i % 128) < 64 ? 0u : 42u) << i;
  }
  Result<std::optional<Bytes>> gone = labelmap_->GetBlock(*child, 0, {0, 0, 0});
  ASSERT_TRUE(gone.ok());
  EXPECT_FALSE(gone->has_value());
  // Writing the block again in the same version replaces the tombstone.
  ASSERT_TRUE(labelmap_->PutBlock(*child, 0, {0, 0, 0}, patch).ok());
  EXPECT_EQ(Read(*child, 0, {{0, 0, 0}, {64, 64, 64}}), patch);

  Result<LabelmapStats> stats = labelmap_->Stats();
  ASSERT_TRUE(stats.ok());
  ASSERT_EQ(stats->scales.size(), 1u);
  EXPECT_EQ(stats->scales[0].data_entries, 4u);
  EXPECT_EQ(stats->scales[0].tombstones, 0u);
  EXPECT_EQ(stats->scales[0].visible_blocks[1], 2u);
  EXPECT_EQ(stats->scales[0].visible_blocks[*child], 2u);

  // Versions persist.
  labelmap_.reset();
  Result<std::unique_ptr<Labelmap>> reopened = Labelmap::Open(db_, false);
  ASSERT_TRUE(reopened.ok());
  EXPECT_EQ((*reopened)->versions().nodes().size(), 2u);
  EXPECT_TRUE((*reopened)->versions().nodes()[0].committed);
}

TEST(Downsample, ModeTiesGoToSmallerLabel) {
  EXPECT_EQ(ModeOfEight({5, 5, 5, 5, 5, 5, 5, 5}), 5u);
  EXPECT_EQ(ModeOfEight({9, 9, 9, 1, 1, 1, 0, 0}), 1u);
  EXPECT_EQ(ModeOfEight({9, 9, 9, 9, 1, 1, 1, 1}), 1u);
  EXPECT_EQ(ModeOfEight({0, 0, 0, 7, 7, 8, 8, 8}), 0u);
  EXPECT_EQ(ModeOfEight({3, 7, 7, 2, 2, 7, 2, 0}), 2u);
  EXPECT_EQ(ModeOfEight({1, 2, 3, 4, 5, 6, 7, 8}), 1u);
}

// The reference: the mode rule written out the slow way.
std::vector<std::uint64_t> Downsampled(const std::vector<std::uint64_t>& in,
                                       std::array<std::int64_t, 3> shape) {
  std::vector<std::uint64_t> out;
  for (std::int64_t z = 0; z < shape[0] / 2; ++z) {
    for (std::int64_t y = 0; y < shape[1] / 2; ++y) {
      for (std::int64_t x = 0; x < shape[2] / 2; ++x) {
        std::map<std::uint64_t, int> counts;
        for (int i = 0; i < 8; ++i) {
          ++counts[in[((2 * z + (i >> 2)) * shape[1] + 2 * y + ((i >> 1) & 1)) * shape[2] + 2 * x +
                      (i & 1)]];
        }
        std::uint64_t best = 0;
        int best_count = 0;
        for (const auto& [label, count] : counts) {
          if (count > best_count) best = label, best_count = count;
        }
        out.push_back(best);
      }
    }
  }
  return out;
}

TEST_F(LabelmapTest, ScalesAreModeDownsamplingOfTheScaleBelow) {
  const std::array<std::int64_t, 3> shape{96, 80, 200};
  std::vector<std::uint64_t> volume = Segments(shape, 5);
  std::mt19937_64 random(1);
  for (std::uint64_t& v : volume) {
    if (random() % 5 == 0) v = random() % 4;  // Noise makes ties and zeros.
  }
  const IngestSummary summary = Ingest(volume, shape, {0, 0, 0}, 0, 2);
  ASSERT_EQ(summary.blocks_written.size(), 3u);
  EXPECT_EQ(labelmap_->num_scales(), 3);
  const std::vector<std::uint64_t> s0 = Read(1, 0, {{0, 0, 0}, {128, 128, 256}});
  const std::vector<std::uint64_t> s1 = Read(1, 1, {{0, 0, 0}, {64, 64, 128}});
  EXPECT_EQ(s1, Downsampled(s0, {128, 128, 256}));
  EXPECT_EQ(Read(1, 2, {{0, 0, 0}, {32, 32, 64}}), Downsampled(s1, {64, 64, 128}));
  EXPECT_EQ(summary.blocks_written[2], 1u);
}

TEST_F(LabelmapTest, MappingIsVersioned) {
  const std::vector<LabelPair> pairs{{10, 100}, {11, 100}, {12, 200}};
  ASSERT_TRUE(labelmap_->SetMappings(1, pairs).ok());
  ASSERT_TRUE(labelmap_->Commit(1, "").ok());
  Result<std::uint32_t> child = labelmap_->Branch(1, "");
  ASSERT_TRUE(child.ok());
  const std::vector<std::uint64_t> split{11};
  const std::vector<std::uint64_t> merged{12, 13};
  ASSERT_TRUE(labelmap_->Split(*child, split).ok());
  ASSERT_TRUE(labelmap_->Merge(*child, 100, merged).ok());
  EXPECT_EQ(*labelmap_->MappedLabel(1, 11), std::optional<std::uint64_t>(100));
  EXPECT_EQ(*labelmap_->MappedLabel(*child, 11), std::optional<std::uint64_t>(0));
  EXPECT_EQ(*labelmap_->MappedLabel(1, 13), std::nullopt);
  Result<std::unordered_map<std::uint64_t, std::uint64_t>> at1 = labelmap_->MappingAt(1);
  Result<std::unordered_map<std::uint64_t, std::uint64_t>> at2 = labelmap_->MappingAt(*child);
  ASSERT_TRUE(at1.ok() && at2.ok());
  EXPECT_EQ(*at1,
            (std::unordered_map<std::uint64_t, std::uint64_t>{{10, 100}, {11, 100}, {12, 200}}));
  EXPECT_EQ(*at2, (std::unordered_map<std::uint64_t, std::uint64_t>{
                      {10, 100}, {11, 0}, {12, 100}, {13, 100}}));
  EXPECT_EQ(labelmap_->SetMappings(1, pairs).code(), StatusCode::kInvalidArgument);
}

Bytes TestdataFile(const std::string& name) {
  Result<Bytes> bytes =
      core::ReadFile(std::string(CHUNKWISE_SHARED_DIR) + "/testdata/dvid/" + name);
  EXPECT_TRUE(bytes.ok());
  return bytes.ok() ? *bytes : Bytes();
}

TEST_F(LabelmapTest, ReadsValueStoredAsDvidStoresAPostedBlock) {
  // DVID stores a POSTed gzip block as 0x40 + the client's gzip stream.
  const Bytes gzip_block = TestdataFile("fib19-64x64x64-sample1-block.dat.gz");
  Bytes value{kGzipEnvelope};
  value.insert(value.end(), gzip_block.begin(), gzip_block.end());
  ASSERT_TRUE(db_->SetBinary(EncodeBlockKey({1, 0, {2, 3, 4}, 1, 0, KeyType::kData}), value).ok());
  Result<Bytes> volume = (*codec::GzipCodec::Create(6))
                             ->Decode(TestdataFile("fib19-64x64x64-sample1.dat.gz"), 4 << 20);
  ASSERT_TRUE(volume.ok());
  const std::vector<std::uint64_t> read = Read(1, 0, {{4 * 64, 3 * 64, 2 * 64}, {64, 64, 64}});
  ASSERT_EQ(read.size() * 8, volume->size());
  EXPECT_EQ(std::memcmp(read.data(), volume->data(), volume->size()), 0);
}

TEST_F(LabelmapTest, CorruptValuesAreClearErrors) {
  const std::string key = EncodeBlockKey({1, 0, {0, 0, 0}, 1, 0, KeyType::kData});
  ASSERT_TRUE(db_->SetBinary(key, Bytes{kGzipEnvelope, 0x1f, 0x8b, 0x08, 0, 1, 2, 3}).ok());
  Result<std::vector<std::uint64_t>> region = labelmap_->ReadRegion(1, 0, {{0, 0, 0}, {8, 8, 8}});
  ASSERT_FALSE(region.ok());
  EXPECT_EQ(region.status().code(), StatusCode::kCorruption);
  EXPECT_THAT(std::string(region.status().message()), HasSubstr("block (x,y,z) 0,0,0 scale 0"));
  // Valid gzip around bytes that are not a label block.
  Result<Bytes> not_a_block = EncodeGzipValue(AsBytes("definitely not a label block"));
  ASSERT_TRUE(not_a_block.ok());
  ASSERT_TRUE(db_->SetBinary(key, *not_a_block).ok());
  region = labelmap_->ReadRegion(1, 0, {{0, 0, 0}, {8, 8, 8}});
  ASSERT_FALSE(region.ok());
  EXPECT_EQ(region.status().code(), StatusCode::kCorruption);
  // An empty value and an unknown compression.
  ASSERT_TRUE(db_->SetBinary(key, Bytes{}).ok());
  EXPECT_THAT(std::string(labelmap_->GetBlock(1, 0, {0, 0, 0}).status().message()),
              HasSubstr("empty DVID value"));
  ASSERT_TRUE(db_->SetBinary(key, Bytes{0xa0, 1, 2}).ok());
  EXPECT_EQ(labelmap_->GetBlock(1, 0, {0, 0, 0}).status().code(), StatusCode::kUnsupported);
}

TEST(ValueEnvelope, DecodesEveryStoredForm) {
  const Bytes payload(1000, 7);
  Result<Bytes> gzip = EncodeGzipValue(payload);
  ASSERT_TRUE(gzip.ok());
  EXPECT_EQ((*gzip)[0], 0x40);
  EXPECT_EQ(*DecodeValue(*gzip, 1000, "g"), payload);
  EXPECT_EQ(DecodeValue(*gzip, 999, "g").status().code(), StatusCode::kOutOfRange);
  const Bytes plain = EncodeUncompressedValue(payload, false);
  EXPECT_EQ(*DecodeValue(plain, 1000, "p"), payload);
  Bytes checked = EncodeUncompressedValue(payload, true);
  EXPECT_EQ(*DecodeValue(checked, 1000, "c"), payload);
  checked.back() ^= 1;
  EXPECT_THAT(std::string(DecodeValue(checked, 1000, "c").status().message()), HasSubstr("CRC32"));
}

TEST(LabelVolumeFromNpy, AcceptsAnyIntegerWidthOrderAndByteOrder) {
  core::NpyArray array;
  array.dtype = *core::NpyDtype::FromTypestr(">u2");
  array.shape = {2, 1, 3};
  array.fortran_order = true;
  // Fortran order: x varies slowest. Values 1..6 big-endian.
  for (std::uint16_t v : {1, 4, 2, 5, 3, 6}) {
    array.data.push_back(static_cast<std::uint8_t>(v >> 8));
    array.data.push_back(static_cast<std::uint8_t>(v));
  }
  std::array<std::int64_t, 3> shape{};
  Result<std::vector<std::uint64_t>> labels = LabelVolumeFromNpy(array, shape, "v.npy");
  ASSERT_TRUE(labels.ok()) << labels.status().ToString();
  EXPECT_EQ(shape, (std::array<std::int64_t, 3>{2, 1, 3}));
  EXPECT_THAT(*labels, ElementsAre(1, 2, 3, 4, 5, 6));
  array.dtype = *core::NpyDtype::FromTypestr("<i2");
  array.data[0] = 0xff;
  array.data[1] = 0xff;
  EXPECT_THAT(std::string(LabelVolumeFromNpy(array, shape, "v.npy").status().message()),
              HasSubstr("negative label"));
  array.dtype = *core::NpyDtype::FromTypestr("<f4");
  array.data.resize(24);
  EXPECT_EQ(LabelVolumeFromNpy(array, shape, "v.npy").status().code(),
            StatusCode::kInvalidArgument);
}

TEST(ApplyMapping, MappedEvenToZeroOthersUnchanged) {
  std::vector<std::uint64_t> labels{1, 1, 2, 3, 3, 4, 1};
  ApplyMapping({{1, 10}, {3, 0}}, labels);
  EXPECT_THAT(labels, ElementsAre(10, 10, 2, 0, 0, 4, 10));
}

TEST_F(LabelmapTest, OpenWithoutCreateNeedsMetadata) {
  Result<std::shared_ptr<store::RocksDbStore>> db =
      store::RocksDbStore::Open(test::FreshScratchDirectory("db"));
  ASSERT_TRUE(db.ok());
  EXPECT_EQ(Labelmap::Open(*db, false).status().code(), StatusCode::kNotFound);
  ASSERT_TRUE((*db)->Set(kLabelmapMetadataKey, AsBytes("{\"format\": 3}")).ok());
  EXPECT_EQ(Labelmap::Open(*db, false).status().code(), StatusCode::kCorruption);
}

}  // namespace
}  // namespace chunkwise::formats::dvid
