#include "core/ravel.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#include "chunkwise/core/check.h"
#include "core/streamed_copy.h"

namespace chunkwise::core {

Shape CStrides(std::span<const Index> shape) {
  Shape strides(shape.size());
  Index stride = 1;
  for (std::size_t d = shape.size(); d-- > 0;) {
    strides[d] = stride;
    stride *= shape[d];
  }
  return strides;
}

Index Ravel(std::span<const Index> coord, std::span<const Index> shape) {
  CHUNKWISE_CHECK(coord.size() == shape.size());
  Index index = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    CHUNKWISE_CHECK(coord[d] >= 0 && coord[d] < shape[d]);
    index = index * shape[d] + coord[d];
  }
  return index;
}

void UnravelInto(Index index, std::span<const Index> shape, std::span<Index> coord) {
  CHUNKWISE_CHECK(coord.size() == shape.size() && index >= 0);
  for (std::size_t d = shape.size(); d-- > 0;) {
    coord[d] = index % shape[d];
    index /= shape[d];
  }
  CHUNKWISE_CHECK(index == 0);
}

Coord Unravel(Index index, std::span<const Index> shape) {
  Coord coord(shape.size());
  UnravelInto(index, shape, coord);
  return coord;
}

namespace {

// Per-dimension scratch for the odometer without a heap allocation for the
// ranks anyone uses; larger ranks still work.
class Scratch {
 public:
  explicit Scratch(std::size_t size) {
    if (size > inline_.size()) heap_.resize(size);
  }
  Index* data() { return heap_.empty() ? inline_.data() : heap_.data(); }

 private:
  std::array<Index, std::size_t{3} * 16> inline_;
  std::vector<Index> heap_;
};

// A strided box folded to its cheapest loop: the trailing dimensions that are
// whole in every buffer merge into one contiguous run of `run_bytes`; the
// `outer_rank` dimensions before them are walked by an odometer.
struct CopyPlan {
  std::size_t outer_rank = 0;
  std::size_t run_bytes = 0;
  std::ptrdiff_t source_offset = 0;       // Bytes from the buffer start to the box.
  std::ptrdiff_t destination_offset = 0;  // Bytes from the buffer start to the box.
  Index* extent = nullptr;                // outer_rank entries each, in scratch.
  Index* source_stride = nullptr;         // Bytes.
  Index* destination_stride = nullptr;    // Bytes.
};

void CheckBox(std::span<const Index> shape, std::span<const Index> origin,
              std::span<const Index> extent) {
  CHUNKWISE_CHECK(shape.size() == extent.size() && origin.size() == extent.size());
  for (std::size_t d = 0; d < extent.size(); ++d) {
    CHUNKWISE_CHECK(extent[d] >= 0 && origin[d] >= 0 && origin[d] <= shape[d] - extent[d]);
  }
}

// Builds the plan; `source_shape` may equal `destination_shape` for a fill.
// Returns false when the box is empty.
bool MakePlan(const StridedSource& source, const StridedDestination& destination,
              std::span<const Index> extent, std::size_t element_size, Scratch& scratch,
              CopyPlan& plan) {
  const std::size_t rank = extent.size();
  for (Index e : extent) {
    if (e == 0) return false;
  }
  plan.extent = scratch.data();
  plan.source_stride = plan.extent + rank;
  plan.destination_stride = plan.source_stride + rank;
  std::size_t merged = rank;  // Dimensions [merged, rank) form the run.
  Index run = 1;
  bool contiguous = true;
  Index source_stride = static_cast<Index>(element_size);
  Index destination_stride = source_stride;
  for (std::size_t d = rank; d-- > 0;) {
    if (contiguous) {
      run *= extent[d];
      merged = d;
      contiguous = extent[d] == source.shape[d] && extent[d] == destination.shape[d];
    }
    plan.extent[d] = extent[d];
    plan.source_stride[d] = source_stride;
    plan.destination_stride[d] = destination_stride;
    plan.source_offset += source.origin[d] * source_stride;
    plan.destination_offset += destination.origin[d] * destination_stride;
    source_stride *= source.shape[d];
    destination_stride *= destination.shape[d];
  }
  plan.outer_rank = merged;
  plan.run_bytes = static_cast<std::size_t>(run) * element_size;
  return true;
}

// Calls run(source_bytes, destination_bytes) for every run of the plan: the
// innermost outer dimension is a plain loop, the rest an odometer.
template <typename RunFn>
void ForEachRun(const CopyPlan& plan, Scratch& counters_scratch, RunFn run) {
  if (plan.outer_rank == 0) {
    run(plan.source_offset, plan.destination_offset);
    return;
  }
  const std::size_t inner = plan.outer_rank - 1;
  const Index inner_extent = plan.extent[inner];
  Index* counter = counters_scratch.data();
  std::fill(counter, counter + inner, 0);
  std::ptrdiff_t source_at = plan.source_offset;
  std::ptrdiff_t destination_at = plan.destination_offset;
  for (;;) {
    for (Index i = 0; i < inner_extent; ++i) {
      run(source_at + i * plan.source_stride[inner],
          destination_at + i * plan.destination_stride[inner]);
    }
    std::size_t d = inner;
    for (; d-- > 0;) {
      source_at += plan.source_stride[d];
      destination_at += plan.destination_stride[d];
      if (++counter[d] < plan.extent[d]) break;
      counter[d] = 0;
      source_at -= plan.extent[d] * plan.source_stride[d];
      destination_at -= plan.extent[d] * plan.destination_stride[d];
    }
    if (d == static_cast<std::size_t>(-1)) return;
  }
}

// A memcpy whose size is a compile-time constant becomes a single load and
// store; small runs (a column of a 2-byte array) are the case that needs it.
template <std::size_t kBytes>
void CopyFixedRuns(const CopyPlan& plan, Scratch& counters, const std::uint8_t* source,
                   std::uint8_t* destination) {
  ForEachRun(plan, counters, [&](std::ptrdiff_t from, std::ptrdiff_t to) {
    std::memcpy(destination + to, source + from, kBytes);
  });
}

bool Streams(const StridedDestination& destination, const CopyPlan& plan) {
  return destination.streaming && plan.run_bytes >= kMinStreamedRunBytes;
}

}  // namespace

void CopyStridedRegion(const StridedSource& source, const StridedDestination& destination,
                       std::span<const Index> extent, std::size_t element_size) {
  CheckBox(source.shape, source.origin, extent);
  CheckBox(destination.shape, destination.origin, extent);
  CHUNKWISE_CHECK(element_size > 0);
  Scratch scratch(3 * extent.size());
  CopyPlan plan;
  if (!MakePlan(source, destination, extent, element_size, scratch, plan)) return;
  Scratch counters(extent.size());
  const auto* from = static_cast<const std::uint8_t*>(source.data);
  auto* to = static_cast<std::uint8_t*>(destination.data);
  if (Streams(destination, plan)) {
    ForEachRun(plan, counters, [&](std::ptrdiff_t source_at, std::ptrdiff_t destination_at) {
      StreamRun(to + destination_at, from + source_at, plan.run_bytes);
    });
    FenceStreamedStores();
    return;
  }
  switch (plan.run_bytes) {
    case 1:
      return CopyFixedRuns<1>(plan, counters, from, to);
    case 2:
      return CopyFixedRuns<2>(plan, counters, from, to);
    case 4:
      return CopyFixedRuns<4>(plan, counters, from, to);
    case 8:
      return CopyFixedRuns<8>(plan, counters, from, to);
    case 16:
      return CopyFixedRuns<16>(plan, counters, from, to);
    default:
      break;
  }
  ForEachRun(plan, counters, [&](std::ptrdiff_t source_at, std::ptrdiff_t destination_at) {
    std::memcpy(to + destination_at, from + source_at, plan.run_bytes);
  });
}

void FillStridedRegion(const StridedDestination& destination, std::span<const Index> extent,
                       std::span<const std::uint8_t> element) {
  CheckBox(destination.shape, destination.origin, extent);
  CHUNKWISE_CHECK(!element.empty());
  const StridedSource shape_only{nullptr, destination.shape, destination.origin};
  Scratch scratch(3 * extent.size());
  CopyPlan plan;
  if (!MakePlan(shape_only, destination, extent, element.size(), scratch, plan)) return;
  auto* bytes = static_cast<std::uint8_t*>(destination.data);
  // Fill the first run by doubling, then copy it over every other run.
  std::uint8_t* first = bytes + plan.destination_offset;
  std::memcpy(first, element.data(), element.size());
  for (std::size_t filled = element.size(); filled < plan.run_bytes;) {
    const std::size_t chunk = std::min(filled, plan.run_bytes - filled);
    std::memcpy(first + filled, first, chunk);
    filled += chunk;
  }
  Scratch counters(extent.size());
  const bool streams = Streams(destination, plan);
  ForEachRun(plan, counters, [&](std::ptrdiff_t, std::ptrdiff_t destination_at) {
    std::uint8_t* run = bytes + destination_at;
    if (run == first) return;
    if (streams) {
      StreamRun(run, first, plan.run_bytes);
    } else {
      std::memcpy(run, first, plan.run_bytes);
    }
  });
  if (streams) FenceStreamedStores();
}

}  // namespace chunkwise::core
