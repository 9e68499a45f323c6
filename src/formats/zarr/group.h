// Zarr groups as readers see them: whether a prefix holds a group, and the
// arrays and groups beneath it (`zarr info` on a group).
#ifndef CHUNKWISE_FORMATS_ZARR_GROUP_H_
#define CHUNKWISE_FORMATS_ZARR_GROUP_H_

#include <optional>
#include <string>
#include <vector>

#include "chunkwise/core/data_type.h"
#include "chunkwise/core/index.h"
#include "chunkwise/core/result.h"
#include "chunkwise/store/store.h"

namespace chunkwise::formats::zarr {

// One node under a group.
struct GroupMember {
  std::string path;  // Relative to the group, without a trailing "/", e.g. "raw/s0".
  bool is_group = false;
  int zarr_format = 3;
  // Arrays only.
  core::Shape shape;
  std::optional<core::DataType> data_type;  // Absent for a type this library lacks.
  std::string data_type_name;               // ArrayMetadata::data_type_name().
  core::Shape chunk_shape;                  // The inner chunk when sharded.
  std::optional<core::Shape> shard_shape;   // Set when sharded.
};

// True when `prefix` ("" or ending in "/") holds a group: a zarr.json whose
// node_type is "group", or a v2 .zgroup with no .zarray. Corruption naming the
// key for a zarr.json that is not JSON.
Result<bool> IsGroup(const store::Store& store, const std::string& prefix);

// Every array and group below the group at `prefix`, at any depth, sorted by
// path. The metadata parsers' errors, naming the member's key, for a member
// that does not parse.
Result<std::vector<GroupMember>> ListGroupMembers(const store::Store& store,
                                                  const std::string& prefix);

}  // namespace chunkwise::formats::zarr

#endif  // CHUNKWISE_FORMATS_ZARR_GROUP_H_
