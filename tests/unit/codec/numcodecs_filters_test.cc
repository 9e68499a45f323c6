#include "codec/numcodecs_filters.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <vector>

#include "codec/codec_chain.h"
#include "codec/codec_registry.h"

namespace chunkwise::codec {
namespace {

using core::DataType;
using core::DataTypeId;
using nlohmann::json;

std::shared_ptr<const ArrayToArrayCodec> Make(const json& codec_json) {
  Result<std::shared_ptr<const Codec>> codec = CodecRegistry::WithBuiltins().Create(codec_json);
  CHUNKWISE_CHECK(codec.ok());
  return std::dynamic_pointer_cast<const ArrayToArrayCodec>(*codec);
}

template <typename T>
Bytes BytesOf(const std::vector<T>& values) {
  Bytes bytes(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

template <typename T>
std::vector<T> ValuesOf(ByteView bytes) {
  std::vector<T> values(bytes.size() / sizeof(T));
  if (!values.empty()) std::memcpy(values.data(), bytes.data(), bytes.size());
  return values;
}

ChunkSpec Spec(DataTypeId id, std::int64_t n) { return {DataType(id), {n}}; }

TEST(NumcodecsDelta, KnownValues) {
  // numcodecs.Delta('<i2', astype='<i1').encode(arange(100, 120, 2)).
  const auto delta =
      Make({{"name", "numcodecs.delta"}, {"configuration", {{"dtype", "<i2"}, {"astype", "<i1"}}}});
  std::vector<std::int16_t> values;
  for (int v = 100; v < 120; v += 2) values.push_back(static_cast<std::int16_t>(v));
  const ChunkSpec spec = Spec(DataTypeId::kInt16, 10);
  EXPECT_EQ(delta->EncodedSpec(spec)->dtype, DataType(DataTypeId::kInt8));
  const Result<Bytes> encoded = delta->Encode(spec, BytesOf(values));
  ASSERT_TRUE(encoded.ok());
  EXPECT_EQ(ValuesOf<std::int8_t>(*encoded),
            (std::vector<std::int8_t>{100, 2, 2, 2, 2, 2, 2, 2, 2, 2}));
  EXPECT_EQ(ValuesOf<std::int16_t>(*delta->Decode(spec, *encoded)), values);
  // Unsigned differences are summed zero-extended, as numpy's cumsum does:
  // Delta('<i4', astype='|u1') turns [5, 3, -2, 100] into [5, 254, 251, 102]
  // and back into [5, 259, 510, 612].
  const auto narrow =
      Make({{"name", "numcodecs.delta"}, {"configuration", {{"dtype", "<i4"}, {"astype", "|u1"}}}});
  const ChunkSpec four = Spec(DataTypeId::kInt32, 4);
  const Bytes small = *narrow->Encode(four, BytesOf(std::vector<std::int32_t>{5, 3, -2, 100}));
  EXPECT_EQ(small, (Bytes{5, 254, 251, 102}));
  EXPECT_EQ(ValuesOf<std::int32_t>(*narrow->Decode(four, small)),
            (std::vector<std::int32_t>{5, 259, 510, 612}));
}

TEST(NumcodecsDelta, WrapsAndRoundTrips) {
  const auto delta = Make({{"name", "numcodecs.delta"}, {"configuration", {{"dtype", "<i8"}}}});
  const std::vector<std::int64_t> values = {std::numeric_limits<std::int64_t>::min(), 7,
                                            std::numeric_limits<std::int64_t>::max(), -1};
  const ChunkSpec spec = Spec(DataTypeId::kInt64, 4);
  EXPECT_EQ(ValuesOf<std::int64_t>(*delta->Decode(spec, *delta->Encode(spec, BytesOf(values)))),
            values);
  const auto floats = Make({{"name", "numcodecs.delta"}, {"configuration", {{"dtype", "<f4"}}}});
  const std::vector<float> samples = {1.5f, 2.25f, -3.0f, 8.0f};
  const ChunkSpec float_spec = Spec(DataTypeId::kFloat32, 4);
  EXPECT_EQ(ValuesOf<float>(*floats->Encode(float_spec, BytesOf(samples))),
            (std::vector<float>{1.5f, 0.75f, -5.25f, 11.0f}));
  EXPECT_EQ(
      ValuesOf<float>(*floats->Decode(float_spec, *floats->Encode(float_spec, BytesOf(samples)))),
      samples);
  // The chunk must be of the codec's type; a short encoding is corrupt.
  EXPECT_EQ(delta->EncodedSpec(Spec(DataTypeId::kInt32, 4)).status().code(),
            StatusCode::kInvalidArgument)
      << delta->EncodedSpec(Spec(DataTypeId::kInt32, 4)).status().ToString();
  EXPECT_EQ(delta->Decode(spec, Bytes(31)).status().code(), StatusCode::kCorruption);
  EXPECT_EQ(CodecRegistry::WithBuiltins()
                .Create({{"name", "numcodecs.delta"},
                         {"configuration", {{"dtype", "<f8"}, {"astype", "<f4"}}}})
                .status()
                .code(),
            StatusCode::kUnsupported);
  EXPECT_EQ(CodecRegistry::WithBuiltins()
                .Create({{"name", "numcodecs.delta"}, {"configuration", {{"dtype", "<f2"}}}})
                .status()
                .code(),
            StatusCode::kUnsupported);
}

TEST(NumcodecsFixedScaleOffset, KnownValues) {
  // The numcodecs docstring's example: linspace(1000, 1001, 10) with offset
  // 1000, scale 10 into uint8 is [0, 1, 2, 3, 4, 6, 7, 8, 9, 10].
  const auto codec = Make(
      {{"name", "numcodecs.fixedscaleoffset"},
       {"configuration", {{"offset", 1000}, {"scale", 10}, {"dtype", "<f8"}, {"astype", "|u1"}}}});
  std::vector<double> values;
  for (int i = 0; i < 10; ++i) values.push_back(1000.0 + i / 9.0);
  const ChunkSpec spec = Spec(DataTypeId::kFloat64, 10);
  const Result<Bytes> encoded = codec->Encode(spec, BytesOf(values));
  ASSERT_TRUE(encoded.ok());
  EXPECT_EQ(*encoded, (Bytes{0, 1, 2, 3, 4, 6, 7, 8, 9, 10}));
  const std::vector<double> decoded = ValuesOf<double>(*codec->Decode(spec, *encoded));
  const std::vector<double> expected = {1000.0, 1000.1, 1000.2, 1000.3, 1000.4,
                                        1000.6, 1000.7, 1000.8, 1000.9, 1001.0};
  EXPECT_EQ(decoded, expected);
  // Written back as it was read: integers stay integers.
  EXPECT_EQ(codec->ToJson()["configuration"]["offset"], json(1000));
  // Out of range as numpy on x86-64 (numcodecs 0.11 and 0.17 give these):
  // through int32, wrapping, and INT32_MIN beyond it.
  const std::vector<double> wild = {-5000.0, 1e9, std::numeric_limits<double>::quiet_NaN()};
  EXPECT_EQ(*codec->Encode(Spec(DataTypeId::kFloat64, 3), BytesOf(wild)), (Bytes{160, 0, 0}));
  // numpy: [-1.0, -25.0, 3e9] as uint32 is [4294967295, 4294967271, 3000000000].
  std::vector<std::uint32_t> wide(3);
  CastElements(DataType(DataTypeId::kFloat64),
               BytesOf(std::vector<double>{-1.0, -25.0, 3e9}).data(), DataType(DataTypeId::kUInt32),
               reinterpret_cast<std::uint8_t*>(wide.data()), 3);
  EXPECT_EQ(wide, (std::vector<std::uint32_t>{4294967295u, 4294967271u, 3000000000u}));
  // Integer data with an integer offset: numpy's integer arithmetic is not reproduced.
  EXPECT_EQ(CodecRegistry::WithBuiltins()
                .Create({{"name", "numcodecs.fixedscaleoffset"},
                         {"configuration", {{"offset", 3}, {"scale", 2.0}, {"dtype", "<i4"}}}})
                .status()
                .code(),
            StatusCode::kUnsupported);
}

TEST(NumcodecsQuantize, KnownValues) {
  // numcodecs.Quantize(1, '<f8') and Quantize(2, '<f4') of linspace(0, 1, 10).
  const auto one =
      Make({{"name", "numcodecs.quantize"}, {"configuration", {{"digits", 1}, {"dtype", "<f8"}}}});
  std::vector<double> values;
  std::vector<float> floats;
  for (int i = 0; i < 10; ++i) {
    values.push_back(i / 9.0);
    floats.push_back(static_cast<float>(i) / 9.0f);
  }
  const ChunkSpec spec = Spec(DataTypeId::kFloat64, 10);
  const Bytes encoded = *one->Encode(spec, BytesOf(values));
  EXPECT_EQ(ValuesOf<double>(encoded), (std::vector<double>{0.0, 0.125, 0.25, 0.3125, 0.4375,
                                                            0.5625, 0.6875, 0.75, 0.875, 1.0}));
  EXPECT_EQ(*one->Decode(spec, encoded), encoded);
  const auto two =
      Make({{"name", "numcodecs.quantize"}, {"configuration", {{"digits", 2}, {"dtype", "<f4"}}}});
  EXPECT_EQ(ValuesOf<float>(*two->Encode(Spec(DataTypeId::kFloat32, 10), BytesOf(floats))),
            (std::vector<float>{0.0f, 0.109375f, 0.21875f, 0.3359375f, 0.4453125f, 0.5546875f,
                                0.6640625f, 0.78125f, 0.890625f, 1.0f}));
  EXPECT_EQ(CodecRegistry::WithBuiltins()
                .Create({{"name", "numcodecs.quantize"},
                         {"configuration", {{"digits", 1}, {"dtype", "<i4"}}}})
                .status()
                .code(),
            StatusCode::kUnsupported);
}

TEST(NumcodecsPackBits, KnownBytes) {
  const auto packbits = Make({{"name", "numcodecs.packbits"}});
  // numcodecs: [True, False, False, True] → [4, 144]; nine Trues → [7, 255, 128].
  const ChunkSpec four = Spec(DataTypeId::kBool, 4);
  EXPECT_EQ(*packbits->Encode(four, Bytes{1, 0, 0, 1}), (Bytes{4, 144}));
  EXPECT_EQ(*packbits->Decode(four, Bytes{4, 144}), (Bytes{1, 0, 0, 1}));
  const ChunkSpec nine = {DataType(DataTypeId::kBool), {3, 3}};
  EXPECT_EQ(*packbits->Encode(nine, Bytes(9, 1)), (Bytes{7, 255, 128}));
  const Result<ChunkSpec> encoded = packbits->EncodedSpec(nine);
  ASSERT_TRUE(encoded.ok());
  EXPECT_EQ(encoded->shape, (std::vector<std::int64_t>{3}));
  EXPECT_EQ(encoded->dtype, DataType(DataTypeId::kUInt8));
  // A padding count that does not fit the chunk, or the wrong length.
  EXPECT_EQ(packbits->Decode(four, Bytes{3, 144}).status().code(), StatusCode::kCorruption);
  EXPECT_EQ(packbits->Decode(four, Bytes{4, 144, 0}).status().code(), StatusCode::kCorruption);
  EXPECT_EQ(packbits->Decode(four, Bytes{}).status().code(), StatusCode::kCorruption);
}

TEST(NumcodecsAsType, CastsAsNumpy) {
  // numcodecs.AsType('<i2', '<f8').encode([1.7, -1.7, 300.5, -0.5]) → [1, -1, 300, 0].
  const auto astype = Make({{"name", "numcodecs.astype"},
                            {"configuration", {{"encode_dtype", "<i2"}, {"decode_dtype", "<f8"}}}});
  const ChunkSpec spec = Spec(DataTypeId::kFloat64, 4);
  const Bytes encoded = *astype->Encode(spec, BytesOf(std::vector<double>{1.7, -1.7, 300.5, -0.5}));
  EXPECT_EQ(ValuesOf<std::int16_t>(encoded), (std::vector<std::int16_t>{1, -1, 300, 0}));
  EXPECT_EQ(ValuesOf<double>(*astype->Decode(spec, encoded)),
            (std::vector<double>{1.0, -1.0, 300.0, 0.0}));
  EXPECT_EQ(astype->ToJson()["configuration"],
            json({{"encode_dtype", "<i2"}, {"decode_dtype", "<f8"}}));
  // Integers wrap; bool is "nonzero".
  std::vector<std::uint8_t> out(3);
  const std::vector<std::int32_t> ints = {256 + 7, -1, 0};
  CastElements(DataType(DataTypeId::kInt32), BytesOf(ints).data(), DataType(DataTypeId::kUInt8),
               out.data(), 3);
  EXPECT_EQ(out, (std::vector<std::uint8_t>{7, 255, 0}));
  CastElements(DataType(DataTypeId::kInt32), BytesOf(ints).data(), DataType(DataTypeId::kBool),
               out.data(), 3);
  EXPECT_EQ(out, (std::vector<std::uint8_t>{1, 1, 0}));
  EXPECT_EQ(
      CodecRegistry::WithBuiltins()
          .Create({{"name", "numcodecs.astype"}, {"configuration", {{"encode_dtype", "<i2"}}}})
          .status()
          .code(),
      StatusCode::kInvalidArgument);
  EXPECT_EQ(CodecRegistry::WithBuiltins()
                .Create({{"name", "numcodecs.astype"},
                         {"configuration", {{"encode_dtype", "<U4"}, {"decode_dtype", "<f8"}}}})
                .status()
                .code(),
            StatusCode::kUnsupported);
}

TEST(NumcodecsFilters, InAChain) {
  // [delta, bytes, zlib] as a zarr v2 array with filters [Delta] and compressor Zlib translates.
  const json codecs = json::parse(R"([
      {"name": "numcodecs.delta", "configuration": {"dtype": "<u2"}},
      {"name": "bytes", "configuration": {"endian": "little"}},
      {"name": "numcodecs.zlib", "configuration": {"level": 5}}])");
  Result<CodecChain> chain = CodecChain::FromJson(codecs, CodecRegistry::WithBuiltins());
  ASSERT_TRUE(chain.ok()) << chain.status().ToString();
  std::vector<std::uint16_t> values(4096);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<std::uint16_t>(i * 3);
  const ChunkSpec spec = {DataType(DataTypeId::kUInt16), {64, 64}};
  const Result<Bytes> encoded = chain->Encode(spec, BytesOf(values));
  ASSERT_TRUE(encoded.ok()) << encoded.status().ToString();
  EXPECT_LT(encoded->size(), 200u);  // The deltas are all 3: they compress to almost nothing.
  EXPECT_EQ(ValuesOf<std::uint16_t>(*chain->Decode(spec, *encoded)), values);
}

}  // namespace
}  // namespace chunkwise::codec
