// The deterministic blosc-lz4 encoder against c-blosc's lz4 on the same data.
//
// A microscopy-like uint16 volume (bench_common.h) is cut into chunks (1 MiB
// by default), and every chunk is encoded with byte shuffle and typesize 2 by
// our deterministic encoder and by c-blosc's lz4 at clevel 5 and 9 (and at
// clevel 5 with our 64 KiB blocks, the like-for-like case), each with the same
// number of threads inside a chunk. Both kinds of chunk decode through
// c-blosc. Figures are medians of --runs runs (default 5), printed as MB/s of
// input and as ours / c-blosc ratios.
//   blosc_lz4_bench [--mib 64] [--chunk-kib 1024] [--threads 1] [--runs 5]
#include <blosc.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "bench_common.h"
#include "codec/deterministic_blosc_lz4.h"

namespace chunkwise::bench {
namespace {

struct Settings {
  std::size_t mib = 64;
  std::size_t chunk_kib = 1024;
  int threads = 1;
  int runs = 5;
};

struct Figures {
  double ratio = 0, encode_mb_s = 0, decode_mb_s = 0;
};

// Encodes a chunk into `out` (room for input + 16) and returns its size.
using EncodeFn = std::function<std::size_t(ByteView chunk, std::uint8_t* out)>;

Figures Measure(const Bytes& volume, const Settings& settings, const EncodeFn& encode) {
  const std::size_t chunk_bytes = settings.chunk_kib << 10;
  const std::size_t chunks = (volume.size() + chunk_bytes - 1) / chunk_bytes;
  std::vector<Bytes> encoded(chunks, Bytes(chunk_bytes + 16));
  std::vector<std::size_t> sizes(chunks);
  Bytes decoded(chunk_bytes);
  std::vector<double> encode_s, decode_s;
  for (int run = 0; run < settings.runs; ++run) {
    encode_s.push_back(Seconds([&] {
      for (std::size_t c = 0; c < chunks; ++c) {
        const std::size_t size = std::min(chunk_bytes, volume.size() - c * chunk_bytes);
        sizes[c] = encode({volume.data() + c * chunk_bytes, size}, encoded[c].data());
      }
    }));
    decode_s.push_back(Seconds([&] {
      for (std::size_t c = 0; c < chunks; ++c) {
        if (blosc_decompress_ctx(encoded[c].data(), decoded.data(), decoded.size(),
                                 settings.threads) < 0) {
          std::fprintf(stderr, "blosc_lz4_bench: chunk %zu does not decode\n", c);
          std::exit(1);
        }
      }
    }));
  }
  std::size_t total = 0;
  for (std::size_t size : sizes) total += size;
  const double mb = static_cast<double>(volume.size()) / 1e6;
  return {static_cast<double>(volume.size()) / static_cast<double>(total), mb / Median(encode_s),
          mb / Median(decode_s)};
}

EncodeFn CBlosc(int clevel, std::size_t blocksize, int threads) {
  return [=](ByteView chunk, std::uint8_t* out) {
    const int size = blosc_compress_ctx(clevel, BLOSC_SHUFFLE, 2, chunk.size(), chunk.data(), out,
                                        chunk.size() + 16, "lz4", blocksize, threads);
    if (size <= 0) std::exit(1);
    return static_cast<std::size_t>(size);
  };
}

EncodeFn Deterministic(core::ThreadPool* pool) {
  return [=](ByteView chunk, std::uint8_t* out) {
    const Result<std::size_t> size = codec::EncodeDeterministicBloscLz4(
        chunk, {.typesize = 2, .shuffle = true}, {out, chunk.size() + 16}, pool);
    if (!size.ok()) std::exit(1);
    return *size;
  };
}

void Print(const char* name, const Figures& f) {
  std::printf("%-34s %7.2f %12.0f %12.0f\n", name, f.ratio, f.encode_mb_s, f.decode_mb_s);
}

Settings ParseSettings(int argc, char** argv) {
  Settings s;
  constexpr const char* kUsage =
      "blosc_lz4_bench [--mib 64] [--chunk-kib 1024] [--threads 1] [--runs 5]";
  bench::RequireFlagPairs(argc, kUsage);
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const char* const value = argv[i + 1];
    if (flag == "--mib") {
      s.mib = static_cast<std::size_t>(IntegerArg("--mib", value, 1, 1 << 20));
    } else if (flag == "--chunk-kib") {  // Up to 1 GiB: c-blosc takes at most 2 GiB.
      s.chunk_kib = static_cast<std::size_t>(IntegerArg("--chunk-kib", value, 1, 1 << 20));
    } else if (flag == "--threads") {
      s.threads = static_cast<int>(IntegerArg("--threads", value, 1, BLOSC_MAX_THREADS));
    } else if (flag == "--runs") {
      s.runs = static_cast<int>(IntegerArg("--runs", value, 1, INT_MAX));
    } else {
      bench::ExitWithUsage(kUsage);
    }
  }
  return s;
}

int Run(int argc, char** argv) {
  const Settings s = ParseSettings(argc, argv);
  const core::Index planes = static_cast<core::Index>(std::max<std::size_t>(1, s.mib / 2));
  const Bytes volume = MicroscopyVolume({planes, 1024, 1024});
  core::ThreadPool pool(static_cast<std::size_t>(s.threads));
  std::printf(
      "uint16 microscopy-like volume, %.0f MiB in %zu KiB chunks, shuffle, typesize 2, "
      "%d thread(s) per chunk, median of %d runs\n",
      static_cast<double>(volume.size()) / (1 << 20), s.chunk_kib, s.threads, s.runs);
  std::printf("%-34s %7s %12s %12s\n", "encoder", "ratio", "encode MB/s", "decode MB/s");
  const Figures ours = Measure(volume, s, Deterministic(s.threads > 1 ? &pool : nullptr));
  const Figures c5 = Measure(volume, s, CBlosc(5, 0, s.threads));
  const Figures c5_64k = Measure(volume, s, CBlosc(5, 65536, s.threads));
  const Figures c9 = Measure(volume, s, CBlosc(9, 0, s.threads));
  Print("deterministic (ours, 64 KiB blocks)", ours);
  Print("c-blosc lz4 clevel 5", c5);
  Print("c-blosc lz4 clevel 5, 64 KiB blocks", c5_64k);
  Print("c-blosc lz4 clevel 9", c9);
  const auto ratios = [&](const char* peer, const Figures& p) {
    std::printf("ours / %-27s encode %.2fx, ratio %.2fx, decode %.2fx\n", peer,
                ours.encode_mb_s / p.encode_mb_s, ours.ratio / p.ratio,
                ours.decode_mb_s / p.decode_mb_s);
  };
  ratios("c-blosc clevel 5:", c5);
  ratios("c-blosc clevel 5, 64 KiB:", c5_64k);
  ratios("c-blosc clevel 9:", c9);
  return 0;
}

}  // namespace
}  // namespace chunkwise::bench

int main(int argc, char** argv) { return chunkwise::bench::Run(argc, argv); }
