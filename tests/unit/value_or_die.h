// ValueOrDie: a Result's value in a test, or the test fails there and stops
// (a test that goes on with no value would only crash further down).
#ifndef CHUNKWISE_TESTS_UNIT_VALUE_OR_DIE_H_
#define CHUNKWISE_TESTS_UNIT_VALUE_OR_DIE_H_

#include <gtest/gtest.h>

#include <cstdlib>
#include <utility>

#include "chunkwise/core/result.h"

namespace chunkwise::test {

template <typename T>
T ValueOrDie(Result<T> result) {
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  if (!result.ok()) std::abort();
  return std::move(*result);
}

}  // namespace chunkwise::test

#endif  // CHUNKWISE_TESTS_UNIT_VALUE_OR_DIE_H_
