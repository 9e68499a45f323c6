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

// One label's piece of a chunk as it is built: vertices found by key.
struct PartMesh {
  MeshPiece piece;
  MeshVertexIndex index;

  std::uint32_t Vertex(std::uint64_t key, const std::array<float, 3>& position) {
    const auto [vertex, added] =
        index.TryEmplace(key, static_cast<std::uint32_t>(piece.keys.size()));
    if (added) {
      piece.keys.push_back(key);
      piece.doubled.push_back(position);
    }
    return vertex;
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
      for (const std::uint8_t corner_edge : t) mesh.piece.triangles.push_back(vertex[corner_edge]);
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

// Welds the chunks' meshes of each label, in chunk order, into physical units.
MeshedLabels Merge(std::vector<ChunkMeshes>& chunks, const MeshingOptions& options) {
  std::map<std::uint64_t, MeshWelder> welded;
  MeshedLabels out;
  for (ChunkMeshes& chunk : chunks) {
    for (const auto& [label, count] : chunk.counts) out.voxel_counts[label] += count;
    for (auto& [label, part] : chunk.meshes) {
      welded.try_emplace(label, options).first->second.Add(part.piece);
    }
    chunk = ChunkMeshes{};  // Freed as soon as merged.
  }
  for (auto& [label, w] : welded) out.meshes.emplace(label, w.Take());
  return out;
}

std::array<std::int64_t, 3> Grid(const LabelSource& source, const MeshingOptions& options) {
  std::array<std::int64_t, 3> grid{};
  for (int d = 0; d < 3; ++d) grid[d] = (source.shape[d] + options.chunk[d] - 1) / options.chunk[d];
  return grid;
}

// Meshes chunks [first, last) of the grid into `chunks[i - first]`, in
// parallel on options.pool.
Status MeshRange(const Job& job, std::uint64_t first, std::uint64_t last,
                 std::vector<ChunkMeshes>& chunks) {
  const LabelSource& source = job.source;
  const MeshingOptions& options = job.options;
  const std::array<std::int64_t, 3> grid = Grid(source, options);
  chunks.assign(static_cast<std::size_t>(last - first), ChunkMeshes{});
  auto body = [&](std::size_t k) -> Status {
    if (options.cancellation != nullptr) {
      CHUNKWISE_RETURN_IF_ERROR(options.cancellation->Check("meshing labels"));
    }
    const auto i = static_cast<std::int64_t>(first + k);
    const std::array<std::int64_t, 3> g{i / (grid[1] * grid[2]), i / grid[2] % grid[1],
                                        i % grid[2]};
    std::array<std::int64_t, 3> lo{}, hi{};
    std::uint64_t voxels = 1;
    for (int d = 0; d < 3; ++d) {
      lo[d] = g[d] * options.chunk[d];
      hi[d] = std::min(lo[d] + options.chunk[d], source.shape[d]);
      voxels *= static_cast<std::uint64_t>(hi[d] - lo[d]);
    }
    CHUNKWISE_ASSIGN_OR_RETURN(chunks[k], MeshChunk(job, lo, hi));
    if (options.progress != nullptr) options.progress->Add(voxels);
    return Status::Ok();
  };
  if (options.pool != nullptr) return options.pool->ParallelFor(chunks.size(), body);
  for (std::size_t k = 0; k < chunks.size(); ++k) CHUNKWISE_RETURN_IF_ERROR(body(k));
  return Status::Ok();
}

}  // namespace

Status CheckMeshingOptions(const LabelSource& source, const MeshingOptions& options) {
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

void MeshWelder::Add(const MeshPiece& piece) {
  std::vector<std::uint32_t> map(piece.keys.size());
  for (std::size_t i = 0; i < piece.keys.size(); ++i) {
    const auto [vertex, added] =
        index_.TryEmplace(piece.keys[i], static_cast<std::uint32_t>(mesh_.num_vertices()));
    if (added) {
      for (int d = 0; d < 3; ++d) {
        const double voxels = options_->voxel_offset[d] + piece.doubled[i][d] / 2.0;
        mesh_.vertices.push_back(static_cast<float>(voxels * options_->resolution[d]));
      }
    }
    map[i] = vertex;
  }
  for (const std::uint32_t t : piece.triangles) mesh_.triangles.push_back(map[t]);
}

std::uint64_t CountChunks(const LabelSource& source, const MeshingOptions& options) {
  const std::array<std::int64_t, 3> grid = Grid(source, options);
  return static_cast<std::uint64_t>(grid[0] * grid[1] * grid[2]);
}

Result<std::vector<ChunkPieces>> MeshChunks(const LabelSource& source,
                                            const MeshingOptions& options, std::uint64_t first,
                                            std::uint64_t last) {
  CHUNKWISE_RETURN_IF_ERROR(CheckMeshingOptions(source, options));
  Job job{source, options, options.labels.value_or(std::vector<std::uint64_t>{})};
  std::sort(job.wanted.begin(), job.wanted.end());
  if (options.labels && job.wanted.empty()) return std::vector<ChunkPieces>{};
  last = std::min(last, CountChunks(source, options));
  if (first >= last) return std::vector<ChunkPieces>{};
  std::vector<ChunkMeshes> chunks;
  CHUNKWISE_RETURN_IF_ERROR(MeshRange(job, first, last, chunks));
  std::vector<ChunkPieces> out(chunks.size());
  for (std::size_t k = 0; k < chunks.size(); ++k) {
    out[k].chunk = first + k;
    for (auto& [label, part] : chunks[k].meshes) out[k].pieces[label] = std::move(part.piece);
    out[k].counts.insert(chunks[k].counts.begin(), chunks[k].counts.end());
    chunks[k] = ChunkMeshes{};
  }
  return out;
}

Result<MeshedLabels> MeshLabels(const LabelSource& source, const MeshingOptions& options) {
  CHUNKWISE_RETURN_IF_ERROR(CheckMeshingOptions(source, options));
  Job job{source, options, options.labels.value_or(std::vector<std::uint64_t>{})};
  std::sort(job.wanted.begin(), job.wanted.end());
  if (options.labels && job.wanted.empty()) return MeshedLabels{};
  std::vector<ChunkMeshes> chunks;
  CHUNKWISE_RETURN_IF_ERROR(MeshRange(job, 0, CountChunks(source, options), chunks));
  return Merge(chunks, options);
}

}  // namespace chunkwise::pipelines
