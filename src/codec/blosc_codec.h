// The zarr v3 `blosc` bytes→bytes codec: one Blosc1 chunk through c-blosc 1.x.
//
// Spec: docs/formats/zarr.md, "Codec pipeline" (configuration) and
// docs/formats/bcolz.md, "Blosc1 chunk format" (chunk format, C API).
// Configuration {"cname", "clevel": 0-9, "shuffle":
// "noshuffle"|"shuffle"|"bitshuffle", "typesize": 1-255, "blocksize": 0 =
// automatic}; `typesize` may be omitted only with noshuffle (it then defaults
// to 1). The codec uses the reentrant `*_ctx` calls with one internal thread,
// so it touches no global blosc state. Decode validates the 16-byte header
// before c-blosc reads the body.
//
// The encoder is a choice outside the JSON: c-blosc (the default), or the
// deterministic blosc-lz4 encoder (codec/deterministic_blosc_lz4.h), whose
// chunks are the same standard format with bytes fixed by the input alone,
// the bytes the CUDA backend produces. Decoding always goes through c-blosc.
#ifndef CHUNKWISE_CODEC_BLOSC_CODEC_H_
#define CHUNKWISE_CODEC_BLOSC_CODEC_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "codec/codec.h"

namespace chunkwise::codec {

// Values are c-blosc's `doshuffle` codes (and zarr v2's integer `shuffle`).
enum class BloscShuffle { kNoShuffle = 0, kShuffle = 1, kBitShuffle = 2 };

// Which encoder writes chunks. kDeterministic supports cname "lz4" with
// shuffle "noshuffle" or "shuffle" and blocksize 0 (its blocks are a fixed
// 64 KiB); clevel 0 stores chunks uncompressed, any other clevel compresses
// the same way.
enum class BloscEncoder { kCBlosc, kDeterministic };

// "c-blosc" or "deterministic" (the CLI's --blosc-encoder); InvalidArgument otherwise.
Result<BloscEncoder> ParseBloscEncoder(std::string_view text);

struct BloscOptions {
  std::string cname = "lz4";  // "lz4", "lz4hc", "blosclz", "zstd", "snappy" or "zlib".
  int clevel = 5;             // 0 (stored) to 9.
  BloscShuffle shuffle = BloscShuffle::kShuffle;
  int typesize = 1;                              // Element size the shuffle works on, 1 to 255.
  std::size_t blocksize = 0;                     // Bytes per block; 0 lets c-blosc choose.
  BloscEncoder encoder = BloscEncoder::kCBlosc;  // Not part of the JSON.
};

// The compressor names this build of c-blosc supports, e.g. {"blosclz", "lz4", ...}.
std::vector<std::string> BloscCompressors();

class BloscCodec final : public BytesToBytesCodec {
 public:
  // InvalidArgument if a field is out of range, `cname` is not compiled into
  // c-blosc, or the deterministic encoder is asked for what it does not support.
  static Result<std::shared_ptr<const BloscCodec>> Create(BloscOptions options);
  // InvalidArgument naming the field on missing, unknown or bad fields.
  static Result<std::shared_ptr<const BloscCodec>> FromJson(
      const nlohmann::json& configuration, BloscEncoder encoder = BloscEncoder::kCBlosc);

  const BloscOptions& options() const { return options_; }

  std::string_view name() const override { return "blosc"; }
  // Writes all five fields.
  nlohmann::json ToJson() const override;
  // OutOfRange if decoded.size() > INT_MAX - 16, the Blosc1 limit.
  Result<Bytes> Encode(ByteView decoded) const override;
  Result<std::size_t> EncodeInto(ByteView decoded, MutableByteView out) const override;
  // Corruption on a malformed chunk, Unsupported on a Blosc2 chunk, OutOfRange
  // if its header claims more than `max_decoded_bytes`.
  Result<Bytes> Decode(ByteView encoded, std::size_t max_decoded_bytes) const override;
  Result<std::size_t> DecodeInto(ByteView encoded, MutableByteView out) const override;
  // LZ4 chunks (the common case) decode row by row into the region, only
  // the blocks the box meets; others (other compressors, bit shuffle, blocks
  // of partial rows) are left to DecodeInto.
  Result<bool> DecodeIntoRegion(ByteView encoded, const ChunkSpec& spec, const core::Region& box,
                                const core::StridedDestination& target) const override;

 private:
  explicit BloscCodec(BloscOptions options) : options_(std::move(options)) {}

  BloscOptions options_;
};

}  // namespace chunkwise::codec

#endif  // CHUNKWISE_CODEC_BLOSC_CODEC_H_
