// The three codec interfaces of the zarr v3 codec pipeline.
//
// Spec: docs/formats/zarr.md, "Codec pipeline". A zarr chunk is encoded by zero
// or more array→array codecs, exactly one array→bytes codec, then zero or more
// bytes→bytes codecs. Each codec knows its zarr name and writes its own JSON,
// so a chain read from `zarr.json` is written back unchanged.
//
// Every Decode is safe on untrusted input: it rejects malformed bytes with
// Corruption, never reads outside its input, and never produces (or allocates
// for) more than the caller's `max_decoded_bytes` (OutOfRange otherwise).
// Codec objects are immutable once created, and every method is thread-safe.
#ifndef CHUNKWISE_CODEC_CODEC_H_
#define CHUNKWISE_CODEC_CODEC_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/data_type.h"
#include "chunkwise/core/region.h"
#include "chunkwise/core/result.h"
#include "core/ravel.h"

namespace chunkwise::codec {

enum class CodecKind { kArrayToArray, kArrayToBytes, kBytesToBytes };

// What an array codec needs to know of a decoded chunk: element type, shape and
// the array's fill value (the sharding codec leaves chunks equal to it out).
// Decoded chunk bytes are always C order in host byte order.
struct ChunkSpec {
  core::DataType dtype;
  std::vector<std::int64_t> shape;
  // One element in host byte order; empty means all zero bytes.
  std::vector<std::uint8_t> fill_value = {};

  std::size_t num_elements() const;
  std::size_t num_bytes() const { return num_elements() * dtype.size(); }
  bool operator==(const ChunkSpec&) const = default;
};

class Codec {
 public:
  virtual ~Codec() = default;
  // The zarr v3 name, e.g. "zstd".
  virtual std::string_view name() const = 0;
  virtual CodecKind kind() const = 0;
  // {"name": ..., "configuration": {...}} as zarr v3 writes it.
  virtual nlohmann::json ToJson() const = 0;
};

class BytesToBytesCodec : public Codec {
 public:
  CodecKind kind() const final { return CodecKind::kBytesToBytes; }
  // Encodes `decoded`. Fails only on inputs the format cannot hold (e.g. over 2 GiB for blosc).
  // The result's capacity may exceed its size (compressors write into their
  // worst-case bound); call shrink_to_fit() before holding many results.
  virtual Result<Bytes> Encode(ByteView decoded) const = 0;
  // Encodes `decoded` into `out` and returns the encoded size; OutOfRange if
  // it does not fit. Lets a writer compress into buffers it reuses; the
  // default encodes and copies.
  virtual Result<std::size_t> EncodeInto(ByteView decoded, MutableByteView out) const;
  // Decodes `encoded`: Corruption on malformed input, OutOfRange if the result
  // would exceed `max_decoded_bytes`.
  virtual Result<Bytes> Decode(ByteView encoded, std::size_t max_decoded_bytes) const = 0;
  // Decodes `encoded` into `out` and returns the decoded size; OutOfRange if it
  // would not fit. Saves the allocation of Decode when the caller reuses a
  // buffer; the default decodes and copies.
  virtual Result<std::size_t> DecodeInto(ByteView encoded, MutableByteView out) const;
  // Decodes the elements of `box` (in the chunk's coordinates) of `encoded`,
  // a C-order chunk of `spec`, straight into the box of the same shape at
  // target.origin in a larger array, where the codec can do so without a
  // chunk-sized buffer and a copy out of it (and may then decode only the
  // parts the box needs). Returns false, having written nothing, where it
  // cannot (the default); the caller then decodes and copies. On an error
  // the box may be partly written.
  // REQUIRES: `box` lies inside spec.shape, and its shape at target.origin
  // inside target.shape.
  virtual Result<bool> DecodeIntoRegion(ByteView encoded, const ChunkSpec& spec,
                                        const core::Region& box,
                                        const core::StridedDestination& target) const;
};

class ArrayToArrayCodec : public Codec {
 public:
  CodecKind kind() const final { return CodecKind::kArrayToArray; }
  // The spec of the encoded array for a decoded one; InvalidArgument if this codec
  // cannot apply (e.g. a transpose order of the wrong rank).
  virtual Result<ChunkSpec> EncodedSpec(const ChunkSpec& decoded) const = 0;
  // REQUIRES: data.size() == decoded.num_bytes().
  virtual Result<Bytes> Encode(const ChunkSpec& decoded, ByteView data) const = 0;
  // `decoded` is the spec of the result; Corruption if encoded has the wrong size.
  virtual Result<Bytes> Decode(const ChunkSpec& decoded, ByteView encoded) const = 0;
};

class ArrayToBytesCodec : public Codec {
 public:
  CodecKind kind() const final { return CodecKind::kArrayToBytes; }
  // REQUIRES: data.size() == spec.num_bytes().
  virtual Result<Bytes> Encode(const ChunkSpec& spec, ByteView data) const = 0;
  // Returns exactly spec.num_bytes() bytes, or Corruption.
  virtual Result<Bytes> Decode(const ChunkSpec& spec, ByteView encoded) const = 0;
  // True when Encode and Decode would return their input unchanged for `spec`
  // (the `bytes` codec in host byte order), so a chain may skip the copy.
  virtual bool PassesThrough(const ChunkSpec& spec) const { return false; }
  // The most bytes a valid encoding of a chunk of `spec` can take: what a
  // chain lets the bytes→bytes codecs before it produce. num_bytes() suits a
  // codec that writes the elements as they are; a container (sharding) adds
  // its index and its inner codecs' overhead.
  virtual std::size_t MaxEncodedSize(const ChunkSpec& spec) const { return spec.num_bytes(); }
};

}  // namespace chunkwise::codec

#endif  // CHUNKWISE_CODEC_CODEC_H_
