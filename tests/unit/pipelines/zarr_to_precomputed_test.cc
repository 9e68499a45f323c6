#include "pipelines/zarr_to_precomputed.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include "chunkwise/core/downsample.h"
#include "formats/precomputed/volume.h"
#include "formats/zarr/array.h"
#include "store/memory_store.h"

namespace chunkwise::pipelines {
namespace {

namespace pc = formats::precomputed;
using nlohmann::json;
using ::testing::HasSubstr;

constexpr std::array<core::Index, 3> kShape{21, 30, 45};  // z, y, x

template <typename T>
std::shared_ptr<store::MemoryStore> MakeArray(core::DataTypeId type, std::vector<T>* values) {
  auto store = store::MemoryStore::Create();
  formats::zarr::ArrayMetadata metadata;
  metadata.shape = {kShape[0], kShape[1], kShape[2]};
  metadata.chunk_shape = {8, 8, 8};
  metadata.data_type = core::DataType(type);
  metadata.fill_value = std::vector<std::uint8_t>(sizeof(T), 0);
  metadata.codecs = json::array({{{"name", "bytes"}, {"configuration", {{"endian", "little"}}}}});
  auto array = formats::zarr::Array::Create(store, "", metadata, false);
  EXPECT_TRUE(array.ok()) << array.status().ToString();
  for (core::Index z = 0; z < kShape[0]; ++z) {
    for (core::Index y = 0; y < kShape[1]; ++y) {
      for (core::Index x = 0; x < kShape[2]; ++x) {
        values->push_back(static_cast<T>(1 + (x / 6) + 10 * (y / 7) + 100 * (z / 5)));
      }
    }
  }
  const ByteView bytes(reinterpret_cast<const std::uint8_t*>(values->data()),
                       values->size() * sizeof(T));
  EXPECT_TRUE(array->Write(core::Region::Full(metadata.shape), bytes).ok());
  return store;
}

template <typename T>
std::vector<T> ReadScale(const pc::Volume& volume, int scale) {
  const pc::GridCoord3 size = volume.scale(scale).size;
  auto bytes = volume.Read(scale, core::Region({0, 0, 0}, {size[2], size[1], size[0]}));
  EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
  std::vector<T> out(bytes.ok() ? bytes->size() / sizeof(T) : 0);
  if (bytes.ok()) std::memcpy(out.data(), bytes->data(), bytes->size());
  return out;
}

TEST(ZarrToPrecomputed, SegmentationScalesAndShards) {
  std::vector<std::uint64_t> values;
  auto source = MakeArray(core::DataTypeId::kUInt64, &values);
  auto dest = store::MemoryStore::Create();
  auto summary = ZarrToPrecomputed(
      source, "", dest, "seg/",
      {.chunk_size = {16, 16, 16}, .num_scales = 3, .auto_sharding = true, .threads = 2});
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  EXPECT_EQ(summary->chunks_per_scale, (std::vector<std::uint64_t>{3 * 2 * 2, 2 * 1 * 1, 1}));
  auto volume = pc::Volume::Open(dest, "seg/");
  ASSERT_TRUE(volume.ok()) << volume.status().ToString();
  EXPECT_EQ((*volume)->info().type, pc::VolumeType::kSegmentation);
  EXPECT_EQ((*volume)->scale(0).encoding, pc::ChunkEncoding::kCompressedSegmentation);
  ASSERT_TRUE((*volume)->scale(0).sharding.has_value());
  EXPECT_EQ((*volume)->scale(1).size, (pc::GridCoord3{23, 15, 11}));
  EXPECT_EQ(ReadScale<std::uint64_t>(**volume, 0), values);
  // Scale 1: the mode of each 2×2×2 group; labels change every 5+ voxels,
  // so the group's first voxel holds at least half of it except at ties.
  const std::vector<std::uint64_t> s1 = ReadScale<std::uint64_t>(**volume, 1);
  ASSERT_EQ(s1.size(), 23u * 15 * 11);
  EXPECT_EQ(s1[0], values[0]);
  EXPECT_EQ(s1.back(), values.back());
}

TEST(ZarrToPrecomputed, ImageMeanUnsharded) {
  std::vector<std::uint16_t> values;
  auto source = MakeArray(core::DataTypeId::kUInt16, &values);
  auto dest = store::MemoryStore::Create();
  auto summary = ZarrToPrecomputed(source, "", dest, "", {.num_scales = 2});
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  auto volume = pc::Volume::Open(dest, "");
  ASSERT_TRUE(volume.ok());
  EXPECT_EQ((*volume)->info().type, pc::VolumeType::kImage);
  EXPECT_EQ((*volume)->scale(0).encoding, pc::ChunkEncoding::kRaw);
  EXPECT_FALSE((*volume)->scale(0).sharding.has_value());
  EXPECT_EQ(ReadScale<std::uint16_t>(**volume, 0), values);
  // The last voxel of scale 1 covers x = 44 alone (x is odd-sized), z = 20, y = 28..29.
  const std::vector<std::uint16_t> s1 = ReadScale<std::uint16_t>(**volume, 1);
  EXPECT_EQ(s1.back(), values.back());
  auto keys = dest->List("s0/");
  ASSERT_TRUE(keys.ok());
  EXPECT_THAT(*keys, ::testing::Contains("s0/0-45_0-30_0-21"));
}

// A 1×1×4 (z, y, x) array of `values`, its scale 1 read back: two voxels,
// each the mean of two.
template <typename T>
std::vector<T> HalvedByToPrecomputed(core::DataTypeId type, const std::vector<T>& values) {
  auto source = store::MemoryStore::Create();
  formats::zarr::ArrayMetadata metadata;
  metadata.shape = {1, 1, 4};
  metadata.chunk_shape = {1, 1, 4};
  metadata.data_type = core::DataType(type);
  metadata.fill_value = std::vector<std::uint8_t>(sizeof(T), 0);
  metadata.codecs = json::array({{{"name", "bytes"}, {"configuration", {{"endian", "little"}}}}});
  auto array = formats::zarr::Array::Create(source, "", metadata, false);
  EXPECT_TRUE(array.ok()) << array.status().ToString();
  const ByteView bytes(reinterpret_cast<const std::uint8_t*>(values.data()),
                       values.size() * sizeof(T));
  EXPECT_TRUE(array->Write(core::Region::Full(metadata.shape), bytes).ok());
  auto dest = store::MemoryStore::Create();
  auto summary = ZarrToPrecomputed(source, "", dest, "", {.num_scales = 2});
  EXPECT_TRUE(summary.ok()) << summary.status().ToString();
  auto volume = pc::Volume::Open(dest, "");
  EXPECT_TRUE(volume.ok()) << volume.status().ToString();
  return volume.ok() ? ReadScale<T>(**volume, 1) : std::vector<T>{};
}

// One rounding rule for every mean downsample (core/downsample.h): halves go
// to the even integer, in to-precomputed as in the stream writer's pyramids.
// Rounding away from zero (what to-precomputed did) gives 3 and -3 here.
TEST(ZarrToPrecomputed, MeanRoundsHalvesToEvenAsEveryDownsampleDoes) {
  EXPECT_EQ(HalvedByToPrecomputed<std::uint8_t>(core::DataTypeId::kUInt8, {2, 3, 1, 2}),
            (std::vector<std::uint8_t>{2, 2}));  // 2.5 -> 2, 1.5 -> 2.
  EXPECT_EQ(HalvedByToPrecomputed<std::int8_t>(core::DataTypeId::kInt8, {-2, -3, -1, -2}),
            (std::vector<std::int8_t>{-2, -2}));  // -2.5 -> -2, -1.5 -> -2.
  // The same voxels through the stream writer's downsampler give the same values.
  auto stream = core::Downsampler::Create(core::DownsampleMethod::kMean,
                                          core::DataType(core::DataTypeId::kUInt8), {2, 2, 2});
  ASSERT_TRUE(stream.ok());
  const std::vector<std::uint8_t> in{2, 3, 1, 2};
  std::vector<std::uint8_t> out(2);
  stream->Reduce(ByteView(in.data(), in.size()), std::vector<core::Index>{1, 1, 4},
                 MutableByteView(out.data(), out.size()));
  EXPECT_EQ(out, (std::vector<std::uint8_t>{2, 2}));
}

TEST(ZarrToPrecomputed, RefusesWhatPrecomputedCannotHold) {
  std::vector<std::uint16_t> values;
  auto source = MakeArray(core::DataTypeId::kUInt16, &values);
  auto dest = store::MemoryStore::Create();
  auto summary = ZarrToPrecomputed(source, "", dest, "",
                                   {.encoding = pc::ChunkEncoding::kCompressedSegmentation});
  EXPECT_EQ(summary.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(summary.status().message(), HasSubstr("uint32 or uint64"));
  ASSERT_TRUE(ZarrToPrecomputed(source, "", dest, "", {}).ok());
  summary = ZarrToPrecomputed(source, "", dest, "", {});
  EXPECT_EQ(summary.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(ZarrToPrecomputed(source, "", dest, "", {.overwrite = true}).ok());
}

}  // namespace
}  // namespace chunkwise::pipelines
