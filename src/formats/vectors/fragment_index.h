// The vertex fragment index ("ZVFG" v1) of vertex_fragments/<chunk_key>.
//
// Spec: docs/formats/vectors.md, "Blob layouts" (`vertex_fragments`) and "Pitfalls
// settled" (9):
//   u32 magic 0x5A564647 (bytes "GFVZ"), u16 version 1, u16 flags 0,
//   u32 F fragments, u32 R range fragments; a range bitmap of ceil(F/8) bytes
//   (LSB first, bit f set: fragment f is a range) zero-padded to a multiple of
//   8; R × (i64 start, i64 count) in fragment order; then for the E = F − R
//   other fragments u32 offsets[E+1] and i64 indices[offsets[E]] (unaligned,
//   no padding). chunkwise writes one fragment per object present in the
//   chunk, as a range when its rows are contiguous. Pure functions.
#ifndef CHUNKWISE_FORMATS_VECTORS_FRAGMENT_INDEX_H_
#define CHUNKWISE_FORMATS_VECTORS_FRAGMENT_INDEX_H_

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"

namespace chunkwise::formats::vectors {

inline constexpr std::uint32_t kFragmentIndexMagic = 0x5A564647;

// One fragment: the rows [start, start + count) when is_range, else `indices`.
struct Fragment {
  bool is_range = true;
  std::int64_t start = 0;
  std::int64_t count = 0;
  std::vector<std::int64_t> indices;
  bool operator==(const Fragment&) const = default;
};

// A fragment of `rows`: a range when they are consecutive ascending, else explicit.
Fragment MakeFragment(std::span<const std::int64_t> rows);
Bytes EncodeFragmentIndex(std::span<const Fragment> fragments);
// Corruption naming `key` for a bad magic, version, truncation or sizes that do
// not add up; indices are not checked against the vertex count (the validator does).
Result<std::vector<Fragment>> DecodeFragmentIndex(ByteView blob, std::string_view key);

}  // namespace chunkwise::formats::vectors

#endif  // CHUNKWISE_FORMATS_VECTORS_FRAGMENT_INDEX_H_
