#include "formats/refs/arrow_shard_references.h"

#include <vector>

#include "formats/dvid/arrow_shard_reader.h"

namespace chunkwise::formats::refs {
namespace {

Status AddShard(const std::shared_ptr<store::Store>& store, const std::string& key,
                const std::string& dir, const ArrowShardReferenceOptions& options,
                ReferenceSet& out) {
  CHUNKWISE_ASSIGN_OR_RETURN(const dvid::ArrowShardReader reader,
                             dvid::ArrowShardReader::Open(store, key));
  for (const auto& [x, y, z] : reader.ListChunks()) {
    CHUNKWISE_ASSIGN_OR_RETURN(const auto range, reader.LocateCompressedBlock(x, y, z));
    if (!range) continue;
    std::string block_key = ArrowBlockKey(dir, x, y, z);
    if (out.Find(block_key)->has_value()) {
      return Status::InvalidArgument(store->Describe(key) + ": block " + block_key +
                                     " is also in another shard of the same directory");
    }
    out.Set(std::move(block_key),
            store::Reference::Range(options.url_base + key, range->offset, range->length));
  }
  return Status::Ok();
}

}  // namespace

std::string ArrowBlockKey(std::string_view dir, std::int32_t x, std::int32_t y, std::int32_t z) {
  return std::string(dir) + std::to_string(x) + "_" + std::to_string(y) + "_" + std::to_string(z);
}

Result<ReferenceSet> BuildArrowShardReferences(std::shared_ptr<store::Store> store,
                                               const std::string& prefix,
                                               const ArrowShardReferenceOptions& options) {
  std::vector<std::string> shards;
  if (prefix.ends_with(".arrow")) {
    shards.push_back(prefix);
  } else {
    CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<std::string> keys, store->List(prefix));
    for (const std::string& key : keys) {
      if (key.ends_with(".arrow")) shards.push_back(key);
    }
  }
  if (shards.empty()) {
    return Status::NotFound(store->Describe(prefix.empty() ? "." : prefix) +
                            " holds no .arrow export shard");
  }
  ReferenceSet out;
  for (std::size_t i = 0; i < shards.size(); ++i) {
    if (!options.part.Owns(i)) continue;
    const std::string& key = shards[i];
    if (options.cancellation != nullptr) {
      CHUNKWISE_RETURN_IF_ERROR(
          options.cancellation->Check("building references to " + store->Describe(key)));
    }
    const std::size_t slash = key.rfind('/');
    const std::string dir = slash == std::string::npos || slash < prefix.size()
                                ? std::string()
                                : key.substr(prefix.size(), slash + 1 - prefix.size());
    CHUNKWISE_RETURN_IF_ERROR(AddShard(store, key, dir, options, out));
    if (options.progress != nullptr) options.progress->Add(1);
  }
  return out;
}

}  // namespace chunkwise::formats::refs
