// Zarr groups by URL: open or create one, change its attributes, and name
// what is directly in it (zarr-python's open_group, group.attrs and
// group.members()). What a whole hierarchy holds is ZarrInfo's (zarr_info.h).
//
// Thin: formats/zarr reads and writes the group's own metadata
// (formats/zarr/group_node.h) and lists its members (group.h).
#ifndef CHUNKWISE_FACADE_ZARR_GROUPS_H_
#define CHUNKWISE_FACADE_ZARR_GROUPS_H_

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/result.h"
#include "chunkwise/facade/context.h"
#include "chunkwise/facade/zarr_arrays.h"
#include "chunkwise/store/store.h"

namespace chunkwise {

struct ZarrGroup {
  std::string url;
  int zarr_format = 3;
  nlohmann::json attributes = nlohmann::json::object();
  std::shared_ptr<store::Store> store;  // The store `url` names; the group is its root.
};

// What a new group is.
struct ZarrGroupSpec {
  int zarr_format = 3;
  nlohmann::json attributes = nlohmann::json::object();
};

// One node directly in a group.
struct ZarrGroupMember {
  std::string name;  // Its key segment: the group's URL + "/" + name opens it.
  bool is_group = false;
};

// The group at `url`. NotFound naming the URL or the metadata key when there
// is no group; InvalidArgument naming the key when an array is there.
Result<ZarrGroup> OpenZarrGroup(const Context& context, std::string_view url);

// Writes a new group's metadata at `url` (its store created if missing).
// InvalidArgument naming the URL when something is there and
// !options.overwrite (options.publish is not used: a group has no chunks).
Result<ZarrGroup> CreateZarrGroup(const Context& context, std::string_view url,
                                  const ZarrGroupSpec& spec, const ZarrCreateOptions& options = {});

// Replaces the group's attributes with `attributes` (a JSON object) and
// writes its metadata; InvalidArgument for anything but an object.
Status SetZarrGroupAttributes(ZarrGroup& group, const nlohmann::json& attributes);

// The arrays and groups directly in `group`, sorted by name. The metadata
// parsers' errors, naming the member's key, for one that does not parse.
Result<std::vector<ZarrGroupMember>> ListZarrGroupMembers(const ZarrGroup& group);

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_ZARR_GROUPS_H_
