#include "core/ravel.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "chunkwise/core/region.h"

namespace chunkwise::core {
namespace {

Index Random(std::mt19937_64& rng, Index low, Index high) {  // Inclusive.
  return std::uniform_int_distribution<Index>(low, high)(rng);
}

Shape RandomShape(std::mt19937_64& rng, std::size_t rank, Index max_extent) {
  Shape shape(rank);
  for (Index& extent : shape) extent = Random(rng, 1, max_extent);
  return shape;
}

TEST(CStrides, AreRowMajor) {
  EXPECT_EQ(CStrides(Shape{2, 3, 4}), (Shape{12, 4, 1}));
  EXPECT_EQ(CStrides(Shape{5}), (Shape{1}));
  EXPECT_EQ(CStrides(Shape{}), (Shape{}));
  EXPECT_EQ(CStrides(Shape{3, 0, 2}), (Shape{0, 2, 1}));
}

TEST(Ravel, KnownValues) {
  EXPECT_EQ(Ravel(Coord{1, 2, 3}, Shape{2, 3, 4}), 1 * 12 + 2 * 4 + 3);
  EXPECT_EQ(Unravel(23, Shape{2, 3, 4}), (Coord{1, 2, 3}));
  EXPECT_EQ(Ravel(Coord{}, Shape{}), 0);
  EXPECT_EQ(Unravel(0, Shape{}), Coord{});
}

TEST(Ravel, UnravelIsItsInverseAndFollowsCOrder) {
  std::mt19937_64 rng(21);
  for (int trial = 0; trial < 200; ++trial) {
    const Shape shape = RandomShape(rng, Random(rng, 1, 4), 5);
    const Region full = Region::Full(shape);
    Coord coord = full.start();
    Index expected = 0;
    do {
      ASSERT_EQ(Ravel(coord, shape), expected);
      ASSERT_EQ(Unravel(expected, shape), coord);
      ++expected;
    } while (AdvanceOdometer(coord, full.start(), full.stop()));
    EXPECT_EQ(expected, full.num_elements());
  }
}

// The definition: one element at a time, by ravel.
void NaiveCopy(const StridedSource& source, const StridedDestination& destination,
               const Shape& extent, std::size_t element_size) {
  const Region box = Region::Full(extent);
  if (box.IsEmpty()) return;
  Coord at = box.start();
  Coord from(extent.size());
  Coord to(extent.size());
  do {
    for (std::size_t d = 0; d < extent.size(); ++d) {
      from[d] = source.origin[d] + at[d];
      to[d] = destination.origin[d] + at[d];
    }
    std::memcpy(
        static_cast<std::uint8_t*>(destination.data) + Ravel(to, destination.shape) * element_size,
        static_cast<const std::uint8_t*>(source.data) + Ravel(from, source.shape) * element_size,
        element_size);
  } while (AdvanceOdometer(at, box.start(), box.stop()));
}

std::vector<std::uint8_t> RandomBytes(std::mt19937_64& rng, Index count) {
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(count));
  for (std::uint8_t& byte : bytes) byte = static_cast<std::uint8_t>(rng());
  return bytes;
}

// A random box that fits in both shapes; whole dimensions are likely so the
// contiguous-run merging gets exercised.
struct RandomCopy {
  Shape source_shape, destination_shape, extent;
  Coord source_origin, destination_origin;
};

RandomCopy MakeRandomCopy(std::mt19937_64& rng, std::size_t rank) {
  RandomCopy copy;
  copy.source_shape = RandomShape(rng, rank, 6);
  copy.destination_shape = copy.source_shape;
  for (Index& extent : copy.destination_shape) {
    if (rng() % 3 == 0) extent = Random(rng, 1, 6);
  }
  for (std::size_t d = 0; d < rank; ++d) {
    const Index limit = std::min(copy.source_shape[d], copy.destination_shape[d]);
    const Index extent = rng() % 2 ? limit : Random(rng, 0, limit);
    copy.extent.push_back(extent);
    copy.source_origin.push_back(Random(rng, 0, copy.source_shape[d] - extent));
    copy.destination_origin.push_back(Random(rng, 0, copy.destination_shape[d] - extent));
  }
  return copy;
}

TEST(CopyStridedRegion, MatchesElementwiseCopy) {
  std::mt19937_64 rng(22);
  for (int trial = 0; trial < 3000; ++trial) {
    const RandomCopy copy = MakeRandomCopy(rng, Random(rng, 0, 5));
    const std::size_t element_size = std::vector<std::size_t>{1, 2, 3, 4, 8, 16}[rng() % 6];
    const auto source = RandomBytes(rng, *NumElements(copy.source_shape) * element_size);
    auto expected = RandomBytes(rng, *NumElements(copy.destination_shape) * element_size);
    auto actual = expected;
    NaiveCopy({source.data(), copy.source_shape, copy.source_origin},
              {expected.data(), copy.destination_shape, copy.destination_origin}, copy.extent,
              element_size);
    CopyStridedRegion({source.data(), copy.source_shape, copy.source_origin},
                      {actual.data(), copy.destination_shape, copy.destination_origin}, copy.extent,
                      element_size);
    ASSERT_EQ(actual, expected) << "trial " << trial << " extent " << FormatShape(copy.extent)
                                << " from " << FormatShape(copy.source_shape) << " to "
                                << FormatShape(copy.destination_shape);
  }
}

// Streamed copies take runs of 64 bytes and more: long last dimensions, wide
// elements, and destinations at every offset from a 16-byte boundary.
TEST(CopyStridedRegion, StreamingMatchesElementwiseCopyAtEveryAlignment) {
  std::mt19937_64 rng(25);
  for (int trial = 0; trial < 2000; ++trial) {
    RandomCopy copy = MakeRandomCopy(rng, Random(rng, 1, 3));
    copy.source_shape.back() = copy.destination_shape.back() = Random(rng, 1, 70);
    copy.extent.back() = Random(rng, 0, copy.source_shape.back());
    copy.source_origin.back() = Random(rng, 0, copy.source_shape.back() - copy.extent.back());
    copy.destination_origin.back() =
        Random(rng, 0, copy.destination_shape.back() - copy.extent.back());
    const std::size_t element_size = std::vector<std::size_t>{1, 2, 3, 8, 16}[rng() % 5];
    const auto skew = static_cast<std::size_t>(rng() % 16);
    const auto source = RandomBytes(rng, *NumElements(copy.source_shape) * element_size);
    auto expected = RandomBytes(rng, *NumElements(copy.destination_shape) * element_size + 16);
    auto actual = expected;
    NaiveCopy({source.data(), copy.source_shape, copy.source_origin},
              {expected.data() + skew, copy.destination_shape, copy.destination_origin},
              copy.extent, element_size);
    CopyStridedRegion({source.data(), copy.source_shape, copy.source_origin},
                      {actual.data() + skew, copy.destination_shape, copy.destination_origin, true},
                      copy.extent, element_size);
    ASSERT_EQ(actual, expected) << "trial " << trial << " extent " << FormatShape(copy.extent)
                                << " element " << element_size << " skew " << skew;
  }
}

TEST(CopyStridedRegion, HighRankUsesHeapScratch) {
  std::mt19937_64 rng(23);
  const Shape source_shape{2, 1, 3, 1, 2, 2, 1, 2, 3, 1, 2, 1, 2, 1, 1, 2, 3, 1, 2, 2};
  Shape destination_shape = source_shape;
  destination_shape[2] = 4;
  Shape extent = source_shape;
  extent[8] = 2;
  const Coord source_origin(source_shape.size(), 0);
  Coord destination_origin(source_shape.size(), 0);
  destination_origin[2] = 1;
  const auto source = RandomBytes(rng, *NumElements(source_shape) * 2);
  auto expected = RandomBytes(rng, *NumElements(destination_shape) * 2);
  auto actual = expected;
  NaiveCopy({source.data(), source_shape, source_origin},
            {expected.data(), destination_shape, destination_origin}, extent, 2);
  CopyStridedRegion({source.data(), source_shape, source_origin},
                    {actual.data(), destination_shape, destination_origin}, extent, 2);
  EXPECT_EQ(actual, expected);
}

TEST(CopyStridedRegion, ScalarAndEmptyBoxes) {
  const std::uint32_t source = 0xDEADBEEF;
  std::uint32_t destination = 0;
  CopyStridedRegion({&source, {}, {}}, {&destination, {}, {}}, {}, sizeof(source));
  EXPECT_EQ(destination, source);

  std::vector<std::uint8_t> bytes(12, 7);
  const Shape shape{3, 4};
  const Coord origin{0, 0};
  const Shape empty{0, 4};
  CopyStridedRegion({nullptr, shape, origin}, {bytes.data(), shape, origin}, empty, 1);
  EXPECT_EQ(bytes, std::vector<std::uint8_t>(12, 7));
}

TEST(FillStridedRegion, MatchesElementwiseFill) {
  std::mt19937_64 rng(24);
  for (int trial = 0; trial < 2000; ++trial) {
    const RandomCopy box = MakeRandomCopy(rng, Random(rng, 0, 4));
    const std::size_t element_size = std::vector<std::size_t>{1, 2, 3, 8}[rng() % 4];
    const auto element = RandomBytes(rng, element_size);
    auto actual = RandomBytes(rng, *NumElements(box.destination_shape) * element_size);
    auto expected = actual;
    const Region region = Region::FromOriginAndShape(box.destination_origin, box.extent);
    if (!region.IsEmpty()) {
      Coord at = region.start();
      do {
        std::memcpy(expected.data() + Ravel(at, box.destination_shape) * element_size,
                    element.data(), element_size);
      } while (AdvanceOdometer(at, region.start(), region.stop()));
    }
    FillStridedRegion({actual.data(), box.destination_shape, box.destination_origin}, box.extent,
                      element);
    ASSERT_EQ(actual, expected) << "trial " << trial;
  }
}

TEST(FillStridedRegion, StreamingMatchesElementwiseFill) {
  std::mt19937_64 rng(26);
  for (int trial = 0; trial < 1000; ++trial) {
    const Shape shape{Random(rng, 1, 4), Random(rng, 1, 90)};
    const Shape extent{Random(rng, 0, shape[0]), Random(rng, 0, shape[1])};
    const Coord origin{Random(rng, 0, shape[0] - extent[0]), Random(rng, 0, shape[1] - extent[1])};
    const std::size_t element_size = std::vector<std::size_t>{1, 2, 3, 8}[rng() % 4];
    const auto skew = static_cast<std::size_t>(rng() % 16);
    const auto element = RandomBytes(rng, element_size);
    auto actual = RandomBytes(rng, *NumElements(shape) * element_size + 16);
    auto expected = actual;
    for (Index y = 0; y < extent[0]; ++y) {
      for (Index x = 0; x < extent[1]; ++x) {
        const Coord at{origin[0] + y, origin[1] + x};
        std::memcpy(expected.data() + skew + Ravel(at, shape) * element_size, element.data(),
                    element_size);
      }
    }
    FillStridedRegion({actual.data() + skew, shape, origin, true}, extent, element);
    ASSERT_EQ(actual, expected) << "trial " << trial << " extent " << FormatShape(extent);
  }
}

}  // namespace
}  // namespace chunkwise::core
