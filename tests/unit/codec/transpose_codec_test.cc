#include "codec/transpose_codec.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "unit/codec/codec_test_data.h"

namespace chunkwise::codec {
namespace {

using core::DataType;
using core::DataTypeId;

// Element by element with div/mod: encoded dim i = decoded dim order[i].
Bytes BruteForceTranspose(const std::vector<std::int64_t>& shape,
                          const std::vector<std::int64_t>& order, std::size_t element_size,
                          const Bytes& data) {
  const std::size_t rank = shape.size();
  std::vector<std::int64_t> out_shape(rank);
  for (std::size_t i = 0; i < rank; ++i) out_shape[i] = shape[order[i]];
  const std::size_t count = data.size() / element_size;
  Bytes out(data.size());
  std::vector<std::int64_t> out_index(rank), in_index(rank);
  for (std::size_t linear = 0; linear < count; ++linear) {
    std::size_t rest = linear;
    for (std::size_t d = rank; d-- > 0;) {
      out_index[d] = static_cast<std::int64_t>(rest % out_shape[d]);
      rest /= out_shape[d];
    }
    for (std::size_t i = 0; i < rank; ++i) in_index[order[i]] = out_index[i];
    std::size_t in_linear = 0;
    for (std::size_t d = 0; d < rank; ++d) in_linear = in_linear * shape[d] + in_index[d];
    std::copy_n(data.begin() + in_linear * element_size, element_size,
                out.begin() + linear * element_size);
  }
  return out;
}

TEST(TransposeCodec, MatchesBruteForceOnRandomShapesAndOrders) {
  std::mt19937 random(11);
  const DataTypeId types[] = {DataTypeId::kUInt8, DataTypeId::kInt16, DataTypeId::kFloat32,
                              DataTypeId::kUInt64, DataTypeId::kComplex128};
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t rank = random() % 6;
    std::vector<std::int64_t> shape(rank), order(rank);
    for (auto& extent : shape) extent = 1 + random() % (rank > 3 ? 5 : 40);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), random);
    const ChunkSpec spec{DataType(types[trial % 5]), shape};
    const Bytes data = testing::RandomBytes(spec.num_bytes(), trial);
    const auto codec = TransposeCodec::Create(order);
    ASSERT_TRUE(codec.ok());
    const Result<Bytes> encoded = (*codec)->Encode(spec, data);
    ASSERT_TRUE(encoded.ok());
    ASSERT_EQ(*encoded, BruteForceTranspose(shape, order, spec.dtype.size(), data)) << trial;
    const Result<Bytes> decoded = (*codec)->Decode(spec, *encoded);
    ASSERT_TRUE(decoded.ok());
    ASSERT_EQ(*decoded, data) << trial;
  }
}

TEST(TransposeCodec, EncodedSpecPermutesShape) {
  const auto codec = TransposeCodec::Create({2, 0, 1});
  ASSERT_TRUE(codec.ok());
  const Result<ChunkSpec> encoded =
      (*codec)->EncodedSpec({DataType(DataTypeId::kUInt16), {3, 4, 5}});
  ASSERT_TRUE(encoded.ok());
  EXPECT_EQ(encoded->shape, (std::vector<std::int64_t>{5, 3, 4}));
  EXPECT_EQ(encoded->dtype, DataType(DataTypeId::kUInt16));
}

TEST(TransposeCodec, TwoByThreeKnownValues) {
  const auto codec = TransposeCodec::Create({1, 0});
  ASSERT_TRUE(codec.ok());
  const Result<Bytes> encoded =
      (*codec)->Encode({DataType(DataTypeId::kUInt8), {2, 3}}, Bytes{1, 2, 3, 4, 5, 6});
  ASSERT_TRUE(encoded.ok());
  EXPECT_EQ(*encoded, (Bytes{1, 4, 2, 5, 3, 6}));
}

TEST(TransposeCodec, LargeTwoDimensionalRoundTrip) {
  const auto codec = TransposeCodec::Create({1, 0});
  ASSERT_TRUE(codec.ok());
  const ChunkSpec spec{DataType(DataTypeId::kUInt16), {517, 300}};
  const Bytes data = testing::MicroscopyLike(spec.num_bytes());
  const Bytes encoded = *(*codec)->Encode(spec, data);
  EXPECT_EQ(encoded, BruteForceTranspose(spec.shape, {1, 0}, 2, data));
  EXPECT_EQ(*(*codec)->Decode(spec, encoded), data);
}

TEST(TransposeCodec, RejectsBadOrdersAndRankMismatch) {
  EXPECT_EQ(TransposeCodec::Create({0, 0}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(TransposeCodec::Create({0, 2}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(TransposeCodec::Create({-1, 0}).status().code(), StatusCode::kInvalidArgument);
  const auto codec = TransposeCodec::Create({1, 0});
  ASSERT_TRUE(codec.ok());
  const ChunkSpec rank3{DataType(DataTypeId::kUInt8), {2, 2, 2}};
  EXPECT_EQ((*codec)->EncodedSpec(rank3).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ((*codec)->Encode(rank3, Bytes(8)).status().code(), StatusCode::kInvalidArgument);
  const ChunkSpec rank2{DataType(DataTypeId::kUInt8), {2, 2}};
  EXPECT_EQ((*codec)->Decode(rank2, Bytes(3)).status().code(), StatusCode::kCorruption);
  EXPECT_EQ((*codec)->Encode(rank2, Bytes(3)).status().code(), StatusCode::kInvalidArgument);
}

TEST(TransposeCodec, Json) {
  const nlohmann::json json =
      nlohmann::json::parse(R"({"name":"transpose","configuration":{"order":[2,0,1]}})");
  const auto codec = TransposeCodec::FromJson(json["configuration"]);
  ASSERT_TRUE(codec.ok());
  EXPECT_EQ((*codec)->order(), (std::vector<std::int64_t>{2, 0, 1}));
  EXPECT_EQ((*codec)->ToJson(), json);
  for (const char* bad : {R"({})", R"({"order":"C"})", R"({"order":[0,1.5]})",
                          R"({"order":[0,18446744073709551615]})", R"({"order":[1,1]})",
                          R"({"order":[1,0],"x":1})", R"([1,0])"}) {
    EXPECT_EQ(TransposeCodec::FromJson(nlohmann::json::parse(bad)).status().code(),
              StatusCode::kInvalidArgument)
        << bad;
  }
}

}  // namespace
}  // namespace chunkwise::codec
