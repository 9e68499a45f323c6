// The streaming shard writer next to its ceiling and its peer, in one run on
// the same data.
//
// Input: --gib GiB (default 4) of uint16 microscopy-like frames of 2048×2048,
// 32 distinct frames (one tile epoch) repeated, appended one frame at a time.
// Layout: tiles 32×128×128, 4×4×4 tiles per shard, --codec (default zstd:1).
//   raw codec     the same inner codec compressing the same tiles, held in
//                 memory, on the same thread pool size: the ceiling (goal:
//                 stream ≥ 0.85× of it);
//   stream        StreamWriter into the discard sink and into a FileStore;
//   levels        with --levels N, the stream writer into the discard sink
//                 writing N coarser levels (mean of 2×2×2) beside level 0, as
//                 `zarr stream --levels N` does (goal: at most 1.25× the CPU
//                 seconds of level 0 alone);
//   one copy     each frame copied once into a reused buffer of one epoch:
//                 the design's one move of every byte (frames to tiles) at
//                 memcpy's speed, the floor of what the writer adds to its
//                 codec (printed as codec + copy against the codec's CPU);
//   mean         with --levels N, the pyramid's reduction alone (the
//                 writer's own PyramidAccumulator, output dropped): with the
//                 codec's work on the levels' extra bytes, the floor of what
//                 the levels add to level 0;
//   region writer formats/zarr Array::Write of the same data, shard slab by
//                 shard slab, into a FileStore (goal: stream faster); its time
//                 includes collecting the frames into the slab, since they
//                 arrive one at a time for both writers;
//   every writer is timed from its creation to its close, each timed run after
//   an untimed one of a quarter of its length (see Measure);
//   steady state  raw, discard and levels again, as the CPU of a stream twice
//                 as long less that of one as long (see SteadyCpu): the cost
//                 per byte once each writer's fixed costs (the first touch of
//                 its 1 GiB of buffers in a stream of a few epochs) cancel;
//   peak RSS      growth of the high-water mark while streaming (reset through
//                 /proc/self/clear_refs), at a quarter of the length and at the
//                 full length, next to memory_estimate().
//   peers         after our rounds, each in its own process from the pinned
//                 .venv, streaming the same frames in the same layout and codec
//                 into files on the same number of threads, configured as its
//                 users configure it (docs/benchmarks.md): TensorStore
//                 (bench/tensorstore_stream_peer.py) and acquire-zarr
//                 (bench/acquire_zarr_stream_peer.py; blosc codecs only), next
//                 to the stream writer's file sink; --runs runs each.
// Figures are GB/s of uncompressed input and CPU seconds (all threads, user
// and system) per GB, medians over --runs rounds; ratios are medians of the
// per-round ratios, and ours/fastest is our median over the fastest peer's.
//
// usage: stream_bench [--gib G] [--runs N] [--threads T] [--codec C] [--dir DIR]
//                     [--levels N] [--peers ts,acquire-zarr|none] [--venv-python PATH]

#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "bench_common.h"
#include "chunkwise/core/npy.h"
#include "chunkwise/core/thread_pool.h"
#include "chunkwise/io/npy_file.h"
#include "chunkwise/store/file_store.h"
#include "codec/codec_chain.h"
#include "core/ravel.h"
#include "formats/zarr/array.h"
#include "pipelines/stream/pyramid_accumulator.h"
#include "pipelines/stream/pyramid_plan.h"
#include "pipelines/stream/stream_writer.h"
#include "store/memory_store.h"
#include "stream_bench_common.h"

namespace chunkwise {
namespace {

namespace fs = std::filesystem;
namespace stream = pipelines::stream;
using bench::kDistinctFrames;
using bench::kFrameSide;
using bench::Median;
using bench::Seconds;
using core::Index;

struct Options {
  double gib = 4;
  int runs = 3;
  std::size_t threads = 0;
  std::string codec = "zstd:1";
  fs::path dir = fs::temp_directory_path() / "chunkwise-stream-bench";
  std::string only;        // One path alone (raw, copy, mean, discard, file, levels or region).
  std::size_t levels = 0;  // > 0: also the discard sink with this many coarser levels.
  std::string peers = "ts,acquire-zarr";
  std::string venv_python = std::string(CHUNKWISE_SOURCE_DIR) + "/.venv/bin/python";
};

void Check(const Status& status, const char* what) { bench::CheckOk(status, what); }

std::uint64_t StatusField(const char* field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(field, 0) == 0)
      return std::strtoull(line.c_str() + std::strlen(field), nullptr, 10) << 10;
  }
  return 0;
}

using bench::ProcessCpuSeconds;

// Runs `phase` on `frames` frames, returning its wall seconds and adding its
// CPU seconds to `cpu`. An untimed run of a quarter of the length goes first:
// on our VMs, touching memory the host has taken back from the guest costs as
// much as compressing it, so without it whichever path ran first after a
// quiet spell paid for the memory of all the others (0.74 against 0.99 GB/s).
// `reset` (removing the last output) runs before each, outside the count.
double Measure(
    const std::function<double(Index)>& phase, Index frames, std::vector<double>& cpu,
    const std::function<void()>& reset = [] {}) {
  reset();
  phase(std::max<Index>(kDistinctFrames, frames / 4));
  reset();
  const double before = ProcessCpuSeconds();
  const double wall = phase(frames);
  cpu.push_back(ProcessCpuSeconds() - before);
  return wall;
}

// CPU seconds of the frames `phase` writes beyond the first `frames`: a
// stream of 2·frames less one of `frames`, so that what a writer spends once
// (creating it, the first touch of its buffers, closing it) cancels, and what
// is left is its cost per byte in the steady state of a long acquisition.
constexpr Index kMinSteadyEpochs = 4;
double SteadyCpu(const std::function<double(Index)>& phase, Index frames) {
  double before = ProcessCpuSeconds();
  phase(frames);
  const double once = ProcessCpuSeconds() - before;
  before = ProcessCpuSeconds();
  phase(2 * frames);
  return ProcessCpuSeconds() - before - once;
}

void ResetPeakRss() { std::ofstream("/proc/self/clear_refs") << "5"; }

double StreamOnce(const stream::StreamConfig& config, const Bytes& distinct, Index frames,
                  std::shared_ptr<store::Store> store, stream::ShardSink* sink) {
  stream::StreamWriterOptions options;
  options.sink = sink;
  return bench::StreamOnce(config, distinct, frames, std::move(store), options);
}

// The tiles of one epoch (the distinct frames), as the compressor sees them.
std::vector<Bytes> EpochTiles(const Bytes& distinct) {
  const core::Shape shape = {kDistinctFrames, kFrameSide, kFrameSide};
  const core::Shape tile = {32, 128, 128};
  const core::Shape grid = {1, kFrameSide / 128, kFrameSide / 128};
  std::vector<Bytes> tiles(static_cast<std::size_t>(grid[1] * grid[2]));
  for (std::size_t i = 0; i < tiles.size(); ++i) {
    const core::Coord c = core::Unravel(static_cast<Index>(i), grid);
    tiles[i].resize(std::size_t{32} * 128 * 128 * 2);  // One `tile` of uint16.
    const core::Coord origin = {0, c[1] * 128, c[2] * 128};
    const core::Coord zero = {0, 0, 0};
    core::CopyStridedRegion({distinct.data(), shape, origin}, {tiles[i].data(), tile, zero}, tile,
                            2);
  }
  return tiles;
}

double RawCodecOnce(const stream::StreamPlan& plan, const std::vector<Bytes>& tiles, Index epochs,
                    core::ThreadPool& pool) {
  const codec::CodecChain& chain = *plan.tile_codecs;
  return Seconds([&] {
    Check(pool.ParallelFor(static_cast<std::size_t>(epochs) * tiles.size(),
                           [&](std::size_t k) -> Status {
                             return chain.Encode(plan.tile_spec, tiles[k % tiles.size()]).status();
                           }),
          "raw encode");
  });
}

// Every frame copied once into `epoch` (a reused buffer of one epoch's frames),
// as the writer moves each byte once from the caller's frame into its tiles.
double CopyOnce(const Bytes& distinct, Index frames, std::size_t frame_bytes, Bytes& epoch) {
  return Seconds([&] {
    for (Index f = 0; f < frames; ++f) {
      const std::size_t at = static_cast<std::size_t>(f % kDistinctFrames) * frame_bytes;
      std::memcpy(epoch.data() + at, distinct.data() + at, frame_bytes);
    }
  });
}

// The pyramid's reduction alone: the writer's accumulator on the same frames,
// appended one at a time, its levels' frames dropped.
double MeanOnce(const stream::StreamConfig& levels_config, const Bytes& distinct, Index frames,
                std::size_t frame_bytes, core::ThreadPool& pool) {
  auto pyramid = stream::PlanPyramid(levels_config);
  Check(pyramid.status(), "plan pyramid");
  const core::Shape frame = {kFrameSide, kFrameSide};
  return Seconds([&] {
    stream::PyramidAccumulator accumulator(
        pyramid->MakeDownsampler(), frame, pyramid->levels.size() - 1,
        [](std::size_t, ByteView) { return Status::Ok(); }, &pool);
    for (Index f = 0; f < frames; ++f) {
      const std::size_t at = static_cast<std::size_t>(f % kDistinctFrames) * frame_bytes;
      Check(accumulator.Add(ByteView(distinct).subspan(at, frame_bytes)), "mean add");
    }
    Check(accumulator.Finish(), "mean finish");
  });
}

// Bytes of levels 1..N over level 0's: what the levels give their codec more.
double LevelsExtraShare(const stream::StreamConfig& levels_config) {
  auto pyramid = stream::PlanPyramid(levels_config);
  Check(pyramid.status(), "plan pyramid");
  double share = 0;
  for (std::size_t k = 1; k < pyramid->levels.size(); ++k) {
    share += static_cast<double>(pyramid->levels[k].frame_bytes) /
             static_cast<double>(pyramid->levels[0].frame_bytes) /
             std::pow(2.0, static_cast<double>(k));  // Frames halve with each level.
  }
  return share;
}

// The zarr region writer, one shard slab (128 frames) per Write.
double RegionWriterOnce(const stream::StreamPlan& plan, const Bytes& distinct, Index frames,
                        const fs::path& dir) {
  auto store = store::FileStore::Open(dir);
  Check(store.status(), "region store");
  formats::zarr::ArrayMetadata metadata = plan.metadata;
  metadata.shape[0] = frames;
  const Index slab_frames = metadata.chunk_shape[0];
  // From creation to the last write. The frames arrive one at a time, as the
  // stream writer gets them, so collecting them into the slab counts too.
  return Seconds([&] {
    auto array = formats::zarr::Array::Create(*store, "", metadata, true);
    Check(array.status(), "region create");
    Bytes slab(static_cast<std::size_t>(slab_frames) * plan.frame_bytes);
    for (Index first = 0; first < frames; first += slab_frames) {
      const Index n = std::min(slab_frames, frames - first);
      for (Index f = 0; f < n; ++f) {
        std::memcpy(slab.data() + f * plan.frame_bytes,
                    distinct.data() + ((first + f) % kDistinctFrames) * plan.frame_bytes,
                    plan.frame_bytes);
      }
      const core::Region region({first, 0, 0}, {first + n, kFrameSide, kFrameSide});
      Check(array->Write(region, ByteView(slab).first(n * plan.frame_bytes)), "region write");
    }
  });
}

// Peak RSS growth while streaming `frames` frames into the discard sink.
std::uint64_t PeakGrowth(const stream::StreamConfig& config, const Bytes& distinct, Index frames) {
  const std::uint64_t before = StatusField("VmRSS:");
  ResetPeakRss();
  stream::DiscardShardSink discard;
  StreamOnce(config, distinct, frames, store::MemoryStore::Create(), &discard);
  const std::uint64_t peak = StatusField("VmHWM:");
  return peak > before ? peak - before : 0;
}

using Path = std::function<double(Index)>;  // Writes n frames; returns its seconds.

// `config` writing `levels` coarser levels, each the mean of 2×2×2 of the one above.
stream::StreamConfig WithLevels(stream::StreamConfig config, std::size_t levels) {
  stream::MultiscaleConfig multiscale;
  multiscale.levels = levels;
  multiscale.factors = {2, 2, 2};
  config.multiscale = multiscale;
  return config;
}

// The measured paths by name, on the same data.
std::map<std::string, Path> Paths(const Options& options, const stream::StreamConfig& config,
                                  const stream::StreamConfig& levels_config,
                                  const stream::StreamPlan& plan, const Bytes& distinct,
                                  const std::vector<Bytes>& tiles, core::ThreadPool& pool,
                                  Bytes& epoch) {
  return {
      {"copy", [&](Index n) { return CopyOnce(distinct, n, plan.frame_bytes, epoch); }},
      {"mean",
       [&](Index n) { return MeanOnce(levels_config, distinct, n, plan.frame_bytes, pool); }},
      {"levels",
       [&](Index n) {
         stream::DiscardShardSink sink;
         return StreamOnce(levels_config, distinct, n, store::MemoryStore::Create(), &sink);
       }},
      {"raw", [&](Index n) { return RawCodecOnce(plan, tiles, n / 32, pool); }},
      {"discard",
       [&](Index n) {
         stream::DiscardShardSink sink;
         return StreamOnce(config, distinct, n, store::MemoryStore::Create(), &sink);
       }},
      {"file",
       [&](Index n) {
         auto store = store::FileStore::Open(options.dir / "stream.zarr");
         Check(store.status(), "stream store");
         return StreamOnce(config, distinct, n, *store, nullptr);
       }},
      {"region",
       [&](Index n) { return RegionWriterOnce(plan, distinct, n, options.dir / "region.zarr"); }},
  };
}

// One path alone, for a profiler: prints its GB/s.
int RunOnly(const Options& options, const std::map<std::string, Path>& paths, double gb,
            Index frames) {
  const auto path = paths.find(options.only);
  if (path == paths.end()) {
    std::fprintf(stderr,
                 "stream_bench: --only takes raw, copy, mean, discard, file, levels or region\n");
    return 2;
  }
  fs::remove_all(options.dir);
  const double seconds = path->second(frames);
  fs::remove_all(options.dir);
  std::printf("%s: %.3f GB/s\n", options.only.c_str(), gb / seconds);
  return 0;
}

// A peer's script under bench/, with what it writes besides the common
// arguments (FRAMES.npy GIB CODEC, then these, then DIR RUNS THREADS).
struct StreamPeer {
  const char* name;
  const char* script;
  const char* kvstore;  // TensorStore's "file" argument; empty for acquire-zarr.
};

// The median GB/s of `peer` streaming `frames_npy`'s frames, repeated to
// `gib` GiB, into files; 0 (with its message on stderr) when it cannot run,
// as acquire-zarr for a codec other than blosc.
double MeasureStreamPeer(const StreamPeer& peer, const Options& options, const fs::path& frames_npy,
                         std::size_t threads) {
  char gib[32];
  std::snprintf(gib, sizeof(gib), "%.17g", options.gib);
  std::string command = options.venv_python + " " + CHUNKWISE_SOURCE_DIR + "/bench/" + peer.script +
                        " " + frames_npy.string() + " " + gib + " " + options.codec;
  if (*peer.kvstore != '\0') command += std::string(" ") + peer.kvstore;
  command += " " + (options.dir / "peer.zarr").string() + " " + std::to_string(options.runs) + " " +
             std::to_string(threads);
  const std::optional<nlohmann::json> result = bench::RunJsonPeer(command, "stream_bench");
  if (!result) return 0;
  try {  // nlohmann::json reports a missing or mistyped field by throwing.
    return result->at("bytes").get<double>() / 1e9 /
           Median(result->at("seconds").get<std::vector<double>>());
  } catch (const nlohmann::json::exception& error) {
    std::fprintf(stderr, "stream_bench: the peer %s printed %s: %s\n", peer.name,
                 result->dump().c_str(), error.what());
    return 0;
  }
}

// The peers' table: each next to the stream writer's file sink (`ours`, GB/s).
// `raw` (GB/s) is the codec alone: over the fastest peer it is the most that
// any writer with this codec could lead by on this machine.
void RunPeers(const Options& options, const Bytes& distinct, std::size_t threads, double ours,
              double raw) {
  static constexpr StreamPeer kPeers[] = {
      {"ts", "tensorstore_stream_peer.py", "file"},
      {"acquire-zarr", "acquire_zarr_stream_peer.py", ""},
  };
  std::vector<std::pair<const char*, double>> figures;
  fs::create_directories(options.dir);
  const fs::path frames_npy = options.dir / "frames.npy";
  const core::Shape shape = {kDistinctFrames, kFrameSide, kFrameSide};
  Check(io::WriteNpy(frames_npy,
                     {core::NpyDtype::FromDataType(core::DataType(core::DataTypeId::kUInt16),
                                                   core::Endian::kLittle),
                      shape, false, distinct}),
        "write frames.npy");
  for (const StreamPeer& peer : kPeers) {
    if (("," + options.peers + ",").find(std::string(",") + peer.name + ",") == std::string::npos)
      continue;
    if (std::string(peer.name) == "acquire-zarr" && options.codec.rfind("blosc:", 0) != 0) {
      figures.emplace_back(peer.name, -1);  // It compresses with blosc only.
      continue;
    }
    figures.emplace_back(peer.name, MeasureStreamPeer(peer, options, frames_npy, threads));
  }
  fs::remove_all(options.dir);
  std::printf(
      "\npeers streaming the same frames, layout and codec into files, %zu threads, GB/s:\n",
      threads);
  std::printf("  %-28s %8.3f\n", "stream writer, file sink", ours);
  const std::pair<const char*, double>* fastest = nullptr;
  for (const auto& figure : figures) {
    if (figure.second > 0) {
      std::printf("  %-28s %8.3f   ours %.2fx\n", figure.first, figure.second,
                  ours / figure.second);
      if (fastest == nullptr || figure.second > fastest->second) fastest = &figure;
    } else if (figure.second < 0) {
      std::printf("  %-28s %8s   (writes blosc only, not %s)\n", figure.first, "-",
                  options.codec.c_str());
    } else {
      std::printf("  %-28s %8s   (did not run; see above)\n", figure.first, "-");
    }
  }
  if (fastest != nullptr) {
    std::printf("  ours / fastest peer (%s): %.2fx %s\n", fastest->first, ours / fastest->second,
                ours > fastest->second ? "ok" : "SLOWER");
    std::printf(
        "  raw codec / fastest peer: %.2fx (the most any writer of this codec could lead "
        "by here)\n",
        raw / fastest->second);
  }
}

Options Parse(int argc, char** argv) {
  constexpr const char* kUsage =
      "stream_bench [--gib G] [--runs N] [--threads T] [--codec C] [--dir D] "
      "[--only raw|copy|mean|discard|file|levels|region] [--levels N] [--peers "
      "ts,acquire-zarr|none] "
      "[--venv-python PATH]";
  Options options;
  bench::RequireFlagPairs(argc, kUsage);
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--gib")  // From about one 8 MiB frame up.
      options.gib = bench::NumberArg("--gib", argv[i + 1], 0.01, 1e6);
    else if (flag == "--runs")
      options.runs = static_cast<int>(bench::IntegerArg("--runs", argv[i + 1], 1, INT_MAX));
    else if (flag == "--threads")  // 0: one per core.
      options.threads =
          static_cast<std::size_t>(bench::IntegerArg("--threads", argv[i + 1], 0, 4096));
    else if (flag == "--codec")
      options.codec = argv[i + 1];
    else if (flag == "--dir")
      options.dir = argv[i + 1];
    else if (flag == "--only")
      options.only = argv[i + 1];
    else if (flag == "--levels")
      options.levels = static_cast<std::size_t>(bench::IntegerArg("--levels", argv[i + 1], 0, 8));
    else if (flag == "--peers")
      options.peers = argv[i + 1];
    else if (flag == "--venv-python")
      options.venv_python = argv[i + 1];
    else
      bench::ExitWithUsage(kUsage);
  }
  if (options.peers != "none") {  // Each name known, so that none is left out unseen.
    std::string rest = options.peers + ",";
    for (std::size_t at = 0; at < rest.size();) {
      const std::size_t comma = rest.find(',', at);
      const std::string name = rest.substr(at, comma - at);
      if (name != "ts" && name != "acquire-zarr") bench::ExitWithUsage(kUsage);
      at = comma + 1;
    }
  }
  return options;
}

int Main(int argc, char** argv) {
  KeepFreedMemoryForReuse();
  const Options options = Parse(argc, argv);
  const stream::StreamConfig config = bench::MicroscopyStreamConfig(options.codec, options.threads);
  auto plan = stream::PlanStream(config);
  Check(plan.status(), "plan");
  const Bytes distinct = bench::MicroscopyVolume({kDistinctFrames, kFrameSide, kFrameSide});
  const auto frames =
      static_cast<Index>(options.gib * (1 << 30) / static_cast<double>(plan->frame_bytes));
  const double gb = static_cast<double>(frames) * static_cast<double>(plan->frame_bytes) / 1e9;
  const std::vector<Bytes> tiles = EpochTiles(distinct);
  core::ThreadPool pool(plan->threads);
  std::printf("stream_bench: %lld frames of %lldx%lld uint16 (%.2f GB), codec %s, %zu threads\n",
              static_cast<long long>(frames), static_cast<long long>(kFrameSide),
              static_cast<long long>(kFrameSide), gb, options.codec.c_str(), plan->threads);
  std::printf("%s\n", stream::DescribePlan(*plan).c_str());

  const stream::StreamConfig levels_config =
      WithLevels(config, std::max<std::size_t>(1, options.levels));
  Bytes epoch(distinct.size());  // The copy's destination, reused as the writer reuses its own.
  const std::map<std::string, Path> paths =
      Paths(options, config, levels_config, *plan, distinct, tiles, pool, epoch);
  if (!options.only.empty()) return RunOnly(options, paths, gb, frames);
  std::vector<double> raw, discard, file, levels, region, discard_ratio, file_ratio, region_ratio;
  std::vector<double> raw_cpu, copy_cpu, mean_cpu, discard_cpu, file_cpu, levels_cpu, region_cpu;
  std::vector<double> copy, mean, raw_steady, discard_steady, levels_steady;
  std::vector<double> discard_cpu_ratio, levels_cpu_ratio;
  const auto remove_output = [&] { fs::remove_all(options.dir); };
  // Below four batches the second half of a stream still touches buffers the
  // first left untouched (the second slot and staging buffers), so it is not
  // yet the steady state.
  const bool steady = frames >= kMinSteadyEpochs * 32;
  for (int run = 0; run < options.runs; ++run) {
    raw.push_back(gb / Measure(paths.at("raw"), frames, raw_cpu));
    copy.push_back(gb / Measure(paths.at("copy"), frames, copy_cpu));
    discard.push_back(gb / Measure(paths.at("discard"), frames, discard_cpu));
    file.push_back(gb / Measure(paths.at("file"), frames, file_cpu, remove_output));
    if (options.levels > 0) {
      levels.push_back(gb / Measure(paths.at("levels"), frames, levels_cpu));
      mean.push_back(gb / Measure(paths.at("mean"), frames, mean_cpu));
      levels_cpu_ratio.push_back(levels_cpu.back() / discard_cpu.back());
    }
    region.push_back(gb / Measure(paths.at("region"), frames, region_cpu, remove_output));
    if (steady) {
      raw_steady.push_back(SteadyCpu(paths.at("raw"), frames));
      discard_steady.push_back(SteadyCpu(paths.at("discard"), frames));
      if (options.levels > 0) levels_steady.push_back(SteadyCpu(paths.at("levels"), frames));
    }
    remove_output();
    discard_ratio.push_back(discard.back() / raw.back());
    discard_cpu_ratio.push_back(discard_cpu.back() / raw_cpu.back());
    file_ratio.push_back(file.back() / raw.back());
    region_ratio.push_back(file.back() / region.back());
    std::printf(
        "round %d: raw %.3f  stream discard %.3f  stream file %.3f  levels %.3f  region writer "
        "%.3f GB/s\n",
        run + 1, raw.back(), discard.back(), file.back(), levels.empty() ? 0.0 : levels.back(),
        region.back());
  }
  std::printf("\n%-36s %8s %9s\n", "median over rounds", "GB/s", "CPU s/GB");
  const auto row = [&](const char* name, const std::vector<double>& rate,
                       const std::vector<double>& cpu, const std::string& note) {
    std::printf("%-36s %8.3f %9.2f   %s\n", name, Median(rate), Median(cpu) / gb, note.c_str());
  };
  char note[160];
  row("raw codec, same tiles and threads", raw, raw_cpu, "");
  row("one copy of each byte (memcpy)", copy, copy_cpu, "");
  std::snprintf(note, sizeof(note), "%.2fx raw GB/s (goal >= 0.85), %.2fx raw CPU (goal <= 1.2)",
                Median(discard_ratio), Median(discard_cpu_ratio));
  row("stream writer, discard sink", discard, discard_cpu, note);
  std::snprintf(note, sizeof(note), "%.2fx raw GB/s", Median(file_ratio));
  row("stream writer, file sink", file, file_cpu, note);
  if (options.levels > 0) {
    char name[64];
    std::snprintf(name, sizeof(name), "stream writer, %zu levels, discard", options.levels);
    std::snprintf(note, sizeof(note), "%.2fx level 0 alone's CPU (goal <= 1.25)",
                  Median(levels_cpu_ratio));
    row(name, levels, levels_cpu, note);
    row("the levels' mean alone", mean, mean_cpu, "");
  }
  // The floors the goals meet: what no writer of this design can go below on
  // this machine, from this run's own rows (CPU seconds, medians).
  const double raw_median = Median(raw_cpu);
  std::printf("floor, discard: codec + one copy = %.2fx raw CPU (goal <= 1.2)\n",
              (raw_median + Median(copy_cpu)) / raw_median);
  if (options.levels > 0) {
    const double extra = LevelsExtraShare(levels_config);
    std::printf(
        "floor, %zu levels: level 0 + codec on %.1f%% more bytes + the mean = %.2fx level 0's "
        "CPU (goal <= 1.25)\n",
        options.levels, 100 * extra,
        1 + (extra * raw_median + Median(mean_cpu)) /
                Median(steady ? discard_steady : discard_cpu));
  }
  std::snprintf(note, sizeof(note), "stream file sink is %.2fx it (goal > 1)",
                Median(region_ratio));
  row("zarr region writer, file", region, region_cpu, note);
  if (steady) {
    std::printf(
        "steady state, CPU s/GB of a stream's second %.2f GB (2x the frames less 1x): raw codec "
        "%.2f, discard %.2f (%.2fx raw, goal <= 1.2)",
        gb, Median(raw_steady) / gb, Median(discard_steady) / gb,
        Median(discard_steady) / Median(raw_steady));
    if (options.levels > 0) {
      std::printf(", %zu levels %.2f (%.2fx level 0, goal <= 1.25)", options.levels,
                  Median(levels_steady) / gb, Median(levels_steady) / Median(discard_steady));
    }
    std::printf("\n");
  } else {
    std::printf("steady state: not measured below %lld epochs (--gib 1 or more)\n",
                static_cast<long long>(kMinSteadyEpochs));
  }
  const Index short_frames = std::max<Index>(32, frames / 4);
  const auto peak_line = [&](const char* what, const stream::StreamConfig& measured,
                             std::uint64_t estimate) {
    const std::uint64_t short_peak = PeakGrowth(measured, distinct, short_frames);
    const std::uint64_t long_peak = PeakGrowth(measured, distinct, frames);
    std::printf(
        "peak RSS growth%s: %.1f MiB at %lld frames, %.1f MiB at %lld frames; estimate %.1f MiB "
        "(%.2fx)\n",
        what, static_cast<double>(short_peak) / (1 << 20), static_cast<long long>(short_frames),
        static_cast<double>(long_peak) / (1 << 20), static_cast<long long>(frames),
        static_cast<double>(estimate) / (1 << 20),
        static_cast<double>(std::max(short_peak, long_peak)) / static_cast<double>(estimate));
  };
  peak_line("", config, plan->memory.total());
  if (options.levels > 0) {
    auto levels_plan = stream::PlanStream(levels_config);
    Check(levels_plan.status(), "plan with levels");
    peak_line(", with levels", levels_config, levels_plan->memory.total());
  }
  std::fflush(stdout);
  if (options.peers != "none") {
    RunPeers(options, distinct, plan->threads, Median(file), Median(raw));
  }
  return 0;
}

}  // namespace
}  // namespace chunkwise

int main(int argc, char** argv) { return chunkwise::Main(argc, argv); }
