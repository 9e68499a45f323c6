#include "formats/zarr/group.h"

#include <algorithm>
#include <set>

#include "core/json.h"
#include "formats/zarr/array_layout.h"
#include "formats/zarr/array_metadata.h"

namespace chunkwise::formats::zarr {
namespace {

Result<std::optional<std::string>> GetText(const store::Store& store, const std::string& key) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> bytes, store.Get(key));
  if (!bytes) return std::optional<std::string>();
  return std::optional<std::string>(std::string(AsChars(*bytes)));
}

// The node type ("array", "group") of a v3 zarr.json.
Result<std::string> NodeType(const store::Store& store, const std::string& key,
                             const std::string& text) {
  CHUNKWISE_ASSIGN_OR_RETURN(nlohmann::json root,
                             core::ParseJson(text, store.Describe(key), StatusCode::kCorruption));
  const auto node_type = root.is_object() ? root.find("node_type") : root.end();
  if (node_type == root.end() || !node_type->is_string()) {
    return Status::Corruption(store.Describe(key) + ": no node_type");
  }
  return node_type->get<std::string>();
}

Result<GroupMember> DescribeMember(const store::Store& store, const std::string& prefix,
                                   const std::string& path) {
  const std::string node = prefix + path + "/";
  GroupMember member;
  member.path = path;
  const std::string v3_key = node + std::string(kZarrJsonKey);
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<std::string> v3, GetText(store, v3_key));
  std::optional<ArrayMetadata> metadata;
  if (v3) {
    CHUNKWISE_ASSIGN_OR_RETURN(const std::string type, NodeType(store, v3_key, *v3));
    member.is_group = type == "group";
    if (!member.is_group) {
      CHUNKWISE_ASSIGN_OR_RETURN(metadata, ParseV3ArrayMetadata(*v3, store.Describe(v3_key)));
    }
  } else {
    member.zarr_format = 2;
    const std::string v2_key = node + std::string(kZarrayKey);
    CHUNKWISE_ASSIGN_OR_RETURN(std::optional<std::string> v2, GetText(store, v2_key));
    member.is_group = !v2.has_value();
    if (v2) {
      CHUNKWISE_ASSIGN_OR_RETURN(metadata,
                                 ParseV2ArrayMetadata(*v2, std::nullopt, store.Describe(v2_key)));
    }
  }
  if (metadata) {
    member.shape = metadata->shape;
    if (metadata->unsupported_data_type.empty()) member.data_type = metadata->data_type;
    member.data_type_name = metadata->data_type_name();
    const ExistingLayout layout = DescribeLayout(*metadata);
    member.chunk_shape = layout.chunk_shape;
    member.shard_shape = layout.shard_shape;
  }
  return member;
}

}  // namespace

Result<bool> IsGroup(const store::Store& store, const std::string& prefix) {
  const std::string v3_key = prefix + std::string(kZarrJsonKey);
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<std::string> v3, GetText(store, v3_key));
  if (v3) {
    CHUNKWISE_ASSIGN_OR_RETURN(const std::string type, NodeType(store, v3_key, *v3));
    return type == "group";
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const bool zgroup, store.Exists(prefix + std::string(kZgroupKey)));
  CHUNKWISE_ASSIGN_OR_RETURN(const bool zarray, store.Exists(prefix + std::string(kZarrayKey)));
  return zgroup && !zarray;
}

Result<std::vector<GroupMember>> ListGroupMembers(const store::Store& store,
                                                  const std::string& prefix) {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<std::string> keys, store.List(prefix));
  // A node is a directory holding one of the metadata documents.
  std::set<std::string> paths;
  for (const std::string& key : keys) {
    const std::string relative = key.substr(prefix.size());
    const std::size_t slash = relative.rfind('/');
    if (slash == std::string::npos) continue;  // The group's own documents.
    const std::string name = relative.substr(slash + 1);
    if (name == kZarrJsonKey || name == kZarrayKey || name == kZgroupKey) {
      paths.insert(relative.substr(0, slash));
    }
  }
  std::vector<GroupMember> members;
  for (const std::string& path : paths) {
    CHUNKWISE_ASSIGN_OR_RETURN(GroupMember member, DescribeMember(store, prefix, path));
    members.push_back(std::move(member));
  }
  return members;
}

}  // namespace chunkwise::formats::zarr
