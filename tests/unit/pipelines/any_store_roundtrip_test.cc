// Every format and pipeline is a view over a store and a prefix: each one,
// written to and read back from a MemoryStore and a FileStore, under a prefix.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "chunkwise/core/region.h"
#include "chunkwise/store/file_store.h"
#include "formats/arrow/ipc_reader.h"
#include "formats/arrow/ipc_writer.h"
#include "formats/bcolz/carray.h"
#include "formats/bcolz/ctable.h"
#include "formats/bcolz/dataset.h"
#include "formats/dvid/arrow_shard_reader.h"
#include "formats/dvid/arrow_shard_writer.h"
#include "formats/dvid/export_shard_schema.h"
#include "formats/dvid/ingest.h"
#include "formats/refs/reference_file.h"
#include "formats/refs/zarr_references.h"
#include "formats/vectors/geometry_reader.h"
#include "formats/vectors/writer.h"
#include "formats/zarr/array.h"
#include "formats/zarr/array_layout.h"
#include "pipelines/export_shards.h"
#include "pipelines/exported_volume_reader.h"
#include "pipelines/stream/stream_writer.h"
#include "store/memory_store.h"
#include "store/rocksdb_store.h"
#include "unit/formats/vectors_test_data.h"
#include "unit/scratch_directory.h"

namespace chunkwise {
namespace {

using nlohmann::json;

struct StoreKind {
  std::string name;
  std::function<std::shared_ptr<store::Store>()> make;
};

std::string KindName(const ::testing::TestParamInfo<StoreKind>& info) { return info.param.name; }
void PrintTo(const StoreKind& kind, std::ostream* os) { *os << kind.name; }

// Each test writes under this prefix, so nothing relies on owning the store's root.
constexpr const char* kPrefix = "views/";

class AnyStoreRoundTrip : public ::testing::TestWithParam<StoreKind> {
 protected:
  void SetUp() override {
    store_ = GetParam().make();
    ASSERT_NE(store_, nullptr);
  }
  // Nothing was written outside the prefix.
  void TearDown() override {
    const Result<std::vector<std::string>> keys = store_->List("");
    ASSERT_TRUE(keys.ok());
    for (const std::string& key : *keys) EXPECT_TRUE(key.starts_with(kPrefix)) << key;
  }

  std::shared_ptr<store::Store> store_;
};

Bytes Sequence(std::size_t size, std::uint32_t seed) {
  Bytes bytes(size);
  std::uint32_t state = seed;
  for (std::uint8_t& b : bytes) {
    state = state * 1664525u + 1013904223u;
    b = static_cast<std::uint8_t>(state >> 24);
  }
  return bytes;
}

void ExpectArrayHolds(const std::shared_ptr<store::Store>& store, const std::string& prefix,
                      const Bytes& expected) {
  Result<formats::zarr::Array> array = formats::zarr::Array::Open(store, prefix);
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  Result<Bytes> read = array->Read(core::Region::Full(array->metadata().shape));
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(*read, expected);
}

TEST_P(AnyStoreRoundTrip, ZarrV3ShardedAndV2Arrays) {
  for (const int zarr_format : {3, 2}) {
    SCOPED_TRACE(zarr_format);
    formats::zarr::ArrayLayout layout;
    layout.shape = {30, 20};
    layout.data_type = core::DataType(core::DataTypeId::kUInt16);
    layout.chunk_shape = {8, 8};
    if (zarr_format == 3) layout.shard_shape = core::Shape{16, 16};
    layout.zarr_format = zarr_format;
    Result<formats::zarr::ArrayMetadata> metadata = formats::zarr::BuildArrayMetadata(layout);
    ASSERT_TRUE(metadata.ok()) << metadata.status().ToString();
    const std::string prefix = std::string(kPrefix) + "v" + std::to_string(zarr_format) + "/";
    Result<formats::zarr::Array> array =
        formats::zarr::Array::Create(store_, prefix, *metadata, false);
    ASSERT_TRUE(array.ok()) << array.status().ToString();
    const Bytes data = Sequence(30 * 20 * 2, 1);
    ASSERT_TRUE(array->Write(core::Region::Full(layout.shape), data).ok());
    ExpectArrayHolds(store_, prefix, data);
  }
}

TEST_P(AnyStoreRoundTrip, StreamWriterFramesToAShardedArray) {
  pipelines::stream::StreamConfig config;
  config.dimensions = {{10, 2, 2, "t"}, {12, 4, 3, "y"}, {8, 4, 2, "x"}};
  config.data_type = core::DataType(core::DataTypeId::kUInt8);
  config.threads = 2;
  const std::string prefix = std::string(kPrefix) + "stream/";
  auto writer = pipelines::stream::StreamWriter::Create(config, store_, prefix);
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  const Bytes frames = Sequence(10 * 12 * 8, 2);
  ASSERT_TRUE((*writer)->Append(ByteView(frames).first(300)).ok());
  ASSERT_TRUE((*writer)->Append(ByteView(frames).subspan(300)).ok());
  ASSERT_TRUE((*writer)->Close().ok());
  ExpectArrayHolds(store_, prefix, frames);
}

formats::dvid::ExportBlock Block(std::int32_t x, std::int32_t y, std::int32_t z) {
  formats::dvid::ExportBlock block;
  block.chunk_x = x, block.chunk_y = y, block.chunk_z = z;
  block.supervoxels = {7, static_cast<std::uint64_t>(100 + x)};
  block.labels = {1, static_cast<std::uint64_t>(z)};
  block.dvid_compressed_block = Sequence(40 + static_cast<std::size_t>(y), 3);
  block.uncompressed_size = 999;
  return block;
}

TEST_P(AnyStoreRoundTrip, ArrowIpcFileAndExportShard) {
  const std::string key = std::string(kPrefix) + "ipc/blocks.arrow";
  auto sink = formats::arrow::CreateStoreSink(store_, key);
  ASSERT_TRUE(sink.ok()) << sink.status().ToString();
  auto writer =
      formats::arrow::IpcWriter::Create(std::move(*sink), formats::dvid::ExportShardSchema());
  ASSERT_TRUE(writer.ok());
  formats::dvid::ExportBatchBuilder builder;
  ASSERT_TRUE(builder.Add(Block(1, 2, 3)).ok());
  ASSERT_TRUE((*writer)->WriteRecordBatch(builder.View()).ok());
  ASSERT_TRUE((*writer)->Finish().ok());
  auto source = formats::arrow::OpenStoreSource(store_, key);
  ASSERT_TRUE(source.ok()) << source.status().ToString();
  auto reader = formats::arrow::IpcFileReader::Open(*source);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ(reader->num_record_batches(), 1u);

  const std::string stem = std::string(kPrefix) + "shards/s0/0_0_0";
  auto shard = formats::dvid::ArrowShardWriter::Create(store_, stem);
  ASSERT_TRUE(shard.ok()) << shard.status().ToString();
  for (std::int32_t x = 0; x < 3; ++x) ASSERT_TRUE((*shard)->Add(Block(x, 1, 2)).ok());
  ASSERT_TRUE((*shard)->Finish().ok());
  auto opened = formats::dvid::ArrowShardReader::Open(store_, stem + ".arrow");
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  for (std::int32_t x = 0; x < 3; ++x) {
    auto block = opened->Get(x, 1, 2);
    ASSERT_TRUE(block.ok() && block->has_value()) << block.status().ToString();
    EXPECT_EQ(**block, Block(x, 1, 2));
  }
}

TEST_P(AnyStoreRoundTrip, ExportShardsAndTheExportedVolume) {
  const std::array<std::int64_t, 3> shape{70, 64, 130};  // z, y, x: 2 x 1 x 3 blocks.
  std::vector<std::uint64_t> volume(70 * 64 * 130);
  for (std::size_t i = 0; i < volume.size(); ++i) volume[i] = 1 + (i / 97) % 13;
  auto db =
      store::RocksDbStore::Open(test::FreshScratchDirectory("db"), {.create_if_missing = true});
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  auto labelmap = formats::dvid::Labelmap::Open(*db, true);
  ASSERT_TRUE(labelmap.ok());
  ASSERT_TRUE(formats::dvid::IngestVolume(**labelmap, volume, shape, {}).ok());
  ASSERT_TRUE((*labelmap)->SetMappings(1, std::vector<formats::dvid::LabelPair>{{3, 5}}).ok());
  const json info = {{"@type", "neuroglancer_multiscale_volume"},
                     {"data_type", "uint64"},
                     {"scales",
                      {{{"key", "s0"},
                        {"size", {130, 64, 70}},
                        {"chunk_sizes", {{64, 64, 64}}},
                        {"sharding",
                         {{"@type", "neuroglancer_uint64_sharded_v1"},
                          {"preshift_bits", 0},
                          {"hash", "identity"},
                          {"minishard_bits", 1},
                          {"shard_bits", 8}}}}}}};
  auto spec = pipelines::ParseExportSpec(info.dump(), "spec.json");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  const std::string prefix = std::string(kPrefix) + "export/";
  auto summary = pipelines::ExportShards(**labelmap, *spec, store_, prefix, {.workers = 2});
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  EXPECT_EQ(summary->scales[0].blocks_written, 6u);
  auto reader = pipelines::ExportedVolumeReader::Open(store_, prefix);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  const formats::dvid::VoxelBox box{{0, 0, 0}, {70, 64, 130}};
  auto read = (*reader)->Read(0, box, /*supervoxels=*/true);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(*read, volume);
  auto mapped = (*reader)->Read(0, box, /*supervoxels=*/false);
  ASSERT_TRUE(mapped.ok());
  std::vector<std::uint64_t> want = volume;
  for (std::uint64_t& label : want) label = label == 3 ? 5 : label;
  EXPECT_EQ(*mapped, want);
}

formats::refs::ReferenceSet SampleReferences() {
  formats::refs::ReferenceSet set;
  auto text = [](std::string_view s) { return store::Reference::Inline(CopyToBytes(AsBytes(s))); };
  set.Set(".zgroup", text(R"({"zarr_format": 2})"));
  set.Set("var/.zarray", text(R"({"chunks": [10], "compressor": null, "dtype": "<f4",
      "fill_value": 0, "filters": null, "order": "C", "shape": [40], "zarr_format": 2})"));
  set.Set("var/0", store::Reference::Range("data/a.bin", 100, 40));
  set.Set("var/1", store::Reference::WholeFile("data/b.bin"));
  set.Set("var/3", store::Reference::Inline(Sequence(40, 4)));
  return set;
}

TEST_P(AnyStoreRoundTrip, ReferenceSetsAsJsonAndParquet) {
  const formats::refs::ReferenceSet set = SampleReferences();
  for (const auto format :
       {formats::refs::ReferenceFormat::kJsonV0, formats::refs::ReferenceFormat::kJsonV1,
        formats::refs::ReferenceFormat::kParquet}) {
    const std::string key =
        std::string(kPrefix) + "refs" + std::to_string(static_cast<int>(format));
    ASSERT_TRUE(formats::refs::WriteReferences(*store_, key, set, {.format = format}).ok());
    EXPECT_EQ(formats::refs::WriteReferences(*store_, key, set, {.format = format}).code(),
              StatusCode::kInvalidArgument);  // An existing set is not replaced by default.
    auto opened = formats::refs::OpenReferences(store_, key);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    for (const auto& [name, want] : set.entries()) {
      SCOPED_TRACE(std::string(name));
      auto got = (*opened)->Find(name);
      ASSERT_TRUE(got.ok() && got->has_value()) << got.status().ToString();
      EXPECT_EQ((*got)->kind, want.kind);
      EXPECT_EQ((*got)->url, want.url);
      EXPECT_EQ((*got)->offset, want.offset);
      EXPECT_EQ((*got)->length, want.length);
      if (!std::string_view(name).ends_with("z"
                                            "array") &&
          name != ".zgroup") {
        EXPECT_EQ((*got)->data, Bytes(want.data.begin(), want.data.end()));
      }
    }
  }
}

TEST_P(AnyStoreRoundTrip, ReferencesBuiltFromAZarrArrayInTheStore) {
  formats::zarr::ArrayLayout layout;
  layout.shape = {20};
  layout.data_type = core::DataType(core::DataTypeId::kInt32);
  layout.chunk_shape = {8};
  layout.zarr_format = 2;
  auto metadata = formats::zarr::BuildArrayMetadata(layout);
  ASSERT_TRUE(metadata.ok());
  const std::string prefix = std::string(kPrefix) + "source/";
  auto array = formats::zarr::Array::Create(store_, prefix, *metadata, false);
  ASSERT_TRUE(array.ok());
  ASSERT_TRUE(array->Write(core::Region::Full(layout.shape), Sequence(80, 5)).ok());
  formats::refs::ZarrReferenceOptions references;
  references.url_base = "base/";
  auto set = formats::refs::BuildZarrReferences(store_, prefix, references);
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  auto chunk = set->Find("1");
  ASSERT_TRUE(chunk.ok() && chunk->has_value());
  EXPECT_EQ((*chunk)->url, "base/views/source/1");  // url_base is the store root's URL.
  EXPECT_EQ((*chunk)->kind, store::Reference::Kind::kWholeFile);
}

TEST_P(AnyStoreRoundTrip, VectorsGraph) {
  formats::vectors::Geometry graph =
      formats::vectors::test::RandomPoints(60, formats::vectors::GeometryType::kGraph);
  for (std::int64_t v = 0; v + 1 < 60; v += 2) graph.links.insert(graph.links.end(), {v, v + 1});
  const std::string prefix = std::string(kPrefix) + "graph/";
  auto written =
      formats::vectors::WriteGeometry(store_, prefix, graph, formats::vectors::test::Options(10.0));
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  auto vectors = formats::vectors::VectorStore::Open(store_, prefix);
  ASSERT_TRUE(vectors.ok()) << vectors.status().ToString();
  auto read = formats::vectors::ReadGeometry(*vectors, {});
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  const std::vector<std::int64_t> match =
      formats::vectors::test::MatchVertices(graph, read->geometry);
  ASSERT_EQ(match.size(), graph.positions.size());
  for (std::int64_t m : match) EXPECT_GE(m, 0);
  EXPECT_EQ(formats::vectors::test::LinkKeys(read->geometry, match),
            formats::vectors::test::LinkKeys(graph));
}

TEST_P(AnyStoreRoundTrip, BcolzCarrayAndCtable) {
  namespace bcolz = formats::bcolz;
  bcolz::CarrayOptions options;
  options.dtype = *core::NpyDtype::FromTypestr("<i4");
  options.chunklen = 8;
  const std::string carray_prefix = std::string(kPrefix) + "carray/";
  const Bytes rows = Sequence(30 * 4, 6);
  {
    auto carray = bcolz::Carray::Create(store_, carray_prefix, options);
    ASSERT_TRUE(carray.ok()) << carray.status().ToString();
    ASSERT_TRUE((*carray)->Append(rows).ok());
    ASSERT_TRUE((*carray)->Close().ok());
  }
  auto reopened = bcolz::Carray::Open(store_, carray_prefix, bcolz::Mode::kRead);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  EXPECT_EQ(*(*reopened)->Read(0, 30), rows);
  bcolz::ReadRequest slice;
  slice.slice = "5:9";
  auto selection = bcolz::ReadSelection(store_, carray_prefix, slice);
  ASSERT_TRUE(selection.ok()) << selection.status().ToString();
  EXPECT_EQ(selection->data, Bytes(rows.begin() + 20, rows.begin() + 36));

  auto dtype = core::NpyDtype::FromDescr("[('id', '<i8'), ('x', '<f8')]");
  ASSERT_TRUE(dtype.ok());
  bcolz::CarrayOptions column_options;
  column_options.chunklen = 4;
  auto columns = bcolz::Ctable::ColumnsFor(*dtype, column_options);
  ASSERT_TRUE(columns.ok());
  const std::string ctable_prefix = std::string(kPrefix) + "ctable/";
  const Bytes records = Sequence(10 * 16, 7);
  {
    auto table = bcolz::Ctable::Create(store_, ctable_prefix, *columns);
    ASSERT_TRUE(table.ok()) << table.status().ToString();
    ASSERT_TRUE((*table)->Append(*dtype, records).ok());
    ASSERT_TRUE((*table)->Flush().ok());
  }
  auto table = bcolz::Ctable::Open(store_, ctable_prefix, bcolz::Mode::kRead);
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  auto read = (*table)->Read(0, 10, {});
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->data, records);
}

INSTANTIATE_TEST_SUITE_P(
    Stores, AnyStoreRoundTrip,
    ::testing::Values(
        StoreKind{"memory",
                  [] { return std::shared_ptr<store::Store>(store::MemoryStore::Create()); }},
        StoreKind{"file",
                  [] {
                    auto store = store::FileStore::Open(test::FreshScratchDirectory("views"));
                    return store.ok() ? std::shared_ptr<store::Store>(*store) : nullptr;
                  }}),
    KindName);

}  // namespace
}  // namespace chunkwise
