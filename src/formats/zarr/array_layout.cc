#include "formats/zarr/array_layout.h"

#include <string>

#include "codec/codec_shorthand.h"
#include "formats/zarr/sharding_codec.h"
#include "metadata_json.h"

namespace chunkwise::formats::zarr {
namespace {

Status CheckShapes(const ArrayLayout& layout) {
  const std::size_t rank = layout.shape.size();
  if (layout.chunk_shape.size() != rank) {
    return Status::InvalidArgument("the chunk shape [" + core::FormatShape(layout.chunk_shape) +
                                   "] has a different rank from the array shape [" +
                                   core::FormatShape(layout.shape) + "]")
        .WithField("chunk_shape");
  }
  for (core::Index extent : layout.chunk_shape) {
    if (extent <= 0)
      return Status::InvalidArgument("the chunk shape's extents must be positive")
          .WithField("chunk_shape");
  }
  if (!layout.dimension_names.empty() && layout.dimension_names.size() != rank) {
    return Status::InvalidArgument("the dimension names are " +
                                   std::to_string(layout.dimension_names.size()) + " names for " +
                                   std::to_string(rank) + " dimensions")
        .WithField("dimension_names");
  }
  if (!layout.shard_shape) return Status::Ok();
  if (layout.zarr_format != 3) {
    return Status::InvalidArgument("sharding needs zarr format 3 (zarr v2 has no sharding)")
        .WithField("zarr_format");
  }
  bool multiple = layout.shard_shape->size() == rank;
  for (std::size_t d = 0; multiple && d < rank; ++d) {
    multiple =
        (*layout.shard_shape)[d] > 0 && (*layout.shard_shape)[d] % layout.chunk_shape[d] == 0;
  }
  if (!multiple) {
    return Status::InvalidArgument("the shard shape [" + core::FormatShape(*layout.shard_shape) +
                                   "] is not a multiple of the chunk shape [" +
                                   core::FormatShape(layout.chunk_shape) + "]")
        .WithField("shard_shape");
  }
  return Status::Ok();
}

nlohmann::json ChunkCodecs(core::DataType data_type, core::Endian endian,
                           const nlohmann::json& bytes_codecs) {
  nlohmann::json codecs = nlohmann::json::array({internal::BytesCodecJson(data_type, endian)});
  for (const auto& codec : bytes_codecs) codecs.push_back(codec);
  return codecs;
}

}  // namespace

Result<ArrayMetadata> BuildArrayMetadataWithCodecs(const ArrayLayout& layout,
                                                   const nlohmann::json& bytes_codecs) {
  CHUNKWISE_RETURN_IF_ERROR(CheckShapes(layout));
  ArrayMetadata metadata;
  metadata.zarr_format = layout.zarr_format;
  metadata.shape = layout.shape;
  metadata.data_type = layout.data_type;
  metadata.chunk_key_encoding =
      layout.zarr_format == 3 ? ChunkKeyEncoding::Default('/') : ChunkKeyEncoding::V2('.');
  metadata.fill_value.assign(layout.data_type.size(), 0);
  if (layout.fill_value) {
    Result<FillValue> fill = ParseFillValueText(*layout.fill_value, layout.data_type);
    if (!fill.ok()) return fill.status().WithField("fill_value");
    metadata.fill_value = std::move(*fill);
  }
  const nlohmann::json chunk_codecs = ChunkCodecs(layout.data_type, layout.endian, bytes_codecs);
  if (layout.shard_shape) {
    metadata.chunk_shape = *layout.shard_shape;
    nlohmann::json sharding = {
        {"name", kShardingCodecName},
        {"configuration",
         {{"chunk_shape", layout.chunk_shape},
          {"codecs", chunk_codecs},
          {"index_codecs", ShardIndexCodecs()},
          {"index_location", layout.index_location == IndexLocation::kStart ? "start" : "end"}}}};
    metadata.codecs = nlohmann::json::array({sharding});
  } else {
    metadata.chunk_shape = layout.chunk_shape;
    metadata.codecs = chunk_codecs;
  }
  metadata.attributes =
      layout.attributes.is_object() ? layout.attributes : nlohmann::json::object();
  if (!layout.dimension_names.empty()) {
    nlohmann::json names = nlohmann::json::array();
    for (const std::optional<std::string>& name : layout.dimension_names) {
      names.push_back(name ? nlohmann::json(*name) : nlohmann::json());
    }
    metadata.dimension_names = std::move(names);
  }
  CHUNKWISE_RETURN_IF_ERROR(metadata.Validate());
  if (metadata.zarr_format == 2) CHUNKWISE_RETURN_IF_ERROR(FormatV2Zarray(metadata).status());
  return metadata;
}

Result<ArrayMetadata> BuildArrayMetadata(const ArrayLayout& layout) {
  if (layout.zarr_format != 2 && layout.zarr_format != 3) {
    return Status::InvalidArgument("the zarr format must be 2 or 3").WithField("zarr_format");
  }
  Result<nlohmann::json> bytes_codecs =
      codec::ParseCodecShorthand(layout.codec, layout.data_type.size());
  if (!bytes_codecs.ok())
    return bytes_codecs.status().WithContext("the codecs").WithField("codecs");
  return BuildArrayMetadataWithCodecs(layout, *bytes_codecs);
}

ExistingLayout DescribeLayout(const ArrayMetadata& metadata) {
  ExistingLayout layout;
  layout.chunk_shape = metadata.chunk_shape;
  nlohmann::json codecs = metadata.codecs;
  if (codecs.size() == 1 && codecs[0].value("name", std::string()) == kShardingCodecName) {
    const nlohmann::json configuration = codecs[0].value("configuration", nlohmann::json::object());
    layout.shard_shape = metadata.chunk_shape;
    layout.chunk_shape = configuration.value("chunk_shape", metadata.chunk_shape);
    codecs = configuration.value("codecs", nlohmann::json::array());
  }
  layout.bytes_codecs = nlohmann::json::array();
  bool after_bytes = false;
  for (const auto& codec : codecs) {
    if (after_bytes) layout.bytes_codecs.push_back(codec);
    if (codec.is_object() && codec.value("name", std::string()) == "bytes") {
      after_bytes = true;
      const nlohmann::json configuration = codec.value("configuration", nlohmann::json::object());
      if (configuration.is_object() && configuration.value("endian", std::string()) == "big") {
        layout.endian = core::Endian::kBig;
      }
    }
  }
  return layout;
}

}  // namespace chunkwise::formats::zarr
