#include "formats/dvid/export_shard_schema.h"

#include <limits>
#include <string>

#include "formats/arrow/byte_copy.h"

namespace chunkwise::formats::dvid {
namespace {

using arrow::Field;
using arrow::TypeId;

arrow::Schema MakeSchema() {
  arrow::Schema schema;
  const auto label_list = [](const char* name) {
    return Field::List(name, Field::Primitive("item", TypeId::kUInt64, /*nullable=*/true),
                       /*nullable=*/false);
  };
  schema.fields = {
      Field::Primitive("chunk_x", TypeId::kInt32, false),
      Field::Primitive("chunk_y", TypeId::kInt32, false),
      Field::Primitive("chunk_z", TypeId::kInt32, false),
      label_list("labels"),
      label_list("supervoxels"),
      Field::Primitive("dvid_compressed_block", TypeId::kBinary, false,
                       {{"compression", "true"}, {"codec", "zstd"}}),
      Field::Primitive("uncompressed_size", TypeId::kUInt32, false),
  };
  return schema;
}

// Whether `count` more items keep a column's end offset within int32.
bool Fits(const std::vector<std::int32_t>& offsets, std::size_t count) {
  return count <=
         static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max() - offsets.back());
}

void AppendOffset(std::vector<std::int32_t>& offsets, std::size_t count) {
  offsets.push_back(offsets.back() + static_cast<std::int32_t>(count));
}

}  // namespace

const arrow::Schema& ExportShardSchema() {
  static const arrow::Schema schema = MakeSchema();
  return schema;
}

Status CheckExportShardSchema(const arrow::Schema& schema, std::string_view name) {
  const arrow::Schema& expected = ExportShardSchema();
  if (schema.fields.size() != expected.fields.size()) {
    return Status::Corruption(
        std::string(name) + ": schema has " + std::to_string(schema.fields.size()) +
        " fields, a DVID export shard has " + std::to_string(expected.fields.size()));
  }
  for (std::size_t i = 0; i < expected.fields.size(); ++i) {
    const Field& have = schema.fields[i];
    const Field& want = expected.fields[i];
    if (have.name != want.name || arrow::TypeName(have) != arrow::TypeName(want)) {
      return Status::Corruption(std::string(name) + ": field " + std::to_string(i) + " is " +
                                have.name + ": " + arrow::TypeName(have) + ", expected " +
                                want.name + ": " + arrow::TypeName(want));
    }
  }
  return Status::Ok();
}

ExportBatchBuilder::ExportBatchBuilder() { Clear(); }

void ExportBatchBuilder::Clear() {
  for (auto* column : {&chunk_x_, &chunk_y_, &chunk_z_}) column->clear();
  for (auto* offsets : {&labels_offsets_, &supervoxels_offsets_, &block_offsets_}) {
    offsets->assign(1, 0);
  }
  labels_.clear();
  supervoxels_.clear();
  blocks_.clear();
  uncompressed_size_.clear();
}

Status ExportBatchBuilder::Add(const ExportBlock& block) {
  if (block.labels.size() != block.supervoxels.size()) {
    return Status::InvalidArgument(
        "export block (" + std::to_string(block.chunk_x) + ", " + std::to_string(block.chunk_y) +
        ", " + std::to_string(block.chunk_z) + "): " + std::to_string(block.labels.size()) +
        " labels but " + std::to_string(block.supervoxels.size()) + " supervoxels");
  }
  if (!Fits(labels_offsets_, block.labels.size()) ||
      !Fits(supervoxels_offsets_, block.supervoxels.size()) ||
      !Fits(block_offsets_, block.dvid_compressed_block.size())) {
    return Status::InvalidArgument("export batch would pass Arrow's 2 GiB column limit");
  }
  AppendOffset(labels_offsets_, block.labels.size());
  AppendOffset(supervoxels_offsets_, block.supervoxels.size());
  AppendOffset(block_offsets_, block.dvid_compressed_block.size());
  chunk_x_.push_back(block.chunk_x);
  chunk_y_.push_back(block.chunk_y);
  chunk_z_.push_back(block.chunk_z);
  labels_.insert(labels_.end(), block.labels.begin(), block.labels.end());
  supervoxels_.insert(supervoxels_.end(), block.supervoxels.begin(), block.supervoxels.end());
  arrow::internal::AppendBytes(blocks_, block.dvid_compressed_block);
  uncompressed_size_.push_back(block.uncompressed_size);
  return Status::Ok();
}

arrow::RecordBatch ExportBatchBuilder::View() const {
  arrow::RecordBatch batch;
  batch.num_rows = size();
  batch.columns.push_back(arrow::IntegerArray<std::int32_t>(chunk_x_));
  batch.columns.push_back(arrow::IntegerArray<std::int32_t>(chunk_y_));
  batch.columns.push_back(arrow::IntegerArray<std::int32_t>(chunk_z_));
  batch.columns.push_back(
      arrow::ListArray(labels_offsets_, arrow::IntegerArray<std::uint64_t>(labels_)));
  batch.columns.push_back(
      arrow::ListArray(supervoxels_offsets_, arrow::IntegerArray<std::uint64_t>(supervoxels_)));
  batch.columns.push_back(arrow::BinaryArray(block_offsets_, blocks_));
  batch.columns.push_back(arrow::IntegerArray<std::uint32_t>(uncompressed_size_));
  return batch;
}

ExportBlock ExportBlockAt(const arrow::RecordBatch& batch, std::int64_t row) {
  ExportBlock block;
  block.chunk_x = arrow::IntegerAt<std::int32_t>(batch.columns[kChunkX], row);
  block.chunk_y = arrow::IntegerAt<std::int32_t>(batch.columns[kChunkY], row);
  block.chunk_z = arrow::IntegerAt<std::int32_t>(batch.columns[kChunkZ], row);
  block.labels = arrow::ListIntegersAt<std::uint64_t>(batch.columns[kLabels], row);
  block.supervoxels = arrow::ListIntegersAt<std::uint64_t>(batch.columns[kSupervoxels], row);
  const ByteView data = arrow::BinaryAt(batch.columns[kDvidCompressedBlock], row);
  block.dvid_compressed_block = arrow::internal::CopyBytes(data);
  block.uncompressed_size = arrow::IntegerAt<std::uint32_t>(batch.columns[kUncompressedSize], row);
  return block;
}

}  // namespace chunkwise::formats::dvid
