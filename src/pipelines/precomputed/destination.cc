#include "pipelines/precomputed/destination.h"

#include <nlohmann/json.hpp>

#include "core/json.h"

namespace chunkwise::pipelines::detail {

Status PrepareDestination(formats::precomputed::Volume& volume, const DestinationPolicy& policy) {
  store::Store& store = volume.store();
  const std::string info_key = volume.prefix() + "info";
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<Bytes> info, store.Get(info_key));
  std::vector<std::string> stale;
  for (const formats::precomputed::ScaleInfo& scale : volume.info().scales) {
    CHUNKWISE_ASSIGN_OR_RETURN(std::vector<std::string> keys,
                               store.List(volume.prefix() + scale.key + "/"));
    stale.insert(stale.end(), keys.begin(), keys.end());
  }
  if (!info.has_value() && stale.empty()) return Status::Ok();
  if (policy.overwrite) {
    CHUNKWISE_RETURN_IF_ERROR(store.Erase(info_key));
    for (const std::string& key : stale) CHUNKWISE_RETURN_IF_ERROR(store.Erase(key));
    return Status::Ok();
  }
  if (!policy.resume) {
    return Status::InvalidArgument(store.Describe(info_key) +
                                   (info.has_value() ? ": a precomputed volume exists already"
                                                     : ": shards of a precomputed volume exist "
                                                       "already (an unfinished conversion?)"));
  }
  if (info.has_value()) {
    CHUNKWISE_ASSIGN_OR_RETURN(
        const nlohmann::json found,
        core::ParseJson(AsChars(*info), store.Describe(info_key), StatusCode::kCorruption));
    CHUNKWISE_ASSIGN_OR_RETURN(const nlohmann::json wanted,
                               core::ParseJson(volume.InfoText(), "the new volume's info"));
    if (found != wanted) {
      return Status::InvalidArgument(store.Describe(info_key) +
                                     ": the volume there is not the one this conversion writes, "
                                     "so it cannot be resumed");
    }
  }
  return Status::Ok();
}

}  // namespace chunkwise::pipelines::detail
