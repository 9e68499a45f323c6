#include "pipelines/skeletons/skeletonize.h"

#include <algorithm>
#include <set>
#include <utility>

#include "core/json.h"
#include "formats/precomputed/segment_shards.h"
#include "pipelines/skeletons/label_loop.h"

namespace chunkwise::pipelines::skeletons {
namespace pc = formats::precomputed;

std::uint64_t CountLabelVoxels(const LabelVolume& volume,
                               const std::vector<std::uint64_t>& labels) {
  const std::map<std::uint64_t, LabelExtent> found = FindLabels(volume);
  std::uint64_t total = 0;
  for (const auto& [label, extent] : found) {
    if (labels.empty() || std::find(labels.begin(), labels.end(), label) != labels.end()) {
      total += extent.voxels;
    }
  }
  return total;
}

Result<std::vector<Skeleton>> SkeletonizeVolume(const LabelVolume& volume,
                                                const SkeletonizeVolumeOptions& options,
                                                const std::string& where) {
  const std::map<std::uint64_t, LabelExtent> found = FindLabels(volume);
  std::vector<std::pair<std::uint64_t, LabelExtent>> work;
  if (options.labels.empty()) {
    work.assign(found.begin(), found.end());
  } else {
    const std::set<std::uint64_t> asked(options.labels.begin(), options.labels.end());
    for (std::uint64_t label : asked) {
      const auto it = found.find(label);
      if (it == found.end()) {
        return Status::NotFound(where + ": label " + std::to_string(label) +
                                " is not in the volume");
      }
      work.emplace_back(*it);
    }
  }
  if (options.cancellation != nullptr) {
    CHUNKWISE_RETURN_IF_ERROR(options.cancellation->Check("skeletonizing " + where));
  }
  const std::vector<float> boundary_distance = DistanceToBoundary(volume, options.pool);
  std::vector<Skeleton> out(work.size());
  CHUNKWISE_RETURN_IF_ERROR(ForEachLabel(
      work.size(), options.pool, options.cancellation, "skeletonizing " + where,
      [&](std::size_t i, LabelBuffers& buffers) {
        out[i] = SkeletonizeLabel(volume, boundary_distance, work[i].first, work[i].second.box,
                                  options.params, *buffers.workspace);
        if (options.progress != nullptr) options.progress->Add(work[i].second.voxels);
        return Status();
      }));
  return out;
}

namespace {

bool IsLabelName(std::string_view name) {
  return !name.empty() &&
         std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "<hex>.shard": a shard file of a sharded skeleton directory.
bool IsShardName(std::string_view name) {
  if (!name.ends_with(".shard")) return false;
  name.remove_suffix(6);
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  });
}

// The keys a failed write leaves; erased on the way out unless kept.
class WrittenKeys {
 public:
  explicit WrittenKeys(store::Store& store) : store_(store) {}
  ~WrittenKeys() {
    if (keep_) return;
    for (const std::string& key : keys_) (void)store_.Erase(key);
  }
  Status Set(const std::string& key, ByteView value, WrittenSkeletons& written) {
    keys_.push_back(key);
    CHUNKWISE_RETURN_IF_ERROR(store_.Set(key, value));
    ++written.files;
    written.bytes += value.size();
    return Status();
  }
  // Shard files written by formats/precomputed/segment_shards.h: the keys
  // are kept even when it fails part-way, so that they are erased.
  Status SetShards(const std::string& folder, const pc::ShardingSpec& spec,
                   const std::vector<pc::SegmentObject>& objects, WrittenSkeletons& written) {
    for (const pc::SegmentObject& o : objects) {
      keys_.push_back(folder + pc::ShardFileName(spec, pc::LocateChunk(spec, o.id).shard));
    }
    CHUNKWISE_ASSIGN_OR_RETURN(const pc::WrittenShards shards,
                               pc::WriteSegmentShards(store_, folder, spec, objects));
    written.files += shards.keys.size();
    written.bytes += shards.bytes;
    return Status();
  }
  // A key written earlier, erased with the rest on failure.
  void Adopt(const std::string& key) { keys_.push_back(key); }
  void Keep() { keep_ = true; }
  const std::vector<std::string>& keys() const { return keys_; }

 private:
  store::Store& store_;
  std::vector<std::string> keys_;
  bool keep_ = false;
};

ByteView View(const std::string& text) {
  return {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()};
}

// Erases the label files (and, for precomputed, shard files) under `prefix`
// that an overwrite did not rewrite: a sharded rewrite leaves no label files,
// an unsharded one no shards.
Status EraseStale(store::Store& store, const std::string& prefix,
                  const std::vector<std::string>& kept, const std::string& suffix) {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<std::string> keys, store.List(prefix));
  const std::set<std::string> keep(kept.begin(), kept.end());
  for (const std::string& key : keys) {
    std::string_view name = std::string_view(key).substr(prefix.size());
    if (keep.contains(key)) continue;
    if (suffix.empty() && IsShardName(name)) {
      CHUNKWISE_RETURN_IF_ERROR(store.Erase(key));
      continue;
    }
    if (!name.ends_with(suffix)) continue;
    name.remove_suffix(suffix.size());
    if (IsLabelName(name)) CHUNKWISE_RETURN_IF_ERROR(store.Erase(key));
  }
  return Status();
}

}  // namespace

Result<SkeletonDestination> CheckSkeletonDestination(const store::Store& store,
                                                     const WriteSkeletonsOptions& options) {
  SkeletonDestination destination;
  if (options.output == SkeletonOutput::kSwc) return destination;
  if (options.directory.empty() || options.directory.find('/') != std::string::npos ||
      options.directory == "." || options.directory == "..") {
    return Status::InvalidArgument("skeleton directory \"" + options.directory +
                                   "\" is not one plain folder name");
  }
  // What is at the root: a segmentation (skeletons go into a folder of it),
  // a skeleton directory already, or nothing (the root becomes one).
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<Bytes> root_info, store.Get("info"));
  bool root_has_skeletons = false;
  if (root_info.has_value()) {
    const std::string text(root_info->begin(), root_info->end());
    CHUNKWISE_ASSIGN_OR_RETURN(nlohmann::json json, core::ParseJson(text, store.Describe("info")));
    if (json.is_object() && json.value("@type", "") == "neuroglancer_skeletons") {
      root_has_skeletons = true;
    } else if (json.is_object() && json.contains("scales")) {
      destination.volume_info = std::move(json);
    } else {
      return Status::InvalidArgument(store.Describe("info") +
                                     " is neither a precomputed volume nor a skeleton directory");
    }
  }
  destination.prefix = destination.volume_info ? options.directory + "/" : "";
  if (!options.overwrite) {
    const std::string& prefix = destination.prefix;
    CHUNKWISE_ASSIGN_OR_RETURN(const bool exists, store.Exists(prefix + "info"));
    if (root_has_skeletons || exists ||
        (destination.volume_info && destination.volume_info->contains("skeletons"))) {
      return Status::InvalidArgument(store.Describe(prefix.empty() ? "info" : prefix) +
                                     " already holds skeletons; overwrite to replace them");
    }
  }
  return destination;
}

std::string SkeletonFileKey(const SkeletonDestination& destination,
                            const WriteSkeletonsOptions& options, const pc::ShardingSpec& sharding,
                            std::uint64_t label) {
  switch (options.output) {
    case SkeletonOutput::kSwc:
      return std::to_string(label) + ".swc";
    case SkeletonOutput::kPrecomputedSharded:
      return destination.prefix +
             pc::ShardFileName(sharding, pc::LocateChunk(sharding, label).shard);
    case SkeletonOutput::kPrecomputed:
      break;
  }
  return destination.prefix + std::to_string(label);
}

Result<WrittenSkeletons> WriteSkeletonFiles(store::Store& store,
                                            const SkeletonDestination& destination,
                                            const std::vector<Skeleton>& skeletons,
                                            const WriteSkeletonsOptions& options,
                                            const pc::ShardingSpec& sharding) {
  WrittenSkeletons written;
  written.prefix = destination.prefix;
  WrittenKeys keys(store);
  if (options.output == SkeletonOutput::kSwc) {
    if (!options.overwrite) {
      for (const Skeleton& s : skeletons) {
        const std::string key = std::to_string(s.label) + ".swc";
        CHUNKWISE_ASSIGN_OR_RETURN(const bool exists, store.Exists(key));
        if (exists) {
          return Status::InvalidArgument(store.Describe(key) + " exists; overwrite to replace it");
        }
      }
    }
    for (const Skeleton& s : skeletons) {
      CHUNKWISE_RETURN_IF_ERROR(
          keys.Set(std::to_string(s.label) + ".swc", View(pc::SkeletonToSwc(s)), written));
    }
  } else if (options.output == SkeletonOutput::kPrecomputedSharded) {
    std::vector<Bytes> encoded;
    encoded.reserve(skeletons.size());
    std::vector<pc::SegmentObject> objects;
    for (const Skeleton& s : skeletons) {
      encoded.push_back(pc::EncodeSkeleton(s));
      objects.push_back({s.label, encoded.back(), {}});
    }
    CHUNKWISE_RETURN_IF_ERROR(keys.SetShards(destination.prefix, sharding, objects, written));
  } else {
    for (const Skeleton& s : skeletons) {
      const Bytes bytes = pc::EncodeSkeleton(s);
      CHUNKWISE_RETURN_IF_ERROR(
          keys.Set(destination.prefix + std::to_string(s.label), bytes, written));
    }
  }
  keys.Keep();
  return written;
}

Status FinishSkeletonOutput(store::Store& store, const SkeletonDestination& destination,
                            const WriteSkeletonsOptions& options, const pc::ShardingSpec& sharding,
                            const std::vector<std::string>& file_keys, WrittenSkeletons& written) {
  // Until the info is written the result is absent: a failure erases the files too.
  WrittenKeys keys(store);
  for (const std::string& key : std::set<std::string>(file_keys.begin(), file_keys.end())) {
    keys.Adopt(key);
  }
  if (options.output == SkeletonOutput::kSwc) {
    if (options.overwrite) CHUNKWISE_RETURN_IF_ERROR(EraseStale(store, "", file_keys, ".swc"));
    keys.Keep();
    return Status();
  }
  const bool sharded = options.output == SkeletonOutput::kPrecomputedSharded;
  CHUNKWISE_RETURN_IF_ERROR(keys.Set(
      destination.prefix + "info",
      View(pc::SkeletonInfoJson(pc::IdentityTransform(), sharded ? &sharding : nullptr)), written));
  if (destination.volume_info) {
    nlohmann::json volume_info = *destination.volume_info;
    volume_info["skeletons"] = options.directory;
    CHUNKWISE_RETURN_IF_ERROR(store.Set("info", View(volume_info.dump(2) + "\n")));
  }
  keys.Keep();
  if (options.overwrite) {
    CHUNKWISE_RETURN_IF_ERROR(EraseStale(store, destination.prefix, file_keys, ""));
  }
  return Status();
}

Result<WrittenSkeletons> WriteSkeletons(store::Store& store, const std::vector<Skeleton>& skeletons,
                                        const WriteSkeletonsOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(const SkeletonDestination destination,
                             CheckSkeletonDestination(store, options));
  const pc::ShardingSpec sharding = pc::SegmentSharding(skeletons.size());
  CHUNKWISE_ASSIGN_OR_RETURN(WrittenSkeletons written,
                             WriteSkeletonFiles(store, destination, skeletons, options, sharding));
  std::vector<std::string> file_keys;
  for (const Skeleton& s : skeletons) {
    file_keys.push_back(SkeletonFileKey(destination, options, sharding, s.label));
  }
  CHUNKWISE_RETURN_IF_ERROR(
      FinishSkeletonOutput(store, destination, options, sharding, file_keys, written));
  return written;
}

}  // namespace chunkwise::pipelines::skeletons
