// bcolz carray append throughput and random-access latency, next to the real
// bcolz and python-blosc2 appending the same data, python3-blosc and c-blosc
// doing the same compression.
//
// Data: 64 MiB of float64 (a smooth signal plus sensor noise, fixed seed).
// Cparams: lz4, clevel 5, byte shuffle, typesize 8, chunklen as bcolz picks
// it for the expected length (65536 rows = 512 KiB chunks).
//   append:  Carray::Create + Append in 16 MiB batches + Flush, into a
//            FileStore under $TMPDIR (chunk files written and renamed) and into
//            a MemoryStore and into a store that discards (the format's own
//            cost), with the default threads (one per core: the chunks of an
//            append compress in parallel) and, into the FileStore, with one.
//            Peers: python3-blosc's blosc.compress over the same chunks
//            (bench/bcolz_python_peer.py, the same data written to a file),
//            with one thread and with its default of one per core, and
//            blosc_compress_ctx in process with one thread (no I/O at all).
//            A chunk here is one Blosc block, which c-blosc's threads cannot
//            split, so python3-blosc is as fast with one thread as with all.
//            Rows with our default threads are compared with python3-blosc's
//            faster setting in that round; the one-thread row with its one
//            thread. Without python3-blosc, ratios fall back to c-blosc.
//            Append peers (bench/bcolz_append_peer.py, in its own process each
//            round, after an untimed run; docs/benchmarks.md): the real bcolz
//            (carray with the same expectedlen and cparams, append in 16 MiB
//            batches, flush; run by .venv-bcolz's Python where that exists,
//            else .venv's; "bcolz: not installed" where neither imports it)
//            and python-blosc2 (an SChunk of the same 512 KiB chunks in one
//            contiguous file, append_data per chunk), both on our default
//            threads; ours/fastest compares our FileStore append with them.
//            Where /dev/shm is a writable directory (tmpfs), the FileStore
//            run is repeated there: the same system calls, without the disk
//            file system's block and inode allocation. (On an ext4 without a
//            journal, as on our 2-core CI machine, creating a file scans every
//            inode deleted in the last 30 s: the previous run's chunk files.)
//   random:  Carray::Read of one row at random positions of a carray reopened
//            read-only (a chunk file read, then blosc_getitem); peers:
//            blosc_getitem and blosc_decompress_ctx on one in-memory chunk.
// Every figure is the median of 7 rounds, each running the peers and ours in
// turn; throughput ratios are the median of the per-round ratios, and latency
// ratios peer / ours (1.0 = as fast as the peer).
#include <blosc.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <thread>
#include <vector>

#include "bench_common.h"
#include "chunkwise/store/file_store.h"
#include "discard_store.h"
#include "formats/bcolz/carray.h"
#include "store/memory_store.h"

namespace chunkwise::formats::bcolz {
namespace {

using bench::DiscardStore;
using bench::Median;
using bench::Seconds;

constexpr std::size_t kRows = 8 << 20;  // 64 MiB of float64.
constexpr std::size_t kBatchRows = 2 << 20;
constexpr int kRepeats = 7;
constexpr int kRandomReads = 2000;

Bytes Signal() {
  Bytes data(kRows * 8);
  std::uint64_t state = 0x9E3779B97F4A7C15ull;
  for (std::size_t i = 0; i < kRows; ++i) {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    const double t = static_cast<double>(i);
    // Rounded to 1/64: a sensor's quantized readings, so the low bytes repeat.
    const double value = std::round((20 + 5 * std::sin(t / 5000) + (state % 200) * 0.01) * 64) / 64;
    std::memcpy(&data[i * 8], &value, 8);
  }
  return data;
}

CarrayOptions Options(int threads) {
  CarrayOptions options;
  options.threads = threads;
  options.dtype = *DtypeFromString("float64");
  options.expectedlen = kRows;
  options.cparams = {5, 1, "lz4", 0};
  return options;
}

void Check(const Status& status) {
  if (!status.ok()) {
    std::fprintf(stderr, "bcolz_bench: %s\n", status.ToString().c_str());
    std::exit(1);
  }
}

// `threads` 0 = the default, one per core.
double AppendSeconds(const std::shared_ptr<store::Store>& store, const Bytes& data,
                     int threads = 0) {
  return Seconds([&] {
    auto carray = Carray::Create(store, "", Options(threads));
    Check(carray.status());
    for (std::size_t row = 0; row < kRows; row += kBatchRows) {
      Check((*carray)->Append(ByteView(data.data() + row * 8, kBatchRows * 8)));
    }
    Check((*carray)->Close());
  });
}

double PeerCompressSeconds(const Bytes& data, std::size_t chunk_bytes, std::size_t* compressed) {
  Bytes out(chunk_bytes + BLOSC_MAX_OVERHEAD);
  return Seconds([&] {
    *compressed = 0;
    for (std::size_t at = 0; at < data.size(); at += chunk_bytes) {
      const int n = blosc_compress_ctx(5, 1, 8, chunk_bytes, data.data() + at, out.data(),
                                       out.size(), "lz4", 0, 1);
      if (n <= 0) std::exit(1);
      *compressed += static_cast<std::size_t>(n);
    }
  });
}

// One round of python3-blosc on the data in `input`: seconds with one thread
// and with its default thread count; nullopt when it cannot run.
struct PythonRound {
  double one_thread_seconds = 0, default_seconds = 0;
  int default_threads = 0;
};

std::optional<PythonRound> RunPythonPeer(const std::filesystem::path& input,
                                         std::size_t chunk_bytes) {
  const std::filesystem::path script =
      std::filesystem::path(CHUNKWISE_SOURCE_DIR) / "bench" / "bcolz_python_peer.py";
  const std::string command = "/usr/bin/python3 " + script.string() + " " + input.string() + " " +
                              std::to_string(chunk_bytes) + " 1";
  const std::optional<nlohmann::json> result = bench::RunJsonPeer(command, "bcolz_bench");
  if (!result) return std::nullopt;
  try {  // nlohmann::json reports a missing or mistyped field by throwing.
    return PythonRound{result->at("one_thread_seconds").at(0).get<double>(),
                       result->at("default_seconds").at(0).get<double>(),
                       result->at("default_threads").get<int>()};
  } catch (const nlohmann::json::exception& error) {
    std::fprintf(stderr, "bcolz_bench: the python3-blosc peer printed %s: %s\n",
                 result->dump().c_str(), error.what());
    return std::nullopt;
  }
}

// One append peer's round: its seconds, or why it did not run.
struct AppendPeerRound {
  double seconds = 0;
  std::string version, missing;
};

AppendPeerRound Missing(std::string why) { return {0, "", std::move(why)}; }

// The Python that runs the bcolz peer: .venv-bcolz's where it exists (bcolz
// 1.2.1 built in a venv of its own), else the pinned .venv's.
std::string BcolzPython() {
  const std::filesystem::path source(CHUNKWISE_SOURCE_DIR);
  const std::filesystem::path own = source / ".venv-bcolz" / "bin" / "python";
  return std::filesystem::exists(own) ? own.string()
                                      : (source / ".venv" / "bin" / "python").string();
}

// Runs bench/bcolz_append_peer.py `arguments` (its first is the peer's name).
AppendPeerRound RunAppendPeer(const std::string& python, const std::string& arguments) {
  const std::filesystem::path script =
      std::filesystem::path(CHUNKWISE_SOURCE_DIR) / "bench" / "bcolz_append_peer.py";
  const std::optional<nlohmann::json> result =
      bench::RunJsonPeer(python + " " + script.string() + " " + arguments, "bcolz_bench");
  if (!result) return Missing("failed (see above)");
  try {  // nlohmann::json reports a missing or mistyped field by throwing.
    if (result->contains("missing")) return Missing(result->at("missing").get<std::string>());
    return {result->at("append_seconds").get<double>(), result->at("version").get<std::string>(),
            ""};
  } catch (const nlohmann::json::exception& error) {
    return Missing("printed " + result->dump() + ": " + error.what());
  }
}

bool WriteRaw(const std::filesystem::path& path, const Bytes& data) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
  return static_cast<bool>(out);
}

// The median over rounds of peer[r] / ours[r]: both ran in the same round.
double RoundRatio(const std::vector<double>& peer, const std::vector<double>& ours) {
  std::vector<double> ratios;
  for (std::size_t r = 0; r < ours.size(); ++r) ratios.push_back(peer[r] / ours[r]);
  return Median(ratios);
}

struct AppendPeer {
  std::string name;
  std::vector<double> seconds;  // One per round, as ours.
  std::string missing;          // Why it did not run; empty when it did.
};

// The append peers next to our FileStore append (`ours`, seconds per round):
// MB/s each, ours over each per round, and ours over the fastest.
void PrintAppendPeers(double mb, const std::vector<double>& ours,
                      const std::vector<AppendPeer>& peers) {
  std::printf("appending the same data to a container on disk, our default threads:\n");
  std::printf("  %-44s %9.0f MB/s\n", "Carray append, FileStore (ours)", mb / Median(ours));
  const AppendPeer* fastest = nullptr;
  for (const AppendPeer& peer : peers) {
    if (!peer.missing.empty() || peer.seconds.size() != ours.size()) {
      std::printf("  %-44s %14s  %s\n", peer.name.c_str(), "-", peer.missing.c_str());
      continue;
    }
    std::printf("  %-44s %9.0f MB/s  ours %.2fx\n", peer.name.c_str(), mb / Median(peer.seconds),
                RoundRatio(peer.seconds, ours));
    if (fastest == nullptr || Median(peer.seconds) < Median(fastest->seconds)) fastest = &peer;
  }
  if (fastest != nullptr) {
    const double ratio = RoundRatio(fastest->seconds, ours);
    std::printf("  ours / fastest peer (%s): %.2fx %s\n", fastest->name.c_str(), ratio,
                ratio > 1 ? "ok" : "SLOWER");
  }
}

// A run directory on /dev/shm when that is a directory we may write.
std::optional<std::filesystem::path> TmpfsRunDir() {
  const std::filesystem::path shm = "/dev/shm";
  std::error_code error;
  if (!std::filesystem::is_directory(shm, error) || ::access(shm.c_str(), W_OK) != 0) {
    return std::nullopt;
  }
  return shm / ("chunkwise_bcolz_bench." + std::to_string(::getpid())) / "run";
}

// Median seconds per call of `read(i)` over random rows.
double RandomLatency(const std::function<void(std::int64_t)>& read, std::int64_t rows) {
  std::mt19937_64 random(42);
  std::vector<std::int64_t> positions(kRandomReads);
  for (auto& p : positions) p = static_cast<std::int64_t>(random() % rows);
  return Seconds([&] {
           for (std::int64_t p : positions) read(p);
         }) /
         kRandomReads;
}

int Run() {
  const Bytes data = Signal();
  const auto dir = std::filesystem::temp_directory_path() /
                   ("chunkwise_bcolz_bench." + std::to_string(::getpid()));
  std::vector<double> file_s, file_one_s, tmpfs_s, memory_s, discard_s, peer_s;
  const std::optional<std::filesystem::path> tmpfs_dir = TmpfsRunDir();
  std::size_t compressed = 0;
  const std::size_t chunklen =
      static_cast<std::size_t>(ChunklenForExpectedlen(static_cast<std::int64_t>(kRows), 8));
  std::filesystem::create_directories(dir);
  const std::filesystem::path input = dir / "data.bin";
  bool python_runs = WriteRaw(input, data);
  std::vector<double> python_one_s, python_default_s, python_best_s;
  int python_threads = 0;
  const int cores = static_cast<int>(std::max(std::thread::hardware_concurrency(), 1u));
  const std::string bcolz_python = BcolzPython();
  const std::string venv_python = std::string(CHUNKWISE_SOURCE_DIR) + "/.venv/bin/python";
  std::vector<double> bcolz_s, blosc2_s;
  std::string bcolz_version, blosc2_version, bcolz_missing, blosc2_missing;
  for (int r = 0; r < kRepeats; ++r) {
    if (bcolz_missing.empty()) {
      const AppendPeerRound round =
          RunAppendPeer(bcolz_python, "bcolz " + input.string() + " " + (dir / "bcolz").string() +
                                          " " + std::to_string(kBatchRows) + " " +
                                          std::to_string(kRows) + " " + std::to_string(cores));
      bcolz_missing = round.missing, bcolz_version = round.version;
      if (round.missing.empty()) bcolz_s.push_back(round.seconds);
    }
    if (blosc2_missing.empty()) {
      const AppendPeerRound round =
          RunAppendPeer(venv_python, "blosc2 " + input.string() + " " + (dir / "blosc2").string() +
                                         " " + std::to_string(chunklen * 8) + " " +
                                         std::to_string(kBatchRows) + " " + std::to_string(cores));
      blosc2_missing = round.missing, blosc2_version = round.version;
      if (round.missing.empty()) blosc2_s.push_back(round.seconds);
    }
    if (python_runs) {
      const std::optional<PythonRound> round = RunPythonPeer(input, chunklen * 8);
      python_runs = round.has_value();
      if (round) {
        python_one_s.push_back(round->one_thread_seconds);
        python_default_s.push_back(round->default_seconds);
        python_best_s.push_back(std::min(round->one_thread_seconds, round->default_seconds));
        python_threads = round->default_threads;
      }
    }
    peer_s.push_back(PeerCompressSeconds(data, chunklen * 8, &compressed));
    memory_s.push_back(AppendSeconds(store::MemoryStore::Create(), data));
    discard_s.push_back(AppendSeconds(std::make_shared<DiscardStore>(), data));
    // A fresh directory each run: erasing the last run's files is not append work.
    std::filesystem::remove_all(dir / "run");
    file_one_s.push_back(AppendSeconds(*store::FileStore::Open(dir / "run"), data, 1));
    std::filesystem::remove_all(dir / "run");
    file_s.push_back(AppendSeconds(*store::FileStore::Open(dir / "run"), data));
    if (tmpfs_dir) {
      std::filesystem::remove_all(*tmpfs_dir);
      tmpfs_s.push_back(AppendSeconds(*store::FileStore::Open(*tmpfs_dir), data));
    }
  }
  std::filesystem::remove(input);
  // The peers of the ratios: python3-blosc, else c-blosc in process.
  const bool python = python_one_s.size() == static_cast<std::size_t>(kRepeats);
  const std::vector<double>& one_thread_peer = python ? python_one_s : peer_s;
  const std::vector<double>& best_peer = python ? python_best_s : peer_s;
  const double mb = static_cast<double>(data.size()) / 1e6;
  std::printf("bcolz append, %zu MB float64, lz4 clevel 5 shuffle, chunklen %zu, ratio %.2f\n",
              data.size() >> 20, chunklen, static_cast<double>(data.size()) / compressed);
  if (python) {
    std::printf("  %-44s %9.0f MB/s\n", "python3-blosc compress, 1 thread",
                mb / Median(python_one_s));
    const std::string threads =
        "python3-blosc compress, " + std::to_string(python_threads) + " threads";
    std::printf("  %-44s %9.0f MB/s\n", threads.c_str(), mb / Median(python_default_s));
  }
  auto row = [&](const std::string& name, const std::vector<double>& seconds,
                 const std::vector<double>& peer, const char* peer_name) {
    std::printf("  %-44s %9.0f MB/s  %.2fx %s\n", name.c_str(), mb / Median(seconds),
                RoundRatio(peer, seconds), peer_name);
  };
  const char* one_name = python ? "python3-blosc, 1 thread" : "c-blosc";
  const char* best_name = python ? "python3-blosc, its faster setting" : "c-blosc";
  const std::string threads = std::to_string(cores);
  row("c-blosc compress, in process, 1 thread", peer_s, one_thread_peer, one_name);
  row("Carray append, FileStore, 1 thread", file_one_s, one_thread_peer, one_name);
  row("Carray append, FileStore, " + threads + " threads", file_s, best_peer, best_name);
  if (tmpfs_dir) {
    row("Carray append, FileStore on tmpfs, " + threads + " threads", tmpfs_s, best_peer,
        best_name);
  }
  row("Carray append, MemoryStore, " + threads + " threads", memory_s, best_peer, best_name);
  row("Carray append, no I/O (discard), " + threads + " threads", discard_s, best_peer, best_name);
  PrintAppendPeers(mb, file_s,
                   {{"bcolz " + bcolz_version, bcolz_s, bcolz_missing},
                    {"python-blosc2 " + blosc2_version, blosc2_s, blosc2_missing}});

  auto file_store = *store::FileStore::Open(dir / "run");
  auto carray = *Carray::Open(file_store, "", Mode::kRead);
  Bytes one(8), chunk_out(chunklen * 8);
  const Bytes first_file = **file_store->Get("data/__0.blp");
  const std::uint8_t* chunk = first_file.data() + kBlpHeaderSize;
  std::vector<double> ours, getitem, decompress;
  for (int r = 0; r < kRepeats; ++r) {
    ours.push_back(RandomLatency([&](std::int64_t i) { Check(carray->Read(i, i + 1, one)); },
                                 static_cast<std::int64_t>(kRows)));
    getitem.push_back(RandomLatency(
        [&](std::int64_t i) {
          blosc_getitem(chunk, static_cast<int>(i % chunklen), 1, one.data());
        },
        static_cast<std::int64_t>(kRows)));
    decompress.push_back(RandomLatency(
        [&](std::int64_t) { blosc_decompress_ctx(chunk, chunk_out.data(), chunk_out.size(), 1); },
        static_cast<std::int64_t>(kRows)));
  }
  std::printf("random access, one row of %zu chunks (median per read)\n", kRows / chunklen);
  std::printf("  %-34s %9.1f us\n", "c-blosc getitem, chunk in memory", Median(getitem) * 1e6);
  std::printf("  %-34s %9.1f us\n", "c-blosc whole-chunk decompress", Median(decompress) * 1e6);
  std::printf("  %-34s %9.1f us  %.2fx getitem, %.2fx decompress\n", "Carray::Read(i, i+1), files",
              Median(ours) * 1e6, Median(getitem) / Median(ours),
              Median(decompress) / Median(ours));
  std::filesystem::remove_all(dir);
  if (tmpfs_dir) std::filesystem::remove_all(tmpfs_dir->parent_path());
  return 0;
}

}  // namespace
}  // namespace chunkwise::formats::bcolz

int main(int argc, char** /*argv*/) {
  // It takes no flags: one given would otherwise be ignored without a word.
  if (argc > 1) chunkwise::bench::ExitWithUsage("bcolz_bench (no flags)");
  chunkwise::KeepFreedMemoryForReuse();  // As the CLI does.
  try {                                  // std::filesystem and allocation report by throwing.
    return chunkwise::formats::bcolz::Run();
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bcolz_bench: %s\n", error.what());
    return 1;
  }
}
