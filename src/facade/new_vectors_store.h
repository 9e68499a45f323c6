// The zarr-vectors store a split job (mesh_jobs.h, skeleton_jobs.h) is about
// to write whole in its last step, checked in its first: a store already
// there is refused before any work, as the store's writer would refuse it
// at the end. The job's own scratch folder does not count. Private to the
// facade.
#ifndef CHUNKWISE_SRC_FACADE_NEW_VECTORS_STORE_H_
#define CHUNKWISE_SRC_FACADE_NEW_VECTORS_STORE_H_

#include <string_view>

#include "chunkwise/core/result.h"
#include "chunkwise/store/store.h"

namespace chunkwise {

// InvalidArgument (field "overwrite") naming `url` and how many keys it
// holds outside "<scratch_folder>/", unless `overwrite`.
Status CheckNewVectorsStore(const store::Store& store, std::string_view url,
                            std::string_view scratch_folder, bool overwrite);

}  // namespace chunkwise

#endif  // CHUNKWISE_SRC_FACADE_NEW_VECTORS_STORE_H_
