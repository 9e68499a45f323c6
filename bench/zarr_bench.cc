// Sharded zarr v3 write and read throughput, next to the raw codec on the same
// chunks and to python3-zarr 2.13 (and, where installed, TensorStore) on the
// same data, all in one run.
//
// The volume is uint16, smooth and noisy like a microscope's (default 1 GiB,
// 512×1024×1024), stored as shards of 256³ with inner chunks of 64³, once with
// zstd level 1 and once with blosc lz4 + shuffle. For each codec:
//   ours        Array::Write of the whole volume into a FileStore, and Array::ReadInto
//               back into a buffer the caller allocated once;
//   raw codec   the same codec encoding (decoding) the same 64³ chunks, held in
//               memory, into one reused buffer per thread, on the same thread
//               pool: the ceiling for ours (goal ≥ 0.8×);
//   zarr-python python3-zarr 2.13 writing and reading the same data as v2 with
//               64³ chunks and the same codec (goal: ours faster);
//   tensorstore with --tensorstore: TensorStore writing and reading the same
//               layout (zarr v3, same shards, chunks and codec) into files.
// Figures are medians over --runs runs, in GB/s of uncompressed data; ours and
// the raw codec run in alternation and ours/raw is the median per-round ratio.
//
// A second table splits ours into steps, each adding work to the one before:
// the raw codec; + moving each chunk between the volume and the codec
// (any chunked array must; blosc lz4 decodes straight into the volume, as
// ours does); + shards encoded but not stored (writes) or read
// from memory (reads); + files, which is ours. It shows where ours loses to
// the raw codec: in this layer, or in memory and kernel work the layer must do.
//
// A third table sets ours beside the least any writer or reader of shard files
// must do, with no array layer: the raw codec encoding each shard's chunks,
// gathered out of the volume, one after another and writing them as one file
// through a temporary name; reading each chunk back with one pread and
// decoding it into its place in the caller's buffer. least/raw is what the
// volume and the files cost on this machine whoever writes them; ours/least
// what our array layer costs beyond that.
//
// A fourth table times reads of single z planes (1 × 1024 × 1024, one in each
// 64-deep layer of chunks) from the files, in ms per plane: ours; the raw
// codec decoding every chunk the planes cut (what a reader that decodes whole
// chunks must do); python3-zarr reading the same planes from its array.
//
// usage: zarr_bench [--size-mib N] [--runs N] [--threads N] [--dir DIR] [--no-python]
//                   [--python PATH] [--tensorstore] [--scripts DIR] [--codec TEXT]...
//                   (default codecs: zstd:1, then blosc:lz4:5:shuffle)
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
#include "chunkwise/core/file_io.h"
#include "chunkwise/core/npy.h"
#include "chunkwise/core/ravel.h"
#include "chunkwise/core/thread_pool.h"
#include "chunkwise/formats/zarr/array.h"
#include "chunkwise/formats/zarr/array_layout.h"
#include "chunkwise/io/file.h"
#include "chunkwise/io/npy_file.h"
#include "chunkwise/store/file_store.h"
#include "chunkwise/store/memory_store.h"
#include "core/posix_file.h"
#include "discard_store.h"

namespace chunkwise {
namespace {

namespace fs = std::filesystem;
using bench::DiscardStore;
using bench::IntegerArg;
using bench::Median;
using bench::MicroscopyVolume;
using bench::Seconds;
using core::Index;
using core::Shape;

constexpr Index kChunk = 64;
constexpr Index kShard = 256;
constexpr Index kPlaneInLayer = 21;  // Which plane of each layer of chunks the plane reads take.
constexpr const char* kUsage =
    "zarr_bench [--size-mib N] [--runs N] [--threads N] [--dir DIR] [--no-python] "
    "[--python PATH] [--tensorstore] [--scripts DIR] [--codec TEXT]...";

struct BenchOptions {
  Index size_mib = 1024;
  int runs = 5;
  std::size_t threads = 0;  // 0: one per core.
  fs::path dir = fs::temp_directory_path() / "chunkwise-zarr-bench";
  bool python = true;
  bool tensorstore = false;
  std::string python_path = "/usr/bin/python3";
  fs::path scripts = fs::path(CHUNKWISE_SOURCE_DIR) / "bench";  // Where the peers' scripts are.
  std::vector<std::string> codecs;  // Empty: both of the codecs.
};

// GB/s of one operation, each 0 when not measured.
struct Throughput {
  double write = 0, read = 0;
};

// Milliseconds per plane read, each 0 when not measured.
struct PlaneFigures {
  double ours = 0, raw = 0, python = 0;
};

struct Figures {
  Throughput ours, raw, python, tensorstore;
  PlaneFigures plane;
  Throughput moved;     // The raw codec plus each chunk's gather (scatter).
  Throughput unstored;  // Ours with shards encoded but not stored; read from memory.
  Throughput least;     // The least a writer (reader) of the files does: no array layer.
  Throughput ratio;     // Medians of ours/raw per round.
  Throughput least_to_raw, ours_to_least;  // Medians per round.
};

void Check(const Status& status, const char* what) {
  if (status.ok()) return;
  std::fprintf(stderr, "zarr_bench: %s: %s\n", what, status.ToString().c_str());
  std::exit(1);
}

// Where chunk `i` (C order over the chunk grid) starts in the volume.
core::Coord ChunkOrigin(std::size_t i, const Shape& shape) {
  const Shape grid = {shape[0] / kChunk, shape[1] / kChunk, shape[2] / kChunk};
  const core::Coord c = core::Unravel(static_cast<Index>(i), grid);
  return {c[0] * kChunk, c[1] * kChunk, c[2] * kChunk};
}

std::size_t ChunkCount(const Shape& shape) {
  return static_cast<std::size_t>(shape[0] * shape[1] * shape[2] / (kChunk * kChunk * kChunk));
}

const Shape kChunkShape = {kChunk, kChunk, kChunk};
const core::Coord kZero = {0, 0, 0};
const codec::ChunkSpec kChunkSpec{core::DataType(core::DataTypeId::kUInt16), kChunkShape};
const core::Region kWholeChunk = core::Region::Full(kChunkShape);

// Copies chunk `i` out of `volume` (of `shape`) into `chunk`, resized to fit.
void GatherChunk(const std::uint8_t* volume, const Shape& shape, std::size_t i, Bytes& chunk) {
  chunk.resize(static_cast<std::size_t>(kChunk * kChunk * kChunk) * 2);
  core::CopyStridedRegion({volume, shape, ChunkOrigin(i, shape)},
                          {chunk.data(), kChunkShape, kZero}, kChunkShape, 2);
}

// Every 64³ chunk of the volume, copied out, as the array code would see them.
std::vector<Bytes> ExtractChunks(const Bytes& volume, const Shape& shape) {
  std::vector<Bytes> chunks(ChunkCount(shape));
  for (std::size_t i = 0; i < chunks.size(); ++i) GatherChunk(volume.data(), shape, i, chunks[i]);
  return chunks;
}

// The raw codec on the chunks held in memory: the ceiling. Encoding and
// decoding write into one reused buffer per thread, so the peer pays for no
// allocation or first-touch page faults at all. The "moved" variants add what
// any chunked array must do besides: gather each chunk out of the volume
// before encoding it, put it into the caller's buffer when decoding (straight
// there where the codec can, else through the reused buffer).
class RawCodec {
 public:
  RawCodec(const std::string& codec_text, const std::vector<Bytes>& chunks, const Shape& shape,
           core::ThreadPool& pool)
      : chunks_(chunks), pool_(pool), shard_chunks_(ChunksByShard(shape)), offsets_(chunks.size()) {
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

  double EncodeSeconds() { return EncodeSeconds(nullptr, {}); }
  double DecodeSeconds() { return DecodeSeconds(nullptr, {}); }

  // With `volume` (of `shape`), each chunk is first gathered out of it.
  double EncodeSeconds(const std::uint8_t* volume, const Shape& shape) {
    return Seconds([&] {
      Check(pool_.ParallelFor(chunks_.size(),
                              [&](std::size_t i) { return EncodeChunk(i, volume, shape); }),
            "raw encode");
    });
  }

  // With `volume` (of `shape`), each chunk is decoded into its place there.
  double DecodeSeconds(std::uint8_t* volume, const Shape& shape) {
    return Seconds([&] {
      Check(pool_.ParallelFor(chunks_.size(),
                              [&](std::size_t i) { return DecodeChunk(i, volume, shape); }),
            "raw decode");
    });
  }

  // The least a writer of shard files must do: each shard's chunks gathered
  // out of `volume` and encoded one after another into one buffer, written as
  // one file through a temporary name (io::WriteFile), shards in
  // parallel. No index, no array layer.
  double WriteFilesSeconds(const fs::path& dir, const std::uint8_t* volume, const Shape& shape) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    return Seconds([&] {
      Check(pool_.ParallelFor(shard_chunks_.size(),
                              [&](std::size_t s) { return WriteShardFile(dir, s, volume, shape); }),
            "raw codec + files: write");
    });
  }

  // The least a reader of files must do: each chunk read from those files
  // with one pread and decoded into its place in `volume`, shards in parallel.
  double ReadFilesSeconds(const fs::path& dir, std::uint8_t* volume, const Shape& shape) {
    return Seconds([&] {
      Check(pool_.ParallelFor(shard_chunks_.size(),
                              [&](std::size_t s) { return ReadShardFile(dir, s, volume, shape); }),
            "raw codec + files: read");
    });
  }

 private:
  const codec::BytesToBytesCodec& compressor() const { return *chain_->bytes_codecs().front(); }

  Status EncodeChunk(std::size_t i, const std::uint8_t* volume, const Shape& shape) const {
    thread_local Bytes gathered, out;
    out.resize(2 * chunks_[i].size());  // More than zstd or blosc ever need.
    if (volume == nullptr) return compressor().EncodeInto(chunks_[i], out).status();
    GatherChunk(volume, shape, i, gathered);
    return compressor().EncodeInto(gathered, out).status();
  }

  Status DecodeChunk(std::size_t i, std::uint8_t* volume, const Shape& shape) const {
    return DecodeChunk(encoded_[i], i, volume, shape);
  }

  Status DecodeChunk(ByteView encoded, std::size_t i, std::uint8_t* volume,
                     const Shape& shape) const {
    thread_local Bytes out;
    out.resize(chunks_[i].size());
    if (volume == nullptr) return compressor().DecodeInto(encoded, out).status();
    // Streamed, as ours writes a volume this large; straight into its place
    // where the codec can (blosc lz4), as ours does.
    const core::Coord origin = ChunkOrigin(i, shape);
    const core::StridedDestination target{volume, shape, origin, true};
    CHUNKWISE_ASSIGN_OR_RETURN(
        const bool placed, compressor().DecodeIntoRegion(encoded, kChunkSpec, kWholeChunk, target));
    if (placed) return Status::Ok();
    CHUNKWISE_RETURN_IF_ERROR(compressor().DecodeInto(encoded, out).status());
    core::CopyStridedRegion({out.data(), kChunkShape, kZero}, target, kChunkShape, 2);
    return Status::Ok();
  }

  Status WriteShardFile(const fs::path& dir, std::size_t shard, const std::uint8_t* volume,
                        const Shape& shape) {
    thread_local Bytes gathered, encoded;
    encoded.resize(shard_chunks_[shard].size() * 2 * chunks_.front().size());
    std::size_t size = 0;
    for (const std::size_t i : shard_chunks_[shard]) {
      GatherChunk(volume, shape, i, gathered);
      CHUNKWISE_ASSIGN_OR_RETURN(
          const std::size_t written,
          compressor().EncodeInto(gathered, MutableByteView(encoded).subspan(size)));
      offsets_[i] = {size, written};
      size += written;
    }
    return io::WriteFile(dir / std::to_string(shard), ByteView(encoded.data(), size));
  }

  Status ReadShardFile(const fs::path& dir, std::size_t shard, std::uint8_t* volume,
                       const Shape& shape) const {
    const fs::path path = dir / std::to_string(shard);
    CHUNKWISE_ASSIGN_OR_RETURN(const core::posix::OpenedFile file,
                               core::posix::OpenRegularFile(path));
    thread_local Bytes encoded;
    for (const std::size_t i : shard_chunks_[shard]) {
      const auto [offset, size] = offsets_[i];
      encoded.resize(size);
      CHUNKWISE_RETURN_IF_ERROR(core::posix::ReadAt(file.fd.get(), offset, encoded, path));
      CHUNKWISE_RETURN_IF_ERROR(DecodeChunk(encoded, i, volume, shape));
    }
    return Status::Ok();
  }

  // The chunks of each 256³ shard, as indexes into `chunks_`.
  static std::vector<std::vector<std::size_t>> ChunksByShard(const Shape& shape) {
    const Shape shard_grid = {shape[0] / kShard, shape[1] / kShard, shape[2] / kShard};
    std::vector<std::vector<std::size_t>> shards(
        static_cast<std::size_t>(shard_grid[0] * shard_grid[1] * shard_grid[2]));
    for (std::size_t i = 0; i < ChunkCount(shape); ++i) {
      const core::Coord origin = ChunkOrigin(i, shape);
      const core::Coord shard = {origin[0] / kShard, origin[1] / kShard, origin[2] / kShard};
      shards[static_cast<std::size_t>(core::Ravel(shard, shard_grid))].push_back(i);
    }
    return shards;
  }

  const std::vector<Bytes>& chunks_;
  core::ThreadPool& pool_;
  std::unique_ptr<codec::CodecChain> chain_;
  std::vector<Bytes> encoded_;
  const std::vector<std::vector<std::size_t>> shard_chunks_;
  std::vector<std::pair<std::size_t, std::size_t>> offsets_;  // In its shard's file: at, size.
};

// Ours: Array::Write of the whole volume, Array::ReadInto back: into and from
// a FileStore, and, for the steps, a DiscardStore and a MemoryStore.
class OursArray {
 public:
  OursArray(const std::string& codec_text, const Bytes& volume, const Shape& shape,
            std::shared_ptr<core::ThreadPool> pool, const BenchOptions& options)
      : volume_(volume), shape_(shape), pool_(std::move(pool)), path_(options.dir / "ours") {
    formats::zarr::ArrayLayout layout;
    layout.shape = shape;
    layout.data_type = core::DataType(core::DataTypeId::kUInt16);
    layout.chunk_shape = kChunkShape;
    layout.shard_shape = Shape{256, 256, 256};
    layout.codec = codec_text;
    Result<formats::zarr::ArrayMetadata> metadata = formats::zarr::BuildArrayMetadata(layout);
    Check(metadata.status(), "metadata");
    metadata_ = *metadata;
    // The caller's buffer is allocated and touched once, as a reader that
    // streams regions into one buffer would; only decoding and copying are timed.
    back_.resize(volume.size());
    std::memset(back_.data(), 0, back_.size());
    WriteSeconds(memory_);  // Untimed: the array the read-from-memory step reads.
  }
  ~OursArray() { fs::remove_all(path_); }

  double WriteSeconds() {
    fs::remove_all(path_);
    auto store = store::FileStore::Open(path_);
    Check(store.status(), "store");
    return WriteSeconds(*store);
  }
  double WriteUnstoredSeconds() { return WriteSeconds(std::make_shared<DiscardStore>()); }

  double ReadSeconds() {
    auto store = store::FileStore::Open(path_);
    Check(store.status(), "store");
    return ReadSeconds(*store);
  }
  double ReadFromMemorySeconds() { return ReadSeconds(memory_); }

  // Reads one z plane in each 64-deep layer of chunks from the files.
  double PlaneSeconds() {
    auto store = store::FileStore::Open(path_);
    Check(store.status(), "store");
    auto array = formats::zarr::Array::Open(*store, "", {.pool = pool_});
    Check(array.status(), "open");
    const std::size_t plane_bytes = volume_.size() / static_cast<std::size_t>(shape_[0]);
    Bytes plane(plane_bytes);
    double seconds = 0;
    for (Index z = kPlaneInLayer; z < shape_[0]; z += kChunk) {
      const core::Region region({z, 0, 0}, {z + 1, shape_[1], shape_[2]});
      seconds += Seconds([&] { Check(array->ReadInto(region, plane.data()), "plane read"); });
      if (std::memcmp(plane.data(), volume_.data() + static_cast<std::size_t>(z) * plane_bytes,
                      plane_bytes) != 0)
        Check(Status::Internal("plane " + std::to_string(z) + " differs"), "verify");
    }
    return seconds;
  }

  // The caller's buffer, which the raw codec's reads fill too.
  std::uint8_t* back() { return back_.data(); }
  void ClearBack() { std::memset(back_.data(), 0, back_.size()); }
  void VerifyBack(const std::string& reader) const {
    if (back_ != volume_) Check(Status::Internal(reader + " read back other values"), "verify");
  }

 private:
  double WriteSeconds(std::shared_ptr<store::Store> store) {
    auto array =
        formats::zarr::Array::Create(std::move(store), "", metadata_, true, {.pool = pool_});
    Check(array.status(), "create");
    return Seconds([&] { Check(array->Write(core::Region::Full(shape_), volume_), "write"); });
  }

  double ReadSeconds(std::shared_ptr<store::Store> store) {
    auto array = formats::zarr::Array::Open(std::move(store), "", {.pool = pool_});
    Check(array.status(), "open");
    const double seconds =
        Seconds([&] { Check(array->ReadInto(core::Region::Full(shape_), back_.data()), "read"); });
    VerifyBack("ours");
    return seconds;
  }

  const Bytes& volume_;
  const Shape shape_;
  std::shared_ptr<core::ThreadPool> pool_;
  fs::path path_;
  std::shared_ptr<store::MemoryStore> memory_ = store::MemoryStore::Create();
  formats::zarr::ArrayMetadata metadata_;
  Bytes back_;
};

double GigabytesPerSecond(double bytes, const std::vector<double>& seconds) {
  return bytes / Median(seconds) / 1e9;
}

Throughput MedianRatios(const std::vector<Throughput>& rounds) {
  std::vector<double> write, read;
  for (const Throughput& round : rounds) {
    write.push_back(round.write);
    read.push_back(round.read);
  }
  return {Median(write), Median(read)};
}

// Runs ours, its steps and the raw codec in alternation, so that all see the
// same load on this shared machine; the ratio is the median of the per-round
// ratios.
void MeasureOursAndRaw(const std::string& codec_text, const Bytes& volume, const Shape& shape,
                       const std::vector<Bytes>& chunks,
                       const std::shared_ptr<core::ThreadPool>& pool, const BenchOptions& options,
                       Figures& figures) {
  RawCodec raw(codec_text, chunks, shape, *pool);
  OursArray ours(codec_text, volume, shape, pool, options);
  const fs::path least_dir = options.dir / "raw-codec-files";
  std::vector<double> write_s, read_s, encode_s, decode_s, gather_s, scatter_s;
  std::vector<double> unstored_s, memory_s, plane_s, least_write_s, least_read_s;
  std::vector<Throughput> ours_to_raw, least_to_raw, ours_to_least;  // Per round.
  for (int run = 0; run < options.runs; ++run) {
    encode_s.push_back(raw.EncodeSeconds());
    write_s.push_back(ours.WriteSeconds());
    least_write_s.push_back(raw.WriteFilesSeconds(least_dir, volume.data(), shape));
    gather_s.push_back(raw.EncodeSeconds(volume.data(), shape));
    unstored_s.push_back(ours.WriteUnstoredSeconds());
    decode_s.push_back(raw.DecodeSeconds());
    read_s.push_back(ours.ReadSeconds());
    ours.ClearBack();
    least_read_s.push_back(raw.ReadFilesSeconds(least_dir, ours.back(), shape));
    ours.VerifyBack("the raw codec + files");
    scatter_s.push_back(raw.DecodeSeconds(ours.back(), shape));
    memory_s.push_back(ours.ReadFromMemorySeconds());
    plane_s.push_back(ours.PlaneSeconds());
    // Throughput ratios, so each is the other's time over this one's.
    ours_to_raw.push_back({encode_s.back() / write_s.back(), decode_s.back() / read_s.back()});
    least_to_raw.push_back(
        {encode_s.back() / least_write_s.back(), decode_s.back() / least_read_s.back()});
    ours_to_least.push_back(
        {least_write_s.back() / write_s.back(), least_read_s.back() / read_s.back()});
  }
  fs::remove_all(least_dir);
  const auto bytes = static_cast<double>(volume.size());
  figures.ours = {GigabytesPerSecond(bytes, write_s), GigabytesPerSecond(bytes, read_s)};
  figures.raw = {GigabytesPerSecond(bytes, encode_s), GigabytesPerSecond(bytes, decode_s)};
  figures.moved = {GigabytesPerSecond(bytes, gather_s), GigabytesPerSecond(bytes, scatter_s)};
  figures.unstored = {GigabytesPerSecond(bytes, unstored_s), GigabytesPerSecond(bytes, memory_s)};
  figures.least = {GigabytesPerSecond(bytes, least_write_s),
                   GigabytesPerSecond(bytes, least_read_s)};
  figures.ratio = MedianRatios(ours_to_raw);
  figures.least_to_raw = MedianRatios(least_to_raw);
  figures.ours_to_least = MedianRatios(ours_to_least);
  // One plane per layer of chunks: the planes cut every chunk once.
  const Index layers = shape[0] / kChunk;
  figures.plane.ours = Median(plane_s) / static_cast<double>(layers) * 1e3;
  figures.plane.raw = Median(decode_s) / static_cast<double>(layers) * 1e3;
}

// What a peer script measured: throughput, and ms per plane read (0 when the
// peer does not read planes).
struct PeerFigures {
  Throughput throughput;
  double plane_ms = 0;
};

// Runs a peer script that prints {"write_seconds", "read_seconds", "bytes"}
// and optionally "plane_seconds" (the plane reads of one run, in total) and
// "planes"; zeros if it cannot run.
PeerFigures MeasurePeer(const std::string& script, const std::string& arguments,
                        const BenchOptions& options) {
  const std::string command =
      options.python_path + " " + (options.scripts / script).string() + " " + arguments;
  const std::optional<nlohmann::json> result = bench::RunJsonPeer(command, "zarr_bench");
  if (!result) return {};
  try {  // nlohmann::json reports a missing or mistyped field by throwing.
    const double bytes = result->at("bytes").get<double>();
    PeerFigures figures;
    figures.throughput = {
        GigabytesPerSecond(bytes, result->at("write_seconds").get<std::vector<double>>()),
        GigabytesPerSecond(bytes, result->at("read_seconds").get<std::vector<double>>())};
    if (result->contains("plane_seconds")) {
      figures.plane_ms = Median(result->at("plane_seconds").get<std::vector<double>>()) /
                         result->at("planes").get<double>() * 1e3;
    }
    return figures;
  } catch (const nlohmann::json::exception& error) {
    std::fprintf(stderr, "zarr_bench: the peer %s printed %s: %s\n", script.c_str(),
                 result->dump().c_str(), error.what());
    return {};
  }
}

// "  1.234    5.67x ok" for ours against a peer, or a dash when it did not run.
std::string AgainstPeer(double ours, double peer, bool shown) {
  if (!shown) return "";
  char text[64];
  if (peer > 0) {
    std::snprintf(text, sizeof(text), " %11.3f %8.2fx %-6s", peer, ours / peer,
                  ours > peer ? "ok" : "SLOWER");
  } else {
    std::snprintf(text, sizeof(text), " %11s %9s %-6s", "-", "", "");
  }
  return text;
}

void PrintRow(const std::string& codec, const char* op, double ours, double raw, double ratio,
              double python, double tensorstore, const BenchOptions& options) {
  std::printf("%-22s %-6s %8.3f %10.3f %8.2fx %-4s%s%s\n", codec.c_str(), op, ours, raw, ratio,
              ratio >= 0.8 ? "ok" : "LOW", AgainstPeer(ours, python, true).c_str(),
              AgainstPeer(ours, tensorstore, options.tensorstore).c_str());
}

void PrintFigures(const std::string& codec, const Figures& figures, const BenchOptions& options) {
  PrintRow(codec, "write", figures.ours.write, figures.raw.write, figures.ratio.write,
           figures.python.write, figures.tensorstore.write, options);
  PrintRow(codec, "read", figures.ours.read, figures.raw.read, figures.ratio.read,
           figures.python.read, figures.tensorstore.read, options);
}

void PrintSteps(const std::string& codec, const Figures& figures) {
  std::printf("%-22s %-6s %10.3f %16.3f %19.3f %12.3f\n", codec.c_str(), "write", figures.raw.write,
              figures.moved.write, figures.unstored.write, figures.ours.write);
  std::printf("%-22s %-6s %10.3f %16.3f %19.3f %12.3f\n", codec.c_str(), "read", figures.raw.read,
              figures.moved.read, figures.unstored.read, figures.ours.read);
}

void PrintLeast(const std::string& codec, const Figures& figures) {
  const auto row = [&](const char* op, double raw, double least, double least_to_raw, double ours,
                       double ours_to_least) {
    std::printf("%-22s %-6s %10.3f %10.3f %10.2fx %8.3f %11.2fx\n", codec.c_str(), op, raw, least,
                least_to_raw, ours, ours_to_least);
  };
  row("write", figures.raw.write, figures.least.write, figures.least_to_raw.write,
      figures.ours.write, figures.ours_to_least.write);
  row("read", figures.raw.read, figures.least.read, figures.least_to_raw.read, figures.ours.read,
      figures.ours_to_least.read);
}

// Times, so each ratio is how many times faster ours is.
void PrintPlanes(const std::string& codec, const PlaneFigures& plane) {
  char python[48] = "          -          ";
  if (plane.python > 0) {
    std::snprintf(python, sizeof(python), "%11.2f %8.2fx", plane.python, plane.python / plane.ours);
  }
  std::printf("%-22s %8.2f %22.2f %8.2fx %s\n", codec.c_str(), plane.ours, plane.raw,
              plane.raw / plane.ours, python);
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
    } else if (arg == "--threads" && has_value) {
      options.threads = static_cast<std::size_t>(IntegerArg("--threads", argv[++i], 1, 1024));
    } else if (arg == "--dir" && has_value) {
      options.dir = argv[++i];
    } else if (arg == "--python" && has_value) {
      options.python_path = argv[++i];
    } else if (arg == "--scripts" && has_value) {
      options.scripts = argv[++i];
    } else if (arg == "--codec" && has_value) {
      options.codecs.emplace_back(argv[++i]);
    } else if (arg == "--no-python") {
      options.python = false;
    } else if (arg == "--tensorstore") {
      options.tensorstore = true;
    } else {
      bench::ExitWithUsage(kUsage);
    }
  }
  return options;
}

void PrintHeader(const Bytes& volume, Index depth, std::size_t threads,
                 const BenchOptions& options) {
  std::printf(
      "zarr bench: %.2f GiB uint16 [%lld,1024,1024], shards 256^3, chunks 64^3, %zu threads, "
      "medians of %d runs, GB/s of uncompressed data\n",
      static_cast<double>(volume.size()) / (1 << 30), static_cast<long long>(depth), threads,
      options.runs);
  std::printf("%-22s %-6s %8s %10s %9s %-4s %11s %9s %-6s%s\n", "codec", "op", "ours", "raw codec",
              "ours/raw", "", "zarr-python", "ours/zp", "",
              options.tensorstore ? "  tensorstore   ours/ts" : "");
}

int Main(int argc, char** argv) {
  const BenchOptions options = ParseOptions(argc, argv);
  // 1 GiB = 512 × 1024 × 1024 uint16; other sizes scale dim 0 in steps of 256.
  const Index depth = std::max<Index>(256, options.size_mib / 1024 * 512 / 256 * 256);
  const Shape shape = {depth, 1024, 1024};
  fs::create_directories(options.dir);
  const Bytes volume = MicroscopyVolume(shape);
  const std::vector<Bytes> chunks = ExtractChunks(volume, shape);
  auto pool = std::make_shared<core::ThreadPool>(options.threads);
  const fs::path volume_npy = options.dir / "volume.npy";
  if (options.python || options.tensorstore) {
    core::NpyArray npy{core::NpyDtype::FromDataType(core::DataType(core::DataTypeId::kUInt16),
                                                    core::Endian::kLittle),
                       shape, false, volume};
    Check(io::WriteNpy(volume_npy, npy), "write volume.npy");
  }
  PrintHeader(volume, depth, pool->num_threads(), options);
  std::vector<std::string> codecs = options.codecs;
  if (codecs.empty()) codecs = {"zstd:1", "blosc:lz4:5:shuffle"};
  std::vector<Figures> all;
  for (const std::string& codec : codecs) {
    Figures figures;
    MeasureOursAndRaw(codec, volume, shape, chunks, pool, options, figures);
    const std::string common = volume_npy.string() + " " + (options.dir / "peer").string() + " " +
                               codec + " " + std::to_string(options.runs);
    if (options.python) {
      const PeerFigures python = MeasurePeer("zarr_python_peer.py", common, options);
      figures.python = python.throughput;
      figures.plane.python = python.plane_ms;
    }
    if (options.tensorstore) {
      figures.tensorstore = MeasurePeer("tensorstore_zarr_peer.py",
                                        common + " " + std::to_string(pool->num_threads()), options)
                                .throughput;
    }
    PrintFigures(codec, figures, options);
    std::fflush(stdout);
    all.push_back(figures);
  }
  std::printf("\nsteps from the raw codec to ours, GB/s (each adds work to the one before):\n");
  std::printf("%-22s %-6s %10s %16s %19s %12s\n", "codec", "op", "raw codec", "+gather/scatter",
              "+unstored/memory", "+files: ours");
  for (std::size_t i = 0; i < codecs.size(); ++i) PrintSteps(codecs[i], all[i]);
  std::printf(
      "\nthe least a writer (reader) of these shard files does, with no array layer: the raw\n"
      "codec, each chunk gathered out of (decoded into its place in) the volume, one file per\n"
      "shard; GB/s:\n");
  std::printf("%-22s %-6s %10s %10s %11s %8s %12s\n", "codec", "op", "raw codec", "least",
              "least/raw", "ours", "ours/least");
  for (std::size_t i = 0; i < codecs.size(); ++i) PrintLeast(codecs[i], all[i]);
  std::printf("\nplane reads from the files, ms per 1024x1024 plane (one per layer of chunks):\n");
  std::printf("%-22s %8s %22s %9s %11s %9s\n", "codec", "ours", "raw codec, whole chunks",
              "raw/ours", "zarr-python", "zp/ours");
  for (std::size_t i = 0; i < codecs.size(); ++i) PrintPlanes(codecs[i], all[i].plane);
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
