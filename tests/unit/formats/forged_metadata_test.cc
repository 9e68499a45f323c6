// Forged metadata, one format after another (#44): each case damages one value
// a reader would otherwise believe (an index row, a chunk shape, bounds, a
// count) and asserts the code and that the message names the key and the
// value at fault. Write-time checks of the same values come last. (Precomputed
// shard indexes: precomputed_volume_test and precomputed_sharding_test; export
// shard indexes: export_shards_test.)
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "formats/vectors/geometry_reader.h"
#include "formats/vectors/store_metadata.h"
#include "formats/vectors/validator.h"
#include "formats/vectors/vector_store.h"
#include "store/memory_store.h"
#include "unit/formats/vectors_test_data.h"

namespace chunkwise::formats {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// `status` carries `code` and names every one of `parts`.
void ExpectNames(const Status& status, StatusCode code, std::initializer_list<std::string> parts) {
  EXPECT_EQ(status.code(), code) << status.ToString();
  for (const std::string& part : parts) {
    EXPECT_NE(status.message().find(part), std::string::npos)
        << "\"" << part << "\" not in: " << status.ToString();
  }
}

// --- zarr-vectors root metadata -----------------------------------------------

namespace vec = vectors;

nlohmann::json GoodRoot() {
  vec::RootMetadata metadata;
  metadata.version = "0.8.0";
  metadata.chunk_shape = {10, 10, 10};
  metadata.bounds_min = {0, 0, -20};
  metadata.bounds_max = {40, 40, 20};
  metadata.base_bin_shape = {2.5, 2.5, 2.5};
  return vec::FormatRootAttributes(metadata);
}

Status ParseForged(const char* field, const nlohmann::json& value) {
  nlohmann::json root = GoodRoot();
  nlohmann::json* target = &root["zarr_vectors"];
  if (std::string(field) == "bounds[0]") {
    (*target)["bounds"][0] = value;
  } else if (std::string(field) == "bounds[1]") {
    (*target)["bounds"][1] = value;
  } else {
    (*target)[field] = value;
  }
  return vec::ParseRootAttributes(root, "cells/zarr.json").status();
}

TEST(ForgedVectorsRoot, ChunkShapeThatIsNotFinitePositiveIsCorruption) {
  ASSERT_TRUE(vec::ParseRootAttributes(GoodRoot(), "cells/zarr.json").ok());
  const std::pair<double, const char*> values[] = {
      {kInf, "inf"}, {-kInf, "-inf"}, {kNaN, "NaN"}, {0.0, "0.0"}, {-5.0, "-5.0"}};
  for (const auto& [value, text] : values) {
    SCOPED_TRACE(text);
    ExpectNames(ParseForged("chunk_shape", {10, value, 10}), StatusCode::kCorruption,
                {"cells/zarr.json", std::string("chunk_shape[1] is ") + text});
    ExpectNames(ParseForged("base_bin_shape", {value, 2, 2}), StatusCode::kCorruption,
                {"cells/zarr.json", std::string("base_bin_shape[0] is ") + text});
  }
}

TEST(ForgedVectorsRoot, BoundsThatAreNotFiniteOrInvertedAreCorruption) {
  ExpectNames(ParseForged("bounds[0]", {0, kNaN, 0}), StatusCode::kCorruption,
              {"cells/zarr.json", "bounds on axis 1", "NaN", "not finite"});
  ExpectNames(ParseForged("bounds[1]", {kInf, 40, 20}), StatusCode::kCorruption,
              {"cells/zarr.json", "bounds on axis 0", "inf", "not finite"});
  ExpectNames(ParseForged("bounds[1]", {40, 40, -30}), StatusCode::kCorruption,
              {"cells/zarr.json", "bounds on axis 2", "min -20.0 is above max -30.0"});
}

// A point store of 200 vertices in [0, 40)^2 x [-20, 20), chunks of 10, whose
// root's zarr_vectors block then gets `field` = the JSON text `value` (as
// text: a JSON library writes infinity as null, a file can hold 1e999).
struct ForgedStore {
  std::shared_ptr<store::MemoryStore> memory = store::MemoryStore::Create("forged");

  ForgedStore(const char* field, const std::string& value) {
    const vec::Geometry points = vec::test::RandomPoints(200);
    EXPECT_TRUE(vec::WriteGeometry(memory, "", points, vec::test::Options(10.0)).ok());
    nlohmann::json root = nlohmann::json::parse(AsChars(**memory->Get("zarr.json")));
    root["attributes"]["zarr_vectors"][field] = "@FORGED@";
    std::string text = root.dump();
    text.replace(text.find("\"@FORGED@\""), 10, value);
    EXPECT_TRUE(memory->Set("zarr.json", AsBytes(text)).ok());
  }

  Status Read(std::optional<vec::BoundingBox> box = std::nullopt) const {
    Result<vec::VectorStore> store = vec::VectorStore::Open(memory, "");
    if (!store.ok()) return store.status();
    vec::ReadQuery query;
    query.bbox = box;
    return vec::ReadGeometry(*store, query).status();
  }
};

TEST(ForgedVectorsRoot, ChunkShapeUnlikeTheChunksFailsReadsAndValidate) {
  // Halved: every chunk's vertices spill out of the cells the root claims.
  ForgedStore halved("chunk_shape", "[5, 5, 5]");
  ExpectNames(halved.Read(), StatusCode::kCorruption,
              {"vertices/", "lies outside its chunk under the root's chunk_shape [5.0, 5.0, 5.0]",
               "zarr.json"});
  // A region read probes the keys the root's chunk_shape gives.
  vec::BoundingBox box;
  box.min = {0, 0, -20};
  box.max = {40, 40, 20};
  ExpectNames(halved.Read(box), StatusCode::kCorruption, {"vertices/", "chunk_shape"});
  // Doubled: the chunks off the origin hold vertices outside their claimed cells;
  // validate reads them all.
  ForgedStore doubled("chunk_shape", "[20, 20, 20]");
  Result<std::vector<vec::Violation>> violations = vec::ValidateStore(doubled.memory, "", 1);
  ASSERT_TRUE(violations.ok()) << violations.status().ToString();
  ASSERT_FALSE(violations->empty());
  EXPECT_EQ(violations->front().kind, vec::ViolationKind::kMalformedBlob);
  EXPECT_NE(violations->front().message.find("chunk_shape [20.0, 20.0, 20.0]"), std::string::npos)
      << violations->front().message;
}

TEST(ForgedVectorsRoot, BoundsThatExcludeVerticesFailReads) {
  ForgedStore shrunk("bounds", "[[0, 0, -20], [40, 40, 0]]");
  ExpectNames(shrunk.Read(), StatusCode::kCorruption,
              {"vertices/", "lies outside the root's bounds on axis 2", "zarr.json"});
}

TEST(ForgedVectorsRoot, InfiniteChunkShapeFailsOpen) {
  // 1e999 is how a JSON file would spell infinity; the JSON reader refuses it
  // (and a non-finite value from elsewhere is refused by the checks above).
  ForgedStore infinite("chunk_shape", "[1e999, 10, 10]");
  ExpectNames(infinite.Read(), StatusCode::kCorruption, {"memory://forged/zarr.json"});
  Result<std::vector<vec::Violation>> violations = vec::ValidateStore(infinite.memory, "", 1);
  ASSERT_TRUE(violations.ok()) << violations.status().ToString();
  ASSERT_EQ(violations->size(), 1u);
  EXPECT_EQ(violations->front().kind, vec::ViolationKind::kBadMetadata);
  EXPECT_EQ(violations->front().path, "zarr.json");
}

TEST(ForgedVectorsLevel, VertexCountUnlikeTheChunksIsAViolation) {
  ForgedStore store("chunk_shape", "[10, 10, 10]");  // As written.
  nlohmann::json level = nlohmann::json::parse(AsChars(**store.memory->Get("0/zarr.json")));
  level["attributes"]["zarr_vectors_level"]["vertex_count"] = 500;
  ASSERT_TRUE(store.memory->Set("0/zarr.json", AsBytes(level.dump())).ok());
  Result<std::vector<vec::Violation>> violations = vec::ValidateStore(store.memory, "", 1);
  ASSERT_TRUE(violations.ok()) << violations.status().ToString();
  ASSERT_EQ(violations->size(), 1u);
  EXPECT_EQ(violations->front().kind, vec::ViolationKind::kBadMetadata);
  EXPECT_EQ(violations->front().path, "0/zarr.json");
  EXPECT_NE(violations->front().message.find("vertex_count 500, but the level's chunks hold 200"),
            std::string::npos)
      << violations->front().message;
}

TEST(ForgedVectorsWrite, ChunkShapeThatIsNotFinitePositiveIsInvalidArgument) {
  const vec::Geometry points = vec::test::RandomPoints(10);
  const std::pair<double, const char*> values[] = {
      {kInf, "inf"}, {kNaN, "NaN"}, {0.0, "0.0"}, {-1.0, "-1.0"}};
  for (const auto& [value, text] : values) {
    SCOPED_TRACE(text);
    vec::WriteOptions options = vec::test::Options();
    options.chunk_shape[2] = value;
    const auto memory = store::MemoryStore::Create();
    const Status status = vec::WriteGeometry(memory, "", points, options).status();
    ExpectNames(status, StatusCode::kInvalidArgument, {std::string("chunk_shape[2] is ") + text});
    EXPECT_FALSE(*memory->Exists("zarr.json"));
  }
}

}  // namespace
}  // namespace chunkwise::formats
