// Throughput of the DVID label block codec next to generic compressors on the
// same blocks.
//
// Blocks: DVID's four 64³ uint64 test volumes (fib19 and cx samples, from CI's
// shared test data under CHUNKWISE_SHARED_DIR, testdata/dvid/) and a synthetic
// worst case with ~60 labels per sub-block.
// For each block the table gives, in blocks per second (median of several
// runs, one thread, thread CPU clock):
//   dvid-encode / dvid-decode: dense voxels <-> DVID compressed label block;
//   stored-write / stored-read: what ingest and export do per block — the
//     encode plus gzip (DVID's stored value), gunzip plus decode;
//   zstd-3 and gzip-6 (libdeflate) of the same dense 2 MiB block: the
//     per-block floor a generic compressor sets on the same bytes.
// "vs zstd" is our throughput over zstd-3's for the same direction.
#include <benchmark/benchmark.h>
#include <libdeflate.h>
#include <time.h>
#include <zstd.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "bench_common.h"
#include "codec/gzip_codec.h"
#include "core/file_io.h"
#include "formats/dvid/label_block.h"
#include "formats/dvid/value_envelope.h"

namespace chunkwise::formats::dvid {
namespace {

constexpr std::size_t kVoxels = std::size_t{64} * 64 * 64;
constexpr int kRuns = 9;

using bench::ThreadCpuSeconds;

// Median blocks per second of `body`, which handles one block per call.
double BlocksPerSecond(const std::function<void()>& body) {
  // Calibrate: a batch of blocks that takes about 20 ms of CPU.
  int batch = 1;
  for (;; batch *= 2) {
    const double t0 = ThreadCpuSeconds();
    for (int i = 0; i < batch; ++i) body();
    if (ThreadCpuSeconds() - t0 >= 0.02 || batch >= (1 << 16)) break;
  }
  std::vector<double> rates;
  for (int run = 0; run < kRuns; ++run) {
    const double t0 = ThreadCpuSeconds();
    for (int i = 0; i < batch; ++i) body();
    rates.push_back(batch / (ThreadCpuSeconds() - t0));
  }
  std::sort(rates.begin(), rates.end());
  return rates[rates.size() / 2];
}

std::vector<std::uint64_t> LoadVolume(const std::string& file) {
  const std::string path = std::string(CHUNKWISE_SHARED_DIR) + "/testdata/dvid/" + file;
  Result<Bytes> gz = core::ReadFile(path);
  CHUNKWISE_CHECK(gz.ok());
  Result<Bytes> raw = (*codec::GzipCodec::Create(6))->Decode(*gz, kVoxels * 8);
  CHUNKWISE_CHECK(raw.ok() && raw->size() == kVoxels * 8);
  std::vector<std::uint64_t> voxels(kVoxels);
  for (std::size_t i = 0; i < kVoxels; ++i)
    voxels[i] = LoadLittleEndian<std::uint64_t>(&(*raw)[8 * i]);
  return voxels;
}

// Many small segments: every sub-block holds dozens of labels (7-bit indices).
std::vector<std::uint64_t> WorstCase() {
  std::vector<std::uint64_t> voxels(kVoxels);
  std::uint64_t state = 0x9E3779B97F4A7C15ull;
  for (std::size_t i = 0; i < kVoxels; ++i) {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    const std::size_t x = i % 64, y = (i / 64) % 64, z = i / 4096;
    voxels[i] = (z / 2) * 1024 + (y / 2) * 32 + x / 2 + (state % 4 == 0 ? state % 5 : 0) + 1;
  }
  return voxels;
}

void Row(const std::string& name, const std::vector<std::uint64_t>& voxels) {
  const ByteView dense(reinterpret_cast<const std::uint8_t*>(voxels.data()), kVoxels * 8);
  const Bytes block = *EncodeLabelBlock(voxels, kDefaultBlockShape);
  const Bytes stored = *EncodeGzipValue(block);
  std::vector<std::uint64_t> out(kVoxels);
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_DCtx* dctx = ZSTD_createDCtx();
  Bytes scratch(ZSTD_compressBound(dense.size()));
  const std::size_t zstd_size =
      ZSTD_compressCCtx(cctx, scratch.data(), scratch.size(), dense.data(), dense.size(), 3);
  const Bytes zstd_frame(scratch.begin(), scratch.begin() + static_cast<std::ptrdiff_t>(zstd_size));
  libdeflate_compressor* deflate = libdeflate_alloc_compressor(6);
  libdeflate_decompressor* inflate = libdeflate_alloc_decompressor();
  Bytes gzip_scratch(libdeflate_gzip_compress_bound(deflate, dense.size()));
  const std::size_t gzip_size = libdeflate_gzip_compress(deflate, dense.data(), dense.size(),
                                                         gzip_scratch.data(), gzip_scratch.size());
  const Bytes gzip_member(gzip_scratch.begin(),
                          gzip_scratch.begin() + static_cast<std::ptrdiff_t>(gzip_size));
  Bytes plain(dense.size());

  const double encode = BlocksPerSecond(
      [&] { benchmark::DoNotOptimize(*EncodeLabelBlock(voxels, kDefaultBlockShape)); });
  const double decode = BlocksPerSecond([&] {
    CHUNKWISE_CHECK(DecodeLabelBlockInto(block, kDefaultBlockShape, out, "bench").ok());
    benchmark::ClobberMemory();
  });
  const double stored_write = BlocksPerSecond([&] {
    benchmark::DoNotOptimize(*EncodeGzipValue(*EncodeLabelBlock(voxels, kDefaultBlockShape)));
  });
  const double stored_read = BlocksPerSecond([&] {
    const Bytes payload = *DecodeValue(stored, 8 << 20, "bench");
    CHUNKWISE_CHECK(DecodeLabelBlockInto(payload, kDefaultBlockShape, out, "bench").ok());
    benchmark::ClobberMemory();
  });
  const double zstd_c = BlocksPerSecond([&] {
    benchmark::DoNotOptimize(
        ZSTD_compressCCtx(cctx, scratch.data(), scratch.size(), dense.data(), dense.size(), 3));
  });
  const double zstd_d = BlocksPerSecond([&] {
    CHUNKWISE_CHECK(ZSTD_decompressDCtx(dctx, plain.data(), plain.size(), zstd_frame.data(),
                                        zstd_frame.size()) == plain.size());
    benchmark::ClobberMemory();
  });
  const double gzip_c = BlocksPerSecond([&] {
    benchmark::DoNotOptimize(libdeflate_gzip_compress(deflate, dense.data(), dense.size(),
                                                      gzip_scratch.data(), gzip_scratch.size()));
  });
  const double gzip_d = BlocksPerSecond([&] {
    std::size_t written = 0;
    libdeflate_gzip_decompress(inflate, gzip_member.data(), gzip_member.size(), plain.data(),
                               plain.size(), &written);
    CHUNKWISE_CHECK(written == plain.size());
    benchmark::ClobberMemory();
  });
  std::printf(
      "%-10s %8zu %7zu %7zu %7zu | %8.0f %8.0f %7.2f | %8.0f %8.0f %7.2f | %8.0f %8.0f | %7.0f "
      "%7.0f\n",
      name.c_str(), block.size(), stored.size(), zstd_size, gzip_size, encode, zstd_c,
      encode / zstd_c, decode, zstd_d, decode / zstd_d, stored_write, stored_read, gzip_c, gzip_d);
  ZSTD_freeCCtx(cctx);
  ZSTD_freeDCtx(dctx);
  libdeflate_free_compressor(deflate);
  libdeflate_free_decompressor(inflate);
}

}  // namespace
}  // namespace chunkwise::formats::dvid

int main() {
  using chunkwise::formats::dvid::LoadVolume;
  using chunkwise::formats::dvid::Row;
  std::printf("DVID label block codec, blocks/s (median of %d runs, one thread); sizes in bytes\n",
              chunkwise::formats::dvid::kRuns);
  std::printf("%-10s %8s %7s %7s %7s | %8s %8s %7s | %8s %8s %7s | %8s %8s | %7s %7s\n", "block",
              "dvid", "stored", "zstd-3", "gzip-6", "encode", "zstd-c", "vs zstd", "decode",
              "zstd-d", "vs zstd", "st-write", "st-read", "gzip-c", "gzip-d");
  Row("fib19-1", LoadVolume("fib19-64x64x64-sample1.dat.gz"));
  Row("fib19-2", LoadVolume("fib19-64x64x64-sample2.dat.gz"));
  Row("cx-1", LoadVolume("cx-64x64x64-sample1.dat.gz"));
  Row("cx-2", LoadVolume("cx-64x64x64-sample2.dat.gz"));
  Row("worst", chunkwise::formats::dvid::WorstCase());
  return 0;
}
