#include "store/range_coalescing.h"

#include <algorithm>
#include <numeric>

namespace chunkwise::store {
namespace {

// A request being built: its group, the end of the bytes its ranges cover
// (ranges come by offset, so what they cover so far ends there) and how many
// of its bytes they need.
struct OpenGroup {
  CoalescedRange group;
  std::uint64_t needed = 0;
};

// Whether `range` (offset >= the group's) may join `open` under `limits`.
bool MayJoin(const OpenGroup& open, const ByteRange& range, const RangeCoalescing& limits,
             std::uint64_t* joined_length, std::uint64_t* joined_needed) {
  const std::uint64_t end = open.group.offset + open.group.length;
  const std::uint64_t range_end = range.offset + range.length;
  const std::uint64_t gap = range.offset > end ? range.offset - end : 0;
  *joined_length = std::max(end, range_end) - open.group.offset;
  *joined_needed = open.needed + (range_end > end ? range_end - std::max(range.offset, end) : 0);
  if (gap > limits.max_gap || *joined_length > limits.max_request) return false;
  if (gap <= limits.small_gap) return true;
  const std::uint64_t waste = *joined_length - *joined_needed;
  return static_cast<double>(waste) <= limits.max_waste * static_cast<double>(*joined_length);
}

}  // namespace

std::vector<CoalescedRange> CoalesceRanges(std::span<const ByteRange> ranges,
                                           const RangeCoalescing& limits) {
  std::vector<std::size_t> order(ranges.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return ranges[a].offset < ranges[b].offset;
  });
  std::vector<CoalescedRange> groups;
  OpenGroup open;
  bool have_open = false;
  for (std::size_t index : order) {
    const ByteRange& range = ranges[index];
    std::uint64_t length = 0, needed = 0;
    if (have_open && MayJoin(open, range, limits, &length, &needed)) {
      open.group.length = length;
      open.group.members.push_back(index);
      open.needed = needed;
      continue;
    }
    if (have_open) groups.push_back(std::move(open.group));
    open = {{range.offset, range.length, {index}}, range.length};
    have_open = true;
  }
  if (have_open) groups.push_back(std::move(open.group));
  return groups;
}

}  // namespace chunkwise::store
