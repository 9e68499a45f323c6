// A multiscale stream: every level the writer makes equals a plain,
// element-by-element reduction of the frames (written here without the
// library's Downsampler), level after level, whatever the shapes and
// however the input is split; the group carries the OME-NGFF metadata.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <vector>

#include "chunkwise/core/region.h"
#include "formats/zarr/array.h"
#include "pipelines/stream/pyramid_accumulator.h"
#include "pipelines/stream/pyramid_plan.h"
#include "pipelines/stream/stream_writer.h"
#include "store/memory_store.h"
#include "unit/pipelines/stream_test_cases.h"

namespace chunkwise::pipelines::stream {
namespace {

using core::DownsampleMethod;
using core::Index;
using core::Shape;
using ::testing::HasSubstr;
using testing_cases::AppendInOddPieces;
using testing_cases::D;

// Calls `visit(coord)` for every coordinate below `extent`, row-major.
template <typename Visit>
void ForEachCoord(const Shape& extent, Visit visit) {
  for (Index e : extent) {
    if (e == 0) return;
  }
  Shape coord(extent.size(), 0);
  for (;;) {
    visit(coord);
    std::size_t d = extent.size();
    while (d > 0 && ++coord[d - 1] == extent[d - 1]) coord[--d] = 0;
    if (d == 0) return;
  }
}

Index Offset(const Shape& coord, const Shape& shape) {
  Index at = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) at = at * shape[d] + coord[d];
  return at;
}

// One window's value, as docs/pipelines/stream-writer.md states it.
template <typename T>
T ReduceWindow(const std::vector<T>& window, DownsampleMethod method) {
  switch (method) {
    case DownsampleMethod::kMin:
      return *std::min_element(window.begin(), window.end());
    case DownsampleMethod::kMax:
      return *std::max_element(window.begin(), window.end());
    case DownsampleMethod::kMode: {
      std::map<T, int> counts;  // Ascending, so the first of the most frequent is the least.
      for (T v : window) ++counts[v];
      T best = counts.begin()->first;
      int most = 0;
      for (const auto& [value, count] : counts) {
        if (count > most) best = value, most = count;
      }
      return best;
    }
    case DownsampleMethod::kMean:
      break;
  }
  if constexpr (std::is_floating_point_v<T>) {
    double sum = 0.0;
    for (T v : window) sum += static_cast<double>(v);
    return static_cast<T>(sum / static_cast<double>(window.size()));
  } else {
    std::uint64_t sum = 0;  // The unsigned types tested here.
    for (T v : window) sum += v;
    const std::uint64_t n = window.size();
    std::uint64_t q = sum / n;
    const std::uint64_t twice_rest = 2 * (sum % n);
    if (twice_rest > n || (twice_rest == n && q % 2 == 1)) ++q;  // Ties to even.
    return static_cast<T>(q);
  }
}

// `in` of `shape` reduced by windows of `factors`; `shape` becomes the output's.
template <typename T>
std::vector<T> ReduceAll(const std::vector<T>& in, Shape& shape, const Shape& factors,
                         DownsampleMethod method) {
  Shape out_shape;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    out_shape.push_back((shape[d] + factors[d] - 1) / factors[d]);
  }
  std::vector<T> out;
  ForEachCoord(out_shape, [&](const Shape& o) {
    Shape window_extent;
    for (std::size_t d = 0; d < shape.size(); ++d) {
      window_extent.push_back(std::min(factors[d], shape[d] - o[d] * factors[d]));
    }
    std::vector<T> window;
    ForEachCoord(window_extent, [&](const Shape& w) {
      Shape at(shape.size());
      for (std::size_t d = 0; d < shape.size(); ++d) at[d] = o[d] * factors[d] + w[d];
      window.push_back(in[static_cast<std::size_t>(Offset(at, shape))]);
    });
    out.push_back(ReduceWindow(window, method));
  });
  shape = out_shape;
  return out;
}

template <typename T>
std::vector<T> AsValues(ByteView bytes) {
  std::vector<T> values(bytes.size() / sizeof(T));
  std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
  return values;
}

template <typename T>
Bytes AsBytes(const std::vector<T>& values) {
  Bytes bytes(values.size() * sizeof(T));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

// Few distinct values, so that modes have ties and means land on halves.
template <typename T>
std::vector<T> Frames(std::size_t count, std::uint32_t seed) {
  std::mt19937 random(seed);
  std::vector<T> values(count);
  for (T& v : values) {
    if constexpr (std::is_floating_point_v<T>) {
      v = static_cast<T>(static_cast<int>(random() % 2001) - 1000) / T(7);
    } else {
      v = static_cast<T>(random() % 5 * 3 + (random() % 64 == 0 ? 200 : 0));
    }
  }
  return values;
}

struct MultiscaleCase {
  std::string name;
  std::string dtype;
  DownsampleMethod method;
  std::vector<StreamDimension> dims;
  Index frames;
  std::size_t levels;
  Shape factors;  // Empty: the default (2 along space axes).
  std::vector<std::string> names;
};

void PrintTo(const MultiscaleCase& c, std::ostream* out) { *out << c.name; }

StreamConfig ConfigOf(const MultiscaleCase& c) {
  testing_cases::Case base = testing_cases::Simple(c.dims, c.dtype);
  StreamConfig config = testing_cases::ConfigOf(base);
  for (std::size_t d = 0; d < c.names.size(); ++d) config.dimensions[d].name = c.names[d];
  MultiscaleConfig multiscale;
  multiscale.levels = c.levels;
  multiscale.method = c.method;
  multiscale.factors = c.factors;
  config.multiscale = multiscale;
  return config;
}

// Writes `frames` through a multiscale stream and checks every level
// against ReduceAll applied level after level.
template <typename T>
void ExpectLevelsMatchTheReference(const MultiscaleCase& c) {
  const StreamConfig config = ConfigOf(c);
  auto store = store::MemoryStore::Create();
  auto writer = StreamWriter::Create(config, store, "image");
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  const PyramidPlan& pyramid = *(*writer)->plan().pyramid;
  Shape shape{c.frames};
  for (std::size_t d = 1; d < c.dims.size(); ++d) shape.push_back(c.dims[d].size);
  std::size_t count = 1;
  for (Index e : shape) count *= static_cast<std::size_t>(e);
  std::vector<T> level = Frames<T>(count, static_cast<std::uint32_t>(count));
  ASSERT_TRUE(AppendInOddPieces(**writer, AsBytes(level), 11).ok());
  ASSERT_TRUE((*writer)->Close().ok());
  ASSERT_EQ((*writer)->stats().level_frames.size(), c.levels + 1);
  for (std::size_t k = 0; k <= c.levels; ++k) {
    if (k > 0) level = ReduceAll(level, shape, pyramid.factors, c.method);
    auto array = formats::zarr::Array::Open(store, "image/" + LevelPath(k));
    ASSERT_TRUE(array.ok()) << k << ": " << array.status().ToString();
    EXPECT_EQ(array->metadata().shape, shape) << "level " << k;
    EXPECT_EQ((*writer)->stats().level_frames[k], shape[0]) << "level " << k;
    auto read = array->Read(core::Region::Full(shape));
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    const std::vector<T> got = AsValues<T>(*read);
    ASSERT_EQ(got.size(), level.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      // Bitwise, so that NaN and -0.0 count.
      ASSERT_EQ(std::memcmp(&got[i], &level[i], sizeof(T)), 0)
          << c.name << " level " << k << " element " << i << ": " << +got[i] << " != " << +level[i];
    }
  }
}

std::vector<MultiscaleCase> Cases() {
  using M = DownsampleMethod;
  return {
      // Odd extents everywhere; the last slab of every level partial.
      {"mean_uint16_odd",
       "uint16",
       M::kMean,
       {D(0, 4, 2), D(37, 8, 2), D(29, 8, 2)},
       13,
       3,
       {},
       {}},
      {"mode_uint32_labels",
       "uint32",
       M::kMode,
       {D(0, 3, 2), D(21, 4, 2), D(19, 8, 1)},
       11,
       2,
       {},
       {}},
      {"min_uint8_bounded", "uint8", M::kMin, {D(9, 2, 3), D(16, 8, 1), D(15, 4, 2)}, 9, 2, {}, {}},
      {"max_uint16_frames_only",
       "uint16",
       M::kMax,
       {D(0, 4, 1), D(10, 5, 1), D(12, 4, 1)},
       17,
       2,
       {1, 2, 2},
       {}},
      {"mean_float32_tzyx",
       "float32",
       M::kMean,
       {D(0, 2, 1), D(7, 4, 1), D(9, 4, 2), D(11, 8, 1)},
       3,
       2,
       {},
       {"t", "z", "y", "x"}},
      {"mean_uint16_factor3_in_dim0",
       "uint16",
       M::kMean,
       {D(0, 5, 1), D(13, 8, 1), D(6, 4, 1)},
       20,
       2,
       {3, 2, 1},
       {}},
  };
}

class MultiscaleStreamTest : public ::testing::TestWithParam<MultiscaleCase> {};

TEST_P(MultiscaleStreamTest, EveryLevelEqualsThePlainReductionOfTheFrames) {
  const MultiscaleCase& c = GetParam();
  if (c.dtype == "uint8") return ExpectLevelsMatchTheReference<std::uint8_t>(c);
  if (c.dtype == "uint16") return ExpectLevelsMatchTheReference<std::uint16_t>(c);
  if (c.dtype == "uint32") return ExpectLevelsMatchTheReference<std::uint32_t>(c);
  ExpectLevelsMatchTheReference<float>(c);
}

INSTANTIATE_TEST_SUITE_P(Shapes, MultiscaleStreamTest, ::testing::ValuesIn(Cases()),
                         [](const auto& info) { return info.param.name; });

Index LevelShape0(const std::shared_ptr<store::MemoryStore>& store, std::size_t level,
                  const std::string& group = "") {
  return formats::zarr::Array::Open(store, group + LevelPath(level) + "/")->metadata().shape[0];
}

std::string Text(const Bytes& bytes) { return std::string(bytes.begin(), bytes.end()); }

// Neither the group nor any level is there before Close: NotFound naming zarr.json.
void ExpectNothingPublished(const std::shared_ptr<store::MemoryStore>& store) {
  EXPECT_FALSE(*store->Exists("zarr.json"));
  for (std::size_t k = 0; k <= 2; ++k) {
    const Status opened = formats::zarr::Array::Open(store, LevelPath(k) + "/").status();
    EXPECT_EQ(opened.code(), StatusCode::kNotFound) << k;
    EXPECT_THAT(opened.message(), HasSubstr("zarr.json")) << k;
  }
}

TEST(MultiscaleStream, TheGroupAndItsLevelsArePublishedAtCloseWithTheFramesWritten) {
  MultiscaleCase c{
      "", "uint16", DownsampleMethod::kMean, {D(0, 2, 1), D(8, 4, 1), D(8, 4, 1)}, 0, 2, {}, {}};
  auto store = store::MemoryStore::Create();
  auto writer = StreamWriter::Create(ConfigOf(c), store, "");
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  const std::size_t frame_bytes = (*writer)->plan().frame_bytes;
  ExpectNothingPublished(store);
  Bytes input(frame_bytes * 11);  // No tile all fill value: every shard is stored.
  for (std::size_t i = 0; i < input.size(); ++i) input[i] = static_cast<std::uint8_t>(i % 251 + 1);
  // 8 frames: whole tiles on every level (level 1: 4 frames, level 2: 2),
  // their shards written at Flush, and still nothing published.
  ASSERT_TRUE((*writer)->Append(ByteView(input).first(frame_bytes * 8)).ok());
  ASSERT_TRUE((*writer)->Flush().ok());
  EXPECT_TRUE(*store->Exists("2/c/0/0/0"));
  ExpectNothingPublished(store);
  // 3 more: the partial windows are reduced at Close.
  ASSERT_TRUE((*writer)->Append(ByteView(input).subspan(frame_bytes * 8)).ok());
  ASSERT_TRUE((*writer)->Close().ok());
  EXPECT_EQ(LevelShape0(store, 0), 11);
  EXPECT_EQ(LevelShape0(store, 1), 6);
  EXPECT_EQ(LevelShape0(store, 2), 3);
  EXPECT_TRUE(*store->Exists("zarr.json"));
  const std::vector<std::string> keys = *store->List("");
  EXPECT_TRUE(std::ranges::none_of(
      keys, [](const std::string& key) { return key.ends_with(".chunkwise-incomplete"); }));
}

TEST(MultiscaleStream, AStreamDroppedBeforeCloseLeavesNoGroupAndIsReplacedWithOverwrite) {
  MultiscaleCase c{
      "", "uint16", DownsampleMethod::kMean, {D(0, 2, 1), D(8, 4, 1), D(8, 4, 1)}, 0, 2, {}, {}};
  auto store = store::MemoryStore::Create();
  {
    auto writer = StreamWriter::Create(ConfigOf(c), store, "");
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    const std::size_t frame_bytes = (*writer)->plan().frame_bytes;
    ASSERT_TRUE((*writer)->Append(testing_cases::MakeInput(frame_bytes * 9, 4)).ok());
    ASSERT_TRUE((*writer)->Flush().ok());
  }
  ExpectNothingPublished(store);
  EXPECT_TRUE(*store->Exists(".chunkwise-incomplete"));
  StreamWriterOptions overwrite;
  overwrite.overwrite = true;
  auto writer = StreamWriter::Create(ConfigOf(c), store, "", overwrite);
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  ASSERT_TRUE((*writer)->Close().ok());
  EXPECT_EQ(LevelShape0(store, 0), 0);
  EXPECT_FALSE(*store->Exists("0/c/0/0/0"));  // The dropped stream's shards are gone.
}

TEST(MultiscaleStream, TheGroupCarriesOmeMultiscalesAndEveryLevelItsDimensionNames) {
  MultiscaleCase c{"", "uint16", DownsampleMethod::kMean, {D(0, 2, 1), D(8, 4, 1), D(6, 4, 1)}, 0,
                   2,  {},       {"z", "y", "x"}};
  StreamConfig config = ConfigOf(c);
  config.multiscale->voxel_size = {2.0, 0.5, 0.25};
  config.multiscale->unit = "micrometer";
  auto store = store::MemoryStore::Create();
  auto writer = StreamWriter::Create(config, store, "");
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  ASSERT_TRUE(
      (*writer)->Append(testing_cases::MakeInput((*writer)->plan().frame_bytes * 5, 1)).ok());
  ASSERT_TRUE((*writer)->Close().ok());
  const nlohmann::json group = nlohmann::json::parse(Text(**store->Get("zarr.json")));
  EXPECT_EQ(group["node_type"], "group");
  const nlohmann::json& ome = group["attributes"]["ome"];
  EXPECT_EQ(ome["version"], "0.5");
  const nlohmann::json& image = ome["multiscales"][0];
  ASSERT_EQ(image["axes"].size(), 3u);
  EXPECT_EQ(image["axes"][0],
            (nlohmann::json{{"name", "z"}, {"type", "space"}, {"unit", "micrometer"}}));
  ASSERT_EQ(image["datasets"].size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    const double f = static_cast<double>(1 << k);
    EXPECT_EQ(image["datasets"][k]["path"], LevelPath(k));
    EXPECT_EQ(image["datasets"][k]["coordinateTransformations"][0],
              (nlohmann::json{{"type", "scale"}, {"scale", {2.0 * f, 0.5 * f, 0.25 * f}}}));
    const nlohmann::json level =
        nlohmann::json::parse(Text(**store->Get(LevelPath(k) + "/zarr.json")));
    EXPECT_EQ(level["dimension_names"], (nlohmann::json{"z", "y", "x"})) << k;
  }
}

TEST(MultiscaleStream, TheEstimateCountsTheSlabsAndNotTheLengthOfDimensionZero) {
  MultiscaleCase c{
      "", "uint16", DownsampleMethod::kMean, {D(0, 4, 2), D(64, 16, 2), D(48, 16, 1)}, 0, 3,
      {}, {}};
  Result<StreamPlan> unbounded = PlanStream(ConfigOf(c));
  ASSERT_TRUE(unbounded.ok()) << unbounded.status().ToString();
  c.dims[0].size = 1 << 20;
  Result<StreamPlan> long_one = PlanStream(ConfigOf(c));
  ASSERT_TRUE(long_one.ok());
  const MemoryEstimate& m = unbounded->memory;
  EXPECT_EQ(m.total(), long_one->memory.total());
  // Each level's slab: two frames of the level above (uint16), plus its output.
  EXPECT_EQ(m.level_slabs,
            PyramidAccumulator::MemoryBytes(unbounded->pyramid->MakeDownsampler(), {64, 48}, 3));
  EXPECT_GE(m.level_slabs, 2u * (64 * 48 + 32 * 24 + 16 * 12) * 2);
  EXPECT_GT(m.levels, 0u);
  EXPECT_EQ(m.total(), m.staging + m.compressed + m.aggregated + m.shard_indexes + m.pinned +
                           m.level_slabs + m.levels);
  EXPECT_THAT(DescribePlan(*unbounded), HasSubstr("level slabs"));
  // A limit between level 0's needs and the pyramid's is refused.
  StreamConfig limited = ConfigOf(c);
  limited.max_memory = m.total() - m.level_slabs;
  const Status refused = PlanStream(limited).status();
  EXPECT_EQ(refused.code(), StatusCode::kResourceExhausted);
  EXPECT_THAT(refused.message(), HasSubstr("needs up to"));
}

TEST(MultiscaleStream, ConfigsThatCannotMakeAPyramidAreRefused) {
  auto refused = [](MultiscaleCase c, auto edit) {
    StreamConfig config = ConfigOf(c);
    edit(config);
    return PlanStream(config).status();
  };
  const MultiscaleCase base{
      "", "uint16", DownsampleMethod::kMean, {D(0, 2, 1), D(8, 4, 1), D(8, 4, 1)}, 0, 2, {}, {}};
  Status s = refused(base, [](StreamConfig& c) { c.multiscale->factors = {1, 1, 1}; });
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("reduce nothing"));
  s = refused(base, [](StreamConfig& c) { c.multiscale->factors = {2, 2}; });
  EXPECT_THAT(s.message(), HasSubstr("2 for 3 dimensions"));
  s = refused(base, [](StreamConfig& c) { c.multiscale->voxel_size = {1.0, 2.0}; });
  EXPECT_THAT(s.message(), HasSubstr("one value per space axis (3)"));
  s = refused(base, [](StreamConfig& c) { c.multiscale->voxel_size = {1.0, -2.0, 1.0}; });
  EXPECT_THAT(s.message(), HasSubstr("positive"));
  s = refused(base, [](StreamConfig& c) { c.multiscale->unit = "parsec-ish"; });
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("parsec-ish"));
  s = refused(base, [](StreamConfig& c) {
    c.data_type = *core::DataType::FromZarrName("float32"),
    c.multiscale->method = DownsampleMethod::kMode;
  });
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("mode"));
}

TEST(MultiscaleStream, AnExistingGroupIsRefusedUnlessOverwriting) {
  const MultiscaleCase c{
      "", "uint8", DownsampleMethod::kMax, {D(0, 2, 1), D(4, 4, 1), D(4, 4, 1)}, 0, 1, {}, {}};
  auto store = store::MemoryStore::Create();
  ASSERT_TRUE(formats::zarr::CreateGroup(*store, "img", 3, nlohmann::json::object()).ok());
  ASSERT_TRUE(store->Set("img/old", Bytes{1}).ok());
  auto refused = StreamWriter::Create(ConfigOf(c), store, "img");
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.status().message(), HasSubstr("already holds 2 keys"));
  StreamWriterOptions overwrite;
  overwrite.overwrite = true;
  auto writer = StreamWriter::Create(ConfigOf(c), store, "img", overwrite);
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  ASSERT_TRUE((*writer)->Close().ok());
  EXPECT_FALSE(store->Get("img/old")->has_value());
  EXPECT_EQ(LevelShape0(store, 0, "img/"), 0);
  // Keys that are not a zarr node are not ours: refused even with overwrite.
  ASSERT_TRUE(store->Set("notes/old", Bytes{1}).ok());
  refused = StreamWriter::Create(ConfigOf(c), store, "notes", overwrite);
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.status().message(), HasSubstr("not a zarr array or group"));
  EXPECT_TRUE(store->Get("notes/old")->has_value());
}

}  // namespace
}  // namespace chunkwise::pipelines::stream
