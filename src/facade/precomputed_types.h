// The facade's precomputed types (facade/precomputed_volumes.h) and the
// format's (formats/precomputed), converted both ways, and the library's
// volume behind a PrecomputedVolume: for src/facade alone.
#ifndef CHUNKWISE_FACADE_PRECOMPUTED_TYPES_H_
#define CHUNKWISE_FACADE_PRECOMPUTED_TYPES_H_

#include <memory>

#include "chunkwise/facade/precomputed_volumes.h"
#include "formats/precomputed/info.h"
#include "formats/precomputed/sharding.h"
#include "formats/precomputed/volume.h"

namespace chunkwise {

struct PrecomputedVolume::Held {
  std::unique_ptr<formats::precomputed::Volume> volume;
};

class PrecomputedVolumeAccess {
 public:
  static std::unique_ptr<PrecomputedVolume> Wrap(
      std::unique_ptr<formats::precomputed::Volume> volume);
  static const formats::precomputed::Volume& Held(const PrecomputedVolume& volume) {
    return *volume.held_->volume;
  }
};

formats::precomputed::ShardEncoding ToFormat(PrecomputedShardEncoding encoding);
formats::precomputed::ShardingSpec ToFormat(const PrecomputedShardingSpec& spec);
PrecomputedShardingSpec FromFormat(const formats::precomputed::ShardingSpec& spec);
formats::precomputed::VolumeInfo ToFormat(const PrecomputedVolumeInfo& info);
PrecomputedVolumeInfo FromFormat(const formats::precomputed::VolumeInfo& info);

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_PRECOMPUTED_TYPES_H_
