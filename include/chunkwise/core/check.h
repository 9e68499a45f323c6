// CHUNKWISE_CHECK: aborts on a broken invariant.
//
// A failed check is a bug in chunkwise, never bad input: bad input returns a
// Status. The check stays on in release builds because silent corruption is
// worse than a crash with a message.
#ifndef CHUNKWISE_CORE_CHECK_H_
#define CHUNKWISE_CORE_CHECK_H_

namespace chunkwise::internal {
[[noreturn]] void CheckFailed(const char* condition, const char* file, int line);
}  // namespace chunkwise::internal

#define CHUNKWISE_CHECK(condition)                                        \
  do {                                                                    \
    if (!(condition)) [[unlikely]] {                                      \
      ::chunkwise::internal::CheckFailed(#condition, __FILE__, __LINE__); \
    }                                                                     \
  } while (false)

#endif  // CHUNKWISE_CORE_CHECK_H_
