// Region text for a volume with an origin (a DVID labelmap): ParseRegion's
// syntax (core/region.h, docs/cli.md) with absolute coordinates.
#ifndef CHUNKWISE_CORE_REGION_TEXT_H_
#define CHUNKWISE_CORE_REGION_TEXT_H_

#include <string_view>

#include "chunkwise/core/region.h"
#include "chunkwise/core/result.h"

namespace chunkwise::core {

// Numbers are absolute coordinates and may be negative or lie outside
// `defaults`: an open end ("a:", ":b", ":") or a missing trailing dimension
// takes the bound of `defaults` (e.g. the stored extent), and "" is
// `defaults`. InvalidArgument, naming the dimension and its text, when
// start > stop, a step is given, a field is not an integer, or there are more
// fields than dimensions.
Result<Region> ParseBox(std::string_view text, const Region& defaults);

}  // namespace chunkwise::core

#endif  // CHUNKWISE_CORE_REGION_TEXT_H_
