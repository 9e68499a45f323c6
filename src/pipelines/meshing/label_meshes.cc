#include "pipelines/meshing/label_meshes.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <utility>

#include "pipelines/meshing/surface_cases.h"

namespace chunkwise::pipelines {
namespace {

using meshing::DoubledEdgeMidpoint;
using meshing::kCentroid;
using meshing::SurfaceCases;

// Keys of welded vertices: each coordinate in half voxels, shifted by one so
// that the cube below the first voxel is not negative, 21 bits each. A
// loop's centroid vertex belongs to one cube and is keyed by the cube and
// the loop, with the top bit set.
constexpr int kKeyBits = 21;
constexpr std::int64_t kMaxAxis = (std::int64_t{1} << (kKeyBits - 1)) - 2;
constexpr std::uint64_t kCentroidKey = std::uint64_t{1} << 63;

// One label's mesh within a chunk, before welding across chunks: each
// vertex's key and its position in half voxels (x, y, z).
struct PartMesh {
  std::vector<std::uint64_t> keys;
  std::vector<std::array<float, 3>> doubled;
  std::vector<std::uint32_t> triangles;
  std::unordered_map<std::uint64_t, std::uint32_t> index;

  std::uint32_t Vertex(std::uint64_t key, const std::array<float, 3>& position) {
    auto [it, added] = index.try_emplace(key, static_cast<std::uint32_t>(keys.size()));
    if (added) {
      keys.push_back(key);
      doubled.push_back(position);
    }
    return it->second;
  }
};

struct ChunkMeshes {
  std::unordered_map<std::uint64_t, PartMesh> meshes;
  std::unordered_map<std::uint64_t, std::uint64_t> counts;
};

// Everything one chunk needs to know of the whole run.
struct Job {
  const LabelSource& source;
  const MeshingOptions& options;
  std::vector<std::uint64_t> wanted;  // Sorted; empty: every label.

  bool Wants(std::uint64_t label) const {
    return label != 0 &&
           (wanted.empty() || std::binary_search(wanted.begin(), wanted.end(), label));
  }
};

// A box's labels with one voxel of background (0) around it, where the box
// meets the volume's edge, and the volume's voxels elsewhere.
struct PaddedBlock {
  std::array<std::int64_t, 3> origin{};  // (z, y, x) of element 0, may be -1.
  std::array<std::int64_t, 3> shape{};
  std::vector<std::uint64_t> labels;

  const std::uint64_t& at(std::int64_t z, std::int64_t y, std::int64_t x) const {
    return labels[static_cast<std::size_t>(
        ((z - origin[0]) * shape[1] + (y - origin[1])) * shape[2] + (x - origin[2]))];
  }
};

Result<PaddedBlock> ReadPadded(const Job& job, const std::array<std::int64_t, 3>& lo,
                               const std::array<std::int64_t, 3>& hi) {
  PaddedBlock block;
  core::Coord start(3), stop(3);
  for (int d = 0; d < 3; ++d) {
    block.origin[d] = lo[d] - 1;
    block.shape[d] = hi[d] - lo[d] + 2;
    start[d] = std::max<std::int64_t>(lo[d] - 1, 0);
    stop[d] = std::min<std::int64_t>(hi[d] + 1, job.source.shape[d]);
  }
  const core::Region region(start, stop);
  Result<std::vector<std::uint64_t>> read = job.source.read(region);
  if (!read.ok()) return read.status().WithContext("reading labels " + region.ToString());
  if (static_cast<std::int64_t>(read->size()) != region.num_elements()) {
    return Status::Internal("labels of " + region.ToString() + ": " + std::to_string(read->size()) +
                            " values for " + std::to_string(region.num_elements()) + " voxels");
  }
  block.labels.assign(static_cast<std::size_t>(block.shape[0] * block.shape[1] * block.shape[2]),
                      0);
  const std::int64_t row = stop[2] - start[2];
  std::size_t from = 0;
  for (std::int64_t z = start[0]; z < stop[0]; ++z) {
    for (std::int64_t y = start[1]; y < stop[1]; ++y) {
      const std::size_t to = static_cast<std::size_t>(
          ((z - block.origin[0]) * block.shape[1] + (y - block.origin[1])) * block.shape[2] +
          (start[2] - block.origin[2]));
      std::copy_n(read->begin() + static_cast<std::ptrdiff_t>(from), row,
                  block.labels.begin() + static_cast<std::ptrdiff_t>(to));
      from += static_cast<std::size_t>(row);
    }
  }
  return block;
}

// The triangles of one label in the cube whose lower corner is voxel
// (cz, cy, cx), its corners inside as `mask` says.
void AddCube(const Job& job, std::int64_t cz, std::int64_t cy, std::int64_t cx, int mask,
             PartMesh& mesh) {
  const std::array<std::int64_t, 3> corner{cx, cy, cz};  // (x, y, z)
  const std::array<std::int64_t, 3>& shape = job.source.shape;
  const std::uint64_t cube = static_cast<std::uint64_t>(
      ((cz + 1) * (shape[1] + 1) + (cy + 1)) * (shape[2] + 1) + (cx + 1));
  const meshing::SurfaceCase& cases = SurfaceCases()[mask];
  for (std::size_t l = 0; l < cases.loops.size(); ++l) {
    const meshing::SurfaceLoop& loop = cases.loops[l];
    std::array<std::uint32_t, 13> vertex{};
    std::array<float, 3> centroid{};
    for (const std::uint8_t e : loop.edges) {
      const std::array<int, 3> p = DoubledEdgeMidpoint(e);
      std::array<float, 3> position{};
      std::uint64_t key = 0;
      for (int d = 0; d < 3; ++d) {
        const std::int64_t doubled = 2 * corner[d] + 1 + p[d];  // Half voxels, >= -1.
        position[d] = static_cast<float>(doubled);
        centroid[d] += position[d] / static_cast<float>(loop.edges.size());
        key |= static_cast<std::uint64_t>(doubled + 1) << (kKeyBits * d);
      }
      vertex[e] = mesh.Vertex(key, position);
    }
    bool needs_centroid = false;
    for (const auto& t : loop.triangles) needs_centroid |= t[0] == kCentroid;
    if (needs_centroid) vertex[kCentroid] = mesh.Vertex(kCentroidKey | (cube * 4 + l), centroid);
    for (const auto& t : loop.triangles) {
      for (const std::uint8_t corner_edge : t) mesh.triangles.push_back(vertex[corner_edge]);
    }
  }
}

// The cubes whose lower corner lies in [lo, hi), and below the first voxel
// where lo is 0, and the voxels of [lo, hi) counted.
Result<ChunkMeshes> MeshChunk(const Job& job, const std::array<std::int64_t, 3>& lo,
                              const std::array<std::int64_t, 3>& hi) {
  CHUNKWISE_ASSIGN_OR_RETURN(const PaddedBlock block, ReadPadded(job, lo, hi));
  ChunkMeshes out;
  std::array<std::int64_t, 3> first{};
  for (int d = 0; d < 3; ++d) first[d] = lo[d] == 0 ? -1 : lo[d];
  // Voxels are counted a run of one label at a time, and a label's mesh is
  // looked up once for a run of cubes of that label: most neighbours agree.
  std::uint64_t run_label = 0, run_length = 0;
  auto flush_run = [&] {
    if (run_length != 0 && job.Wants(run_label)) out.counts[run_label] += run_length;
    run_length = 0;
  };
  std::uint64_t cached_label = 0;
  PartMesh* cached_mesh = nullptr;
  std::array<std::uint64_t, 8> v{};
  for (std::int64_t z = first[0]; z < hi[0]; ++z) {
    for (std::int64_t y = first[1]; y < hi[1]; ++y) {
      // The four rows of voxels the cubes of this (z, y) touch, from x = first.
      const std::uint64_t* rows[4];
      for (int r = 0; r < 4; ++r) rows[r] = &block.at(z + (r >> 1), y + (r & 1), first[2]);
      const bool counted_row = z >= lo[0] && y >= lo[1];
      for (std::int64_t x = first[2]; x < hi[2]; ++x) {
        const std::int64_t i = x - first[2];
        for (int c = 0; c < 8; ++c) v[c] = rows[(c >> 2 & 1) * 2 + (c >> 1 & 1)][i + (c & 1)];
        if (counted_row && x >= lo[2]) {
          if (v[0] != run_label) {
            flush_run();
            run_label = v[0];
          }
          ++run_length;
        }
        if (std::all_of(v.begin() + 1, v.end(), [&](std::uint64_t l) { return l == v[0]; })) {
          continue;
        }
        for (int c = 0; c < 8; ++c) {
          const std::uint64_t label = v[c];
          if (!job.Wants(label)) continue;
          if (std::find(v.begin(), v.begin() + c, label) != v.begin() + c) continue;  // Done.
          int mask = 0;
          for (int k = c; k < 8; ++k) mask |= (v[k] == label ? 1 : 0) << k;
          if (cached_mesh == nullptr || cached_label != label) {
            cached_mesh = &out.meshes[label];  // unordered_map keeps its values in place.
            cached_label = label;
          }
          AddCube(job, z, y, x, mask, *cached_mesh);
        }
      }
    }
  }
  flush_run();
  return out;
}

Status CheckOptions(const LabelSource& source, const MeshingOptions& options) {
  for (int d = 0; d < 3; ++d) {
    if (options.chunk[d] <= 0) {
      return Status::InvalidArgument("the chunk shape must be positive on every axis")
          .WithField("chunk");
    }
    if (!(options.resolution[d] > 0)) {
      return Status::InvalidArgument("the resolution must be positive on every axis")
          .WithField("resolution");
    }
    if (source.shape[d] < 0 || source.shape[d] > kMaxAxis) {
      return Status::Unsupported("a label volume of " + std::to_string(source.shape[d]) +
                                 " voxels on an axis: at most " + std::to_string(kMaxAxis) +
                                 " are meshed");
    }
  }
  return Status::Ok();
}

// Welds the chunks' meshes of each label, in chunk order, into physical units.
MeshedLabels Merge(std::vector<ChunkMeshes>& chunks, const MeshingOptions& options) {
  struct Welding {
    std::unordered_map<std::uint64_t, std::uint32_t> index;
    LabelMesh mesh;
  };
  std::map<std::uint64_t, Welding> welded;
  MeshedLabels out;
  for (ChunkMeshes& chunk : chunks) {
    for (const auto& [label, count] : chunk.counts) out.voxel_counts[label] += count;
    for (auto& [label, part] : chunk.meshes) {
      Welding& w = welded[label];
      std::vector<std::uint32_t> map(part.keys.size());
      for (std::size_t i = 0; i < part.keys.size(); ++i) {
        auto [it, added] =
            w.index.try_emplace(part.keys[i], static_cast<std::uint32_t>(w.mesh.num_vertices()));
        if (added) {
          for (int d = 0; d < 3; ++d) {
            const double voxels = options.voxel_offset[d] + part.doubled[i][d] / 2.0;
            w.mesh.vertices.push_back(static_cast<float>(voxels * options.resolution[d]));
          }
        }
        map[i] = it->second;
      }
      for (const std::uint32_t t : part.triangles) w.mesh.triangles.push_back(map[t]);
    }
    chunk = ChunkMeshes{};  // Freed as soon as merged.
  }
  for (auto& [label, w] : welded) out.meshes.emplace(label, std::move(w.mesh));
  return out;
}

}  // namespace

Result<MeshedLabels> MeshLabels(const LabelSource& source, const MeshingOptions& options) {
  CHUNKWISE_RETURN_IF_ERROR(CheckOptions(source, options));
  Job job{source, options, options.labels.value_or(std::vector<std::uint64_t>{})};
  std::sort(job.wanted.begin(), job.wanted.end());
  if (options.labels && job.wanted.empty()) return MeshedLabels{};
  std::array<std::int64_t, 3> grid{};
  for (int d = 0; d < 3; ++d) grid[d] = (source.shape[d] + options.chunk[d] - 1) / options.chunk[d];
  const std::size_t n = static_cast<std::size_t>(grid[0] * grid[1] * grid[2]);
  std::vector<ChunkMeshes> chunks(n);
  auto body = [&](std::size_t i) -> Status {
    if (options.cancellation != nullptr) {
      CHUNKWISE_RETURN_IF_ERROR(options.cancellation->Check("meshing labels"));
    }
    const std::array<std::int64_t, 3> g{static_cast<std::int64_t>(i) / (grid[1] * grid[2]),
                                        static_cast<std::int64_t>(i) / grid[2] % grid[1],
                                        static_cast<std::int64_t>(i) % grid[2]};
    std::array<std::int64_t, 3> lo{}, hi{};
    std::uint64_t voxels = 1;
    for (int d = 0; d < 3; ++d) {
      lo[d] = g[d] * options.chunk[d];
      hi[d] = std::min(lo[d] + options.chunk[d], source.shape[d]);
      voxels *= static_cast<std::uint64_t>(hi[d] - lo[d]);
    }
    CHUNKWISE_ASSIGN_OR_RETURN(chunks[i], MeshChunk(job, lo, hi));
    if (options.progress != nullptr) options.progress->Add(voxels);
    return Status::Ok();
  };
  if (options.pool != nullptr) {
    CHUNKWISE_RETURN_IF_ERROR(options.pool->ParallelFor(n, body));
  } else {
    for (std::size_t i = 0; i < n; ++i) CHUNKWISE_RETURN_IF_ERROR(body(i));
  }
  return Merge(chunks, options);
}

}  // namespace chunkwise::pipelines
