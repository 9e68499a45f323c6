// Reference sets: building, writing and loading a large synthetic set as JSON
// v0 and v1, next to python3 `json.load` + fsspec's ReferenceFileSystem
// construction on the same file in the same run (issue 7's goal: our load at
// least 10× faster).
//
// The set is what a kerchunk scan of many netCDF files looks like: keys
// "data/<i>.<j>.<k>" over a 3-d chunk grid, each a byte range of one of a few
// hundred long paths, plus zarr metadata. Medians of --runs runs. The paths
// are local (fsspec builds a file system per URL protocol at construction,
// and s3fs is not installed here); nothing is read from them.
//
// usage: refs_bench [--refs N] [--runs N] [--dir DIR] [--no-python] [--python PATH]
//                   [--load FILE] [--keep]
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
#include "chunkwise/core/file_io.h"
#include "chunkwise/formats/refs/json_reader.h"
#include "chunkwise/formats/refs/json_writer.h"
#include "chunkwise/formats/refs/parquet_references.h"
#include "chunkwise/formats/refs/reference_file.h"
#include "chunkwise/io/file.h"
#include "chunkwise/store/file_store.h"

namespace {

namespace fs = std::filesystem;
using chunkwise::bench::IntegerArg;
using chunkwise::formats::refs::JsonVersion;
using chunkwise::formats::refs::ReferenceSet;
using chunkwise::store::Reference;

struct BenchOptions {
  std::uint64_t refs = 1000000;
  int runs = 3;
  fs::path dir = fs::temp_directory_path() / "chunkwise_refs_bench";
  bool python = true;
  std::string python_path = "/usr/bin/python3";
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

ReferenceSet BuildSet(std::uint64_t n) {
  ReferenceSet set;
  const auto side = static_cast<std::uint64_t>(std::ceil(std::cbrt(static_cast<double>(n))));
  const std::string zarray = R"({"chunks":[1,256,256],"compressor":{"id":"zlib","level":4},)"
                             R"("dtype":"<f4","fill_value":"NaN","filters":null,"order":"C",)"
                             R"("shape":[)" +
                             std::to_string(side) + "," + std::to_string(side * 256) + "," +
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

struct VersionFigures {
  double write_s = 0, load_s = 0, python_s = 0;
  std::uint64_t bytes = 0;
};

// Runs bench/refs_python_peer.py on `path`; 0 if it cannot.
double MeasurePython(const fs::path& path, const BenchOptions& options) {
  const fs::path script = fs::path(CHUNKWISE_SOURCE_DIR) / "bench" / "refs_python_peer.py";
  const std::string command = options.python_path + " " + script.string() + " " + path.string() +
                              " " + std::to_string(options.runs);
  const std::optional<nlohmann::json> result = chunkwise::bench::RunJsonPeer(command, "refs_bench");
  if (!result) return 0;
  return Median(result->at("load_seconds").get<std::vector<double>>());
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
  figures.write_s = Median(write_s);
  figures.load_s = Median(load_s);
  if (options.python) figures.python_s = MeasurePython(path, options);
  return figures;
}

// The Parquet layout of the same set: write (record_size 100000), load of
// every key, and a lazy open + one random key, which must read one record
// file. Debian's fsspec 2022.11 has no Parquet references, so no peer here.
void PrintParquetFigures(const ReferenceSet& set, const BenchOptions& options) {
  namespace refs = chunkwise::formats::refs;
  auto files = chunkwise::store::FileStore::Open(options.dir / "refs.parq");
  Die(files.status());
  const refs::ReferenceSet nested = refs::NestRootArray(set, "data");
  std::vector<double> write_s, load_s, lookup_s;
  std::uint64_t files_opened = 0;
  for (int run = 0; run < options.runs; ++run) {
    refs::ParquetReferenceOptions write;
    write.overwrite = true;
    write_s.push_back(
        Seconds([&] { Die(refs::WriteParquetReferences(nested, **files, "", write)); }));
    chunkwise::Result<ReferenceSet> loaded = chunkwise::Status::Internal("not loaded");
    load_s.push_back(Seconds([&] { loaded = refs::LoadParquetReferences(*files, ""); }));
    Die(loaded.status());
    const std::string key(
        (*std::next(nested.entries().begin(), static_cast<long>(nested.size() * 7 / 11))).key);
    lookup_s.push_back(Seconds([&] {
      auto index = refs::ParquetReferenceIndex::Open(*files, "");
      Die(index.status());
      Die((*index)->Find(key).status());
      files_opened = (*index)->record_files_opened();
    }));
  }
  std::printf("%-8s %10s %9.3f %9.3f   open + one random key %.3f s, %llu record file(s) read\n",
              "parquet", "", Median(write_s), Median(load_s), Median(lookup_s),
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
      std::fprintf(stderr,
                   "usage: refs_bench [--refs N] [--runs N] [--dir DIR] [--no-python] "
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
  std::printf("refs_bench: %zu references, %d runs (medians)\n", set.size(), options.runs);
  std::printf("build (in memory): %.3f s\n\n", build_s);
  std::printf("%-8s %10s %9s %9s %14s %8s\n", "format", "file", "write s", "load s",
              "python load s", "ratio");
  for (const JsonVersion version : {JsonVersion::kV0, JsonVersion::kV1}) {
    const VersionFigures f = MeasureVersion(set, version, options);
    std::printf("%-8s %8.1fMB %9.3f %9.3f ", version == JsonVersion::kV0 ? "json-v0" : "json-v1",
                f.bytes / 1e6, f.write_s, f.load_s);
    if (f.python_s > 0) {
      const double ratio = f.python_s / f.load_s;
      std::printf("%14.3f %7.1fx %s\n", f.python_s, ratio, ratio >= 10 ? "ok" : "BELOW 10x");
    } else {
      std::printf("%14s %8s\n", "-", "-");
    }
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
