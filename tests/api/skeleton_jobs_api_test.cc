// Skeletons split into parts through the facade alone (facade/
// skeleton_jobs.h): a job of 2, 3 or 5 parts, run in shuffled orders of
// parts, and one of ranks, write the same bytes as Skeletonize in one
// process, a zarr-vectors store too; scratch objects forged or missing are
// named; a label over max_memory is named with what it needs.
#include <cstring>
#include <fstream>

#include "api_test_support.h"
#include "split_job_test_support.h"

namespace chunkwise {
namespace {

using api_test::CountFilesUnder;
using api_test::ExpectSameFiles;
using api_test::FilesUnder;
using api_test::Message;
using api_test::RunOnThreadRanks;

class SkeletonJobsApi : public api_test::SplitJobTest {
 protected:
  // A 24 x 24 x 40 uint32 volume: a tube of one label along x across every
  // chunk and touching the volume's x faces, a ball, and around them some
  // 4500 labels of two voxels each with background between some, so that a
  // sharded folder has two shards.
  void SetUp() override {
    SetUpLabels({24, 24, 40}, {8, 8, 16}, [](int z, int y, int x) -> std::uint32_t {
      const int tube = (z - 6) * (z - 6) + (y - 6) * (y - 6);
      const int ball = (z - 15) * (z - 15) + (y - 15) * (y - 15) + (x - 22) * (x - 22);
      if (tube <= 12) return 9000001;
      if (ball < 40) return 9000002;
      if ((x + 2 * y + 3 * z) % 11 == 0 || z < 12) return 0;
      return static_cast<std::uint32_t>((z / 2 * 24 + y) * 40 + x + 1);
    });
  }

  // A destination for `format`: a segmentation, or a folder for SWC.
  std::string Destination(SkeletonFormat format, const std::string& name) {
    return format == SkeletonFormat::kSwc ? (root_ / name).string() : Segmentation(name);
  }

  static SkeletonizeOptions Options(SkeletonFormat format) {
    SkeletonizeOptions options;
    options.format = format;
    options.voxel_size = std::array<double, 3>{4, 4, 40};
    options.constant = 20;
    return options;
  }

  // Steps 1 and 2 of a job to `dest`.
  api_test::PartSteps Steps(const std::string& dest, const SkeletonizeOptions& options) {
    return SplitJobTest::Steps(dest, options, &ScanSkeletonJobPart, &SkeletonizeJobPart);
  }

  static void ExpectSameSummary(const SkeletonizeSummary& got, const SkeletonizeSummary& want) {
    EXPECT_EQ(got.labels, want.labels);
    EXPECT_EQ(got.voxels, want.voxels);
    EXPECT_EQ(got.vertices, want.vertices);
    EXPECT_EQ(got.edges, want.edges);
    EXPECT_EQ(got.cable_length, want.cable_length);
    EXPECT_EQ(got.files, want.files);
    EXPECT_EQ(got.bytes, want.bytes);
    EXPECT_EQ(got.prefix, want.prefix);
  }

  // A job of `parts` to `split`, its summary and files those of one process
  // (`expected`, at `whole`).
  void ExpectSplitEqualsWhole(const std::string& whole, const SkeletonizeSummary& expected,
                              const std::string& split, const SkeletonizeOptions& options,
                              int parts) {
    SCOPED_TRACE(parts);
    api_test::RunPartsShuffled(Steps(split, options), parts);
    auto summary = FinishSkeletonJob(context_, zarr_, split, options, parts);
    ASSERT_TRUE(summary.ok()) << summary.status().ToString();
    ExpectSameSummary(*summary, expected);
    ExpectSameFiles(whole, split);
  }

  // The job on 3 ranks: every rank returns the summary of one process, and
  // the files are those at `whole`.
  void ExpectRanksEqualWhole(const std::string& whole, const SkeletonizeSummary& expected,
                             const std::string& split, const SkeletonizeOptions& options) {
    const auto results = RunOnThreadRanks<SkeletonizeSummary>(
        3, [&](const Context& context, core::Communicator& rank) {
          SkeletonizeOptions own = options;
          own.ranks = &rank;
          return Skeletonize(context, zarr_, split, own);
        });
    for (const auto& result : results) {
      ASSERT_TRUE(result.ok()) << result.status().ToString();
      ExpectSameSummary(*result, expected);
    }
    ExpectSameFiles(whole, split);
  }
};

TEST_F(SkeletonJobsApi, ASplitJobWritesTheBytesOfOneProcess) {
  for (const SkeletonFormat format :
       {SkeletonFormat::kPrecomputedSharded, SkeletonFormat::kPrecomputed, SkeletonFormat::kSwc}) {
    SCOPED_TRACE(static_cast<int>(format));
    const SkeletonizeOptions options = Options(format);
    const std::string whole = Destination(format, "whole" + std::to_string(int(format)));
    auto expected = Skeletonize(context_, zarr_, whole, options);
    ASSERT_TRUE(expected.ok()) << expected.status().ToString();
    ASSERT_GT(expected->labels, 4096u);  // Sharded: more than one shard.
    for (const int parts : {2, 3, 5}) {
      ExpectSplitEqualsWhole(
          whole, *expected,
          Destination(format, "split" + std::to_string(int(format)) + "-" + std::to_string(parts)),
          options, parts);
      const auto want = FilesUnder(whole);
      if (format == SkeletonFormat::kPrecomputedSharded) {
        EXPECT_TRUE(want.contains("skeletons/0.shard"));
        EXPECT_TRUE(want.contains("skeletons/1.shard"));
      }
    }
  }
}

TEST_F(SkeletonJobsApi, RanksSplitTheJobAndReturnTheSameSummary) {
  const SkeletonizeOptions options = Options(SkeletonFormat::kPrecomputedSharded);
  const std::string whole = Segmentation("whole");
  auto expected = Skeletonize(context_, zarr_, whole, options);
  ASSERT_TRUE(expected.ok()) << expected.status().ToString();
  ExpectRanksEqualWhole(whole, *expected, Segmentation("ranks"), options);
}

TEST_F(SkeletonJobsApi, AForgedOrCutScratchObjectIsCorruptionNamingItsKey) {
  const SkeletonizeOptions options = Options(SkeletonFormat::kPrecomputed);
  const std::string dest = Segmentation("forged");
  api_test::RunParts(Steps(dest, options), 2, {0, 1}, {});
  const std::string key = "skeletons/.chunkwise-scratch/labels/1";
  const std::filesystem::path table = std::filesystem::path(dest) / key;
  const std::string bytes = FilesUnder(dest).at(key);
  ASSERT_GT(bytes.size(), 90u);
  std::string box_outside = bytes;
  std::memset(box_outside.data() + 24 + 8 + 24, 0x7f, 8);  // The first label's box stop z.
  std::string label_zero = bytes;
  std::memset(label_zero.data() + 24, 0, 8);
  for (const std::string& forged :
       {bytes.substr(0, bytes.size() - 3), std::string("XXXXXXXX") + bytes.substr(8),
        bytes + std::string(1, '\0'), box_outside, label_zero}) {
    std::ofstream(table, std::ios::binary | std::ios::trunc) << forged;
    const Status status = SkeletonizeJobPart(context_, zarr_, dest, options, 0, 2);
    EXPECT_EQ(status.code(), StatusCode::kCorruption) << status.ToString();
    EXPECT_NE(Message(status).find(".chunkwise-scratch/labels/1"), std::string::npos)
        << status.ToString();
  }
  // A count past the end is refused before anything is allocated for it.
  std::string huge = bytes;
  std::memset(huge.data() + 16, 0xff, 8);
  std::ofstream(table, std::ios::binary | std::ios::trunc) << huge;
  EXPECT_EQ(SkeletonizeJobPart(context_, zarr_, dest, options, 1, 2).code(),
            StatusCode::kCorruption);
  // Step 2's own objects: a forged one stops the finish, which publishes nothing.
  std::ofstream(table, std::ios::binary | std::ios::trunc) << bytes;
  api_test::RunParts(Steps(dest, options), 2, {}, {1, 0});
  const std::filesystem::path part =
      std::filesystem::path(dest) / "skeletons/.chunkwise-scratch/skeletonized/0";
  ASSERT_TRUE(std::filesystem::exists(part));
  std::ofstream(part, std::ios::binary | std::ios::app) << "x";
  auto finished = FinishSkeletonJob(context_, zarr_, dest, options, 2);
  EXPECT_EQ(finished.status().code(), StatusCode::kCorruption) << finished.status().ToString();
  EXPECT_NE(Message(finished.status()).find(".chunkwise-scratch/skeletonized/0"),
            std::string::npos);
  EXPECT_EQ(CountFilesUnder(dest, {"skeletons/"}), 0u);
  EXPECT_EQ(FilesUnder(dest).at("info").find("\"skeletons\""), std::string::npos);
}

TEST_F(SkeletonJobsApi, AMissingPartIsNamedAndAbandonErasesTheJob) {
  const SkeletonizeOptions options = Options(SkeletonFormat::kPrecomputed);
  const std::string dest = Segmentation("missing");
  api_test::RunParts(Steps(dest, options), 3, {0, 2}, {});
  const Status step = SkeletonizeJobPart(context_, zarr_, dest, options, 0, 3);
  EXPECT_EQ(step.code(), StatusCode::kNotFound) << step.ToString();
  EXPECT_NE(Message(step).find(".chunkwise-scratch/labels/1"), std::string::npos)
      << step.ToString();
  api_test::RunParts(Steps(dest, options), 3, {1}, {0, 2});
  EXPECT_GT(CountFilesUnder(dest, {"skeletons/"}), 0u);
  auto finished = FinishSkeletonJob(context_, zarr_, dest, options, 3);
  EXPECT_EQ(finished.status().code(), StatusCode::kNotFound) << finished.status().ToString();
  EXPECT_NE(Message(finished.status()).find("skeletonized/1"), std::string::npos);
  EXPECT_EQ(CountFilesUnder(dest, {"skeletons/"}), 0u);
  AbandonSkeletonJob(context_, zarr_, dest, options, 3, true);
  EXPECT_EQ(CountFilesUnder(dest, {"skeletons/"}), 0u);
}

TEST_F(SkeletonJobsApi, PartsOutOfRangeAndExistingSkeletonsAreRefused) {
  SkeletonizeOptions options = Options(SkeletonFormat::kPrecomputed);
  const std::string dest = Segmentation("refused");
  const Status part = ScanSkeletonJobPart(context_, zarr_, dest, options, 3, 3);
  EXPECT_EQ(part.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(part.field(), "part");
  EXPECT_EQ(ScanSkeletonJobPart(context_, zarr_, dest, options, 0, 0).field(), "parts");
  ASSERT_TRUE(Skeletonize(context_, zarr_, dest, options).ok());
  const Status again = ScanSkeletonJobPart(context_, zarr_, dest, options, 0, 2);
  EXPECT_EQ(again.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(Message(again).find("already holds skeletons"), std::string::npos);
  options.format = SkeletonFormat::kVectors;
  EXPECT_EQ(ScanSkeletonJobPart(context_, zarr_, (root_ / "v").string(), options, 2, 2).field(),
            "part");
}

// A zarr-vectors skeleton store (#41): 2, 3 and 5 parts, run in any order,
// and 3 ranks write the store one process writes, byte for byte.
TEST_F(SkeletonJobsApi, AVectorsJobWritesTheStoreOfOneProcess) {
  SkeletonizeOptions options = Options(SkeletonFormat::kVectors);
  options.vectors_chunk_shape = std::array<double, 3>{40, 40, 400};  // 10 x 10 x 10 voxels.
  const std::string whole = (root_ / "whole.zarrvectors").string();
  auto expected = Skeletonize(context_, zarr_, whole, options);
  ASSERT_TRUE(expected.ok()) << expected.status().ToString();
  ASSERT_GT(expected->labels, 4096u);
  ASSERT_GT(expected->files, 8u);  // The store's chunks: the tube crosses several.
  EXPECT_TRUE(expected->prefix.empty());
  for (const int parts : {2, 3, 5}) {
    ExpectSplitEqualsWhole(whole, *expected,
                           (root_ / ("split" + std::to_string(parts) + ".zarrvectors")).string(),
                           options, parts);
  }
  // A store already there is refused before any scan without overwrite,
  // and replaced with it.
  const std::string again = (root_ / "split2.zarrvectors").string();
  const Status refused = ScanSkeletonJobPart(context_, zarr_, again, options, 0, 2);
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument) << refused.ToString();
  EXPECT_EQ(refused.field(), "overwrite");
  EXPECT_NE(Message(refused).find("split2.zarrvectors"), std::string::npos) << refused.ToString();
  options.overwrite = true;
  ExpectSplitEqualsWhole(whole, *expected, again, options, 2);
  options.overwrite = false;

  ExpectRanksEqualWhole(whole, *expected, (root_ / "ranks.zarrvectors").string(), options);
}

TEST_F(SkeletonJobsApi, AVectorsJobWithACutScratchObjectWritesNoStore) {
  const SkeletonizeOptions options = Options(SkeletonFormat::kVectors);
  const std::string dest = (root_ / "cut.zarrvectors").string();
  api_test::RunParts(Steps(dest, options), 2, {1, 0}, {0, 1});
  const std::string key = ".chunkwise-scratch/skeletonized/1";
  const std::string bytes = FilesUnder(dest).at(key);
  ASSERT_GT(bytes.size(), 100u);  // Its skeletons, not just figures.
  // A skeleton's edge count raised past what its file holds.
  std::string forged = bytes;
  forged[8 + 8 + 16 + 8 + 16 + 4] ^= 0x40;
  for (const std::string& cut : {bytes.substr(0, bytes.size() - 3), forged}) {
    std::ofstream(std::filesystem::path(dest) / key, std::ios::binary | std::ios::trunc) << cut;
    auto finished = FinishSkeletonJob(context_, zarr_, dest, options, 2);
    EXPECT_EQ(finished.status().code(), StatusCode::kCorruption) << finished.status().ToString();
    EXPECT_NE(Message(finished.status()).find(key), std::string::npos)
        << finished.status().ToString();
    // The scratch folder is erased and no store is written.
    EXPECT_TRUE(FilesUnder(dest).empty());
    api_test::RunParts(Steps(dest, options), 2, {0, 1}, {1, 0});
  }
}

TEST_F(SkeletonJobsApi, ALabelOverMaxMemoryIsNamedWithWhatItNeeds) {
  SkeletonizeOptions options = Options(SkeletonFormat::kPrecomputed);
  // The tube's padded box: 26 x 11 x 42 voxels (x 42, y 11, z 26... as z, y, x: 11, 11, 42).
  options.max_memory = 1 << 16;
  const std::string dest = Segmentation("memory");
  auto refused = Skeletonize(context_, zarr_, dest, options);
  EXPECT_EQ(refused.status().code(), StatusCode::kResourceExhausted) << refused.status().ToString();
  EXPECT_EQ(refused.status().field(), "max_memory");
  EXPECT_NE(Message(refused.status()).find("label 9000001 needs"), std::string::npos)
      << refused.status().ToString();
  EXPECT_EQ(CountFilesUnder(dest, {"skeletons/"}), 0u);
  options.max_memory = 1 << 30;
  EXPECT_TRUE(Skeletonize(context_, zarr_, dest, options).ok());
}

}  // namespace
}  // namespace chunkwise
