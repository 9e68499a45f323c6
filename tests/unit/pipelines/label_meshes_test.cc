#include "pipelines/meshing/label_meshes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <tuple>

namespace chunkwise::pipelines {
namespace {

// A label volume in memory, (z, y, x).
struct Volume {
  std::array<std::int64_t, 3> shape;
  std::vector<std::uint64_t> labels;

  explicit Volume(std::array<std::int64_t, 3> s)
      : shape(s), labels(static_cast<std::size_t>(s[0] * s[1] * s[2]), 0) {}
  std::uint64_t& at(std::int64_t z, std::int64_t y, std::int64_t x) {
    return labels[static_cast<std::size_t>((z * shape[1] + y) * shape[2] + x)];
  }
  LabelSource Source() const {
    return LabelSource{
        shape, [this](const core::Region& r) -> Result<std::vector<std::uint64_t>> {
          std::vector<std::uint64_t> out;
          for (auto z = r.start()[0]; z < r.stop()[0]; ++z)
            for (auto y = r.start()[1]; y < r.stop()[1]; ++y)
              for (auto x = r.start()[2]; x < r.stop()[2]; ++x)
                out.push_back(labels[static_cast<std::size_t>((z * shape[1] + y) * shape[2] + x)]);
          return out;
        }};
  }
};

MeshedLabels Mesh(const Volume& volume, std::array<std::int64_t, 3> chunk = {64, 64, 64}) {
  MeshingOptions options;
  options.chunk = chunk;
  Result<MeshedLabels> meshed = MeshLabels(volume.Source(), options);
  EXPECT_TRUE(meshed.ok()) << meshed.status().ToString();
  return meshed.ok() ? std::move(*meshed) : MeshedLabels{};
}

// Every directed edge once and its reverse once: closed, and consistently oriented.
void ExpectClosed(const LabelMesh& mesh) {
  std::map<std::pair<std::uint32_t, std::uint32_t>, int> directed;
  for (std::size_t t = 0; t < mesh.num_triangles(); ++t) {
    for (int k = 0; k < 3; ++k) {
      ++directed[{mesh.triangles[3 * t + k], mesh.triangles[3 * t + (k + 1) % 3]}];
    }
  }
  ASSERT_FALSE(directed.empty());
  for (const auto& [edge, count] : directed) {
    ASSERT_EQ(count, 1) << "edge " << edge.first << "-" << edge.second;
    ASSERT_EQ(directed.count({edge.second, edge.first}), 1u)
        << "edge " << edge.first << "-" << edge.second << " has one face";
  }
}

double SignedVolume(const LabelMesh& m) {
  double volume = 0;
  for (std::size_t t = 0; t < m.num_triangles(); ++t) {
    const float* a = &m.vertices[3 * m.triangles[3 * t]];
    const float* b = &m.vertices[3 * m.triangles[3 * t + 1]];
    const float* c = &m.vertices[3 * m.triangles[3 * t + 2]];
    volume += (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
               a[2] * (b[0] * c[1] - b[1] * c[0])) /
              6.0;
  }
  return volume;
}

int EulerCharacteristic(const LabelMesh& m) {
  std::set<std::pair<std::uint32_t, std::uint32_t>> edges;
  for (std::size_t t = 0; t < m.num_triangles(); ++t) {
    for (int k = 0; k < 3; ++k) {
      const std::uint32_t a = m.triangles[3 * t + k], b = m.triangles[3 * t + (k + 1) % 3];
      edges.insert({std::min(a, b), std::max(a, b)});
    }
  }
  return static_cast<int>(m.num_vertices()) - static_cast<int>(edges.size()) +
         static_cast<int>(m.num_triangles());
}

using Point = std::array<float, 3>;
// The triangles as positions, each starting at its least vertex: comparable across chunkings.
std::multiset<std::array<Point, 3>> Triangles(const LabelMesh& m) {
  std::multiset<std::array<Point, 3>> out;
  for (std::size_t t = 0; t < m.num_triangles(); ++t) {
    std::array<Point, 3> tri;
    for (int k = 0; k < 3; ++k) {
      const float* v = &m.vertices[3 * m.triangles[3 * t + k]];
      tri[k] = {v[0], v[1], v[2]};
    }
    std::rotate(tri.begin(), std::min_element(tri.begin(), tri.end()), tri.end());
    out.insert(tri);
  }
  return out;
}

Volume Sphere(std::int64_t n, double radius, std::uint64_t label) {
  Volume v({n, n, n});
  const double c = (n - 1) / 2.0;
  for (std::int64_t z = 0; z < n; ++z)
    for (std::int64_t y = 0; y < n; ++y)
      for (std::int64_t x = 0; x < n; ++x)
        if (std::hypot(z - c, y - c, x - c) <= radius) v.at(z, y, x) = label;
  return v;
}

TEST(LabelMeshes, ACubeIsClosedWithVerticesOnItsVoxelFaces) {
  Volume v({8, 8, 8});
  for (int z = 2; z < 5; ++z)
    for (int y = 2; y < 5; ++y)
      for (int x = 2; x < 5; ++x) v.at(z, y, x) = 7;
  const MeshedLabels meshed = Mesh(v);
  ASSERT_EQ(meshed.meshes.size(), 1u);
  const LabelMesh& m = meshed.meshes.at(7);
  ExpectClosed(m);
  EXPECT_EQ(EulerCharacteristic(m), 2);
  // One vertex per voxel face on the boundary: 6 sides of 3 x 3.
  EXPECT_EQ(m.num_vertices(), 54u);
  for (std::size_t i = 0; i < m.num_vertices(); ++i) {
    int on_side = 0;
    for (int d = 0; d < 3; ++d) {
      const float p = m.vertices[3 * i + d];
      if (p == 2.0f || p == 5.0f) {
        ++on_side;
      } else {
        EXPECT_TRUE(p == 2.5f || p == 3.5f || p == 4.5f)
            << "vertex " << i << " axis " << d << " at " << p;
      }
    }
    EXPECT_EQ(on_side, 1) << "vertex " << i;
  }
  // Outward normals: positive volume, the cube less its cut edges and corners.
  const double volume = SignedVolume(m);
  EXPECT_GT(volume, 20.0);
  EXPECT_LT(volume, 27.0);
  EXPECT_EQ(meshed.voxel_counts.at(7), 27u);
}

TEST(LabelMeshes, OneVoxelIsAnOctahedron) {
  Volume v({3, 3, 3});
  v.at(1, 1, 1) = 1;
  const MeshedLabels meshed = Mesh(v);
  const LabelMesh& m = meshed.meshes.at(1);
  ExpectClosed(m);
  EXPECT_EQ(m.num_vertices(), 6u);
  EXPECT_EQ(m.num_triangles(), 8u);
  EXPECT_NEAR(SignedVolume(m), 1.0 / 6.0, 1e-6);
}

TEST(LabelMeshes, ASphereIsClosedAndItsVerticesLieOnItsBoundary) {
  const Volume v = Sphere(20, 7.0, 3);
  const MeshedLabels meshed = Mesh(v);
  const LabelMesh& m = meshed.meshes.at(3);
  ExpectClosed(m);
  EXPECT_EQ(EulerCharacteristic(m), 2);
  const double c = 19 / 2.0 + 0.5;  // The centre in voxel space: voxel i's centre is at i + 0.5.
  for (std::size_t i = 0; i < m.num_vertices(); ++i) {
    const double r =
        std::hypot(m.vertices[3 * i] - c, m.vertices[3 * i + 1] - c, m.vertices[3 * i + 2] - c);
    EXPECT_GT(r, 7.0 - 1.0);
    EXPECT_LT(r, 7.0 + 1.0);
  }
  EXPECT_NEAR(SignedVolume(m), 4.0 / 3.0 * M_PI * 343, 0.1 * 4.0 / 3.0 * M_PI * 343);
}

TEST(LabelMeshes, ALabelTouchingTheVolumesEdgeIsClosed) {
  Volume v({4, 5, 6});
  std::fill(v.labels.begin(), v.labels.end(), 9);
  const MeshedLabels meshed = Mesh(v, {2, 2, 2});
  ExpectClosed(meshed.meshes.at(9));
  EXPECT_EQ(EulerCharacteristic(meshed.meshes.at(9)), 2);
  EXPECT_EQ(meshed.voxel_counts.at(9), 120u);
}

TEST(LabelMeshes, RandomLabelsAreEachClosedAndOriented) {
  Volume v({12, 13, 14});
  std::mt19937 random(5);
  for (auto& label : v.labels) label = random() % 4;  // 0 is background.
  const MeshedLabels meshed = Mesh(v, {5, 4, 6});
  ASSERT_EQ(meshed.meshes.size(), 3u);
  std::uint64_t counted = 0;
  for (const auto& [label, mesh] : meshed.meshes) {
    SCOPED_TRACE(label);
    ExpectClosed(mesh);
    EXPECT_GT(SignedVolume(mesh), 0.0);
    counted += meshed.voxel_counts.at(label);
  }
  EXPECT_EQ(counted,
            static_cast<std::uint64_t>(std::count_if(v.labels.begin(), v.labels.end(),
                                                     [](std::uint64_t l) { return l != 0; })));
}

TEST(LabelMeshes, ChunkingsGiveTheSameSurfaceAsOneChunk) {
  Volume v = Sphere(18, 6.5, 1);
  for (int z = 0; z < 18; ++z)
    for (int y = 0; y < 5; ++y)
      for (int x = 3; x < 9; ++x) v.at(z, y, x) = 2;  // Touches the sphere and the edge.
  const MeshedLabels whole = Mesh(v, {64, 64, 64});
  for (const auto& chunk : {std::array<std::int64_t, 3>{9, 9, 9}, {5, 7, 3}, {1, 18, 2}}) {
    SCOPED_TRACE(chunk[0] * 100 + chunk[1] * 10 + chunk[2]);
    const MeshedLabels parts = Mesh(v, chunk);
    ASSERT_EQ(parts.meshes.size(), 2u);
    EXPECT_EQ(parts.voxel_counts, whole.voxel_counts);
    for (const auto& [label, mesh] : whole.meshes) {
      const LabelMesh& part = parts.meshes.at(label);
      EXPECT_EQ(part.num_vertices(), mesh.num_vertices());
      EXPECT_EQ(Triangles(part), Triangles(mesh));
      ExpectClosed(part);
    }
  }
}

TEST(LabelMeshes, PositionsArePhysical) {
  Volume v({3, 3, 3});
  v.at(1, 1, 1) = 1;
  MeshingOptions options;
  options.resolution = {4, 8, 40};
  options.voxel_offset = {100, 200, 10};
  Result<MeshedLabels> meshed = MeshLabels(v.Source(), options);
  ASSERT_TRUE(meshed.ok());
  const LabelMesh& m = meshed->meshes.at(1);
  std::set<Point> points;
  for (std::size_t i = 0; i < m.num_vertices(); ++i) {
    points.insert({m.vertices[3 * i], m.vertices[3 * i + 1], m.vertices[3 * i + 2]});
  }
  // The voxel (1,1,1) spans [101, 102) x [201, 202) x [11, 12) voxels: its face centres.
  const std::set<Point> expected = {{404, 1612, 460}, {408, 1612, 460}, {406, 1608, 460},
                                    {406, 1616, 460}, {406, 1612, 440}, {406, 1612, 480}};
  EXPECT_EQ(points, expected);
}

TEST(LabelMeshes, NoLabelsIsAnEmptyResult) {
  const MeshedLabels meshed = Mesh(Volume({5, 5, 5}));
  EXPECT_TRUE(meshed.meshes.empty());
  EXPECT_TRUE(meshed.voxel_counts.empty());
}

TEST(LabelMeshes, OnlyTheLabelsAskedFor) {
  Volume v({6, 6, 6});
  v.at(1, 1, 1) = 1;
  v.at(4, 4, 4) = 2;
  MeshingOptions options;
  options.labels = std::vector<std::uint64_t>{2, 5};
  Result<MeshedLabels> meshed = MeshLabels(v.Source(), options);
  ASSERT_TRUE(meshed.ok());
  ASSERT_EQ(meshed->meshes.size(), 1u);
  EXPECT_EQ(meshed->meshes.count(2), 1u);
  EXPECT_EQ(meshed->voxel_counts, (std::map<std::uint64_t, std::uint64_t>{{2, 1}}));
}

TEST(LabelMeshes, ASourceErrorNamesTheBoxRead) {
  LabelSource source{
      {4, 4, 4}, [](const core::Region& r) -> Result<std::vector<std::uint64_t>> {
        if (r.start()[0] > 0) return Status::NotFound("chunk c/1/0/0 is missing");
        return std::vector<std::uint64_t>(static_cast<std::size_t>(r.num_elements()));
      }};
  MeshingOptions options;
  options.chunk = {2, 4, 4};
  Result<MeshedLabels> meshed = MeshLabels(source, options);
  ASSERT_FALSE(meshed.ok());
  EXPECT_EQ(meshed.status().code(), StatusCode::kNotFound);
  EXPECT_NE(meshed.status().message().find("c/1/0/0"), std::string::npos);
  EXPECT_NE(meshed.status().message().find("1:4,0:4,0:4"), std::string::npos)
      << meshed.status().message();
}

TEST(LabelMeshes, BadOptionsAreInvalidArgumentNamingTheField) {
  Volume v({2, 2, 2});
  MeshingOptions options;
  options.chunk = {0, 4, 4};
  Result<MeshedLabels> meshed = MeshLabels(v.Source(), options);
  ASSERT_FALSE(meshed.ok());
  EXPECT_EQ(meshed.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(meshed.status().field(), "chunk");
  options.chunk = {4, 4, 4};
  options.resolution = {1, 0, 1};
  meshed = MeshLabels(v.Source(), options);
  ASSERT_FALSE(meshed.ok());
  EXPECT_EQ(meshed.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(meshed.status().field(), "resolution");
}

}  // namespace
}  // namespace chunkwise::pipelines
