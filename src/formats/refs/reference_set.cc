#include "formats/refs/reference_set.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>
#include <utility>

#include "chunkwise/core/check.h"

namespace chunkwise::formats::refs {
namespace {

using store::Reference;

// Appends `piece` to `arena` and returns where it starts. `piece` may point
// into `arena` itself (a set given its own views): it is located by offset,
// because growing the arena moves its bytes.
template <typename Arena>
std::uint64_t AppendTo(Arena& arena, std::string_view piece) {
  const std::uint64_t at = arena.size();
  if (piece.empty()) return at;
  const auto begin = reinterpret_cast<std::uintptr_t>(arena.data());
  const auto from = reinterpret_cast<std::uintptr_t>(piece.data());
  const bool inside = from >= begin && from < begin + arena.size();
  arena.resize(at + piece.size());
  // Inside: the bytes may have moved with the resize; found again by offset.
  const char* source =
      inside ? reinterpret_cast<const char*>(arena.data()) + (from - begin) : piece.data();
  std::memcpy(arena.data() + at, source, piece.size());
  return at;
}

// A set this small or a side map this large relative to the vector is merged.
constexpr std::size_t kMinMerge = 1024;

}  // namespace

std::uint32_t ReferenceSet::UrlPool::Intern(std::string_view url) {
  if (!spans_.empty() && Get(last_) == url) return last_;
  if (table_.size() < 2 * (spans_.size() + 1)) Rehash(std::max<std::size_t>(64, table_.size() * 2));
  const std::size_t mask = table_.size() - 1;
  for (std::size_t i = std::hash<std::string_view>{}(url)&mask;; i = (i + 1) & mask) {
    if (table_[i] == 0) {
      CHUNKWISE_CHECK(spans_.size() < std::numeric_limits<std::uint32_t>::max() - 1);
      const std::uint64_t at = AppendTo(text_, url);
      spans_.emplace_back(at, static_cast<std::uint32_t>(url.size()));
      last_ = static_cast<std::uint32_t>(spans_.size() - 1);
      table_[i] = last_ + 1;
      return last_;
    }
    if (Get(table_[i] - 1) == url) {
      last_ = table_[i] - 1;
      return last_;
    }
  }
}

void ReferenceSet::UrlPool::Rehash(std::size_t buckets) {
  table_.assign(buckets, 0);
  const std::size_t mask = buckets - 1;
  for (std::uint32_t index = 0; index < spans_.size(); ++index) {
    std::size_t i = std::hash<std::string_view>{}(Get(index)) & mask;
    while (table_[i] != 0) i = (i + 1) & mask;
    table_[i] = index + 1;
  }
}

ReferenceView ReferenceSet::ViewOf(const Slot& slot) const {
  ReferenceView view;
  view.kind = slot.kind;
  if (slot.kind == Reference::Kind::kInline) {
    view.data = ByteView(text_).subspan(slot.offset, slot.length);
    return view;
  }
  view.url = urls_.Get(slot.url);
  view.offset = slot.offset;
  view.length = slot.length;
  return view;
}

ReferenceSet::Slot ReferenceSet::MakeSlot(std::string_view key, const ReferenceView& reference) {
  CHUNKWISE_CHECK(key.size() <= std::numeric_limits<std::uint32_t>::max());
  Slot slot;
  slot.key_size = static_cast<std::uint32_t>(key.size());
  slot.key_at = AppendTo(text_, key);
  slot.kind = reference.kind;
  if (reference.kind == Reference::Kind::kInline) {
    slot.offset = AppendTo(text_, AsChars(reference.data));
    slot.length = reference.data.size();
  } else {
    slot.url = urls_.Intern(reference.url);
    slot.offset = reference.offset;
    slot.length = reference.length;
  }
  return slot;
}

ReferenceSet::Slots::const_iterator ReferenceSet::FindSlot(std::string_view key) const {
  const auto it = std::lower_bound(
      slots_.begin(), slots_.end(), key,
      [this](const Slot& slot, std::string_view wanted) { return KeyOf(slot) < wanted; });
  return it != slots_.end() && KeyOf(*it) == key ? it : slots_.end();
}

void ReferenceSet::Set(std::string_view key, const ReferenceView& reference) {
  if (!slots_.empty()) {
    const std::string_view last = KeyOf(slots_.back());
    if (key < last) return SetOutOfOrder(key, reference);
    if (key == last) {
      if (const auto it = later_.find(key); it != later_.end()) {
        later_.erase(it);
        --shadowed_;
      }
      // Replaces the value; the key text stays where it is.
      Slot slot = MakeSlot(std::string_view(), reference);
      slot.key_at = slots_.back().key_at;
      slot.key_size = slots_.back().key_size;
      slots_.back() = slot;
      return;
    }
  }
  // A key past every slot: appended; a pending value for it is now stale.
  if (!later_.empty()) {
    if (const auto it = later_.find(key); it != later_.end()) later_.erase(it);
  }
  slots_.push_back(MakeSlot(key, reference));
}

void ReferenceSet::SetOutOfOrder(std::string_view key, const ReferenceView& reference) {
  const auto [it, inserted] = later_.insert_or_assign(std::string(key), reference.ToReference());
  if (inserted && FindSlot(key) != slots_.end()) ++shadowed_;
  if (later_.size() >= std::max(kMinMerge, slots_.size() / 4)) Merge();
}

void ReferenceSet::Merge() {
  // Room first: the loop holds views of text_ while it appends to it.
  std::size_t text_bytes = 0;
  for (const auto& [key, reference] : later_) text_bytes += key.size() + reference.data.size();
  text_.reserve(text_.size() + text_bytes);
  Slots merged;
  merged.reserve(size());
  auto later = later_.begin();
  for (const Slot& slot : slots_) {
    const std::string_view key = KeyOf(slot);
    for (; later != later_.end() && later->first < key; ++later) {
      merged.push_back(MakeSlot(later->first, ReferenceView::Of(later->second)));
    }
    if (later != later_.end() && later->first == key) {
      merged.push_back(MakeSlot(later->first, ReferenceView::Of(later->second)));
      ++later;
      continue;
    }
    merged.push_back(slot);
  }
  for (; later != later_.end(); ++later) {
    merged.push_back(MakeSlot(later->first, ReferenceView::Of(later->second)));
  }
  slots_ = std::move(merged);
  later_.clear();
  shadowed_ = 0;
}

void ReferenceSet::Absorb(ReferenceSet&& later) {
  if (&later == this) return;
  const bool follows = later_.empty() && later.later_.empty() &&
                       (slots_.empty() || later.slots_.empty() ||
                        KeyOf(slots_.back()) < later.KeyOf(later.slots_.front()));
  if (follows && slots_.empty()) {
    *this = std::move(later);
  } else if (follows) {
    // Consecutive parts of one sorted file: the slots move over, rebased.
    const std::uint64_t base = AppendTo(text_, AsChars(later.text_));
    std::vector<std::uint32_t> urls(later.urls_.size(), 0);
    std::vector<bool> interned(later.urls_.size(), false);
    slots_.reserve(slots_.size() + later.slots_.size());
    for (Slot slot : later.slots_) {
      slot.key_at += base;
      if (slot.kind == Reference::Kind::kInline) {
        slot.offset += base;
      } else {
        if (!interned[slot.url]) urls[slot.url] = urls_.Intern(later.urls_.Get(slot.url));
        interned[slot.url] = true;
        slot.url = urls[slot.url];
      }
      slots_.push_back(slot);
    }
  } else {
    for (const Entry& entry : later.entries()) Set(entry.key, entry.reference);
  }
  later = ReferenceSet();
}

void ReferenceSet::Erase(std::string_view key) {
  bool was_later = false;
  if (const auto it = later_.find(key); it != later_.end()) {
    later_.erase(it);
    was_later = true;
  }
  const auto slot = FindSlot(key);
  if (slot == slots_.end()) return;
  if (was_later) --shadowed_;
  slots_.erase(slot);
}

void ReferenceSet::Reserve(std::size_t references, std::size_t text_bytes) {
  slots_.reserve(slots_.size() + references);
  text_.reserve(text_.size() + text_bytes);
}

ReferenceSet::Entries ReferenceSet::entries() const {
  return Entries(Iterator(this, 0, later_.begin()), Iterator(this, slots_.size(), later_.end()));
}

Result<std::optional<Reference>> ReferenceSet::Find(std::string_view key) const {
  if (const auto it = later_.find(key); it != later_.end()) {
    return std::optional<Reference>(it->second);
  }
  const auto slot = FindSlot(key);
  if (slot == slots_.end()) return std::optional<Reference>();
  return std::optional<Reference>(ViewOf(*slot).ToReference());
}

Result<std::vector<std::string>> ReferenceSet::Keys(std::string_view prefix) const {
  const auto first = std::lower_bound(
      slots_.begin(), slots_.end(), prefix,
      [this](const Slot& slot, std::string_view wanted) { return KeyOf(slot) < wanted; });
  Iterator it(this, static_cast<std::size_t>(first - slots_.begin()), later_.lower_bound(prefix));
  const Iterator end(this, slots_.size(), later_.end());
  std::vector<std::string> keys;
  for (; it != end; ++it) {
    const std::string_view key = (*it).key;
    if (!key.starts_with(prefix)) break;
    keys.emplace_back(key);
  }
  return keys;
}

void ReferenceSetBuilder::Add(std::string_view key, const ReferenceView& reference) {
  if (sorted_ && !set_.slots_.empty()) {
    const std::string_view last = set_.KeyOf(set_.slots_.back());
    if (key == last) return set_.Set(key, reference);
    sorted_ = key > last;
  }
  set_.slots_.push_back(set_.MakeSlot(key, reference));
}

ReferenceSet ReferenceSetBuilder::Build() {
  if (!sorted_) {
    ReferenceSet::Slots& slots = set_.slots_;
    const auto by_key = [this](const ReferenceSet::Slot& a, const ReferenceSet::Slot& b) {
      return set_.KeyOf(a) < set_.KeyOf(b);
    };
    std::stable_sort(slots.begin(), slots.end(), by_key);
    // Of each run of equal keys, the last added (last after a stable sort) stays.
    std::size_t kept = 0;
    for (std::size_t i = 0; i < slots.size(); ++i) {
      if (i + 1 < slots.size() && !by_key(slots[i], slots[i + 1])) continue;
      slots[kept++] = slots[i];
    }
    slots.resize(kept);
  }
  sorted_ = true;
  return std::exchange(set_, ReferenceSet());
}

bool ReferenceSet::Iterator::FromSlots() const {
  if (later_ == set_->later_.end()) return true;
  if (slot_ == set_->slots_.size()) return false;
  return set_->KeyOf(set_->slots_[slot_]) < later_->first;
}

ReferenceSet::Entry ReferenceSet::Iterator::operator*() const {
  if (FromSlots()) {
    const Slot& slot = set_->slots_[slot_];
    return {set_->KeyOf(slot), set_->ViewOf(slot)};
  }
  return {later_->first, ReferenceView::Of(later_->second)};
}

ReferenceSet::Iterator& ReferenceSet::Iterator::operator++() {
  if (FromSlots()) {
    ++slot_;
    return *this;
  }
  // A side-map entry replaces the slot with its key, if any: step past both.
  if (slot_ < set_->slots_.size() && set_->KeyOf(set_->slots_[slot_]) == later_->first) ++slot_;
  ++later_;
  return *this;
}

}  // namespace chunkwise::formats::refs
