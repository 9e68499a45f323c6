// Layout 0.9 (#43): object manifests, object ids, polylines and skeletons
// whose links are implicit in fragment order, written and read back; and the
// refusals of malformed object indexes, naming the key.
#include <gtest/gtest.h>

#include "formats/vectors/geometry_reader.h"
#include "formats/vectors/layout.h"
#include "formats/vectors/object_index.h"
#include "formats/vectors/vlen_array.h"
#include "unit/formats/vectors_test_data.h"

namespace chunkwise::formats::vectors {
namespace {

using test::LinkKeys;
using test::MatchVertices;

WriteOptions Options09() {
  WriteOptions options = test::Options(10.0);
  options.layout = LayoutVersion::k0_9;
  return options;
}

std::shared_ptr<store::MemoryStore> Write09(const Geometry& geometry) {
  auto memory = store::MemoryStore::Create();
  Result<WriteSummary> written = WriteGeometry(memory, "", geometry, Options09());
  EXPECT_TRUE(written.ok()) << written.status().ToString();
  return memory;
}

Result<Geometry> Read(const std::shared_ptr<store::MemoryStore>& memory) {
  CHUNKWISE_ASSIGN_OR_RETURN(VectorStore store, VectorStore::Open(memory, ""));
  CHUNKWISE_ASSIGN_OR_RETURN(LevelGeometry read, ReadGeometry(store, {}));
  return read.geometry;
}

void ExpectSame(const Geometry& original, const Geometry& read) {
  ASSERT_EQ(read.positions.size(), original.positions.size());
  const std::vector<std::int64_t> match = MatchVertices(original, read);
  for (std::size_t v = 0; v < match.size(); ++v) {
    ASSERT_GE(match[v], 0);
    if (!original.object_ids.empty()) {
      ASSERT_EQ(read.object_ids.size(), read.positions.size());
      EXPECT_EQ(read.object_ids[v], original.object_ids[match[v]]) << "vertex " << v;
    }
  }
  EXPECT_EQ(LinkKeys(read, match), LinkKeys(original));
}

// A stored object index that breaks the format is refused naming its key.
void ExpectCorruptionNaming(const std::shared_ptr<store::MemoryStore>& memory,
                            const std::string& key) {
  Result<Geometry> read = Read(memory);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), StatusCode::kCorruption) << read.status().ToString();
  EXPECT_NE(read.status().message().find(key), std::string::npos) << read.status().ToString();
}

TEST(VectorsManifest, EveryModeRoundTrips) {
  const std::vector<ManifestBlock> blocks = {
      {{1, -2, 3}, {{4, 1}}}, {{0, 0, 0}, {{2, 5}}}, {{-7, 8, 9}, {{1, 1}, {6, 1}, {3, 1}}}};
  const Bytes encoded = EncodeObjectManifest(blocks);
  EXPECT_EQ(encoded[4 + 24], 0);  // Mode 0: one fragment.
  Result<std::vector<ManifestBlock>> decoded = DecodeObjectManifest(encoded, "m");
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(*decoded, blocks);
}

TEST(VectorsManifest, MalformedManifestsAreCorruptionNamingWhere) {
  const std::vector<ManifestBlock> one = {{{1, 2, 3}, {{4, 1}}}};
  const Bytes good = EncodeObjectManifest(one);
  struct Case {
    const char* what;
    Bytes bytes;
    const char* says;
  };
  Bytes cut(good.begin(), good.end() - 3);
  Bytes trailing = good;
  trailing.push_back(0);
  Bytes mode = good;
  mode[4 + 24] = 9;
  Bytes negative = good;
  for (int i = 0; i < 8; ++i) negative[4 + 25 + i] = 0xff;  // Fragment -1.
  Bytes huge_count = {0xff, 0xff, 0xff, 0xff};
  for (const Case& c :
       {Case{"cut", cut, "cut short"}, Case{"trailing", trailing, "follow"},
        Case{"mode", mode, "unknown mode 9"}, Case{"negative", negative, "fragment -1"},
        Case{"count", huge_count, "cut short"}}) {
    Result<std::vector<ManifestBlock>> decoded = DecodeObjectManifest(c.bytes, "where/c/0");
    ASSERT_FALSE(decoded.ok()) << c.what;
    EXPECT_EQ(decoded.status().code(), StatusCode::kCorruption) << c.what;
    EXPECT_NE(decoded.status().message().find("where/c/0"), std::string::npos) << c.what;
    EXPECT_NE(decoded.status().message().find(c.says), std::string::npos)
        << c.what << ": " << decoded.status().message();
  }
}

TEST(VectorsLayout09, PointsKeepTheirObjectIds) {
  const Geometry points = test::RandomPoints(300);
  const auto memory = Write09(points);
  EXPECT_TRUE(memory->Get("0/object_index/manifests/c/0").value().has_value());
  EXPECT_FALSE(memory->Get("0/vertex_attributes/object_id/zarr.json").value().has_value());
  Result<Geometry> read = Read(memory);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ExpectSame(points, *read);
}

TEST(VectorsLayout09, GraphWithObjectIdsKeepsEveryEdgeInItsDirection) {
  Geometry graph = test::RandomPoints(200, GeometryType::kGraph);
  graph.vertex_attributes.clear();
  for (std::int64_t v = 0; v < 200; ++v)
    graph.links.insert(graph.links.end(), {v, (v * 7 + 3) % 200});
  const auto memory = Write09(graph);
  Result<Geometry> read = Read(memory);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ExpectSame(graph, *read);
}

TEST(VectorsLayout09, LinkAttributesFollowTheirLinksInAndAcrossChunks) {
  Geometry mesh;
  mesh.type = GeometryType::kMesh;
  mesh.positions = {{25, 1, 1}, {5, 1, 1}, {15, 1, 1}, {6, 2, 2}, {7, 3, 1}};
  mesh.links = {0, 1, 2, 2, 0, 1, 1, 3, 4};
  mesh.link_attributes = {{"area", 1, {1.5f, 2.5f, 3.5f}}, {"rgb", 3, {1, 2, 3, 4, 5, 6, 7, 8, 9}}};
  const auto memory = Write09(mesh);
  EXPECT_TRUE(memory->Get("0/link_attributes/rgb/0/zarr.json").value().has_value());
  Result<Geometry> read = Read(memory);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ExpectSame(mesh, *read);
  // A cell one row short is Corruption naming it.
  const std::string cell = "0/link_attributes/area/0/0.0.0_0.0.0/c/0/0/0";
  ASSERT_TRUE(memory->Get(cell).value().has_value());
  ASSERT_TRUE(memory->Set(cell, EncodeVlenCell(Bytes(0))).ok());
  ExpectCorruptionNaming(memory, "0/link_attributes/area/0/0.0.0_0.0.0/c/0/0/0");
}

Geometry Polylines() {
  Geometry lines;
  lines.type = GeometryType::kPolyline;
  // Line 7 leaves chunk (0,0,0) and comes back; line 3 stays inside; line 9 is one vertex.
  lines.positions = {{1, 1, 1}, {12, 1, 1}, {2, 2, 2}, {3, 3, 3}, {14, 4, 4},
                     {5, 5, 5}, {6, 6, 6},  {7, 7, 7}, {25, 5, 5}};
  lines.object_ids = {7, 7, 7, 7, 7, 3, 3, 3, 9};
  lines.links = {0, 1, 1, 2, 2, 3, 3, 4, 5, 6, 6, 7};
  return lines;
}

TEST(VectorsLayout09, PolylinesKeepEveryStepAndObject) {
  const Geometry lines = Polylines();
  const auto memory = Write09(lines);
  // Steps inside a chunk are not stored: only the three that cross chunks are.
  EXPECT_FALSE(memory->Get("0/links/0/0.0.0/zarr.json").value().has_value());
  Result<Geometry> read = Read(memory);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ExpectSame(lines, *read);
}

TEST(VectorsLayout09, SkeletonKeepsEveryParentAcrossBranchesRootsAndChunks) {
  Geometry skeleton;
  skeleton.type = GeometryType::kSkeleton;
  // Links [child, parent]. Vertex 0 is a root; 1..3 a chain; 4 branches off 1;
  // 5 (chunk 1,0,0) hangs off 3; 6 is a second root right after 5's run; 7
  // has a parent *after* it.
  skeleton.positions = {{1, 1, 1},  {2, 1, 1}, {3, 1, 1}, {4, 1, 1}, {5, 2, 2},
                        {15, 1, 1}, {6, 6, 6}, {7, 7, 7}, {8, 8, 8}};
  skeleton.object_ids = {1, 1, 1, 1, 1, 1, 2, 2, 2};
  skeleton.links = {1, 0, 2, 1, 3, 2, 4, 1, 5, 3, 7, 8, 8, 6};
  const auto memory = Write09(skeleton);
  Result<Geometry> read = Read(memory);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ExpectSame(skeleton, *read);
}

// Levels a caller made (#41): each read back whole at its level, with its
// own triangles and object ids; the bounds hold a coarser level's vertex
// outside level 0's box; level metadata names the parent and "manual".
TEST(VectorsLayout09, LevelsTheCallerMadeReadBackEachWhole) {
  Geometry fine;
  fine.type = GeometryType::kMesh;
  fine.positions = {{1, 1, 1}, {12, 1, 1}, {1, 12, 1}, {3, 3, 14}, {4, 4, 4}, {5, 4, 4}, {4, 5, 4}};
  fine.object_ids = {7, 7, 7, 7, 9, 9, 9};
  fine.links = {0, 1, 2, 0, 2, 3, 4, 5, 6};
  Geometry coarse;
  coarse.type = GeometryType::kMesh;
  coarse.positions = {{-6, 1, 1}, {12, 1, 1}, {1, 12, 1}, {4, 4, 4}, {5, 4, 4}, {4, 5, 4}};
  coarse.object_ids = {7, 7, 7, 9, 9, 9};
  coarse.links = {2, 1, 0, 3, 4, 5};
  const std::vector<Geometry> levels{fine, coarse};
  auto memory = store::MemoryStore::Create();
  Result<WriteSummary> written = WriteGeometryLevels(memory, "", levels, Options09());
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_EQ(written->vertices, fine.positions.size());
  Result<VectorStore> store = VectorStore::Open(memory, "");
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_EQ(store->metadata().num_levels, 2);
  EXPECT_EQ(store->metadata().bounds_min[0], -6);
  EXPECT_EQ(store->metadata().bounds_max[2], 14);
  for (int level = 0; level < 2; ++level) {
    SCOPED_TRACE(level);
    Result<LevelGeometry> read = ReadGeometry(*store, ReadQuery{level, {}, {}});
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    ExpectSame(levels[static_cast<std::size_t>(level)], read->geometry);
  }
  Result<LevelMetadata> level1 = store->ReadLevel(1);
  ASSERT_TRUE(level1.ok()) << level1.status().ToString();
  EXPECT_EQ(level1->parent_level, 0);
  ASSERT_TRUE(level1->bin_shape.has_value());
  Result<std::optional<Bytes>> group = memory->Get("1/zarr.json");
  ASSERT_TRUE(group.ok() && group->has_value());
  const std::string text(group->value().begin(), group->value().end());
  const nlohmann::json attributes = nlohmann::json::parse(text)["attributes"];
  EXPECT_EQ(attributes["zarr_vectors_level"]["coarsening_method"], "manual") << text;
  EXPECT_EQ(ReadGeometry(*store, ReadQuery{2, {}, {}}).status().code(), StatusCode::kNotFound);
}

TEST(VectorsLayout09, LevelsOfTwoTypesOrNoneAreRefused) {
  Geometry mesh;
  mesh.type = GeometryType::kMesh;
  mesh.positions = {{1, 1, 1}, {2, 1, 1}, {1, 2, 1}};
  mesh.links = {0, 1, 2};
  Geometry points;
  points.positions = {{1, 1, 1}};
  auto memory = store::MemoryStore::Create();
  const std::vector<Geometry> mixed{mesh, points};
  Result<WriteSummary> written = WriteGeometryLevels(memory, "", mixed, Options09());
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(written.status().message().find("level 1"), std::string::npos)
      << written.status().ToString();
  EXPECT_EQ(WriteGeometryLevels(memory, "", std::vector<Geometry>(), Options09()).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_TRUE(memory->List("").value().empty());
}

TEST(VectorsLayout09, SkeletonVertexWithTwoParentsIsRefusedBeforeWriting) {
  Geometry skeleton;
  skeleton.type = GeometryType::kSkeleton;
  skeleton.positions = {{1, 1, 1}, {2, 1, 1}, {3, 1, 1}};
  skeleton.links = {2, 0, 2, 1};
  auto memory = store::MemoryStore::Create();
  Result<WriteSummary> written = WriteGeometry(memory, "", skeleton, Options09());
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(written.status().message().find("vertex 2"), std::string::npos);
  EXPECT_TRUE(memory->List("").value().empty());
}

TEST(VectorsLayout09, MalformedObjectIndexIsCorruptionNamingTheKey) {
  const Geometry lines = Polylines();
  {  // A manifest element cut short.
    const auto memory = Write09(lines);
    Bytes chunk = memory->Get("0/object_index/manifests/c/0").value().value();
    const std::uint32_t length = LoadLittleEndian<std::uint32_t>(chunk.data() + 4);
    StoreLittleEndian(length + 100, chunk.data() + 4);
    ASSERT_TRUE(memory->Set("0/object_index/manifests/c/0", chunk).ok());
    ExpectCorruptionNaming(memory, "0/object_index/manifests/c/0");
  }
  {  // Two objects claim one fragment: the second row's manifest is the first's.
    const auto memory = Write09(lines);
    Bytes chunk = memory->Get("0/object_index/manifests/c/0").value().value();
    const std::uint32_t first = LoadLittleEndian<std::uint32_t>(chunk.data() + 4);
    const Bytes element(chunk.begin() + 8, chunk.begin() + 8 + first);
    Bytes rebuilt;
    AppendLittleEndian(std::uint32_t{3}, rebuilt);
    for (int r = 0; r < 3; ++r) {
      AppendLittleEndian(first, rebuilt);
      rebuilt.insert(rebuilt.end(), element.begin(), element.end());
    }
    ASSERT_TRUE(memory->Set("0/object_index/manifests/c/0", rebuilt).ok());
    ExpectCorruptionNaming(memory, "0/object_index/manifests/c/0");
  }
  {  // The ids array shorter than its shape says.
    const auto memory = Write09(lines);
    ASSERT_TRUE(memory->Set("0/object_index/object_ids/c/0", Bytes(12, 0)).ok());
    ExpectCorruptionNaming(memory, "0/object_index/object_ids/c/0");
  }
  {  // A fragment no manifest names.
    const auto memory = Write09(lines);
    Bytes chunk;
    AppendLittleEndian(std::uint32_t{3}, chunk);
    for (int r = 0; r < 3; ++r) AppendLittleEndian(std::uint32_t{0}, chunk);  // Empty rows.
    ASSERT_TRUE(memory->Set("0/object_index/manifests/c/0", chunk).ok());
    ExpectCorruptionNaming(memory, "0/vertex_fragments/c/");
  }
}

}  // namespace
}  // namespace chunkwise::formats::vectors
