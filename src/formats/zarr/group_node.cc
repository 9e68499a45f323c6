#include "formats/zarr/group_node.h"

#include <optional>
#include <string>

#include "core/json.h"
#include "formats/zarr/array_metadata.h"

namespace chunkwise::formats::zarr {
namespace {

// The JSON object stored at `key`, or nullopt when the key is absent.
Result<std::optional<nlohmann::json>> GetObject(const store::Store& store, const std::string& key) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> bytes, store.Get(key));
  if (!bytes) return std::optional<nlohmann::json>();
  CHUNKWISE_ASSIGN_OR_RETURN(
      nlohmann::json root,
      core::ParseJson(AsChars(*bytes), store.Describe(key), StatusCode::kCorruption));
  if (!root.is_object()) return Status::Corruption(store.Describe(key) + ": not a JSON object");
  return std::optional<nlohmann::json>(std::move(root));
}

Status SetText(store::Store& store, const std::string& key, const std::string& text) {
  return store.Set(key, AsBytes(text));
}

}  // namespace

Result<GroupNode> ReadGroupNode(const store::Store& store, const std::string& prefix) {
  const std::string v3_key = prefix + std::string(kZarrJsonKey);
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<nlohmann::json> v3, GetObject(store, v3_key));
  GroupNode node;
  if (v3) {
    if (v3->value("node_type", std::string()) != "group") {
      return Status::InvalidArgument(store.Describe(v3_key) + ": not a group (node_type " +
                                     v3->value("node_type", nlohmann::json()).dump() + ")");
    }
    const nlohmann::json attributes = v3->value("attributes", nlohmann::json::object());
    if (attributes.is_object()) node.attributes = attributes;
    return node;
  }
  const std::string zgroup_key = prefix + std::string(kZgroupKey);
  CHUNKWISE_ASSIGN_OR_RETURN(const bool zgroup, store.Exists(zgroup_key));
  CHUNKWISE_ASSIGN_OR_RETURN(const bool zarray, store.Exists(prefix + std::string(kZarrayKey)));
  if (zarray) {
    return Status::InvalidArgument(store.Describe(prefix + std::string(kZarrayKey)) +
                                   ": an array, not a group");
  }
  if (!zgroup) return Status::NotFound(store.Describe(v3_key) + ": no zarr group here");
  node.zarr_format = 2;
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<nlohmann::json> zattrs,
                             GetObject(store, prefix + std::string(kZattrsKey)));
  if (zattrs) node.attributes = std::move(*zattrs);
  return node;
}

Status WriteGroupNode(store::Store& store, const std::string& prefix, const GroupNode& node) {
  if (!node.attributes.is_object()) {
    return Status::InvalidArgument(DescribePrefix(store, prefix) +
                                   ": attributes must be a JSON object, not " +
                                   std::string(node.attributes.type_name()));
  }
  if (node.zarr_format == 3) {
    return SetText(store, prefix + std::string(kZarrJsonKey), FormatV3Group(node.attributes));
  }
  CHUNKWISE_RETURN_IF_ERROR(
      SetText(store, prefix + std::string(kZattrsKey), node.attributes.dump(4) + "\n"));
  return SetText(store, prefix + std::string(kZgroupKey), FormatV2Group());
}

}  // namespace chunkwise::formats::zarr
