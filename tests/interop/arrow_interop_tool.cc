// arrow_interop_tool: the chunkwise half of the Arrow IPC interop test.
//
//   arrow_interop_tool write DIR         writes sample IPC files and streams and
//                                        export shards (.arrow + .csv) into DIR
//   arrow_interop_tool dump FILE         prints FILE read by chunkwise's reader as the
//                                        canonical JSON of tests/interop/node/arrow_dump.mjs
//   arrow_interop_tool shard-dump ARROW  prints every chunk of an export shard read through
//                                        its CSV index by ArrowShardReader, as JSON
//                                        {"x,y,z": {labels, supervoxels, block (hex),
//                                        uncompressed_size}}
// Exits 1 with the error on stderr if a read fails.
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "arrow_test_data.h"
#include "chunkwise/io/file.h"
#include "formats/arrow/ipc_reader.h"
#include "formats/arrow/ipc_writer.h"
#include "formats/dvid/arrow_shard_reader.h"
#include "formats/dvid/arrow_shard_writer.h"

namespace chunkwise::formats {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::string Hex(ByteView bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (std::uint8_t byte : bytes) {
    out += kDigits[byte >> 4];
    out += kDigits[byte & 15];
  }
  return out;
}

json MetadataJson(const arrow::Metadata& metadata) {
  json out = json::object();
  for (const arrow::KeyValue& entry : metadata) out[entry.key] = entry.value;
  return out;
}

json FieldJson(const arrow::Field& field) {
  json children = json::array();
  for (const arrow::Field& child : field.children) children.push_back(FieldJson(child));
  const std::string type = field.type == arrow::TypeId::kList ? "list" : arrow::TypeName(field);
  return {{"name", field.name},
          {"type", type},
          {"nullable", field.nullable},
          {"metadata", MetadataJson(field.metadata)},
          {"children", children}};
}

json IntegerJson(arrow::TypeId type, const arrow::ArrayData& array, std::int64_t i) {
  switch (type) {
    case arrow::TypeId::kInt8:
      return std::to_string(arrow::IntegerAt<std::int8_t>(array, i));
    case arrow::TypeId::kInt16:
      return std::to_string(arrow::IntegerAt<std::int16_t>(array, i));
    case arrow::TypeId::kInt32:
      return std::to_string(arrow::IntegerAt<std::int32_t>(array, i));
    case arrow::TypeId::kInt64:
      return std::to_string(arrow::IntegerAt<std::int64_t>(array, i));
    case arrow::TypeId::kUInt8:
      return std::to_string(arrow::IntegerAt<std::uint8_t>(array, i));
    case arrow::TypeId::kUInt16:
      return std::to_string(arrow::IntegerAt<std::uint16_t>(array, i));
    case arrow::TypeId::kUInt32:
      return std::to_string(arrow::IntegerAt<std::uint32_t>(array, i));
    default:
      return std::to_string(arrow::IntegerAt<std::uint64_t>(array, i));
  }
}

json ValueJson(const arrow::Field& field, const arrow::ArrayData& array, std::int64_t i) {
  if (!arrow::IsValid(array, i)) return nullptr;
  if (arrow::IsInteger(field.type)) return IntegerJson(field.type, array, i);
  if (field.type == arrow::TypeId::kBinary) return Hex(arrow::BinaryAt(array, i));
  if (field.type == arrow::TypeId::kUtf8) return std::string(AsChars(arrow::BinaryAt(array, i)));
  json items = json::array();
  for (std::int32_t k = arrow::OffsetAt(array, i); k < arrow::OffsetAt(array, i + 1); ++k) {
    items.push_back(ValueJson(field.children[0], array.children[0], k));
  }
  return items;
}

Result<json> Dump(const fs::path& path) {
  CHUNKWISE_ASSIGN_OR_RETURN(const io::FileKey file, io::LocateFile(path));
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<arrow::ByteSource> source,
                             arrow::OpenStoreSource(file.store, file.key));
  CHUNKWISE_ASSIGN_OR_RETURN(const bool is_file, arrow::IsArrowFile(*source));
  std::vector<arrow::RecordBatch> batches;
  arrow::Schema schema;
  if (is_file) {
    CHUNKWISE_ASSIGN_OR_RETURN(arrow::IpcFileReader reader, arrow::IpcFileReader::Open(source));
    schema = reader.schema();
    for (std::size_t i = 0; i < reader.num_record_batches(); ++i) {
      CHUNKWISE_ASSIGN_OR_RETURN(arrow::RecordBatch batch, reader.ReadRecordBatch(i));
      batches.push_back(std::move(batch));
    }
  } else {
    CHUNKWISE_ASSIGN_OR_RETURN(arrow::IpcStreamReader reader, arrow::IpcStreamReader::Open(source));
    schema = reader.schema();
    while (true) {
      CHUNKWISE_ASSIGN_OR_RETURN(std::optional<arrow::RecordBatch> batch, reader.Next());
      if (!batch.has_value()) break;
      batches.push_back(std::move(*batch));
    }
  }
  json fields = json::array(), rows = json::array(), columns = json::object();
  for (const arrow::Field& field : schema.fields) fields.push_back(FieldJson(field));
  for (std::size_t c = 0; c < schema.fields.size(); ++c) {
    json values = json::array();
    for (const arrow::RecordBatch& batch : batches) {
      for (std::int64_t r = 0; r < batch.num_rows; ++r) {
        values.push_back(ValueJson(schema.fields[c], batch.columns[c], r));
      }
    }
    columns[schema.fields[c].name] = values;
  }
  for (const arrow::RecordBatch& batch : batches) rows.push_back(batch.num_rows);
  return json{{"format", is_file ? "file" : "stream"},
              {"schema", {{"fields", fields}, {"metadata", MetadataJson(schema.metadata)}}},
              {"batches", rows},
              {"columns", columns}};
}

Result<json> ShardDump(const fs::path& path) {
  CHUNKWISE_ASSIGN_OR_RETURN(const io::FileKey file, io::LocateFile(path));
  CHUNKWISE_ASSIGN_OR_RETURN(const dvid::ArrowShardReader reader,
                             dvid::ArrowShardReader::Open(file.store, file.key));
  json out = json::object();
  for (const auto& chunk : reader.ListChunks()) {
    CHUNKWISE_ASSIGN_OR_RETURN(std::optional<dvid::ExportBlock> block,
                               reader.Get(chunk[0], chunk[1], chunk[2]));
    json labels = json::array(), supervoxels = json::array();
    for (std::uint64_t label : block->labels) labels.push_back(std::to_string(label));
    for (std::uint64_t label : block->supervoxels) supervoxels.push_back(std::to_string(label));
    out[std::to_string(chunk[0]) + "," + std::to_string(chunk[1]) + "," +
        std::to_string(chunk[2])] = {
        {"labels", labels},
        {"supervoxels", supervoxels},
        {"block", Hex(block->dvid_compressed_block)},
        {"uncompressed_size", std::to_string(block->uncompressed_size)}};
  }
  return out;
}

Status WriteSamples(const fs::path& dir, arrow::IpcFormat format, const std::string& name) {
  CHUNKWISE_ASSIGN_OR_RETURN(const io::FileKey file, io::LocateFile(dir / name));
  CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<arrow::ByteSink> sink,
                             arrow::CreateStoreSink(file.store, file.key, {.overwrite = true}));
  CHUNKWISE_ASSIGN_OR_RETURN(
      std::unique_ptr<arrow::IpcWriter> writer,
      arrow::IpcWriter::Create(std::move(sink), arrow::testing::SampleSchema(), {format, 8}));
  int seed = 1;
  for (std::int64_t rows : {6, 0, 25, 1}) {
    const arrow::testing::SampleBatch batch(rows, seed++);
    CHUNKWISE_RETURN_IF_ERROR(writer->WriteRecordBatch(batch.View()).status());
  }
  return writer->Finish();
}

// Blocks shaped like DVID's: a palette, mapped labels with repeats and 0, a payload.
dvid::ExportBlock SampleBlock(std::int32_t x, std::int32_t y, std::int32_t z) {
  dvid::ExportBlock block;
  block.chunk_x = x, block.chunk_y = y, block.chunk_z = z;
  const int n = 1 + (x * 7 + y * 3 + z) % 9;
  for (int k = 0; k < n; ++k) {
    block.supervoxels.push_back(0xFEDCBA9876543210ull + static_cast<std::uint64_t>(k * 1000 + x));
    block.labels.push_back(k % 3 == 2 ? 0
                                      : 1000000ull + static_cast<std::uint64_t>((k / 2) * 17 + y));
  }
  for (int i = 0; i < 50 + 13 * (x + y + z); ++i) {
    block.dvid_compressed_block.push_back(static_cast<std::uint8_t>(i * 29 + x));
  }
  block.uncompressed_size = static_cast<std::uint32_t>(16 + 8 * n + 3 * x);
  return block;
}

Status WriteShard(const fs::path& stem, arrow::IpcFormat format, dvid::ChunkIndexForm form) {
  CHUNKWISE_ASSIGN_OR_RETURN(const io::FileKey file, io::LocateFile(stem));
  CHUNKWISE_ASSIGN_OR_RETURN(
      std::unique_ptr<dvid::ArrowShardWriter> writer,
      dvid::ArrowShardWriter::Create(file.store, file.key, {format, form, true}));
  // Written in an order other than the CSV's (z, y, x), as DVID's writers do.
  for (std::int32_t x : {481, 480, 483})
    for (std::int32_t z : {449, 448})
      for (std::int32_t y : {384, 385})
        CHUNKWISE_RETURN_IF_ERROR(writer->Add(SampleBlock(x, y, z)));
  return writer->Finish();
}

Status WriteAll(const fs::path& dir) {
  std::filesystem::create_directories(dir);
  CHUNKWISE_RETURN_IF_ERROR(WriteSamples(dir, arrow::IpcFormat::kFile, "ours-file.arrow"));
  CHUNKWISE_RETURN_IF_ERROR(WriteSamples(dir, arrow::IpcFormat::kStream, "ours-stream.arrows"));
  using Form = dvid::ChunkIndexForm;
  CHUNKWISE_RETURN_IF_ERROR(
      WriteShard(dir / "shard-file-rec", arrow::IpcFormat::kFile, Form::kRecord));
  CHUNKWISE_RETURN_IF_ERROR(
      WriteShard(dir / "shard-file-offsets", arrow::IpcFormat::kFile, Form::kOffsets));
  CHUNKWISE_RETURN_IF_ERROR(
      WriteShard(dir / "shard-stream-rec", arrow::IpcFormat::kStream, Form::kRecord));
  return WriteShard(dir / "shard-stream-offsets", arrow::IpcFormat::kStream, Form::kOffsets);
}

int Run(int argc, char** argv) {
  const std::string mode = argc == 3 ? argv[1] : "";
  if (mode == "write") {
    const Status status = WriteAll(argv[2]);
    if (!status.ok()) std::fprintf(stderr, "%s\n", status.ToString().c_str());
    return status.ok() ? 0 : 1;
  }
  if (mode == "dump" || mode == "shard-dump") {
    const Result<json> out = mode == "dump" ? Dump(argv[2]) : ShardDump(argv[2]);
    if (!out.ok()) {
      std::fprintf(stderr, "%s\n", out.status().ToString().c_str());
      return 1;
    }
    std::printf("%s\n", out->dump().c_str());
    return 0;
  }
  std::fprintf(stderr, "usage: arrow_interop_tool write DIR | dump FILE | shard-dump ARROW\n");
  return 2;
}

}  // namespace
}  // namespace chunkwise::formats

int main(int argc, char** argv) { return chunkwise::formats::Run(argc, argv); }
