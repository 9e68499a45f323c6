// Throughput of export-shards next to its per-block floor, measured in the
// same run on the same blocks and threads.
//
// A synthetic neuron segmentation (core/synthetic_volume.h, 512×1024×1024 by
// default: 2,048 blocks at scale 0, 2,038 of them stored; a first argument
// "z,y,x" changes it) is ingested into a temporary labelmap with a merge
// mapping. Exports run to millions of blocks; below a few thousand, a run's
// fixed costs (threads, directories, the last batch of each handler) weigh
// in and the ratio drops (about 0.75 at 256 blocks on a 2-core machine). Then, with W
// threads (hardware threads; a second argument changes it):
//   export: ExportShards of scale 0 into a fresh directory — scan, gunzip,
//     block check, mapping, zstd-3, Arrow records, CSV index, files renamed;
//   floor:  the same stored values (already in memory) gunzipped and the DVID
//     block bytes zstd-3 compressed on a ThreadPool of W threads — what any
//     exporter of these blocks has to spend at least.
// Figures are blocks per second of wall time, medians of several runs, and the
// ratio export / floor (goal ≥ 0.8).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "bench_common.h"
#include "chunkwise/core/bytes.h"
#include "chunkwise/core/thread_pool.h"
#include "chunkwise/store/file_store.h"
#include "codec/zstd_codec.h"
#include "core/synthetic_volume.h"
#include "formats/dvid/ingest.h"
#include "formats/dvid/value_envelope.h"
#include "pipelines/export_shards.h"

namespace chunkwise {
namespace {

namespace fs = std::filesystem;
namespace dvid = formats::dvid;
constexpr int kRuns = 15;

using bench::Median;
using bench::Seconds;

void Check(const Status& status, const char* what) {
  if (!status.ok()) {
    std::fprintf(stderr, "%s: %s\n", what, status.ToString().c_str());
    std::exit(1);
  }
}

pipelines::ExportSpec SpecFor(const std::array<std::int64_t, 3>& shape) {
  const std::string text =
      R"({"@type":"neuroglancer_multiscale_volume","data_type":"uint64","scales":[{"key":"s0","size":[)" +
      std::to_string(shape[2]) + "," + std::to_string(shape[1]) + "," + std::to_string(shape[0]) +
      R"(],"chunk_sizes":[[64,64,64]],"sharding":{"@type":"neuroglancer_uint64_sharded_v1",)"
      R"("preshift_bits":3,"hash":"identity","minishard_bits":3,"shard_bits":12}}]})";
  Result<pipelines::ExportSpec> spec = pipelines::ParseExportSpec(text, "bench spec");
  Check(spec.status(), "spec");
  return *spec;
}

int Run(std::array<std::int64_t, 3> shape, std::size_t workers) {
  const fs::path root =
      fs::temp_directory_path() / ("chunkwise_export_bench." + std::to_string(getpid()));
  fs::remove_all(root);
  Result<std::vector<std::uint64_t>> labels =
      core::GenerateNeuronLabels({.shape = shape, .neuron_count = 300, .seed = 3});
  Check(labels.status(), "generate");
  auto db = store::RocksDbStore::Open(root / "db", {.create_if_missing = true});
  Check(db.status(), "open");
  auto labelmap = dvid::Labelmap::Open(*db, true);
  Check(labelmap.status(), "labelmap");
  core::ThreadPool pool(workers);
  Check(dvid::IngestVolume(**labelmap, *labels, shape, {.pool = &pool}).status(), "ingest");
  std::vector<dvid::LabelPair> merges;
  for (std::uint64_t sv = 1'000'000; sv < 1'000'300; sv += 3) merges.push_back({sv, sv + 1});
  Check((*labelmap)->SetMappings(1, merges), "map");

  // The stored values, for the floor.
  std::vector<Bytes> stored;
  Check((*labelmap)->ScanAllBlocks(1, 0,
                                   [&](const dvid::BlockCoord&, ByteView value) {
                                     stored.emplace_back(value.begin(), value.end());
                                     return Status::Ok();
                                   }),
        "scan");
  const auto zstd = codec::ZstdCodec::Create({.level = 3});
  Check(zstd.status(), "zstd");
  std::vector<double> floor_rates, export_rates;
  const pipelines::ExportSpec spec = SpecFor(shape);
  for (int run = 0; run < kRuns; ++run) {
    const double floor_s = Seconds([&] {
      Check(
          pool.ParallelFor(stored.size(),
                           [&](std::size_t i) -> Status {
                             CHUNKWISE_ASSIGN_OR_RETURN(
                                 const Bytes block,
                                 dvid::DecodeValue(stored[i], dvid::kMaxStoredBlockBytes, "block"));
                             return (*zstd)->Encode(block).status();
                           }),
          "floor");
    });
    floor_rates.push_back(static_cast<double>(stored.size()) / floor_s);
    const std::string dest = "out" + std::to_string(run) + "/";
    Result<pipelines::ExportSummary> summary(Status::Internal("not run"));
    const double export_s = Seconds([&] {
      auto files = store::FileStore::Open(root);
      Check(files.status(), "open root");
      summary = pipelines::ExportShards(**labelmap, spec, *files, dest, {.workers = workers});
    });
    Check(summary.status(), "export");
    export_rates.push_back(static_cast<double>(summary->scales[0].blocks_read) / export_s);
    fs::remove_all(root / dest);
  }
  const double floor = Median(floor_rates), ours = Median(export_rates);
  std::printf(
      "export-shards, scale 0 of a %lldx%lldx%lld neuron segmentation (%zu blocks), %zu threads\n",
      static_cast<long long>(shape[0]), static_cast<long long>(shape[1]),
      static_cast<long long>(shape[2]), stored.size(), workers);
  std::printf("blocks/s (median of %d runs, wall clock)\n", kRuns);
  std::printf("%-34s %10s\n", "export (scan..files, whole pipeline)", "floor (gunzip + zstd-3)");
  std::printf("%-34.0f %10.0f   ratio %.2f\n", ours, floor, ours / floor);
  fs::remove_all(root);
  return 0;
}

constexpr const char* kUsage = "export_shards_bench [z,y,x] [threads]";

// The volume's shape from "z,y,x": exactly three whole numbers.
std::array<std::int64_t, 3> ParseShape(const std::string& text) {
  std::array<std::int64_t, 3> shape{};
  std::size_t start = 0;
  for (std::size_t axis = 0; axis < shape.size(); ++axis) {
    const std::size_t comma = text.find(',', start);
    const bool last = axis + 1 == shape.size();
    if ((comma == std::string::npos) != last)
      bench::ExitWithUsage(kUsage);  // Two commas, no more, no fewer.
    shape[axis] = bench::IntegerArg("z,y,x", text.substr(start, comma - start).c_str(), 1, 1 << 20);
    start = comma + 1;
  }
  return shape;
}

}  // namespace
}  // namespace chunkwise

int main(int argc, char** argv) {
  // As the CLI does: freed block buffers are reused instead of going back to
  // the kernel, for the export and the floor alike.
  chunkwise::KeepFreedMemoryForReuse();
  const std::array<std::int64_t, 3> shape =
      argc > 1 ? chunkwise::ParseShape(argv[1]) : std::array<std::int64_t, 3>{512, 1024, 1024};
  const std::size_t threads =
      argc > 2 ? static_cast<std::size_t>(chunkwise::bench::IntegerArg("threads", argv[2], 1, 4096))
               : std::max(1u, std::thread::hardware_concurrency());
  return chunkwise::Run(shape, threads);
}
