// Skeletons of many labels of one volume, on a thread pool, and their
// outputs through a Store: neuroglancer precomputed skeletons or SWC files
// (docs/formats/precomputed-skeletons.md).
#ifndef CHUNKWISE_PIPELINES_SKELETONS_SKELETONIZE_H_
#define CHUNKWISE_PIPELINES_SKELETONS_SKELETONIZE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "chunkwise/core/cancellation.h"
#include "chunkwise/core/progress.h"
#include "chunkwise/core/result.h"
#include "chunkwise/core/thread_pool.h"
#include "chunkwise/store/store.h"
#include "core/json.h"
#include "formats/precomputed/sharding.h"
#include "pipelines/skeletons/teasar.h"

namespace chunkwise::pipelines::skeletons {

struct SkeletonizeVolumeOptions {
  TeasarParams params;
  // The labels to skeletonize; empty: every nonzero label. A label asked for
  // and absent from the volume is NotFound.
  std::vector<std::uint64_t> labels;
  core::ThreadPool* pool = nullptr;            // null: on the caller's thread
  core::ProgressReporter* progress = nullptr;  // told of each label's voxels
  const core::Cancellation* cancellation = nullptr;
};

// The skeletons in label order, one per label (empty vertex lists where a
// label has none). `where` names the volume in errors.
Result<std::vector<Skeleton>> SkeletonizeVolume(const LabelVolume& volume,
                                                const SkeletonizeVolumeOptions& options,
                                                const std::string& where);
// The voxels the labels cover, for a progress total.
std::uint64_t CountLabelVoxels(const LabelVolume& volume, const std::vector<std::uint64_t>& labels);

// kPrecomputedSharded: the same skeletons in neuroglancer_uint64_sharded_v1
// shard files (formats/precomputed/segment_shards.h), the info naming the sharding.
enum class SkeletonOutput { kPrecomputed, kPrecomputedSharded, kSwc };

struct WriteSkeletonsOptions {
  SkeletonOutput output = SkeletonOutput::kPrecomputed;
  // Replace skeletons already there; without it they are InvalidArgument.
  bool overwrite = false;
  // Where precomputed skeletons go inside a segmentation (its info's "skeletons").
  std::string directory = "skeletons";
};

struct WrittenSkeletons {
  std::string prefix;  // where the files went: "skeletons/", or "" at the store's root
  std::uint64_t files = 0;
  std::uint64_t bytes = 0;
};

// Precomputed: into the segmentation at the store's root (info with scales):
// files under `directory`/, its info, then the segmentation's info gains
// "skeletons"; where the root has no info, the root itself becomes the
// skeleton directory. SWC: "<label>.swc" at the root. Label files first and
// the info last; a failure erases what was written, so the result is whole
// or absent.
Result<WrittenSkeletons> WriteSkeletons(store::Store& store, const std::vector<Skeleton>& skeletons,
                                        const WriteSkeletonsOptions& options);

// WriteSkeletons in steps, for a job whose parts each write some labels'
// files (pipelines/skeletons/skeleton_job.h); the same bytes either way.
//
// Where precomputed skeletons go ("<directory>/" of a segmentation, or the
// root) and the segmentation's info they join; SWC: the root. WriteSkeletons'
// errors about the destination, before anything is written.
struct SkeletonDestination {
  std::string prefix;
  std::optional<nlohmann::json> volume_info;
};
Result<SkeletonDestination> CheckSkeletonDestination(const store::Store& store,
                                                     const WriteSkeletonsOptions& options);
// The key of the file that holds `label`'s skeleton (sharded: its shard
// file under `sharding`, the sharding of the whole output's label count).
std::string SkeletonFileKey(const SkeletonDestination& destination,
                            const WriteSkeletonsOptions& options,
                            const formats::precomputed::ShardingSpec& sharding,
                            std::uint64_t label);
// The files of `skeletons` (in label order; sharded: every label of each
// shard file it touches), no info. A failure erases what it wrote.
Result<WrittenSkeletons> WriteSkeletonFiles(store::Store& store,
                                            const SkeletonDestination& destination,
                                            const std::vector<Skeleton>& skeletons,
                                            const WriteSkeletonsOptions& options,
                                            const formats::precomputed::ShardingSpec& sharding);
// Last: the skeleton info and the segmentation's info (precomputed), then,
// with overwrite, erases the label and shard files `file_keys` (every file
// of the output) does not name. A failure before the infos are written
// erases `file_keys`; `written` counts the info.
Status FinishSkeletonOutput(store::Store& store, const SkeletonDestination& destination,
                            const WriteSkeletonsOptions& options,
                            const formats::precomputed::ShardingSpec& sharding,
                            const std::vector<std::string>& file_keys, WrittenSkeletons& written);

}  // namespace chunkwise::pipelines::skeletons

#endif  // CHUNKWISE_PIPELINES_SKELETONS_SKELETONIZE_H_
