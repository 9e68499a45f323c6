// The index of a mesh's welded vertices by key (pipelines/meshing/
// label_meshes.cc): which vertex number a 64-bit vertex key was given first.
//
// Marching cubes looks a key up for every corner of every triangle it makes,
// and welding the chunks' pieces once more for every vertex of each piece, so
// this is one flat table probed in place (open addressing, linear probing,
// at most half full) rather than std::unordered_map, whose node per key is an
// allocation to make, a pointer to chase on every look-up and a free at the
// end (mesh_bench at 512³: those tables and their nodes were about a seventh
// of the process's CPU time).
#ifndef CHUNKWISE_PIPELINES_MESHING_MESH_VERTEX_INDEX_H_
#define CHUNKWISE_PIPELINES_MESHING_MESH_VERTEX_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace chunkwise::pipelines {

class MeshVertexIndex {
 public:
  // A slot with this value is empty, so it is never a vertex number.
  static constexpr std::uint32_t kEmpty = std::numeric_limits<std::uint32_t>::max();

  // The number `key` was given: `vertex` if the key is new (and true), else
  // the number it was given before (and false). `vertex` is not kEmpty.
  std::pair<std::uint32_t, bool> TryEmplace(std::uint64_t key, std::uint32_t vertex) {
    if (2 * (size_ + 1) > slots_.size()) Grow();
    Slot& slot = Find(key);
    if (slot.vertex != kEmpty) return {slot.vertex, false};
    slot = {key, vertex};
    ++size_;
    return {vertex, true};
  }

  std::size_t size() const { return size_; }

 private:
  struct Slot {
    std::uint64_t key = 0;
    std::uint32_t vertex = kEmpty;
  };

  // The key's slot, or the empty slot where it would go.
  Slot& Find(std::uint64_t key) {
    const std::size_t mask = slots_.size() - 1;
    // Fibonacci hashing: the keys are packed coordinates, whose low bits
    // alone would crowd the table; the product's high bits mix all of them.
    std::size_t i = static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> shift_) & mask;
    while (slots_[i].vertex != kEmpty && slots_[i].key != key) i = (i + 1) & mask;
    return slots_[i];
  }

  void Grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 64 : 2 * old.size(), Slot{});
    shift_ = 64;
    for (std::size_t n = slots_.size(); n > 1; n >>= 1) --shift_;
    for (const Slot& s : old) {
      if (s.vertex != kEmpty) Find(s.key) = s;
    }
  }

  std::vector<Slot> slots_;
  // 64 - log2(slots_.size()): the product's bits that pick a slot.
  int shift_ = 64;
  std::size_t size_ = 0;
};

}  // namespace chunkwise::pipelines

#endif  // CHUNKWISE_PIPELINES_MESHING_MESH_VERTEX_INDEX_H_
