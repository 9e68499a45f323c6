#include "codec/bytes_codec.h"

#include <gtest/gtest.h>

#include "unit/codec/codec_test_data.h"

namespace chunkwise::codec {
namespace {

using core::DataType;
using core::DataTypeId;
using core::Endian;

TEST(ChunkSpec, NumElementsIsProductOfShape) {
  EXPECT_EQ((ChunkSpec{DataType(DataTypeId::kUInt16), {}}.num_elements()), 1u);
  EXPECT_EQ((ChunkSpec{DataType(DataTypeId::kUInt16), {3, 4, 5}}.num_elements()), 60u);
  EXPECT_EQ((ChunkSpec{DataType(DataTypeId::kUInt16), {3, 0, 5}}.num_elements()), 0u);
  EXPECT_EQ((ChunkSpec{DataType(DataTypeId::kFloat64), {3, 4}}.num_bytes()), 96u);
}

TEST(BytesCodec, LittleEndianIsIdentityOnThisHost) {
  const auto codec = BytesCodec::Create(Endian::kLittle);
  for (const DataType& dtype : DataType::All()) {
    const ChunkSpec spec{dtype, {5, 3}};
    const Bytes data = testing::RandomBytes(spec.num_bytes());
    const Result<Bytes> encoded = codec->Encode(spec, data);
    ASSERT_TRUE(encoded.ok()) << dtype.zarr_name();
    EXPECT_EQ(*encoded, data) << dtype.zarr_name();
  }
}

TEST(BytesCodec, BigEndianReversesEachSwapUnit) {
  const auto codec = BytesCodec::Create(Endian::kBig);
  for (const DataType& dtype : DataType::All()) {
    const ChunkSpec spec{dtype, {7}};
    const Bytes data = testing::RandomBytes(spec.num_bytes());
    const Result<Bytes> encoded = codec->Encode(spec, data);
    ASSERT_TRUE(encoded.ok()) << dtype.zarr_name();
    const std::size_t unit = dtype.swap_unit();
    for (std::size_t i = 0; i < data.size(); ++i) {
      const std::size_t start = i - i % unit;
      ASSERT_EQ((*encoded)[i], data[start + unit - 1 - i % unit]) << dtype.zarr_name() << " " << i;
    }
    const Result<Bytes> decoded = codec->Decode(spec, *encoded);
    ASSERT_TRUE(decoded.ok());
    EXPECT_EQ(*decoded, data) << dtype.zarr_name();
  }
}

TEST(BytesCodec, BigEndianKnownValues) {
  const auto codec = BytesCodec::Create(Endian::kBig);
  Bytes data(4);
  StoreLittleEndian<std::uint32_t>(0x01020304, data.data());
  const Result<Bytes> u32 = codec->Encode({DataType(DataTypeId::kUInt32), {1}}, data);
  ASSERT_TRUE(u32.ok());
  EXPECT_EQ(*u32, (Bytes{1, 2, 3, 4}));
  // complex64 swaps each float32 half, not the whole 8 bytes.
  const Bytes complex{1, 2, 3, 4, 5, 6, 7, 8};
  const Result<Bytes> c64 = codec->Encode({DataType(DataTypeId::kComplex64), {}}, complex);
  ASSERT_TRUE(c64.ok());
  EXPECT_EQ(*c64, (Bytes{4, 3, 2, 1, 8, 7, 6, 5}));
}

TEST(BytesCodec, EndianMayBeOmittedOnlyForOneByteTypes) {
  const auto codec = BytesCodec::Create(std::nullopt);
  EXPECT_TRUE(codec->Encode({DataType(DataTypeId::kUInt8), {4}}, Bytes(4, 1)).ok());
  EXPECT_TRUE(codec->Decode({DataType(DataTypeId::kBool), {4}}, Bytes(4, 1)).ok());
  EXPECT_EQ(codec->Encode({DataType(DataTypeId::kUInt16), {2}}, Bytes(4, 1)).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(BytesCodec, RejectsWrongSizes) {
  const auto codec = BytesCodec::Create(Endian::kLittle);
  const ChunkSpec spec{DataType(DataTypeId::kUInt16), {4}};
  EXPECT_EQ(codec->Encode(spec, Bytes(7)).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(codec->Decode(spec, Bytes(7)).status().code(), StatusCode::kCorruption);
  EXPECT_EQ(codec->Decode(spec, Bytes(9)).status().code(), StatusCode::kCorruption);
}

TEST(BytesCodec, Json) {
  const auto little = BytesCodec::FromJson({{"endian", "little"}});
  ASSERT_TRUE(little.ok());
  EXPECT_EQ((*little)->endian(), Endian::kLittle);
  EXPECT_EQ((*little)->ToJson(),
            nlohmann::json::parse(R"({"name":"bytes","configuration":{"endian":"little"}})"));
  const auto big = BytesCodec::FromJson({{"endian", "big"}});
  ASSERT_TRUE(big.ok());
  EXPECT_EQ((*big)->ToJson()["configuration"]["endian"], "big");
  const auto none = BytesCodec::FromJson(nlohmann::json::object());
  ASSERT_TRUE(none.ok());
  EXPECT_EQ((*none)->ToJson(), nlohmann::json::parse(R"({"name":"bytes"})"));
  EXPECT_EQ(BytesCodec::FromJson({{"endian", "middle"}}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(BytesCodec::FromJson({{"endian", 1}}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(BytesCodec::FromJson({{"order", "C"}}).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace chunkwise::codec
