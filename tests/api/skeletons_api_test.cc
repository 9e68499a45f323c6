// Skeletonize and ReadSkeleton through chunkwise.h alone: zarr and
// precomputed sources, precomputed and SWC outputs, the refusals and errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "api_test_support.h"
#include "chunkwise/chunkwise.h"

namespace chunkwise {
namespace {

using ::testing::HasSubstr;

constexpr std::int64_t kZ = 12, kY = 30, kX = 48;

// Two tubes along x (labels 1 and 2) and a short stub of label 3, uint32.
std::vector<std::uint32_t> Labels() {
  std::vector<std::uint32_t> v(kZ * kY * kX, 0);
  for (std::int64_t z = 0; z < kZ; ++z)
    for (std::int64_t y = 0; y < kY; ++y)
      for (std::int64_t x = 0; x < kX; ++x) {
        std::uint32_t label = 0;
        if (x >= 3 && x < 45 && std::hypot(z - 6.0, y - 8.0) <= 3.5) label = 1;
        if (x >= 5 && x < 40 && std::hypot(z - 6.0, y - 21.0) <= 4.0) label = 2;
        if (x >= 44 && x < 47 && y >= 25 && y < 28 && z >= 2 && z < 5) label = 3;
        v[(z * kY + y) * kX + x] = label;
      }
  return v;
}

std::string MakeZarr(const Context& context, const std::filesystem::path& root,
                     const std::vector<std::uint32_t>& labels) {
  const std::string url = (root / "labels.zarr").string();
  ZarrArraySpec spec{
      .shape = {kZ, kY, kX}, .data_type = *ParseDataType("uint32"), .chunks = {8, 16, 16}};
  auto array = CreateZarrArray(context, url, spec);
  EXPECT_TRUE(array.ok()) << array.status().ToString();
  Bytes bytes(labels.size() * 4);
  std::memcpy(bytes.data(), labels.data(), bytes.size());
  EXPECT_TRUE(WriteRegion(context, *array, core::Region({0, 0, 0}, {kZ, kY, kX}), bytes).ok());
  return url;
}

std::string ReadText(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

SkeletonizeOptions Options() {
  SkeletonizeOptions options;
  options.voxel_size = std::array<double, 3>{10, 10, 10};
  options.constant = 40;
  return options;
}

TEST(SkeletonsApi, IntoAPrecomputedSegmentation) {
  Context context;
  const auto root = api_test::FreshDirectory("skeletons_precomputed");
  const std::vector<std::uint32_t> labels = Labels();
  const std::string zarr = MakeZarr(context, root, labels);
  const std::string seg = (root / "seg").string();
  ZarrToPrecomputedOptions convert;
  convert.resolution = {10, 10, 10};
  convert.chunk_size = {16, 16, 8};
  ASSERT_TRUE(ZarrToPrecomputed(context, zarr, seg, convert).ok());

  SkeletonizeOptions options = Options();
  options.voxel_size.reset();  // the segmentation's resolution
  auto summary = Skeletonize(context, seg, seg, options);
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  EXPECT_EQ(summary->labels, 3u);
  EXPECT_EQ(summary->files, 4u);  // three labels and the skeleton info
  EXPECT_EQ(summary->prefix, "skeletons/");
  EXPECT_THAT(ReadText(root / "seg" / "info"), HasSubstr("\"skeletons\": \"skeletons\""));
  EXPECT_THAT(ReadText(root / "seg" / "skeletons" / "info"), HasSubstr("neuroglancer_skeletons"));

  auto tube = ReadSkeleton(context, seg, 2);
  ASSERT_TRUE(tube.ok()) << tube.status().ToString();
  ASSERT_GT(tube->vertices.size(), 20u);
  EXPECT_EQ(tube->radii.size(), tube->vertices.size());
  EXPECT_EQ(tube->edges.size() + 1, tube->vertices.size());
  for (const auto& p : tube->vertices) {
    const auto x = static_cast<std::int64_t>(p[0] / 10), y = static_cast<std::int64_t>(p[1] / 10),
               z = static_cast<std::int64_t>(p[2] / 10);
    EXPECT_EQ(labels[(z * kY + y) * kX + x], 2u) << p[0] << "," << p[1] << "," << p[2];
  }

  // Again: refused, naming what is there; with overwrite replaced.
  auto again = Skeletonize(context, seg, seg, options);
  EXPECT_EQ(again.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(api_test::Message(again.status()), HasSubstr("already holds skeletons"));
  options.overwrite = true;
  options.labels = {1};
  auto replaced = Skeletonize(context, seg, seg, options);
  ASSERT_TRUE(replaced.ok()) << replaced.status().ToString();
  EXPECT_EQ(replaced->labels, 1u);
  EXPECT_TRUE(ReadSkeleton(context, seg, 1).ok());
  EXPECT_EQ(ReadSkeleton(context, seg, 2).status().code(), StatusCode::kNotFound);
}

TEST(SkeletonsApi, ZarrToSwcFilesAndASkeletonDirectory) {
  Context context;
  const auto root = api_test::FreshDirectory("skeletons_swc");
  const std::string zarr = MakeZarr(context, root, Labels());
  SkeletonizeOptions options = Options();
  options.format = SkeletonFormat::kSwc;
  auto swc = Skeletonize(context, zarr, (root / "swc").string(), options);
  ASSERT_TRUE(swc.ok()) << swc.status().ToString();
  EXPECT_EQ(swc->files, 3u);
  const std::string text = ReadText(root / "swc" / "2.swc");
  EXPECT_THAT(text, HasSubstr("\n1 0 "));  // the first vertex, a root
  EXPECT_THAT(text, HasSubstr(" -1\n"));
  const auto lines = std::count(text.begin(), text.end(), '\n');
  EXPECT_GT(lines, 20);
  EXPECT_EQ(Skeletonize(context, zarr, (root / "swc").string(), options).status().code(),
            StatusCode::kInvalidArgument);

  // A destination without an info becomes the skeleton directory itself.
  options.format = SkeletonFormat::kPrecomputed;
  auto direct = Skeletonize(context, zarr, (root / "skel").string(), options);
  ASSERT_TRUE(direct.ok()) << direct.status().ToString();
  EXPECT_EQ(direct->prefix, "");
  auto one = ReadSkeleton(context, (root / "skel").string(), 3);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_GE(one->vertices.size(), 1u);
}

TEST(SkeletonsApi, ThreadsGiveTheSameSkeletonsAndProgressCountsVoxels) {
  Context context;
  const auto root = api_test::FreshDirectory("skeletons_threads");
  const std::string zarr = MakeZarr(context, root, Labels());
  struct Counter : ProgressObserver {
    std::uint64_t total = 0, done = 0, starts = 0;
    void OnStart(std::string_view, std::uint64_t t, std::string_view) override {
      total = t;
      ++starts;
    }
    void OnFinish(std::string_view, std::uint64_t d) override { done = d; }
  } counter;
  auto one = Skeletonize(context, zarr, (root / "one").string(), Options(), {.threads = 1});
  auto four = Skeletonize(context, zarr, (root / "four").string(), Options(),
                          {.threads = 4, .observer = &counter});
  ASSERT_TRUE(one.ok() && four.ok());
  EXPECT_EQ(counter.starts, 1u);  // the skeletons' voxels, not the read's bytes too
  EXPECT_EQ(counter.total, one->voxels);
  EXPECT_EQ(counter.done, one->voxels);
  for (std::uint64_t label : {1, 2, 3}) {
    auto a = ReadSkeleton(context, (root / "one").string(), label);
    auto b = ReadSkeleton(context, (root / "four").string(), label);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(a->vertices, b->vertices);
    EXPECT_EQ(a->edges, b->edges);
  }
}

TEST(SkeletonsApi, EmptyVolumesBadUrlsAndMissingLabels) {
  Context context;
  const auto root = api_test::FreshDirectory("skeletons_errors");
  const std::string zarr = MakeZarr(context, root, std::vector<std::uint32_t>(kZ * kY * kX, 0));
  auto empty = Skeletonize(context, zarr, (root / "empty").string(), Options());
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ(empty->labels, 0u);
  EXPECT_EQ(empty->files, 1u);  // the skeleton info alone
  SkeletonizeOptions none = Options();
  none.format = SkeletonFormat::kVectors;
  auto empty_store = Skeletonize(context, zarr, (root / "empty.zarrvectors").string(), none);
  ASSERT_TRUE(empty_store.ok()) << empty_store.status().ToString();
  auto no_vertices = ReadVectors(context, (root / "empty.zarrvectors").string());
  ASSERT_TRUE(no_vertices.ok()) << no_vertices.status().ToString();
  EXPECT_TRUE(no_vertices->geometry.positions.empty());
  none.format = SkeletonFormat::kPrecomputedSharded;
  auto empty_shards = Skeletonize(context, zarr, (root / "empty_sharded").string(), none);
  ASSERT_TRUE(empty_shards.ok()) << empty_shards.status().ToString();
  EXPECT_EQ(empty_shards->files, 1u);  // the info, naming a sharding, and no shard
  EXPECT_EQ(ReadSkeleton(context, (root / "empty_sharded").string(), 1).status().code(),
            StatusCode::kNotFound);

  const std::string missing = (root / "nothing.zarr").string();
  auto bad = Skeletonize(context, missing, (root / "out").string(), Options());
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(api_test::Message(bad.status()), HasSubstr("nothing.zarr"));

  SkeletonizeOptions options = Options();
  options.labels = {77};
  auto absent = Skeletonize(context, zarr, (root / "out").string(), options);
  EXPECT_EQ(absent.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(api_test::Message(absent.status()), HasSubstr("label 77"));

  EXPECT_EQ(ParseSkeletonFormat("obj").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseSkeletonFormat("obj").status().field(), "format");
  options.labels = {};
  options.scale = -1;
  EXPECT_EQ(Skeletonize(context, zarr, (root / "out").string(), options).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(SkeletonsApi, ShardedSkeletonsReadBackAsTheUnshardedOnes) {
  Context context;
  const auto root = api_test::FreshDirectory("skeletons_sharded");
  const std::string zarr = MakeZarr(context, root, Labels());
  const std::string plain = (root / "plain").string(), sharded = (root / "sharded").string();
  ASSERT_TRUE(Skeletonize(context, zarr, plain, Options()).ok());
  SkeletonizeOptions options = Options();
  options.format = SkeletonFormat::kPrecomputedSharded;
  auto summary = Skeletonize(context, zarr, sharded, options);
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  EXPECT_EQ(summary->files, 2u);  // one shard (three labels) and the info
  const std::string info = ReadText(root / "sharded" / "info");
  EXPECT_THAT(info, HasSubstr("neuroglancer_uint64_sharded_v1"));
  EXPECT_THAT(info, HasSubstr("murmurhash3_x86_128"));
  EXPECT_TRUE(std::filesystem::exists(root / "sharded" / "0.shard"));
  EXPECT_FALSE(std::filesystem::exists(root / "sharded" / "2"));
  for (std::uint64_t label : {1, 2, 3}) {
    auto a = ReadSkeleton(context, plain, label);
    auto b = ReadSkeleton(context, sharded, label);
    ASSERT_TRUE(a.ok() && b.ok()) << b.status().ToString();
    EXPECT_EQ(a->vertices, b->vertices);
    EXPECT_EQ(a->edges, b->edges);
    EXPECT_EQ(a->radii, b->radii);
  }
  auto absent = ReadSkeleton(context, sharded, 4);
  EXPECT_EQ(absent.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(api_test::Message(absent.status()), HasSubstr("0.shard"));

  // Refused again; an unsharded overwrite leaves no shard behind, and back.
  EXPECT_EQ(Skeletonize(context, zarr, sharded, options).status().code(),
            StatusCode::kInvalidArgument);
  options.overwrite = true;
  options.format = SkeletonFormat::kPrecomputed;
  ASSERT_TRUE(Skeletonize(context, zarr, sharded, options).ok());
  EXPECT_FALSE(std::filesystem::exists(root / "sharded" / "0.shard"));
  EXPECT_TRUE(std::filesystem::exists(root / "sharded" / "2"));
  options.format = SkeletonFormat::kPrecomputedSharded;
  ASSERT_TRUE(Skeletonize(context, zarr, sharded, options).ok());
  EXPECT_FALSE(std::filesystem::exists(root / "sharded" / "2"));
  EXPECT_EQ(ReadSkeleton(context, sharded, 2)->vertices, ReadSkeleton(context, plain, 2)->vertices);
}

TEST(SkeletonsApi, AVectorsStoreHoldsTheSkeletonsByObject) {
  Context context;
  const auto root = api_test::FreshDirectory("skeletons_vectors");
  const std::string zarr = MakeZarr(context, root, Labels());
  const std::string plain = (root / "plain").string(), store = (root / "skel.zarrvectors").string();
  ASSERT_TRUE(Skeletonize(context, zarr, plain, Options()).ok());
  SkeletonizeOptions options = Options();
  options.format = SkeletonFormat::kVectors;
  options.vectors_chunk_shape = std::array<double, 3>{160, 160, 160};
  auto summary = Skeletonize(context, zarr, store, options);
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  EXPECT_EQ(summary->labels, 3u);
  EXPECT_GE(summary->files, 3u);  // chunks: the tubes are 420 nm long
  auto described = DescribeVectors(context, store);
  ASSERT_TRUE(described.ok()) << described.status().ToString();
  EXPECT_EQ(described->root.geometry_type, VectorGeometryType::kSkeleton);
  for (std::uint64_t label : {1, 2, 3}) {
    auto want = ReadSkeleton(context, plain, label);
    ASSERT_TRUE(want.ok());
    VectorsReadOptions read;
    read.object_id = static_cast<std::int64_t>(label);
    auto got = ReadVectors(context, store, read);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    const VectorGeometry& g = got->geometry;
    ASSERT_EQ(g.positions.size(), want->vertices.size());
    ASSERT_EQ(g.vertex_attributes.size(), 1u);
    EXPECT_EQ(g.vertex_attributes[0].name, "radius");
    // The store orders vertices by chunk: compare (position, radius) as sets,
    // and edges as position pairs, child first.
    std::multiset<std::array<float, 4>> ours, theirs;
    for (std::size_t v = 0; v < g.positions.size(); ++v) {
      const auto& p = g.positions[v];
      ours.insert({p[0], p[1], p[2], g.vertex_attributes[0].values[v]});
      const auto& q = want->vertices[v];
      theirs.insert({q[0], q[1], q[2], want->radii[v]});
    }
    EXPECT_EQ(ours, theirs) << label;
    std::multiset<std::array<float, 6>> got_edges, want_edges;
    for (std::size_t e = 0; e < g.num_links(); ++e) {
      const auto& a = g.positions[g.links[2 * e]];
      const auto& b = g.positions[g.links[2 * e + 1]];
      got_edges.insert({a[0], a[1], a[2], b[0], b[1], b[2]});
    }
    for (const auto& [c, p] : want->edges) {
      const auto& a = want->vertices[c];
      const auto& b = want->vertices[p];
      want_edges.insert({a[0], a[1], a[2], b[0], b[1], b[2]});
    }
    EXPECT_EQ(got_edges, want_edges) << label;
  }
  auto again = Skeletonize(context, zarr, store, options);
  EXPECT_EQ(again.status().code(), StatusCode::kInvalidArgument);
  options.overwrite = true;
  options.labels = {3};
  ASSERT_TRUE(Skeletonize(context, zarr, store, options).ok());
  VectorsReadOptions tube;
  tube.object_id = 2;
  auto gone = ReadVectors(context, store, tube);
  ASSERT_TRUE(gone.ok()) << gone.status().ToString();
  EXPECT_TRUE(gone->geometry.positions.empty());

  options.vectors_chunk_shape = std::array<double, 3>{0, 1, 1};
  auto bad = Skeletonize(context, zarr, store, options);
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.status().field(), "chunk_shape");
  EXPECT_EQ(ParseSkeletonFormat("vectors").value(), SkeletonFormat::kVectors);
  EXPECT_EQ(ParseSkeletonFormat("precomputed-sharded").value(),
            SkeletonFormat::kPrecomputedSharded);
  EXPECT_THAT(api_test::Message(ParseSkeletonFormat("obj").status()),
              HasSubstr("precomputed, precomputed-sharded, swc, vectors"));
}

}  // namespace
}  // namespace chunkwise
