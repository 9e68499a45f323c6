#include "store/reference_batch.h"

#include <algorithm>
#include <map>
#include <utility>

#include "store/batched_gets.h"
#include "store/http_store.h"
#include "store/key.h"
#include "store/percent_encoding.h"
#include "store/range_coalescing.h"

namespace chunkwise::store {

// The store that batches a target's reads, and the target's key there.
struct ReferenceBatch::Target {
  std::shared_ptr<const Store> store;  // Null: read by Get.
  std::string key;
};

// One key's range (or whole file) of a target.
struct ReferenceBatch::Read {
  std::size_t position = 0;  // Into the caller's keys.
  std::string target_key;
  std::string url;  // For messages.
  ByteRange range;  // Unused for a whole file.
};

// The reads of one target store.
struct ReferenceBatch::TargetReads {
  std::shared_ptr<const Store> store;
  std::vector<Read> ranges, wholes;
};

// What every read of one GetMany shares.
struct ReferenceBatch::Batch {
  const ReferenceStore& store;
  std::span<const std::string> keys;
  std::vector<Result<std::optional<Bytes>>>& values;
  const core::Cancellation* cancellation;
};

bool ReferenceBatch::Batches(const ReferenceStore& store) { return store.options_.allow_remote; }

ReferenceBatch::Target ReferenceBatch::HttpTarget(const ReferenceStore& store,
                                                  const std::string& url) {
  if (url.find_first_of("?#") != std::string::npos) return {};
  // The origin's store, whose key is the URL's path: only where the store
  // names exactly this URL (no spelling of the path that it would re-encode).
  const std::size_t slash = url.find('/', url.find("://") + 3);
  if (slash == std::string::npos) return {};
  Result<std::string> key = PercentDecode(std::string_view(url).substr(slash + 1));
  if (!key.ok() || !ValidateKey(*key).ok()) return {};
  const std::string origin = url.substr(0, slash);
  std::shared_ptr<const Store> origin_store;
  {
    std::lock_guard lock(store.http_mutex_);
    auto found = store.http_stores_.find(origin);
    if (found == store.http_stores_.end()) {
      HttpStoreOptions options;
      options.base_url = origin;
      Result<std::shared_ptr<HttpStore>> opened = HttpStore::Open(std::move(options));
      if (!opened.ok()) return {};
      found = store.http_stores_.emplace(origin, *std::move(opened)).first;
    }
    origin_store = found->second;
  }
  if (origin_store->Describe(*key) != url) return {};
  return {std::move(origin_store), *std::move(key)};
}

ReferenceBatch::Target ReferenceBatch::TargetOf(const ReferenceStore& store,
                                                const std::string& url) {
  const std::size_t colon = url.find("://");
  if (colon == std::string::npos || !Batches(store)) return {};  // Local, or Get refuses it.
  const std::string_view scheme = std::string_view(url).substr(0, colon);
  if (scheme == "http" || scheme == "https") return HttpTarget(store, url);
  if (scheme == "file" || !store.options_.open_target) return {};
  {
    std::lock_guard lock(store.cache_mutex_);  // Opened by an earlier Get.
    if (auto found = store.cache_.find(url); found != store.cache_.end()) {
      return {found->second.location.store, found->second.location.key};
    }
  }
  Result<TargetLocation> location = store.options_.open_target(url);
  if (!location.ok()) return {};  // Get says why.
  return {std::move(location->store), std::move(location->key)};
}

void ReferenceBatch::Answer(Batch& batch, const Read& read, Result<std::optional<Bytes>> reply) {
  const std::string& key = batch.keys[read.position];
  Result<std::optional<Bytes>>& value = batch.values[read.position];
  if (reply.ok() && reply->has_value()) {
    value = std::move(reply);
  } else if (reply.ok()) {
    value = Status::NotFound(batch.store.Describe(key) + ": " + read.url + " does not exist");
  } else if (reply.status().code() == StatusCode::kCancelled) {
    value = reply.status().WithContext(batch.store.Describe(key));
  } else {
    value = batch.store.Get(key);  // Get's error, or its reading of an odd server.
  }
}

void ReferenceBatch::SendRanges(Batch& batch, TargetReads& target) {
  // The ranges of each target object, coalesced into requests.
  std::map<std::string, std::vector<std::size_t>> by_object;
  for (std::size_t r = 0; r < target.ranges.size(); ++r) {
    by_object[target.ranges[r].target_key].push_back(r);
  }
  std::vector<RangedKey> requests;
  std::vector<std::vector<std::size_t>> members;  // Per request: its reads.
  for (const auto& [object, reads] : by_object) {
    std::vector<ByteRange> ranges;
    ranges.reserve(reads.size());
    for (std::size_t r : reads) ranges.push_back(target.ranges[r].range);
    for (const CoalescedRange& group : CoalesceRanges(ranges, kReferenceCoalescing)) {
      requests.push_back({object, ByteRange::Span(group.offset, group.length), std::nullopt});
      members.emplace_back();
      for (std::size_t m : group.members) members.back().push_back(reads[m]);
    }
  }
  std::vector<Result<std::optional<Bytes>>> got =
      GetRangeMany(*target.store, requests, batch.cancellation);
  for (std::size_t g = 0; g < requests.size(); ++g) {
    const ByteRange& asked = requests[g].range;
    for (std::size_t r : members[g]) {
      const Read& read = target.ranges[r];
      if (members[g].size() == 1 || !got[g].ok() || !got[g]->has_value()) {
        Answer(batch, read, members[g].size() == 1 ? std::move(got[g]) : got[g]);
        continue;
      }
      const ByteView bytes =
          ByteView(**got[g]).subspan(read.range.offset - asked.offset, read.range.length);
      Answer(batch, read, std::optional<Bytes>(CopyToBytes(bytes)));
    }
  }
}

void ReferenceBatch::SendWholes(Batch& batch, TargetReads& target) {
  std::vector<std::string> keys;
  keys.reserve(target.wholes.size());
  for (const Read& read : target.wholes) keys.push_back(read.target_key);
  std::vector<Result<std::optional<Bytes>>> got =
      store::GetMany(*target.store, keys, batch.cancellation);
  for (std::size_t w = 0; w < target.wholes.size(); ++w) {
    Answer(batch, target.wholes[w], std::move(got[w]));
  }
}

std::vector<Result<std::optional<Bytes>>> ReferenceBatch::GetMany(
    const ReferenceStore& store, std::span<const std::string> keys,
    const core::Cancellation* cancellation) {
  std::vector<Result<std::optional<Bytes>>> values(keys.size(), std::optional<Bytes>());
  std::vector<TargetReads> targets;  // Few: one per target store.
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (cancellation != nullptr && cancellation->cancelled()) {
      values[i] = cancellation->Check(store.Describe(keys[i]));
      continue;
    }
    if (Status valid = ValidateKey(keys[i]); !valid.ok()) {
      values[i] = std::move(valid);
      continue;
    }
    Result<std::optional<Reference>> found = store.index_->Find(keys[i]);
    if (!found.ok()) {
      values[i] = found.status();
      continue;
    }
    if (!found->has_value()) continue;  // Absent: values[i] is nullopt already.
    Reference& reference = **found;
    if (reference.kind == Reference::Kind::kInline) {
      values[i] = std::optional<Bytes>(std::move(reference.data));
      continue;
    }
    const bool ranged = reference.kind == Reference::Kind::kRange;
    Target where = ranged && reference.length == 0 ? Target{} : TargetOf(store, reference.url);
    if (where.store == nullptr) {
      values[i] = store.Get(keys[i]);
      continue;
    }
    auto batch = std::find_if(targets.begin(), targets.end(),
                              [&](const TargetReads& t) { return t.store == where.store; });
    if (batch == targets.end()) batch = targets.insert(targets.end(), {where.store, {}, {}});
    Read read{i, std::move(where.key), reference.url,
              ByteRange::Span(reference.offset, reference.length)};
    (ranged ? batch->ranges : batch->wholes).push_back(std::move(read));
  }
  Batch batch{store, keys, values, cancellation};
  for (TargetReads& target : targets) {
    if (!target.ranges.empty()) SendRanges(batch, target);
    if (!target.wholes.empty()) SendWholes(batch, target);
  }
  return values;
}

}  // namespace chunkwise::store
