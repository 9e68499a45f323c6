// Converting a zarr-vectors store between the on-disk layouts 0.8 and 0.9
// (docs/formats/vectors.md, "Layout 0.9"): the same vertices, links and
// attributes, rewritten in the other layout (or the same one, rechunked
// nowhere: the chunk shape is the source's).
#ifndef CHUNKWISE_FACADE_VECTORS_CONVERSION_H_
#define CHUNKWISE_FACADE_VECTORS_CONVERSION_H_

#include <string_view>

#include "chunkwise/core/result.h"
#include "chunkwise/facade/call_options.h"
#include "chunkwise/facade/context.h"
#include "chunkwise/facade/vectors.h"

namespace chunkwise {

struct VectorsConvertOptions {
  VectorsLayout layout = VectorsLayout::k0_9;  // The layout of the new store.
  bool overwrite = false;                      // Replace a store already at the destination.
};

// Reads level 0 of the store at `source` whole and writes it as a new store
// at `destination` in options.layout, published whole (WriteVectors): a
// conversion that fails leaves no store there. InvalidArgument when the two
// URLs are the same, or a store is at `destination` without overwrite;
// Unsupported for a source with coarser levels (the pyramid is not
// converted; build it again on the result) and for what the target layout
// cannot hold (WriteVectors). Progress counts the vertices written.
Result<VectorsWriteSummary> ConvertVectors(const Context& context, std::string_view source,
                                           std::string_view destination,
                                           const VectorsConvertOptions& options = {},
                                           const CallOptions& call = {});

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_VECTORS_CONVERSION_H_
