// Throughput of chunkwise's codecs against direct calls of the libraries under them.
//
// Each codec encodes and decodes one 8 MiB uint16 image (smooth gradients plus
// sensor-like noise, fixed seed) through the chunkwise interface ("ours") and
// through the bare library call into a reused, preallocated buffer ("direct").
// Ours does slightly more by design: it allocates and returns an owned Bytes.
// Ours and direct run as pairs in one benchmark (see RunPaired), on the
// thread's CPU clock, so load from other processes hits both alike. The table
// at the end gives medians over repetitions and flags an overhead of 5% or
// more. Defaults: 5 repetitions, aggregates only; --benchmark_* flags given on
// the command line override them (e.g. --benchmark_filter=zstd).
#include <benchmark/benchmark.h>
#include <blosc.h>
#include <libdeflate.h>
#include <time.h>
#include <zstd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench_common.h"
#include "codec/blosc_codec.h"
#include "codec/crc32c.h"
#include "codec/crc32c_codec.h"
#include "codec/gzip_codec.h"
#include "codec/zstd_codec.h"

namespace chunkwise::codec {
namespace {

constexpr std::size_t kImageBytes = 8 << 20;  // 2048 × 2048 uint16.

// A microscopy-like tile: a smooth illumination field and structures, plus
// noise of a few bits, as a camera gives. xorshift keeps it identical everywhere.
Bytes MicroscopyImage() {
  Bytes image(kImageBytes);
  std::uint64_t state = 0x9E3779B97F4A7C15ull;
  constexpr std::size_t kWidth = 2048;
  for (std::size_t i = 0; i < kImageBytes / 2; ++i) {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    const std::size_t row = i / kWidth, column = i % kWidth;
    const double x = static_cast<double>(column), y = static_cast<double>(row);
    const double signal = 900 + 0.15 * x + 0.1 * y + 700 * std::sin(x / 160) * std::cos(y / 130) +
                          400 * std::exp(-((x - 900) * (x - 900) + (y - 1100) * (y - 1100)) / 9e4);
    const double noise = static_cast<double>(state % 41) - 20;  // ±20 counts.
    StoreLittleEndian(static_cast<std::uint16_t>(std::max(0.0, signal + noise)), &image[2 * i]);
  }
  return image;
}

const Bytes& Image() {
  static const Bytes image = MicroscopyImage();
  return image;
}

// Library calls into caller-owned buffers; each returns the bytes written.
using DirectFn = std::function<std::size_t(ByteView input, std::uint8_t* out, std::size_t cap)>;

struct Case {
  std::string name;
  std::shared_ptr<const BytesToBytesCodec> codec;
  DirectFn direct_encode;
  DirectFn direct_decode;
  std::size_t encode_bound;
};

Case ZstdCase(int level) {
  auto codec = *ZstdCodec::Create({level, false});
  static ZSTD_CCtx* cctx = ZSTD_createCCtx();
  static ZSTD_DCtx* dctx = ZSTD_createDCtx();
  return {"zstd-" + std::to_string(level), codec,
          [level](ByteView in, std::uint8_t* out, std::size_t cap) {
            return ZSTD_compressCCtx(cctx, out, cap, in.data(), in.size(), level);
          },
          [](ByteView in, std::uint8_t* out, std::size_t cap) {
            return ZSTD_decompressDCtx(dctx, out, cap, in.data(), in.size());
          },
          ZSTD_compressBound(kImageBytes)};
}

Case GzipCase(int level) {
  auto codec = *GzipCodec::Create(level);
  libdeflate_compressor* compressor = libdeflate_alloc_compressor(level);
  static libdeflate_decompressor* decompressor = libdeflate_alloc_decompressor();
  return {"gzip-" + std::to_string(level), codec,
          [compressor](ByteView in, std::uint8_t* out, std::size_t cap) {
            return libdeflate_gzip_compress(compressor, in.data(), in.size(), out, cap);
          },
          [](ByteView in, std::uint8_t* out, std::size_t cap) {
            std::size_t written = 0;
            libdeflate_gzip_decompress(decompressor, in.data(), in.size(), out, cap, &written);
            return written;
          },
          libdeflate_gzip_compress_bound(compressor, kImageBytes)};
}

Case BloscCase(const char* cname, int clevel, BloscShuffle shuffle, const char* label) {
  auto codec = *BloscCodec::Create({cname, clevel, shuffle, 2, 0});
  return {label, codec,
          [=](ByteView in, std::uint8_t* out, std::size_t cap) {
            return static_cast<std::size_t>(blosc_compress_ctx(
                clevel, static_cast<int>(shuffle), 2, in.size(), in.data(), out, cap, cname, 0, 1));
          },
          [](ByteView in, std::uint8_t* out, std::size_t cap) {
            return static_cast<std::size_t>(blosc_decompress_ctx(in.data(), out, cap, 1));
          },
          kImageBytes + BLOSC_MAX_OVERHEAD};
}

// The least work that produces input ‖ crc, or checks and strips it.
Case Crc32cCase() {
  return {"crc32c", Crc32cCodec::Create(),
          [](ByteView in, std::uint8_t* out, std::size_t) {
            std::memcpy(out, in.data(), in.size());
            StoreLittleEndian(Crc32c(in), out + in.size());
            return in.size() + 4;
          },
          [](ByteView in, std::uint8_t* out, std::size_t) {
            const ByteView payload = in.first(in.size() - 4);
            if (Crc32c(payload) != LoadLittleEndian<std::uint32_t>(in.data() + payload.size()))
              return std::size_t{0};
            std::memcpy(out, payload.data(), payload.size());
            return payload.size();
          },
          kImageBytes + 4};
}

using bench::Median;
using bench::ThreadCpuSeconds;

// Runs `ours` and `direct` back to back in every iteration, alternating which
// goes first, and times each on the thread's CPU clock. On a shared machine the
// two halves of a pair see the same load, so the median of the per-pair ratios
// is far steadier than two separately timed benchmarks.
void RunPaired(benchmark::State& state, const std::function<void()>& ours,
               const std::function<void()>& direct) {
  std::vector<double> ours_seconds, direct_seconds, ratios;
  bool ours_first = true;
  // Google Benchmark's loop idiom: `_` only counts iterations.
  for (auto _ : state) {  // NOLINT(clang-analyzer-deadcode.DeadStores)
    const double t0 = ThreadCpuSeconds();
    ours_first ? ours() : direct();
    const double t1 = ThreadCpuSeconds();
    ours_first ? direct() : ours();
    const double t2 = ThreadCpuSeconds();
    const double ours_s = ours_first ? t1 - t0 : t2 - t1;
    const double direct_s = ours_first ? t2 - t1 : t1 - t0;
    ours_seconds.push_back(ours_s);
    direct_seconds.push_back(direct_s);
    ratios.push_back(direct_s / ours_s);  // Throughput of ours relative to direct.
    state.SetIterationTime(t2 - t0);
    ours_first = !ours_first;
  }
  state.counters["ours_GBps"] = static_cast<double>(kImageBytes) / Median(ours_seconds) / 1e9;
  state.counters["direct_GBps"] = static_cast<double>(kImageBytes) / Median(direct_seconds) / 1e9;
  state.counters["ratio"] = Median(ratios);
}

void AddPaired(const std::string& name, const std::function<void()>& ours,
               const std::function<void()>& direct) {
  benchmark::RegisterBenchmark(
      name.c_str(), [ours, direct](benchmark::State& state) { RunPaired(state, ours, direct); })
      ->UseManualTime()
      ->MinTime(0.25)
      ->Unit(benchmark::kMillisecond);
}

void RegisterCase(const Case& c) {
  // Every decode reads the same encoded bytes; direct calls reuse one buffer.
  auto encoded = std::make_shared<Bytes>(*c.codec->Encode(Image()));
  auto scratch = std::make_shared<Bytes>(std::max(c.encode_bound, kImageBytes));
  AddPaired(
      c.name + "/encode", [c] { CHUNKWISE_CHECK(c.codec->Encode(Image()).ok()); },
      [c, scratch] {
        benchmark::DoNotOptimize(c.direct_encode(Image(), scratch->data(), scratch->size()));
        benchmark::ClobberMemory();
      });
  AddPaired(
      c.name + "/decode",
      [c, encoded] { CHUNKWISE_CHECK(c.codec->Decode(*encoded, kImageBytes).ok()); },
      [c, encoded, scratch] {
        CHUNKWISE_CHECK(c.direct_decode(*encoded, scratch->data(), kImageBytes) == kImageBytes);
        benchmark::ClobberMemory();
      });
  std::printf("%-24s compressed to %.3f of %zu bytes\n", c.name.c_str(),
              static_cast<double>(encoded->size()) / kImageBytes, kImageBytes);
}

// The CRC against the physical limit of one core touching the same bytes.
void RegisterCrcVersusMemcpy() {
  auto destination = std::make_shared<Bytes>(kImageBytes);
  AddPaired(
      "crc32c-function-vs-memcpy", [] { benchmark::DoNotOptimize(Crc32c(Image())); },
      [destination] {
        std::memcpy(destination->data(), Image().data(), kImageBytes);
        benchmark::ClobberMemory();
      });
  AddPaired(
      "crc32c-software-vs-memcpy", [] { benchmark::DoNotOptimize(Crc32cSoftware(0, Image())); },
      [destination] {
        std::memcpy(destination->data(), Image().data(), kImageBytes);
        benchmark::ClobberMemory();
      });
}

// Passes everything to the console and keeps the counters of each benchmark:
// the median aggregate when repetitions ran, else the single run's.
class TableReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.error_occurred) continue;
      const bool median = run.run_type == Run::RT_Aggregate && run.aggregate_name == "median";
      if (!median && run.run_type == Run::RT_Aggregate) continue;
      auto& slot = counters_[run.run_name.function_name];
      if (median || slot.empty()) {
        slot.clear();
        for (const auto& [key, counter] : run.counters) slot[key] = counter.value;
      }
    }
  }

  // The counter, or 0 if the benchmark did not run.
  double Get(const std::string& name, const std::string& counter) const {
    const auto it = counters_.find(name);
    if (it == counters_.end()) return 0;
    const auto value = it->second.find(counter);
    return value == it->second.end() ? 0 : value->second;
  }

 private:
  std::map<std::string, std::map<std::string, double>> counters_;
};

void PrintTable(const TableReporter& reporter, const std::vector<Case>& cases) {
  std::printf("\n%-24s %-7s %10s %12s %8s  %s\n", "codec", "op", "ours GB/s", "direct GB/s",
              "ratio", "overhead<5%");
  for (const Case& c : cases) {
    for (const char* op : {"encode", "decode"}) {
      const std::string name = c.name + "/" + op;
      const double ratio = reporter.Get(name, "ratio");
      if (ratio == 0) continue;
      std::printf("%-24s %-7s %10.3f %12.3f %8.3f  %s\n", c.name.c_str(), op,
                  reporter.Get(name, "ours_GBps"), reporter.Get(name, "direct_GBps"), ratio,
                  ratio >= 0.95 ? "PASS" : "WARN");
    }
  }
  const double crc = reporter.Get("crc32c-function-vs-memcpy", "ours_GBps");
  if (crc > 0) {
    std::printf(
        "\ncrc32c on one core (%s): %.2f GB/s (target >= 5); memcpy %.2f GB/s; "
        "software tables %.2f GB/s\n",
        Crc32cPathAvailable(Crc32cPath::kFold512) ? "512-bit vpclmulqdq folding"
        : Crc32cHardwareAvailable()               ? "sse4.2, 3 streams"
                                                  : "software",
        crc, reporter.Get("crc32c-function-vs-memcpy", "direct_GBps"),
        reporter.Get("crc32c-software-vs-memcpy", "ours_GBps"));
  }
}

// Our defaults go first so that the same flags given on the command line win.
std::vector<char*> WithDefaultFlags(int argc, char** argv) {
  static char repetitions[] = "--benchmark_repetitions=5";
  static char aggregates[] = "--benchmark_report_aggregates_only=true";
  std::vector<char*> args = {argv[0], repetitions, aggregates};
  args.insert(args.end(), argv + 1, argv + argc);
  return args;
}

}  // namespace
}  // namespace chunkwise::codec

int main(int argc, char** argv) {
  using namespace chunkwise::codec;
  std::vector<char*> args = WithDefaultFlags(argc, argv);
  int count = static_cast<int>(args.size());
  benchmark::Initialize(&count, args.data());
  if (benchmark::ReportUnrecognizedArguments(count, args.data())) return 1;
  const std::vector<Case> cases = {
      ZstdCase(1),
      ZstdCase(3),
      GzipCase(1),
      GzipCase(6),
      BloscCase("lz4", 5, BloscShuffle::kShuffle, "blosc-lz4-5-shuffle"),
      BloscCase("zstd", 3, BloscShuffle::kBitShuffle, "blosc-zstd-3-bitshuffle"),
      Crc32cCase(),
  };
  for (const Case& c : cases) RegisterCase(c);
  RegisterCrcVersusMemcpy();
  TableReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  PrintTable(reporter, cases);
  benchmark::Shutdown();
  return 0;
}
