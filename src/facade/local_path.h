// Local paths among store URLs: what the facade checks on the file system
// before it opens a store, read the way ParseStoreUrl reads a URL. Private
// to the facade.
#ifndef CHUNKWISE_SRC_FACADE_LOCAL_PATH_H_
#define CHUNKWISE_SRC_FACADE_LOCAL_PATH_H_

#include <optional>
#include <string>
#include <string_view>

#include "chunkwise/core/status.h"

namespace chunkwise {

// The path of a URL of the local file system ("dir", "file:///dir"); nullopt
// for any other scheme or a URL that names nothing.
std::optional<std::string> LocalPathOf(std::string_view url);

// NotFound naming `url` when it is a local path that does not exist.
Status CheckLocalPathExists(std::string_view url);

}  // namespace chunkwise

#endif  // CHUNKWISE_SRC_FACADE_LOCAL_PATH_H_
