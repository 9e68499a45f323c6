// A zarr group's own metadata: its format and attributes, read and rewritten
// (zarr-python's `group.attrs`). Members are group.h's.
#ifndef CHUNKWISE_FORMATS_ZARR_GROUP_NODE_H_
#define CHUNKWISE_FORMATS_ZARR_GROUP_NODE_H_

#include <nlohmann/json.hpp>
#include <string>

#include "chunkwise/core/result.h"
#include "chunkwise/store/store.h"

namespace chunkwise::formats::zarr {

struct GroupNode {
  int zarr_format = 3;
  nlohmann::json attributes = nlohmann::json::object();
};

// The group at `prefix` ("" or ending in "/"): a v3 zarr.json whose
// node_type is "group", else a v2 .zgroup (and its .zattrs). NotFound naming
// the zarr.json key when neither is there; InvalidArgument naming the key
// when an array is there; Corruption naming the key for a document that
// does not parse.
Result<GroupNode> ReadGroupNode(const store::Store& store, const std::string& prefix);

// Writes the group's metadata for `node`: zarr.json, or v2's .zgroup and
// .zattrs (written even when empty, so that removed attributes go).
Status WriteGroupNode(store::Store& store, const std::string& prefix, const GroupNode& node);

}  // namespace chunkwise::formats::zarr

#endif  // CHUNKWISE_FORMATS_ZARR_GROUP_NODE_H_
