// zarr_facade_peer: the C++ library's row of bench/python/zarr_pipeline_bench.py.
//
// The same work as the Python module's `cw` row, through the facade
// (chunkwise.h) with no Python in between, so that the bench can print the
// module's time over the library's. Each call times one case and prints
// "seconds S"; what is outside the timed part (loading the volume, dumping
// what was read for the bench to check) is not counted.
//
//   zarr_facade_peer write RAW TARGET CODEC Z Y X THREADS
//       CreateZarrArray(256³ shards of 64³ chunks, CODEC) + WriteRegion of the
//       whole uint16 volume in RAW (loaded first), as chunkwise.create()[...] = v.
//   zarr_facade_peer read SOURCE THREADS [DUMP]
//       OpenZarrArray + ReadRegion of the whole array into fresh memory, as
//       chunkwise.open(path)[...]; DUMP: the values, written after timing.
//   zarr_facade_peer boxes SOURCE BOXES CONCURRENCY THREADS [DUMP]
//       OpenZarrArray, then ReadRegion of each 64³ box in BOXES (lines "z y x",
//       its first element) into fresh memory, CONCURRENCY in flight, as a
//       ThreadPoolExecutor(8) of array[box]; DUMP: the boxes' values in order.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "chunkwise/chunkwise.h"

namespace {

using chunkwise::Bytes;
using chunkwise::Context;
using chunkwise::ContextOptions;
using chunkwise::Result;
using chunkwise::Status;

constexpr chunkwise::core::Index kChunk = 64;
constexpr chunkwise::core::Index kShard = 256;

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "zarr_facade_peer: %s\n", what.c_str());
  std::exit(1);
}

void Check(const Status& status) {
  if (!status.ok()) Fail(status.ToString());
}

template <typename T>
T Value(Result<T> result) {
  if (!result.ok()) Fail(result.status().ToString());
  return *std::move(result);
}

ContextOptions WithThreads(const char* threads) {
  ContextOptions options;
  options.threads = std::stoul(threads);
  return options;
}

Bytes LoadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) Fail(path + ": cannot open");
  Bytes bytes(static_cast<std::size_t>(in.tellg()));
  in.seekg(0);
  if (!in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size())))
    Fail(path + ": cannot read");
  return bytes;
}

void Dump(const std::string& path, const std::vector<Bytes>& parts) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  for (const Bytes& part : parts) {
    out.write(reinterpret_cast<const char*>(part.data()),
              static_cast<std::streamsize>(part.size()));
  }
  if (!out) Fail(path + ": cannot write");
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void Write(char** argv) {
  const Bytes volume = LoadFile(argv[0]);
  chunkwise::ZarrArraySpec spec;
  spec.shape = {std::stoll(argv[3]), std::stoll(argv[4]), std::stoll(argv[5])};
  spec.data_type = Value(chunkwise::ParseDataType("uint16"));
  spec.chunks = {kChunk, kChunk, kChunk};
  spec.shards = chunkwise::core::Shape{kShard, kShard, kShard};
  spec.codecs = Value(chunkwise::ParseCodecs(argv[2]));
  spec.fill_value = "0";
  const Context context(WithThreads(argv[6]));
  const auto start = std::chrono::steady_clock::now();
  chunkwise::ZarrArray array = Value(chunkwise::CreateZarrArray(context, argv[1], spec));
  const chunkwise::core::Region whole(chunkwise::core::Coord(3, 0), spec.shape);
  Check(chunkwise::WriteRegion(context, array, whole, volume));
  std::printf("seconds %.6f\n", SecondsSince(start));
}

void Read(int argc, char** argv) {
  const Context context(WithThreads(argv[1]));
  const auto start = std::chrono::steady_clock::now();
  chunkwise::ZarrArray array = Value(chunkwise::OpenZarrArray(context, argv[0]));
  const chunkwise::core::Region whole(chunkwise::core::Coord(array.metadata().shape.size(), 0),
                                      array.metadata().shape);
  std::vector<Bytes> parts;
  parts.push_back(Value(chunkwise::ReadRegion(context, array, whole)));
  std::printf("seconds %.6f\n", SecondsSince(start));
  if (argc > 2) Dump(argv[2], parts);
}

void ReadBoxes(int argc, char** argv) {
  std::vector<chunkwise::core::Coord> firsts;
  std::ifstream boxes(argv[1]);
  for (chunkwise::core::Index z, y, x; boxes >> z >> y >> x;) firsts.push_back({z, y, x});
  const int concurrency = std::stoi(argv[2]);
  const Context context(WithThreads(argv[3]));
  const auto start = std::chrono::steady_clock::now();
  chunkwise::ZarrArray array = Value(chunkwise::OpenZarrArray(context, argv[0]));
  std::vector<Bytes> parts(firsts.size());
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::vector<std::thread> readers;
  for (int i = 0; i < concurrency; ++i) {
    readers.emplace_back([&] {
      for (std::size_t k = next++; k < firsts.size(); k = next++) {
        chunkwise::core::Coord stop = firsts[k];
        for (chunkwise::core::Index& end : stop) end += kChunk;
        Result<Bytes> part =
            chunkwise::ReadRegion(context, array, chunkwise::core::Region(firsts[k], stop));
        if (!part.ok()) {
          std::fprintf(stderr, "zarr_facade_peer: %s\n", part.status().ToString().c_str());
          failed = true;
          return;
        }
        parts[k] = *std::move(part);
      }
    });
  }
  for (std::thread& reader : readers) reader.join();
  if (failed) std::exit(1);
  std::printf("seconds %.6f\n", SecondsSince(start));
  if (argc > 4) Dump(argv[4], parts);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string command = argc > 1 ? argv[1] : "";
  if (command == "write" && argc == 9) {
    Write(argv + 2);
  } else if (command == "read" && (argc == 4 || argc == 5)) {
    Read(argc - 2, argv + 2);
  } else if (command == "boxes" && (argc == 6 || argc == 7)) {
    ReadBoxes(argc - 2, argv + 2);
  } else {
    std::fprintf(stderr,
                 "usage: zarr_facade_peer write RAW TARGET CODEC Z Y X THREADS\n"
                 "       zarr_facade_peer read SOURCE THREADS [DUMP]\n"
                 "       zarr_facade_peer boxes SOURCE BOXES CONCURRENCY THREADS [DUMP]\n");
    return 2;
  }
  return 0;
}
