// Sharded zarr v3 write and read throughput, next to the raw codec on the same
// chunks and to every peer our users would use instead, on the same data and
// threads, all in one run.
//
// The volume is uint16, smooth and noisy like a microscope's (default 1 GiB,
// 512×1024×1024), stored as shards of 256³ with inner chunks of 64³, once with
// zstd level 1 and once with blosc lz4 + shuffle. For each codec:
//   ours        Array::Write of the whole volume into a FileStore, and Array::ReadInto
//               back into a buffer the caller allocated once;
//   raw codec   the same codec encoding (decoding) the same 64³ chunks, held in
//               memory, into one reused buffer per thread, on the same thread
//               pool: the ceiling for ours (goal ≥ 0.8×);
//   peers       each in its own process, writing the same volume into files and
//               reading it back, configured as its users configure it
//               (docs/benchmarks.md, "Peers and how they are configured"):
//     zp-2.13   Debian's python3-zarr 2.13, as v2 with 64³ chunks and the same
//               codec (bench/zarr_python_peer.py; the oldest reader in use);
//     zp-3      zarr-python 3 with its default codec pipeline, the same v3
//               layout (bench/zarr3_peer.py default);
//     zarrs     zarr-python 3 with the zarrs (Rust) codec pipeline
//               (bench/zarr3_peer.py zarrs);
//     ts        TensorStore (bench/tensorstore_zarr_peer.py).
//               The v3 peers come from the pinned .venv (--venv-python).
// Figures are medians over --runs runs, in GB/s of uncompressed data; ours and
// the raw codec run in alternation and ours/raw is the median per-round ratio;
// ours/fastest is ours over the fastest peer's median.
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
// chunks must do); each peer reading the same planes from its array.
//
// A fifth table is the zarrs benchmark's own case (zarrs/zarr_benchmarks):
// a 1024³ uint16 array of 256³ shards holding 64³ chunks, zstd level 0,
// written once by ours (untimed). "round trip": open it, read all of it into
// fresh memory and write it into a new array with the same metadata; "chunk by
// chunk": read it one 256³ chunk (shard) after another, each into fresh
// memory. Ours and the v3 peers read the same files; seconds, medians of --runs.
//
// A sixth table is the cost of the crc32c codec that chunkwise appends to the
// chunks of the arrays it makes by default (#44): ours writing and reading
// the same array (uint16 [256,256,256·k], k = size/32 MiB, shards 256³ of
// chunks 64³) with each codec alone and with "+crc32c", in alternation;
// GB/s and the median per-round ratio crc32c/none (1.00: free).
//
// usage: zarr_bench [--size-mib N] [--runs N] [--threads N] [--dir DIR] [--no-python]
//                   [--python PATH] [--venv-python PATH] [--peers LIST] [--scripts DIR]
//                   [--codec TEXT]... [--only throughput|zarrs-case|checksum] [--zarrs-edge N]
//                   (default codecs: zstd:1, then blosc:lz4:5:shuffle; default peers:
//                   zp-2.13,zp-3,zarrs,ts; --no-python runs no peer)
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
#include "chunkwise/core/buffer_pool.h"
#include "chunkwise/core/npy.h"
#include "chunkwise/core/thread_pool.h"
#include "chunkwise/io/file.h"
#include "chunkwise/io/npy_file.h"
#include "chunkwise/store/file_store.h"
#include "codec/codec_chain.h"
#include "codec/codec_registry.h"
#include "codec/codec_shorthand.h"
#include "core/file_io.h"
#include "core/posix_file.h"
#include "core/ravel.h"
#include "discard_store.h"
#include "formats/zarr/array.h"
#include "formats/zarr/array_layout.h"
#include "store/memory_store.h"

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
    "[--python PATH] [--venv-python PATH] [--peers LIST] [--scripts DIR] [--codec TEXT]... "
    "[--only throughput|zarrs-case|checksum] [--zarrs-edge N]";

// A peer: a Python script run in its own process, printing one JSON line.
struct Peer {
  std::string name;    // Its column's name, e.g. "zarrs".
  bool venv;           // Run by the pinned .venv's Python, else by --python.
  std::string script;  // Under --scripts, with the arguments that come before the mode.
  bool v3;             // Writes the v3 layout and runs the zarrs case.
};

// Every peer zarr_bench knows, in the order its columns are printed.
const std::vector<Peer>& AllPeers() {
  static const std::vector<Peer> peers = {
      {"zp-2.13", false, "zarr_python_peer.py", false},
      {"zp-3", true, "zarr3_peer.py default", true},
      {"zarrs", true, "zarr3_peer.py zarrs", true},
      {"ts", true, "tensorstore_zarr_peer.py", true},
  };
  return peers;
}

struct BenchOptions {
  Index size_mib = 1024;
  int runs = 5;
  std::size_t threads = 0;  // 0: one per core.
  fs::path dir = fs::temp_directory_path() / "chunkwise-zarr-bench";
  std::vector<Peer> peers = AllPeers();
  std::string python_path = "/usr/bin/python3";  // Debian's, with python3-zarr 2.13.
  std::string venv_python = std::string(CHUNKWISE_SOURCE_DIR) + "/.venv/bin/python";
  fs::path scripts = fs::path(CHUNKWISE_SOURCE_DIR) / "bench";  // Where the peers' scripts are.
  std::vector<std::string> codecs;  // Empty: both of the codecs.
  std::string only;                 // "throughput", "zarrs-case" or "checksum"; empty: all.
  Index zarrs_edge = 1024;          // The zarrs case's cube edge (a multiple of 256).
};

// GB/s of one operation, each 0 when not measured.
struct Throughput {
  double write = 0, read = 0;
};

// Milliseconds per plane read, each 0 when not measured.
struct PlaneFigures {
  double ours = 0, raw = 0;
};

// What a peer script measured: throughput, and ms per plane read (0 when the
// peer did not run).
struct PeerFigures {
  Throughput throughput;
  double plane_ms = 0;
};

struct Figures {
  Throughput ours, raw;
  std::vector<PeerFigures> peers;  // As options.peers.
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
  // `buffers` lends every array made here its shard buffers, as a facade
  // Context does; null: each array has a pool of its own, whose buffers each
  // write touches afresh.
  OursArray(const std::string& codec_text, const Bytes& volume, const Shape& shape,
            std::shared_ptr<core::ThreadPool> pool, const BenchOptions& options,
            std::shared_ptr<core::BufferPool> buffers = nullptr)
      : volume_(volume),
        shape_(shape),
        pool_(std::move(pool)),
        buffers_(std::move(buffers)),
        path_(options.dir / "ours") {
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
    auto array = formats::zarr::Array::Create(std::move(store), "", metadata_, true, Options());
    Check(array.status(), "create");
    return Seconds([&] { Check(array->Write(core::Region::Full(shape_), volume_), "write"); });
  }

  double ReadSeconds(std::shared_ptr<store::Store> store) {
    auto array = formats::zarr::Array::Open(std::move(store), "", Options());
    Check(array.status(), "open");
    const double seconds =
        Seconds([&] { Check(array->ReadInto(core::Region::Full(shape_), back_.data()), "read"); });
    VerifyBack("ours");
    return seconds;
  }

  formats::zarr::ArrayOptions Options() const { return {.pool = pool_, .buffers = buffers_}; }

  const Bytes& volume_;
  const Shape shape_;
  std::shared_ptr<core::ThreadPool> pool_;
  std::shared_ptr<core::BufferPool> buffers_;
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

// The command that runs `peer`'s script in `mode` ("throughput" or
// "zarrs-case", nothing for zp-2.13) with `arguments`.
std::string PeerCommand(const Peer& peer, const std::string& mode, const std::string& arguments,
                        const BenchOptions& options) {
  const std::string python = peer.venv ? options.venv_python : options.python_path;
  return python + " " + (options.scripts / peer.script).string() + " " + mode + " " + arguments;
}

// Runs a peer's throughput mode, which prints {"write_seconds", "read_seconds",
// "bytes", "plane_seconds" (the plane reads of one run, in total), "planes"};
// zeros if it cannot run.
PeerFigures MeasurePeer(const Peer& peer, const std::string& codec, const fs::path& volume_npy,
                        std::size_t threads, const BenchOptions& options) {
  std::string arguments = volume_npy.string() + " " + (options.dir / "peer").string() + " " +
                          codec + " " + std::to_string(options.runs);
  if (peer.v3) arguments += " " + std::to_string(threads);
  const std::string command = PeerCommand(peer, peer.v3 ? "throughput" : "", arguments, options);
  const std::optional<nlohmann::json> result = bench::RunJsonPeer(command, "zarr_bench");
  if (!result) return {};
  try {  // nlohmann::json reports a missing or mistyped field by throwing.
    const double bytes = result->at("bytes").get<double>();
    PeerFigures figures;
    figures.throughput = {
        GigabytesPerSecond(bytes, result->at("write_seconds").get<std::vector<double>>()),
        GigabytesPerSecond(bytes, result->at("read_seconds").get<std::vector<double>>())};
    figures.plane_ms = Median(result->at("plane_seconds").get<std::vector<double>>()) /
                       result->at("planes").get<double>() * 1e3;
    return figures;
  } catch (const nlohmann::json::exception& error) {
    std::fprintf(stderr, "zarr_bench: the peer %s printed %s: %s\n", peer.name.c_str(),
                 result->dump().c_str(), error.what());
    return {};
  }
}

// The index of the best of `values` (the largest, or with `least` the
// smallest), ignoring zeros (peers that did not run); -1 when all are zero.
int BestIndex(const std::vector<double>& values, bool least = false) {
  int best = -1;
  for (int i = 0; i < static_cast<int>(values.size()); ++i) {
    if (values[i] <= 0) continue;
    if (best < 0 || (least ? values[i] < values[best] : values[i] > values[best])) best = i;
  }
  return best;
}

// "  1.234" per peer ("-" where it did not run), then ours over the fastest
// peer with its name, "ok" where ours is ahead; `faster_is_larger` false for
// times, where the ratio is the peer's time over ours.
std::string AgainstPeers(double ours, const std::vector<double>& peers, const BenchOptions& options,
                         bool faster_is_larger, const char* format) {
  std::string text;
  char cell[64];
  for (const double peer : peers) {
    if (peer > 0) {
      std::snprintf(cell, sizeof(cell), format, peer);
    } else {
      std::snprintf(cell, sizeof(cell), " %9s", "-");
    }
    text += cell;
  }
  const int best = BestIndex(peers, !faster_is_larger);
  if (best < 0) return text;
  const double ratio = faster_is_larger ? ours / peers[best] : peers[best] / ours;
  std::snprintf(cell, sizeof(cell), " %8.2fx %-8s %s", ratio, options.peers[best].name.c_str(),
                ratio > 1 ? "ok" : "SLOWER");
  return text + cell;
}

std::string PeerHeader(const BenchOptions& options) {
  std::string text;
  char cell[32];
  for (const Peer& peer : options.peers) {
    std::snprintf(cell, sizeof(cell), " %9s", peer.name.c_str());
    text += cell;
  }
  if (!options.peers.empty()) text += "  ours/fastest peer";
  return text;
}

void PrintFigures(const std::string& codec, const Figures& figures, const BenchOptions& options) {
  const auto row = [&](const char* op, double ours, double raw, double ratio,
                       double Throughput::*which) {
    std::vector<double> peers;
    for (const PeerFigures& peer : figures.peers) peers.push_back(peer.throughput.*which);
    std::printf("%-20s %-5s %7.3f %9.3f %7.2fx %-3s%s\n", codec.c_str(), op, ours, raw, ratio,
                ratio >= 0.8 ? "ok" : "LOW",
                AgainstPeers(ours, peers, options, true, " %9.3f").c_str());
  };
  row("write", figures.ours.write, figures.raw.write, figures.ratio.write, &Throughput::write);
  row("read", figures.ours.read, figures.raw.read, figures.ratio.read, &Throughput::read);
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
void PrintPlanes(const std::string& codec, const Figures& figures, const BenchOptions& options) {
  std::vector<double> peers;
  for (const PeerFigures& peer : figures.peers) peers.push_back(peer.plane_ms);
  std::printf("%-20s %8.2f %9.2f %7.2fx%s\n", codec.c_str(), figures.plane.ours, figures.plane.raw,
              figures.plane.raw / figures.plane.ours,
              AgainstPeers(figures.plane.ours, peers, options, false, " %9.2f").c_str());
}

// The peers `list` names, comma-separated, in AllPeers' order; exits with the
// usage on a name it does not know.
std::vector<Peer> ParsePeers(const std::string& list) {
  std::vector<Peer> peers;
  std::size_t named = 0;
  for (const Peer& peer : AllPeers()) {
    if (("," + list + ",").find("," + peer.name + ",") == std::string::npos) continue;
    peers.push_back(peer);
    named += peer.name.size() + 1;
  }
  if (named != list.size() + 1) {
    std::fprintf(stderr, "zarr_bench: --peers takes names from zp-2.13,zp-3,zarrs,ts, not \"%s\"\n",
                 list.c_str());
    std::exit(2);
  }
  return peers;
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
    } else if (arg == "--venv-python" && has_value) {
      options.venv_python = argv[++i];
    } else if (arg == "--peers" && has_value) {
      options.peers = ParsePeers(argv[++i]);
    } else if (arg == "--scripts" && has_value) {
      options.scripts = argv[++i];
    } else if (arg == "--codec" && has_value) {
      options.codecs.emplace_back(argv[++i]);
    } else if (arg == "--only" && has_value) {
      options.only = argv[++i];
      if (options.only != "throughput" && options.only != "zarrs-case" &&
          options.only != "checksum")
        bench::ExitWithUsage(kUsage);
    } else if (arg == "--zarrs-edge" && has_value) {
      options.zarrs_edge = IntegerArg("--zarrs-edge", argv[++i], kShard, 1 << 14);
      if (options.zarrs_edge % kShard != 0) bench::ExitWithUsage(kUsage);
    } else if (arg == "--no-python") {
      options.peers.clear();
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
  std::printf("%-20s %-5s %7s %9s %8s %-3s%s\n", "codec", "op", "ours", "raw codec", "ours/raw", "",
              PeerHeader(options).c_str());
}

void WriteVolumeNpy(const fs::path& path, const Bytes& volume, const Shape& shape) {
  core::NpyArray npy{core::NpyDtype::FromDataType(core::DataType(core::DataTypeId::kUInt16),
                                                  core::Endian::kLittle),
                     shape, false, volume};
  Check(io::WriteNpy(path, npy), "write volume.npy");
}

void RunThroughput(const BenchOptions& options) {
  // 1 GiB = 512 × 1024 × 1024 uint16; other sizes scale dim 0 in steps of 256.
  const Index depth = std::max<Index>(256, options.size_mib / 1024 * 512 / 256 * 256);
  const Shape shape = {depth, 1024, 1024};
  const Bytes volume = MicroscopyVolume(shape);
  const std::vector<Bytes> chunks = ExtractChunks(volume, shape);
  auto pool = std::make_shared<core::ThreadPool>(options.threads);
  const fs::path volume_npy = options.dir / "volume.npy";
  if (!options.peers.empty()) WriteVolumeNpy(volume_npy, volume, shape);
  PrintHeader(volume, depth, pool->num_threads(), options);
  std::vector<std::string> codecs = options.codecs;
  if (codecs.empty()) codecs = {"zstd:1", "blosc:lz4:5:shuffle"};
  std::vector<Figures> all;
  for (const std::string& codec : codecs) {
    Figures figures;
    MeasureOursAndRaw(codec, volume, shape, chunks, pool, options, figures);
    for (const Peer& peer : options.peers) {
      figures.peers.push_back(MeasurePeer(peer, codec, volume_npy, pool->num_threads(), options));
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
  std::printf(
      "\nplane reads from the files, ms per 1024x1024 plane (one per layer of chunks; raw: the\n"
      "raw codec decoding every chunk the planes cut; ratios: their time over ours):\n");
  std::printf("%-20s %8s %9s %8s%s\n", "codec", "ours", "raw", "raw/ours",
              PeerHeader(options).c_str());
  for (std::size_t i = 0; i < codecs.size(); ++i) PrintPlanes(codecs[i], all[i], options);
  fs::remove(volume_npy);
}

// The zarrs benchmark's case: seconds of each round trip and chunk-by-chunk
// read, ours and each v3 peer's, on the array ours wrote at `source`.
struct ZarrsCaseFigures {
  std::vector<double> ours_roundtrip, ours_chunks;
  std::vector<std::vector<double>> peer_roundtrip, peer_chunks;  // As ZarrsCasePeers.
};

std::vector<Peer> ZarrsCasePeers(const BenchOptions& options) {
  std::vector<Peer> peers;
  for (const Peer& peer : options.peers) {
    if (peer.v3) peers.push_back(peer);
  }
  return peers;
}

// Each 256³ chunk (shard) of `shape`, as a region.
std::vector<core::Region> ShardRegions(const Shape& shape) {
  std::vector<core::Region> regions;
  for (Index z = 0; z < shape[0]; z += kShard) {
    for (Index y = 0; y < shape[1]; y += kShard) {
      for (Index x = 0; x < shape[2]; x += kShard) {
        regions.emplace_back(core::Coord{z, y, x}, core::Coord{z + kShard, y + kShard, x + kShard});
      }
    }
  }
  return regions;
}

std::shared_ptr<store::Store> OpenFiles(const fs::path& path) {
  auto store = store::FileStore::Open(path);
  Check(store.status(), "store");
  return *store;
}

// Ours: open `source`, read all of it into fresh memory, write it into a new
// array at `target` with the same metadata. Checks what it read after the clock.
double OursRoundTripSeconds(const fs::path& source, const fs::path& target, const Bytes& volume,
                            const std::shared_ptr<core::ThreadPool>& pool) {
  fs::remove_all(target);
  Bytes data;
  const double seconds = Seconds([&] {
    auto in = formats::zarr::Array::Open(OpenFiles(source), "", {.pool = pool});
    Check(in.status(), "round trip: open");
    data.resize(volume.size());  // Fresh, untouched memory, as a reader allocates it.
    Check(in->ReadInto(core::Region::Full(in->metadata().shape), data.data()), "round trip: read");
    auto out =
        formats::zarr::Array::Create(OpenFiles(target), "", in->metadata(), true, {.pool = pool});
    Check(out.status(), "round trip: create");
    Check(out->Write(core::Region::Full(in->metadata().shape), data), "round trip: write");
  });
  if (data != volume) Check(Status::Internal("the round trip read other values"), "verify");
  fs::remove_all(target);
  return seconds;
}

// Ours: each 256³ chunk read on its own into fresh memory, one after another.
double OursChunksSeconds(const fs::path& source, const std::shared_ptr<core::ThreadPool>& pool) {
  return Seconds([&] {
    auto array = formats::zarr::Array::Open(OpenFiles(source), "", {.pool = pool});
    Check(array.status(), "chunks: open");
    for (const core::Region& region : ShardRegions(array->metadata().shape)) {
      Bytes chunk(static_cast<std::size_t>(kShard * kShard * kShard) * 2);
      Check(array->ReadInto(region, chunk.data()), "chunks: read");
    }
  });
}

// Checks every chunk ours reads chunk by chunk against the volume (untimed).
void VerifyChunks(const fs::path& source, const Bytes& volume, const Shape& shape,
                  const std::shared_ptr<core::ThreadPool>& pool) {
  auto array = formats::zarr::Array::Open(OpenFiles(source), "", {.pool = pool});
  Check(array.status(), "chunks: open");
  Bytes chunk(static_cast<std::size_t>(kShard * kShard * kShard) * 2), expected(chunk.size());
  const Shape box = {kShard, kShard, kShard};
  for (const core::Region& region : ShardRegions(shape)) {
    Check(array->ReadInto(region, chunk.data()), "chunks: read");
    core::CopyStridedRegion({volume.data(), shape, region.start()}, {expected.data(), box, kZero},
                            box, 2);
    if (chunk != expected) Check(Status::Internal("a chunk read back other values"), "verify");
  }
}

void PrintZarrsCase(const ZarrsCaseFigures& figures, const std::vector<Peer>& peers, double bytes,
                    const BenchOptions& options) {
  BenchOptions shown = options;
  shown.peers = peers;
  std::printf("%-22s %8s%s\n", "seconds", "ours", PeerHeader(shown).c_str());
  const auto row = [&](const char* name, const std::vector<double>& ours,
                       const std::vector<std::vector<double>>& peer_seconds) {
    std::vector<double> medians;
    for (const std::vector<double>& seconds : peer_seconds) medians.push_back(Median(seconds));
    std::printf("%-22s %8.2f%s\n", name, Median(ours),
                AgainstPeers(Median(ours), medians, shown, false, " %9.2f").c_str());
    std::printf("%-22s %8.2f", "  (GB/s)", bytes / Median(ours) / 1e9);
    for (const double median : medians) {
      if (median > 0) {
        std::printf(" %9.2f", bytes / median / 1e9);
      } else {
        std::printf(" %9s", "-");
      }
    }
    std::printf("\n");
  };
  row("round trip", figures.ours_roundtrip, figures.peer_roundtrip);
  row("chunk by chunk read", figures.ours_chunks, figures.peer_chunks);
}

// The zarrs benchmark's own case; see the comment at the top.
void RunZarrsCase(const BenchOptions& options) {
  const Index edge = options.zarrs_edge;
  const Shape shape = {edge, edge, edge};
  const Bytes volume = MicroscopyVolume(shape);
  auto pool = std::make_shared<core::ThreadPool>(options.threads);
  const fs::path dir = options.dir / "zarrs-case";
  const fs::path source = dir / "source.zarr", target = dir / "roundtrip.zarr";
  fs::remove_all(dir);
  fs::create_directories(dir);
  formats::zarr::ArrayLayout layout;
  layout.shape = shape;
  layout.data_type = core::DataType(core::DataTypeId::kUInt16);
  layout.chunk_shape = kChunkShape;
  layout.shard_shape = Shape{kShard, kShard, kShard};
  layout.codec = "zstd:0";
  Result<formats::zarr::ArrayMetadata> metadata = formats::zarr::BuildArrayMetadata(layout);
  Check(metadata.status(), "zarrs case: metadata");
  {
    auto array =
        formats::zarr::Array::Create(OpenFiles(source), "", *metadata, true, {.pool = pool});
    Check(array.status(), "zarrs case: create");
    Check(array->Write(core::Region::Full(shape), volume), "zarrs case: write");
  }
  VerifyChunks(source, volume, shape, pool);
  std::printf(
      "\nthe zarrs benchmark's case: %lld^3 uint16 (%.2f GiB), shards 256^3 of chunks 64^3, zstd "
      "level 0, %zu threads, medians of %d runs; round trip: read all, write a new array; chunk "
      "by chunk: each 256^3 chunk read on its own, one after another; ratios: the fastest "
      "peer's time over ours\n",
      static_cast<long long>(edge), static_cast<double>(volume.size()) / (1 << 30),
      pool->num_threads(), options.runs);
  std::fflush(stdout);
  ZarrsCaseFigures figures;
  for (int run = 0; run < options.runs; ++run) {
    figures.ours_roundtrip.push_back(OursRoundTripSeconds(source, target, volume, pool));
    figures.ours_chunks.push_back(OursChunksSeconds(source, pool));
  }
  const std::vector<Peer> peers = ZarrsCasePeers(options);
  const fs::path volume_npy = dir / "volume.npy";
  if (!peers.empty()) WriteVolumeNpy(volume_npy, volume, shape);
  for (const Peer& peer : peers) {
    const std::string arguments = volume_npy.string() + " " + source.string() + " " +
                                  target.string() + " " + std::to_string(options.runs) + " " +
                                  std::to_string(pool->num_threads());
    const std::optional<nlohmann::json> result =
        bench::RunJsonPeer(PeerCommand(peer, "zarrs-case", arguments, options), "zarr_bench");
    std::vector<double> roundtrip, chunks;
    try {  // nlohmann::json reports a missing or mistyped field by throwing.
      if (result) {
        roundtrip = result->at("roundtrip_seconds").get<std::vector<double>>();
        chunks = result->at("chunk_seconds").get<std::vector<double>>();
      }
    } catch (const nlohmann::json::exception& error) {
      std::fprintf(stderr, "zarr_bench: the peer %s printed %s: %s\n", peer.name.c_str(),
                   result->dump().c_str(), error.what());
    }
    figures.peer_roundtrip.push_back(roundtrip);
    figures.peer_chunks.push_back(chunks);
  }
  PrintZarrsCase(figures, peers, static_cast<double>(volume.size()), options);
  fs::remove_all(dir);
}

// The cost of the default crc32c: see the comment at the top.
void RunChecksumCost(const BenchOptions& options) {
  const Index shards = std::max<Index>(1, options.size_mib / 32);
  const Shape shape = {kShard, kShard, kShard * shards};
  const Bytes volume = MicroscopyVolume(shape);
  auto pool = std::make_shared<core::ThreadPool>(options.threads);
  std::printf(
      "\nthe cost of the default crc32c: ours, uint16 [%lld,%lld,%lld] (%.0f MiB), shards 256^3 "
      "of chunks 64^3, %zu threads, medians of %d runs, GB/s; ratio: crc32c's throughput over "
      "none's\n",
      static_cast<long long>(shape[0]), static_cast<long long>(shape[1]),
      static_cast<long long>(shape[2]), static_cast<double>(volume.size()) / (1 << 20),
      pool->num_threads(), options.runs);
  std::printf("%-22s %-6s %8s %8s %14s\n", "codec", "op", "none", "crc32c", "crc32c/none");
  std::vector<std::string> codecs = options.codecs;
  if (codecs.empty()) codecs = {"zstd:1", "blosc:lz4:5:shuffle"};
  const auto bytes = static_cast<double>(volume.size());
  for (const std::string& codec : codecs) {
    // One pool of shard buffers for both, as the facade's Context lends:
    // the figures are of the codecs, not of first touches of fresh memory.
    auto buffers = std::make_shared<core::BufferPool>(std::size_t{1} << 30);
    OursArray plain(codec, volume, shape, pool, options, buffers);
    OursArray checked(codec + "+crc32c", volume, shape, pool, options, buffers);
    std::vector<double> write_plain, write_checked, read_plain, read_checked;
    std::vector<Throughput> ratios;  // Per round: the plain time over the checked one.
    for (int run = 0; run < options.runs; ++run) {
      // Both share one directory: each write replaces it, each read follows
      // its write. Which goes first alternates, so that neither always meets
      // the other's files still being written back.
      const auto plain_round = [&] {
        write_plain.push_back(plain.WriteSeconds());
        read_plain.push_back(plain.ReadSeconds());
      };
      const auto checked_round = [&] {
        write_checked.push_back(checked.WriteSeconds());
        read_checked.push_back(checked.ReadSeconds());
      };
      if (run % 2 == 0) {
        plain_round();
        checked_round();
      } else {
        checked_round();
        plain_round();
      }
      ratios.push_back(
          {write_plain.back() / write_checked.back(), read_plain.back() / read_checked.back()});
    }
    const Throughput ratio = MedianRatios(ratios);
    std::printf("%-22s %-6s %8.3f %8.3f %13.3fx\n", codec.c_str(), "write",
                GigabytesPerSecond(bytes, write_plain), GigabytesPerSecond(bytes, write_checked),
                ratio.write);
    std::printf("%-22s %-6s %8.3f %8.3f %13.3fx\n", codec.c_str(), "read",
                GigabytesPerSecond(bytes, read_plain), GigabytesPerSecond(bytes, read_checked),
                ratio.read);
    std::fflush(stdout);
  }
}

int Main(int argc, char** argv) {
  const BenchOptions options = ParseOptions(argc, argv);
  fs::create_directories(options.dir);
  if (options.only.empty() || options.only == "throughput") RunThroughput(options);
  if (options.only.empty() || options.only == "zarrs-case") RunZarrsCase(options);
  if (options.only.empty() || options.only == "checksum") RunChecksumCost(options);
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
