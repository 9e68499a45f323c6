#include "codec/codec_chain.h"

#include <cstring>
#include <string>

#include "codec/crc32c_codec.h"

namespace chunkwise::codec {
namespace {

// The payload of a chunk whose chain ends in crc32c, its checksum checked;
// an error is named for the codec, as the chain names each of its steps.
Result<ByteView> VerifiedPayload(ByteView encoded) {
  Result<ByteView> payload = Crc32cCodec::Verify(encoded);
  if (!payload.ok()) return payload.status().WithContext("crc32c");
  return payload;
}

// A chain applies each of its codecs to every chunk, so its length multiplies
// the work of every read; real chains have a handful. A list longer than this
// in metadata is refused before a codec of it is built.
constexpr std::size_t kMaxCodecs = 64;

Status CheckCodecCount(const nlohmann::json& codecs) {
  if (codecs.size() <= kMaxCodecs) return Status::Ok();
  return Status::Corruption("\"codecs\" lists " + std::to_string(codecs.size()) +
                            " codecs (at most " + std::to_string(kMaxCodecs) + ")");
}

// The most any intermediate bytes→bytes step may produce while decoding a chunk
// whose array→bytes form is `bound` bytes: the encoded forms of the outer
// codecs add headers and checksums, and incompressible data grows a little.
std::size_t IntermediateLimit(std::size_t bound) {
  return bound + bound / 8 + (std::size_t{1} << 16);
}

Status AddCodec(const std::shared_ptr<const Codec>& codec, std::size_t position,
                std::vector<std::shared_ptr<const ArrayToArrayCodec>>& array_to_array,
                std::shared_ptr<const ArrayToBytesCodec>& array_to_bytes,
                std::vector<std::shared_ptr<const BytesToBytesCodec>>& bytes_to_bytes) {
  const std::string where =
      "codecs[" + std::to_string(position) + "] \"" + std::string(codec->name()) + "\"";
  switch (codec->kind()) {
    case CodecKind::kArrayToArray:
      if (array_to_bytes != nullptr)
        return Status::InvalidArgument(where + ": array→array codec after the array→bytes codec");
      array_to_array.push_back(std::static_pointer_cast<const ArrayToArrayCodec>(codec));
      return Status::Ok();
    case CodecKind::kArrayToBytes:
      if (array_to_bytes != nullptr)
        return Status::InvalidArgument(where + ": a second array→bytes codec");
      array_to_bytes = std::static_pointer_cast<const ArrayToBytesCodec>(codec);
      return Status::Ok();
    case CodecKind::kBytesToBytes:
      if (array_to_bytes == nullptr)
        return Status::InvalidArgument(where + ": bytes→bytes codec before the array→bytes codec");
      bytes_to_bytes.push_back(std::static_pointer_cast<const BytesToBytesCodec>(codec));
      return Status::Ok();
  }
  return Status::Internal(where + ": unknown codec kind");
}

}  // namespace

Result<CodecChain> CodecChain::FromJson(const nlohmann::json& codecs,
                                        const CodecRegistry& registry) {
  if (!codecs.is_array()) return Status::InvalidArgument("\"codecs\" must be a JSON array");
  CHUNKWISE_RETURN_IF_ERROR(CheckCodecCount(codecs));
  CodecChain chain;
  for (std::size_t i = 0; i < codecs.size(); ++i) {
    CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<const Codec> codec, registry.Create(codecs[i]));
    CHUNKWISE_RETURN_IF_ERROR(
        AddCodec(codec, i, chain.array_to_array_, chain.array_to_bytes_, chain.bytes_to_bytes_));
  }
  if (chain.array_to_bytes_ == nullptr) {
    return Status::InvalidArgument(
        "\"codecs\" has no array→bytes codec (\"bytes\" or \"sharding_indexed\")");
  }
  return chain;
}

Result<CodecChain> CodecChain::BytesOnly(const nlohmann::json& codecs,
                                         const CodecRegistry& registry) {
  if (!codecs.is_array()) return Status::InvalidArgument("a codec list must be a JSON array");
  CHUNKWISE_RETURN_IF_ERROR(CheckCodecCount(codecs));
  CodecChain chain;
  for (std::size_t i = 0; i < codecs.size(); ++i) {
    CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<const Codec> codec, registry.Create(codecs[i]));
    if (codec->kind() != CodecKind::kBytesToBytes) {
      return Status::InvalidArgument("codecs[" + std::to_string(i) + "] \"" +
                                     std::string(codec->name()) + "\" is not a bytes→bytes codec");
    }
    chain.bytes_to_bytes_.push_back(std::static_pointer_cast<const BytesToBytesCodec>(codec));
  }
  return chain;
}

nlohmann::json CodecChain::ToJson() const {
  nlohmann::json codecs = nlohmann::json::array();
  for (const auto& codec : array_to_array_) codecs.push_back(codec->ToJson());
  if (array_to_bytes_ != nullptr) codecs.push_back(array_to_bytes_->ToJson());
  for (const auto& codec : bytes_to_bytes_) codecs.push_back(codec->ToJson());
  return codecs;
}

Result<Bytes> CodecChain::Encode(const ChunkSpec& spec, ByteView data) const {
  CHUNKWISE_CHECK(array_to_bytes_ != nullptr && data.size() == spec.num_bytes());
  ChunkSpec current = spec;
  Bytes staged;
  ByteView view = data;
  for (const auto& codec : array_to_array_) {
    CHUNKWISE_ASSIGN_OR_RETURN(ChunkSpec next, codec->EncodedSpec(current));
    CHUNKWISE_ASSIGN_OR_RETURN(staged, codec->Encode(current, view));
    current = std::move(next);
    view = staged;
  }
  // With `bytes` in host order the first compressor reads the chunk directly.
  if (array_to_bytes_->PassesThrough(current) && !bytes_to_bytes_.empty()) {
    return EncodeBytes(view);
  }
  CHUNKWISE_ASSIGN_OR_RETURN(Bytes encoded, array_to_bytes_->Encode(current, view));
  for (const auto& codec : bytes_to_bytes_) {
    CHUNKWISE_ASSIGN_OR_RETURN(encoded, codec->Encode(encoded));
  }
  return encoded;
}

Result<std::size_t> CodecChain::EncodeInto(const ChunkSpec& spec, ByteView data,
                                           MutableByteView out) const {
  CHUNKWISE_CHECK(array_to_bytes_ != nullptr && data.size() == spec.num_bytes());
  constexpr std::size_t kChecksum = Crc32cCodec::kChecksumSize;
  if (CompressorThenCrc32c(spec) && out.size() >= kChecksum) {
    // Without the compressor's output in a buffer of its own, then copied
    // twice: that cost a sharded zstd write 2-3x (bench/zarr_bench --only checksum).
    Result<std::size_t> size =
        bytes_to_bytes_[0]->EncodeInto(data, out.first(out.size() - kChecksum));
    if (!size.ok()) return size.status().WithContext(std::string(bytes_to_bytes_[0]->name()));
    Crc32cCodec::AppendTo(out, *size);
    return *size + kChecksum;
  }
  if (array_to_array_.empty() && bytes_to_bytes_.size() <= 1 &&
      array_to_bytes_->PassesThrough(spec)) {
    if (bytes_to_bytes_.size() == 1) return bytes_to_bytes_[0]->EncodeInto(data, out);
    if (data.size() <= out.size()) {
      std::memcpy(out.data(), data.data(), data.size());
      return data.size();
    }
  }
  CHUNKWISE_ASSIGN_OR_RETURN(Bytes encoded, Encode(spec, data));
  if (encoded.size() > out.size()) {
    return Status::OutOfRange("an encoded chunk of " + std::to_string(encoded.size()) +
                              " bytes does not fit in " + std::to_string(out.size()));
  }
  std::memcpy(out.data(), encoded.data(), encoded.size());
  return encoded.size();
}

Result<Bytes> CodecChain::Decode(const ChunkSpec& spec, ByteView encoded) const {
  CHUNKWISE_CHECK(array_to_bytes_ != nullptr);
  // The specs each array→array codec sees, innermost last.
  std::vector<ChunkSpec> specs{spec};
  for (const auto& codec : array_to_array_) {
    CHUNKWISE_ASSIGN_OR_RETURN(ChunkSpec next, codec->EncodedSpec(specs.back()));
    specs.push_back(std::move(next));
  }
  CHUNKWISE_ASSIGN_OR_RETURN(Bytes bytes,
                             DecodeBytes(encoded, array_to_bytes_->MaxEncodedSize(specs.back())));
  Bytes decoded;
  if (array_to_bytes_->PassesThrough(specs.back()) && bytes.size() == specs.back().num_bytes()) {
    decoded = std::move(bytes);
  } else {
    CHUNKWISE_ASSIGN_OR_RETURN(decoded, array_to_bytes_->Decode(specs.back(), bytes));
  }
  for (std::size_t i = array_to_array_.size(); i-- > 0;) {
    CHUNKWISE_ASSIGN_OR_RETURN(decoded, array_to_array_[i]->Decode(specs[i], decoded));
  }
  if (decoded.size() != spec.num_bytes()) {
    return Status::Corruption("decoded chunk has " + std::to_string(decoded.size()) +
                              " bytes, expected " + std::to_string(spec.num_bytes()));
  }
  return decoded;
}

bool CodecChain::OneCompressorOnly(const ChunkSpec& spec) const {
  return array_to_array_.empty() && bytes_to_bytes_.size() == 1 &&
         array_to_bytes_->PassesThrough(spec);
}

bool CodecChain::CompressorThenCrc32c(const ChunkSpec& spec) const {
  return array_to_array_.empty() && bytes_to_bytes_.size() == 2 &&
         bytes_to_bytes_[1]->name() == "crc32c" && array_to_bytes_->PassesThrough(spec);
}

Status CodecChain::DecodeFirstInto(ByteView encoded, MutableByteView out) const {
  Result<std::size_t> written = bytes_to_bytes_[0]->DecodeInto(encoded, out);
  if (!written.ok()) return written.status().WithContext(std::string(bytes_to_bytes_[0]->name()));
  if (*written == out.size()) return Status::Ok();
  return Status::Corruption("decoded chunk has " + std::to_string(*written) + " bytes, expected " +
                            std::to_string(out.size()));
}

Status CodecChain::DecodeInto(const ChunkSpec& spec, ByteView encoded, MutableByteView out) const {
  CHUNKWISE_CHECK(array_to_bytes_ != nullptr && out.size() == spec.num_bytes());
  if (OneCompressorOnly(spec)) return DecodeFirstInto(encoded, out);
  if (CompressorThenCrc32c(spec)) {
    CHUNKWISE_ASSIGN_OR_RETURN(const ByteView payload, VerifiedPayload(encoded));
    return DecodeFirstInto(payload, out);
  }
  CHUNKWISE_ASSIGN_OR_RETURN(Bytes decoded, Decode(spec, encoded));
  std::memcpy(out.data(), decoded.data(), decoded.size());
  return Status::Ok();
}

Status CodecChain::DecodeRegion(const ChunkSpec& spec, ByteView encoded, const core::Region& box,
                                const core::StridedDestination& target, Bytes& scratch) const {
  CHUNKWISE_CHECK(array_to_bytes_ != nullptr);
  const bool checksummed = CompressorThenCrc32c(spec);
  if (checksummed || OneCompressorOnly(spec)) {
    if (checksummed) {
      CHUNKWISE_ASSIGN_OR_RETURN(encoded, VerifiedPayload(encoded));
    }
    Result<bool> in_place = bytes_to_bytes_[0]->DecodeIntoRegion(encoded, spec, box, target);
    if (!in_place.ok()) {
      return in_place.status().WithContext(std::string(bytes_to_bytes_[0]->name()));
    }
    if (*in_place) return Status::Ok();
    scratch.resize(spec.num_bytes());
    CHUNKWISE_RETURN_IF_ERROR(DecodeFirstInto(encoded, scratch));
  } else {  // The codecs decode through buffers of their own: keep the last.
    CHUNKWISE_ASSIGN_OR_RETURN(scratch, Decode(spec, encoded));
  }
  core::CopyStridedRegion({scratch.data(), spec.shape, box.start()}, target, box.shape(),
                          spec.dtype.size());
  return Status::Ok();
}

std::size_t CodecChain::MaxEncodedSize(const ChunkSpec& spec) const {
  CHUNKWISE_CHECK(array_to_bytes_ != nullptr);
  ChunkSpec current = spec;
  for (const auto& codec : array_to_array_) {
    Result<ChunkSpec> next = codec->EncodedSpec(current);
    if (!next.ok()) break;  // Encoding would fail; the array→bytes bound still stands.
    current = std::move(next).value();
  }
  std::size_t bound = array_to_bytes_->MaxEncodedSize(current);
  for (std::size_t i = 0; i < bytes_to_bytes_.size(); ++i) bound = IntermediateLimit(bound);
  return bound;
}

Result<Bytes> CodecChain::EncodeBytes(ByteView data) const {
  // The first codec reads the caller's bytes directly; only an empty chain copies.
  if (bytes_to_bytes_.empty()) return CopyToBytes(data);
  CHUNKWISE_ASSIGN_OR_RETURN(Bytes encoded, bytes_to_bytes_.front()->Encode(data));
  for (std::size_t i = 1; i < bytes_to_bytes_.size(); ++i) {
    CHUNKWISE_ASSIGN_OR_RETURN(encoded, bytes_to_bytes_[i]->Encode(encoded));
  }
  return encoded;
}

Result<Bytes> CodecChain::DecodeBytes(ByteView encoded, std::size_t max_decoded_bytes) const {
  if (bytes_to_bytes_.empty()) {
    if (encoded.size() > max_decoded_bytes) {
      return Status::OutOfRange("value of " + std::to_string(encoded.size()) +
                                " bytes exceeds the limit of " + std::to_string(max_decoded_bytes));
    }
    return CopyToBytes(encoded);
  }
  Bytes decoded;
  ByteView view = encoded;
  for (std::size_t i = bytes_to_bytes_.size(); i-- > 0;) {
    const std::size_t limit = i == 0 ? max_decoded_bytes : IntermediateLimit(max_decoded_bytes);
    Result<Bytes> step = bytes_to_bytes_[i]->Decode(view, limit);
    if (!step.ok()) return step.status().WithContext(std::string(bytes_to_bytes_[i]->name()));
    decoded = std::move(step).value();
    view = decoded;
  }
  return decoded;
}

}  // namespace chunkwise::codec
