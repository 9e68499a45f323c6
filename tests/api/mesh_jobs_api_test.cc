// Meshing split into parts through the facade alone (facade/mesh_jobs.h):
// a job of several parts, run in any order of parts, and one of ranks,
// write the same bytes as GenerateMeshes in one process; scratch objects
// forged or missing are named.
#include <algorithm>
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

class MeshJobsApi : public api_test::SplitJobTest {
 protected:
  // A 24^3 uint32 volume: a ball of one label across every chunk, and
  // around it some 5000 labels of two voxels each, with background between
  // some, so that a sharded folder has two shards.
  void SetUp() override {
    SetUpLabels({24, 24, 24}, {8, 8, 8}, [](int z, int y, int x) -> std::uint32_t {
      const int r2 = (z - 12) * (z - 12) + (y - 11) * (y - 11) + (x - 13) * (x - 13);
      if (r2 < 64) return 7000001;
      if ((x + 2 * y + 3 * z) % 11 == 0) return 0;
      return static_cast<std::uint32_t>((z / 2 * 24 + y) * 24 + x + 1);
    });
  }

  MeshOptions Options(const std::string& format) {
    MeshOptions options;
    options.format = format;
    options.chunk = {8, 8, 8};
    options.lods = 2;
    return options;
  }

  // Steps 1 and 2 of a job to `dest`.
  api_test::PartSteps Steps(const std::string& dest, const MeshOptions& options) {
    return SplitJobTest::Steps(dest, options, &MeshJobPart, &MergeMeshJobPart);
  }

  // A job of `parts` to `split`, its summary checked against `expected`
  // and its files against those of one process at `whole`.
  void ExpectSplitEqualsWhole(const std::string& whole, const MeshSummary& expected,
                              const std::string& split, const MeshOptions& options, int parts) {
    SCOPED_TRACE(parts);
    api_test::RunPartsShuffled(Steps(split, options), parts);
    auto summary = FinishMeshJob(context_, zarr_, split, options, parts);
    ASSERT_TRUE(summary.ok()) << summary.status().ToString();
    EXPECT_EQ(summary->segments, expected.segments);
    EXPECT_EQ(summary->vertices, expected.vertices);
    EXPECT_EQ(summary->triangles, expected.triangles);
    EXPECT_EQ(summary->bytes, expected.bytes);
    EXPECT_EQ(summary->voxels, expected.voxels);
    EXPECT_EQ(summary->mesh_dir, expected.mesh_dir);
    ExpectSameFiles(whole, split);
  }

  // The job on 3 ranks: every rank returns the summary of one process, and
  // the files are those at `whole`.
  void ExpectRanksEqualWhole(const std::string& whole, const MeshSummary& expected,
                             const std::string& split, const MeshOptions& options) {
    const auto results =
        RunOnThreadRanks<MeshSummary>(3, [&](const Context& context, core::Communicator& rank) {
          MeshOptions own = options;
          own.ranks = &rank;
          return GenerateMeshes(context, zarr_, split, own);
        });
    for (const auto& result : results) {
      ASSERT_TRUE(result.ok()) << result.status().ToString();
      EXPECT_EQ(result->segments, expected.segments);
      EXPECT_EQ(result->triangles, expected.triangles);
      EXPECT_EQ(result->bytes, expected.bytes);
      EXPECT_EQ(result->mesh_dir, expected.mesh_dir);
    }
    ExpectSameFiles(whole, split);
  }
};

TEST_F(MeshJobsApi, ASplitJobWritesTheBytesOfOneProcess) {
  for (const std::string format : {"legacy", "multires", "multires-sharded"}) {
    SCOPED_TRACE(format);
    const MeshOptions options = Options(format);
    const std::string whole = Segmentation(format + "-whole");
    auto expected = GenerateMeshes(context_, zarr_, whole, options);
    ASSERT_TRUE(expected.ok()) << expected.status().ToString();
    ASSERT_GT(expected->segments, 4096u);  // Sharded: more than one shard.
    // Sharded: 3 parts have 4 groups and 5 parts 8, each more than the 2 shards.
    for (const int parts :
         format == "multires-sharded" ? std::vector<int>{2, 3, 5} : std::vector<int>{3}) {
      ExpectSplitEqualsWhole(whole, *expected,
                             Segmentation(format + "-split" + std::to_string(parts)), options,
                             parts);
      const auto want = FilesUnder(whole);
      if (format == "multires-sharded") {
        EXPECT_TRUE(want.contains("mesh/0.shard"));
        EXPECT_TRUE(want.contains("mesh/1.shard"));
      }
    }
  }
}

TEST_F(MeshJobsApi, RanksSplitTheJobAndReturnTheSameSummary) {
  const MeshOptions options = Options("multires-sharded");
  const std::string whole = Segmentation("whole");
  auto expected = GenerateMeshes(context_, zarr_, whole, options);
  ASSERT_TRUE(expected.ok()) << expected.status().ToString();
  ExpectRanksEqualWhole(whole, *expected, Segmentation("ranks"), options);
}

TEST_F(MeshJobsApi, ARankThatFailsFailsEveryRankAndLeavesNoMeshes) {
  MeshOptions options = Options("legacy");
  const std::string dest = Segmentation("ranks");
  options.labels = {1};
  const auto results =
      RunOnThreadRanks<MeshSummary>(2, [&](const Context& context, core::Communicator& rank) {
        MeshOptions own = options;
        own.ranks = &rank;
        // Rank 1's chunk shape is refused where rank 0's is not.
        if (rank.rank() == 1) own.chunk = {0, 8, 8};
        return GenerateMeshes(context, zarr_, dest, own);
      });
  for (const auto& result : results) {
    const Status& status = result.status();
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << status.ToString();
    EXPECT_NE(Message(status).find("rank 1 of 2"), std::string::npos) << status.ToString();
  }
  EXPECT_EQ(CountFilesUnder(dest, {"mesh/", "segment_properties/"}), 0u);
}

TEST_F(MeshJobsApi, AForgedOrCutScratchObjectIsCorruptionNamingItsKey) {
  const MeshOptions options = Options("legacy");
  const std::string dest = Segmentation("forged");
  api_test::RunParts(Steps(dest, options), 2, {0, 1}, {});
  const std::filesystem::path piece =
      std::filesystem::path(dest) / "mesh" / ".chunkwise-scratch" / "0" / "1";
  ASSERT_TRUE(std::filesystem::exists(piece));
  const std::string bytes = FilesUnder(dest).at("mesh/.chunkwise-scratch/0/1");
  for (const std::string& forged :
       {bytes.substr(0, bytes.size() - 3), std::string("XXXX") + bytes.substr(4),
        bytes + std::string(1, '\0')}) {
    std::ofstream(piece, std::ios::binary | std::ios::trunc) << forged;
    const Status status = MergeMeshJobPart(context_, zarr_, dest, options, 0, 2);
    EXPECT_EQ(status.code(), StatusCode::kCorruption) << status.ToString();
    EXPECT_NE(Message(status).find(".chunkwise-scratch/0/1"), std::string::npos)
        << status.ToString();
  }
  // A count past the end is refused before anything is allocated for it.
  std::string huge = bytes;
  ASSERT_GT(huge.size(), 40u);
  std::memset(huge.data() + 32, 0xff, 8);  // The label count.
  std::ofstream(piece, std::ios::binary | std::ios::trunc) << huge;
  EXPECT_EQ(MergeMeshJobPart(context_, zarr_, dest, options, 0, 2).code(), StatusCode::kCorruption);
  AbandonMeshJob(context_, dest, options, 2, false);
  EXPECT_FALSE(std::filesystem::exists(piece));
}

TEST_F(MeshJobsApi, AMissingPartIsNamedAndTheFinishRefusesToPublish) {
  const MeshOptions options = Options("legacy");
  const std::string dest = Segmentation("missing");
  api_test::RunParts(Steps(dest, options), 3, {0, 2}, {});
  const Status merge = MergeMeshJobPart(context_, zarr_, dest, options, 0, 3);
  EXPECT_EQ(merge.code(), StatusCode::kNotFound) << merge.ToString();
  EXPECT_NE(Message(merge).find(".chunkwise-scratch/0/1"), std::string::npos) << merge.ToString();
  api_test::RunParts(Steps(dest, options), 3, {1}, {0, 2});
  auto finished = FinishMeshJob(context_, zarr_, dest, options, 3);
  EXPECT_EQ(finished.status().code(), StatusCode::kNotFound) << finished.status().ToString();
  EXPECT_NE(Message(finished.status()).find("merged/1"), std::string::npos);
  // Nothing published, and what the parts wrote is gone.
  EXPECT_EQ(CountFilesUnder(dest, {"mesh/", "segment_properties/"}), 0u);
  EXPECT_EQ(FilesUnder(dest).at("info").find("\"mesh\""), std::string::npos);
}

TEST_F(MeshJobsApi, PartsOutOfRangeAreRefused) {
  MeshOptions options = Options("legacy");
  const std::string dest = Segmentation("refused");
  const Status part = MeshJobPart(context_, zarr_, dest, options, 3, 3);
  EXPECT_EQ(part.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(part.field(), "part");
  EXPECT_EQ(MeshJobPart(context_, zarr_, dest, options, 0, 0).field(), "parts");
  options.format = "vectors";
  EXPECT_EQ(MeshJobPart(context_, zarr_, (root_ / "v").string(), options, 2, 2).field(), "part");
}

// A zarr-vectors mesh store (#41): 2, 3 and 5 parts, run in any order, and
// 3 ranks write the store one process writes, byte for byte, every level.
TEST_F(MeshJobsApi, AVectorsJobWritesTheStoreOfOneProcess) {
  const MeshOptions options = Options("vectors");  // 2 levels.
  const std::string whole = (root_ / "whole.zarrvectors").string();
  auto expected = GenerateMeshes(context_, zarr_, whole, options);
  ASSERT_TRUE(expected.ok()) << expected.status().ToString();
  ASSERT_GT(expected->segments, 4096u);
  const auto want = FilesUnder(whole);
  ASSERT_TRUE(want.contains("1/zarr.json"));  // Level 1, with its faces.
  ASSERT_TRUE(std::any_of(want.begin(), want.end(),
                          [](const auto& file) { return file.first.starts_with("1/links/0/"); }));
  for (const int parts : {2, 3, 5}) {
    ExpectSplitEqualsWhole(whole, *expected,
                           (root_ / ("split" + std::to_string(parts) + ".zarrvectors")).string(),
                           options, parts);
  }
  // A store already there is refused before any meshing, without overwrite.
  const Status again = MeshJobPart(context_, zarr_, whole, options, 0, 2);
  EXPECT_EQ(again.code(), StatusCode::kInvalidArgument) << again.ToString();
  EXPECT_EQ(again.field(), "overwrite");
  EXPECT_NE(Message(again).find("whole.zarrvectors"), std::string::npos) << again.ToString();

  ExpectRanksEqualWhole(whole, *expected, (root_ / "ranks.zarrvectors").string(), options);
}

}  // namespace
}  // namespace chunkwise
