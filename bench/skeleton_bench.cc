// Skeletonizing throughput: voxels per second per core of chunkwise's
// TEASAR skeletonizer next to kimimaro (the pinned .venv) on the same labels,
// the same invalidation ball and the same threads, with the quality figures
// beside the speed.
//
// A synthetic neuron segmentation (core/synthetic_volume.h; 128×256×256 by
// default, a first argument "z,y,x" changes it; 8×8×40 nm voxels) is
// skeletonized, medians of a few runs with W threads (a second argument; by
// default 1):
//   ours:     what `chunkwise skeletonize` runs (pipelines/skeletons/
//             skeleton_job.h, one part): a scan of the source's 64^3 chunks
//             for each label's box, then each label from its padded box,
//             read through the chunk cache, on a ThreadPool of W. The
//             source serves boxes of the array in memory, so reading and
//             decoding stored chunks is left out. Labels whose padded box
//             needs more than the default budget (1 GiB) go in blocks, as
//             they would there; their count is printed;
//   kimimaro: bench/skeleton_kimimaro_peer.py runs kimimaro.skeletonize on
//             the same array (x, y, z Fortran order, its own layout) with
//             parallel=W, dust_threshold 0, the same scale and const.
// Figures: voxels of labels per second per thread (wall) and per CPU second
// (user + system of all threads, the peer's child processes included, a
// figure the machine's other load disturbs less), the ratios, total cable
// length of each, and the core-hours that the male CNS's labelled voxels
// (about 0.1 of 2.9e14 voxels at 8 nm: ~3e13) would take at each CPU rate.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "bench_common.h"
#include "chunkwise/core/thread_pool.h"
#include "core/synthetic_volume.h"
#include "pipelines/skeletons/skeleton_job.h"

namespace chunkwise {
namespace {

namespace fs = std::filesystem;
namespace sk = pipelines::skeletons;
constexpr int kRuns = 3;
constexpr double kMaleCnsLabelledVoxels = 3e13;
constexpr std::array<double, 3> kVoxel{8, 8, 40};
constexpr double kScale = 1.5, kConst = 300;

int Main(int argc, char** argv) {
  const char* usage = "usage: skeleton_bench [Z,Y,X] [THREADS]";
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
  const sk::LabelVolume volume{*labels, generate.shape, kVoxel, {0, 0, 0}};
  const std::uint64_t voxels = sk::CountLabelVoxels(volume, {});
  auto pool = std::make_shared<core::ThreadPool>(threads);
  sk::SkeletonSource source;
  source.shape = generate.shape;
  source.chunk = {64, 64, 64};
  source.voxel_size = kVoxel;
  source.read = [&](const core::Region& region) -> Result<std::vector<std::uint64_t>> {
    const auto& shape = generate.shape;
    std::vector<std::uint64_t> out;
    out.reserve(static_cast<std::size_t>(region.num_elements()));
    for (std::int64_t z = region.start()[0]; z < region.stop()[0]; ++z) {
      for (std::int64_t y = region.start()[1]; y < region.stop()[1]; ++y) {
        const std::uint64_t* row = labels->data() + (z * shape[1] + y) * shape[2];
        out.insert(out.end(), row + region.start()[2], row + region.stop()[2]);
      }
    }
    return out;
  };
  sk::CropSkeletonOptions options;
  options.params.scale = kScale;
  options.params.constant = kConst;
  options.pool = pool.get();
  std::vector<double> rates, cpu_rates;
  double cable = 0;
  std::size_t skeleton_count = 0;
  std::size_t blocked = 0;  // labels over the default budget, skeletonized in blocks
  for (int run = 0; run < kRuns; ++run) {
    std::vector<sk::Skeleton> skeletons;
    Status status;
    const double cpu_before = bench::ProcessCpuSeconds();
    const double seconds = bench::Seconds([&] {
      Result<sk::LabelTable> table =
          sk::ScanChunks(source, 0, sk::CountSourceChunks(source), pool.get(), nullptr, nullptr);
      if (!table.ok()) {
        status = table.status();
        return;
      }
      Result<sk::LabelWork> work = sk::SelectLabels(*table, {}, "bench");
      if (!work.ok()) {
        status = work.status();
        return;
      }
      blocked =
          static_cast<std::size_t>(std::count_if(work->begin(), work->end(), [](const auto& label) {
            return sk::CropBytes(label.second) > sk::kDefaultLabelMemory;
          }));
      Result<std::vector<sk::Skeleton>> done =
          sk::SkeletonizeFromSource(source, *work, options, "bench");
      if (done.ok()) {
        skeletons = std::move(*done);
      } else {
        status = done.status();
      }
    });
    if (!status.ok()) {
      std::fprintf(stderr, "skeleton_bench: %s\n", status.ToString().c_str());
      return 1;
    }
    rates.push_back(static_cast<double>(voxels) / seconds / static_cast<double>(threads));
    cpu_rates.push_back(static_cast<double>(voxels) / (bench::ProcessCpuSeconds() - cpu_before));
    cable = 0;
    for (const sk::Skeleton& s : skeletons) cable += sk::CableLength(s);
    skeleton_count = skeletons.size();
  }

  // The same volume for the peer, as raw z, y, x uint64.
  const fs::path raw =
      fs::temp_directory_path() / ("skeleton_bench_" + std::to_string(::getpid()) + ".raw");
  {
    std::ofstream out(raw, std::ios::binary);
    out.write(reinterpret_cast<const char*>(labels->data()),
              static_cast<std::streamsize>(labels->size() * sizeof(std::uint64_t)));
  }
  const std::string shape = std::to_string(generate.shape[0]) + "," +
                            std::to_string(generate.shape[1]) + "," +
                            std::to_string(generate.shape[2]);
  const std::string command = std::string(CHUNKWISE_SOURCE_DIR) + "/.venv/bin/python " +
                              CHUNKWISE_SOURCE_DIR + "/bench/skeleton_kimimaro_peer.py " +
                              raw.string() + " " + shape + " 8,8,40 " + std::to_string(kScale) +
                              " " + std::to_string(kConst) + " " + std::to_string(threads) + " 2";
  double peer_rate = 0, peer_cpu_rate = 0, peer_cable = 0;
  if (const std::optional<nlohmann::json> peer = bench::RunJsonPeer(command, "skeleton_bench")) {
    std::vector<double> peer_rates, peer_cpu_rates;
    for (const double s : (*peer)["seconds"]) {
      peer_rates.push_back(static_cast<double>(voxels) / s / static_cast<double>(threads));
    }
    for (const double s : (*peer)["cpu_seconds"]) {
      peer_cpu_rates.push_back(static_cast<double>(voxels) / s);
    }
    peer_rate = bench::Median(peer_rates);
    peer_cpu_rate = bench::Median(peer_cpu_rates);
    peer_cable = (*peer)["cable_length"].get<double>();
  }
  fs::remove(raw);

  const double ours = bench::Median(rates);
  const double ours_cpu = bench::Median(cpu_rates);
  std::printf(
      "skeleton_bench: %s voxels (%llu labelled, %zu labels), %zu threads, 8x8x40 nm, "
      "scale %.1f const %.0f nm\n",
      shape.c_str(), static_cast<unsigned long long>(voxels), skeleton_count, threads, kScale,
      kConst);
  std::printf("%-30s %14s %14s %8s\n", "labelled voxels per second", "ours", "kimimaro", "ratio");
  std::printf("%-30s %14.0f %14.0f %7.2fx\n", "per thread (wall)", ours, peer_rate,
              peer_rate > 0 ? ours / peer_rate : 0.0);
  std::printf("%-30s %14.0f %14.0f %7.2fx\n", "per CPU second", ours_cpu, peer_cpu_rate,
              peer_cpu_rate > 0 ? ours_cpu / peer_cpu_rate : 0.0);
  std::printf("%-30s %14.3f %14.3f\n", "cable length (mm)", cable * 1e-6, peer_cable * 1e-6);
  // Core-hours from CPU seconds: what a cluster bills, and what load on this machine disturbs
  // least.
  std::printf("male CNS (~%.0e labelled voxels): ours %.0f core-hours, kimimaro %.0f core-hours\n",
              kMaleCnsLabelledVoxels, kMaleCnsLabelledVoxels / ours_cpu / 3600,
              peer_cpu_rate > 0 ? kMaleCnsLabelledVoxels / peer_cpu_rate / 3600 : 0.0);
  std::printf("labels over the default memory budget (%llu MiB), skeletonized in blocks: %zu\n",
              static_cast<unsigned long long>(sk::kDefaultLabelMemory >> 20), blocked);
  return 0;
}

}  // namespace
}  // namespace chunkwise

int main(int argc, char** argv) { return chunkwise::Main(argc, argv); }
