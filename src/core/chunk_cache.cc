#include "core/chunk_cache.h"

#include <functional>
#include <iterator>

namespace chunkwise::core {

ChunkCache::ChunkCache(std::uint64_t limit_bytes) : limit_(limit_bytes) {}

bool ChunkCache::enabled() const { return limit_bytes() > 0; }

std::uint64_t ChunkCache::limit_bytes() const {
  std::lock_guard lock(mutex_);
  return limit_;
}

void ChunkCache::SetLimit(std::uint64_t limit_bytes) {
  std::lock_guard lock(mutex_);
  limit_ = limit_bytes;
  EvictTo(limit_);
}

std::shared_ptr<const void> ChunkCache::Find(const ChunkCacheKey& key) {
  std::lock_guard lock(mutex_);
  const auto object = objects_.find(key.object);
  if (object != objects_.end()) {
    const auto part = object->second.find({key.variant, key.part});
    if (part != object->second.end()) {
      lru_.splice(lru_.begin(), lru_, part->second);
      ++counts_.hits;
      return part->second->value;
    }
  }
  ++counts_.misses;
  return nullptr;
}

std::shared_ptr<const void> ChunkCache::Peek(const ChunkCacheKey& key) const {
  std::lock_guard lock(mutex_);
  const auto object = objects_.find(key.object);
  if (object == objects_.end()) return nullptr;
  const auto part = object->second.find({key.variant, key.part});
  return part == object->second.end() ? nullptr : part->second->value;
}

std::size_t ChunkCache::StripeOf(std::string_view object) {
  return std::hash<std::string_view>{}(object) % kStripes;
}

std::uint64_t ChunkCache::Ticket(std::string_view object) const {
  std::lock_guard lock(mutex_);
  return stripes_[StripeOf(object)];
}

bool ChunkCache::Insert(const ChunkCacheKey& key, std::shared_ptr<const void> value,
                        std::uint64_t bytes, std::uint64_t ticket) {
  // The key's own text is memory the entry holds too.
  const std::uint64_t charge = bytes + key.object.size() + key.variant.size() + sizeof(Entry);
  std::lock_guard lock(mutex_);
  if (charge > limit_ || stripes_[StripeOf(key.object)] != ticket) {
    ++counts_.rejected;
    return false;
  }
  Parts& parts = objects_[key.object];
  const auto existing = parts.find({key.variant, key.part});
  if (existing != parts.end()) {
    bytes_ -= existing->second->charge;
    lru_.erase(existing->second);
    parts.erase(existing);
  }
  lru_.push_front(Entry{key, std::move(value), charge});
  parts.emplace(std::make_pair(key.variant, key.part), lru_.begin());
  bytes_ += charge;
  ++counts_.insertions;
  EvictTo(limit_);
  return true;
}

void ChunkCache::Remove(Lru::iterator entry) {
  const auto object = objects_.find(entry->key.object);
  object->second.erase({entry->key.variant, entry->key.part});
  if (object->second.empty()) objects_.erase(object);
  bytes_ -= entry->charge;
  lru_.erase(entry);
}

void ChunkCache::EvictTo(std::uint64_t limit) {
  while (bytes_ > limit && !lru_.empty()) {
    Remove(std::prev(lru_.end()));
    ++counts_.evictions;
  }
}

void ChunkCache::DropObject(std::map<std::string, Parts, std::less<>>::iterator object) {
  for (const auto& [part, entry] : object->second) {
    bytes_ -= entry->charge;
    lru_.erase(entry);
    ++counts_.invalidations;
  }
  objects_.erase(object);
}

void ChunkCache::Invalidate(std::string_view object) {
  std::lock_guard lock(mutex_);
  ++stripes_[StripeOf(object)];
  const auto found = objects_.find(object);
  if (found != objects_.end()) DropObject(found);
}

void ChunkCache::InvalidatePrefix(std::string_view prefix) {
  std::lock_guard lock(mutex_);
  // Which stripes the prefix's objects fall in is unknown: a reader of any
  // object may have raced this, so every ticket taken before now lapses.
  for (std::uint64_t& stripe : stripes_) ++stripe;
  auto object = objects_.lower_bound(prefix);
  while (object != objects_.end() && object->first.starts_with(prefix)) {
    DropObject(object++);
  }
}

void ChunkCache::Clear() {
  std::lock_guard lock(mutex_);
  for (std::uint64_t& stripe : stripes_) ++stripe;
  counts_.invalidations += lru_.size();
  lru_.clear();
  objects_.clear();
  bytes_ = 0;
}

ChunkCacheStats ChunkCache::stats() const {
  std::lock_guard lock(mutex_);
  ChunkCacheStats stats = counts_;
  stats.entries = lru_.size();
  stats.bytes = bytes_;
  stats.limit_bytes = limit_;
  return stats;
}

void ChunkCache::ResetStats() {
  std::lock_guard lock(mutex_);
  counts_ = ChunkCacheStats{};
}

std::uint64_t ChunkCache::InstanceId(const std::shared_ptr<const void>& instance) {
  std::lock_guard lock(mutex_);
  Instance& known = instances_[instance.get()];
  if (known.id == 0 || known.alive.expired()) {
    known = Instance{instance, next_instance_++};
    // Forget instances that are gone, now and then, so the table stays as
    // small as the live ones.
    if (instances_.size() > 2 * instances_swept_) {
      std::erase_if(instances_, [](const auto& item) { return item.second.alive.expired(); });
      instances_swept_ = instances_.size();
    }
  }
  return known.id;
}

}  // namespace chunkwise::core
