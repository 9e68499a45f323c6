// The validator on a corpus of deliberately broken stores: one test per kind
// of violation, each asserting the kind and the offending path.
#include <gtest/gtest.h>

#include "formats/vectors/cross_chunk_record.h"
#include "formats/vectors/layout.h"
#include "formats/vectors/level_reader.h"
#include "formats/vectors/pyramid.h"
#include "formats/vectors/ragged_blob.h"
#include "formats/vectors/validator.h"
#include "unit/formats/vectors_test_data.h"

namespace chunkwise::formats::vectors {
namespace {

// A graph store with chunk-local and cross-chunk links and a link attribute,
// optionally with a two-level explicit pyramid.
struct Fixture {
  std::shared_ptr<store::MemoryStore> memory = store::MemoryStore::Create();
  std::optional<VectorStore> store;

  explicit Fixture(bool pyramid = false) {
    Geometry graph = test::RandomPoints(200, GeometryType::kGraph);
    graph.link_attributes = {{"weight", 1, {}}};
    for (std::int64_t v = 0; v + 7 < 200; ++v) {
      graph.links.insert(graph.links.end(), {v, v + 7});
      graph.link_attributes[0].values.push_back(static_cast<float>(v));
    }
    EXPECT_TRUE(WriteGeometry(memory, "", graph, test::Options(20.0)).ok());
    Result<VectorStore> opened = VectorStore::Open(memory, "");
    EXPECT_TRUE(opened.ok());
    store.emplace(std::move(opened).value());
    if (pyramid) {
      EXPECT_TRUE(BuildPyramid(*store, {2, CrossLevelStorage::kExplicit, nullptr}).ok());
    }
  }

  std::vector<Violation> Validate(int level = 3) const {
    Result<std::vector<Violation>> violations = ValidateStore(memory, "", level);
    EXPECT_TRUE(violations.ok()) << violations.status().ToString();
    return violations.ok() ? *violations : std::vector<Violation>{};
  }

  ChunkCoord FirstLinkChunk(int delta = 0) const {
    Result<std::vector<ChunkCoord>> chunks = ListChunksAt(*store, layout::LinksPath(0, delta));
    EXPECT_TRUE(chunks.ok() && !chunks->empty());
    return chunks->front();
  }

  std::string FirstCell() const {
    Result<std::optional<CrossChunkFamily>> family = ReadCrossChunkFamily(*store, 0, 0);
    EXPECT_TRUE(family.ok() && family->has_value() && !(*family)->cell_keys.empty());
    return (*family)->cell_keys.front();
  }
};

std::string Node(const std::string& path) { return path.substr(0, path.size() - 1); }

// Asserts exactly one violation of `kind` and that it names `path`.
void ExpectOnly(const std::vector<Violation>& violations, ViolationKind kind,
                const std::string& path) {
  ASSERT_EQ(violations.size(), 1u)
      << (violations.empty() ? "none" : violations[0].message + " at " + violations[0].path);
  EXPECT_EQ(violations[0].kind, kind)
      << ViolationKindName(violations[0].kind) << ": " << violations[0].message;
  EXPECT_EQ(violations[0].path, path);
}

TEST(VectorsValidate, WrittenStoresAreValidAtEveryLevel) {
  const Fixture plain;
  EXPECT_TRUE(plain.Validate(4).empty());
  const Fixture pyramid(true);
  EXPECT_TRUE(pyramid.Validate(4).empty());
}

TEST(VectorsValidate, BadLevelMetadata) {
  Fixture fixture;
  ASSERT_TRUE(fixture.memory->Set("0/zarr.json", AsBytes("{not json")).ok());
  ExpectOnly(fixture.Validate(1), ViolationKind::kBadMetadata, "0/zarr.json");
}

TEST(VectorsValidate, BadRootMetadataIsOneViolationNotAnError) {
  Fixture fixture;
  ASSERT_TRUE(fixture.memory
                  ->Set("zarr.json",
                        AsBytes(R"({"zarr_format": 3, "node_type": "group", "attributes": {}})"))
                  .ok());
  ExpectOnly(fixture.Validate(1), ViolationKind::kBadMetadata, "zarr.json");
}

TEST(VectorsValidate, MissingLinksFamily) {
  Fixture fixture;
  ASSERT_TRUE(fixture.store->EraseAll(layout::LinksPath(0, 0)).ok());
  ASSERT_TRUE(fixture.store->EraseAll(layout::FamilyPath(0, layout::kLinkAttributesDir)).ok());
  ExpectOnly(fixture.Validate(1), ViolationKind::kMissingLinks, "0/links/0");
}

TEST(VectorsValidate, CrossLevelLinksWithoutCapability) {
  Fixture fixture(true);
  RootMetadata metadata = fixture.store->metadata();
  metadata.capabilities = {"fragment_index"};
  ASSERT_TRUE(fixture.store->SetMetadata(metadata).ok());
  const std::vector<Violation> violations = fixture.Validate(1);
  ASSERT_FALSE(violations.empty());
  for (const Violation& violation : violations) {
    EXPECT_EQ(violation.kind, ViolationKind::kMissingCapability);
    EXPECT_TRUE(violation.path == "0/links/+1" || violation.path == "1/links/-1" ||
                violation.path == "0/cross_chunk_links/+1" ||
                violation.path == "1/cross_chunk_links/-1")
        << violation.path;
  }
}

TEST(VectorsValidate, MalformedLinkBlob) {
  Fixture fixture;
  const std::string path = layout::LinksBlobPath(0, 0, fixture.FirstLinkChunk());
  Bytes blob;
  AppendLittleEndian<std::uint64_t>(1000, blob);  // K far beyond the blob.
  ASSERT_TRUE(fixture.store->WriteBlob(path, blob).ok());
  ExpectOnly(fixture.Validate(1), ViolationKind::kMalformedBlob, Node(path));
}

TEST(VectorsValidate, CellKeyNotInCanonicalOrder) {
  Fixture fixture;
  const std::string cell = fixture.FirstCell();
  Result<std::vector<ChunkCoord>> chunks = ParseCellKey(cell, 2);
  ASSERT_TRUE(chunks.ok());
  const std::vector<ChunkCoord> reversed{(*chunks)[1], (*chunks)[0]};
  const std::string bad = FormatCellKey(reversed);
  Result<std::optional<Bytes>> blob =
      fixture.store->ReadBlob(layout::CrossChunkCellPath(0, 0, cell));
  ASSERT_TRUE(blob.ok() && blob->has_value());
  ASSERT_TRUE(fixture.store->EraseAll(layout::CrossChunkCellPath(0, 0, cell)).ok());
  ASSERT_TRUE(fixture.store->WriteBlob(layout::CrossChunkCellPath(0, 0, bad), **blob).ok());
  const std::vector<Violation> violations = fixture.Validate(3);
  // The moved cell is reported; its records no longer count toward num_links.
  ASSERT_EQ(violations.size(), 2u);
  EXPECT_EQ(violations[0].kind, ViolationKind::kBadCellKey);
  EXPECT_EQ(violations[0].path, "0/cross_chunk_links/0/" + bad);
  EXPECT_EQ(violations[1].kind, ViolationKind::kNumLinksMismatch);
}

TEST(VectorsValidate, EndpointChunkMissingFromVertexFragments) {
  Fixture fixture;
  const ChunkCoord chunk = fixture.FirstLinkChunk();
  ASSERT_TRUE(fixture.store->EraseAll(layout::ChunkBlobPath(0, layout::kFragmentsDir, chunk)).ok());
  const std::vector<Violation> violations = fixture.Validate(3);
  ASSERT_FALSE(violations.empty());
  bool found_chunk_rows = false;
  for (const Violation& violation : violations) {
    EXPECT_EQ(violation.kind, ViolationKind::kMissingChunk);
    found_chunk_rows |= violation.path == Node(layout::LinksBlobPath(0, 0, chunk));
  }
  EXPECT_TRUE(found_chunk_rows);
}

TEST(VectorsValidate, VertexIndexBeyondTheChunk) {
  Fixture fixture;
  const ChunkCoord chunk = fixture.FirstLinkChunk();
  const std::string path = layout::LinksBlobPath(0, 0, chunk);
  Result<std::vector<std::int64_t>> rows = ReadChunkLinks(*fixture.store, 0, chunk, 2, 0);
  ASSERT_TRUE(rows.ok() && !rows->empty());
  (*rows)[1] = 1'000'000;
  ASSERT_TRUE(fixture.store->WriteBlob(path, EncodeLinkBlob(*rows)).ok());
  ExpectOnly(fixture.Validate(3), ViolationKind::kVertexIndexOutOfRange, Node(path));
}

TEST(VectorsValidate, PermIdxBeyondLFactorial) {
  Fixture fixture;
  const std::string cell = fixture.FirstCell();
  const std::string path = layout::CrossChunkCellPath(0, 0, cell);
  Result<std::optional<Bytes>> blob = fixture.store->ReadBlob(path);
  ASSERT_TRUE(blob.ok() && blob->has_value());
  Result<std::vector<CellRecord>> records = DecodeCellBlob(**blob, 2, path);
  ASSERT_TRUE(records.ok());
  (*records)[0].perm_idx = 2;  // 2! = 2 orders only.
  ASSERT_TRUE(fixture.store->WriteBlob(path, EncodeCellBlob(*records)).ok());
  ExpectOnly(fixture.Validate(3), ViolationKind::kBadPermIdx, Node(path));
}

TEST(VectorsValidate, NumLinksDiffersFromTheCells) {
  Fixture fixture;
  const std::string path = layout::CrossChunkLinksPath(0, 0);
  Result<std::optional<nlohmann::json>> attributes = fixture.store->ReadGroupAttributes(path);
  ASSERT_TRUE(attributes.ok() && attributes->has_value());
  nlohmann::json changed = **attributes;
  changed["num_links"] = changed["num_links"].get<std::int64_t>() + 1;
  ASSERT_TRUE(fixture.store->WriteGroup(path, changed).ok());
  const std::vector<Violation> violations = fixture.Validate(3);
  // The family and its attribute array both disagree with the records now.
  ASSERT_EQ(violations.size(), 2u);
  EXPECT_EQ(violations[0].kind, ViolationKind::kNumLinksMismatch);
  EXPECT_EQ(violations[0].path, "0/cross_chunk_links/0");
  EXPECT_EQ(violations[1].kind, ViolationKind::kNumLinksMismatch);
  EXPECT_EQ(violations[1].path, "0/cross_chunk_link_attributes/weight/0");
}

TEST(VectorsValidate, LinkAttributeRowsDifferFromLinkRows) {
  Fixture fixture;
  const ChunkCoord chunk = fixture.FirstLinkChunk();
  const std::string path = layout::LinkAttributeBlobPath(0, "weight", 0, chunk);
  ASSERT_TRUE(fixture.store->WriteBlob(path, Bytes(3, 0)).ok());  // Never whole float32 rows.
  ExpectOnly(fixture.Validate(3), ViolationKind::kAttributeLengthMismatch, Node(path));
}

TEST(VectorsValidate, OrphanVertexOnlyAtLevelFour) {
  Fixture fixture(true);
  const ChunkCoord chunk = fixture.FirstLinkChunk(+1);
  ASSERT_TRUE(fixture.store->EraseAll(layout::LinksBlobPath(0, +1, chunk)).ok());
  // Level 1's −1 mirror still names them; L3 finds nothing wrong.
  EXPECT_TRUE(fixture.Validate(3).empty());
  ExpectOnly(fixture.Validate(4), ViolationKind::kOrphanVertex,
             Node(layout::ChunkBlobPath(0, layout::kVerticesDir, chunk)));
}

}  // namespace
}  // namespace chunkwise::formats::vectors
