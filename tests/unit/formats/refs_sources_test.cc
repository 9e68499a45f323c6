// Reference sets built from export shards and bcolz carrays, and combined sets.
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>

#include "chunkwise/store/file_store.h"
#include "chunkwise/store/reference_store.h"
#include "codec/blosc_codec.h"
#include "formats/bcolz/carray.h"
#include "formats/dvid/arrow_shard_writer.h"
#include "formats/refs/arrow_shard_references.h"
#include "formats/refs/bcolz_references.h"
#include "formats/refs/reference_combine.h"
#include "store/memory_store.h"
#include "unit/scratch_directory.h"
#include "unit/value_or_die.h"

namespace chunkwise::formats::refs {
namespace {

namespace fs = std::filesystem;
using store::Reference;

using test::ValueOrDie;

dvid::ExportBlock Block(std::int32_t x, std::int32_t y, std::int32_t z) {
  dvid::ExportBlock block;
  block.chunk_x = x, block.chunk_y = y, block.chunk_z = z;
  block.labels = {1, 2};
  block.supervoxels = {10, 20};
  for (int i = 0; i < 30 + x + 5 * y + 9 * z; ++i) {
    block.dvid_compressed_block.push_back(static_cast<std::uint8_t>(i * 7 + x + y + z));
  }
  block.uncompressed_size = 100;
  return block;
}

std::shared_ptr<store::ReferenceStore> OverFiles(const ReferenceSet& set, const fs::path& dir) {
  store::ReferenceStoreOptions options;
  options.base_directory = dir;
  return ValueOrDie(store::ReferenceStore::Open(std::make_shared<ReferenceSet>(set), options));
}

TEST(RefsArrowShards, EachBlockIsItsCompressedBytesInTheFile) {
  const fs::path dir = test::FreshScratchDirectory("refs_arrow");
  auto files = ValueOrDie(store::FileStore::Open(dir));
  const int forms[][2] = {{0, 0}, {0, 1}, {1, 0}, {1, 1}};
  for (const auto& form : forms) {
    dvid::ArrowShardWriterOptions options;
    options.format = form[0] == 0 ? arrow::IpcFormat::kFile : arrow::IpcFormat::kStream;
    options.index_form =
        form[1] == 0 ? dvid::ChunkIndexForm::kRecord : dvid::ChunkIndexForm::kOffsets;
    const std::string stem = "s" + std::to_string(form[0] * 2 + form[1]) + "/0_0_0";
    auto writer = ValueOrDie(dvid::ArrowShardWriter::Create(files, stem, options));
    for (int z = 0; z < 2; ++z) {
      for (int x = 0; x < 3; ++x) ASSERT_TRUE(writer->Add(Block(x, 1, z)).ok());
    }
    ASSERT_TRUE(writer->Finish().ok());
  }
  ReferenceSet set = ValueOrDie(BuildArrowShardReferences(files, "", {"", nullptr}));
  EXPECT_EQ(set.size(), 4u * 6u);
  auto references = OverFiles(set, dir);
  for (const char* scale : {"s0/", "s1/", "s2/", "s3/"}) {
    const std::string key = ArrowBlockKey(scale, 2, 1, 1);
    const auto value = ValueOrDie(references->Get(key));
    ASSERT_TRUE(value.has_value()) << key;
    EXPECT_EQ(*value, Block(2, 1, 1).dvid_compressed_block) << key;
  }
  EXPECT_EQ(ArrowBlockKey("s0/", -1, 2, 3), "s0/-1_2_3");
  EXPECT_EQ(BuildArrowShardReferences(files, "none/", {}).status().code(), StatusCode::kNotFound);
}

// A carray at "c/" of `files`: 250 rows of <i4 (row i holds 3i) in chunks of
// 100, so two full chunk files and a leftover of 50 rows.
void WriteCarray(const std::shared_ptr<store::FileStore>& files) {
  bcolz::CarrayOptions options;
  options.dtype = ValueOrDie(core::NpyDtype::FromTypestr("<i4"));
  options.chunklen = 100;
  options.dflt = 0;
  auto carray = ValueOrDie(bcolz::Carray::Create(files, "c/", options));
  Bytes rows(4 * 250);
  for (std::size_t i = 0; i < 250; ++i)
    StoreLittleEndian(static_cast<std::uint32_t>(i * 3), rows.data() + 4 * i);
  ASSERT_TRUE(carray->Append(rows).ok());
  ASSERT_TRUE(carray->Close().ok());
}

TEST(RefsBcolz, FullChunksInPlaceAndThePaddedLeftoverInline) {
  const fs::path dir = test::FreshScratchDirectory("refs_bcolz");
  auto files = ValueOrDie(store::FileStore::Open(dir));
  WriteCarray(files);
  ReferenceSet set = ValueOrDie(BuildBcolzReferences(files, "c/", {""}));
  EXPECT_EQ(set.size(), 2u + 3u);
  const std::string zarray(AsChars(set.Find(".zarray")->value().data));
  EXPECT_NE(zarray.find("\"chunks\": [\n        100\n    ]"), std::string::npos) << zarray;
  EXPECT_NE(zarray.find("\"id\": \"blosc\""), std::string::npos);
  EXPECT_EQ(set.Find("0")->value().kind, Reference::Kind::kRange);
  EXPECT_EQ(set.Find("0")->value().offset, 16u);
  EXPECT_EQ(set.Find("2")->value().kind, Reference::Kind::kInline);
  auto references = OverFiles(set, dir);
  const auto blosc = ValueOrDie(codec::BloscCodec::Create({}));
  for (int chunk = 0; chunk < 3; ++chunk) {
    const Bytes encoded = *ValueOrDie(references->Get(std::to_string(chunk)));
    const Bytes decoded = ValueOrDie(blosc->Decode(encoded, 400));
    ASSERT_EQ(decoded.size(), 400u);
    for (std::size_t i = 0; i < 100; ++i) {
      const std::size_t row = chunk * 100 + i;
      EXPECT_EQ(LoadLittleEndian<std::uint32_t>(decoded.data() + 4 * i), row < 250 ? row * 3 : 0u)
          << row;
    }
  }
}

// The counts a reporter told, and how it ended.
class ChunkCounts : public core::ProgressObserver {
 public:
  void OnStart(std::string_view, std::uint64_t total, std::string_view unit) override {
    total_ = total;
    unit_ = unit;
  }
  void OnProgress(std::string_view, std::uint64_t done) override { done_ = done; }
  void OnFinish(std::string_view, std::uint64_t done) override { finished_ = done; }

  std::optional<std::uint64_t> total_, done_, finished_;
  std::string unit_;
};

BcolzReferenceOptions CountedBy(ChunkCounts& counts, core::JobPart part = {}) {
  BcolzReferenceOptions options{"", part};
  options.start_progress = [&counts](std::uint64_t chunks) {
    return std::make_unique<core::ProgressReporter>(
        core::ProgressOptions{.label = "refs build",
                              .total_units = chunks,
                              .unit = "chunks",
                              .mode = core::ProgressMode::kQuiet,
                              .observer = &counts});
  };
  return options;
}

TEST(RefsBcolz, ProgressCountsTheChunksOfThePartToItsTotal) {
  const fs::path dir = test::FreshScratchDirectory("refs_bcolz_progress");
  auto files = ValueOrDie(store::FileStore::Open(dir));
  WriteCarray(files);
  ChunkCounts whole;
  EXPECT_EQ(ValueOrDie(BuildBcolzReferences(files, "c/", CountedBy(whole))).size(), 2u + 3u);
  EXPECT_EQ(whole.total_, 3u);
  EXPECT_EQ(whole.done_, 3u);
  EXPECT_EQ(whole.finished_, 3u);
  EXPECT_EQ(whole.unit_, "chunks");
  const core::JobPart second{.rank = 1, .size = 2};
  std::uint64_t owned = 0;
  for (std::uint64_t chunk = 0; chunk < 3; ++chunk) owned += second.Owns(chunk) ? 1 : 0;
  ChunkCounts part;
  EXPECT_EQ(ValueOrDie(BuildBcolzReferences(files, "c/", CountedBy(part, second))).size(),
            2u + owned);
  EXPECT_EQ(part.total_, owned);
  EXPECT_EQ(part.finished_, owned);
}

TEST(RefsBcolz, ACancelledBuildStopsBeforeAChunkAndIsNotFinished) {
  const fs::path dir = test::FreshScratchDirectory("refs_bcolz_cancel");
  auto files = ValueOrDie(store::FileStore::Open(dir));
  WriteCarray(files);
  ChunkCounts counts;
  core::Cancellation cancellation;
  cancellation.Cancel();
  BcolzReferenceOptions options = CountedBy(counts);
  options.cancellation = &cancellation;
  const Result<ReferenceSet> built = BuildBcolzReferences(files, "c/", options);
  ASSERT_EQ(built.status().code(), StatusCode::kCancelled);
  EXPECT_NE(built.status().message().find("building references to"), std::string::npos)
      << built.status().ToString();
  EXPECT_NE(built.status().message().find((dir / "c").string()), std::string::npos)
      << built.status().ToString();
  EXPECT_EQ(counts.total_, 3u);
  EXPECT_EQ(counts.done_, std::nullopt);
  EXPECT_EQ(counts.finished_, std::nullopt);
}

ReferenceSet Part(std::int64_t rows, const std::string& url, const char* dtype = "<i4") {
  ReferenceSet set;
  set.Set(".zgroup", Reference::Inline(CopyToBytes(AsBytes(R"({"zarr_format": 2})"))));
  const std::string zarray =
      std::string(R"({"zarr_format": 2, "shape": [)") + std::to_string(rows) +
      R"(, 6], "chunks": [4, 3], "dtype": ")" + dtype +
      R"(", "compressor": null, "filters": null, "fill_value": 0, "order": "C"})";
  set.Set("v/.zarray", Reference::Inline(CopyToBytes(AsBytes(zarray))));
  set.Set("v/.zattrs",
          Reference::Inline(CopyToBytes(AsBytes(R"({"_ARRAY_DIMENSIONS": ["t", "x"]})"))));
  set.Set(
      "lat/.zarray",
      Reference::Inline(CopyToBytes(AsBytes(
          R"({"zarr_format": 2, "shape": [], "chunks": [], "dtype": "<f8", "compressor": null, "filters": null, "fill_value": 0, "order": "C"})"))));
  set.Set("lat/0", Reference::WholeFile(url + ".lat"));
  for (std::int64_t i = 0; i < (rows + 3) / 4; ++i) {
    for (int j = 0; j < 2; ++j) {
      set.Set("v/" + std::to_string(i) + "." + std::to_string(j),
              Reference::Range(url, static_cast<std::uint64_t>(i * 10 + j), 1));
    }
  }
  return set;
}

TEST(RefsCombine, ConcatenatesAlongOneDimension) {
  const ReferenceSet a = Part(8, "a"), b = Part(6, "b");
  const ReferenceSet* inputs[] = {&a, &b};
  ReferenceSet out = ValueOrDie(CombineReferenceSets(inputs, {0}));
  const std::string zarray(AsChars(out.Find("v/.zarray")->value().data));
  EXPECT_NE(zarray.find("\"shape\": [\n        14,\n        6\n    ]"), std::string::npos)
      << zarray;
  EXPECT_EQ(out.Find("v/1.1")->value().url, "a");
  EXPECT_EQ(out.Find("v/2.1")->value().url, "b");
  EXPECT_EQ(out.Find("v/3.0")->value().offset, 10u);
  EXPECT_FALSE(out.Find("v/4.0")->has_value());
  EXPECT_EQ(out.Find("lat/0")->value().url, "a.lat");
  EXPECT_TRUE(out.Find("v/.zattrs")->has_value());
  EXPECT_EQ(out.size(), 1u + 2u + 2u + 2u * 4u);
}

TEST(RefsCombine, RefusesMismatches) {
  const ReferenceSet a = Part(8, "a"), ragged = Part(6, "r"), other = Part(8, "o", "<f4");
  const ReferenceSet* bad_boundary[] = {&ragged, &a};
  auto boundary = CombineReferenceSets(bad_boundary, {0});
  EXPECT_EQ(boundary.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(boundary.status().message().find("not a multiple of the chunk size"),
            std::string::npos);
  const ReferenceSet* bad_dtype[] = {&a, &other};
  auto dtype = CombineReferenceSets(bad_dtype, {0});
  EXPECT_NE(dtype.status().message().find("\"dtype\" differs"), std::string::npos)
      << dtype.status().ToString();
  const ReferenceSet* along_x[] = {&a, &ragged};
  auto extent = CombineReferenceSets(along_x, {1});
  EXPECT_NE(extent.status().message().find("dimension 0"), std::string::npos)
      << extent.status().ToString();
  EXPECT_FALSE(CombineReferenceSets({}, {0}).ok());
}

}  // namespace
}  // namespace chunkwise::formats::refs
