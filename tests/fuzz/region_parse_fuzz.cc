// Fuzzes the text parsers the CLI exposes: ParseRegion against a fixed shape
// and against a fuzzed ParseShape result, and ParseShape itself. None may
// crash, and what they accept must be self-consistent.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "chunkwise/core/check.h"
#include "chunkwise/core/index.h"
#include "chunkwise/core/region.h"

namespace {

using chunkwise::core::FormatShape;
using chunkwise::core::NumElements;
using chunkwise::core::ParseRegion;
using chunkwise::core::ParseShape;
using chunkwise::core::Region;
using chunkwise::core::Shape;

// An accepted region lies inside its array and reads back from its own text.
void CheckRegion(std::string_view text, const Shape& shape) {
  auto region = ParseRegion(text, shape);
  if (!region.ok()) return;
  CHUNKWISE_CHECK(region->rank() == static_cast<int>(shape.size()));
  CHUNKWISE_CHECK(Region::Full(shape).Covers(*region));
  // A region's count fits whenever its array's does.
  if (NumElements(shape).ok()) CHUNKWISE_CHECK(NumElements(region->shape()).ok());
  auto again = ParseRegion(region->ToString(), shape);
  CHUNKWISE_CHECK(again.ok() && *again == *region);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  static const Shape kShape{100, 2048, 1, 0, 7};
  CheckRegion(input, kShape);

  // "shape|region": the shape text is fuzzed too.
  const std::size_t bar = input.find('|');
  auto shape = ParseShape(input.substr(0, bar));
  if (shape.ok()) {
    auto again = ParseShape(FormatShape(*shape));
    CHUNKWISE_CHECK(again.ok() && *again == *shape);
    if (bar != std::string_view::npos) CheckRegion(input.substr(bar + 1), *shape);
  }
  return 0;
}
