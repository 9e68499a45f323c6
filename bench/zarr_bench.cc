// Sharded zarr v3 write and read throughput, next to the raw codec on the same
// chunks and python3-zarr 2.13 on the same data, all in one run.
//
// The volume is uint16, smooth and noisy like a microscope's (default 1 GiB,
// 512×1024×1024), stored as shards of 256³ with inner chunks of 64³, once with
// zstd level 1 and once with blosc lz4 + shuffle. For each codec:
//   ours        Array::Write of the whole volume into a FileStore, and Array::ReadInto
//               back into a buffer the caller allocated once;
//   raw codec   the same codec encoding (decoding) the same 64³ chunks, held in
//               memory, on the same thread pool: the ceiling for ours (goal ≥ 0.8×);
//   zarr-python python3-zarr 2.13 writing and reading the same data as v2 with
//               64³ chunks and the same codec (goal: ours faster).
// Figures are medians over --runs runs, in GB/s of uncompressed data; ours and
// the raw codec run in alternation and ours/raw is the median per-round ratio.
//
// usage: zarr_bench [--size-mib N] [--runs N] [--dir DIR] [--no-python] [--python PATH]
//                   [--codec TEXT]...   (default: zstd:1, then blosc:lz4:5:shuffle)
#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench_common.h"
#include "chunkwise/codec/codec_chain.h"
#include "chunkwise/codec/codec_registry.h"
#include "chunkwise/codec/codec_shorthand.h"
#include "chunkwise/core/npy.h"
#include "chunkwise/core/ravel.h"
#include "chunkwise/core/thread_pool.h"
#include "chunkwise/formats/zarr/array.h"
#include "chunkwise/formats/zarr/array_layout.h"
#include "chunkwise/store/file_store.h"

namespace chunkwise {
namespace {

namespace fs = std::filesystem;
using bench::IntegerArg;
using bench::Median;
using bench::MicroscopyVolume;
using bench::Seconds;
using core::Index;
using core::Shape;

struct BenchOptions {
  Index size_mib = 1024;
  int runs = 5;
  fs::path dir = fs::temp_directory_path() / "chunkwise-zarr-bench";
  bool python = true;
  std::string python_path = "/usr/bin/python3";
  std::vector<std::string> codecs;  // Empty: both of the codecs.
};

struct Figures {
  double ours_write = 0, ours_read = 0, raw_encode = 0, raw_decode = 0;
  double python_write = 0, python_read = 0;  // 0 when not measured.
  double write_ratio = 0, read_ratio = 0;    // Medians of ours/raw per round.
};

void Check(const Status& status, const char* what) {
  if (status.ok()) return;
  std::fprintf(stderr, "zarr_bench: %s: %s\n", what, status.ToString().c_str());
  std::exit(1);
}

// Every 64³ chunk of the volume, copied out, as the array code would see them.
std::vector<Bytes> ExtractChunks(const Bytes& volume, const Shape& shape, Index chunk) {
  const Shape grid = {shape[0] / chunk, shape[1] / chunk, shape[2] / chunk};
  const Shape chunk_shape = {chunk, chunk, chunk};
  std::vector<Bytes> chunks(static_cast<std::size_t>(grid[0] * grid[1] * grid[2]));
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    const core::Coord c = core::Unravel(static_cast<Index>(i), grid);
    const core::Coord origin = {c[0] * chunk, c[1] * chunk, c[2] * chunk};
    const core::Coord zero = {0, 0, 0};
    chunks[i].resize(static_cast<std::size_t>(chunk * chunk * chunk) * 2);
    core::CopyStridedRegion({volume.data(), shape, origin}, {chunks[i].data(), chunk_shape, zero},
                            chunk_shape, 2);
  }
  return chunks;
}

// The raw codec on the chunks held in memory: the ceiling. Encoding and
// decoding write into one reused buffer per thread, so the peer pays for no
// allocation or first-touch page faults at all.
class RawCodec {
 public:
  RawCodec(const std::string& codec_text, const std::vector<Bytes>& chunks, core::ThreadPool& pool)
      : chunks_(chunks), pool_(pool) {
    Result<nlohmann::json> json = codec::ParseCodecShorthand(codec_text, 2);
    Check(json.status(), "codec");
    Result<codec::CodecChain> chain =
        codec::CodecChain::BytesOnly(*json, codec::CodecRegistry::WithBuiltins());
    Check(chain.status(), "codec chain");
    chain_ = std::make_unique<codec::CodecChain>(std::move(chain).value());
    encoded_.resize(chunks.size());
    Check(pool.ParallelFor(chunks.size(),
                           [&](std::size_t i) -> Status {
                             CHUNKWISE_ASSIGN_OR_RETURN(encoded_[i],
                                                        chain_->EncodeBytes(chunks[i]));
                             encoded_[i].shrink_to_fit();
                             return Status::Ok();
                           }),
          "raw encode");
  }

  double EncodeSeconds() {
    const codec::BytesToBytesCodec& compressor = *chain_->bytes_codecs().front();
    const std::size_t bound = 2 * chunks_[0].size();  // More than zstd or blosc ever need.
    return Seconds([&] {
      Check(pool_.ParallelFor(chunks_.size(),
                              [&](std::size_t i) -> Status {
                                thread_local Bytes out;
                                out.resize(bound);
                                return compressor.EncodeInto(chunks_[i], out).status();
                              }),
            "raw encode");
    });
  }

  double DecodeSeconds() {
    const codec::BytesToBytesCodec& compressor = *chain_->bytes_codecs().front();
    const std::size_t chunk_bytes = chunks_[0].size();
    return Seconds([&] {
      Check(pool_.ParallelFor(chunks_.size(),
                              [&](std::size_t i) -> Status {
                                thread_local Bytes out;
                                out.resize(chunk_bytes);
                                return compressor.DecodeInto(encoded_[i], out).status();
                              }),
            "raw decode");
    });
  }

 private:
  const std::vector<Bytes>& chunks_;
  core::ThreadPool& pool_;
  std::unique_ptr<codec::CodecChain> chain_;
  std::vector<Bytes> encoded_;
};

// Ours: Array::Write of the whole volume into a FileStore, Array::ReadInto back.
class OursArray {
 public:
  OursArray(const std::string& codec_text, const Bytes& volume, const Shape& shape,
            std::shared_ptr<core::ThreadPool> pool, const BenchOptions& options)
      : volume_(volume), shape_(shape), pool_(std::move(pool)), path_(options.dir / "ours") {
    formats::zarr::ArrayLayout layout;
    layout.shape = shape;
    layout.data_type = core::DataType(core::DataTypeId::kUInt16);
    layout.chunk_shape = {64, 64, 64};
    layout.shard_shape = Shape{256, 256, 256};
    layout.codec = codec_text;
    Result<formats::zarr::ArrayMetadata> metadata = formats::zarr::BuildArrayMetadata(layout);
    Check(metadata.status(), "metadata");
    metadata_ = *metadata;
    // The caller's buffer is allocated and touched once, as a reader that
    // streams regions into one buffer would; only decoding and copying are timed.
    back_.resize(volume.size());
    std::memset(back_.data(), 0, back_.size());
  }
  ~OursArray() { fs::remove_all(path_); }

  double WriteSeconds() {
    fs::remove_all(path_);
    auto store = store::FileStore::Open(path_);
    Check(store.status(), "store");
    auto array = formats::zarr::Array::Create(*store, "", metadata_, false, {.pool = pool_});
    Check(array.status(), "create");
    return Seconds([&] { Check(array->Write(core::Region::Full(shape_), volume_), "write"); });
  }

  double ReadSeconds() {
    auto store = store::FileStore::Open(path_);
    Check(store.status(), "store");
    auto array = formats::zarr::Array::Open(*store, "", {.pool = pool_});
    Check(array.status(), "open");
    const double seconds =
        Seconds([&] { Check(array->ReadInto(core::Region::Full(shape_), back_.data()), "read"); });
    if (back_ != volume_)
      Check(Status::Internal("read back differs from what was written"), "verify");
    return seconds;
  }

 private:
  const Bytes& volume_;
  const Shape shape_;
  std::shared_ptr<core::ThreadPool> pool_;
  fs::path path_;
  formats::zarr::ArrayMetadata metadata_;
  Bytes back_;
};

// Runs ours and the raw codec in alternation, so that both see the same load
// on this shared machine; the ratio is the median of the per-round ratios.
void MeasureOursAndRaw(const std::string& codec_text, const Bytes& volume, const Shape& shape,
                       const std::vector<Bytes>& chunks,
                       const std::shared_ptr<core::ThreadPool>& pool, const BenchOptions& options,
                       Figures& figures) {
  RawCodec raw(codec_text, chunks, *pool);
  OursArray ours(codec_text, volume, shape, pool, options);
  std::vector<double> write_s, read_s, encode_s, decode_s, write_ratio, read_ratio;
  for (int run = 0; run < options.runs; ++run) {
    encode_s.push_back(raw.EncodeSeconds());
    write_s.push_back(ours.WriteSeconds());
    decode_s.push_back(raw.DecodeSeconds());
    read_s.push_back(ours.ReadSeconds());
    write_ratio.push_back(encode_s.back() / write_s.back());
    read_ratio.push_back(decode_s.back() / read_s.back());
  }
  const double bytes = static_cast<double>(volume.size());
  figures.ours_write = bytes / Median(write_s) / 1e9;
  figures.ours_read = bytes / Median(read_s) / 1e9;
  figures.raw_encode = bytes / Median(encode_s) / 1e9;
  figures.raw_decode = bytes / Median(decode_s) / 1e9;
  figures.write_ratio = Median(write_ratio);
  figures.read_ratio = Median(read_ratio);
}

// Runs bench/zarr_python_peer.py; leaves the figures at 0 if it cannot.
void MeasurePython(const std::string& codec_text, const fs::path& volume_npy,
                   const BenchOptions& options, Figures& figures) {
  const fs::path script = fs::path(CHUNKWISE_SOURCE_DIR) / "bench" / "zarr_python_peer.py";
  const std::string command = options.python_path + " " + script.string() + " " +
                              volume_npy.string() + " " + (options.dir / "python").string() + " " +
                              codec_text + " " + std::to_string(options.runs);
  const std::optional<nlohmann::json> result = bench::RunJsonPeer(command, "zarr_bench");
  if (!result) return;
  try {  // nlohmann::json reports a missing or mistyped field by throwing.
    const double bytes = result->at("bytes").get<double>();
    figures.python_write =
        bytes / Median(result->at("write_seconds").get<std::vector<double>>()) / 1e9;
    figures.python_read =
        bytes / Median(result->at("read_seconds").get<std::vector<double>>()) / 1e9;
  } catch (const nlohmann::json::exception& error) {
    std::fprintf(stderr, "zarr_bench: the zarr-python peer printed %s: %s\n",
                 result->dump().c_str(), error.what());
  }
}

void PrintRow(const char* codec, const char* op, double ours, double raw, double raw_ratio,
              double python) {
  std::printf("%-22s %-6s %8.3f %10.3f %8.2fx %-4s", codec, op, ours, raw, raw_ratio,
              raw_ratio >= 0.8 ? "ok" : "LOW");
  if (python > 0) {
    std::printf(" %11.3f %8.2fx %s\n", python, ours / python, ours > python ? "ok" : "SLOWER");
  } else {
    std::printf(" %11s\n", "-");
  }
}

BenchOptions ParseOptions(int argc, char** argv) {
  BenchOptions options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--size-mib" && has_value) {
      options.size_mib = IntegerArg("--size-mib", argv[++i], 1, 1 << 20);
    } else if (arg == "--runs" && has_value) {
      options.runs = static_cast<int>(IntegerArg("--runs", argv[++i], 1, INT_MAX));
    } else if (arg == "--dir" && has_value) {
      options.dir = argv[++i];
    } else if (arg == "--python" && has_value) {
      options.python_path = argv[++i];
    } else if (arg == "--codec" && has_value) {
      options.codecs.emplace_back(argv[++i]);
    } else if (arg == "--no-python") {
      options.python = false;
    } else {
      std::fprintf(stderr,
                   "usage: zarr_bench [--size-mib N] [--runs N] [--dir DIR] "
                   "[--no-python] [--python PATH] [--codec TEXT]...\n");
      std::exit(2);
    }
  }
  return options;
}

int Main(int argc, char** argv) {
  const BenchOptions options = ParseOptions(argc, argv);
  // 1 GiB = 512 × 1024 × 1024 uint16; other sizes scale dim 0 in steps of 256.
  const Index depth = std::max<Index>(256, options.size_mib / 1024 * 512 / 256 * 256);
  const Shape shape = {depth, 1024, 1024};
  fs::create_directories(options.dir);
  const Bytes volume = MicroscopyVolume(shape);
  const std::vector<Bytes> chunks = ExtractChunks(volume, shape, 64);
  auto pool = std::make_shared<core::ThreadPool>();
  const fs::path volume_npy = options.dir / "volume.npy";
  if (options.python) {
    core::NpyArray npy{core::NpyDtype::FromDataType(core::DataType(core::DataTypeId::kUInt16),
                                                    core::Endian::kLittle),
                       shape, false, volume};
    Check(core::WriteNpy(volume_npy, npy), "write volume.npy");
  }
  std::printf(
      "zarr bench: %.2f GiB uint16 [%lld,1024,1024], shards 256^3, chunks 64^3, %zu threads, "
      "medians of %d runs, GB/s of uncompressed data\n",
      static_cast<double>(volume.size()) / (1 << 30), static_cast<long long>(depth),
      pool->num_threads(), options.runs);
  std::printf("%-22s %-6s %8s %10s %9s %-4s %11s %9s\n", "codec", "op", "ours", "raw codec",
              "ours/raw", "", "zarr-python", "ours/zp");
  std::vector<std::string> codecs = options.codecs;
  if (codecs.empty()) codecs = {"zstd:1", "blosc:lz4:5:shuffle"};
  for (const std::string& codec : codecs) {
    Figures figures;
    MeasureOursAndRaw(codec, volume, shape, chunks, pool, options, figures);
    if (options.python) MeasurePython(codec, volume_npy, options, figures);
    PrintRow(codec.c_str(), "write", figures.ours_write, figures.raw_encode, figures.write_ratio,
             figures.python_write);
    PrintRow(codec.c_str(), "read", figures.ours_read, figures.raw_decode, figures.read_ratio,
             figures.python_read);
    std::fflush(stdout);
  }
  fs::remove(volume_npy);
  return 0;
}

}  // namespace
}  // namespace chunkwise

int main(int argc, char** argv) {
  chunkwise::KeepFreedMemoryForReuse();  // As the CLI does; the raw codec runs under it too.
  try {                                  // std::filesystem and allocation report by throwing.
    return chunkwise::Main(argc, argv);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "zarr_bench: %s\n", error.what());
    return 1;
  }
}
