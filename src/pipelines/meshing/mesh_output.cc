#include "pipelines/meshing/mesh_output.h"

#include <atomic>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/json.h"
#include "formats/precomputed/legacy_mesh.h"

namespace chunkwise::pipelines {
namespace {

namespace pc = formats::precomputed;

Status SetText(store::Store& store, const std::string& key, const std::string& text) {
  return store.Set(key, ByteView(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
}

Status EraseFolder(store::Store& store, const std::string& folder) {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<std::string> keys, store.List(folder));
  for (const std::string& key : keys) CHUNKWISE_RETURN_IF_ERROR(store.Erase(key));
  return Status::Ok();
}

// The segmentation's info, checked, with member order kept.
Result<nlohmann::ordered_json> ReadSegmentationInfo(const store::Store& store,
                                                    const std::string& key) {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<Bytes> bytes, store.Get(key));
  if (!bytes) {
    return Status::NotFound("no precomputed volume at " + store.Describe(key) +
                            " (its info is missing): meshes go into a precomputed segmentation");
  }
  const std::string_view text(reinterpret_cast<const char*>(bytes->data()), bytes->size());
  CHUNKWISE_ASSIGN_OR_RETURN(
      nlohmann::ordered_json info,
      core::ParseOrderedJson(text, store.Describe(key), StatusCode::kCorruption));
  if (!info.is_object() || info.value("type", "") != "segmentation") {
    return Status::InvalidArgument(store.Describe(key) +
                                   " is not a precomputed segmentation (\"type\" is not "
                                   "\"segmentation\"): only segmentations have meshes");
  }
  return info;
}

// Refuses meshes or properties already there unless overwrite, and empties their folders if so.
Status ClearOrRefuse(store::Store& store, const std::string& prefix,
                     const nlohmann::ordered_json& info, const MeshOutputOptions& options) {
  for (const std::string& folder : {options.mesh_dir, options.properties_dir}) {
    CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<std::string> keys,
                               store.List(prefix + folder + "/"));
    if (!keys.empty() && !options.overwrite) {
      return Status::InvalidArgument(store.Describe(prefix + folder) + " already holds " +
                                     std::to_string(keys.size()) +
                                     " objects; overwrite to replace them")
          .WithField("overwrite");
    }
  }
  for (const char* member : {"mesh", "segment_properties"}) {
    if (info.contains(member) && !options.overwrite) {
      return Status::InvalidArgument(store.Describe(prefix + "info") + " already names its " +
                                     member + " (" + info[member].dump() +
                                     "); overwrite to replace it")
          .WithField("overwrite");
    }
  }
  CHUNKWISE_RETURN_IF_ERROR(EraseFolder(store, prefix + options.mesh_dir + "/"));
  return EraseFolder(store, prefix + options.properties_dir + "/");
}

Result<MeshOutputSummary> WriteFolders(store::Store& store, const std::string& prefix,
                                       const MeshedLabels& meshed,
                                       const MeshOutputOptions& options) {
  const std::string mesh_folder = prefix + options.mesh_dir + "/";
  std::vector<const std::pair<const std::uint64_t, LabelMesh>*> entries;
  for (const auto& entry : meshed.meshes) entries.push_back(&entry);
  std::atomic<std::uint64_t> bytes = 0;
  auto write = [&](std::size_t i) -> Status {
    if (options.cancellation != nullptr) {
      CHUNKWISE_RETURN_IF_ERROR(options.cancellation->Check("writing meshes"));
    }
    const auto& [id, mesh] = *entries[i];
    const Bytes fragment = pc::EncodeLegacyFragment(mesh);
    bytes += fragment.size();
    CHUNKWISE_RETURN_IF_ERROR(store.Set(mesh_folder + pc::LegacyFragmentName(id), fragment));
    return SetText(store, mesh_folder + pc::LegacyManifestKey(id),
                   pc::LegacyManifestText({pc::LegacyFragmentName(id)}));
  };
  if (options.pool != nullptr) {
    CHUNKWISE_RETURN_IF_ERROR(options.pool->ParallelFor(entries.size(), write));
  } else {
    for (std::size_t i = 0; i < entries.size(); ++i) CHUNKWISE_RETURN_IF_ERROR(write(i));
  }
  CHUNKWISE_RETURN_IF_ERROR(SetText(store, mesh_folder + "info", pc::LegacyMeshInfoText()));
  CHUNKWISE_RETURN_IF_ERROR(
      SetText(store, prefix + options.properties_dir + "/info",
              pc::SegmentPropertiesInfoText(meshed.voxel_counts, options.names)));
  MeshOutputSummary summary;
  summary.segments = meshed.meshes.size();
  for (const auto& [id, mesh] : meshed.meshes) {
    summary.vertices += mesh.num_vertices();
    summary.triangles += mesh.num_triangles();
  }
  summary.bytes = bytes;
  return summary;
}

}  // namespace

Result<MeshOutputSummary> WriteLegacyMeshes(store::Store& store, const std::string& prefix,
                                            const MeshedLabels& meshed,
                                            const MeshOutputOptions& options) {
  const std::string info_key = prefix + "info";
  CHUNKWISE_ASSIGN_OR_RETURN(nlohmann::ordered_json info, ReadSegmentationInfo(store, info_key));
  CHUNKWISE_RETURN_IF_ERROR(ClearOrRefuse(store, prefix, info, options));
  Result<MeshOutputSummary> summary = WriteFolders(store, prefix, meshed, options);
  Status status = summary.status();
  if (status.ok()) {
    info["mesh"] = options.mesh_dir;
    info["segment_properties"] = options.properties_dir;
    status = SetText(store, info_key, info.dump());
  }
  if (!status.ok()) {
    // What was written goes; an error while erasing leaves the first error to report.
    (void)EraseFolder(store, prefix + options.mesh_dir + "/");
    (void)EraseFolder(store, prefix + options.properties_dir + "/");
    return status;
  }
  return summary;
}

}  // namespace chunkwise::pipelines
