// Throughput of `dvid to-precomputed` next to its per-block floor and next to
// TensorStore writing the same volume, measured in the same run on the same
// blocks and threads.
//
// A synthetic neuron segmentation (core/synthetic_volume.h, 512×1024×1024 by
// default: 2,048 blocks; a first argument "z,y,x" changes it) is ingested
// into a temporary labelmap with a merge mapping and exported with
// export-shards under the male CNS scale-0 sharding (preshift 9, minishard 6,
// identity; 32³ chunks per shard). Then, with W threads (hardware threads; a
// second argument changes it), medians of several runs:
//   ours:   ExportToPrecomputed of that export into a fresh directory — Arrow
//           shards opened and read, blocks zstd-decompressed, decoded, mapped,
//           compressed_segmentation-encoded (8³), gzipped (level 6), shards
//           built and written;
//   floor:  the same records (already in memory) zstd-decompressed, decoded,
//           mapped, compressed_segmentation-encoded and gzipped on a
//           ThreadPool of W threads — what any converter of these blocks has
//           to spend at least;
//   TensorStore: bench/tensorstore_precomputed_peer.py writes the same
//           (mapped) volume, held in one numpy array, through its
//           neuroglancer_precomputed driver with the same info (sharded,
//           compressed_segmentation, gzip), data_copy and file_io
//           concurrency limited to W — as its users write.
// Figures are blocks per second of wall time, the ratios, and the core-hours
// the male CNS (587 M blocks) would take at each rate.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "bench_common.h"
#include "chunkwise/core/thread_pool.h"
#include "chunkwise/store/file_store.h"
#include "codec/compressed_segmentation.h"
#include "codec/gzip_codec.h"
#include "core/synthetic_volume.h"
#include "formats/dvid/arrow_shard_reader.h"
#include "formats/dvid/ingest.h"
#include "pipelines/export_shards.h"
#include "pipelines/export_to_precomputed.h"
#include "pipelines/exported_volume_reader.h"

namespace chunkwise {
namespace {

namespace fs = std::filesystem;
namespace dvid = formats::dvid;
namespace pc = formats::precomputed;
constexpr int kRuns = 5;
constexpr int kPeerRuns = 3;
constexpr double kMaleCnsBlocks = 587e6;

using bench::Median;
using bench::Seconds;

void Check(const Status& status, const char* what) {
  if (!status.ok()) {
    std::fprintf(stderr, "%s: %s\n", what, status.ToString().c_str());
    std::exit(1);
  }
}

std::string SpecText(const std::array<std::int64_t, 3>& shape) {
  return R"({"@type":"neuroglancer_multiscale_volume","type":"segmentation","data_type":"uint64",)"
         R"("num_channels":1,"scales":[{"key":"8x8x8","resolution":[8,8,8],"size":[)" +
         std::to_string(shape[2]) + "," + std::to_string(shape[1]) + "," +
         std::to_string(shape[0]) +
         R"(],"chunk_sizes":[[64,64,64]],"encoding":"compressed_segmentation",)"
         R"("sharding":{"@type":"neuroglancer_uint64_sharded_v1","preshift_bits":9,)"
         R"("hash":"identity","minishard_bits":6,"shard_bits":19,)"
         R"("minishard_index_encoding":"gzip"}}]})";
}

// Every record of the export's scale 0, read once into memory.
std::vector<dvid::ExportBlock> LoadRecords(const fs::path& export_dir) {
  std::vector<dvid::ExportBlock> records;
  for (const auto& entry : fs::directory_iterator(export_dir / "s0")) {
    if (entry.path().extension() != ".arrow") continue;
    auto files = store::FileStore::Open(entry.path().parent_path(), {.create_root = false});
    Check(files.status(), "open shard directory");
    auto shard = dvid::ArrowShardReader::Open(*files, entry.path().filename().string());
    Check(shard.status(), "open shard");
    for (const auto& xyz : shard->ListChunks()) {
      auto record = shard->Get(xyz[0], xyz[1], xyz[2]);
      Check(record.status(), "read record");
      records.push_back(std::move(**record));
    }
  }
  return records;
}

// The floor: decode, encode and gzip every record on the pool.
double FloorSeconds(const std::vector<dvid::ExportBlock>& records, core::ThreadPool& pool) {
  const auto gzip = codec::GzipCodec::Create(6);
  Check(gzip.status(), "gzip");
  return Seconds([&] {
    Check(pool.ParallelFor(records.size(),
                           [&](std::size_t i) -> Status {
                             thread_local std::vector<std::uint64_t> voxels(64 * 64 * 64);
                             CHUNKWISE_RETURN_IF_ERROR(
                                 pipelines::DecodeExportBlock(records[i], false, voxels, "floor"));
                             Bytes encoded;
                             CHUNKWISE_RETURN_IF_ERROR(codec::EncodeCompressedSegmentation(
                                 voxels, {{64, 64, 64}, {8, 8, 8}, 1}, encoded));
                             return (*gzip)->Encode(encoded).status();
                           }),
          "floor");
  });
}

// The mapped volume as one raw z,y,x uint64 file, for the TensorStore peer.
void WriteMappedVolume(const std::vector<dvid::ExportBlock>& records,
                       const std::array<std::int64_t, 3>& shape, const fs::path& path) {
  std::vector<std::uint64_t> slab(static_cast<std::size_t>(64 * shape[1] * shape[2]));
  std::vector<std::uint64_t> block(64 * 64 * 64);
  std::ofstream out(path, std::ios::binary);
  for (std::int64_t bz = 0; bz * 64 < shape[0]; ++bz) {
    std::fill(slab.begin(), slab.end(), 0);
    for (const dvid::ExportBlock& record : records) {
      if (record.chunk_z != bz) continue;
      Check(pipelines::DecodeExportBlock(record, false, block, "volume"), "decode");
      for (int z = 0; z < 64; ++z) {
        for (int y = 0; y < 64; ++y) {
          const std::int64_t gy = record.chunk_y * 64 + y, gx = record.chunk_x * 64;
          if (gy >= shape[1] || gx >= shape[2]) continue;
          std::memcpy(&slab[(z * shape[1] + gy) * shape[2] + gx], &block[(z * 64 + y) * 64],
                      static_cast<std::size_t>(std::min<std::int64_t>(64, shape[2] - gx)) * 8);
        }
      }
    }
    const std::int64_t depth = std::min<std::int64_t>(64, shape[0] - bz * 64);
    out.write(reinterpret_cast<const char*>(slab.data()),
              static_cast<std::streamsize>(depth * shape[1] * shape[2] * 8));
  }
}

std::string PythonForPeer() {
  const fs::path venv = fs::path(CHUNKWISE_SOURCE_DIR) / ".venv" / "bin" / "python";
  return fs::exists(venv) ? venv.string() : "python3";
}

int Run(std::array<std::int64_t, 3> shape, std::size_t threads) {
  const fs::path root =
      fs::temp_directory_path() / ("chunkwise_precomputed_bench." + std::to_string(getpid()));
  fs::remove_all(root);
  fs::create_directories(root);
  core::ThreadPool pool(threads);
  {
    Result<std::vector<std::uint64_t>> labels =
        core::GenerateNeuronLabels({.shape = shape, .neuron_count = 300, .seed = 3});
    Check(labels.status(), "generate");
    auto db = store::RocksDbStore::Open(root / "db", {.create_if_missing = true});
    Check(db.status(), "open");
    auto labelmap = dvid::Labelmap::Open(*db, true);
    Check(labelmap.status(), "labelmap");
    Check(dvid::IngestVolume(**labelmap, *labels, shape, {.pool = &pool}).status(), "ingest");
    std::vector<dvid::LabelPair> merges;
    for (std::uint64_t sv = 1'000'000; sv < 1'000'300; sv += 3) merges.push_back({sv, sv + 1});
    Check((*labelmap)->SetMappings(1, merges), "map");
    auto spec = pipelines::ParseExportSpec(SpecText(shape), "bench spec");
    Check(spec.status(), "spec");
    auto files = store::FileStore::Open(root);
    Check(files.status(), "open root");
    Check(pipelines::ExportShards(**labelmap, *spec, *files, "export/", {.workers = threads})
              .status(),
          "export");
  }
  const std::vector<dvid::ExportBlock> records = LoadRecords(root / "export");
  auto source = store::FileStore::Open(root / "export", {.create_root = false});
  Check(source.status(), "export store");
  std::vector<double> floor_rates, our_rates;
  for (int run = 0; run < kRuns; ++run) {
    floor_rates.push_back(static_cast<double>(records.size()) / FloorSeconds(records, pool));
    const fs::path dest = root / ("out" + std::to_string(run));
    auto dest_store = store::FileStore::Open(dest);
    Check(dest_store.status(), "dest store");
    Result<pipelines::ExportToPrecomputedSummary> summary(Status::Internal("not run"));
    const double seconds = Seconds([&] {
      summary = pipelines::ExportToPrecomputed(*source, "", std::nullopt, *dest_store, "",
                                               {.threads = threads});
    });
    Check(summary.status(), "to-precomputed");
    our_rates.push_back(static_cast<double>(summary->scales[0].blocks) / seconds);
    if (run + 1 < kRuns) fs::remove_all(dest);
  }
  // TensorStore writes the same volume with the info ours wrote.
  WriteMappedVolume(records, shape, root / "volume.raw");
  const std::string command = PythonForPeer() + " " + CHUNKWISE_SOURCE_DIR +
                              "/bench/tensorstore_precomputed_peer.py " +
                              (root / "volume.raw").string() + " " + std::to_string(shape[0]) +
                              "," + std::to_string(shape[1]) + "," + std::to_string(shape[2]) +
                              " " + (root / ("out" + std::to_string(kRuns - 1)) / "info").string() +
                              " " + (root / "tensorstore").string() + " " +
                              std::to_string(kPeerRuns) + " " + std::to_string(threads) + " 2>&1";
  std::vector<double> peer_rates;
  if (const std::optional<nlohmann::json> peer = bench::RunJsonPeer(command, "precomputed_bench")) {
    for (const double s : (*peer)["write_seconds"]) {
      peer_rates.push_back(static_cast<double>(records.size()) / s);
    }
  }
  const double ours = Median(our_rates), floor = Median(floor_rates), peer = Median(peer_rates);
  const auto core_hours = [&](double rate) {
    return rate > 0 ? kMaleCnsBlocks / (rate / static_cast<double>(threads)) / 3600 : 0;
  };
  std::printf(
      "dvid to-precomputed, scale 0 of a %lldx%lldx%lld neuron segmentation (%zu blocks; male CNS "
      "sharding), %zu threads\n",
      static_cast<long long>(shape[0]), static_cast<long long>(shape[1]),
      static_cast<long long>(shape[2]), records.size(), threads);
  std::printf("blocks/s (median of %d runs; TensorStore %d), wall clock\n", kRuns, kPeerRuns);
  std::printf("%-12s %-40s %-14s %-12s %s\n", "ours", "floor (zstd-d + DVID decode + cseg + gzip)",
              "TensorStore", "ours/floor", "ours/TensorStore");
  std::printf("%-12.0f %-40.0f %-14.0f %-12.2f %.2f\n", ours, floor, peer, ours / floor,
              peer > 0 ? ours / peer : 0.0);
  std::printf("male CNS (587 M blocks): ours %.0f core-hours, floor %.0f, TensorStore %.0f\n",
              core_hours(ours), core_hours(floor), core_hours(peer));
  fs::remove_all(root);
  return 0;
}

constexpr const char* kUsage = "precomputed_bench [z,y,x] [threads]";

std::array<std::int64_t, 3> ParseShape(const std::string& text) {
  std::array<std::int64_t, 3> shape{};
  std::size_t start = 0;
  for (std::size_t axis = 0; axis < shape.size(); ++axis) {
    const std::size_t comma = text.find(',', start);
    if ((comma == std::string::npos) != (axis + 1 == shape.size())) bench::ExitWithUsage(kUsage);
    shape[axis] =
        bench::IntegerArg("z,y,x", text.substr(start, comma - start).c_str(), 64, 1 << 20);
    start = comma + 1;
  }
  return shape;
}

}  // namespace
}  // namespace chunkwise

int main(int argc, char** argv) {
  chunkwise::KeepFreedMemoryForReuse();
  if (argc > 3) chunkwise::bench::ExitWithUsage(chunkwise::kUsage);
  const std::array<std::int64_t, 3> shape =
      argc > 1 ? chunkwise::ParseShape(argv[1]) : std::array<std::int64_t, 3>{512, 1024, 1024};
  const std::size_t threads =
      argc > 2 ? static_cast<std::size_t>(chunkwise::bench::IntegerArg("threads", argv[2], 1, 4096))
               : std::max(1u, std::thread::hardware_concurrency());
  return chunkwise::Run(shape, threads);
}
