// Parquet references at scale: 10 million references of a 3-d chunk grid
// written with fsspec's Parquet layout, loaded whole, and opened lazily for
// one lookup, next to JSON v0 (what kerchunk writes by default) for the same
// references in the same run.
//
// Data: keys data/i.j.k over a 200 x 250 x 200 chunk grid (10^7 chunks), each
// a byte range of one of 8 URLs (s3://bucket/run-XX/part-YYYY.nc), offsets
// increasing within a file, sizes 0.5-1.5 MiB (fixed seed); record_size 100000
// (100 record files), zstd level 3.
//   write:  WriteParquetReferences into $TMPDIR; peer: the same rows as JSON v0
//           text ({"key": ["url", offset, size], ...}) built with a trivial
//           serializer and written to one file (no JSON library).
//   load:   LoadParquetReferences (every key into a ReferenceSet); peer:
//           nlohmann::json::parse of the JSON v0 file (the parse alone).
//   lookup: a fresh process opens the set and looks one random key up; its
//           wall time and peak RSS (VmHWM), and the record files it opened
//           (must be 1); peer: a fresh process that reads and parses the
//           JSON v0 file and looks the key up (what a JSON reference set
//           costs every reader).
// Write and load figures are medians of 3 runs; lookups the median of 5
// processes. Ratios are peer / ours (above 1: we are faster or smaller).
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench_common.h"
#include "chunkwise/io/file.h"
#include "chunkwise/store/file_store.h"
#include "core/file_io.h"
#include "formats/refs/parquet_references.h"

namespace chunkwise::formats::refs {
namespace {

constexpr int kGrid[3] = {200, 250, 200};

double Seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

using bench::Median;

std::string Key(int i, int j, int k) {
  return "data/" + std::to_string(i) + "." + std::to_string(j) + "." + std::to_string(k);
}

ReferenceSet MakeSet() {
  ReferenceSet set;
  set.Set(".zgroup", store::Reference::Inline(CopyToBytes(AsBytes(R"({"zarr_format":2})"))));
  set.Set(
      "data/.zarray",
      store::Reference::Inline(CopyToBytes(AsBytes(
          R"({"chunks":[64,64,64],"compressor":{"id":"zlib","level":4},"dtype":"<f4",)"
          R"("fill_value":"NaN","filters":null,"order":"C","shape":[12800,16000,12800],"zarr_format":2})"))));
  std::mt19937_64 random(42);
  std::uint64_t offsets[8] = {};
  for (int i = 0; i < kGrid[0]; ++i) {
    for (int j = 0; j < kGrid[1]; ++j) {
      for (int k = 0; k < kGrid[2]; ++k) {
        const int file = (i / 25) % 8;
        const std::uint64_t size = (512 << 10) + random() % (1 << 20);
        char url[64];
        std::snprintf(url, sizeof(url), "s3://bucket/run-%02d/part-%04d.nc", file, file * 7 + 3);
        set.Set(Key(i, j, k), store::Reference::Range(url, offsets[file], size));
        offsets[file] += size;
      }
    }
  }
  return set;
}

// JSON v0 text, appended in place into one reserved string (no JSON
// library, no temporaries): the cheapest honest way to write these rows.
std::string JsonV0(const ReferenceSet& set) {
  std::string out;
  out.reserve(set.size() * 80);
  out += '{';
  char number[24];
  auto append_number = [&](std::uint64_t value) {
    const auto end = std::to_chars(number, number + sizeof(number), value).ptr;
    out.append(number, end);
  };
  for (const auto& [key, reference] : set.entries()) {
    if (out.size() > 1) out += ",\n";
    out += '"';
    out += key;
    out += "\": ";
    if (reference.kind == store::Reference::Kind::kInline) {
      out += nlohmann::json(std::string(AsChars(reference.data))).dump();
      continue;
    }
    out += "[\"";
    out += reference.url;
    out += "\", ";
    append_number(reference.offset);
    out += ", ";
    append_number(reference.length);
    out += ']';
  }
  out += '}';
  return out;
}

std::uint64_t DirectoryBytes(const std::filesystem::path& directory) {
  std::uint64_t total = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(directory)) {
    if (entry.is_regular_file()) total += entry.file_size();
  }
  return total;
}

long PeakRssKib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.starts_with("VmHWM:")) return std::stol(line.substr(6));
  }
  return -1;
}

// Child mode: open (Parquet dir or JSON file), find `key`, print
// "<seconds> <VmHWM KiB> <record files opened>".
int LookupChild(const std::string& kind, const std::string& path, const std::string& key) {
  const auto start = std::chrono::steady_clock::now();
  std::uint64_t opened = 0;
  bool found = false;
  if (kind == "parquet") {
    auto files = store::FileStore::Open(path, {.create_root = false});
    if (!files.ok()) return 1;
    auto index = ParquetReferenceIndex::Open(*files, "");
    if (!index.ok()) return 1;
    auto reference = (*index)->Find(key);
    found = reference.ok() && reference->has_value();
    opened = (*index)->record_files_opened();
  } else {
    auto text = core::ReadFile(path);
    if (!text.ok()) return 1;
    const nlohmann::json json = nlohmann::json::parse(AsChars(*text), nullptr, false);
    found = json.contains(key);
  }
  const double seconds = Seconds(start);
  std::printf("%.6f %ld %llu %d\n", seconds, PeakRssKib(), static_cast<unsigned long long>(opened),
              found);
  return found ? 0 : 1;
}

struct ChildResult {
  double seconds = 0;
  long peak_kib = 0;
  unsigned long long opened = 0;
};

ChildResult RunChild(const std::string& kind, const std::string& path, const std::string& key) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return {};
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(pipe_fds[1], STDOUT_FILENO);
    close(pipe_fds[0]);
    execl("/proc/self/exe", "refs_parquet_bench", "--lookup", kind.c_str(), path.c_str(),
          key.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(pipe_fds[1]);
  char buffer[256] = {};
  const ssize_t n = read(pipe_fds[0], buffer, sizeof(buffer) - 1);
  close(pipe_fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  ChildResult result;
  int found = 0;
  std::istringstream line(buffer);  // Zero-filled, so it ends where the child's output does.
  if (n <= 0 || !(line >> result.seconds >> result.peak_kib >> result.opened >> found) || !found) {
    std::fprintf(stderr, "lookup child (%s) failed: %s\n", kind.c_str(), buffer);
  }
  return result;
}

int Run() {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // Lines show up as they are measured.
  const auto root =
      std::filesystem::temp_directory_path() / ("refs_parquet_bench." + std::to_string(getpid()));
  const auto parquet_dir = root / "refs.parq.d";
  const auto json_path = root / "refs.json";
  std::filesystem::create_directories(root);
  auto start = std::chrono::steady_clock::now();
  const ReferenceSet set = MakeSet();
  std::printf(
      "Parquet references, %zu references (200x250x200 chunk grid, 8 URLs), built in %.1f s\n",
      set.size(), Seconds(start));

  std::vector<double> ours, peer;
  ParquetReferenceOptions options;
  options.overwrite = true;
  auto parquet_files = store::FileStore::Open(parquet_dir);
  if (!parquet_files.ok()) return 1;
  for (int run = 0; run < 3; ++run) {
    start = std::chrono::steady_clock::now();
    if (Status status = WriteParquetReferences(set, **parquet_files, "", options); !status.ok()) {
      std::fprintf(stderr, "%s\n", status.ToString().c_str());
      return 1;
    }
    ours.push_back(Seconds(start));
    start = std::chrono::steady_clock::now();
    const std::string json = JsonV0(set);
    if (!io::WriteFile(json_path, AsBytes(json)).ok()) return 1;
    peer.push_back(Seconds(start));
  }
  const double parquet_mb = DirectoryBytes(parquet_dir) / 1e6;
  const double json_mb = std::filesystem::file_size(json_path) / 1e6;
  std::printf("write\n  %-44s %8.2f s  %8.1f MB\n", "JSON v0, trivial serializer (peer)",
              Median(peer), json_mb);
  std::printf("  %-44s %8.2f s  %8.1f MB  %.2fx peer speed, %.1fx smaller\n",
              "WriteParquetReferences (100 files, zstd)", Median(ours), parquet_mb,
              Median(peer) / Median(ours), json_mb / parquet_mb);

  ours.clear();
  peer.clear();
  for (int run = 0; run < 3; ++run) {
    start = std::chrono::steady_clock::now();
    auto loaded = LoadParquetReferences(*parquet_files, "");
    if (!loaded.ok() || loaded->size() != set.size()) return 1;
    ours.push_back(Seconds(start));
  }
  {
    start = std::chrono::steady_clock::now();
    auto text = core::ReadFile(json_path);
    const nlohmann::json json = nlohmann::json::parse(AsChars(*text), nullptr, false);
    if (json.size() != set.size()) return 1;
    peer.push_back(Seconds(start));
  }
  std::printf("load whole set\n  %-44s %8.2f s (1 run)\n", "nlohmann::json parse of JSON v0 (peer)",
              Median(peer));
  std::printf("  %-44s %8.2f s  %.2fx peer\n", "LoadParquetReferences", Median(ours),
              Median(peer) / Median(ours));

  std::mt19937 random(3);
  std::vector<double> lookup_s, lookup_kib, json_s, json_kib;
  unsigned long long opened_max = 0, opened_min = ~0ull;
  for (int run = 0; run < 5; ++run) {
    const std::string key = Key(random() % kGrid[0], random() % kGrid[1], random() % kGrid[2]);
    const ChildResult ours_child = RunChild("parquet", parquet_dir, key);
    lookup_s.push_back(ours_child.seconds);
    lookup_kib.push_back(ours_child.peak_kib);
    opened_max = std::max(opened_max, ours_child.opened);
    opened_min = std::min(opened_min, ours_child.opened);
    if (run < 2) {
      const ChildResult peer_child = RunChild("json", json_path, key);
      json_s.push_back(peer_child.seconds);
      json_kib.push_back(peer_child.peak_kib);
    }
  }
  std::printf("open + one random key, fresh process\n");
  std::printf("  %-44s %8.3f s  peak RSS %7.1f MB\n", "JSON v0 read + parse + find (peer, 2 runs)",
              Median(json_s), Median(json_kib) / 1024);
  std::printf("  %-44s %8.3f s  peak RSS %7.1f MB  %.0fx faster, %.0fx less memory\n",
              "ParquetReferenceIndex Open + Find", Median(lookup_s), Median(lookup_kib) / 1024,
              Median(json_s) / Median(lookup_s), Median(json_kib) / Median(lookup_kib));
  std::printf("  record files opened per lookup: %llu..%llu (%s)\n", opened_min, opened_max,
              opened_min == 1 && opened_max == 1 ? "exactly one, as required" : "NOT exactly one");
  std::filesystem::remove_all(root);
  return opened_min == 1 && opened_max == 1 ? 0 : 1;
}

}  // namespace
}  // namespace chunkwise::formats::refs

int main(int argc, char** argv) {
  try {  // std::filesystem and allocation report by throwing.
    if (argc == 5 && std::string(argv[1]) == "--lookup") {
      return chunkwise::formats::refs::LookupChild(argv[2], argv[3], argv[4]);
    }
    return chunkwise::formats::refs::Run();
  } catch (const std::exception& error) {
    std::fprintf(stderr, "refs_parquet_bench: %s\n", error.what());
    return 1;
  }
}
