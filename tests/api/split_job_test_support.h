// What the tests of the split jobs (facade/mesh_jobs.h, facade/
// skeleton_jobs.h) share to show that a job in N parts equals one process:
// the parts' steps run in shuffled orders, the job run on ranks that are
// threads, and the two output trees compared file by file, byte for byte.
#ifndef CHUNKWISE_TESTS_API_SPLIT_JOB_TEST_SUPPORT_H_
#define CHUNKWISE_TESTS_API_SPLIT_JOB_TEST_SUPPORT_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "api_test_support.h"
#include "chunkwise/chunkwise.h"
#include "thread_ranks.h"

namespace chunkwise::api_test {

// Every file under `root` by its path relative to it, with its bytes; none
// when `root` is absent.
inline std::map<std::string, std::string> FilesUnder(const std::filesystem::path& root) {
  std::map<std::string, std::string> files;
  if (!std::filesystem::exists(root)) return files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    files[std::filesystem::relative(entry.path(), root).string()] =
        std::string(std::istreambuf_iterator<char>(in), {});
  }
  return files;
}

// How many files under `root` lie under one of the folders `prefixes` ("mesh/").
inline std::size_t CountFilesUnder(const std::filesystem::path& root,
                                   const std::vector<std::string>& prefixes) {
  std::size_t n = 0;
  for (const auto& [path, bytes] : FilesUnder(root)) {
    n += std::any_of(prefixes.begin(), prefixes.end(),
                     [&](const std::string& prefix) { return path.starts_with(prefix); });
  }
  return n;
}

// A new uint32 zarr array at `url` of `shape` (z, y, x) in `chunks`, voxel
// (z, y, x) holding label(z, y, x): the label volume a job reads.
inline void WriteLabelVolume(const Context& context, const std::string& url,
                             const std::vector<std::int64_t>& shape,
                             const std::vector<std::int64_t>& chunks,
                             const std::function<std::uint32_t(int, int, int)>& label) {
  ZarrArraySpec spec;
  spec.shape = shape;
  spec.data_type = *ParseDataType("uint32");
  spec.chunks = chunks;
  auto array = CreateZarrArray(context, url, spec);
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  std::vector<std::uint32_t> labels;
  labels.reserve(static_cast<std::size_t>(shape[0] * shape[1] * shape[2]));
  for (int z = 0; z < shape[0]; ++z) {
    for (int y = 0; y < shape[1]; ++y) {
      for (int x = 0; x < shape[2]; ++x) labels.push_back(label(z, y, x));
    }
  }
  Bytes bytes(labels.size() * 4);
  std::memcpy(bytes.data(), labels.data(), bytes.size());
  const Status written =
      WriteRegion(context, *array, core::Region({0, 0, 0}, core::Coord(shape)), bytes);
  ASSERT_TRUE(written.ok()) << written.ToString();
}

// The two steps every part of a split job runs, the second once every part
// has run the first.
struct PartSteps {
  std::function<Status(int part, int parts)> first;
  std::function<Status(int part, int parts)> second;
};

// The fixture of a split job's tests: the test's own folder, its label
// volume ("labels.zarr", written by SetUpLabels) and fresh segmentations of it.
class SplitJobTest : public ::testing::Test {
 protected:
  void SetUpLabels(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& chunks,
                   const std::function<std::uint32_t(int, int, int)>& label) {
    root_ = FreshDirectory(::testing::UnitTest::GetInstance()->current_test_info()->name());
    zarr_ = (root_ / "labels.zarr").string();
    WriteLabelVolume(context_, zarr_, shape, chunks, label);
  }

  // A fresh segmentation (4 x 4 x 40 nm) of the labels.
  std::string Segmentation(const std::string& name) {
    const std::string url = (root_ / name).string();
    ZarrToPrecomputedOptions options;
    options.resolution = {4, 4, 40};
    auto converted = ZarrToPrecomputed(context_, zarr_, url, options);
    EXPECT_TRUE(converted.ok()) << converted.status().ToString();
    return url;
  }

  // The part steps `first` and `second` (facade/mesh_jobs.h,
  // facade/skeleton_jobs.h) of a job from the labels to `dest`.
  template <typename Options>
  PartSteps Steps(const std::string& dest, const Options& options,
                  Status (*first)(const Context&, std::string_view, std::string_view,
                                  const Options&, int, int, const CallOptions&),
                  Status (*second)(const Context&, std::string_view, std::string_view,
                                   const Options&, int, int, const CallOptions&)) {
    auto step = [this, dest, options](auto run) {
      return [this, dest, options, run](int part, int parts) {
        return run(context_, zarr_, dest, options, part, parts, CallOptions{});
      };
    };
    return {step(first), step(second)};
  }

  Context context_;
  std::filesystem::path root_;
  std::string zarr_;
};

// The first step of the parts in `first_order`, then the second of those
// in `second_order`, each asserted to succeed.
inline void RunParts(const PartSteps& steps, int parts, const std::vector<int>& first_order,
                     const std::vector<int>& second_order) {
  for (const int part : first_order) {
    const Status status = steps.first(part, parts);
    ASSERT_TRUE(status.ok()) << "part " << part << ": " << status.ToString();
  }
  for (const int part : second_order) {
    const Status status = steps.second(part, parts);
    ASSERT_TRUE(status.ok()) << "part " << part << ": " << status.ToString();
  }
}

// Every part's steps: the first in one shuffled order (seeded by `parts`,
// so a failure repeats), then the second in another.
inline void RunPartsShuffled(const PartSteps& steps, int parts) {
  std::vector<int> first(static_cast<std::size_t>(parts));
  std::iota(first.begin(), first.end(), 0);
  std::mt19937 shuffle(static_cast<unsigned>(parts));
  std::shuffle(first.begin(), first.end(), shuffle);
  std::vector<int> second = first;
  std::shuffle(second.begin(), second.end(), shuffle);
  RunParts(steps, parts, first, second);
}

// The tree at `got` holds the files of the tree at `want`, byte for byte,
// and nothing more (no scratch object is left).
inline void ExpectSameFiles(const std::filesystem::path& want, const std::filesystem::path& got) {
  const auto want_files = FilesUnder(want);
  const auto got_files = FilesUnder(got);
  ASSERT_FALSE(want_files.empty()) << want;
  for (const auto& [path, bytes] : want_files) {
    ASSERT_TRUE(got_files.contains(path)) << got / path << " is missing";
    ASSERT_TRUE(got_files.at(path) == bytes) << got / path << " differs";
  }
  for (const auto& [path, bytes] : got_files) {
    EXPECT_TRUE(want_files.contains(path)) << got / path << " is extra";
  }
}

// `run` on each rank of a job of `size` ranks, each a thread with its own
// Context; the results in rank order.
template <typename T>
std::vector<Result<T>> RunOnThreadRanks(
    int size, const std::function<Result<T>(const Context&, core::Communicator&)>& run) {
  ThreadRanks job(size);
  std::vector<Result<T>> results(static_cast<std::size_t>(size), Status::Internal("not run"));
  std::vector<std::thread> threads;
  for (int r = 0; r < size; ++r) {
    threads.emplace_back([&, r] {
      Context context;
      ThreadRanks::Rank rank(job, r);
      results[static_cast<std::size_t>(r)] = run(context, rank);
    });
  }
  for (std::thread& thread : threads) thread.join();
  return results;
}

}  // namespace chunkwise::api_test

#endif  // CHUNKWISE_TESTS_API_SPLIT_JOB_TEST_SUPPORT_H_
