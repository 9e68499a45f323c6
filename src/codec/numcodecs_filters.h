// numcodecs' array filters as array→array codecs, under the names zarr-python
// 3 gives them ("numcodecs.delta", ...).
//
// Spec: docs/formats/zarr.md, "numcodecs codecs". Each works element by
// element on the chunk flattened in memory order (C order here: a v2 array of
// order "F" is transposed first), computing as numpy does:
//
//   numcodecs.delta            {"dtype", "astype"?}  first element, then each
//                              element minus the one before (integers wrap);
//                              decoding is the running sum
//   numcodecs.fixedscaleoffset {"offset", "scale", "dtype", "astype"?}
//                              round-half-even((x - offset) * scale); decoding
//                              is enc / scale + offset, truncated to integers
//   numcodecs.quantize         {"digits", "dtype", "astype"?} floats rounded
//                              to a power-of-two step finer than 10^-digits
//   numcodecs.packbits         {} booleans, 8 to a byte, most significant bit
//                              first, after one byte counting the padding bits
//   numcodecs.astype           {"encode_dtype", "decode_dtype"} a numeric cast
//
// Types are NumPy typestrs; "astype" defaults to "dtype". The chunk's element
// type must be the codec's decoded type (InvalidArgument from EncodedSpec
// otherwise). Float16 and complex types are Unsupported. A float that does
// not fit the integer type it is cast to, where numpy leaves the result
// unspecified, is cast as numpy casts it on x86-64 (see CastElements).
// Configurations are written back as they were read, with "astype" filled in.
#ifndef CHUNKWISE_CODEC_NUMCODECS_FILTERS_H_
#define CHUNKWISE_CODEC_NUMCODECS_FILTERS_H_

#include <memory>
#include <string>

#include "codec/codec.h"

namespace chunkwise::codec {

// A typestr as written and the type it names.
struct NumpyType {
  std::string typestr;
  core::DataType type;
};

// Casts n elements of `from` (host order) to `to`, as numpy's astype does:
// integers wrap, floats round to nearest, floats truncate towards zero into
// integers, booleans are nonzero. A float out of an integer type's range
// goes as on x86-64: through int32 for types under 4 bytes and int32, else
// int64, wrapping, with values beyond that (and NaN) the minimum of it. REQUIRES: neither is
// float16 nor complex; in and out hold n elements each.
void CastElements(core::DataType from, const std::uint8_t* in, core::DataType to, std::uint8_t* out,
                  std::size_t n);

class NumcodecsFilter : public ArrayToArrayCodec {
 public:
  Result<ChunkSpec> EncodedSpec(const ChunkSpec& decoded) const override;

 protected:
  NumcodecsFilter(NumpyType dtype, NumpyType astype)
      : dtype_(std::move(dtype)), astype_(std::move(astype)) {}
  // Checks that `spec` holds this codec's decoded type.
  Status CheckDecoded(const ChunkSpec& spec) const;
  // Checks that `encoded` holds the n elements of the encoded type.
  Status CheckEncoded(const ChunkSpec& decoded, ByteView encoded) const;

  NumpyType dtype_;
  NumpyType astype_;
};

class DeltaCodec final : public NumcodecsFilter {
 public:
  // Unsupported for a float type with a different "astype" (numpy's running
  // sum would change type on the way).
  static Result<std::shared_ptr<const DeltaCodec>> FromJson(const nlohmann::json& configuration);
  std::string_view name() const override { return "numcodecs.delta"; }
  nlohmann::json ToJson() const override;
  Result<Bytes> Encode(const ChunkSpec& decoded, ByteView data) const override;
  Result<Bytes> Decode(const ChunkSpec& decoded, ByteView encoded) const override;

 private:
  using NumcodecsFilter::NumcodecsFilter;
};

class FixedScaleOffsetCodec final : public NumcodecsFilter {
 public:
  static Result<std::shared_ptr<const FixedScaleOffsetCodec>> FromJson(
      const nlohmann::json& configuration);
  std::string_view name() const override { return "numcodecs.fixedscaleoffset"; }
  nlohmann::json ToJson() const override;
  Result<Bytes> Encode(const ChunkSpec& decoded, ByteView data) const override;
  Result<Bytes> Decode(const ChunkSpec& decoded, ByteView encoded) const override;

 private:
  FixedScaleOffsetCodec(NumpyType dtype, NumpyType astype, nlohmann::json offset,
                        nlohmann::json scale)
      : NumcodecsFilter(std::move(dtype), std::move(astype)),
        offset_json_(std::move(offset)),
        scale_json_(std::move(scale)) {}
  nlohmann::json offset_json_, scale_json_;  // As written (an integer stays one).
};

class QuantizeCodec final : public NumcodecsFilter {
 public:
  // Unsupported unless dtype and astype are float32 or float64.
  static Result<std::shared_ptr<const QuantizeCodec>> FromJson(const nlohmann::json& configuration);
  std::string_view name() const override { return "numcodecs.quantize"; }
  nlohmann::json ToJson() const override;
  Result<Bytes> Encode(const ChunkSpec& decoded, ByteView data) const override;
  Result<Bytes> Decode(const ChunkSpec& decoded, ByteView encoded) const override;

 private:
  QuantizeCodec(NumpyType dtype, NumpyType astype, int digits)
      : NumcodecsFilter(std::move(dtype), std::move(astype)), digits_(digits) {}
  int digits_;
};

class PackBitsCodec final : public NumcodecsFilter {
 public:
  static Result<std::shared_ptr<const PackBitsCodec>> FromJson(const nlohmann::json& configuration);
  std::string_view name() const override { return "numcodecs.packbits"; }
  nlohmann::json ToJson() const override;
  // bool of any shape → uint8 [1 + ceil(n / 8)].
  Result<ChunkSpec> EncodedSpec(const ChunkSpec& decoded) const override;
  Result<Bytes> Encode(const ChunkSpec& decoded, ByteView data) const override;
  // Corruption unless the padding count is 0..7 and the bits are exactly n.
  Result<Bytes> Decode(const ChunkSpec& decoded, ByteView encoded) const override;

 private:
  PackBitsCodec();
};

class AsTypeCodec final : public NumcodecsFilter {
 public:
  static Result<std::shared_ptr<const AsTypeCodec>> FromJson(const nlohmann::json& configuration);
  std::string_view name() const override { return "numcodecs.astype"; }
  nlohmann::json ToJson() const override;
  Result<Bytes> Encode(const ChunkSpec& decoded, ByteView data) const override;
  Result<Bytes> Decode(const ChunkSpec& decoded, ByteView encoded) const override;

 private:
  using NumcodecsFilter::NumcodecsFilter;
};

}  // namespace chunkwise::codec

#endif  // CHUNKWISE_CODEC_NUMCODECS_FILTERS_H_
