// OpenStoreForUrl: the one place the module turns a URL or path into a store,
// through the facade's OpenStore (include/chunkwise/chunkwise.h) and the
// module's one Context (operation.h).
#ifndef CHUNKWISE_PYTHON_OPEN_STORE_H_
#define CHUNKWISE_PYTHON_OPEN_STORE_H_

#include <memory>
#include <string_view>

#include "chunkwise/chunkwise.h"

namespace chunkwise::python {

// Every scheme the facade's registry knows (a path, file://, memory://NAME,
// which is the same store on every call, s3://, gs://, http(s)://, rocksdb://,
// a reference set's file). `create`: a missing directory is created, and a
// killed writer's temporary files under it are removed first.
Result<std::shared_ptr<store::Store>> OpenStoreForUrl(std::string_view url, bool create);

}  // namespace chunkwise::python

#endif  // CHUNKWISE_PYTHON_OPEN_STORE_H_
