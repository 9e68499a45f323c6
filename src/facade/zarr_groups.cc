#include "chunkwise/facade/zarr_groups.h"

#include <utility>

#include "formats/zarr/array_metadata.h"
#include "formats/zarr/group.h"
#include "formats/zarr/group_node.h"

namespace chunkwise {
namespace {

namespace zarr = formats::zarr;

zarr::GroupNode NodeOf(const ZarrGroup& group) { return {group.zarr_format, group.attributes}; }

}  // namespace

Result<ZarrGroup> OpenZarrGroup(const Context& context, std::string_view url) {
  ZarrGroup group;
  group.url = std::string(url);
  CHUNKWISE_ASSIGN_OR_RETURN(group.store, OpenStore(context, url, context.store_options(false)));
  CHUNKWISE_ASSIGN_OR_RETURN(const zarr::GroupNode node, zarr::ReadGroupNode(*group.store, ""));
  group.zarr_format = node.zarr_format;
  group.attributes = node.attributes;
  return group;
}

Result<ZarrGroup> CreateZarrGroup(const Context& context, std::string_view url,
                                  const ZarrGroupSpec& spec, const ZarrCreateOptions& options) {
  if (spec.zarr_format != 2 && spec.zarr_format != 3) {
    return Status::InvalidArgument("the zarr format must be 2 or 3").WithField("zarr_format");
  }
  ZarrGroup group;
  group.url = std::string(url);
  group.zarr_format = spec.zarr_format;
  group.attributes = spec.attributes;
  CHUNKWISE_ASSIGN_OR_RETURN(group.store, OpenStore(context, url, context.store_options(true)));
  CHUNKWISE_RETURN_IF_ERROR(
      zarr::ClearForOverwrite(*group.store, "", options.overwrite, group.url));
  CHUNKWISE_RETURN_IF_ERROR(zarr::WriteGroupNode(*group.store, "", NodeOf(group)));
  return group;
}

Status SetZarrGroupAttributes(ZarrGroup& group, const nlohmann::json& attributes) {
  zarr::GroupNode node = NodeOf(group);
  node.attributes = attributes;
  CHUNKWISE_RETURN_IF_ERROR(zarr::WriteGroupNode(*group.store, "", node));
  group.attributes = attributes;
  return Status::Ok();
}

Result<std::vector<ZarrGroupMember>> ListZarrGroupMembers(const ZarrGroup& group) {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<zarr::GroupMember> all,
                             zarr::ListGroupMembers(*group.store, ""));
  std::vector<ZarrGroupMember> direct;
  for (const zarr::GroupMember& member : all) {
    if (member.path.find('/') == std::string::npos)
      direct.push_back({member.path, member.is_group});
  }
  return direct;
}

}  // namespace chunkwise
