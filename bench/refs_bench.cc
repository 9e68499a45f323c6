// Reference sets: building, writing and loading a large synthetic set (10 M
// references by default) as JSON v0, JSON v1 and Parquet, next to the peers
// our users would use instead, on the same files in the same run
// (bench/refs_python_peer.py, in the pinned .venv; docs/benchmarks.md):
//   JSON      load: fsspec's ReferenceFileSystem opened on the file (json.load
//             and its references dict); write: ujson.dumps of the same set
//             written to a file, as kerchunk writes JSON;
//   Parquet   write: kerchunk's refs_to_dataframe of the same set (record_size
//             100000, as ours); load: fsspec's lazy Parquet references opened
//             on our directory and every reference taken through
//             references.values(); lookup: opened afresh, one key looked up.
// Ratios are the peer's time over ours (above 1: ours is faster; issue 7's
// goal for JSON loads: at least 10×).
//
// The set is what a kerchunk scan of many netCDF files looks like: keys
// "data/<i>.<j>.<k>" over a 3-d chunk grid, each a byte range of one of a few
// hundred long paths, plus zarr metadata. Medians of --runs runs (of
// --peer-runs for the peers, default the same). The paths
// are local (fsspec builds a file system per URL protocol at construction,
// and s3fs is not installed here); nothing is read from them.
//
// usage: refs_bench [--refs N] [--runs N] [--peer-runs N] [--dir DIR] [--no-python]
//                   [--python PATH] [--load FILE] [--keep]
// (--python: the peers' interpreter, default the pinned .venv's; Debian's
// /usr/bin/python3 gives fsspec 2022.11, which has JSON only.)
#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench_common.h"
#include "chunkwise/io/file.h"
#include "chunkwise/store/file_store.h"
#include "core/file_io.h"
#include "formats/refs/json_reader.h"
#include "formats/refs/json_writer.h"
#include "formats/refs/parquet_references.h"
#include "formats/refs/reference_file.h"

namespace {

namespace fs = std::filesystem;
using chunkwise::bench::IntegerArg;
using chunkwise::formats::refs::JsonVersion;
using chunkwise::formats::refs::ReferenceSet;
using chunkwise::store::Reference;

struct BenchOptions {
  std::uint64_t refs = 10000000;
  int runs = 3;
  int peer_runs = 0;  // 0: as runs. A peer's 10 M load takes minutes.
  fs::path dir = fs::temp_directory_path() / "chunkwise_refs_bench";
  bool python = true;
  std::string python_path = std::string(CHUNKWISE_SOURCE_DIR) + "/.venv/bin/python";
  fs::path load_only;  // --load FILE: time loading an existing JSON set only (for profiling).
  bool keep = false;   // --keep: leave the written files in --dir.
};

using chunkwise::bench::Median;

double Seconds(const std::function<void()>& body) {
  const auto start = std::chrono::steady_clock::now();
  body();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void Die(const chunkwise::Status& status) {
  if (status.ok()) return;
  std::fprintf(stderr, "refs_bench: %s\n", status.ToString().c_str());
  std::exit(1);
}

// The n references fill a chunk grid of depth × side × side exactly, side²
// dividing n and side as near cbrt(n) as that allows (10 M: 250 × 200 × 200).
// A grid with empty cells at its end would leave fsspec's Parquet reader
// looking for a record file no writer makes: kerchunk's, like ours, writes
// none for a record of absent chunks.
ReferenceSet BuildSet(std::uint64_t n) {
  ReferenceSet set;
  auto side = static_cast<std::uint64_t>(std::llround(std::cbrt(static_cast<double>(n))));
  while (side > 1 && n % (side * side) != 0) --side;
  const std::uint64_t depth = n / (side * side);
  const std::string zarray = R"({"chunks":[1,256,256],"compressor":{"id":"zlib","level":4},)"
                             R"("dtype":"<f4","fill_value":"NaN","filters":null,"order":"C",)"
                             R"("shape":[)" +
                             std::to_string(depth) + "," + std::to_string(side * 256) + "," +
                             std::to_string(side * 256) + R"(],"zarr_format":2})";
  set.Add(".zgroup",
          Reference::Inline(chunkwise::CopyToBytes(chunkwise::AsBytes(R"({"zarr_format":2})"))));
  set.Add("data/.zarray", Reference::Inline(chunkwise::CopyToBytes(chunkwise::AsBytes(zarray))));
  std::vector<std::string> keys;
  keys.reserve(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint64_t x = i % side, y = (i / side) % side, z = i / side / side;
    keys.push_back("data/" + std::to_string(z) + "." + std::to_string(y) + "." + std::to_string(x));
  }
  std::sort(keys.begin(), keys.end());
  std::uint64_t offset = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint64_t file = i / 4096;  // ~250 files per million references.
    if (i % 4096 == 0) offset = 30000;
    const std::uint64_t length = 40000 + (i * 2654435761u) % 30000;
    char url[128];
    std::snprintf(url, sizeof(url), "/archive/climate/reanalysis/v5/hourly/t2m_%05llu.nc",
                  static_cast<unsigned long long>(file));
    set.Add(std::move(keys[i]), Reference::Range(url, offset, length));
    offset += length;
  }
  return set;
}

int PeerRuns(const BenchOptions& options) {
  return options.peer_runs > 0 ? options.peer_runs : options.runs;
}

// Medians in seconds, 0 where not measured.
struct Timings {
  double write_s = 0, load_s = 0, lookup_s = 0;
};

struct VersionFigures {
  Timings ours, peer;
  std::uint64_t bytes = 0;
};

double MedianField(const nlohmann::json& result, const char* field) {
  return Median(result.at(field).get<std::vector<double>>());
}

// Runs bench/refs_python_peer.py with `arguments`; zeros if it cannot.
Timings MeasurePython(const std::string& arguments, const BenchOptions& options) {
  const fs::path script = fs::path(CHUNKWISE_SOURCE_DIR) / "bench" / "refs_python_peer.py";
  const std::string command = options.python_path + " " + script.string() + " " + arguments;
  const std::optional<nlohmann::json> result = chunkwise::bench::RunJsonPeer(command, "refs_bench");
  if (!result) return {};
  try {  // nlohmann::json reports a missing or mistyped field by throwing.
    Timings timings{MedianField(*result, "write_seconds"), MedianField(*result, "load_seconds")};
    if (result->contains("lookup_seconds"))
      timings.lookup_s = MedianField(*result, "lookup_seconds");
    return timings;
  } catch (const nlohmann::json::exception& error) {
    std::fprintf(stderr, "refs_bench: the peer printed %s: %s\n", result->dump().c_str(),
                 error.what());
    return {};
  }
}

// "   1.234" or a dash for a time not measured.
std::string Cell(double seconds) {
  char text[32];
  if (seconds > 0) {
    std::snprintf(text, sizeof(text), " %9.3f", seconds);
  } else {
    std::snprintf(text, sizeof(text), " %9s", "-");
  }
  return text;
}

// The peer's time over ours, or a dash.
std::string Ratio(double peer, double ours) {
  char text[32];
  if (peer > 0 && ours > 0) {
    std::snprintf(text, sizeof(text), " %7.2fx", peer / ours);
  } else {
    std::snprintf(text, sizeof(text), " %8s", "-");
  }
  return text;
}

void PrintRow(const char* format, double megabytes, const Timings& ours, const Timings& peer) {
  std::printf("%-8s %8.1fMB%s%s%s |%s%s%s |%s%s%s\n", format, megabytes, Cell(ours.write_s).c_str(),
              Cell(ours.load_s).c_str(), Cell(ours.lookup_s).c_str(), Cell(peer.write_s).c_str(),
              Cell(peer.load_s).c_str(), Cell(peer.lookup_s).c_str(),
              Ratio(peer.write_s, ours.write_s).c_str(), Ratio(peer.load_s, ours.load_s).c_str(),
              Ratio(peer.lookup_s, ours.lookup_s).c_str());
}

VersionFigures MeasureVersion(const ReferenceSet& set, JsonVersion version,
                              const BenchOptions& options) {
  VersionFigures figures;
  const std::string name = version == JsonVersion::kV0 ? "refs_v0.json" : "refs_v1.json";
  const fs::path path = options.dir / name;
  auto files = chunkwise::store::FileStore::Open(options.dir);
  Die(files.status());
  std::vector<double> write_s, load_s;
  for (int run = 0; run < options.runs; ++run) {
    write_s.push_back(Seconds([&] {
      Die(chunkwise::formats::refs::WriteReferenceJson(**files, name, set, {version, true}, true));
    }));
  }
  figures.bytes = fs::file_size(path);
  for (int run = 0; run < options.runs; ++run) {
    // Freed after the clock stops, as the python peer frees its dict after timing.
    chunkwise::Result<ReferenceSet> loaded = chunkwise::Status::Internal("not loaded");
    load_s.push_back(
        Seconds([&] { loaded = chunkwise::formats::refs::ReadReferenceJson(**files, name); }));
    Die(loaded.status());
    if (loaded->size() != set.size()) Die(chunkwise::Status::Internal("size differs"));
  }
  figures.ours = {Median(write_s), Median(load_s)};
  if (options.python) {
    figures.peer =
        MeasurePython("json " + path.string() + " " + std::to_string(PeerRuns(options)), options);
  }
  return figures;
}

// The Parquet layout of the same set: write (record_size 100000), load of
// every key, and a lazy open + one random key, which must read one record
// file; the peers on the same directory (kerchunk's writer reads the JSON v0
// file the JSON rows left, untimed).
void PrintParquetFigures(const ReferenceSet& set, const BenchOptions& options) {
  namespace refs = chunkwise::formats::refs;
  const fs::path dir = options.dir / "refs.parq";
  auto files = chunkwise::store::FileStore::Open(dir);
  Die(files.status());
  const refs::ReferenceSet nested = refs::NestRootArray(set, "data");
  std::vector<double> write_s, load_s, lookup_s;
  std::uint64_t files_opened = 0;
  const std::string key(
      (*std::next(nested.entries().begin(), static_cast<long>(nested.size() * 7 / 11))).key);
  for (int run = 0; run < options.runs; ++run) {
    refs::ParquetReferenceOptions write;
    write.overwrite = true;
    write_s.push_back(
        Seconds([&] { Die(refs::WriteParquetReferences(nested, **files, "", write)); }));
    chunkwise::Result<ReferenceSet> loaded = chunkwise::Status::Internal("not loaded");
    load_s.push_back(Seconds([&] { loaded = refs::LoadParquetReferences(*files, ""); }));
    Die(loaded.status());
    lookup_s.push_back(Seconds([&] {
      auto index = refs::ParquetReferenceIndex::Open(*files, "");
      Die(index.status());
      Die((*index)->Find(key).status());
      files_opened = (*index)->record_files_opened();
    }));
  }
  Timings peer;
  if (options.python) {
    peer = MeasurePython("parquet " + dir.string() + " " + (options.dir / "refs_v0.json").string() +
                             " " + key + " " + (options.dir / "kerchunk.parq").string() + " " +
                             std::to_string(PeerRuns(options)),
                         options);
  }
  std::uint64_t bytes = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) bytes += entry.file_size();
  }
  PrintRow("parquet", static_cast<double>(bytes) / 1e6,
           {Median(write_s), Median(load_s), Median(lookup_s)}, peer);
  std::printf("(ours' lookup read %llu record file(s))\n",
              static_cast<unsigned long long>(files_opened));
}

int LoadOnly(const BenchOptions& options) {
  std::vector<double> load_s;
  std::size_t size = 0;
  for (int run = 0; run < options.runs; ++run) {
    chunkwise::Result<ReferenceSet> loaded = chunkwise::Status::Internal("not loaded");
    load_s.push_back(Seconds([&] {
      auto file = chunkwise::io::LocateFile(options.load_only);
      Die(file.status());
      loaded = chunkwise::formats::refs::ReadReferenceJson(*file->store, file->key);
    }));
    Die(loaded.status());
    size = loaded->size();
  }
  std::printf("%s: %zu references, load %.3f s (median of %d)\n",
              options.load_only.string().c_str(), size, Median(load_s), options.runs);
  return 0;
}

BenchOptions ParseOptions(int argc, char** argv) {
  BenchOptions options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--refs" && has_value) {
      options.refs = static_cast<std::uint64_t>(IntegerArg("--refs", argv[++i], 1, 1'000'000'000));
    } else if (arg == "--runs" && has_value) {
      options.runs = static_cast<int>(IntegerArg("--runs", argv[++i], 1, INT_MAX));
    } else if (arg == "--peer-runs" && has_value) {
      options.peer_runs = static_cast<int>(IntegerArg("--peer-runs", argv[++i], 1, INT_MAX));
    } else if (arg == "--dir" && has_value) {
      options.dir = argv[++i];
    } else if (arg == "--no-python") {
      options.python = false;
    } else if (arg == "--python" && has_value) {
      options.python_path = argv[++i];
    } else if (arg == "--load" && has_value) {
      options.load_only = argv[++i];
    } else if (arg == "--keep") {
      options.keep = true;
    } else {
      std::fprintf(
          stderr,
          "usage: refs_bench [--refs N] [--runs N] [--peer-runs N] [--dir DIR] [--no-python] "
          "[--python PATH] [--load FILE] [--keep]\n");
      std::exit(2);
    }
  }
  return options;
}

int Main(int argc, char** argv) {
  const BenchOptions options = ParseOptions(argc, argv);
  chunkwise::KeepFreedMemoryForReuse();  // As the CLI does.
  if (!options.load_only.empty()) return LoadOnly(options);
  fs::create_directories(options.dir);
  ReferenceSet set;
  const double build_s = Seconds([&] { set = BuildSet(options.refs); });
  std::printf("refs_bench: %zu references, %d runs (medians), %d of each peer\n", set.size(),
              options.runs, PeerRuns(options));
  std::printf("build (in memory): %.3f s\n\n", build_s);
  std::printf(
      "seconds; peers: JSON write ujson, load fsspec; Parquet write kerchunk, load and\n"
      "lookup fsspec (%s); ratios: the peer's time over ours\n",
      options.python ? options.python_path.c_str() : "not run");
  std::printf("%-8s %10s %9s %9s %9s | %9s %9s %9s | %8s %8s %8s\n", "format", "file", "write",
              "load", "lookup", "peer wr", "peer load", "peer look", "write", "load", "lookup");
  for (const JsonVersion version : {JsonVersion::kV0, JsonVersion::kV1}) {
    const VersionFigures f = MeasureVersion(set, version, options);
    PrintRow(version == JsonVersion::kV0 ? "json-v0" : "json-v1",
             static_cast<double>(f.bytes) / 1e6, f.ours, f.peer);
    std::fflush(stdout);
  }
  PrintParquetFigures(set, options);
  if (!options.keep) fs::remove_all(options.dir);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {  // std::filesystem and allocation report by throwing.
    return Main(argc, argv);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "refs_bench: %s\n", error.what());
    return 1;
  }
}
