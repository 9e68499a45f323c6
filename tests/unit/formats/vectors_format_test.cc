// The zarr-vectors byte layouts and names: delta segments, chunk and cell
// keys, ragged blobs, perm_idx, cell records, the fragment index, metadata.
#include <gtest/gtest.h>

#include "formats/vectors/blob_array.h"
#include "formats/vectors/cross_chunk_record.h"
#include "formats/vectors/fragment_index.h"
#include "formats/vectors/geometry_reader.h"
#include "formats/vectors/layout.h"
#include "formats/vectors/lehmer_permutation.h"
#include "formats/vectors/ragged_blob.h"
#include "formats/vectors/store_metadata.h"

namespace chunkwise::formats::vectors {
namespace {

TEST(VectorsPaths, DeltaSegments) {
  EXPECT_EQ(FormatDelta(0), "0");
  EXPECT_EQ(FormatDelta(1), "+1");
  EXPECT_EQ(FormatDelta(-2), "-2");
  for (int delta : {0, 1, -1, 2, -7, 12}) EXPECT_EQ(*ParseDelta(FormatDelta(delta)), delta);
  for (const char* bad : {"1", "+0", "-0", "+01", "", "+", "x", "+1a", "99999999999"}) {
    EXPECT_FALSE(ParseDelta(bad).ok()) << bad;
  }
}

TEST(VectorsPaths, LayoutPathsOwnTheDeltaSegment) {
  EXPECT_EQ(layout::LinksBlobPath(0, 1, {0, -1, 2}), "0/links/+1/0.-1.2/");
  EXPECT_EQ(layout::CrossChunkCellPath(2, -1, "0.0.0.0.0.1"),
            "2/cross_chunk_links/-1/0.0.0.0.0.1/");
  EXPECT_EQ(layout::LinkAttributeBlobPath(0, "weight", 0, {1, 2, 3}),
            "0/link_attributes/weight/0/1.2.3/");
  EXPECT_EQ(layout::CrossChunkLinkAttributeDataPath(1, "w", 1),
            "1/cross_chunk_link_attributes/w/+1/data/");
  EXPECT_EQ(layout::kVersion, "0.8.0");
}

TEST(VectorsPaths, ChunkAndCellKeys) {
  EXPECT_EQ(FormatChunkKey({-1, 0, 2}), "-1.0.2");
  EXPECT_EQ(*ParseChunkKey("-1.0.2"), (ChunkCoord{-1, 0, 2}));
  EXPECT_FALSE(ParseChunkKey("1.2").ok());
  EXPECT_FALSE(ParseChunkKey("1..2").ok());
  EXPECT_FALSE(ParseChunkKey("1.2.+3").ok());
  const std::vector<ChunkCoord> chunks{{0, 0, 0}, {0, 1, 0}, {1, 0, 0}};
  EXPECT_EQ(FormatCellKey(chunks), "0.0.0.0.1.0.1.0.0");
  EXPECT_EQ(*ParseCellKey("0.0.0.0.1.0.1.0.0", 3), chunks);
  EXPECT_FALSE(ParseCellKey("0.0.0.0.1.0.1.0.0", 2).ok());
}

TEST(VectorsRaggedBlob, RoundTripAndLayout) {
  const Bytes a{1, 2, 3}, b{}, c{4};
  const std::vector<ByteView> groups{a, b, c};
  const Bytes blob = EncodeRaggedBlob(groups);
  ASSERT_EQ(blob.size(), 8u * 4 + 4);
  EXPECT_EQ(LoadLittleEndian<std::uint64_t>(blob.data()), 3u);
  EXPECT_EQ(LoadLittleEndian<std::uint64_t>(blob.data() + 8), 0u);
  EXPECT_EQ(LoadLittleEndian<std::uint64_t>(blob.data() + 16), 3u);
  EXPECT_EQ(LoadLittleEndian<std::uint64_t>(blob.data() + 24), 3u);
  Result<std::vector<ByteView>> decoded = DecodeRaggedBlob(blob, "blob");
  ASSERT_TRUE(decoded.ok());
  ASSERT_EQ(decoded->size(), 3u);
  EXPECT_EQ(Bytes((*decoded)[0].begin(), (*decoded)[0].end()), a);
  EXPECT_TRUE((*decoded)[1].empty());
  EXPECT_EQ(Bytes((*decoded)[2].begin(), (*decoded)[2].end()), c);
}

TEST(VectorsRaggedBlob, AcceptsBlobRelativeOffsets) {
  Bytes blob;
  AppendLittleEndian<std::uint64_t>(2, blob);
  AppendLittleEndian<std::uint64_t>(24, blob);  // Header size: offsets counted from the blob start.
  AppendLittleEndian<std::uint64_t>(26, blob);
  blob.insert(blob.end(), {9, 9, 7});
  Result<std::vector<ByteView>> decoded = DecodeRaggedBlob(blob, "blob");
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ((*decoded)[0].size(), 2u);
  EXPECT_EQ((*decoded)[1].size(), 1u);
}

TEST(VectorsRaggedBlob, RejectsMalformedBlobs) {
  EXPECT_FALSE(DecodeRaggedBlob(Bytes{1, 0}, "short").ok());
  Bytes huge;
  AppendLittleEndian<std::uint64_t>(~std::uint64_t{0}, huge);
  EXPECT_FALSE(DecodeRaggedBlob(huge, "huge").ok());
  Bytes backwards;
  AppendLittleEndian<std::uint64_t>(2, backwards);
  AppendLittleEndian<std::uint64_t>(0, backwards);
  AppendLittleEndian<std::uint64_t>(100, backwards);
  EXPECT_FALSE(DecodeRaggedBlob(backwards, "past the end").ok());
  // K = 0 followed by records: no group holds them, so they would vanish.
  Bytes orphans;
  AppendLittleEndian<std::uint64_t>(0, orphans);
  for (int i = 0; i < 3; ++i) AppendLittleEndian<std::uint64_t>(7, orphans);
  const Status dropped = DecodeRaggedBlob(orphans, "links/1/0_0_0").status();
  EXPECT_EQ(dropped.code(), StatusCode::kCorruption);
  EXPECT_NE(dropped.message().find("links/1/0_0_0"), std::string_view::npos);
  EXPECT_NE(dropped.message().find("24 bytes"), std::string_view::npos) << dropped.ToString();
  EXPECT_EQ(DecodeCellBlob(orphans, 2, "cell").status().code(), StatusCode::kCorruption);
  Result<std::vector<ByteView>> empty = DecodeRaggedBlob(EncodeRaggedBlob({}), "empty");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
  const std::vector<std::int64_t> rows{1, 2, 3};
  EXPECT_FALSE(DecodeLinkBlob(EncodeLinkBlob(rows), 2, "odd").ok());
  EXPECT_EQ(*DecodeLinkBlob(EncodeLinkBlob(rows), 3, "ok"), rows);
}

TEST(VectorsLehmer, SpecExamplesAndAllPermutations) {
  EXPECT_EQ(EncodeLehmer(std::vector<int>{0, 1}), 0);
  EXPECT_EQ(EncodeLehmer(std::vector<int>{1, 0}), 1);
  EXPECT_EQ(EncodeLehmer(std::vector<int>{1, 0, 2}), 2);
  for (int length = 1; length <= 5; ++length) {
    for (std::int64_t code = 0; code < Factorial(length); ++code) {
      Result<std::vector<int>> sorted_idx = DecodeLehmer(code, length);
      ASSERT_TRUE(sorted_idx.ok());
      EXPECT_EQ(EncodeLehmer(*sorted_idx), code);
    }
    EXPECT_FALSE(DecodeLehmer(Factorial(length), length).ok());
  }
  EXPECT_FALSE(DecodeLehmer(-1, 3).ok());
}

TEST(VectorsCrossChunkRecord, SpecExampleTriangle) {
  const ChunkCoord a{0, 0, 0}, b{0, 1, 0}, c{1, 0, 0};
  const std::vector<Endpoint> input{{b, 5}, {a, 7}, {c, 9}};
  const CanonicalRecord canonical = Canonicalize(input);
  EXPECT_EQ(canonical.chunks, (std::vector<ChunkCoord>{a, b, c}));
  EXPECT_EQ(canonical.record.perm_idx, 2);
  EXPECT_EQ(canonical.record.vi, (std::vector<std::int64_t>{7, 5, 9}));
  EXPECT_EQ(*RestoreInputOrder(canonical.chunks, canonical.record), input);
}

TEST(VectorsCrossChunkRecord, CellBlobRoundTrip) {
  const std::vector<CellRecord> records{{1, {4, 5}}, {0, {6, 7}}};
  const Bytes blob = EncodeCellBlob(records);
  EXPECT_EQ(blob.size(), 8u * 3 + 2 * 24);
  EXPECT_EQ(*DecodeCellBlob(blob, 2, "cell"), records);
  EXPECT_FALSE(DecodeCellBlob(blob, 3, "cell").ok());
}

TEST(VectorsFragmentIndex, RangesAndExplicitFragments) {
  const std::vector<Fragment> fragments{MakeFragment(std::vector<std::int64_t>{0, 1, 2}),
                                        MakeFragment(std::vector<std::int64_t>{3, 5}),
                                        MakeFragment(std::vector<std::int64_t>{4})};
  EXPECT_TRUE(fragments[0].is_range);
  EXPECT_FALSE(fragments[1].is_range);
  const Bytes blob = EncodeFragmentIndex(fragments);
  EXPECT_EQ(std::string(blob.begin(), blob.begin() + 4), "GFVZ");
  EXPECT_EQ(*DecodeFragmentIndex(blob, "index"), fragments);
  EXPECT_EQ(EncodeFragmentIndex({}).size(), 16u);
  Bytes truncated = blob;
  truncated.pop_back();
  EXPECT_FALSE(DecodeFragmentIndex(truncated, "index").ok());
}

TEST(VectorsMetadata, RootRoundTripAndErrorsNameTheKey) {
  RootMetadata metadata;
  metadata.version = "0.8.0";
  metadata.chunk_shape = {10, 20, 30};
  metadata.bounds_max = {1, 2, 3};
  metadata.geometry_type = GeometryType::kMesh;
  metadata.base_bin_shape = {5, 5, 5};
  metadata.num_levels = 3;
  metadata.capabilities = {"fragment_index", "multiscale_links"};
  Result<RootMetadata> parsed =
      ParseRootAttributes(FormatRootAttributes(metadata), "root/zarr.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->chunk_shape, metadata.chunk_shape);
  EXPECT_EQ(parsed->geometry_type, GeometryType::kMesh);
  EXPECT_EQ(parsed->num_levels, 3);
  EXPECT_TRUE(parsed->HasCapability("multiscale_links"));
  nlohmann::json bad = FormatRootAttributes(metadata);
  bad["zarr_vectors"]["chunk_shape"] = {1, 2};
  Result<RootMetadata> failed = ParseRootAttributes(bad, "root/zarr.json");
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("root/zarr.json"), std::string::npos);
  bad = FormatRootAttributes(metadata);
  bad["zarr_vectors"]["zv_version"] = "0.9.1";
  EXPECT_EQ(ParseRootAttributes(bad, "k")->layout, LayoutVersion::k0_9);
  bad["zarr_vectors"]["zv_version"] = "0.7.3";
  EXPECT_EQ(ParseRootAttributes(bad, "k").status().code(), StatusCode::kUnsupported);
}

// #43: the layout follows zv_version; versions we do not know are Unsupported,
// naming where the version was read and the version.
TEST(VectorsMetadata, DetectLayoutVersion) {
  EXPECT_EQ(*DetectLayoutVersion("0.8.0", "k"), LayoutVersion::k0_8);
  EXPECT_EQ(*DetectLayoutVersion("0.8.1", "k"), LayoutVersion::k0_8);
  EXPECT_EQ(*DetectLayoutVersion("0.9.0", "k"), LayoutVersion::k0_9);
  EXPECT_EQ(*DetectLayoutVersion("0.9.2", "k"), LayoutVersion::k0_9);
  for (const char* unknown : {"0.10.0", "0.7.0", "1.0.0", "0.9", "", "0.90.1"}) {
    Result<LayoutVersion> refused = DetectLayoutVersion(unknown, "s.zarrvectors/zarr.json");
    ASSERT_FALSE(refused.ok()) << unknown;
    EXPECT_EQ(refused.status().code(), StatusCode::kUnsupported) << unknown;
    const std::string message(refused.status().message());
    EXPECT_NE(message.find("s.zarrvectors/zarr.json"), std::string::npos) << message;
    EXPECT_NE(message.find(std::string("version ") + unknown), std::string::npos) << message;
  }
  EXPECT_EQ(*ParseLayoutVersion("0.9"), LayoutVersion::k0_9);
  EXPECT_EQ(*ParseLayoutVersion("0.8"), LayoutVersion::k0_8);
  EXPECT_EQ(ParseLayoutVersion("1.0").status().code(), StatusCode::kInvalidArgument);
}

// #43: the 0.9 offsets segment of links/<delta>/<offsets>/ and the cell keys.
TEST(VectorsPaths, Layout09OffsetsAndCells) {
  EXPECT_EQ(v0_9::LinksOffsetsPath(0, 0, v0_9::IntraOffsets(2)), "0/links/0/0.0.0/");
  EXPECT_EQ(v0_9::IntraOffsets(3), "0.0.0_0.0.0");
  Result<std::vector<ChunkCoord>> one = v0_9::ParseOffsets("+1.-1.0", 2);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_EQ(*one, (std::vector<ChunkCoord>{{1, -1, 0}}));
  Result<std::vector<ChunkCoord>> two = v0_9::ParseOffsets("0.0.+1_0.+1.0", 3);
  ASSERT_TRUE(two.ok()) << two.status().ToString();
  EXPECT_EQ(*two, (std::vector<ChunkCoord>{{0, 0, 1}, {0, 1, 0}}));
  EXPECT_EQ(v0_9::FormatOffsets(*two), "0.0.+1_0.+1.0");
  for (const char* bad : {"+1.-1", "1.0.0", "0.0.0_", "+1.-1.0.0", "0.0.0_0.0.0"}) {
    EXPECT_FALSE(v0_9::ParseOffsets(bad, 2).ok()) << bad;
  }
  EXPECT_EQ(v0_9::CellKey({-1, 0, 2}, {-1, -1, 0}), "c/0/1/2");
}

TEST(VectorsBlobArray, RoundTripAndRejectsOtherArrays) {
  const Bytes blob{1, 2, 3, 4, 5};
  BlobChains chains;
  Result<EncodedBlobArray> encoded = EncodeBlobArray(blob, 3, chains);
  ASSERT_TRUE(encoded.ok());
  EXPECT_NE(encoded->metadata.find("\"uint8\""), std::string::npos);
  EXPECT_EQ(*DecodeBlobArray(encoded->metadata, encoded->chunk, "node", chains), blob);
  nlohmann::json changed = nlohmann::json::parse(encoded->metadata);
  changed["data_type"] = "int16";
  const std::string two_d = changed.dump();
  EXPECT_FALSE(DecodeBlobArray(two_d, encoded->chunk, "node", chains).ok());
}

// The region syntax of `vectors read`: x,y,z, exclusive at the top.
TEST(VectorsRegion, ParseRegionBoxIsExclusiveAndOpenEndsAreUnbounded) {
  Result<BoundingBox> box = ParseRegionBox("1:3,-2.5:4,:");
  ASSERT_TRUE(box.ok()) << box.status().ToString();
  EXPECT_TRUE(box->Contains(Vec3f{1, -2.5, 1e30f}));
  EXPECT_TRUE(box->Contains(Vec3f{2.9f, 3.9f, -1e30f}));
  EXPECT_FALSE(box->Contains(Vec3f{3, 0, 0}));  // The top is outside.
  EXPECT_FALSE(box->Contains(Vec3f{0.5f, 0, 0}));
  Result<BoundingBox> bad = ParseRegionBox("1:3,4:2");
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("axis y (\"4:2\"): start is after stop"), std::string::npos)
      << bad.status().ToString();
  EXPECT_EQ(ParseRegionBox("1,2,3").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseRegionBox("0:1,0:1,0:1,0:1").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseRegionBox("a:1").status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace chunkwise::formats::vectors
