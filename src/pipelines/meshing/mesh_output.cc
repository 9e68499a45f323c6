#include "pipelines/meshing/mesh_output.h"

#include <atomic>
#include <cmath>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/json.h"
#include "formats/precomputed/legacy_mesh.h"
#include "formats/precomputed/multires_mesh.h"
#include "formats/precomputed/segment_shards.h"
#include "pipelines/meshing/mesh_lods.h"
#include "pipelines/meshing/quadric_simplification.h"

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

// Objects of `folder` but those of a split job's scratch folder.
Result<std::vector<std::string>> ListOutput(store::Store& store, const std::string& folder) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<std::string> keys, store.List(folder));
  const std::string scratch = folder + std::string(kMeshScratchFolder) + "/";
  std::erase_if(keys, [&](const std::string& key) { return key.starts_with(scratch); });
  return keys;
}

// Refuses meshes or properties already there unless overwrite, and, with
// `clear`, empties their folders if so (a split job's scratch folder kept).
Status ClearOrRefuse(store::Store& store, const std::string& prefix,
                     const nlohmann::ordered_json& info, const MeshOutputOptions& options,
                     bool clear) {
  for (const std::string& folder : {options.mesh_dir, options.properties_dir}) {
    CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<std::string> keys,
                               ListOutput(store, prefix + folder + "/"));
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
  if (!clear) return Status::Ok();
  for (const std::string& folder : {options.mesh_dir, options.properties_dir}) {
    CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<std::string> keys,
                               ListOutput(store, prefix + folder + "/"));
    for (const std::string& key : keys) CHUNKWISE_RETURN_IF_ERROR(store.Erase(key));
  }
  return Status::Ok();
}

// What one segment's writer wrote: bytes, and the mesh's size as written
// (multires: LOD 0).
struct WrittenLabel {
  std::uint64_t bytes = 0;
  std::uint64_t vertices = 0;
  std::uint64_t triangles = 0;
};

// Writes one segment's mesh into the mesh folder.
using LabelWriter = std::function<Result<WrittenLabel>(std::uint64_t id, const LabelMesh& mesh)>;
// Runs once every segment is written, before the infos; returns the bytes it
// wrote. May be empty.
using AfterLabels = std::function<Result<std::uint64_t>()>;

// Every segment's mesh written (in parallel on options.pool), then `after_labels`.
Result<MeshOutputSummary> WriteLabels(const std::map<std::uint64_t, LabelMesh>& meshes,
                                      const MeshOutputOptions& options,
                                      const LabelWriter& write_label,
                                      const AfterLabels& after_labels) {
  std::vector<const std::pair<const std::uint64_t, LabelMesh>*> entries;
  for (const auto& entry : meshes) entries.push_back(&entry);
  std::atomic<std::uint64_t> bytes = 0, vertices = 0, triangles = 0;
  auto write = [&](std::size_t i) -> Status {
    if (options.cancellation != nullptr) {
      CHUNKWISE_RETURN_IF_ERROR(options.cancellation->Check("writing meshes"));
    }
    const auto& [id, mesh] = *entries[i];
    CHUNKWISE_ASSIGN_OR_RETURN(const WrittenLabel written, write_label(id, mesh));
    bytes += written.bytes;
    vertices += written.vertices;
    triangles += written.triangles;
    return Status::Ok();
  };
  if (options.pool != nullptr) {
    CHUNKWISE_RETURN_IF_ERROR(options.pool->ParallelFor(entries.size(), write));
  } else {
    for (std::size_t i = 0; i < entries.size(); ++i) CHUNKWISE_RETURN_IF_ERROR(write(i));
  }
  if (after_labels) {
    CHUNKWISE_ASSIGN_OR_RETURN(const std::uint64_t written, after_labels());
    bytes += written;
  }
  MeshOutputSummary summary;
  summary.segments = meshes.size();
  summary.vertices = vertices;
  summary.triangles = triangles;
  summary.bytes = bytes;
  return summary;
}

// Each folder's info, then the segmentation's naming them.
Status WriteInfos(store::Store& store, const std::string& prefix,
                  const std::map<std::uint64_t, std::uint64_t>& voxel_counts,
                  const MeshOutputOptions& options, const std::string& mesh_info) {
  CHUNKWISE_RETURN_IF_ERROR(SetText(store, prefix + options.mesh_dir + "/info", mesh_info));
  CHUNKWISE_RETURN_IF_ERROR(SetText(store, prefix + options.properties_dir + "/info",
                                    pc::SegmentPropertiesInfoText(voxel_counts, options.names)));
  const std::string info_key = prefix + "info";
  CHUNKWISE_ASSIGN_OR_RETURN(nlohmann::ordered_json info, ReadSegmentationInfo(store, info_key));
  info["mesh"] = options.mesh_dir;
  info["segment_properties"] = options.properties_dir;
  return SetText(store, info_key, info.dump());
}

// Checks the segmentation, writes the fragments, then the infos naming
// them; erases what was written when anything fails.
Result<MeshOutputSummary> WriteMeshOutput(
    store::Store& store, const std::string& prefix, const MeshedLabels& meshed,
    const MeshOutputOptions& options,
    const std::function<Result<MeshOutputSummary>()>& write_fragments,
    const std::string& mesh_info) {
  CHUNKWISE_RETURN_IF_ERROR(PrepareMeshOutput(store, prefix, options, true));
  Result<MeshOutputSummary> summary = write_fragments();
  if (!summary.ok()) {
    EraseMeshOutput(store, prefix, options);
    return summary.status();
  }
  CHUNKWISE_RETURN_IF_ERROR(
      PublishMeshOutput(store, prefix, meshed.voxel_counts, options, mesh_info));
  return summary;
}

// Vertices per coordinate of a fragment: 16 bits keep a 128-voxel fragment's
// half-voxel vertices within 1/500 of a voxel.
constexpr int kVertexBits = 16;
constexpr int kMaxLods = 16;

Status CheckMultires(const MultiresOutputOptions& multires) {
  if (multires.lods < 1 || multires.lods > kMaxLods) {
    return Status::InvalidArgument("levels of detail: 1 to " + std::to_string(kMaxLods) + ", not " +
                                   std::to_string(multires.lods))
        .WithField("lods");
  }
  for (int d = 0; d < 3; ++d) {
    if (multires.fragment[d] <= 0) {
      return Status::InvalidArgument("the fragment grid must be positive on every axis")
          .WithField("chunk");
    }
  }
  return Status::Ok();
}

SimplificationOptions Simplification(const MeshOutputOptions& options) {
  SimplificationOptions out;
  out.max_error = options.max_error;
  out.reduction_factor = options.reduction_factor;
  return out;
}

// A segment's levels of detail, fragments appended to `data`; `lod0` is
// set to the mesh of LOD 0.
Result<pc::MultiresManifest> BuildLods(const LabelMesh& mesh, const MeshOutputOptions& options,
                                       const MultiresOutputOptions& multires, LabelMesh& lod0,
                                       Bytes& data) {
  pc::MultiresManifest manifest;
  LodGrid grid;
  for (int d = 0; d < 3; ++d) {
    // Voxel i's centre is i + 1/2, and a marching cube joins centres: cells
    // starting half a voxel below the first voxel hold whole cubes.
    grid.origin[d] = -0.5;
    grid.cell[d] = static_cast<double>(multires.fragment[d]);
    manifest.grid_origin[d] = static_cast<float>(grid.origin[d]);
    manifest.chunk_shape[d] = static_cast<float>(grid.cell[d]);
  }
  // LOD 0 simplified in physical units, its vertices on the fragment grid's
  // planes kept on them so that no triangle leaves its fragment's cell.
  SimplificationOptions simplification = Simplification(options);
  simplification.scale = multires.resolution;
  simplification.grid = SimplificationGrid{grid.origin, grid.cell, true};
  lod0 = SimplifyMesh(mesh, simplification);
  LabelMesh previous;
  for (int lod = 0; lod < multires.lods; ++lod) {
    const pc::MultiresManifest::Lod* finer = lod == 0 ? nullptr : &manifest.lods.back();
    if (finer != nullptr && finer->positions.size() <= 1) break;  // One cell holds the label.
    LabelMesh simplified;
    if (lod > 0 && simplification.max_error > 0) {
      // LOD k: LOD k - 1 simplified at twice its error, its vertices kept on
      // the planes of LOD k - 1's cells, which no triangle of LOD k may cross.
      SimplificationOptions coarser = simplification;
      coarser.max_error = std::ldexp(simplification.max_error, lod);
      for (int d = 0; d < 3; ++d) coarser.grid->cell[d] = std::ldexp(grid.cell[d], lod - 1);
      simplified = SimplifyMesh(previous, coarser);
    } else if (lod > 0) {
      simplified = SimplifyForLod(lod0, grid, lod);
    }
    if (lod > 0 && simplified.triangles.empty()) break;
    if (lod > 0) previous = std::move(simplified);
    if (lod == 0) previous = lod0;
    CHUNKWISE_ASSIGN_OR_RETURN(
        pc::MultiresManifest::Lod level,
        pc::EncodeLodFragments(previous, manifest, lod, kVertexBits, finer, data));
    manifest.lods.push_back(std::move(level));
  }
  return manifest;
}

}  // namespace

LabelMesh SimplifyAsLegacy(const LabelMesh& mesh, const MeshOutputOptions& options) {
  return SimplifyMesh(mesh, Simplification(options));
}

Status PrepareMeshOutput(store::Store& store, const std::string& prefix,
                         const MeshOutputOptions& options, bool clear) {
  CHUNKWISE_ASSIGN_OR_RETURN(const nlohmann::ordered_json info,
                             ReadSegmentationInfo(store, prefix + "info"));
  return ClearOrRefuse(store, prefix, info, options, clear);
}

void EraseMeshOutput(store::Store& store, const std::string& prefix,
                     const MeshOutputOptions& options) {
  // An error while erasing leaves the first error to report.
  (void)EraseFolder(store, prefix + options.mesh_dir + "/");
  (void)EraseFolder(store, prefix + options.properties_dir + "/");
}

Status PublishMeshOutput(store::Store& store, const std::string& prefix,
                         const std::map<std::uint64_t, std::uint64_t>& voxel_counts,
                         const MeshOutputOptions& options, const std::string& mesh_info) {
  const Status status = WriteInfos(store, prefix, voxel_counts, options, mesh_info);
  if (!status.ok()) EraseMeshOutput(store, prefix, options);
  return status;
}

std::string LegacyMeshInfo() { return pc::LegacyMeshInfoText(); }

std::string MultiresMeshInfo(const MultiresOutputOptions& multires, std::uint64_t segments) {
  std::array<double, 12> transform{};
  for (int d = 0; d < 3; ++d) {
    transform[4 * d + d] = multires.resolution[d];
    transform[4 * d + 3] = static_cast<double>(multires.voxel_offset[d]) * multires.resolution[d];
  }
  const pc::ShardingSpec sharding = pc::MultiresMeshSharding(segments);
  return pc::MultiresMeshInfoText(kVertexBits, transform, 1.0,
                                  multires.sharded ? &sharding : nullptr);
}

Result<MeshOutputSummary> WriteLegacyFragments(store::Store& store, const std::string& prefix,
                                               const std::map<std::uint64_t, LabelMesh>& meshes,
                                               const MeshOutputOptions& options) {
  const std::string mesh_folder = prefix + options.mesh_dir + "/";
  auto write_label = [&](std::uint64_t id, const LabelMesh& meshed_label) -> Result<WrittenLabel> {
    // The whole label's mesh at once: there is no seam between chunks to keep.
    const LabelMesh mesh = SimplifyAsLegacy(meshed_label, options);
    const Bytes fragment = pc::EncodeLegacyFragment(mesh);
    CHUNKWISE_RETURN_IF_ERROR(store.Set(mesh_folder + pc::LegacyFragmentName(id), fragment));
    CHUNKWISE_RETURN_IF_ERROR(SetText(store, mesh_folder + pc::LegacyManifestKey(id),
                                      pc::LegacyManifestText({pc::LegacyFragmentName(id)})));
    return WrittenLabel{fragment.size(), mesh.num_vertices(), mesh.num_triangles()};
  };
  return WriteLabels(meshes, options, write_label, {});
}

Result<MeshOutputSummary> WriteMultiresFragments(store::Store& store, const std::string& prefix,
                                                 const std::map<std::uint64_t, LabelMesh>& meshes,
                                                 const MeshOutputOptions& options,
                                                 const MultiresOutputOptions& multires,
                                                 std::uint64_t segments) {
  CHUNKWISE_RETURN_IF_ERROR(CheckMultires(multires));
  const std::string mesh_folder = prefix + options.mesh_dir + "/";
  // Sharded: each segment's data and manifest wait here, in slots made before
  // the parallel writes, until the shards are laid out.
  struct Encoded {
    Bytes data;
    Bytes index;
  };
  std::map<std::uint64_t, Encoded> encoded;
  if (multires.sharded) {
    for (const auto& entry : meshes) encoded[entry.first];
  }
  auto write_label = [&](std::uint64_t id, const LabelMesh& mesh) -> Result<WrittenLabel> {
    Bytes data;
    LabelMesh lod0;
    Result<pc::MultiresManifest> manifest = BuildLods(mesh, options, multires, lod0, data);
    if (!manifest.ok()) {
      return manifest.status().WithContext("segment " + std::to_string(id) + "'s mesh");
    }
    Bytes index = pc::EncodeMultiresManifest(*manifest);
    if (multires.sharded) {
      encoded.at(id) = {std::move(data), std::move(index)};
      // Bytes are counted with the shards.
      return WrittenLabel{0, lod0.num_vertices(), lod0.num_triangles()};
    }
    CHUNKWISE_RETURN_IF_ERROR(store.Set(mesh_folder + pc::MultiresDataKey(id), data));
    CHUNKWISE_RETURN_IF_ERROR(store.Set(mesh_folder + pc::MultiresManifestKey(id), index));
    return WrittenLabel{data.size() + index.size(), lod0.num_vertices(), lod0.num_triangles()};
  };
  // The spec of every segment of the job, of which `meshes` may be a part:
  // that part's shards hold every segment they would in the whole job.
  const pc::ShardingSpec sharding = pc::MultiresMeshSharding(segments);
  auto write_shards = [&]() -> Result<std::uint64_t> {
    // Each segment's manifest is the chunk, its fragments the bytes before it.
    std::vector<pc::SegmentObject> objects;
    objects.reserve(encoded.size());
    for (const auto& [id, e] : encoded) objects.push_back({id, e.index, e.data});
    CHUNKWISE_ASSIGN_OR_RETURN(const pc::WrittenShards written,
                               pc::WriteSegmentShards(store, mesh_folder, sharding, objects));
    return written.bytes;
  };
  return WriteLabels(meshes, options, write_label,
                     multires.sharded ? AfterLabels(write_shards) : AfterLabels());
}

Result<MeshOutputSummary> WriteLegacyMeshes(store::Store& store, const std::string& prefix,
                                            const MeshedLabels& meshed,
                                            const MeshOutputOptions& options) {
  return WriteMeshOutput(
      store, prefix, meshed, options,
      [&] { return WriteLegacyFragments(store, prefix, meshed.meshes, options); },
      LegacyMeshInfo());
}

Result<MeshOutputSummary> WriteMultiresMeshes(store::Store& store, const std::string& prefix,
                                              const MeshedLabels& meshed,
                                              const MeshOutputOptions& options,
                                              const MultiresOutputOptions& multires) {
  CHUNKWISE_RETURN_IF_ERROR(CheckMultires(multires));
  return WriteMeshOutput(
      store, prefix, meshed, options,
      [&] {
        return WriteMultiresFragments(store, prefix, meshed.meshes, options, multires,
                                      meshed.meshes.size());
      },
      MultiresMeshInfo(multires, meshed.meshes.size()));
}

}  // namespace chunkwise::pipelines
