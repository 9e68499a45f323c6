// A store seen from one of its folders: key k is key "<folder>/k" of the
// store beneath. Private to the facade: OpenStore gives one for a URL that
// names a path inside a store that is not a directory tree, such as an array
// inside a reference set ("g.json/v").
#ifndef CHUNKWISE_SRC_FACADE_SUBTREE_STORE_H_
#define CHUNKWISE_SRC_FACADE_SUBTREE_STORE_H_

#include <memory>
#include <string>
#include <string_view>

#include "chunkwise/store/store.h"

namespace chunkwise {

// The view of `base` under `folder` ("v", "a/b"; no leading or trailing "/").
// Every call forwards to `base` with the folder prepended, so the view can do
// what `base` can (a reference set's view is read-only as the set is).
std::shared_ptr<store::Store> MakeSubtreeStore(std::shared_ptr<store::Store> base,
                                               std::string folder);

}  // namespace chunkwise

#endif  // CHUNKWISE_SRC_FACADE_SUBTREE_STORE_H_
