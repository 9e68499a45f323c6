#include "facade/zarr_array_options.h"

#include "codec/blosc_codec.h"
#include "codec/codec_shorthand.h"
#include "facade/zarr_array_access.h"

namespace chunkwise::internal {

namespace zarr = formats::zarr;

Result<zarr::ArrayLayout> LayoutOf(const ZarrArraySpec& spec) {
  zarr::ArrayLayout layout;
  layout.shape = spec.shape;
  layout.data_type = spec.data_type;
  layout.chunk_shape = spec.chunks;
  layout.shard_shape = spec.shards;
  if (spec.codec_documents.is_null()) {
    CHUNKWISE_ASSIGN_OR_RETURN(
        layout.codec,
        CodecsWithChunkChecksum(spec.codecs.ToShorthand(), spec.checksum, spec.zarr_format));
  } else if (spec.checksum.value_or(ChunkChecksum::kNone) != ChunkChecksum::kNone) {
    // The documents are the whole chain as given: a checksum beside them
    // would be dropped without a word.
    return Status::InvalidArgument(
               "a checksum is not added to codec documents given whole; put the crc32c "
               "codec among them")
        .WithField("checksum");
  } else {
    layout.codec = spec.codecs.ToShorthand();
  }
  layout.endian = spec.endian;
  layout.index_location = ToFormat(spec.index_location);
  layout.fill_value = spec.fill_value;
  layout.dimension_names = spec.dimension_names;
  layout.zarr_format = spec.zarr_format;
  layout.attributes = spec.attributes;
  return layout;
}

Result<zarr::ArrayMetadata> MetadataOf(zarr::ArrayLayout& layout, const ZarrArraySpec& spec) {
  if (spec.codec_documents.is_null()) return zarr::BuildArrayMetadata(layout);
  layout.codec = "";
  return zarr::BuildArrayMetadataWithCodecs(layout, spec.codec_documents);
}

Result<zarr::ArrayOptions> ArrayOptionsOf(const Context& context, const store::Store& store,
                                          std::string_view codecs,
                                          const ZarrWriteEncoders& encoders,
                                          const CallOptions& call) {
  zarr::ArrayOptions options;
  CHUNKWISE_ASSIGN_OR_RETURN(options.pool, context.pool_for(store, call));
  options.buffers = context.buffers();
  options.cache = context.chunk_cache();
  options.coalescing = context.read_coalescing();
  if (!encoders.blosc_encoder.empty()) {
    Result<codec::BloscEncoder> encoder = codec::ParseBloscEncoder(encoders.blosc_encoder);
    if (!encoder.ok()) return encoder.status().WithContext("the blosc encoder");
    options.codec_build.blosc_encoder = *encoder;
  }
  if (!codecs.empty()) {
    // The encoder a shorthand picks (e.g. deterministic blosc-lz4) writes the chunks.
    CHUNKWISE_ASSIGN_OR_RETURN(const codec::CodecShorthand shorthand,
                               codec::ParseCodecShorthandWithEncoders(codecs, 1));
    if (shorthand.build.blosc_encoder != codec::BloscEncoder::kCBlosc) {
      options.codec_build = shorthand.build;
    }
  }
  return options;
}

core::ProgressOptions ProgressOptionsOf(const Context& context, const CallOptions& call,
                                        std::string label) {
  core::ProgressOptions progress;
  progress.label = std::move(label);
  progress.mode = call.progress_mode.value_or(context.progress_mode());
  progress.observer = call.observer != nullptr ? call.observer : context.observer();
  return progress;
}

}  // namespace chunkwise::internal
