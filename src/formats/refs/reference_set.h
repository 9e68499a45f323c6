// ReferenceSet: a whole reference set held in memory, as the JSON readers
// produce it and every writer (JSON v0, JSON v1, Parquet) consumes it.
//
// Metadata keys (".zgroup", "x/.zarray", "x/.zattrs", ...) are inline
// references holding their JSON text; chunk keys are inline, whole-file or
// range references. Keys are kept sorted so that writers are deterministic.
//
// Storage is compact because sets reach tens of millions of references: one
// 40-byte slot per key in a sorted vector, keys and inline values in one
// text arena, and URLs interned in a pool (a set usually points at a few
// hundred files, so a reference holds a URL number, not a string). Keys that
// arrive in sorted order, as they do in the files we and kerchunk write, are
// appended; others go to a small ordered side map that is merged into the
// vector when it grows. Nothing is allocated per reference in the common case.
//
// Thread safety: const methods may run in parallel; mutation needs exclusive
// access. Views (entries(), ReferenceView) are valid until the next mutation.
#ifndef CHUNKWISE_FORMATS_REFS_REFERENCE_SET_H_
#define CHUNKWISE_FORMATS_REFS_REFERENCE_SET_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"
#include "chunkwise/store/reference.h"

namespace chunkwise::formats::refs {

// A reference as stored in a set, without copies: `data` and `url` point into
// the set.
struct ReferenceView {
  store::Reference::Kind kind = store::Reference::Kind::kInline;
  ByteView data;             // kInline
  std::string_view url;      // kWholeFile, kRange
  std::uint64_t offset = 0;  // kRange
  std::uint64_t length = 0;  // kRange

  static ReferenceView Of(const store::Reference& reference) {
    return {reference.kind, reference.data, reference.url, reference.offset, reference.length};
  }
  store::Reference ToReference() const {
    return {kind, CopyToBytes(data), std::string(url), offset, length};
  }
};

class ReferenceSet : public store::ReferenceIndex {
 public:
  // One key and its reference, as entries() yields them.
  struct Entry {
    std::string_view key;
    ReferenceView reference;
  };
  class Iterator;
  // The entries in sorted key order; see entries().
  class Entries;

  ReferenceSet() = default;
  ReferenceSet(const ReferenceSet&) = default;
  ReferenceSet& operator=(const ReferenceSet&) = default;
  // A moved-from set is empty.
  ReferenceSet(ReferenceSet&& other) noexcept { *this = std::move(other); }
  ReferenceSet& operator=(ReferenceSet&& other) noexcept {
    text_ = std::move(other.text_);
    slots_ = std::move(other.slots_);
    urls_ = std::move(other.urls_);
    later_ = std::move(other.later_);
    shadowed_ = std::exchange(other.shadowed_, 0);
    other.text_.clear();
    other.slots_.clear();
    other.urls_ = UrlPool();
    other.later_.clear();
    return *this;
  }

  // Adds or replaces `key`. O(1) when keys arrive in sorted order, as they do
  // in the files we write and in kerchunk's; amortized O(log n) otherwise.
  // REQUIRES: key.size() < 4 GiB (readers refuse longer keys).
  void Set(std::string_view key, const ReferenceView& reference);
  void Set(std::string_view key, const store::Reference& reference) {
    Set(key, ReferenceView::Of(reference));
  }
  // As Set: kept for callers whose keys arrive sorted (Set is as fast then).
  void Add(std::string_view key, const store::Reference& reference) { Set(key, reference); }
  // Moves every entry of `later` into this set, replacing equal keys: a bulk
  // append when `later`'s keys all follow this set's (consecutive parts of a
  // sorted file). `later` is left empty.
  void Absorb(ReferenceSet&& later);
  // Removes `key` if present.
  void Erase(std::string_view key);
  // Room for `references` more entries and `text_bytes` more bytes of keys
  // and inline values, so that a reader that knows its input's size grows
  // the storage once.
  void Reserve(std::size_t references, std::size_t text_bytes);

  // Every entry in sorted key order. Iterators yield Entry by value.
  Entries entries() const;
  std::size_t size() const { return slots_.size() + later_.size() - shadowed_; }

  Result<std::optional<store::Reference>> Find(std::string_view key) const override;
  Result<std::vector<std::string>> Keys(std::string_view prefix) const override;

 private:
  // One key of the sorted vector. kInline keeps its value in text_ at
  // [offset, offset + length); the others name a URL of urls_.
  struct Slot {
    std::uint64_t key_at = 0;
    std::uint64_t offset = 0;
    std::uint64_t length = 0;
    std::uint32_t key_size = 0;
    std::uint32_t url = 0;
    store::Reference::Kind kind = store::Reference::Kind::kInline;
  };
  // Distinct URLs, each stored once, found by an open-addressing hash table
  // of indices (no pointers, so the set copies and moves as plain data).
  class UrlPool {
   public:
    std::uint32_t Intern(std::string_view url);
    std::size_t size() const { return spans_.size(); }
    std::string_view Get(std::uint32_t index) const {
      return std::string_view(text_).substr(spans_[index].first, spans_[index].second);
    }

   private:
    void Rehash(std::size_t buckets);
    std::string text_;
    std::vector<std::pair<std::uint64_t, std::uint32_t>> spans_;  // (at, size) in text_.
    std::vector<std::uint32_t> table_;                            // index + 1; 0 = empty.
    std::uint32_t last_ = 0;                                      // Consecutive refs share URLs.
  };

  friend class Iterator;
  friend class ReferenceSetBuilder;
  std::string_view KeyOf(const Slot& slot) const {
    return AsChars(text_).substr(slot.key_at, slot.key_size);
  }
  ReferenceView ViewOf(const Slot& slot) const;
  Slot MakeSlot(std::string_view key, const ReferenceView& reference);
  // The slot holding `key`, or slots_.end().
  using Slots = std::vector<Slot, DefaultInitAllocator<Slot>>;
  Slots::const_iterator FindSlot(std::string_view key) const;
  void SetOutOfOrder(std::string_view key, const ReferenceView& reference);
  // Folds later_ into slots_.
  void Merge();

  // Bytes (not std::string or std::allocator) so that the large arrays get
  // transparent huge pages: first-touch page faults on gigabytes of 4 KiB
  // pages cost as much as parsing on a virtual machine.
  Bytes text_;   // Keys and inline values.
  Slots slots_;  // Sorted by key, keys unique.
  UrlPool urls_;
  // Keys that arrived out of order, pending a merge; they replace equal keys
  // of slots_ (`shadowed_` counts those).
  std::map<std::string, store::Reference, std::less<>> later_;
  std::size_t shadowed_ = 0;
};

class ReferenceSet::Iterator {
 public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = Entry;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = Entry;

  Iterator() = default;
  Entry operator*() const;
  Iterator& operator++();
  Iterator operator++(int) {
    Iterator before = *this;
    ++*this;
    return before;
  }
  bool operator==(const Iterator& other) const {
    return slot_ == other.slot_ && later_ == other.later_;
  }

 private:
  friend class ReferenceSet;
  using LaterIterator = std::map<std::string, store::Reference, std::less<>>::const_iterator;
  Iterator(const ReferenceSet* set, std::size_t slot, LaterIterator later)
      : set_(set), slot_(slot), later_(later) {}
  // Which source holds the current entry (the side map on equal keys).
  bool FromSlots() const;

  const ReferenceSet* set_ = nullptr;
  std::size_t slot_ = 0;
  LaterIterator later_;
};

class ReferenceSet::Entries {
 public:
  Iterator begin() const { return begin_; }
  Iterator end() const { return end_; }

 private:
  friend class ReferenceSet;
  Entries(Iterator begin, Iterator end) : begin_(begin), end_(end) {}
  Iterator begin_, end_;
};

// Builds a set from references that may arrive in any order, as the readers
// do: each is appended (no per-key search), and Build() sorts once, only if
// they did not arrive sorted. Of equal keys the last added wins, as in Set.
class ReferenceSetBuilder {
 public:
  ReferenceSetBuilder() = default;
  // Continues `set`: later additions replace its equal keys.
  explicit ReferenceSetBuilder(ReferenceSet set) : set_(std::move(set)) {
    if (!set_.later_.empty()) set_.Merge();
  }

  void Add(std::string_view key, const ReferenceView& reference);
  void Add(std::string_view key, const store::Reference& reference) {
    Add(key, ReferenceView::Of(reference));
  }
  // As ReferenceSet::Reserve.
  void Reserve(std::size_t references, std::size_t text_bytes) {
    set_.Reserve(references, text_bytes);
  }
  std::size_t added() const { return set_.slots_.size(); }
  // Bytes of keys and inline values held, for sizing Reserve.
  std::size_t text_bytes() const { return set_.text_.size(); }
  // The set; the builder is left empty.
  ReferenceSet Build();

 private:
  ReferenceSet set_;
  bool sorted_ = true;
};

}  // namespace chunkwise::formats::refs

#endif  // CHUNKWISE_FORMATS_REFS_REFERENCE_SET_H_
