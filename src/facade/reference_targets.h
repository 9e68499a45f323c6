// How a reference set read by the facade reaches targets in object storage
// (s3://, gs://): the store over each target's parent, opened once per parent.
#ifndef CHUNKWISE_FACADE_REFERENCE_TARGETS_H_
#define CHUNKWISE_FACADE_REFERENCE_TARGETS_H_

#include "chunkwise/facade/store_registry.h"
#include "chunkwise/store/reference_store.h"

namespace chunkwise {

// Opens s3:// and gs:// targets with `options`' remote settings; other
// schemes are Unsupported naming the URL. Thread-safe; the stores it opens
// are shared by every copy of it.
store::TargetOpener ObjectStorageTargetOpener(const StoreOptions& options);

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_REFERENCE_TARGETS_H_
