#include "formats/vectors/blob_array.h"

#include "codec/codec_chain.h"
#include "formats/zarr/array_metadata.h"

namespace chunkwise::formats::vectors {
namespace {

const codec::CodecRegistry& Registry() {
  static const codec::CodecRegistry registry = codec::CodecRegistry::WithBuiltins();
  return registry;
}

nlohmann::json BlobCodecs(int zstd_level) {
  return nlohmann::json::array(
      {{{"name", "bytes"}},
       {{"name", "zstd"}, {"configuration", {{"level", zstd_level}, {"checksum", false}}}}});
}

codec::ChunkSpec BlobSpec(std::size_t size) {
  return codec::ChunkSpec{core::DataType(core::DataTypeId::kUInt8),
                          {static_cast<std::int64_t>(size)}};
}

}  // namespace

Result<std::shared_ptr<const codec::CodecChain>> BlobChains::For(const nlohmann::json& codecs) {
  const std::string text = codecs.dump();
  std::lock_guard lock(mutex_);
  if (auto found = chains_.find(text); found != chains_.end()) return found->second;
  CHUNKWISE_ASSIGN_OR_RETURN(codec::CodecChain chain,
                             codec::CodecChain::FromJson(codecs, Registry()));
  auto shared = std::make_shared<const codec::CodecChain>(std::move(chain));
  if (chains_.size() < 64) chains_.emplace(text, shared);
  return shared;
}

Result<EncodedBlobArray> EncodeBlobArray(ByteView blob, int zstd_level, BlobChains& chains) {
  zarr::ArrayMetadata metadata;
  metadata.shape = {static_cast<core::Index>(blob.size())};
  metadata.chunk_shape = metadata.shape;
  metadata.data_type = core::DataType(core::DataTypeId::kUInt8);
  metadata.chunk_key_encoding = zarr::ChunkKeyEncoding::Default('/');
  metadata.fill_value = {0};
  metadata.codecs = BlobCodecs(zstd_level);
  CHUNKWISE_ASSIGN_OR_RETURN(auto chain, chains.For(metadata.codecs));
  CHUNKWISE_ASSIGN_OR_RETURN(Bytes chunk, chain->Encode(BlobSpec(blob.size()), blob));
  return EncodedBlobArray{zarr::FormatV3ArrayMetadata(metadata), std::move(chunk)};
}

Result<Bytes> DecodeBlobArray(std::string_view metadata_text, ByteView chunk, std::string_view key,
                              BlobChains& chains) {
  CHUNKWISE_ASSIGN_OR_RETURN(zarr::ArrayMetadata metadata,
                             zarr::ParseV3ArrayMetadata(metadata_text, key));
  if (metadata.shape.size() != 1 || metadata.data_type.id() != core::DataTypeId::kUInt8 ||
      metadata.chunk_shape != metadata.shape) {
    return Status::InvalidArgument(std::string(key) +
                                   ": a blob must be a 1-D uint8 array stored as one chunk");
  }
  const auto chain = chains.For(metadata.codecs);
  if (!chain.ok()) return chain.status().WithContext(key);
  Result<Bytes> decoded = (*chain)->Decode(BlobSpec(metadata.shape[0]), chunk);
  if (!decoded.ok()) return decoded.status().WithContext(key);
  return decoded;
}

}  // namespace chunkwise::formats::vectors
