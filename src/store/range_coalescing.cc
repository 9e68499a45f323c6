#include "store/range_coalescing.h"

#include <algorithm>
#include <numeric>

namespace chunkwise::store {

std::vector<CoalescedRange> CoalesceRanges(std::span<const ByteRange> ranges, std::uint64_t max_gap,
                                           std::uint64_t max_length) {
  std::vector<std::size_t> order(ranges.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return ranges[a].offset < ranges[b].offset;
  });
  std::vector<CoalescedRange> groups;
  for (std::size_t index : order) {
    const ByteRange& range = ranges[index];
    const std::uint64_t end = range.offset + range.length;
    if (!groups.empty()) {
      CoalescedRange& last = groups.back();
      const std::uint64_t last_end = last.offset + last.length;
      const std::uint64_t joined_end = std::max(last_end, end);
      // The ranges are sorted by offset, so range.offset >= last.offset.
      const bool near = range.offset <= last_end || range.offset - last_end <= max_gap;
      if (near && joined_end - last.offset <= max_length) {
        last.length = joined_end - last.offset;
        last.members.push_back(index);
        continue;
      }
    }
    groups.push_back({range.offset, range.length, {index}});
  }
  return groups;
}

}  // namespace chunkwise::store
