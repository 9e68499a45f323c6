// Round trips of every geometry type through a zarr-vectors store, reads by
// box and object, and the pyramid's levels and cross-level links.
#include <gtest/gtest.h>

#include <set>

#include "chunkwise/store/file_store.h"
#include "formats/vectors/cross_chunk_record.h"
#include "formats/vectors/geometry_reader.h"
#include "formats/vectors/layout.h"
#include "formats/vectors/level_reader.h"
#include "formats/vectors/pyramid.h"
#include "formats/vectors/validator.h"
#include "unit/formats/vectors_test_data.h"
#include "unit/forwarding_store.h"
#include "unit/scratch_directory.h"

namespace chunkwise::formats::vectors {
namespace {

using test::LinkKeys;
using test::MatchVertices;
using test::Options;
using test::RandomPoints;

struct Written {
  std::shared_ptr<store::MemoryStore> memory = store::MemoryStore::Create();
  WriteSummary summary;
};

Written WriteToMemory(const Geometry& geometry, double chunk = 10.0) {
  Written written;
  Result<WriteSummary> summary = WriteGeometry(written.memory, "", geometry, Options(chunk));
  EXPECT_TRUE(summary.ok()) << summary.status().ToString();
  if (summary.ok()) written.summary = *summary;
  return written;
}

VectorStore OpenMemory(const Written& written) {
  Result<VectorStore> store = VectorStore::Open(written.memory, "");
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return std::move(store).value();
}

Geometry ReadBack(const VectorStore& store, ReadQuery query = {}) {
  Result<LevelGeometry> read = ReadGeometry(store, query);
  EXPECT_TRUE(read.ok()) << read.status().ToString();
  return read.ok() ? read->geometry : Geometry{};
}

// Checks `read` holds exactly `original`'s vertices (with ids and attributes) and links.
void ExpectSameGeometry(const Geometry& original, const Geometry& read) {
  ASSERT_EQ(read.positions.size(), original.positions.size());
  const std::vector<std::int64_t> match = MatchVertices(original, read);
  for (std::size_t v = 0; v < match.size(); ++v) {
    ASSERT_GE(match[v], 0) << "vertex " << v << " was not written";
    if (!original.object_ids.empty()) {
      EXPECT_EQ(read.object_ids[v], original.object_ids[match[v]]);
    }
    for (std::size_t a = 0; a < original.vertex_attributes.size(); ++a) {
      EXPECT_EQ(read.vertex_attributes[a].values[v],
                original.vertex_attributes[a].values[match[v]]);
    }
  }
  EXPECT_EQ(LinkKeys(read, match), LinkKeys(original));
}

Geometry RandomGraph(std::size_t vertices, std::size_t edges) {
  Geometry graph = RandomPoints(vertices, GeometryType::kGraph);
  graph.link_attributes = {{"weight", 1, {}}, {"rgb", 3, {}}};
  std::uint64_t state = 99;
  for (std::size_t e = 0; e < edges; ++e) {
    const auto a = static_cast<std::int64_t>(test::Uniform(state, 0, static_cast<float>(vertices)));
    const auto b =
        (a + 1 +
         static_cast<std::int64_t>(test::Uniform(state, 0, static_cast<float>(vertices - 1)))) %
        static_cast<std::int64_t>(vertices);
    graph.links.insert(graph.links.end(), {a, b});
    graph.link_attributes[0].values.push_back(static_cast<float>(e));
    for (int c = 0; c < 3; ++c)
      graph.link_attributes[1].values.push_back(static_cast<float>(e * 3 + c));
  }
  return graph;
}

TEST(VectorsRoundTrip, PointsKeepPositionsObjectIdsAndAttributes) {
  const Geometry points = RandomPoints(500);
  const Written written = WriteToMemory(points);
  EXPECT_EQ(written.summary.vertices, 500u);
  EXPECT_GT(written.summary.chunks, 8u);
  ExpectSameGeometry(points, ReadBack(OpenMemory(written)));
}

TEST(VectorsRoundTrip, GraphKeepsEdgesAndLinkAttributesInAndAcrossChunks) {
  const Geometry graph = RandomGraph(300, 900);
  const Written written = WriteToMemory(graph);
  EXPECT_GT(written.summary.links.chunk_links, 0u);
  EXPECT_GT(written.summary.links.cross_chunk_links, 0u);
  EXPECT_EQ(written.summary.links.chunk_links + written.summary.links.cross_chunk_links, 900u);
  ExpectSameGeometry(graph, ReadBack(OpenMemory(written)));
}

TEST(VectorsRoundTrip, PolylineKeepsStepDirection) {
  Geometry line;
  line.type = GeometryType::kPolyline;
  for (int i = 0; i < 40; ++i)
    line.positions.push_back({static_cast<float>(39 - i) * 1.5f, 3.0f, 0.5f * i});
  for (int i = 0; i + 1 < 40; ++i) line.links.insert(line.links.end(), {i, i + 1});
  const Written written = WriteToMemory(line);
  EXPECT_GT(written.summary.links.cross_chunk_links, 0u);
  ExpectSameGeometry(line, ReadBack(OpenMemory(written)));
}

TEST(VectorsRoundTrip, SkeletonEdgesStayChildToParentWhenTheSortSwapsThem) {
  Geometry skeleton;
  skeleton.type = GeometryType::kSkeleton;
  // Child in chunk (1,0,0), parent in chunk (0,0,0): canonical order puts the parent first.
  skeleton.positions = {{15, 1, 1}, {5, 1, 1}, {4, 2, 2}};
  skeleton.links = {0, 1, 2, 1};
  const Written written = WriteToMemory(skeleton);
  const VectorStore store = OpenMemory(written);
  Result<std::vector<Endpoint>> cross = ReadCrossChunkLinks(store, 0, 0);
  ASSERT_TRUE(cross.ok()) << cross.status().ToString();
  ASSERT_EQ(cross->size(), 2u);
  EXPECT_EQ((*cross)[0].chunk, (ChunkCoord{1, 0, 0}));  // Input order restored: child first.
  EXPECT_EQ((*cross)[1].chunk, (ChunkCoord{0, 0, 0}));
  Result<std::optional<Bytes>> cell =
      store.ReadBlob(layout::CrossChunkCellPath(0, 0, "0.0.0.1.0.0"));
  ASSERT_TRUE(cell.ok() && cell->has_value());
  Result<std::vector<CellRecord>> records = DecodeCellBlob(**cell, 2, "cell");
  ASSERT_TRUE(records.ok());
  EXPECT_EQ((*records)[0].perm_idx, 1);  // Swapped.
  ExpectSameGeometry(skeleton, ReadBack(store));
}

TEST(VectorsRoundTrip, TriangleSpanningThreeChunksKeepsWinding) {
  Geometry mesh;
  mesh.type = GeometryType::kMesh;
  mesh.positions = {{25, 1, 1}, {5, 1, 1}, {15, 1, 1}, {6, 2, 2}, {7, 3, 1}};
  mesh.links = {0, 1, 2,   // Chunks (2,0,0), (0,0,0), (1,0,0): stored sorted, perm_idx restores.
                2, 0, 1,   // Same chunks, another rotation.
                1, 3, 4};  // All in chunk (0,0,0).
  mesh.link_attributes = {{"area", 1, {1.5f, 2.5f, 3.5f}}};
  const Written written = WriteToMemory(mesh);
  EXPECT_EQ(written.summary.links.cross_chunk_links, 2u);
  const VectorStore store = OpenMemory(written);
  Result<std::optional<CrossChunkFamily>> family = ReadCrossChunkFamily(store, 0, 0);
  ASSERT_TRUE(family.ok() && family->has_value());
  EXPECT_EQ((*family)->cell_keys, std::vector<std::string>{"0.0.0.1.0.0.2.0.0"});
  EXPECT_EQ((*family)->link_width, 3);
  const Geometry read = ReadBack(store);
  ExpectSameGeometry(mesh, read);
}

TEST(VectorsRoundTrip, NegativeCoordinatesUseFloorChunks) {
  Geometry points;
  points.type = GeometryType::kPoints;
  points.positions = {{-0.5f, 0, 0}, {-10, -10, -10}, {0, 0, 0}};
  const Written written = WriteToMemory(points);
  const VectorStore store = OpenMemory(written);
  Result<std::vector<ChunkCoord>> chunks = ListChunks(store, 0, layout::kVerticesDir);
  ASSERT_TRUE(chunks.ok());
  EXPECT_EQ(*chunks, (std::vector<ChunkCoord>{{-1, -1, -1}, {-1, 0, 0}, {0, 0, 0}}));
  ExpectSameGeometry(points, ReadBack(store));
}

// Reads `box` from a store of `graph` and checks it against a selection made here.
void ExpectBoxRead(const Geometry& graph, const BoundingBox& box, bool all_inside) {
  const Written written = WriteToMemory(graph);
  const Geometry read = ReadBack(OpenMemory(written), ReadQuery{0, box, {}});
  Geometry expected = graph;
  std::vector<bool> inside(graph.positions.size());
  std::size_t inside_count = 0;
  for (std::size_t v = 0; v < inside.size(); ++v) {
    inside_count += (inside[v] = box.Contains(graph.positions[v]));
  }
  expected.links.clear();
  for (LinkAttribute& attribute : expected.link_attributes) attribute.values.clear();
  for (std::size_t r = 0; r < graph.num_links(); ++r) {
    if (!inside[graph.links[2 * r]] || !inside[graph.links[2 * r + 1]]) continue;
    expected.links.insert(expected.links.end(), {graph.links[2 * r], graph.links[2 * r + 1]});
    for (std::size_t a = 0; a < graph.link_attributes.size(); ++a) {
      const int c = graph.link_attributes[a].channels;
      for (int i = 0; i < c; ++i) {
        expected.link_attributes[a].values.push_back(graph.link_attributes[a].values[r * c + i]);
      }
    }
  }
  ASSERT_EQ(read.positions.size(), inside_count);
  ASSERT_GT(inside_count, 0u);
  EXPECT_EQ(inside_count == graph.positions.size(), all_inside);
  EXPECT_GT(expected.num_links(), 0u);
  EXPECT_EQ(LinkKeys(read, MatchVertices(graph, read)), LinkKeys(expected));
}

TEST(VectorsRead, BoundingBoxKeepsInsideVerticesAndTheirLinks) {
  // A small box: its chunk keys and cells are probed, not listed.
  ExpectBoxRead(RandomGraph(400, 1200), BoundingBox{{5, 5, -10}, {27, 31, 12}}, false);
}

TEST(VectorsRead, BoundingBoxWithoutLinkAttributesProbesOnlyItsCells) {
  Geometry graph = RandomGraph(400, 1200);
  graph.link_attributes.clear();
  ExpectBoxRead(graph, BoundingBox{{5, 5, -10}, {27, 31, 12}}, false);
}

TEST(VectorsRead, HugeBoundingBoxListsTheLevel) {
  Geometry graph = RandomGraph(300, 600);
  graph.link_attributes.clear();
  ExpectBoxRead(graph, BoundingBox{{-1e9, -1e9, -1e9}, {1e9, 1e9, 1e9}}, true);
}

TEST(VectorsRead, ObjectKeepsOnlyThatObject) {
  const Geometry graph = RandomGraph(200, 400);
  const Written written = WriteToMemory(graph);
  const Geometry read = ReadBack(OpenMemory(written), ReadQuery{0, {}, 2});
  EXPECT_EQ(read.positions.size(), 50u);
  for (const std::int64_t id : read.object_ids) EXPECT_EQ(id, 2);
  const std::vector<std::int64_t> match = MatchVertices(graph, read);
  for (const std::int64_t vertex : read.links) EXPECT_EQ(graph.object_ids[match[vertex]], 2);
}

// Zarr v3 has no implicit groups: every folder above a node is a group node, so
// zarr-python 3 walks from the root to every blob (links/, cross_chunk_links/, ...).
TEST(VectorsWrite, EveryNodeHasGroupNodesAboveIt) {
  const Written written = WriteToMemory(RandomGraph(300, 900));
  Result<std::vector<std::string>> keys = written.memory->List("");
  ASSERT_TRUE(keys.ok());
  std::set<std::string> nodes;
  const std::string metadata = "zarr.json";
  for (const std::string& key : *keys) {
    if (key.ends_with(metadata)) nodes.insert(key.substr(0, key.size() - metadata.size()));
  }
  ASSERT_TRUE(nodes.contains("0/links/0/") && nodes.contains("0/cross_chunk_links/0/"));
  for (const std::string& node : nodes) {
    for (std::size_t slash = node.find('/'); slash != std::string::npos;
         slash = node.find('/', slash + 1)) {
      EXPECT_TRUE(nodes.contains(node.substr(0, slash + 1))) << node;
    }
    EXPECT_TRUE(nodes.contains("")) << "the root";
  }
}

TEST(VectorsWrite, LinkAttributeOfWrongLengthIsRefused) {
  Geometry graph = RandomGraph(20, 10);
  graph.link_attributes[0].values.pop_back();
  const auto memory = store::MemoryStore::Create();
  Result<WriteSummary> summary = WriteGeometry(memory, "", graph, Options());
  ASSERT_FALSE(summary.ok());
  EXPECT_EQ(summary.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(summary.status().message().find("weight"), std::string::npos);
}

TEST(VectorsWrite, FileStoreRoundTripAndExistingStoreRefused) {
  const std::filesystem::path root = chunkwise::test::FreshScratchDirectory("vectors");
  Result<std::shared_ptr<store::FileStore>> files = store::FileStore::Open(root, {});
  ASSERT_TRUE(files.ok());
  const Geometry graph = RandomGraph(100, 200);
  ASSERT_TRUE(WriteGeometry(*files, "", graph, Options()).ok());
  EXPECT_TRUE(std::filesystem::exists(root / "0" / "links" / "0"));
  EXPECT_FALSE(WriteGeometry(*files, "", graph, Options()).ok());
  WriteOptions overwrite = Options();
  overwrite.overwrite = true;
  ASSERT_TRUE(WriteGeometry(*files, "", graph, overwrite).ok());
  Result<VectorStore> store = VectorStore::Open(*files, "");
  ASSERT_TRUE(store.ok());
  ExpectSameGeometry(graph, ReadBack(*store));
}

// A store whose link arrays cannot be written: the write fails after the
// vertices are stored.
class LinkFailingStore final : public chunkwise::test::ForwardingStore {
 public:
  Status Set(std::string_view key, ByteView value) override {
    if (key.find("links/") != std::string_view::npos && !key.ends_with("zarr.json")) {
      return Status::IOError("memory:" + std::string(key) + ": disk full");
    }
    return ForwardingStore::Set(key, value);
  }
};

// The root zarr.json is written last, so a write that fails half-way (here
// at its links, after every vertex chunk) leaves no store a reader opens;
// on the main before, the root and level 0 stood beside missing links.
TEST(VectorsWrite, AWriteFailingHalfWayPublishesNoStore) {
  const Geometry graph = RandomGraph(100, 200);
  auto failing = std::make_shared<LinkFailingStore>();
  const Status failed = WriteGeometry(failing, "", graph, Options()).status();
  EXPECT_EQ(failed.code(), StatusCode::kIOError);
  EXPECT_NE(failed.message().find("disk full"), std::string::npos) << failed.ToString();
  EXPECT_FALSE(failing->inner().List("0/vertices/")->empty());  // Written, unpublished.
  EXPECT_FALSE(*failing->inner().Exists("zarr.json"));
  EXPECT_TRUE(*failing->inner().Exists(".chunkwise-incomplete"));
  const Status opened = VectorStore::Open(failing, "").status();
  EXPECT_EQ(opened.code(), StatusCode::kNotFound);
  EXPECT_NE(opened.message().find("zarr.json"), std::string::npos) << opened.ToString();
}

TEST(VectorsWrite, ACancelledWriteLeavesNoStoreAndOverwriteReplacesIt) {
  const std::filesystem::path root = chunkwise::test::FreshScratchDirectory("vectors-cancel");
  Result<std::shared_ptr<store::FileStore>> files = store::FileStore::Open(root, {});
  ASSERT_TRUE(files.ok());
  const Geometry graph = RandomGraph(100, 200);
  core::Cancellation cancellation;
  cancellation.Cancel();
  WriteOptions cancelled = Options();
  cancelled.cancellation = &cancellation;
  EXPECT_EQ(WriteGeometry(*files, "", graph, cancelled).status().code(), StatusCode::kCancelled);
  EXPECT_FALSE(std::filesystem::exists(root / "zarr.json"));
  EXPECT_EQ(VectorStore::Open(*files, "").status().code(), StatusCode::kNotFound);
  WriteOptions overwrite = Options();
  overwrite.overwrite = true;
  ASSERT_TRUE(WriteGeometry(*files, "", graph, overwrite).ok());
  EXPECT_FALSE(std::filesystem::exists(root / ".chunkwise-incomplete"));
  Result<VectorStore> store = VectorStore::Open(*files, "");
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  ExpectSameGeometry(graph, ReadBack(*store));
}

// --overwrite replaces only what is recognisably ours: a folder of a user's
// files is refused naming it, and keeps its files.
TEST(VectorsWrite, OverwriteRefusesWhatIsNotOurs) {
  const std::filesystem::path root = chunkwise::test::FreshScratchDirectory("vectors-theirs");
  Result<std::shared_ptr<store::FileStore>> files = store::FileStore::Open(root, {});
  ASSERT_TRUE(files.ok());
  ASSERT_TRUE((*files)->Set("thesis/chapter1.tex", AsBytes(std::string_view("keep me"))).ok());
  WriteOptions overwrite = Options();
  overwrite.overwrite = true;
  const Status refused = WriteGeometry(*files, "thesis", RandomGraph(20, 10), overwrite).status();
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.message().find((root / "thesis").string()), std::string::npos)
      << refused.ToString();
  EXPECT_TRUE(std::filesystem::exists(root / "thesis" / "chapter1.tex"));
}

TEST(VectorsPyramid, CoarsenMergesPerBinAndObjectAtTheCentroid) {
  Geometry fine;
  fine.type = GeometryType::kGraph;
  fine.positions = {{1, 1, 1}, {3, 3, 3}, {2, 2, 2}, {9, 9, 9}};
  fine.object_ids = {7, 7, 8, 7};
  fine.links = {0, 1, 1, 3, 3, 1, 2, 0};
  const Coarsening coarsening = Coarsen(fine, {5, 5, 5});
  ASSERT_EQ(coarsening.coarse.positions.size(), 3u);
  EXPECT_EQ(coarsening.coarse.positions[0], (Vec3f{2, 2, 2}));  // Centroid of vertices 0 and 1.
  EXPECT_EQ(coarsening.parent, (std::vector<std::int64_t>{0, 0, 1, 2}));
  EXPECT_EQ(coarsening.coarse.object_ids, (std::vector<std::int64_t>{7, 8, 7}));
  // 0-1 collapses; 1-3 and 3-1 are one undirected edge; 2-0 joins objects 8 and 7.
  EXPECT_EQ(coarsening.coarse.links, (std::vector<std::int64_t>{0, 2, 1, 0}));
}

class VectorsPyramidStorage : public ::testing::TestWithParam<CrossLevelStorage> {};

TEST_P(VectorsPyramidStorage, LevelsParentsAndChildren) {
  const Geometry graph = RandomGraph(600, 1500);
  const Written written = WriteToMemory(graph);
  VectorStore store = OpenMemory(written);
  Result<std::vector<PyramidLevelSummary>> levels = BuildPyramid(store, {4, GetParam(), nullptr});
  ASSERT_TRUE(levels.ok()) << levels.status().ToString();
  ASSERT_EQ(levels->size(), 3u);
  std::uint64_t across = 0;
  std::uint64_t previous = graph.positions.size();
  for (const PyramidLevelSummary& level : *levels) {
    EXPECT_LT(level.vertices, previous);
    EXPECT_EQ(level.parent_links_in_chunk + level.parent_links_across, previous);
    previous = level.vertices;
    across += level.parent_links_across;
  }
  EXPECT_GT(across, 0u);  // Level 3's bins are larger than a chunk.
  Result<VectorStore> reopened = VectorStore::Open(written.memory, "");
  ASSERT_TRUE(reopened.ok());
  EXPECT_EQ(reopened->metadata().num_levels, 4);
  EXPECT_TRUE(reopened->metadata().HasCapability("multiscale_links"));
  for (int level = 0; level < 3; ++level) {
    const Result<LevelGeometry> fine = ReadGeometry(*reopened, ReadQuery{level, {}, {}});
    const Result<LevelGeometry> coarse = ReadGeometry(*reopened, ReadQuery{level + 1, {}, {}});
    ASSERT_TRUE(fine.ok() && coarse.ok());
    Result<std::vector<CrossLevelLink>> parents = ReadParents(*reopened, level);
    ASSERT_TRUE(parents.ok()) << parents.status().ToString();
    std::set<Endpoint> owners, coarse_vertices(coarse->identity.begin(), coarse->identity.end());
    for (const CrossLevelLink& link : *parents) {
      owners.insert(link.owner);
      EXPECT_TRUE(coarse_vertices.contains(link.target));
    }
    EXPECT_EQ(owners, std::set<Endpoint>(fine->identity.begin(), fine->identity.end()));
    Result<std::vector<CrossLevelLink>> children = ReadChildren(*reopened, level + 1);
    ASSERT_TRUE(children.ok()) << children.status().ToString();
    std::set<std::pair<Endpoint, Endpoint>> up, down;
    for (const CrossLevelLink& link : *parents) up.insert({link.owner, link.target});
    for (const CrossLevelLink& link : *children) down.insert({link.target, link.owner});
    EXPECT_EQ(up, down);
  }
  Result<std::vector<int>> deltas = ListLinkDeltas(*reopened, 1);
  ASSERT_TRUE(deltas.ok());
  if (GetParam() == CrossLevelStorage::kExplicit) {
    EXPECT_EQ(*deltas, (std::vector<int>{-1, 0, 1}));
  } else {
    EXPECT_EQ(*deltas, (std::vector<int>{0, 1}));
  }
  // The finest level reads back unchanged after the build.
  ExpectSameGeometry(graph, ReadBack(*reopened));
}

INSTANTIATE_TEST_SUITE_P(Storage, VectorsPyramidStorage,
                         ::testing::Values(CrossLevelStorage::kExplicit,
                                           CrossLevelStorage::kImplicit));

// A store that refuses every write under one folder once `failing_prefix` is set.
class FolderFailingStore final : public chunkwise::test::ForwardingStore {
 public:
  std::string failing_prefix;
  Status Set(std::string_view key, ByteView value) override {
    if (!failing_prefix.empty() && key.starts_with(failing_prefix)) {
      return Status::IOError("memory:" + std::string(key) + ": disk full");
    }
    return ForwardingStore::Set(key, value);
  }
};

// A rebuild that fails at level 2 leaves a root listing only whole levels
// (0 and the new 1), each readable and valid; on the main before, the root
// listed all four while levels 2 and 3 were missing.
TEST(VectorsPyramid, ARebuildFailingPartWayListsOnlyWholeLevels) {
  auto store = std::make_shared<FolderFailingStore>();
  ASSERT_TRUE(WriteGeometry(store, "", RandomGraph(600, 1500), Options()).ok());
  Result<VectorStore> first = VectorStore::Open(store, "");
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE(BuildPyramid(*first, {4, CrossLevelStorage::kExplicit, nullptr}).ok());
  store->failing_prefix = layout::LevelPath(2);
  Result<VectorStore> again = VectorStore::Open(store, "");
  ASSERT_TRUE(again.ok());
  const Status failed = BuildPyramid(*again, {4, CrossLevelStorage::kExplicit, nullptr}).status();
  EXPECT_EQ(failed.code(), StatusCode::kIOError);
  EXPECT_NE(failed.message().find("disk full"), std::string::npos) << failed.ToString();
  Result<VectorStore> reopened = VectorStore::Open(store, "");
  ASSERT_TRUE(reopened.ok());
  EXPECT_EQ(reopened->metadata().num_levels, 2);
  for (int level = 0; level < 2; ++level) {
    EXPECT_TRUE(ReadGeometry(*reopened, ReadQuery{level, {}, {}}).ok()) << level;
  }
  Result<std::vector<Violation>> violations = ValidateStore(store, "", 4);
  ASSERT_TRUE(violations.ok()) << violations.status().ToString();
  for (const Violation& violation : *violations)
    ADD_FAILURE() << violation.path << ": " << violation.message;
}

TEST(VectorsRead, AbsentCrossChunkFamilyIsEmpty) {
  Geometry points = RandomPoints(10);
  const Written written = WriteToMemory(points);
  const VectorStore store = OpenMemory(written);
  Result<std::vector<Endpoint>> cross = ReadCrossChunkLinks(store, 0, 0);
  ASSERT_TRUE(cross.ok());
  EXPECT_TRUE(cross->empty());
  Result<std::vector<Endpoint>> up = ReadCrossChunkLinks(store, 0, +1);
  ASSERT_TRUE(up.ok());
  EXPECT_TRUE(up->empty());
}

}  // namespace
}  // namespace chunkwise::formats::vectors
