// ReferenceSet: a whole reference set held in memory, as the JSON readers
// produce it and every writer (JSON v0, JSON v1, Parquet) consumes it.
//
// Metadata keys (".zgroup", "x/.zarray", "x/.zattrs", ...) are inline
// references holding their JSON text; chunk keys are inline, whole-file or
// range references. Keys are kept sorted so that writers are deterministic.
#ifndef CHUNKWISE_FORMATS_REFS_REFERENCE_SET_H_
#define CHUNKWISE_FORMATS_REFS_REFERENCE_SET_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/result.h"
#include "chunkwise/store/reference.h"

namespace chunkwise::formats::refs {

class ReferenceSet : public store::ReferenceIndex {
 public:
  // Adds or replaces `key`.
  void Set(std::string key, store::Reference reference) {
    entries_.insert_or_assign(std::move(key), std::move(reference));
  }
  // As Set; costs O(1) instead of O(log n) when keys arrive in sorted order,
  // as they do in the files we write and in kerchunk's.
  void Add(std::string key, store::Reference reference) {
    entries_.insert_or_assign(entries_.end(), std::move(key), std::move(reference));
  }
  // Moves every entry of `later` into this set, replacing equal keys: O(1)
  // each when `later`'s keys all follow this set's (consecutive parts of a
  // sorted file). `later` is left empty.
  void Absorb(ReferenceSet&& later) {
    while (!later.entries_.empty()) {
      auto node = later.entries_.extract(later.entries_.begin());
      const auto at = entries_.insert(entries_.end(), std::move(node));
      if (!node.empty()) at->second = std::move(node.mapped());  // The key was here already.
    }
  }
  // Removes `key` if present.
  void Erase(std::string_view key) {
    if (auto it = entries_.find(key); it != entries_.end()) entries_.erase(it);
  }
  const std::map<std::string, store::Reference, std::less<>>& entries() const { return entries_; }
  std::size_t size() const { return entries_.size(); }

  Result<std::optional<store::Reference>> Find(std::string_view key) const override {
    auto it = entries_.find(key);
    if (it == entries_.end()) return std::optional<store::Reference>();
    return std::optional<store::Reference>(it->second);
  }
  Result<std::vector<std::string>> Keys(std::string_view prefix) const override {
    std::vector<std::string> keys;
    for (auto it = entries_.lower_bound(prefix);
         it != entries_.end() && std::string_view(it->first).starts_with(prefix); ++it) {
      keys.push_back(it->first);
    }
    return keys;
  }

 private:
  std::map<std::string, store::Reference, std::less<>> entries_;
};

}  // namespace chunkwise::formats::refs

#endif  // CHUNKWISE_FORMATS_REFS_REFERENCE_SET_H_
