// Helpers the benchmarks share: command-line numbers, medians, timing, running
// a Python peer, and a microscopy-like uint16 volume to measure on.
#ifndef CHUNKWISE_BENCH_BENCH_COMMON_H_
#define CHUNKWISE_BENCH_BENCH_COMMON_H_

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/index.h"

namespace chunkwise::bench {

// The whole number `text` given for `option`. Exits with status 2, naming the
// option and the text, unless all of `text` is a whole number in [min, max]:
// "10k" and "" are refused, not read as 10 and 0 as atoi would.
inline long long IntegerArg(const char* option, const char* text, long long min, long long max) {
  const char* const end = text + std::strlen(text);
  long long value = 0;
  const auto [stop, error] = std::from_chars(text, end, value);
  if (error != std::errc() || stop != end || value < min || value > max) {
    std::fprintf(stderr, "%s takes a whole number from %lld to %lld, not \"%s\"\n", option, min,
                 max, text);
    std::exit(2);
  }
  return value;
}

// Likewise for a decimal number in [min, max] (which refuses "nan" and "inf").
inline double NumberArg(const char* option, const char* text, double min, double max) {
  const char* const end = text + std::strlen(text);
  double value = 0;
  const auto [stop, error] = std::from_chars(text, end, value);
  if (error != std::errc() || stop != end || !(value >= min && value <= max)) {
    std::fprintf(stderr, "%s takes a number from %g to %g, not \"%s\"\n", option, min, max, text);
    std::exit(2);
  }
  return value;
}

// Exits with status 2 and `usage` on stderr: for an unknown flag, or a last
// flag without its value, which a benchmark would otherwise ignore silently.
[[noreturn]] inline void ExitWithUsage(const char* usage) {
  std::fprintf(stderr, "usage: %s\n", usage);
  std::exit(2);
}

// Flags come in pairs after the program's name: an odd count is whole.
inline void RequireFlagPairs(int argc, const char* usage) {
  if (argc % 2 == 0) ExitWithUsage(usage);
}

// The median (the upper one of an even count); 0 when there are no values,
// as for a peer that did not run.
inline double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

inline double Seconds(const std::function<void()>& work) {
  const auto start = std::chrono::steady_clock::now();
  work();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// CPU seconds this process has used, all threads: a figure the machine's
// other load disturbs less than wall time.
inline double ProcessCpuSeconds() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

// CPU seconds the calling thread has used.
inline double ThreadCpuSeconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

// Runs `command`, a peer script that prints one JSON line, and parses what it
// printed; nullopt, with the output on stderr under `bench`'s name, when the
// command fails or prints no JSON.
inline std::optional<nlohmann::json> RunJsonPeer(const std::string& command, const char* bench) {
  std::FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return std::nullopt;
  std::string output;
  char buffer[4096];
  while (std::fgets(buffer, sizeof(buffer), pipe) != nullptr) output += buffer;
  const int status = ::pclose(pipe);
  nlohmann::json result = nlohmann::json::parse(output, nullptr, false);
  if (status == 0 && !result.is_discarded()) return result;
  std::fprintf(stderr, "%s: the peer `%s` failed:\n%s\n", bench, command.c_str(), output.c_str());
  return std::nullopt;
}

// Smooth illumination and structures with a few bits of sensor noise, 12-bit
// range: a z,y,x C-order uint16 volume as a microscope records it.
inline Bytes MicroscopyVolume(const core::Shape& shape) {
  using core::Index;
  std::vector<double> along_z(shape[0]), along_y(shape[1]), along_x(shape[2]);
  for (Index z = 0; z < shape[0]; ++z) along_z[z] = std::sin(static_cast<double>(z) / 37.0);
  for (Index y = 0; y < shape[1]; ++y) along_y[y] = std::cos(static_cast<double>(y) / 53.0);
  for (Index x = 0; x < shape[2]; ++x) along_x[x] = std::sin(static_cast<double>(x) / 41.0 + 0.5);
  Bytes volume(static_cast<std::size_t>(shape[0] * shape[1] * shape[2]) * 2);
  auto* out = reinterpret_cast<std::uint16_t*>(volume.data());
  std::uint64_t state = 0x9E3779B97F4A7C15ull;
  std::size_t i = 0;
  for (Index z = 0; z < shape[0]; ++z) {
    for (Index y = 0; y < shape[1]; ++y) {
      const double plane = 600 * along_z[z] * along_y[y];
      for (Index x = 0; x < shape[2]; ++x, ++i) {
        state ^= state << 13, state ^= state >> 7, state ^= state << 17;
        const double value = 1200 + plane * along_x[x] + 0.2 * static_cast<double>(x) +
                             static_cast<double>(state % 41) - 20;
        out[i] = static_cast<std::uint16_t>(std::clamp(value, 0.0, 4095.0));
      }
    }
  }
  return volume;
}

}  // namespace chunkwise::bench

#endif  // CHUNKWISE_BENCH_BENCH_COMMON_H_
