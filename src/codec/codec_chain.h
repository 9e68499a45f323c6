// CodecChain: a zarr v3 `codecs` list as plain data, and the one object that
// encodes and decodes a chunk through it.
//
// Spec: docs/formats/zarr.md, "Codec pipeline". A chain is zero or more
// array→array codecs, exactly one array→bytes codec, then zero or more
// bytes→bytes codecs; encoding runs them in order, decoding in reverse. A
// bytes-only chain (no array codecs) encodes whole files or blobs. Chains are
// immutable and thread-safe; build one per array and share it.
#ifndef CHUNKWISE_CODEC_CODEC_CHAIN_H_
#define CHUNKWISE_CODEC_CODEC_CHAIN_H_

#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "codec/codec.h"
#include "codec/codec_registry.h"

namespace chunkwise::codec {

class CodecChain {
 public:
  // Parses a zarr v3 `codecs` array. InvalidArgument unless the kinds come in
  // the order a2a*, a2b, b2b*; Unsupported for an unknown codec name.
  static Result<CodecChain> FromJson(const nlohmann::json& codecs, const CodecRegistry& registry);
  // Parses a list of bytes→bytes codecs only (an empty list is the identity).
  static Result<CodecChain> BytesOnly(const nlohmann::json& codecs, const CodecRegistry& registry);

  // The `codecs` array, as written to zarr.json.
  nlohmann::json ToJson() const;
  bool bytes_only() const { return array_to_bytes_ == nullptr; }
  const std::vector<std::shared_ptr<const BytesToBytesCodec>>& bytes_codecs() const {
    return bytes_to_bytes_;
  }
  const ArrayToBytesCodec* array_to_bytes() const { return array_to_bytes_.get(); }

  // Encodes one chunk of `spec` (C order, host byte order).
  // REQUIRES: !bytes_only() and data.size() == spec.num_bytes().
  Result<Bytes> Encode(const ChunkSpec& spec, ByteView data) const;
  // As Encode, into `out`; returns the encoded size, OutOfRange if it does
  // not fit (MaxEncodedSize(spec) bytes always do). Chains of host-order
  // `bytes` and at most one compressor write straight into `out`.
  Result<std::size_t> EncodeInto(const ChunkSpec& spec, ByteView data, MutableByteView out) const;
  // Decodes one chunk; the result has exactly spec.num_bytes() bytes, or the
  // call fails with Corruption. No step produces more than the chunk could need.
  Result<Bytes> Decode(const ChunkSpec& spec, ByteView encoded) const;

  // As Decode, into `out`, which holds exactly spec.num_bytes() bytes. Chains
  // of `bytes` in host order and one compressor decode straight into `out`;
  // others decode and copy.
  Status DecodeInto(const ChunkSpec& spec, ByteView encoded, MutableByteView out) const;

  // Decodes the elements of `box` (chunk coordinates) into the box of the
  // same shape at target.origin in a larger array. Where the chain is `bytes`
  // in host order and one compressor that can (BytesToBytesCodec::
  // DecodeIntoRegion), straight there, leaving `scratch` alone; otherwise the
  // whole chunk is decoded into `scratch` (resized; a buffer the caller may
  // reuse) and the box copied out of it.
  Status DecodeRegion(const ChunkSpec& spec, ByteView encoded, const core::Region& box,
                      const core::StridedDestination& target, Bytes& scratch) const;

  // The most bytes a valid encoding of a chunk of `spec` through this chain can
  // take. REQUIRES: !bytes_only().
  std::size_t MaxEncodedSize(const ChunkSpec& spec) const;

  // Runs only the bytes→bytes codecs.
  Result<Bytes> EncodeBytes(ByteView data) const;
  // Reverses the bytes→bytes codecs; no step produces more than `max_decoded_bytes`.
  Result<Bytes> DecodeBytes(ByteView encoded, std::size_t max_decoded_bytes) const;

 private:
  // `bytes` in host order, then exactly one bytes→bytes codec: the chunk's
  // bytes are what that codec decodes to.
  bool OneCompressorOnly(const ChunkSpec& spec) const;
  // `bytes` in host order, one bytes→bytes codec, then crc32c (the chain
  // chunkwise gives the arrays it makes): encoded and decoded in the caller's
  // buffer as one compressor is, the checksum appended or checked in place.
  bool CompressorThenCrc32c(const ChunkSpec& spec) const;
  // The first bytes→bytes codec decoding `encoded` into `out` (the whole chunk).
  Status DecodeFirstInto(ByteView encoded, MutableByteView out) const;

  std::vector<std::shared_ptr<const ArrayToArrayCodec>> array_to_array_;
  std::shared_ptr<const ArrayToBytesCodec> array_to_bytes_;
  std::vector<std::shared_ptr<const BytesToBytesCodec>> bytes_to_bytes_;
};

}  // namespace chunkwise::codec

#endif  // CHUNKWISE_CODEC_CODEC_CHAIN_H_
