// Geometry files: SWC, PLY (ascii and binary), OBJ, CSV and .npy tables, in and out.
#include "chunkwise/io/geometry_files.h"

#include <gtest/gtest.h>

#include "chunkwise/io/file.h"
#include "chunkwise/io/geometry_tables.h"
#include "chunkwise/io/obj.h"
#include "chunkwise/io/ply.h"
#include "chunkwise/io/swc.h"
#include "core/file_io.h"
#include "unit/formats/vectors_test_data.h"
#include "unit/scratch_directory.h"

namespace chunkwise::io {
namespace {

using formats::vectors::Geometry;
using formats::vectors::GeometryType;

TEST(VectorsSwc, ParsesSamplesAndDirectedEdges) {
  const char* text =
      "# comment\n"
      "1 1 0 0 0 2.5 -1\n"
      "2 3 10.5 0 0 1 1\n"
      "3 3 20 5 0 0.5 2  # tail comment\n"
      "\n"
      "5 3 20 -5 0 0.5 2\n";
  Result<Geometry> skeleton = ParseSwc(text, "cell.swc");
  ASSERT_TRUE(skeleton.ok()) << skeleton.status().ToString();
  EXPECT_EQ(skeleton->positions.size(), 4u);
  EXPECT_EQ(skeleton->links, (std::vector<std::int64_t>{1, 0, 2, 1, 3, 1}));
  EXPECT_EQ(skeleton->vertex_attributes[0].values, (std::vector<float>{2.5f, 1, 0.5f, 0.5f}));
  Result<std::string> formatted = FormatSwc(*skeleton);
  ASSERT_TRUE(formatted.ok());
  Result<Geometry> again = ParseSwc(*formatted, "again");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->positions, skeleton->positions);
  EXPECT_EQ(again->links, skeleton->links);
  EXPECT_EQ(again->vertex_attributes, skeleton->vertex_attributes);
}

TEST(VectorsSwc, ErrorsNameTheLine) {
  Result<Geometry> bad = ParseSwc("1 1 0 0 0 1 -1\n2 1 0 0\n", "cell.swc");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("cell.swc:2"), std::string::npos);
  EXPECT_FALSE(ParseSwc("1 1 0 0 0 1 7\n", "x").ok());                   // Unknown parent.
  EXPECT_FALSE(ParseSwc("1 1 0 0 0 1 -1\n1 1 0 0 0 1 -1\n", "x").ok());  // Repeated id.
}

TEST(VectorsPly, AsciiWithQuadIsFanTriangulated) {
  const char* text =
      "ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\nproperty float y\nproperty float "
      "z\n"
      "property uchar red\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n"
      "0 0 0 1\n1 0 0 2\n1 1 0 3\n0 1 0 4\n4 0 1 2 3\n";
  Result<Geometry> mesh = ParsePly(AsBytes(text), "quad.ply");
  ASSERT_TRUE(mesh.ok()) << mesh.status().ToString();
  EXPECT_EQ(mesh->positions.size(), 4u);
  EXPECT_EQ(mesh->links, (std::vector<std::int64_t>{0, 1, 2, 0, 2, 3}));
  ASSERT_EQ(mesh->vertex_attributes.size(), 1u);
  EXPECT_EQ(mesh->vertex_attributes[0].values, (std::vector<float>{1, 2, 3, 4}));
}

TEST(VectorsPly, BinaryRoundTripAndTruncation) {
  Geometry mesh;
  mesh.type = GeometryType::kMesh;
  mesh.positions = {{0, 0, 0}, {1.5f, 0, 0}, {0, 2.25f, -1}};
  mesh.links = {2, 0, 1};
  const Bytes bytes = FormatPly(mesh);
  Result<Geometry> read = ParsePly(bytes, "mesh.ply");
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->positions, mesh.positions);
  EXPECT_EQ(read->links, mesh.links);
  const Bytes truncated(bytes.begin(), bytes.end() - 3);
  EXPECT_FALSE(ParsePly(truncated, "mesh.ply").ok());
  const char* out_of_range =
      "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\n"
      "property float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n"
      "0 0 0\n3 0 0 5\n";
  EXPECT_FALSE(ParsePly(AsBytes(out_of_range), "bad.ply").ok());
  // Found by vectors_importers_fuzz: an index too large for int64 was converted anyway.
  const char* huge_index =
      "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\n"
      "property float z\nelement face 1\nproperty list uchar int vertex_indices\n"
      "end_header\n0 0 0\n3 0 0 1e30\n";
  EXPECT_FALSE(ParsePly(AsBytes(huge_index), "huge.ply").ok());
  EXPECT_FALSE(
      ParsePly(AsBytes("ply\nformat binary_big_endian 1.0\nend_header\n"), "big.ply").ok());
}

TEST(VectorsObj, FacesWithTexturesNormalsAndNegativeIndices) {
  const char* text =
      "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvn 0 0 1\nf 1/1/1 2/2/1 3/3/1\nf -4//1 -2//1 -1//1\n";
  Result<Geometry> mesh = ParseObj(text, "m.obj");
  ASSERT_TRUE(mesh.ok()) << mesh.status().ToString();
  EXPECT_EQ(mesh->links, (std::vector<std::int64_t>{0, 1, 2, 0, 2, 3}));
  Result<Geometry> again = ParseObj(FormatObj(*mesh), "again");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->positions, mesh->positions);
  EXPECT_EQ(again->links, mesh->links);
  EXPECT_FALSE(ParseObj("v 0 0 0\nf 1 2 3\n", "bad.obj").ok());
}

TEST(VectorsTables, GraphCsvRoundTripThroughFiles) {
  const std::filesystem::path dir = chunkwise::test::FreshScratchDirectory("vector_tables");
  std::filesystem::create_directories(dir);
  ASSERT_TRUE(
      io::WriteFile(dir / "nodes.csv", AsBytes("x,y,z,object_id,radius\n0,0,0,1,0.5\n1,2,3,1,1.5\n"
                                               "4,5,6,2,2.5\n"))
          .ok());
  ASSERT_TRUE(
      io::WriteFile(dir / "edges.csv", AsBytes("source,target,weight\n0,1,0.25\n2,1,4\n")).ok());
  Result<Geometry> graph =
      ImportGeometry(GeometryType::kGraph, dir / "nodes.csv", dir / "edges.csv");
  ASSERT_TRUE(graph.ok()) << graph.status().ToString();
  EXPECT_EQ(graph->object_ids, (std::vector<std::int64_t>{1, 1, 2}));
  EXPECT_EQ(graph->links, (std::vector<std::int64_t>{0, 1, 2, 1}));
  ASSERT_EQ(graph->link_attributes.size(), 1u);
  EXPECT_EQ(graph->link_attributes[0].values, (std::vector<float>{0.25f, 4}));
  ASSERT_TRUE(ExportGeometry(dir / "out.csv", *graph, false).ok());
  EXPECT_FALSE(ExportGeometry(dir / "out.csv", *graph, false).ok());  // Existing output refused.
  Result<Geometry> again =
      ImportGeometry(GeometryType::kGraph, dir / "out.csv", dir / "out.links.csv");
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->positions, graph->positions);
  EXPECT_EQ(again->links, graph->links);
  EXPECT_EQ(again->link_attributes, graph->link_attributes);
  EXPECT_EQ(again->vertex_attributes, graph->vertex_attributes);
  ASSERT_TRUE(io::WriteFile(dir / "bad_edges.csv", AsBytes("source,target\n0,9\n")).ok());
  EXPECT_FALSE(ImportGeometry(GeometryType::kGraph, dir / "nodes.csv", dir / "bad_edges.csv").ok());
}

TEST(VectorsTables, PolylinesFollowObjectRunsAndNpyHoldsPoints) {
  const std::filesystem::path dir = chunkwise::test::FreshScratchDirectory("vector_tables");
  std::filesystem::create_directories(dir);
  ASSERT_TRUE(
      io::WriteFile(dir / "lines.csv", AsBytes("x,y,z,object_id\n0,0,0,1\n1,0,0,1\n2,0,0,1\n"
                                               "0,5,0,2\n1,5,0,2\n"))
          .ok());
  Result<Geometry> lines = ImportGeometry(GeometryType::kPolyline, dir / "lines.csv", std::nullopt);
  ASSERT_TRUE(lines.ok()) << lines.status().ToString();
  EXPECT_EQ(lines->links, (std::vector<std::int64_t>{0, 1, 1, 2, 3, 4}));
  ASSERT_TRUE(ExportGeometry(dir / "points.npy", *lines, false).ok());
  Result<Geometry> points = ImportGeometry(GeometryType::kPoints, dir / "points.npy", std::nullopt);
  ASSERT_TRUE(points.ok()) << points.status().ToString();
  EXPECT_EQ(points->positions, lines->positions);
  EXPECT_TRUE(std::filesystem::exists(dir / "points.links.npy"));
  EXPECT_FALSE(ImportGeometry(GeometryType::kMesh, dir / "lines.csv", std::nullopt).ok());
}

}  // namespace
}  // namespace chunkwise::io
