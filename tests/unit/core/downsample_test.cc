#include "chunkwise/core/downsample.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <vector>

#include "core/ravel.h"

namespace chunkwise::core {
namespace {

template <typename T>
Bytes AsBytesOf(const std::vector<T>& values) {
  Bytes bytes(values.size() * sizeof(T));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

template <typename T>
std::vector<T> ValuesOf(ByteView bytes) {
  std::vector<T> values(bytes.size() / sizeof(T));
  std::memcpy(values.data(), bytes.data(), bytes.size());
  return values;
}

template <typename T>
DataType TypeOf() {
  if constexpr (std::is_same_v<T, float>) return DataType(DataTypeId::kFloat32);
  if constexpr (std::is_same_v<T, double>) return DataType(DataTypeId::kFloat64);
  if constexpr (std::is_same_v<T, std::int8_t>) return DataType(DataTypeId::kInt8);
  if constexpr (std::is_same_v<T, std::int16_t>) return DataType(DataTypeId::kInt16);
  if constexpr (std::is_same_v<T, std::int32_t>) return DataType(DataTypeId::kInt32);
  if constexpr (std::is_same_v<T, std::int64_t>) return DataType(DataTypeId::kInt64);
  if constexpr (std::is_same_v<T, std::uint16_t>) return DataType(DataTypeId::kUInt16);
  if constexpr (std::is_same_v<T, std::uint32_t>) return DataType(DataTypeId::kUInt32);
  if constexpr (std::is_same_v<T, std::uint64_t>) return DataType(DataTypeId::kUInt64);
  return DataType(DataTypeId::kUInt8);
}

// Reduces `values` of `shape` by `factors` with `method`.
template <typename T>
std::vector<T> Reduce(DownsampleMethod method, const std::vector<T>& values, const Shape& shape,
                      const Shape& factors) {
  Result<Downsampler> downsampler = Downsampler::Create(method, TypeOf<T>(), factors);
  EXPECT_TRUE(downsampler.ok()) << downsampler.status().ToString();
  const Bytes in = AsBytesOf(values);
  Index out_elements = 1;
  for (Index extent : downsampler->OutputShape(shape)) out_elements *= extent;
  Bytes out(static_cast<std::size_t>(out_elements) * sizeof(T));
  downsampler->Reduce(in, shape, out);
  return ValuesOf<T>(out);
}

TEST(DownsampleTest, IntegerMeanRoundsHalfToEven) {
  // Windows of two: 1.5 -> 2, 3.5 -> 4, 2.5 -> 2, the lone 9 stays.
  EXPECT_EQ(Reduce<std::uint8_t>(DownsampleMethod::kMean, {1, 2, 3, 4, 2, 3, 9}, {7}, {2}),
            (std::vector<std::uint8_t>{2, 4, 2, 9}));
  // Negative sums floor first: -1.5 -> -2, -0.5 -> 0, -2.5 -> -2, -3 exactly.
  EXPECT_EQ(Reduce<std::int8_t>(DownsampleMethod::kMean, {-1, -2, -1, 0, -2, -3, -3, -3}, {8}, {2}),
            (std::vector<std::int8_t>{-2, 0, -2, -3}));
  // Not a tie: 10/3 -> 3, 11/3 -> 4.
  EXPECT_EQ(Reduce<std::int32_t>(DownsampleMethod::kMean, {3, 3, 4, 3, 4, 4}, {6}, {3}),
            (std::vector<std::int32_t>{3, 4}));
}

TEST(DownsampleTest, MeanOfTheWidestIntegersDoesNotOverflow) {
  constexpr auto kMax = std::numeric_limits<std::uint64_t>::max();
  EXPECT_EQ(
      Reduce<std::uint64_t>(DownsampleMethod::kMean, {kMax, kMax, kMax, kMax - 1}, {2, 2}, {2, 2}),
      (std::vector<std::uint64_t>{kMax}));  // kMax - 0.25.
  constexpr auto kMin = std::numeric_limits<std::int64_t>::min();
  EXPECT_EQ(Reduce<std::int64_t>(DownsampleMethod::kMean, {kMin, kMin, kMin + 1, kMin}, {4}, {4}),
            (std::vector<std::int64_t>{kMin}));  // kMin + 0.25.
}

TEST(DownsampleTest, FloatMeanAddsInWindowOrderInDouble) {
  // In window order the 1 after 1e16 is lost: (1e16 + 1 - 1e16 + 1) / 4 = 0.25;
  // pairwise addition would give 0.
  EXPECT_EQ(Reduce<double>(DownsampleMethod::kMean, {1e16, 1, -1e16, 1}, {2, 2}, {2, 2}),
            (std::vector<double>{0.25}));
  // float32 rounds once, from the double mean: (1 + 2^-24) / 1 is not a float.
  const float one = 1.0f;
  const float next = std::nextafter(one, 2.0f);
  EXPECT_EQ(Reduce<float>(DownsampleMethod::kMean, {one, next}, {2}, {2}),
            (std::vector<float>{one}));  // Halfway: ties to even.
  // -0.0 alone starts from +0.0 and so becomes +0.0.
  const std::vector<float> zero = Reduce<float>(DownsampleMethod::kMean, {-0.0f}, {1}, {2});
  EXPECT_FALSE(std::signbit(zero[0]));
}

TEST(DownsampleTest, NanGivesTheQuietNanWhateverItsBits) {
  std::uint32_t payload_bits = 0x7fa00001;  // A signalling NaN with a payload.
  float payload;
  std::memcpy(&payload, &payload_bits, 4);
  const std::uint32_t quiet = 0x7fc00000;
  for (DownsampleMethod method :
       {DownsampleMethod::kMean, DownsampleMethod::kMin, DownsampleMethod::kMax}) {
    const std::vector<float> out = Reduce<float>(method, {1.0f, payload, 3.0f, -1.0f}, {4}, {2});
    std::uint32_t bits;
    std::memcpy(&bits, &out[0], 4);
    EXPECT_EQ(bits, quiet) << DownsampleMethodName(method);
    EXPECT_EQ(out[1], method == DownsampleMethod::kMax   ? 3.0f
                      : method == DownsampleMethod::kMin ? -1.0f
                                                         : 1.0f);
  }
}

TEST(DownsampleTest, MinAndMaxKeepTheFirstOfEquals) {
  const std::vector<float> min =
      Reduce<float>(DownsampleMethod::kMin, {-0.0f, 0.0f, 0.0f, -0.0f}, {4}, {2});
  EXPECT_TRUE(std::signbit(min[0]));
  EXPECT_FALSE(std::signbit(min[1]));
  const std::vector<float> max =
      Reduce<float>(DownsampleMethod::kMax, {-0.0f, 0.0f, 0.0f, -0.0f}, {4}, {2});
  EXPECT_TRUE(std::signbit(max[0]));
  EXPECT_FALSE(std::signbit(max[1]));
  EXPECT_EQ(Reduce<std::int16_t>(DownsampleMethod::kMin, {5, -7, 3, 2, 9}, {5}, {2}),
            (std::vector<std::int16_t>{-7, 2, 9}));
  EXPECT_EQ(Reduce<std::int16_t>(DownsampleMethod::kMax, {5, -7, 3, 2, 9}, {5}, {2}),
            (std::vector<std::int16_t>{5, 3, 9}));
}

TEST(DownsampleTest, ModeBreaksTiesToTheLeastValue) {
  // 2x2 windows of a 2x6 label image: {7,7,1,1} -> 1; {5,5,5,2} -> 5; {9,3,4,8} -> 3.
  EXPECT_EQ(Reduce<std::uint32_t>(DownsampleMethod::kMode, {7, 7, 5, 5, 9, 3, 1, 1, 5, 2, 4, 8},
                                  {2, 6}, {2, 2}),
            (std::vector<std::uint32_t>{1, 5, 3}));
  EXPECT_EQ(Reduce<std::int8_t>(DownsampleMethod::kMode, {-3, 4, 4, -3}, {4}, {4}),
            (std::vector<std::int8_t>{-3}));
}

TEST(DownsampleTest, FactorOneLeavesADimensionAsItIs) {
  // 3x3 by (1, 3): each row's max.
  EXPECT_EQ(
      Reduce<std::uint16_t>(DownsampleMethod::kMax, {1, 9, 2, 8, 3, 4, 5, 6, 7}, {3, 3}, {1, 3}),
      (std::vector<std::uint16_t>{9, 8, 7}));
}

// An independent reference: every window's elements gathered by walking the
// whole input, in row-major order, then reduced by the documented rules.
template <typename T>
std::vector<T> Reference(DownsampleMethod method, const std::vector<T>& in, const Shape& shape,
                         const Shape& factors) {
  Shape out_shape(shape.size());
  for (std::size_t d = 0; d < shape.size(); ++d) {
    out_shape[d] = (shape[d] + factors[d] - 1) / factors[d];
  }
  std::map<Index, std::vector<T>> windows;
  for (Index i = 0; i < static_cast<Index>(in.size()); ++i) {
    Coord c = Unravel(i, shape);
    for (std::size_t d = 0; d < c.size(); ++d) c[d] /= factors[d];
    windows[Ravel(c, out_shape)].push_back(in[static_cast<std::size_t>(i)]);
  }
  std::vector<T> out;
  for (auto& [index, values] : windows) {
    if (method == DownsampleMethod::kMean) {
      __extension__ __int128 sum = 0;
      for (T v : values) sum += v;
      const auto n = static_cast<__int128>(values.size());
      __int128 q = sum / n;
      __int128 r = sum % n;
      if (r < 0) r += n, --q;
      if (2 * r > n || (2 * r == n && q % 2 != 0)) ++q;
      out.push_back(static_cast<T>(q));
    } else if (method == DownsampleMethod::kMode) {
      std::map<T, int> counts;
      for (T v : values) ++counts[v];
      T best = counts.begin()->first;
      for (const auto& [value, count] : counts) {
        if (count > counts[best]) best = value;
      }
      out.push_back(best);
    } else if (method == DownsampleMethod::kMin) {
      out.push_back(*std::min_element(values.begin(), values.end()));
    } else {
      out.push_back(*std::max_element(values.begin(), values.end()));
    }
  }
  return out;
}

template <typename T>
void ExpectMatchesReference(std::mt19937& random) {
  for (int trial = 0; trial < 60; ++trial) {
    const std::size_t rank = 1 + random() % 5;
    Shape shape(rank);
    Shape factors(rank);
    Index elements = 1;
    for (std::size_t d = 0; d < rank; ++d) {
      shape[d] = 1 + static_cast<Index>(random() % (rank <= 2 ? 23 : 7));
      factors[d] = 1 + static_cast<Index>(random() % 3);
      elements *= shape[d];
    }
    std::vector<T> in(static_cast<std::size_t>(elements));
    for (T& v : in) v = static_cast<T>(random() % 6 * 37 + random() % 3);  // Many repeats.
    for (DownsampleMethod method : {DownsampleMethod::kMean, DownsampleMethod::kMode,
                                    DownsampleMethod::kMin, DownsampleMethod::kMax}) {
      const std::vector<T> expected = Reference(method, in, shape, factors);
      EXPECT_EQ(Reduce(method, in, shape, factors), expected)
          << DownsampleMethodName(method) << " [" << FormatShape(shape) << "] by ["
          << FormatShape(factors) << "]";
      // The same, row range by row range.
      Result<Downsampler> downsampler = Downsampler::Create(method, TypeOf<T>(), factors);
      ASSERT_TRUE(downsampler.ok());
      Bytes out(expected.size() * sizeof(T));
      const Index rows = downsampler->OutputRows(shape);
      for (Index first = 0; first < rows; first += 3) {
        downsampler->Reduce(AsBytesOf(in), shape, out, first, std::min(rows, first + 3));
      }
      EXPECT_EQ(ValuesOf<T>(out), expected) << "by rows";
    }
  }
}

TEST(DownsampleTest, EveryRankAndPartialWindowMatchesAReference) {
  std::mt19937 random(31);
  ExpectMatchesReference<std::uint8_t>(random);
  ExpectMatchesReference<std::int16_t>(random);
  ExpectMatchesReference<std::uint32_t>(random);
  ExpectMatchesReference<std::int64_t>(random);
}

// Means over windows of 2, 4 or 8 elements take a faster path (shifts, not
// division); negative sums, the extremes of each type and partial windows at
// the edges must round exactly as the reference does.
template <typename T>
void ExpectPowerOfTwoMeansMatchTheReference(std::mt19937& random) {
  const T lowest = std::numeric_limits<T>::lowest();
  const T highest = std::numeric_limits<T>::max();
  for (const Shape& factors : {Shape{2, 2, 2}, Shape{1, 2, 4}, Shape{2, 1, 1}, Shape{1, 1, 2}}) {
    const Shape shape{5, 6, 9};  // Odd and even extents: whole and partial windows.
    std::vector<T> in(5 * 6 * 9);
    for (T& v : in) {
      const unsigned pick = random() % 8;
      v = pick == 0   ? lowest
          : pick == 1 ? highest
                      : static_cast<T>(static_cast<std::int64_t>(random() % 2001) - 1000);
    }
    EXPECT_EQ(Reduce(DownsampleMethod::kMean, in, shape, factors),
              Reference(DownsampleMethod::kMean, in, shape, factors))
        << "by [" << FormatShape(factors) << "]";
  }
}

TEST(DownsampleTest, PowerOfTwoWindowsRoundAsTheDivisionDoes) {
  std::mt19937 random(7);
  ExpectPowerOfTwoMeansMatchTheReference<std::uint8_t>(random);
  ExpectPowerOfTwoMeansMatchTheReference<std::int8_t>(random);
  ExpectPowerOfTwoMeansMatchTheReference<std::uint16_t>(random);
  ExpectPowerOfTwoMeansMatchTheReference<std::int16_t>(random);
  ExpectPowerOfTwoMeansMatchTheReference<std::uint32_t>(random);
  ExpectPowerOfTwoMeansMatchTheReference<std::int32_t>(random);
  // Ties: 1+2 over 2 is 1.5 (to 2), 2+3 is 2.5 (to 2), -1-2 is -1.5 (to -2),
  // -2-3 is -2.5 (to -2).
  EXPECT_EQ(Reduce<std::int16_t>(DownsampleMethod::kMean, {1, 2, 2, 3, -1, -2, -2, -3}, {8}, {2}),
            (std::vector<std::int16_t>{2, 2, -2, -2}));
}

TEST(DownsampleTest, ElementsAtAnyAddress) {
  // Input and output one byte past an element boundary.
  const std::vector<std::uint16_t> values = {100, 300, 500, 701};
  Bytes in(1 + 8);
  std::memcpy(in.data() + 1, values.data(), 8);
  Bytes out(1 + 4);
  Result<Downsampler> downsampler =
      Downsampler::Create(DownsampleMethod::kMean, DataType(DataTypeId::kUInt16), {2});
  ASSERT_TRUE(downsampler.ok());
  downsampler->Reduce(ByteView(in).subspan(1), Shape{4}, MutableByteView(out).subspan(1));
  EXPECT_EQ(ValuesOf<std::uint16_t>(ByteView(out).subspan(1)),
            (std::vector<std::uint16_t>{200, 600}));
}

TEST(DownsampleTest, MethodsThatDoNotFitTheTypeAreRefused) {
  auto create = [](DownsampleMethod method, DataTypeId type, Shape factors = {2, 2}) {
    return Downsampler::Create(method, DataType(type), std::move(factors)).status();
  };
  Status status = create(DownsampleMethod::kMean, DataTypeId::kBool);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("mean downsampling of bool"), std::string::npos);
  EXPECT_EQ(status.field(), "downsample_method");  // The option at fault, for flag hints.
  status = create(DownsampleMethod::kMode, DataTypeId::kFloat32);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("mode is for labels"), std::string::npos);
  EXPECT_EQ(create(DownsampleMethod::kMax, DataTypeId::kFloat16).code(), StatusCode::kUnsupported);
  EXPECT_EQ(create(DownsampleMethod::kMin, DataTypeId::kComplex64).code(),
            StatusCode::kUnsupported);
  status = create(DownsampleMethod::kMin, DataTypeId::kUInt8, {2, 0});
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("at least 1, not 0"), std::string::npos);
  EXPECT_EQ(status.field(), "downsample_factors");
  EXPECT_EQ(create(DownsampleMethod::kMin, DataTypeId::kUInt8, {1024, 1024}).code(),
            StatusCode::kInvalidArgument);
  EXPECT_TRUE(create(DownsampleMethod::kMode, DataTypeId::kBool).ok());
  EXPECT_TRUE(create(DownsampleMethod::kMean, DataTypeId::kFloat64).ok());
  EXPECT_EQ(ParseDownsampleMethod("median").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(*ParseDownsampleMethod("mode"), DownsampleMethod::kMode);
}

// Frame sums serve the mean of 8- and 16-bit integers over windows of 2^k
// elements that the factors cut the frame into whole; the pyramid
// accumulator's tests compare their bytes with Reduce's.
TEST(DownsampleTest, FrameSumsServeSmallIntegerMeansOverWholeWindows) {
  const auto make = [](DownsampleMethod method, DataTypeId type, Shape factors) {
    return *Downsampler::Create(method, DataType(type), std::move(factors));
  };
  EXPECT_TRUE(
      make(DownsampleMethod::kMean, DataTypeId::kUInt16, {2, 2, 2}).SumsFrames(Shape{8, 6}));
  EXPECT_TRUE(make(DownsampleMethod::kMean, DataTypeId::kInt8, {4, 1, 2}).SumsFrames(Shape{3, 6}));
  EXPECT_FALSE(make(DownsampleMethod::kMean, DataTypeId::kUInt16, {2, 2, 2})
                   .SumsFrames(Shape{7, 6}));  // 7 rows: a partial window.
  EXPECT_FALSE(make(DownsampleMethod::kMean, DataTypeId::kUInt16, {2, 3, 2})
                   .SumsFrames(Shape{9, 6}));  // 12 elements a window.
  EXPECT_FALSE(
      make(DownsampleMethod::kMean, DataTypeId::kUInt32, {2, 2, 2}).SumsFrames(Shape{8, 6}));
  EXPECT_FALSE(
      make(DownsampleMethod::kMean, DataTypeId::kFloat32, {2, 2, 2}).SumsFrames(Shape{8, 6}));
  EXPECT_FALSE(
      make(DownsampleMethod::kMax, DataTypeId::kUInt16, {2, 2, 2}).SumsFrames(Shape{8, 6}));
  EXPECT_FALSE(make(DownsampleMethod::kMean, DataTypeId::kUInt16, {2}).SumsFrames(Shape{}));

  // Two frames of 2x2 int16, summed one after the other: -10 over 8
  // elements, -1.25, rounds to -1, as Reduce of both frames at once gives.
  const Downsampler mean = make(DownsampleMethod::kMean, DataTypeId::kInt16, {2, 2, 2});
  const std::vector<std::int16_t> values = {-3, -2, -4, 1, 5, -6, 0, -1};
  const ByteView bytes(reinterpret_cast<const std::uint8_t*>(values.data()), 16);
  const Shape frame{2, 2};
  std::vector<std::int32_t> sums(1);
  mean.AddFrameSums(bytes.first(8), frame, sums, true, 0, 1);
  mean.AddFrameSums(bytes.subspan(8), frame, sums, false, 0, 1);
  EXPECT_EQ(sums[0], -10);
  Bytes from_sums(2), reduced(2), first_only(2);
  mean.MeansOfFrameSums(sums, 2, from_sums);
  mean.Reduce(bytes, Shape{2, 2, 2}, reduced);
  EXPECT_EQ(from_sums, reduced);
  EXPECT_EQ(static_cast<std::int16_t>(from_sums[0] | from_sums[1] << 8), -1);  // -1.25.
  // A window of one frame (a stream's end): -8 over 4 elements is -2.
  mean.AddFrameSums(bytes.first(8), frame, sums, true, 0, 1);
  mean.MeansOfFrameSums(sums, 1, first_only);
  EXPECT_EQ(static_cast<std::int16_t>(first_only[0] | first_only[1] << 8), -2);
}

}  // namespace
}  // namespace chunkwise::core
