// Meshing throughput: voxels per second per core of chunkwise's marching
// cubes and quadric simplification next to zmesh (the pinned .venv) on the
// same labels, with the face counts at equal error beside the speed.
//
// A synthetic neuron segmentation (core/synthetic_volume.h; 128×256×256 by
// default, a first argument "z,y,x" changes it; 8×8×40 nm voxels) is meshed
// and simplified (factor 100, maximum error 40 nm, igneous's defaults),
// medians of a few runs with W threads (a second argument; by default 1):
//   ours:  pipelines::MeshLabels on a ThreadPool of W (128³ chunks, the
//          volume in memory), then SimplifyMesh of every label on the same
//          pool (what `chunkwise mesh` runs before writing);
//   zmesh: bench/mesh_zmesh_peer.py runs zmesh.Mesher.mesh on the same array
//          (x, y, z Fortran order, its layout) and Mesher.get of every label
//          with the same factor and max_error (zmesh has one thread; with W >
//          1 its rate is still divided by W, as cores given to it).
// Figures: labelled voxels per second per thread, the ratio, and the faces
// of all labels' simplified meshes for each; then the same rates from the
// processes' CPU time (ours: all our threads, the peer: its process), which
// on a shared machine does not count the time others take the cores.
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "bench_common.h"
#include "chunkwise/core/thread_pool.h"
#include "core/synthetic_volume.h"
#include "pipelines/meshing/label_meshes.h"
#include "pipelines/meshing/quadric_simplification.h"

namespace chunkwise {
namespace {

namespace fs = std::filesystem;
constexpr int kRuns = 3;
constexpr std::array<double, 3> kVoxel{8, 8, 40};
constexpr double kFactor = 100, kMaxError = 40;

using bench::ProcessCpuSeconds;

// The volume's labels, meshed and simplified; returns the faces written.
Result<std::uint64_t> MeshAndSimplify(const std::vector<std::uint64_t>& labels,
                                      const std::array<std::int64_t, 3>& shape,
                                      core::ThreadPool& pool) {
  pipelines::LabelSource source;
  source.shape = shape;
  source.read = [&](const core::Region& r) -> Result<std::vector<std::uint64_t>> {
    std::vector<std::uint64_t> out;
    out.reserve(static_cast<std::size_t>(r.num_elements()));
    for (auto z = r.start()[0]; z < r.stop()[0]; ++z) {
      for (auto y = r.start()[1]; y < r.stop()[1]; ++y) {
        const auto at = labels.begin() + (z * shape[1] + y) * shape[2];
        out.insert(out.end(), at + r.start()[2], at + r.stop()[2]);
      }
    }
    return out;
  };
  pipelines::MeshingOptions meshing;
  meshing.resolution = kVoxel;
  meshing.pool = &pool;
  CHUNKWISE_ASSIGN_OR_RETURN(pipelines::MeshedLabels meshed, MeshLabels(source, meshing));
  std::vector<const pipelines::LabelMesh*> meshes;
  for (const auto& [label, mesh] : meshed.meshes) meshes.push_back(&mesh);
  std::vector<std::uint64_t> faces(meshes.size());
  pipelines::SimplificationOptions simplify;
  simplify.max_error = kMaxError;
  simplify.reduction_factor = kFactor;
  CHUNKWISE_RETURN_IF_ERROR(pool.ParallelFor(meshes.size(), [&](std::size_t i) {
    faces[i] = pipelines::SimplifyMesh(*meshes[i], simplify).num_triangles();
    return Status::Ok();
  }));
  std::uint64_t total = 0;
  for (const std::uint64_t f : faces) total += f;
  return total;
}

int Main(int argc, char** argv) {
  const char* usage = "usage: mesh_bench [Z,Y,X] [THREADS]";
  core::NeuronVolumeOptions generate;
  if (argc > 1) {
    if (std::sscanf(argv[1], "%ld,%ld,%ld", &generate.shape[0], &generate.shape[1],
                    &generate.shape[2]) != 3) {
      bench::ExitWithUsage(usage);
    }
  }
  const auto threads =
      static_cast<std::size_t>(argc > 2 ? bench::IntegerArg("THREADS", argv[2], 1, 1024) : 1);
  generate.neuron_count =
      static_cast<int>(std::max<std::int64_t>(8, generate.shape[1] * generate.shape[2] / 2048));
  Result<std::vector<std::uint64_t>> labels = core::GenerateNeuronLabels(generate);
  if (!labels.ok()) {
    std::fprintf(stderr, "%s\n", labels.status().ToString().c_str());
    return 1;
  }
  std::uint64_t voxels = 0;
  for (const std::uint64_t l : *labels) voxels += l != 0 ? 1 : 0;
  core::ThreadPool pool(threads);
  std::vector<double> rates, cpu_rates;
  std::uint64_t faces = 0;
  for (int run = 0; run < kRuns; ++run) {
    Result<std::uint64_t> done = std::uint64_t{0};
    const double cpu_start = ProcessCpuSeconds();
    const double seconds =
        bench::Seconds([&] { done = MeshAndSimplify(*labels, generate.shape, pool); });
    cpu_rates.push_back(static_cast<double>(voxels) / (ProcessCpuSeconds() - cpu_start));
    if (!done.ok()) {
      std::fprintf(stderr, "%s\n", done.status().ToString().c_str());
      return 1;
    }
    faces = *done;
    rates.push_back(static_cast<double>(voxels) / seconds / static_cast<double>(threads));
  }

  // The same volume for the peer, as raw z, y, x uint64.
  const fs::path raw =
      fs::temp_directory_path() / ("mesh_bench_" + std::to_string(::getpid()) + ".raw");
  {
    std::ofstream out(raw, std::ios::binary);
    out.write(reinterpret_cast<const char*>(labels->data()),
              static_cast<std::streamsize>(labels->size() * sizeof(std::uint64_t)));
  }
  const std::string shape = std::to_string(generate.shape[0]) + "," +
                            std::to_string(generate.shape[1]) + "," +
                            std::to_string(generate.shape[2]);
  const std::string command = std::string(CHUNKWISE_SOURCE_DIR) + "/.venv/bin/python " +
                              CHUNKWISE_SOURCE_DIR + "/bench/mesh_zmesh_peer.py " + raw.string() +
                              " " + shape + " 8,8,40 " + std::to_string(kFactor) + " " +
                              std::to_string(kMaxError) + " 2";
  double peer_rate = 0, peer_cpu_rate = 0;
  std::uint64_t peer_faces = 0;
  if (const std::optional<nlohmann::json> peer = bench::RunJsonPeer(command, "mesh_bench")) {
    std::vector<double> peer_rates;
    for (const double s : (*peer)["seconds"]) {
      peer_rates.push_back(static_cast<double>(voxels) / s / static_cast<double>(threads));
    }
    peer_rate = bench::Median(peer_rates);
    std::vector<double> peer_cpu_rates;
    for (const double s : (*peer)["cpu_seconds"]) {
      peer_cpu_rates.push_back(static_cast<double>(voxels) / s);
    }
    peer_cpu_rate = bench::Median(peer_cpu_rates);
    peer_faces = (*peer)["faces"].get<std::uint64_t>();
  }
  fs::remove(raw);

  const double ours = bench::Median(rates);
  std::printf(
      "mesh_bench: %s voxels (%llu labelled), %zu threads, 8x8x40 nm, factor %.0f, "
      "max error %.0f nm\n",
      shape.c_str(), static_cast<unsigned long long>(voxels), threads, kFactor, kMaxError);
  std::printf("%-26s %-26s %-8s %-12s %-12s\n", "ours voxels/s/thread", "zmesh voxels/s/thread",
              "ratio", "ours faces", "zmesh faces");
  std::printf("%-26.0f %-26.0f %-8.2f %-12llu %-12llu\n", ours, peer_rate,
              peer_rate > 0 ? ours / peer_rate : 0.0, static_cast<unsigned long long>(faces),
              static_cast<unsigned long long>(peer_faces));
  const double ours_cpu = bench::Median(cpu_rates);
  std::printf("%-26s %-26s %-8s\n", "ours voxels/cpu-s", "zmesh voxels/cpu-s", "ratio");
  std::printf("%-26.0f %-26.0f %-8.2f\n", ours_cpu, peer_cpu_rate,
              peer_cpu_rate > 0 ? ours_cpu / peer_cpu_rate : 0.0);
  return 0;
}

}  // namespace
}  // namespace chunkwise

int main(int argc, char** argv) { return chunkwise::Main(argc, argv); }
