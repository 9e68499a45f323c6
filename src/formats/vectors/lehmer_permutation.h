// perm_idx: the Lehmer code of the canonical→input permutation of a
// cross-chunk record's endpoints.
//
// Spec: docs/formats/vectors.md, "Blob layouts" (`perm_idx`). `sorted_idx[i]`
// is the input position of the endpoint stored in canonical slot i. Code 0 is
// the identity; for two endpoints, 1 means swapped. Pure functions,
// thread-safe.
#ifndef CHUNKWISE_FORMATS_VECTORS_LEHMER_PERMUTATION_H_
#define CHUNKWISE_FORMATS_VECTORS_LEHMER_PERMUTATION_H_

#include <cstdint>
#include <span>
#include <vector>

#include "chunkwise/core/result.h"

namespace chunkwise::formats::vectors {

// The most endpoints a record may have (20! still fits an int64).
inline constexpr int kMaxLinkWidth = 20;

// n! for 0 <= n <= kMaxLinkWidth.
std::int64_t Factorial(int n);
// The Lehmer code of `sorted_idx`. REQUIRES: a permutation of 0..L-1, L <= kMaxLinkWidth.
std::int64_t EncodeLehmer(std::span<const int> sorted_idx);
// sorted_idx of `code` for `length` endpoints; OutOfRange unless 0 <= code < length!.
Result<std::vector<int>> DecodeLehmer(std::int64_t code, int length);

}  // namespace chunkwise::formats::vectors

#endif  // CHUNKWISE_FORMATS_VECTORS_LEHMER_PERMUTATION_H_
