#include "chunkwise/facade/zarr_info.h"

#include "chunkwise/core/region.h"
#include "chunkwise/facade/zarr_strings.h"
#include "core/memory_limit.h"
#include "facade/zarr_array_access.h"
#include "formats/zarr/array.h"
#include "formats/zarr/array_layout.h"
#include "formats/zarr/fill_value.h"
#include "formats/zarr/group.h"

namespace chunkwise {
namespace {

namespace zarr = formats::zarr;

nlohmann::json ShapeOrNull(const std::optional<core::Shape>& shape) {
  return shape ? nlohmann::json(*shape) : nlohmann::json();
}

// The group's members, one object each, in the order the store lists them.
Result<nlohmann::ordered_json> GroupInfo(const store::Store& store, std::string_view url) {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<zarr::GroupMember> members,
                             zarr::ListGroupMembers(store, ""));
  nlohmann::ordered_json listed = nlohmann::ordered_json::array();
  for (const zarr::GroupMember& member : members) {
    nlohmann::ordered_json entry;
    entry["path"] = member.path;
    entry["node_type"] = member.is_group ? "group" : "array";
    entry["zarr_format"] = member.zarr_format;
    if (!member.is_group) {
      entry["shape"] = member.shape;
      entry["dtype"] = member.data_type_name;
      entry["chunks"] = member.chunk_shape;
      entry["shards"] = ShapeOrNull(member.shard_shape);
    }
    listed.push_back(std::move(entry));
  }
  nlohmann::ordered_json root;
  root["path"] = std::string(url);
  root["node_type"] = "group";
  root["members"] = std::move(listed);
  return root;
}

// What the metadata of an array this library cannot read says (a codec or
// data type it lacks), and why it cannot be read: `info` still shows it.
Result<nlohmann::ordered_json> UnreadableArrayInfo(const store::Store& store, std::string_view url,
                                                   const Status& why) {
  CHUNKWISE_ASSIGN_OR_RETURN(const zarr::ArrayMetadata metadata,
                             zarr::ReadArrayMetadata(store, ""));
  const zarr::ExistingLayout layout = zarr::DescribeLayout(metadata);
  nlohmann::ordered_json root;
  root["path"] = std::string(url);
  root["node_type"] = "array";
  root["zarr_format"] = metadata.zarr_format;
  root["shape"] = metadata.shape;
  root["dtype"] = metadata.data_type_name();
  root["chunks"] = layout.chunk_shape;
  root["shards"] = ShapeOrNull(layout.shard_shape);
  root["codecs"] = metadata.codecs;
  root["dimension_names"] = metadata.dimension_names.value_or(nlohmann::json());
  root["attributes"] = metadata.attributes;
  root["readable"] = false;
  root["unsupported"] = std::string(why.message());
  return root;
}

}  // namespace

Result<nlohmann::ordered_json> ZarrArrayInfo(const Context& context, const ZarrArray& array,
                                             std::string_view url, const ZarrInfoOptions& options,
                                             const CallOptions& call) {
  CHUNKWISE_RETURN_IF_ERROR(context.CheckCancelled(call, "describing " + std::string(url)));
  const zarr::Array& held = ZarrArrayAccess::Held(array);
  const zarr::ArrayMetadata& metadata = held.metadata();
  const zarr::ExistingLayout layout = zarr::DescribeLayout(metadata);
  const bool sharded = layout.shard_shape.has_value();
  nlohmann::ordered_json root;
  root["path"] = std::string(url);
  root["node_type"] = "array";
  root["zarr_format"] = metadata.zarr_format;
  root["shape"] = metadata.shape;
  root["dtype"] = metadata.data_type_name();
  root["chunks"] = layout.chunk_shape;
  root["shards"] = ShapeOrNull(layout.shard_shape);
  root["fill_value"] = metadata.fill_value_null
                           ? nlohmann::json()
                           : zarr::FillValueToJson(metadata.fill_value, metadata.data_type);
  root["codecs"] = metadata.codecs;
  root["dimension_names"] = metadata.dimension_names.value_or(nlohmann::json());
  root["attributes"] = metadata.attributes;
  root["nbytes"] = core::SaturatingProduct(
      static_cast<std::uint64_t>(core::Region::Full(metadata.shape).num_elements()),
      metadata.data_type.size());
  if (!options.count_stored) return root;
  CHUNKWISE_ASSIGN_OR_RETURN(const zarr::ArrayStorageStats stats, held.Stats());
  root["nbytes_stored"] = stats.stored_bytes;
  root["nchunks"] = stats.grid_chunks;
  root["nchunks_initialized"] = stats.stored_keys;
  root["ninner_chunks"] = sharded ? nlohmann::json(stats.grid_inner_chunks) : nlohmann::json();
  root["ninner_chunks_initialized"] =
      sharded ? nlohmann::json(stats.stored_inner_chunks) : nlohmann::json();
  return root;
}

Result<nlohmann::ordered_json> ZarrInfo(const Context& context, std::string_view url,
                                        const CallOptions& call) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, url, context.store_options(false)));
  CHUNKWISE_ASSIGN_OR_RETURN(const bool group, zarr::IsGroup(*store, ""));
  if (group) return GroupInfo(*store, url);
  Result<ZarrArray> array = OpenZarrArray(context, url, {}, call);
  if (!array.ok() && array.status().code() == StatusCode::kUnsupported) {
    CHUNKWISE_ASSIGN_OR_RETURN(nlohmann::ordered_json root,
                               UnreadableArrayInfo(*store, url, array.status()));
    // Text has no fixed-size elements, yet `zarr read` gives it (a unicode .npy).
    Result<ZarrStringArrayInfo> strings = DescribeZarrStringArray(context, url);
    if (strings.ok() && !strings->bytes) {
      root["fill_value"] = strings->fill_value;
      root["readable"] = true;
      root.erase("unsupported");
    }
    return root;
  }
  CHUNKWISE_RETURN_IF_ERROR(array.status());
  return ZarrArrayInfo(context, *array, url, {}, call);
}

}  // namespace chunkwise
