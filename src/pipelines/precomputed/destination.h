// Where a conversion writes a precomputed volume: what it may find there.
//
// A destination holding a volume's info, or keys under one of its scales,
// is refused unless the caller chose to overwrite it (everything under the
// scales and the info is erased first) or to resume it (the info, if
// present, must be the one the conversion writes; complete shards are kept
// by the caller).
#ifndef CHUNKWISE_SRC_PIPELINES_PRECOMPUTED_DESTINATION_H_
#define CHUNKWISE_SRC_PIPELINES_PRECOMPUTED_DESTINATION_H_

#include "formats/precomputed/volume.h"

namespace chunkwise::pipelines::detail {

struct DestinationPolicy {
  bool overwrite = false;
  bool resume = false;
};

// InvalidArgument naming the info key if the destination is taken and the
// policy allows neither, or resume meets a different info; the store's errors.
Status PrepareDestination(formats::precomputed::Volume& volume, const DestinationPolicy& policy);

}  // namespace chunkwise::pipelines::detail

#endif  // CHUNKWISE_SRC_PIPELINES_PRECOMPUTED_DESTINATION_H_
