#include "formats/vectors/lehmer_permutation.h"

#include <algorithm>
#include <string>

#include "chunkwise/core/check.h"

namespace chunkwise::formats::vectors {

std::int64_t Factorial(int n) {
  CHUNKWISE_CHECK(n >= 0 && n <= kMaxLinkWidth);
  std::int64_t value = 1;
  for (int i = 2; i <= n; ++i) value *= i;
  return value;
}

std::int64_t EncodeLehmer(std::span<const int> sorted_idx) {
  const int length = static_cast<int>(sorted_idx.size());
  CHUNKWISE_CHECK(length <= kMaxLinkWidth);
  std::vector<int> pool(length);
  for (int i = 0; i < length; ++i) pool[i] = i;
  std::int64_t code = 0;
  for (int i = 0; i < length; ++i) {
    const auto found = std::find(pool.begin(), pool.end(), sorted_idx[i]);
    CHUNKWISE_CHECK(found != pool.end());
    code += (found - pool.begin()) * Factorial(length - 1 - i);
    pool.erase(found);
  }
  return code;
}

Result<std::vector<int>> DecodeLehmer(std::int64_t code, int length) {
  if (length < 0 || length > kMaxLinkWidth || code < 0 || code >= Factorial(length)) {
    return Status::OutOfRange("perm_idx " + std::to_string(code) + " is not below " +
                              std::to_string(length) + "!");
  }
  std::vector<int> pool(length);
  for (int i = 0; i < length; ++i) pool[i] = i;
  std::vector<int> sorted_idx(length);
  for (int i = 0; i < length; ++i) {
    const std::int64_t factor = Factorial(length - 1 - i);
    const std::int64_t position = code / factor;
    code %= factor;
    sorted_idx[i] = pool[position];
    pool.erase(pool.begin() + position);
  }
  return sorted_idx;
}

}  // namespace chunkwise::formats::vectors
