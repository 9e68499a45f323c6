// zarr-vectors write and bounding-box read throughput.
//
// Data: N points (default 10 M) as random walks of 1,000 steps (neuron-like
// traces, object id per walk) in a 1,000³ box, and N edges: each step of a
// walk, the last closing the loop, so most edges stay
// in their chunk and a few percent cross chunks. Chunks are 100³ (1,000 chunks).
//
// Figures (medians over --runs, default 3):
//   write: points/s, edges/s and MB/s of vertex + link bytes into a FileStore;
//     reference: zstd-3 of the same vertex and link blobs on the same pool
//     plus one plain file write of the compressed bytes (the codec and disk
//     floor of the work); ratio = ours / reference time.
//   read by box (three sizes): points/s and MB/s read back; reference: the
//     same chunks' vertex and link blobs fetched and decoded (no selection,
//     no cross-chunk joins); ratio = ours / reference time.
// Usage: vectors_bench [--points N] [--runs R] [--threads T] [--dir PATH]
#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "bench_common.h"
#include "chunkwise/io/file.h"
#include "chunkwise/store/file_store.h"
#include "codec/codec_chain.h"
#include "codec/codec_registry.h"
#include "core/file_io.h"
#include "formats/vectors/chunk_placement.h"
#include "formats/vectors/geometry_reader.h"
#include "formats/vectors/layout.h"
#include "formats/vectors/level_reader.h"
#include "formats/vectors/ragged_blob.h"
#include "formats/vectors/writer.h"
#include "store/memory_store.h"

namespace chunkwise::formats::vectors {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

using bench::Median;

Geometry Walks(std::size_t points) {
  Geometry geometry;
  geometry.type = GeometryType::kGraph;
  geometry.positions.resize(points);
  geometry.object_ids.resize(points);
  geometry.links.reserve(2 * points);
  std::uint64_t state = 0x9E3779B97F4A7C15ull;
  const auto next = [&] {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return static_cast<float>(state % 1'000'000) / 1e6f;
  };
  constexpr std::size_t kWalk = 1000;
  Vec3f at{};
  for (std::size_t v = 0; v < points; ++v) {
    if (v % kWalk == 0) at = {next() * 1000, next() * 1000, next() * 1000};
    for (int d = 0; d < 3; ++d) at[d] = std::clamp(at[d] + (next() - 0.5f) * 4, 0.0f, 999.9f);
    geometry.positions[v] = at;
    geometry.object_ids[v] = static_cast<std::int64_t>(v / kWalk);
    // One edge per vertex: the next step of its walk, or back to the walk's start for the last.
    const std::size_t walk_start = v / kWalk * kWalk;
    const std::size_t walk_end = std::min(points, walk_start + kWalk);
    const std::size_t target = v + 1 < walk_end ? v + 1 : walk_start;
    if (target != v) {
      geometry.links.insert(geometry.links.end(),
                            {static_cast<std::int64_t>(v), static_cast<std::int64_t>(target)});
    }
  }
  return geometry;
}

// The codec floor: the same per-chunk vertex and link blobs through zstd-3 on the pool, then one
// file write.
double ReferenceWrite(const Geometry& geometry, const ChunkPlacement& placement,
                      core::ThreadPool& pool, const std::filesystem::path& file) {
  const auto registry = codec::CodecRegistry::WithBuiltins();
  const auto chain = codec::CodecChain::BytesOnly(
      nlohmann::json::array({{{"name", "zstd"}, {"configuration", {{"level", 3}}}}}), registry);
  std::vector<Bytes> vertex_blobs(placement.chunks.size()), link_blobs(placement.chunks.size());
  for (std::size_t c = 0; c < placement.chunks.size(); ++c) {
    vertex_blobs[c].resize(placement.members[c].size() * 12);
    for (std::size_t i = 0; i < placement.members[c].size(); ++i) {
      std::memcpy(vertex_blobs[c].data() + 12 * i,
                  geometry.positions[placement.members[c][i]].data(), 12);
    }
  }
  for (std::size_t r = 0; r < geometry.num_links();
       ++r) {  // Each link in its first endpoint's chunk.
    const std::int64_t a = geometry.links[2 * r], b = geometry.links[2 * r + 1];
    AppendLittleEndian(static_cast<std::uint64_t>(placement.vi[a]),
                       link_blobs[placement.chunk_index[a]]);
    AppendLittleEndian(static_cast<std::uint64_t>(placement.vi[b]),
                       link_blobs[placement.chunk_index[a]]);
  }
  const auto start = Clock::now();
  std::vector<Bytes> encoded(2 * placement.chunks.size());
  (void)pool.ParallelFor(encoded.size(), [&](std::size_t i) -> Status {
    const Bytes& blob = i % 2 == 0 ? vertex_blobs[i / 2] : link_blobs[i / 2];
    CHUNKWISE_ASSIGN_OR_RETURN(encoded[i], chain->EncodeBytes(blob));
    return Status::Ok();
  });
  std::vector<ByteView> parts(encoded.begin(), encoded.end());
  (void)io::WriteFile(file, parts);
  return Seconds(start);
}

// The decode floor for a box: fetch and decode the overlapping chunks' vertex and link blobs.
double ReferenceRead(const VectorStore& store, const BoundingBox& box) {
  const auto start = Clock::now();
  Result<std::vector<ChunkCoord>> chunks = ListChunks(store, 0, layout::kVerticesDir);
  std::vector<ChunkCoord> inside;
  for (const ChunkCoord& chunk : *chunks) {
    bool overlaps = true;
    for (int d = 0; d < 3; ++d) {
      overlaps = overlaps && (chunk[d] + 1) * store.metadata().chunk_shape[d] >= box.min[d] &&
                 chunk[d] * store.metadata().chunk_shape[d] <= box.max[d];
    }
    if (overlaps) inside.push_back(chunk);
  }
  (void)store.pool().ParallelFor(inside.size(), [&](std::size_t i) -> Status {
    CHUNKWISE_RETURN_IF_ERROR(
        store.ReadBlob(layout::ChunkBlobPath(0, layout::kVerticesDir, inside[i])).status());
    return store.ReadBlob(layout::LinksBlobPath(0, 0, inside[i])).status();
  });
  return Seconds(start);
}

int Run(int argc, char** argv) {
  std::size_t points = 10'000'000;
  int runs = 3;
  std::size_t threads = 0;
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "chunkwise_vectors_bench";
  constexpr const char* kUsage = "vectors_bench [--points N] [--runs R] [--threads T] [--dir PATH]";
  bench::RequireFlagPairs(argc, kUsage);
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const char* const value = argv[i + 1];
    if (flag == "--points") {
      points = static_cast<std::size_t>(bench::IntegerArg("--points", value, 1, 1LL << 40));
    } else if (flag == "--runs") {
      runs = static_cast<int>(bench::IntegerArg("--runs", value, 1, INT_MAX));
    } else if (flag == "--dir") {
      dir = value;
    } else if (flag == "--threads") {  // 0: one per core.
      threads = static_cast<std::size_t>(bench::IntegerArg("--threads", value, 0, 4096));
    } else {
      bench::ExitWithUsage(kUsage);
    }
  }
  KeepFreedMemoryForReuse();
  const Geometry geometry = Walks(points);
  const double edges = static_cast<double>(geometry.num_links());
  const double mb = (12.0 * points + 16.0 * edges) / 1e6;
  auto pool = std::make_shared<core::ThreadPool>(threads);
  std::printf(
      "vectors_bench: %zu points, %.0f edges (%.0f MB of vertex + link bytes), chunks 100^3, %zu "
      "threads\n",
      points, edges, mb, pool->num_threads());
  std::vector<double> ours_s, reference_s;
  WriteSummary summary;
  for (int run = 0; run < runs; ++run) {
    std::filesystem::remove_all(dir);
    auto files = store::FileStore::Open(dir / "store.zarrvectors", {});
    WriteOptions options;
    options.chunk_shape = {100, 100, 100};
    options.overwrite = true;
    options.store_options.pool = pool;
    auto start = Clock::now();
    Result<WriteSummary> written = WriteGeometry(*files, "", geometry, options);
    ours_s.push_back(Seconds(start));
    if (!written.ok()) {
      std::fprintf(stderr, "write failed: %s\n", written.status().ToString().c_str());
      return 1;
    }
    summary = *written;
    const ChunkPlacement placement = PlaceVertices(geometry.positions, options.chunk_shape);
    reference_s.push_back(ReferenceWrite(geometry, placement, *pool, dir / "reference.bin"));
  }
  std::vector<double>
      memory_s;  // The same write into a MemoryStore: the cost without a file system.
  for (int run = 0; run < runs; ++run) {
    WriteOptions options;
    options.chunk_shape = {100, 100, 100};
    options.store_options.pool = pool;
    const auto start = Clock::now();
    if (!WriteGeometry(store::MemoryStore::Create(), "", geometry, options).ok()) return 1;
    memory_s.push_back(Seconds(start));
  }
  const double write_s = Median(ours_s), write_ref_s = Median(reference_s);
  std::printf(
      "write   %6.2f s  %9.0f points/s  %9.0f edges/s  %7.1f MB/s   reference (zstd-3 + file) "
      "%6.2f s  ratio %.2fx\n",
      write_s, points / write_s, edges / write_s, mb / write_s, write_ref_s, write_s / write_ref_s);
  std::printf(
      "write (MemoryStore) %6.2f s  %9.0f points/s  %7.1f MB/s   ratio to reference %.2fx\n",
      Median(memory_s), points / Median(memory_s), mb / Median(memory_s),
      Median(memory_s) / write_ref_s);
  std::printf("        %llu chunks, %llu chunk-local links, %llu cross-chunk links\n",
              static_cast<unsigned long long>(summary.chunks),
              static_cast<unsigned long long>(summary.links.chunk_links),
              static_cast<unsigned long long>(summary.links.cross_chunk_links));
  auto files = store::FileStore::Open(dir / "store.zarrvectors", {});
  VectorStoreOptions store_options;
  store_options.pool = pool;
  Result<VectorStore> store = VectorStore::Open(*files, "", store_options);
  for (const double side : {100.0, 300.0, 600.0}) {
    const BoundingBox box{{200, 200, 200}, {200 + side, 200 + side, 200 + side}};
    std::vector<double> read_s, read_ref_s;
    std::size_t got_points = 0, got_edges = 0;
    for (int run = 0; run < runs; ++run) {
      const auto start = Clock::now();
      Result<LevelGeometry> read = ReadGeometry(*store, ReadQuery{0, box, {}});
      read_s.push_back(Seconds(start));
      if (!read.ok()) {
        std::fprintf(stderr, "read failed: %s\n", read.status().ToString().c_str());
        return 1;
      }
      got_points = read->geometry.positions.size();
      got_edges = read->geometry.num_links();
      read_ref_s.push_back(ReferenceRead(*store, box));
    }
    const double s = Median(read_s), ref = Median(read_ref_s);
    const double read_mb = (12.0 * got_points + 16.0 * got_edges) / 1e6;
    std::printf(
        "read %3.0f^3 box %6.3f s  %9.0f points/s  %9.0f edges/s  %7.1f MB/s   reference (fetch + "
        "decode) %6.3f s  ratio %.2fx  (%zu points, %zu edges)\n",
        side, s, got_points / s, got_edges / s, read_mb / s, ref, s / ref, got_points, got_edges);
  }
  std::filesystem::remove_all(dir);
  return 0;
}

}  // namespace
}  // namespace chunkwise::formats::vectors

int main(int argc, char** argv) { return chunkwise::formats::vectors::Run(argc, argv); }
