#include "core/chunk_grid.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

#include "core/ravel.h"

namespace chunkwise::core {
namespace {

Index Random(std::mt19937_64& rng, Index low, Index high) {  // Inclusive.
  return std::uniform_int_distribution<Index>(low, high)(rng);
}

RegularChunkGrid MakeGrid(Shape array_shape, Shape chunk_shape) {
  Result<RegularChunkGrid> grid = RegularChunkGrid::Create(array_shape, chunk_shape);
  EXPECT_TRUE(grid.ok()) << grid.status().ToString();
  return std::move(grid).value();
}

Region RandomRegion(std::mt19937_64& rng, const Shape& shape) {
  Coord start(shape.size());
  Coord stop(shape.size());
  for (std::size_t d = 0; d < shape.size(); ++d) {
    start[d] = Random(rng, 0, shape[d]);
    stop[d] = Random(rng, start[d], shape[d]);
  }
  return Region(start, stop);
}

TEST(RegularChunkGrid, ShapesAndEdgeChunks) {
  const RegularChunkGrid grid = MakeGrid({100, 64, 30}, {32, 64, 7});
  EXPECT_EQ(grid.grid_shape(), (Shape{4, 1, 5}));
  EXPECT_EQ(grid.num_chunks(), 20);
  EXPECT_EQ(grid.ChunkOrigin(Coord{3, 0, 4}), (Coord{96, 0, 28}));
  EXPECT_EQ(grid.ChunkRegion(Coord{3, 0, 4}), Region({96, 0, 28}, {100, 64, 30}));
  EXPECT_EQ(grid.UnclippedChunkRegion(Coord{3, 0, 4}), Region({96, 0, 28}, {128, 64, 35}));
  EXPECT_EQ(grid.ChunkRegion(Coord{1, 0, 1}), Region({32, 0, 7}, {64, 64, 14}));
  EXPECT_EQ(grid.ChunkCoordOf(Coord{99, 63, 27}), (Coord{3, 0, 3}));
  EXPECT_TRUE(grid.ContainsChunk(Coord{3, 0, 4}));
  EXPECT_FALSE(grid.ContainsChunk(Coord{4, 0, 0}));
  EXPECT_FALSE(grid.ContainsChunk(Coord{0, -1, 0}));
}

TEST(RegularChunkGrid, ZeroExtentsAndRankZero) {
  const RegularChunkGrid empty = MakeGrid({0, 10}, {4, 4});
  EXPECT_EQ(empty.grid_shape(), (Shape{0, 3}));
  EXPECT_EQ(empty.num_chunks(), 0);
  EXPECT_TRUE(empty.ChunksIntersecting(Region::Full(empty.array_shape())).empty());

  const RegularChunkGrid scalar = MakeGrid({}, {});
  EXPECT_EQ(scalar.num_chunks(), 1);
  EXPECT_EQ(scalar.ChunksIntersecting(Region()), std::vector<Coord>{Coord{}});
}

TEST(RegularChunkGrid, CreateRejectsBadShapes) {
  struct Case {
    Shape array, chunk;
    StatusCode code;
  };
  for (const Case& c : {Case{{10, 10}, {5}, StatusCode::kInvalidArgument},
                        Case{{10, 10}, {5, 0}, StatusCode::kInvalidArgument},
                        Case{{10, 10}, {5, -2}, StatusCode::kInvalidArgument},
                        Case{{-1, 10}, {5, 5}, StatusCode::kInvalidArgument},
                        Case{{Index{1} << 62, Index{1} << 62}, {1, 1}, StatusCode::kOutOfRange},
                        Case{{INT64_MAX}, {INT64_MAX / 2}, StatusCode::kOutOfRange}}) {
    Result<RegularChunkGrid> grid = RegularChunkGrid::Create(c.array, c.chunk);
    ASSERT_FALSE(grid.ok()) << FormatShape(c.array) << " / " << FormatShape(c.chunk);
    EXPECT_EQ(grid.status().code(), c.code) << grid.status().ToString();
  }
  // The largest extent still splits when its padded extent fits.
  EXPECT_TRUE(RegularChunkGrid::Create({INT64_MAX}, {1}).ok());
}

TEST(RegularChunkGrid, ChunksIntersectingMatchesBruteForce) {
  std::mt19937_64 rng(31);
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t rank = static_cast<std::size_t>(Random(rng, 1, 3));
    Shape array_shape(rank), chunk_shape(rank);
    for (std::size_t d = 0; d < rank; ++d) {
      array_shape[d] = Random(rng, 1, 12);
      chunk_shape[d] = Random(rng, 1, 5);
    }
    const RegularChunkGrid grid = MakeGrid(array_shape, chunk_shape);
    const Region region = RandomRegion(rng, array_shape);
    // Every element of the region, binned by the chunk that holds it.
    std::map<Coord, Index> expected;  // std::map orders Coords lexicographically = C order.
    if (!region.IsEmpty()) {
      Coord at = region.start();
      do {
        ++expected[grid.ChunkCoordOf(at)];
        ASSERT_TRUE(grid.ChunkRegion(grid.ChunkCoordOf(at)).Contains(at));
      } while (AdvanceOdometer(at, region.start(), region.stop()));
    }
    std::vector<Coord> expected_chunks;
    for (const auto& [chunk, count] : expected) expected_chunks.push_back(chunk);
    EXPECT_EQ(grid.ChunksIntersecting(region), expected_chunks);

    std::vector<Coord> visited;
    Status status = grid.ForEachChunkIn(region, [&](const ChunkOverlap& overlap) {
      visited.push_back(overlap.chunk);
      EXPECT_EQ(overlap.array.num_elements(), expected[overlap.chunk]);
      EXPECT_TRUE(grid.ChunkRegion(overlap.chunk).Covers(overlap.array));
      EXPECT_TRUE(region.Covers(overlap.array));
      EXPECT_EQ(overlap.chunk_local, overlap.array.RelativeTo(grid.ChunkOrigin(overlap.chunk)));
      EXPECT_EQ(overlap.region_local, overlap.array.RelativeTo(region.start()));
      EXPECT_TRUE(Region::Full(grid.chunk_shape()).Covers(overlap.chunk_local));
      return Status::Ok();
    });
    EXPECT_TRUE(status.ok());
    EXPECT_EQ(visited, expected_chunks);
  }
}

TEST(RegularChunkGrid, ForEachChunkInStopsAtFirstError) {
  const RegularChunkGrid grid = MakeGrid({10, 10}, {3, 3});
  int calls = 0;
  Status status = grid.ForEachChunkIn(Region::Full(grid.array_shape()), [&](const ChunkOverlap&) {
    return ++calls == 3 ? Status::NotFound("chunk 3") : Status::Ok();
  });
  EXPECT_EQ(status.code(), StatusCode::kNotFound);
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(grid.Overlap(Coord{3, 3}, Region({0, 0}, {9, 9})), std::nullopt);
}

using Chunks = std::vector<std::vector<std::int32_t>>;

// Full-shape chunk buffers whose elements hold their flat array index, -1 in
// the edge padding.
Chunks IndexedChunks(const RegularChunkGrid& grid) {
  const Index chunk_elements = *NumElements(grid.chunk_shape());
  Chunks chunks(grid.num_chunks(), std::vector<std::int32_t>(chunk_elements, -1));
  for (Index c = 0; c < grid.num_chunks(); ++c) {
    const Coord chunk = Unravel(c, grid.grid_shape());
    const Region box = grid.ChunkRegion(chunk);
    Coord at = box.start();
    do {
      const Region local = Region(at, at).RelativeTo(grid.ChunkOrigin(chunk));
      chunks[c][Ravel(local.start(), grid.chunk_shape())] = Ravel(at, grid.array_shape());
    } while (AdvanceOdometer(at, box.start(), box.stop()));
  }
  return chunks;
}

// Copies between a region-shaped buffer and the chunks, in either direction.
void Transfer(const RegularChunkGrid& grid, const Region& region, Chunks& chunks,
              std::vector<std::int32_t>& buffer, bool to_buffer) {
  const Shape region_shape = region.shape();
  Status status = grid.ForEachChunkIn(region, [&](const ChunkOverlap& overlap) {
    auto& chunk = chunks[Ravel(overlap.chunk, grid.grid_shape())];
    const Shape extent = overlap.array.shape();
    if (to_buffer) {
      CopyStridedRegion({chunk.data(), grid.chunk_shape(), overlap.chunk_local.start()},
                        {buffer.data(), region_shape, overlap.region_local.start()}, extent,
                        sizeof(std::int32_t));
    } else {
      CopyStridedRegion({buffer.data(), region_shape, overlap.region_local.start()},
                        {chunk.data(), grid.chunk_shape(), overlap.chunk_local.start()}, extent,
                        sizeof(std::int32_t));
    }
    return Status::Ok();
  });
  ASSERT_TRUE(status.ok());
}

// The use the grid exists for: assemble a region from full-shape encoded
// chunks with CopyStridedRegion, then write it back into fresh chunks.
TEST(RegularChunkGrid, RegionReadAndWriteThroughChunks) {
  std::mt19937_64 rng(32);
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t rank = static_cast<std::size_t>(Random(rng, 1, 4));
    Shape array_shape(rank), chunk_shape(rank);
    for (std::size_t d = 0; d < rank; ++d) {
      array_shape[d] = Random(rng, 1, 9);
      chunk_shape[d] = Random(rng, 1, 4);
    }
    const RegularChunkGrid grid = MakeGrid(array_shape, chunk_shape);
    Chunks chunks = IndexedChunks(grid);
    const Region region = RandomRegion(rng, array_shape);
    std::vector<std::int32_t> buffer(region.num_elements(), -2);
    Transfer(grid, region, chunks, buffer, /*to_buffer=*/true);
    Index k = 0;
    if (!region.IsEmpty()) {
      Coord at = region.start();
      do {
        ASSERT_EQ(buffer[k++], Ravel(at, array_shape));
      } while (AdvanceOdometer(at, region.start(), region.stop()));
    }
    // Written back into zeroed chunks, exactly the region's elements return.
    Chunks written(chunks.size(), std::vector<std::int32_t>(*NumElements(chunk_shape), 0));
    Transfer(grid, region, written, buffer, /*to_buffer=*/false);
    for (std::size_t c = 0; c < chunks.size(); ++c) {
      for (std::size_t e = 0; e < chunks[c].size(); ++e) {
        const std::int32_t index = chunks[c][e];
        const bool in_region = index >= 0 && region.Contains(Unravel(index, array_shape));
        ASSERT_EQ(written[c][e], in_region ? index : 0);
      }
    }
  }
}

}  // namespace
}  // namespace chunkwise::core
