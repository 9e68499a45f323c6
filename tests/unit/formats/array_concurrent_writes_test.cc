// Writers of different regions of one shard, or of one plain (unsharded)
// chunk, lose nothing: processes and threads, each with its own Array over
// one store, write interleaved blocks of a single shard or chunk, and every
// element reads back. Without the read-modify-write retrying on conflict
// (store::UpdateObject), the last writer erased the others' blocks.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "chunkwise/core/thread_pool.h"
#include "chunkwise/store/file_store.h"
#include "formats/zarr/array.h"
#include "store/memory_store.h"
#include "unit/scratch_directory.h"
#include "unit/store/s3_test_server.h"

namespace chunkwise::formats::zarr {
namespace {

using core::Region;
using nlohmann::json;

// One shard of 16 x 32 uint16 elements in 8 x 8 inner chunks of 2 x 4.
constexpr std::int64_t kRows = 16, kCols = 32, kInnerRows = 2, kInnerCols = 4;
constexpr int kInnerChunks = (kRows / kInnerRows) * (kCols / kInnerCols);

ArrayMetadata OneShardMetadata() {
  const json bytes = {{"name", "bytes"}, {"configuration", {{"endian", "little"}}}};
  ArrayMetadata metadata;
  metadata.shape = {kRows, kCols};
  metadata.chunk_shape = {kRows, kCols};
  metadata.data_type = core::DataType(core::DataTypeId::kUInt16);
  metadata.fill_value = {0, 0};
  metadata.codecs = json::array({{{"name", "sharding_indexed"},
                                  {"configuration",
                                   {{"chunk_shape", {kInnerRows, kInnerCols}},
                                    {"codecs", json::array({bytes})},
                                    {"index_codecs", json::array({bytes, {{"name", "crc32c"}}})},
                                    {"index_location", "end"}}}}});
  return metadata;
}

// The same 16 x 32 elements as one plain chunk, zstd-compressed.
ArrayMetadata OneChunkMetadata() {
  ArrayMetadata metadata;
  metadata.shape = {kRows, kCols};
  metadata.chunk_shape = {kRows, kCols};
  metadata.data_type = core::DataType(core::DataTypeId::kUInt16);
  metadata.fill_value = {0, 0};
  metadata.codecs =
      json::array({{{"name", "bytes"}, {"configuration", {{"endian", "little"}}}},
                   {{"name", "zstd"}, {"configuration", {{"level", 1}, {"checksum", false}}}}});
  return metadata;
}

enum class Layout { kOneShard, kOneChunk };

std::string LayoutName(Layout layout) { return layout == Layout::kOneShard ? "shard" : "chunk"; }

// Element (i, j) holds i * kCols + j + 1: never the fill value, and each its own.
std::uint16_t Expected(std::int64_t i, std::int64_t j) {
  return static_cast<std::uint16_t>(i * kCols + j + 1);
}

Region InnerChunkRegion(int k) {
  const std::int64_t row = (k / (kCols / kInnerCols)) * kInnerRows;
  const std::int64_t col = (k % (kCols / kInnerCols)) * kInnerCols;
  return Region({row, col}, {row + kInnerRows, col + kInnerCols});
}

// Writer `w` of `writers` writes every inner chunk k with k % writers == w,
// one Write each, through an Array of its own.
Status WriteOwnInnerChunks(std::shared_ptr<store::Store> store, const std::string& prefix, int w,
                           int writers) {
  ArrayOptions options;
  options.pool = std::make_shared<core::ThreadPool>(1);
  CHUNKWISE_ASSIGN_OR_RETURN(Array array, Array::Open(std::move(store), prefix, options));
  for (int k = w; k < kInnerChunks; k += writers) {
    const Region region = InnerChunkRegion(k);
    Bytes data;
    for (std::int64_t i = region.start()[0]; i < region.stop()[0]; ++i) {
      for (std::int64_t j = region.start()[1]; j < region.stop()[1]; ++j) {
        const std::uint16_t value = Expected(i, j);
        data.push_back(static_cast<std::uint8_t>(value & 0xff));
        data.push_back(static_cast<std::uint8_t>(value >> 8));
      }
    }
    CHUNKWISE_RETURN_IF_ERROR(array.Write(region, data));
  }
  return Status::Ok();
}

// How many elements of the array at `prefix` do not hold their value.
int LostElements(std::shared_ptr<store::Store> store, const std::string& prefix) {
  Result<Array> array = Array::Open(std::move(store), prefix);
  if (!array.ok()) return kRows * kCols;
  Result<Bytes> all = array->Read(Region({0, 0}, {kRows, kCols}));
  if (!all.ok()) return kRows * kCols;
  int lost = 0;
  for (std::int64_t i = 0; i < kRows; ++i) {
    for (std::int64_t j = 0; j < kCols; ++j) {
      const std::size_t at = 2 * static_cast<std::size_t>(i * kCols + j);
      const auto value = static_cast<std::uint16_t>((*all)[at] | ((*all)[at + 1] << 8));
      lost += value != Expected(i, j);
    }
  }
  return lost;
}

Status CreateArray(std::shared_ptr<store::Store> store, const std::string& prefix, Layout layout) {
  ArrayOptions options;
  options.pool = std::make_shared<core::ThreadPool>(1);
  const ArrayMetadata metadata =
      layout == Layout::kOneShard ? OneShardMetadata() : OneChunkMetadata();
  return Array::Create(std::move(store), prefix, metadata, false, options).status();
}

// `trials` runs of `writers` threads, each trial into a fresh array; returns
// the trials that lost something, with what went wrong.
std::vector<std::string> RunThreads(const std::shared_ptr<store::Store>& store, int writers,
                                    int trials, Layout layout) {
  std::vector<std::string> failures;
  for (int trial = 0; trial < trials; ++trial) {
    const std::string prefix =
        LayoutName(layout) + "_t" + std::to_string(writers) + "_" + std::to_string(trial) + "/";
    const std::string name = std::to_string(writers) + " threads, trial " + std::to_string(trial);
    if (Status created = CreateArray(store, prefix, layout); !created.ok()) {
      failures.push_back(name + ": " + created.ToString());
      continue;
    }
    std::vector<Status> results(writers);
    std::vector<std::thread> threads;
    for (int w = 0; w < writers; ++w) {
      threads.emplace_back([&, w] { results[w] = WriteOwnInnerChunks(store, prefix, w, writers); });
    }
    for (std::thread& thread : threads) thread.join();
    for (const Status& result : results) {
      if (!result.ok()) failures.push_back(name + ": " + result.ToString());
    }
    if (const int lost = LostElements(store, prefix); lost != 0) {
      failures.push_back(name + ": " + std::to_string(lost) + " elements lost");
    }
  }
  return failures;
}

// 2, 4 and 8 processes, each with its own FileStore and Array, 100 trials in
// all; returns the trials that lost something.
std::vector<std::string> RunProcesses(const std::filesystem::path& root, Layout layout,
                                      int* trials) {
  const std::vector<std::pair<int, int>> runs = {{2, 34}, {4, 33}, {8, 33}};
  std::vector<std::string> failures;
  for (const auto& [processes, run_trials] : runs) {
    for (int trial = 0; trial < run_trials; ++trial, ++*trials) {
      const std::string prefix =
          LayoutName(layout) + "_p" + std::to_string(processes) + "_" + std::to_string(trial) + "/";
      const std::string name =
          std::to_string(processes) + " processes, trial " + std::to_string(trial);
      if (!CreateArray(*store::FileStore::Open(root), prefix, layout).ok()) {
        failures.push_back(name + ": create failed");
        continue;
      }
      std::vector<pid_t> children;
      for (int p = 0; p < processes; ++p) {
        const pid_t child = ::fork();
        if (child < 0) return {name + ": fork failed"};
        if (child == 0) {
          Result<std::shared_ptr<store::FileStore>> store = store::FileStore::Open(root);
          const bool ok = store.ok() && WriteOwnInnerChunks(*store, prefix, p, processes).ok();
          ::_exit(ok ? 0 : 1);
        }
        children.push_back(child);
      }
      for (const pid_t child : children) {
        int status = 0;
        if (::waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
            WEXITSTATUS(status) != 0) {
          failures.push_back(name + ": a writer failed");
        }
      }
      if (const int lost = LostElements(*store::FileStore::Open(root), prefix); lost != 0) {
        failures.push_back(name + ": " + std::to_string(lost) + " elements lost");
      }
    }
  }
  return failures;
}

TEST(ArrayConcurrentWrites, ProcessesWritingOneShardOfAFileStoreLoseNothing) {
  const auto root = test::FreshScratchDirectory("array-processes");
  int trials = 0;
  EXPECT_EQ(RunProcesses(root, Layout::kOneShard, &trials), std::vector<std::string>{});
  EXPECT_EQ(trials, 100);
}

// On the main before unsharded chunks used conditional writes, 2 processes
// lost blocks in most trials.
TEST(ArrayConcurrentWrites, ProcessesWritingOneChunkOfAFileStoreLoseNothing) {
  const auto root = test::FreshScratchDirectory("array-processes-chunk");
  int trials = 0;
  EXPECT_EQ(RunProcesses(root, Layout::kOneChunk, &trials), std::vector<std::string>{});
  EXPECT_EQ(trials, 100);
}

TEST(ArrayConcurrentWrites, ThreadsWritingOneShardOfAFileStoreLoseNothing) {
  const auto root = test::FreshScratchDirectory("array-threads");
  std::shared_ptr<store::Store> store = *store::FileStore::Open(root);
  for (const int threads : {2, 4, 8}) {
    EXPECT_EQ(RunThreads(store, threads, 5, Layout::kOneShard), std::vector<std::string>{})
        << threads;
  }
}

TEST(ArrayConcurrentWrites, ThreadsWritingOneShardOfAMemoryStoreLoseNothing) {
  std::shared_ptr<store::Store> store = std::make_shared<store::MemoryStore>();
  for (const int threads : {2, 4, 8}) {
    EXPECT_EQ(RunThreads(store, threads, 10, Layout::kOneShard), std::vector<std::string>{})
        << threads;
  }
}

TEST(ArrayConcurrentWrites, ThreadsWritingOneShardOfAnS3StoreLoseNothing) {
  const test::S3TestServers* servers = test::TestS3Servers();
  ASSERT_NE(servers, nullptr) << "the S3 test server (moto) did not start";
  std::shared_ptr<store::Store> store = test::OpenTestS3Store(test::TestS3Options(*servers));
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(RunThreads(store, 4, 2, Layout::kOneShard), std::vector<std::string>{});
}

// The same for one plain chunk: 100 trials each on the file and memory
// stores (2, 4 and 8 threads), 2 on S3.
TEST(ArrayConcurrentWrites, ThreadsWritingOneChunkOfAFileStoreLoseNothing) {
  const auto root = test::FreshScratchDirectory("array-threads-chunk");
  std::shared_ptr<store::Store> store = *store::FileStore::Open(root);
  for (const int threads : {2, 4, 8}) {
    EXPECT_EQ(RunThreads(store, threads, 34, Layout::kOneChunk), std::vector<std::string>{})
        << threads;
  }
}

TEST(ArrayConcurrentWrites, ThreadsWritingOneChunkOfAMemoryStoreLoseNothing) {
  std::shared_ptr<store::Store> store = std::make_shared<store::MemoryStore>();
  for (const int threads : {2, 4, 8}) {
    EXPECT_EQ(RunThreads(store, threads, 34, Layout::kOneChunk), std::vector<std::string>{})
        << threads;
  }
}

TEST(ArrayConcurrentWrites, ThreadsWritingOneChunkOfAnS3StoreLoseNothing) {
  const test::S3TestServers* servers = test::TestS3Servers();
  ASSERT_NE(servers, nullptr) << "the S3 test server (moto) did not start";
  std::shared_ptr<store::Store> store = test::OpenTestS3Store(test::TestS3Options(*servers));
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(RunThreads(store, 4, 2, Layout::kOneChunk), std::vector<std::string>{});
}

}  // namespace
}  // namespace chunkwise::formats::zarr
