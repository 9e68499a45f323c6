#include "pipelines/meshing/mesh_parts.h"

#include <algorithm>
#include <bit>
#include <map>
#include <utility>
#include <vector>

#include "formats/precomputed/multires_mesh.h"
#include "formats/precomputed/sharding.h"
#include "pipelines/meshing/mesh_scratch.h"

namespace chunkwise::pipelines {
namespace {

namespace pc = formats::precomputed;

bool Sharded(const MeshJob& job) { return job.multires && job.lods.sharded; }

std::string ScratchFolder(const MeshJob& job) {
  if (job.vectors) return job.prefix + std::string(kMeshScratchFolder) + "/";
  return job.prefix + job.output.mesh_dir + "/" + std::string(kMeshScratchFolder) + "/";
}

std::string PiecesKey(const MeshJob& job, std::uint64_t group, int part) {
  return ScratchFolder(job) + std::to_string(group) + "/" + std::to_string(part);
}
std::string LabelsKey(const MeshJob& job, int part) {
  return ScratchFolder(job) + "labels/" + std::to_string(part);
}
std::string MergedKey(const MeshJob& job, int part) {
  return ScratchFolder(job) + "merged/" + std::to_string(part);
}

// Groups of labels: sharded, 2^k (the least power of two >= parts), else parts.
std::uint64_t CountGroups(const MeshJob& job) {
  const auto parts = static_cast<std::uint64_t>(job.parts);
  return Sharded(job) ? std::bit_ceil(parts) : parts;
}

// Sharded: the sharding of groups ^ 4096 segments has log2(groups) shard
// bits over the same minishard bits as any sharding of more than 4096
// segments (pc::SegmentSharding); its shard is the label's group.
pc::ShardingSpec GroupSharding(const MeshJob& job) {
  return pc::MultiresMeshSharding(CountGroups(job) << 12);
}

std::uint64_t GroupOf(const MeshJob& job, const pc::ShardingSpec& groups, std::uint64_t label) {
  if (Sharded(job)) return pc::LocateChunk(groups, label).shard;
  return label % static_cast<std::uint64_t>(job.parts);
}

Status CheckPart(const MeshJob& job, int part) {
  if (job.parts < 1 || part < 0 || part >= job.parts) {
    return Status::InvalidArgument("mesh job part " + std::to_string(part) + " of " +
                                   std::to_string(job.parts) + ": parts are 0 to parts - 1")
        .WithField("part");
  }
  return Status::Ok();
}

Result<std::uint64_t> CountJobChunks(const MeshJob& job) {
  LabelSource source;
  source.shape = job.shape;
  CHUNKWISE_RETURN_IF_ERROR(CheckMeshingOptions(source, job.meshing));
  return CountChunks(source, job.meshing);
}

Result<Bytes> ReadScratch(const store::Store& store, const std::string& key) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> bytes, store.Get(key));
  if (!bytes) {
    return Status::NotFound(store.Describe(key) +
                            " is missing: a part of the mesh job has not run its earlier step");
  }
  return std::move(*bytes);
}

Status EraseScratch(store::Store& store, const MeshJob& job) {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<std::string> keys, store.List(ScratchFolder(job)));
  for (const std::string& key : keys) CHUNKWISE_RETURN_IF_ERROR(store.Erase(key));
  return Status::Ok();
}

// The job's segments: the labels every mesh part found.
Result<std::uint64_t> CountSegments(const store::Store& store, const MeshJob& job) {
  std::vector<std::uint64_t> all;
  for (int p = 0; p < job.parts; ++p) {
    const std::string key = LabelsKey(job, p);
    CHUNKWISE_ASSIGN_OR_RETURN(const Bytes bytes, ReadScratch(store, key));
    CHUNKWISE_ASSIGN_OR_RETURN(
        const std::vector<std::uint64_t> labels,
        DecodeLabelList(bytes,
                        {static_cast<std::uint32_t>(job.parts), static_cast<std::uint32_t>(p), 0},
                        store.Describe(key)));
    const auto middle = static_cast<std::ptrdiff_t>(all.size());
    all.insert(all.end(), labels.begin(), labels.end());
    std::inplace_merge(all.begin(), all.begin() + middle, all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
  }
  return all.size();
}

// The part a label's shard goes to when the job has `spec`'s shards.
std::uint64_t ShardOwner(const MeshJob& job, const pc::ShardingSpec& spec, std::uint64_t label) {
  const std::uint64_t shard = pc::LocateChunk(spec, label).shard;
  return (shard & (CountGroups(job) - 1)) % static_cast<std::uint64_t>(job.parts);
}

// The groups part `part` merges.
std::vector<std::uint64_t> OwnedGroups(const MeshJob& job, const pc::ShardingSpec* spec, int part) {
  std::uint64_t mask = CountGroups(job) - 1;
  if (spec != nullptr) {
    const int group_bits = std::countr_zero(CountGroups(job));
    mask = (std::uint64_t{1} << std::min(spec->shard_bits, group_bits)) - 1;
  }
  std::vector<std::uint64_t> groups;
  for (std::uint64_t g = 0; g < CountGroups(job); ++g) {
    if ((g & mask) % static_cast<std::uint64_t>(job.parts) == static_cast<std::uint64_t>(part)) {
      groups.push_back(g);
    }
  }
  return groups;
}

}  // namespace

Status MeshJobPart(const LabelSource& source, store::Store& store, const MeshJob& job, int part) {
  CHUNKWISE_RETURN_IF_ERROR(CheckPart(job, part));
  CHUNKWISE_RETURN_IF_ERROR(CheckMeshingOptions(source, job.meshing));
  if (!job.vectors) {
    CHUNKWISE_RETURN_IF_ERROR(PrepareMeshOutput(store, job.prefix, job.output, part == 0));
  }
  const std::uint64_t chunks = CountChunks(source, job.meshing);
  const auto parts = static_cast<std::uint64_t>(job.parts);
  const auto p = static_cast<std::uint64_t>(part);
  CHUNKWISE_ASSIGN_OR_RETURN(
      std::vector<ChunkPieces> meshed,
      MeshChunks(source, job.meshing, chunks * p / parts, chunks * (p + 1) / parts));
  const pc::ShardingSpec group_sharding = GroupSharding(job);
  std::vector<std::map<std::uint64_t, LabelPieces>> groups(CountGroups(job));
  std::vector<std::uint64_t> labels;
  for (ChunkPieces& chunk : meshed) {
    for (const auto& [label, voxels] : chunk.counts) {
      groups[GroupOf(job, group_sharding, label)][label].voxels += voxels;
    }
    for (auto& [label, piece] : chunk.pieces) {
      groups[GroupOf(job, group_sharding, label)][label].pieces.emplace_back(chunk.chunk,
                                                                             std::move(piece));
      labels.push_back(label);
    }
    chunk = ChunkPieces{};
  }
  // Every group's object, even empty: an object left by an earlier job is never read as this one's.
  for (std::uint64_t g = 0; g < groups.size(); ++g) {
    if (job.meshing.cancellation != nullptr) {
      CHUNKWISE_RETURN_IF_ERROR(job.meshing.cancellation->Check("writing mesh pieces"));
    }
    const Bytes bytes =
        EncodePieces({static_cast<std::uint32_t>(job.parts), static_cast<std::uint32_t>(part), g},
                     chunks, groups[g]);
    CHUNKWISE_RETURN_IF_ERROR(store.Set(PiecesKey(job, g, part), bytes));
    groups[g].clear();
  }
  if (!Sharded(job)) return Status::Ok();
  std::sort(labels.begin(), labels.end());
  labels.erase(std::unique(labels.begin(), labels.end()), labels.end());
  return store.Set(LabelsKey(job, part), EncodeLabelList({static_cast<std::uint32_t>(job.parts),
                                                          static_cast<std::uint32_t>(part), 0},
                                                         labels));
}

Result<MeshOutputSummary> MergeMeshJobPart(store::Store& store, const MeshJob& job, int part) {
  CHUNKWISE_RETURN_IF_ERROR(CheckPart(job, part));
  CHUNKWISE_ASSIGN_OR_RETURN(const std::uint64_t chunks, CountJobChunks(job));
  std::uint64_t segments = 0;
  std::optional<pc::ShardingSpec> sharding;
  if (Sharded(job)) {
    CHUNKWISE_ASSIGN_OR_RETURN(segments, CountSegments(store, job));
    sharding = pc::MultiresMeshSharding(segments);
  }
  std::map<std::uint64_t, LabelPieces> labels;
  for (const std::uint64_t g : OwnedGroups(job, sharding ? &*sharding : nullptr, part)) {
    for (int p = 0; p < job.parts; ++p) {
      const std::string key = PiecesKey(job, g, p);
      CHUNKWISE_ASSIGN_OR_RETURN(const Bytes bytes, ReadScratch(store, key));
      CHUNKWISE_RETURN_IF_ERROR(DecodePieces(
          bytes, {static_cast<std::uint32_t>(job.parts), static_cast<std::uint32_t>(p), g}, chunks,
          store.Describe(key), labels));
    }
  }
  MergedPart merged;
  std::map<std::uint64_t, LabelMesh> meshes;
  for (auto& [label, entry] : labels) {
    if (sharding && ShardOwner(job, *sharding, label) != static_cast<std::uint64_t>(part)) {
      return Status::Internal("mesh job part " + std::to_string(part) + " read label " +
                              std::to_string(label) + ", whose shard another part writes");
    }
    if (entry.voxels != 0) merged.voxel_counts[label] = entry.voxels;
    if (entry.pieces.empty()) continue;
    // In chunk order, as MeshLabels welds them.
    std::sort(entry.pieces.begin(), entry.pieces.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    MeshWelder welder(job.meshing);
    for (const auto& [chunk, piece] : entry.pieces) welder.Add(piece);
    meshes.emplace(label, welder.Take());
    entry.pieces = {};
  }
  labels.clear();
  if (job.vectors) {
    CHUNKWISE_ASSIGN_OR_RETURN(merged.levels, BuildMeshLevels(meshes, job.output, job.levels));
    merged.summary.segments = merged.levels.size();
    for (const auto& [label, levels] : merged.levels) {
      merged.summary.vertices += levels.front().num_vertices();
      merged.summary.triangles += levels.front().num_triangles();
    }
    CHUNKWISE_RETURN_IF_ERROR(store.Set(
        MergedKey(job, part),
        EncodeMergedPart(
            {static_cast<std::uint32_t>(job.parts), static_cast<std::uint32_t>(part), 0}, merged)));
    return merged.summary;
  }
  Result<MeshOutputSummary> written =
      job.multires
          ? WriteMultiresFragments(store, job.prefix, meshes, job.output, job.lods, segments)
          : WriteLegacyFragments(store, job.prefix, meshes, job.output);
  CHUNKWISE_RETURN_IF_ERROR(written.status());
  merged.summary = *written;
  CHUNKWISE_RETURN_IF_ERROR(store.Set(
      MergedKey(job, part),
      EncodeMergedPart({static_cast<std::uint32_t>(job.parts), static_cast<std::uint32_t>(part), 0},
                       merged)));
  return merged.summary;
}

Result<MeshOutputSummary> FinishMeshJob(store::Store& store, const MeshJob& job) {
  MeshOutputSummary total;
  std::map<std::uint64_t, std::uint64_t> voxel_counts;
  auto gather = [&]() -> Status {
    if (job.parts < 1) return CheckPart(job, 0);
    for (int q = 0; q < job.parts; ++q) {
      const std::string key = MergedKey(job, q);
      CHUNKWISE_ASSIGN_OR_RETURN(const Bytes bytes, ReadScratch(store, key));
      CHUNKWISE_ASSIGN_OR_RETURN(
          const MergedPart merged,
          DecodeMergedPart(
              bytes, {static_cast<std::uint32_t>(job.parts), static_cast<std::uint32_t>(q), 0},
              store.Describe(key)));
      total.segments += merged.summary.segments;
      total.vertices += merged.summary.vertices;
      total.triangles += merged.summary.triangles;
      total.bytes += merged.summary.bytes;
      voxel_counts.insert(merged.voxel_counts.begin(), merged.voxel_counts.end());
    }
    const std::string mesh_info =
        job.multires ? MultiresMeshInfo(job.lods, total.segments) : LegacyMeshInfo();
    return PublishMeshOutput(store, job.prefix, voxel_counts, job.output, mesh_info);
  };
  const Status status = gather();
  if (!status.ok()) {
    EraseMeshOutput(store, job.prefix, job.output);
    return status;
  }
  CHUNKWISE_RETURN_IF_ERROR(EraseScratch(store, job));
  return total;
}

Result<VectorMeshJob> FinishVectorMeshJob(store::Store& store, const MeshJob& job) {
  if (!job.vectors) return Status::Internal("FinishVectorMeshJob of a job that is not vectors");
  if (job.parts < 1) return CheckPart(job, 0);
  VectorMeshJob out;
  for (int q = 0; q < job.parts; ++q) {
    const std::string key = MergedKey(job, q);
    CHUNKWISE_ASSIGN_OR_RETURN(const Bytes bytes, ReadScratch(store, key));
    CHUNKWISE_ASSIGN_OR_RETURN(
        MergedPart merged,
        DecodeMergedPart(bytes,
                         {static_cast<std::uint32_t>(job.parts), static_cast<std::uint32_t>(q), 0},
                         store.Describe(key)));
    out.summary.segments += merged.summary.segments;
    out.summary.vertices += merged.summary.vertices;
    out.summary.triangles += merged.summary.triangles;
    for (auto& [label, levels] : merged.levels) {
      if (levels.size() != static_cast<std::size_t>(job.levels.levels)) {
        return Status::Corruption(store.Describe(key) + ": label " + std::to_string(label) +
                                  " has " + std::to_string(levels.size()) + " levels, not " +
                                  std::to_string(job.levels.levels));
      }
      if (!out.levels.emplace(label, std::move(levels)).second) {
        return Status::Corruption(store.Describe(key) + ": label " + std::to_string(label) +
                                  " was merged by two parts");
      }
    }
  }
  CHUNKWISE_RETURN_IF_ERROR(EraseScratch(store, job));
  return out;
}

void AbandonMeshJob(store::Store& store, const MeshJob& job, bool merged) {
  if (merged && !job.vectors) {
    EraseMeshOutput(store, job.prefix, job.output);
  } else {
    (void)EraseScratch(store, job);
  }
}

}  // namespace chunkwise::pipelines
