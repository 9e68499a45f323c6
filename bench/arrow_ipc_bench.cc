// Throughput of the Arrow IPC writer and readers on export-shard-shaped data,
// next to memcpy of the same bytes in the same run.
//
// 10,000 records shaped like DVID export rows: three int32 coordinates, two
// list<uint64> of 24 labels each, a ~20 KB binary block and a uint32 (fixed
// seed). "memcpy" copies each record's column bytes into one preallocated
// buffer, which is the least any writer or reader must do; our figures are
// bytes of record data per second, so the ratio is ours / memcpy (1.0 is the
// physical limit of a copy). Cases: one record per batch (what export-shards
// writes) and all records in one batch; file and stream format into memory;
// reads of every batch by index through the footer (file) or sequentially
// (stream), each touching every value's bytes (from memory these are
// zero-copy views, so they can pass memcpy); and the file format through a
// real file (temporary name + rename; page cache), next to the raw system
// calls a writer and a record reader cannot avoid: write(2) of the same file
// bytes in 1 MiB calls, and one pread(2) per record batch. Times are the thread's
// CPU time (user + system), medians of 7 runs.
// The peer, pyarrow (bench/arrow_ipc_peer.py, from the pinned .venv; see
// docs/benchmarks.md), reads our file shard, checks it, and writes and reads
// those same record batches in every case above: write_table into a
// BufferOutputStream or an OSFile, read_all from a buffer or a memory map, the
// same values touched through pyarrow.compute; its time is the process's CPU
// time over all threads. ours/pyarrow is the ratio of throughputs.
//   usage: arrow_ipc_bench [--records N] [--runs R] [--python PATH|none]
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench_common.h"
#include "chunkwise/store/file_store.h"
#include "core/file_io.h"
#include "formats/arrow/ipc_reader.h"
#include "formats/arrow/ipc_writer.h"
#include "formats/dvid/export_shard_schema.h"

namespace chunkwise::formats {
namespace {

std::vector<dvid::ExportBlock> MakeBlocks(int count) {
  std::vector<dvid::ExportBlock> blocks(static_cast<std::size_t>(count));
  std::uint64_t state = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < count; ++i) {
    dvid::ExportBlock& block = blocks[static_cast<std::size_t>(i)];
    block.chunk_x = i % 32, block.chunk_y = (i / 32) % 32, block.chunk_z = i / 1024;
    for (int k = 0; k < 24; ++k) {
      block.supervoxels.push_back(state += 0x632BE59BD9B4E019ull);
      block.labels.push_back(k % 5 == 0 ? 0 : 1000 + (state >> 40));
    }
    block.dvid_compressed_block.resize(18000 + (state >> 52));  // 18–22 KB.
    for (auto& byte : block.dvid_compressed_block)
      byte = static_cast<std::uint8_t>(state >>= 1 | 1);
    block.uncompressed_size = static_cast<std::uint32_t>(block.dvid_compressed_block.size() * 4);
  }
  return blocks;
}

// Three int32 coordinates, the two uint64 lists (labels and supervoxels, of
// equal length), the block and a uint32.
std::uint64_t RecordBytes(const dvid::ExportBlock& block) {
  return 3 * sizeof(std::int32_t) + 2 * sizeof(std::uint64_t) * block.labels.size() +
         block.dvid_compressed_block.size() + sizeof(std::uint32_t);
}

using bench::Median;

double ThreadSeconds() {
  timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

// CPU seconds of this thread per run of `body`, the median of `runs`. The
// thread's CPU clock (user + system) keeps load from other processes out of
// both figures alike.
double Time(int runs, const std::function<void()>& body) {
  std::vector<double> seconds;
  for (int r = 0; r < runs; ++r) {
    const double start = ThreadSeconds();
    body();
    seconds.push_back(ThreadSeconds() - start);
  }
  return Median(seconds);
}

void Check(const Status& status) {
  if (!status.ok()) {
    std::fprintf(stderr, "arrow_ipc_bench: %s\n", status.ToString().c_str());
    std::exit(1);
  }
}

// The builders hold the column data, built once outside the timed region.
std::vector<dvid::ExportBatchBuilder> Batches(const std::vector<dvid::ExportBlock>& blocks,
                                              bool one_per_batch) {
  std::vector<dvid::ExportBatchBuilder> batches(one_per_batch ? blocks.size() : 1);
  for (std::size_t i = 0; i < blocks.size(); ++i)
    Check(batches[one_per_batch ? i : 0].Add(blocks[i]));
  return batches;
}

// Writes into `buffer`'s memory (reused between runs, as memcpy's target is).
Bytes Write(const std::vector<dvid::ExportBatchBuilder>& batches, arrow::IpcFormat format,
            Bytes buffer) {
  auto sink = std::make_unique<arrow::MemorySink>("bench", std::move(buffer));
  arrow::MemorySink* memory = sink.get();
  auto writer = arrow::IpcWriter::Create(std::move(sink), dvid::ExportShardSchema(), {format, 8});
  Check(writer.status());
  for (const auto& batch : batches) Check((*writer)->WriteRecordBatch(batch.View()).status());
  Check((*writer)->Finish());
  return memory->Take();
}

std::uint64_t Touch(const arrow::RecordBatch& batch) {
  std::uint64_t sum = 0;
  for (std::int64_t r = 0; r < batch.num_rows; ++r) {
    const ByteView block = arrow::BinaryAt(batch.columns[dvid::kDvidCompressedBlock], r);
    sum += block.front() + block.back() + block.size();
    sum += arrow::IntegerAt<std::uint64_t>(batch.columns[dvid::kLabels].children[0],
                                           arrow::OffsetAt(batch.columns[dvid::kLabels], r));
  }
  return sum;
}

std::uint64_t ReadFile(std::shared_ptr<arrow::ByteSource> source) {
  auto reader = arrow::IpcFileReader::Open(std::move(source));
  Check(reader.status());
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < reader->num_record_batches(); ++i) {
    auto batch = reader->ReadRecordBatch(i);
    Check(batch.status());
    sum += Touch(*batch);
  }
  return sum;
}

std::uint64_t ReadStream(std::shared_ptr<arrow::ByteSource> source) {
  auto reader = arrow::IpcStreamReader::Open(std::move(source));
  Check(reader.status());
  std::uint64_t sum = 0;
  while (true) {
    auto batch = reader->Next();
    Check(batch.status());
    if (!batch->has_value()) return sum;
    sum += Touch(**batch);
  }
}

// One row: ours and its physical limit (memcpy, or the raw system calls).
struct Row {
  std::string name;
  double seconds;
  const char* limit;
  double limit_seconds;
};

// Runs bench/arrow_ipc_peer.py on our file shard at `path`: pyarrow's seconds
// per row name, and its version; empty when it cannot run.
std::map<std::string, double> PyarrowSeconds(const std::string& python,
                                             const std::filesystem::path& path, int records,
                                             int runs, std::string* version) {
  const std::string command = python + " " + CHUNKWISE_SOURCE_DIR + "/bench/arrow_ipc_peer.py " +
                              path.string() + " " + std::to_string(records) + " " +
                              std::to_string(runs);
  const std::optional<nlohmann::json> result = bench::RunJsonPeer(command, "arrow_ipc_bench");
  if (!result) return {};
  try {  // nlohmann::json reports a missing or mistyped field by throwing.
    *version = result->at("version").get<std::string>();
    return result->at("seconds").get<std::map<std::string, double>>();
  } catch (const nlohmann::json::exception& error) {
    std::fprintf(stderr, "arrow_ipc_bench: pyarrow printed %s: %s\n", result->dump().c_str(),
                 error.what());
    return {};
  }
}

void PrintRows(const std::vector<Row>& rows, const std::map<std::string, double>& pyarrow,
               std::uint64_t bytes) {
  const auto gbps = [&](double seconds) { return static_cast<double>(bytes) / seconds / 1e9; };
  std::printf("%-40s %7s %8s %12s | %-9s %7s %10s\n", "GB/s of record data", "ours", "pyarrow",
              "ours/pyarrow", "limit", "GB/s", "ours/limit");
  for (const Row& row : rows) {
    const auto peer = pyarrow.find(row.name);
    char peer_text[48] = "       -             -";
    if (peer != pyarrow.end() && peer->second > 0) {
      std::snprintf(peer_text, sizeof(peer_text), "%8.2f %11.2fx", gbps(peer->second),
                    peer->second / row.seconds);
    }
    std::printf("%-40s %7.2f %s | %-9s %7.2f %9.2fx\n", row.name.c_str(), gbps(row.seconds),
                peer_text, row.limit, gbps(row.limit_seconds), row.limit_seconds / row.seconds);
  }
}

// A row's name, such as "write file, 1 batch, to memory".
std::string RowName(const char* verb, const std::string& kind, const std::string& shape,
                    const char* place) {
  std::string name = verb;
  name.append(" ").append(kind).append(", ").append(shape).append(", ").append(place);
  return name;
}

// The least a file writer does: the same bytes in 1 MiB write calls, then a rename.
void RawWrite(const std::filesystem::path& path, ByteView content) {
  const std::filesystem::path temporary = std::filesystem::path(path) += ".tmp";
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  for (std::size_t at = 0; fd >= 0 && at < content.size(); at += 1 << 20) {
    const std::size_t n = std::min<std::size_t>(1 << 20, content.size() - at);
    if (::write(fd, content.data() + at, n) != static_cast<ssize_t>(n)) std::exit(1);
  }
  if (fd < 0 || ::close(fd) != 0 || ::rename(temporary.c_str(), path.c_str()) != 0) std::exit(1);
}

// The least a record reader does: one pread per record batch into a reused buffer.
std::uint64_t RawRead(const std::filesystem::path& path,
                      const std::vector<arrow::MessageBlock>& blocks, Bytes& buffer) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  std::uint64_t sum = 0;
  for (const arrow::MessageBlock& block : blocks) {
    buffer.resize(block.size());
    if (::pread(fd, buffer.data(), buffer.size(), static_cast<off_t>(block.offset)) !=
        static_cast<ssize_t>(buffer.size())) {
      std::exit(1);
    }
    sum += buffer.back();
  }
  ::close(fd);
  return sum;
}

int Run(int argc, char** argv) {
  int records = 10000, runs = 7;
  std::string python = std::string(CHUNKWISE_SOURCE_DIR) + "/.venv/bin/python";
  constexpr const char* kUsage = "arrow_ipc_bench [--records N] [--runs R] [--python PATH|none]";
  bench::RequireFlagPairs(argc, kUsage);
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--records") {
      records = static_cast<int>(bench::IntegerArg("--records", argv[i + 1], 1, INT_MAX));
    } else if (flag == "--runs") {
      runs = static_cast<int>(bench::IntegerArg("--runs", argv[i + 1], 1, INT_MAX));
    } else if (flag == "--python") {
      python = argv[i + 1];
    } else {
      bench::ExitWithUsage(kUsage);
    }
  }
  const std::vector<dvid::ExportBlock> blocks = MakeBlocks(records);
  std::uint64_t bytes = 0;
  for (const auto& block : blocks) bytes += RecordBytes(block);
  Bytes target(bytes + 64);
  const double copy = Time(runs, [&] {
    std::uint8_t* out = target.data();
    for (const auto& block : blocks) {
      std::memcpy(out, &block.chunk_x, 4), std::memcpy(out + 4, &block.chunk_y, 4);
      std::memcpy(out + 8, &block.chunk_z, 4), out += 12;
      std::memcpy(out, block.labels.data(), 8 * block.labels.size()),
          out += 8 * block.labels.size();
      std::memcpy(out, block.supervoxels.data(), 8 * block.supervoxels.size());
      out += 8 * block.supervoxels.size();
      std::memcpy(out, block.dvid_compressed_block.data(), block.dvid_compressed_block.size());
      out += block.dvid_compressed_block.size();
      std::memcpy(out, &block.uncompressed_size, 4), out += 4;
    }
  });
  std::printf("arrow_ipc_bench: %d records, %.1f MB of record data, medians of %d runs\n", records,
              bytes / 1e6, runs);
  std::vector<Row> rows;
  for (bool one_per_batch : {true, false}) {
    const auto batches = Batches(blocks, one_per_batch);
    const std::string shape = one_per_batch ? "1 record/batch" : "1 batch";
    for (arrow::IpcFormat format : {arrow::IpcFormat::kFile, arrow::IpcFormat::kStream}) {
      const std::string kind = format == arrow::IpcFormat::kFile ? "file" : "stream";
      Bytes written = Write(batches, format, Bytes());
      rows.push_back({RowName("write", kind, shape, "to memory"),
                      Time(runs, [&] { written = Write(batches, format, std::move(written)); }),
                      "memcpy", copy});
      auto source = arrow::MemorySource(written, "bench");
      volatile std::uint64_t sink = 0;
      rows.push_back({RowName("read", kind, shape, "from memory"),
                      Time(runs,
                           [&] {
                             sink = format == arrow::IpcFormat::kFile ? ReadFile(source)
                                                                      : ReadStream(source);
                           }),
                      "memcpy", copy});
    }
  }
  const auto batches = Batches(blocks, true);
  const std::string name = "arrow_ipc_bench." + std::to_string(::getpid()) + ".arrow";
  const auto path = std::filesystem::temp_directory_path() / name;
  const auto raw_path = std::filesystem::path(path) += ".raw";
  // Our files are values of the FileStore over their directory.
  auto files = store::FileStore::Open(std::filesystem::temp_directory_path());
  Check(files.status());
  const double ours_write = Time(runs, [&] {
    auto sink = arrow::CreateStoreSink(*files, name, {.overwrite = true});
    Check(sink.status());
    auto writer = arrow::IpcWriter::Create(std::move(*sink), dvid::ExportShardSchema());
    Check(writer.status());
    for (const auto& batch : batches) Check((*writer)->WriteRecordBatch(batch.View()).status());
    Check((*writer)->Finish());
  });
  auto content = core::ReadFile(path);
  Check(content.status());
  const double raw_write = Time(runs, [&] { RawWrite(raw_path, *content); });
  rows.push_back({"write file, 1 record/batch, to a file", ours_write, "write(2)", raw_write});
  auto source = arrow::OpenStoreSource(*files, name);
  Check(source.status());
  auto reader = arrow::IpcFileReader::Open(*source);
  Check(reader.status());
  std::vector<arrow::MessageBlock> file_blocks;
  for (std::size_t i = 0; i < reader->num_record_batches(); ++i)
    file_blocks.push_back(reader->block(i));
  volatile std::uint64_t sink = 0;
  const double ours_read = Time(runs, [&] {
    auto fresh = arrow::OpenStoreSource(*files, name);
    Check(fresh.status());
    sink = ReadFile(*fresh);
  });
  Bytes buffer;
  const double raw_read = Time(runs, [&] { sink = RawRead(path, file_blocks, buffer); });
  rows.push_back({"read file, 1 record/batch, from a file", ours_read, "pread(2)", raw_read});
  std::string version;
  const std::map<std::string, double> pyarrow =
      python == "none" ? std::map<std::string, double>{}
                       : PyarrowSeconds(python, path, records, runs, &version);
  if (!version.empty()) std::printf("peer: pyarrow %s\n", version.c_str());
  PrintRows(rows, pyarrow, bytes);
  std::filesystem::remove(raw_path);
  std::filesystem::remove(path);
  return 0;
}

}  // namespace
}  // namespace chunkwise::formats

int main(int argc, char** argv) { return chunkwise::formats::Run(argc, argv); }
