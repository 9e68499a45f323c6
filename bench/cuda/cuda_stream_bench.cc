// The stream writer's CUDA backend next to its physical ceiling and the CPU
// backend, in one run on the same data (built only with nvcc).
//
// Input: --gib GiB (default 16) of uint16 microscopy-like frames of
// 2048×2048 (stream_bench_common.h), appended one frame at a time.
// For each codec (--codec, default both "none" and "blosc:lz4det"):
//   H2D ceiling   cudaMemcpy from page-locked memory to the GPU, 256 MiB
//                 copies: no pipeline that streams its input to the GPU can
//                 beat it;
//   cuda          StreamWriter, CUDA backend, into the discard sink and into
//                 a FileStore under --dir, with each stage's rate over the
//                 input (H2D, scatter, compress, aggregate, D2H; the stages
//                 overlap, so each may exceed the whole);
//   cpu           StreamWriter, CPU backend, same codec, --cpu-gib (default
//                 2) of the same frames into the discard sink.
// Goals on an H100 (issue 9): 10 GB/s with codec none, 5 GB/s with
// blosc:lz4det. The TensorStore peer on the same frames is
// bench/peers/tensorstore_stream.py, fed by --write-frames FILE.npy.
// Figures are GB/s of uncompressed input, medians over --runs rounds.
//
// usage: cuda_stream_bench [--gib G] [--cpu-gib G] [--runs N] [--codec C] [--dir DIR]
//                          [--epochs-per-batch E]... [--file-sink yes|no]
//                          [--write-frames FILE.npy]
// Several --codec or --epochs-per-batch values run every combination.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "chunkwise/core/npy.h"
#include "chunkwise/io/npy_file.h"
#include "chunkwise/store/file_store.h"
#include "cuda/device.h"
#include "pipelines/stream/cuda_backend.h"
#include "store/memory_store.h"
#include "stream_bench_common.h"

namespace chunkwise {
namespace {

namespace fs = std::filesystem;
namespace stream = pipelines::stream;
using bench::CheckOk;
using bench::Median;
using core::Index;

struct Options {
  double gib = 16;
  double cpu_gib = 2;
  int runs = 3;
  std::vector<std::string> codecs = {"none", "blosc:lz4det"};
  std::vector<std::size_t> epochs_per_batch = {0};  // 0: the writer's choice.
  bool file_sink = true;
  fs::path dir = fs::temp_directory_path() / "chunkwise-cuda-stream-bench";
  std::string write_frames;
};

Options Parse(int argc, char** argv) {
  constexpr const char* kUsage =
      "cuda_stream_bench [--gib G] [--cpu-gib G] [--runs N] [--codec C]... "
      "[--epochs-per-batch E]... [--file-sink yes|no] [--dir DIR] [--write-frames FILE.npy]";
  Options options;
  bool codec_given = false, epochs_given = false;
  bench::RequireFlagPairs(argc, kUsage);
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--gib") {
      options.gib = bench::NumberArg("--gib", argv[i + 1], 0.001, 1e4);
    } else if (flag == "--cpu-gib") {
      options.cpu_gib = bench::NumberArg("--cpu-gib", argv[i + 1], 0, 1e4);
    } else if (flag == "--runs") {
      options.runs = static_cast<int>(bench::IntegerArg("--runs", argv[i + 1], 1, 1000));
    } else if (flag == "--codec") {
      if (!codec_given) options.codecs.clear();
      codec_given = true;
      options.codecs.push_back(argv[i + 1]);
    } else if (flag == "--epochs-per-batch") {
      if (!epochs_given) options.epochs_per_batch.clear();
      epochs_given = true;
      options.epochs_per_batch.push_back(static_cast<std::size_t>(
          bench::IntegerArg("--epochs-per-batch", argv[i + 1], 0, 1 << 20)));
    } else if (flag == "--file-sink") {
      const std::string value = argv[i + 1];
      if (value != "yes" && value != "no") bench::ExitWithUsage(kUsage);
      options.file_sink = value == "yes";
    } else if (flag == "--dir") {
      options.dir = argv[i + 1];
    } else if (flag == "--write-frames") {
      options.write_frames = argv[i + 1];
    } else {
      bench::ExitWithUsage(kUsage);
    }
  }
  return options;
}

Index FramesFor(double gib, std::size_t frame_bytes) {
  return std::max<Index>(bench::kDistinctFrames,
                         static_cast<Index>(gib * (1 << 30) / static_cast<double>(frame_bytes)));
}

double Gigabytes(Index frames, std::size_t frame_bytes) {
  return static_cast<double>(frames) * static_cast<double>(frame_bytes) / 1e9;
}

struct Variant {
  std::string codec;
  std::size_t epochs_per_batch = 0;

  std::string Name() const {
    return epochs_per_batch == 0
               ? codec
               : codec + ", " + std::to_string(epochs_per_batch) + " epochs per batch";
  }
};

struct VariantFigures {
  std::vector<double> cuda_discard, cuda_file, cpu_discard, create_seconds;
  std::map<std::string, std::vector<double>> stages;  // Input GB/s per stage.
};

void RunRound(const Options& options, const Variant& variant, const Bytes& distinct,
              VariantFigures& figures) {
  stream::StreamConfig config = bench::MicroscopyStreamConfig(variant.codec, 0);
  config.epochs_per_batch = variant.epochs_per_batch;
  const std::size_t frame_bytes =
      static_cast<std::size_t>(bench::kFrameSide) * static_cast<std::size_t>(bench::kFrameSide) * 2;
  const Index frames = FramesFor(options.gib, frame_bytes);
  const double gb = Gigabytes(frames, frame_bytes);
  stream::StreamWriterOptions gpu;
  gpu.cuda_backend = stream::MakeCudaBackend;
  config.backend = stream::StreamBackendKind::kCuda;

  stream::DiscardShardSink discard;
  gpu.sink = &discard;
  stream::StreamStats stats;
  double create_seconds = 0;
  figures.cuda_discard.push_back(gb / bench::StreamOnce(config, distinct, frames,
                                                        store::MemoryStore::Create(), gpu, &stats,
                                                        &create_seconds));
  figures.create_seconds.push_back(create_seconds);
  for (const stream::StageTime& stage : stats.stages) {
    if (stage.seconds > 0) figures.stages[stage.name].push_back(gb / stage.seconds);
  }
  if (options.file_sink) {
    gpu.sink = nullptr;
    auto files = store::FileStore::Open(options.dir / "cuda.zarr");
    CheckOk(files.status(), "file store");
    figures.cuda_file.push_back(gb / bench::StreamOnce(config, distinct, frames, *files, gpu));
    fs::remove_all(options.dir);
  }

  config.backend = stream::StreamBackendKind::kCpu;
  config.epochs_per_batch = 0;
  const Index cpu_frames = FramesFor(options.cpu_gib, frame_bytes);
  stream::StreamWriterOptions cpu;
  cpu.sink = &discard;
  figures.cpu_discard.push_back(
      Gigabytes(cpu_frames, frame_bytes) /
      bench::StreamOnce(config, distinct, cpu_frames, store::MemoryStore::Create(), cpu));
}

void Report(const Variant& variant, const VariantFigures& f, double h2d) {
  const double cuda = Median(f.cuda_discard);
  std::printf("\ncodec %s (medians, GB/s of input)\n", variant.Name().c_str());
  std::printf("  %-30s %8.2f\n", "H2D ceiling (page-locked)", h2d);
  std::printf("  %-30s %8.2f   %.2fx the H2D ceiling (writer creation %.2f s)\n",
              "cuda backend, discard sink", cuda, cuda / h2d, Median(f.create_seconds));
  std::printf("  %-30s %8.2f\n", "cuda backend, file sink", Median(f.cuda_file));
  std::printf("  %-30s %8.2f   cuda is %.1fx it\n", "cpu backend, discard sink",
              Median(f.cpu_discard), cuda / Median(f.cpu_discard));
  std::printf("  stages:");
  for (const char* name : {"H2D", "scatter", "compress", "aggregate", "D2H"}) {
    const auto stage = f.stages.find(name);
    if (stage != f.stages.end()) std::printf(" %s %.1f", name, Median(stage->second));
  }
  std::printf("\n");
}

int Main(int argc, char** argv) {
  const Options options = Parse(argc, argv);
  const std::vector<cuda::DeviceInfo> devices = cuda::ListDevices();
  if (devices.empty()) {
    std::printf("cuda_stream_bench: SKIPPED: %s\n", cuda::NoDeviceReason().c_str());
    return 0;
  }
  const Bytes distinct =
      bench::MicroscopyVolume({bench::kDistinctFrames, bench::kFrameSide, bench::kFrameSide});
  if (!options.write_frames.empty()) {
    core::NpyArray frames;
    frames.dtype = core::NpyDtype::FromDataType(core::DataType(core::DataTypeId::kUInt16),
                                                core::Endian::kLittle);
    frames.shape = {bench::kDistinctFrames, bench::kFrameSide, bench::kFrameSide};
    frames.data = distinct;
    CheckOk(io::WriteNpy(options.write_frames, frames), "write frames");
  }
  const Result<double> h2d = cuda::MeasureHostToDeviceRate(std::uint64_t{256} << 20, 7);
  CheckOk(h2d.status(), "H2D rate");
  std::printf("cuda_stream_bench: %s, %.1f GiB per GPU run, %d rounds\n", devices[0].name.c_str(),
              options.gib, options.runs);
  std::vector<Variant> variants;
  for (const std::string& codec : options.codecs) {
    for (const std::size_t epochs : options.epochs_per_batch) variants.push_back({codec, epochs});
  }
  std::vector<VariantFigures> figures(variants.size());
  for (int run = 0; run < options.runs; ++run) {
    for (std::size_t v = 0; v < variants.size(); ++v) {
      RunRound(options, variants[v], distinct, figures[v]);
      std::printf("round %d %s: cuda discard %.2f (creation %.2f s), file %.2f, cpu %.2f GB/s\n",
                  run + 1, variants[v].Name().c_str(), figures[v].cuda_discard.back(),
                  figures[v].create_seconds.back(),
                  figures[v].cuda_file.empty() ? 0.0 : figures[v].cuda_file.back(),
                  figures[v].cpu_discard.back());
      std::fflush(stdout);
    }
  }
  for (std::size_t v = 0; v < variants.size(); ++v) Report(variants[v], figures[v], *h2d);
  return 0;
}

}  // namespace
}  // namespace chunkwise

int main(int argc, char** argv) { return chunkwise::Main(argc, argv); }
