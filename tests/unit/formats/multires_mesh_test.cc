#include "formats/precomputed/multires_mesh.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

namespace chunkwise::formats::precomputed {
namespace {

using Position = std::array<std::uint32_t, 3>;

MultiresManifest TwoLods() {
  MultiresManifest m;
  m.chunk_shape = {16, 16, 8};
  m.grid_origin = {-0.5f, -0.5f, -0.5f};
  m.lods.resize(2);
  m.lods[0].scale = 1;
  m.lods[0].positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  m.lods[0].sizes = {10, 20, 30};
  m.lods[1].scale = 2;
  m.lods[1].vertex_offset = {0.25f, 0, 0};
  m.lods[1].positions = {{0, 0, 0}};
  m.lods[1].sizes = {40};
  return m;
}

TEST(MultiresManifest, RoundTripsItsLittleEndianLayout) {
  const Bytes bytes = EncodeMultiresManifest(TwoLods());
  // Header 28, per LOD 20, per fragment 16.
  ASSERT_EQ(bytes.size(), 28u + 2 * 20 + 4 * 16);
  std::uint32_t num_lods = 0;
  std::memcpy(&num_lods, bytes.data() + 24, 4);
  EXPECT_EQ(num_lods, 2u);
  // LOD 0's positions are [3][n]: the x of every fragment first.
  std::uint32_t xs[3];
  std::memcpy(xs, bytes.data() + 28 + 40, 12);
  EXPECT_EQ(xs[0], 0u);
  EXPECT_EQ(xs[1], 1u);
  EXPECT_EQ(xs[2], 0u);
  auto decoded = DecodeMultiresManifest(bytes, "7.index");
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->chunk_shape, (std::array<float, 3>{16, 16, 8}));
  EXPECT_EQ(decoded->grid_origin[2], -0.5f);
  ASSERT_EQ(decoded->lods.size(), 2u);
  EXPECT_EQ(decoded->lods[0].positions, TwoLods().lods[0].positions);
  EXPECT_EQ(decoded->lods[0].sizes, (std::vector<std::uint32_t>{10, 20, 30}));
  EXPECT_EQ(decoded->lods[1].scale, 2.0f);
  EXPECT_EQ(decoded->lods[1].vertex_offset[0], 0.25f);
  EXPECT_EQ(decoded->lods[1].sizes, (std::vector<std::uint32_t>{40}));
}

TEST(MultiresManifest, CorruptBytesAreNamedErrors) {
  const Bytes good = EncodeMultiresManifest(TwoLods());
  auto short_header = DecodeMultiresManifest(ByteView(good.data(), 20), "7.index");
  EXPECT_EQ(short_header.status().code(), StatusCode::kCorruption);
  EXPECT_NE(short_header.status().message().find("7.index"), std::string::npos);
  EXPECT_NE(short_header.status().message().find("28"), std::string::npos);

  Bytes extra = good;
  extra.push_back(0);
  auto long_tail = DecodeMultiresManifest(extra, "7.index");
  EXPECT_EQ(long_tail.status().code(), StatusCode::kCorruption);
  EXPECT_NE(long_tail.status().message().find("fragments"), std::string::npos);

  Bytes many_lods = good;
  const std::uint32_t huge = 1'000'000;
  std::memcpy(many_lods.data() + 24, &huge, 4);
  EXPECT_EQ(DecodeMultiresManifest(many_lods, "m").status().code(), StatusCode::kCorruption);

  MultiresManifest unordered = TwoLods();
  std::swap(unordered.lods[0].positions[0], unordered.lods[0].positions[1]);
  auto order = DecodeMultiresManifest(EncodeMultiresManifest(unordered), "7.index");
  EXPECT_EQ(order.status().code(), StatusCode::kCorruption);
  EXPECT_NE(order.status().message().find("Z-order"), std::string::npos);
}

TEST(MultiresManifest, ZOrderPutsXFastestThenYThenZ) {
  std::vector<Position> cube;
  for (std::uint32_t z = 0; z < 2; ++z) {
    for (std::uint32_t y = 0; y < 2; ++y) {
      for (std::uint32_t x = 0; x < 2; ++x) cube.push_back({x, y, z});
    }
  }
  std::vector<Position> sorted = cube;
  std::reverse(sorted.begin(), sorted.end());
  std::sort(sorted.begin(), sorted.end(), ZOrderLess);
  EXPECT_EQ(sorted, cube);  // x + 2y + 4z.
  EXPECT_TRUE(ZOrderLess({1, 1, 1}, {2, 0, 0}));
  EXPECT_TRUE(ZOrderLess({1, 1, 0}, {0, 0, 1}));   // 3 < 4.
  EXPECT_FALSE(ZOrderLess({3, 3, 0}, {0, 0, 1}));  // 27 > 4.
  EXPECT_FALSE(ZOrderLess({0, 2, 0}, {1, 1, 1}));
  EXPECT_FALSE(ZOrderLess({5, 5, 5}, {5, 5, 5}));
}

// The triangles as sets of corner positions, which Draco's reordering keeps.
std::multiset<std::array<std::uint32_t, 9>> Corners(const QuantizedMesh& mesh) {
  std::multiset<std::array<std::uint32_t, 9>> out;
  for (std::size_t t = 0; t < mesh.triangles.size(); t += 3) {
    std::array<std::array<std::uint32_t, 3>, 3> c{};
    for (int k = 0; k < 3; ++k) {
      for (int d = 0; d < 3; ++d) c[k][d] = mesh.vertices[3 * mesh.triangles[t + k] + d];
    }
    // Rotate so the smallest corner is first: orientation is kept.
    const auto first = std::min_element(c.begin(), c.end()) - c.begin();
    std::array<std::uint32_t, 9> key{};
    for (int k = 0; k < 3; ++k) {
      for (int d = 0; d < 3; ++d) key[3 * k + d] = c[(first + k) % 3][d];
    }
    out.insert(key);
  }
  return out;
}

QuantizedMesh Tetrahedron(std::uint32_t top) {
  return {{0, 0, 0, top, 0, 0, 0, top, 0, 0, 0, top, 5, 7, 9},
          {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3}};
}

TEST(DracoFragment, KeepsEveryIntegerVertexAndTriangle) {
  for (const int bits : {10, 16}) {
    const std::uint32_t top = (1u << bits) - 1;
    QuantizedMesh mesh = Tetrahedron(top);
    mesh.vertices.resize(12);  // Four corners: every vertex is used.
    auto bytes = EncodeDracoFragment(mesh, bits);
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    EXPECT_EQ(std::string(bytes->begin(), bytes->begin() + 5), "DRACO");
    auto decoded = DecodeDracoFragment(*bytes, bits, "9");
    ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
    EXPECT_EQ(decoded->vertices.size(), 12u);
    EXPECT_EQ(Corners(*decoded), Corners(mesh)) << bits << " bits";
  }
}

TEST(DracoFragment, RefusesWhatItCannotHold) {
  EXPECT_EQ(EncodeDracoFragment(Tetrahedron(1023), 12).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(EncodeDracoFragment(Tetrahedron(1024), 10).status().code(),
            StatusCode::kInvalidArgument);
  auto garbage = DecodeDracoFragment(Bytes{'n', 'o', 't', ' ', 'd', 'r', 'a', 'c', 'o'}, 10, "9");
  EXPECT_EQ(garbage.status().code(), StatusCode::kCorruption);
  EXPECT_NE(garbage.status().message().find("fragment 9"), std::string::npos);
  // A 16-bit fragment read as 10-bit has vertices out of range.
  auto wide = EncodeDracoFragment(Tetrahedron(65535), 16);
  ASSERT_TRUE(wide.ok());
  auto narrow = DecodeDracoFragment(*wide, 10, "9");
  EXPECT_EQ(narrow.status().code(), StatusCode::kCorruption);
  EXPECT_NE(narrow.status().message().find("outside [0, 1023]"), std::string::npos);
  // Cut short.
  auto cut = DecodeDracoFragment(ByteView(wide->data(), wide->size() / 2), 16, "9");
  EXPECT_EQ(cut.status().code(), StatusCode::kCorruption);
}

// A fragment fuzz-long forged (multires_mesh_fuzz): Draco decodes it to a
// position attribute whose values are not three floats, which a plain copy
// of one value into three floats overflowed. It is refused before a value
// is read.
TEST(DracoFragment, PositionsThatAreNotThreeNumbersAreCorruption) {
  const Bytes forged = {
      0x44, 0x52, 0x41, 0x43, 0x4f, 0x02, 0x02, 0x01, 0x01, 0x00, 0x00, 0x00, 0x08, 0x04, 0x00,
      0x04, 0x00, 0x00, 0x02, 0xdf, 0x07, 0xff, 0x01, 0x22, 0x01, 0xff, 0x00, 0x00, 0x01, 0x00,
      0x08, 0x03, 0x00, 0x01, 0x00, 0x60, 0xc0, 0x00, 0x6b, 0x1c, 0x6e, 0x01, 0x00, 0x03, 0x03,
      0x01, 0x18, 0x01, 0x28, 0x03, 0x67, 0x67, 0x67, 0x67, 0x67, 0x67, 0x67, 0x67, 0x67, 0x67,
      0x67, 0x67, 0x67, 0x67, 0x67, 0x67, 0x67, 0x67, 0x67, 0x67, 0x67, 0x67, 0x67, 0x67, 0x67,
      0x67, 0x67, 0x67, 0x67, 0x67, 0x67, 0x67, 0x67, 0x67, 0x67, 0x67, 0x67, 0x67, 0x67, 0x67,
      0x67, 0x67, 0x67, 0x67, 0x67, 0x67, 0x67, 0x67, 0x67, 0x67, 0x67, 0x67, 0x00, 0x31, 0xb3,
      0x0c, 0x0d, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x47, 0x04, 0xc2, 0x42, 0x00, 0xff,
      0x00, 0x41, 0x43, 0x4f, 0x02, 0x02, 0xca, 0x00, 0x00, 0x27, 0x10, 0x00, 0x00, 0x00, 0x00,
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xe3, 0x00, 0x00,
      0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x03, 0x00,
      0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x02, 0x00, 0x01, 0x01, 0x00,
      0x03, 0x03, 0x10,
  };
  for (int bits : {10, 16}) {
    auto decoded = DecodeDracoFragment(forged, bits, "9");
    ASSERT_FALSE(decoded.ok()) << bits;
    EXPECT_EQ(decoded.status().code(), StatusCode::kCorruption) << decoded.status().ToString();
    EXPECT_EQ(decoded.status().message(),
              "multi-resolution mesh fragment 9: its positions are not three numbers each");
  }
}

// A fragment fuzz-long forged (multires_mesh_fuzz): Draco's sequential
// method decodes its one triangle with the indexes it stores, past the
// fragment's vertices.
TEST(DracoFragment, ATriangleNamingAVertexPastTheLastIsCorruption) {
  const Bytes forged = {
      0x44, 0x52, 0x41, 0x43, 0x4f, 0x02, 0x02, 0x01, 0x00, 0x00, 0x01, 0x03, 0x03, 0xff,
      0x5e, 0x96, 0x04, 0x09, 0x03, 0x00, 0x00, 0x02, 0x00, 0x01, 0x01, 0x00, 0x03, 0x03,
      0x01, 0x18, 0x01, 0x28, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10,
  };
  auto decoded = DecodeDracoFragment(forged, 16, "9");
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().code(), StatusCode::kCorruption);
  EXPECT_EQ(decoded.status().message().rfind(
                "multi-resolution mesh fragment 9: triangle 0 names vertex ", 0),
            0u)
      << decoded.status().message();
}

TEST(LodFragments, SplitsByCellInZOrderAndQuantizesAcrossTheCell) {
  MultiresManifest grid;
  grid.chunk_shape = {4, 4, 4};
  grid.grid_origin = {0, 0, 0};
  // One triangle in cell (1, 0, 0), one in cell (0, 0, 0), one in (0, 1, 0).
  TriangleMesh mesh{{4, 0, 0, 8, 0, 0, 4, 4, 0,  //
                     0, 0, 0, 2, 0, 0, 0, 2, 0,  //
                     0, 4, 0, 4, 8, 0, 0, 8, 2},
                    {0, 1, 2, 3, 4, 5, 6, 7, 8}};
  Bytes data;
  auto lod = EncodeLodFragments(mesh, grid, 0, 10, nullptr, data);
  ASSERT_TRUE(lod.ok()) << lod.status().ToString();
  EXPECT_EQ(lod->positions, (std::vector<Position>{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}));
  ASSERT_EQ(lod->sizes.size(), 3u);
  std::size_t at = 0;
  std::vector<QuantizedMesh> fragments;
  for (std::uint32_t size : lod->sizes) {
    auto f = DecodeDracoFragment(ByteView(data.data() + at, size), 10, "f");
    ASSERT_TRUE(f.ok()) << f.status().ToString();
    fragments.push_back(*f);
    at += size;
  }
  EXPECT_EQ(at, data.size());
  // (0,0,0)'s triangle: (0,0,0), (2,0,0), (0,2,0) in a cell of 4: 0 and 1023/2 rounded.
  EXPECT_EQ(Corners(fragments[0]), Corners({{0, 0, 0, 512, 0, 0, 0, 512, 0}, {0, 1, 2}}));
  // (1,0,0)'s: (4,0,0) is its corner, (8,0,0) its far x edge.
  EXPECT_EQ(Corners(fragments[1]), Corners({{0, 0, 0, 1023, 0, 0, 0, 1023, 0}, {0, 1, 2}}));
  EXPECT_EQ(Corners(fragments[2]), Corners({{0, 0, 0, 1023, 1023, 0, 0, 1023, 512}, {0, 1, 2}}));

  // At LOD 1 (cells of 8) everything is one cell; a finer LOD's cells name
  // their parents, listed empty where no triangle falls.
  MultiresManifest::Lod finer;
  finer.positions = {{0, 0, 0}, {5, 2, 0}};
  Bytes coarse;
  auto one = EncodeLodFragments(mesh, grid, 1, 16, &finer, coarse);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_EQ(one->scale, 2.0f);
  EXPECT_EQ(one->positions, (std::vector<Position>{{0, 0, 0}, {2, 1, 0}}));
  EXPECT_GT(one->sizes[0], 0u);
  EXPECT_EQ(one->sizes[1], 0u);
  EXPECT_EQ(coarse.size(), one->sizes[0]);
}

TEST(LodFragments, ATriangleAcrossCellsIsRefused) {
  MultiresManifest grid;
  grid.chunk_shape = {4, 4, 4};
  TriangleMesh across{{0, 0, 0, 7, 0, 0, 0, 1, 0}, {0, 1, 2}};
  Bytes data;
  auto lod = EncodeLodFragments(across, grid, 0, 10, nullptr, data);
  EXPECT_EQ(lod.status().code(), StatusCode::kInvalidArgument);
}

TEST(MultiresMeshInfo, NamesTheTypeBitsTransformAndMultiplier) {
  const auto info =
      nlohmann::json::parse(MultiresMeshInfoText(16, {4, 0, 0, 8, 0, 4, 0, 0, 0, 0, 40, -40}, 1.0));
  EXPECT_EQ(info["@type"], "neuroglancer_multilod_draco");
  EXPECT_EQ(info["vertex_quantization_bits"], 16);
  EXPECT_EQ(info["transform"].size(), 12u);
  EXPECT_EQ(info["transform"][3], 8.0);
  EXPECT_EQ(info["transform"][11], -40.0);
  EXPECT_EQ(info["lod_scale_multiplier"], 1.0);
  EXPECT_FALSE(info.contains("sharding"));
  EXPECT_EQ(MultiresManifestKey(12), "12.index");
  EXPECT_EQ(MultiresDataKey(12), "12");
}

}  // namespace
}  // namespace chunkwise::formats::precomputed
