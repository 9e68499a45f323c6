// Result<T>: a value or the Status that explains why there is none.
//
// C++20 has no std::expected, so this is the small stand-in the style guide
// asks for. Read a Result with ok(), then value() or status(). The two macros
// at the end are the only control-flow macros in chunkwise.
#ifndef CHUNKWISE_CORE_RESULT_H_
#define CHUNKWISE_CORE_RESULT_H_

#include <optional>
#include <type_traits>
#include <utility>

#include "chunkwise/core/check.h"
#include "chunkwise/core/status.h"

namespace chunkwise {

// A template because it wraps every value type; see the style guide's rule on templates.
template <typename T>
class [[nodiscard]] Result {
 public:
  // REQUIRES: !status.ok(). An OK status without a value is a bug.
  Result(Status status) : status_(std::move(status)) {  // NOLINT: implicit by design
    CHUNKWISE_CHECK(!status_.ok());
  }
  // In place: for T = std::optional<X>, `return std::nullopt;` is an OK
  // Result holding an empty optional, not an empty Result with an OK status.
  Result(T value) : value_(std::in_place, std::move(value)) {}  // NOLINT: implicit by design
  // The constraint excludes Result itself, so this never hides the copy and
  // move constructors (clang-tidy cannot see through `requires`).
  // NOLINTBEGIN(bugprone-forwarding-reference-overload)
  template <typename U>
  requires(std::is_constructible_v<T, U&&> && !std::is_same_v<std::decay_t<U>, T> &&
           !std::is_same_v<std::decay_t<U>, Status> && !std::is_same_v<std::decay_t<U>, Result>)
      Result(U&& value)  // NOLINT(google-explicit-constructor): implicit by design
      : value_(std::in_place, std::forward<U>(value)) {}
  // NOLINTEND(bugprone-forwarding-reference-overload)

  bool ok() const { return value_.has_value(); }
  const Status& status() const& { return status_; }
  Status status() && { return std::move(status_); }

  // REQUIRES: ok().
  T& value() & {
    CHUNKWISE_CHECK(ok());
    return *value_;
  }
  const T& value() const& {
    CHUNKWISE_CHECK(ok());
    return *value_;
  }
  T&& value() && {
    CHUNKWISE_CHECK(ok());
    return std::move(*value_);
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  // The value, or `fallback` when this holds an error.
  T value_or(T fallback) const& { return ok() ? *value_ : std::move(fallback); }

 private:
  Status status_;
  std::optional<T> value_;
};

namespace internal {
inline const Status& AsStatus(const Status& status) { return status; }
template <typename T>
const Status& AsStatus(const Result<T>& result) {
  return result.status();
}
}  // namespace internal

}  // namespace chunkwise

#define CHUNKWISE_INTERNAL_CONCAT_(a, b) a##b
#define CHUNKWISE_INTERNAL_CONCAT(a, b) CHUNKWISE_INTERNAL_CONCAT_(a, b)

// Returns the error from the enclosing function if `expr` (a Status or a
// Result) is not OK.
#define CHUNKWISE_RETURN_IF_ERROR(expr)                               \
  do {                                                                \
    if (auto&& chunkwise_status_ = (expr); !chunkwise_status_.ok()) { \
      return ::chunkwise::internal::AsStatus(chunkwise_status_);      \
    }                                                                 \
  } while (false)

// Evaluates `expr` (a Result<T>); on error returns its status from the
// enclosing function, otherwise moves the value into `lhs` (a declaration or
// an lvalue).
#define CHUNKWISE_ASSIGN_OR_RETURN(lhs, expr)                                                      \
  CHUNKWISE_INTERNAL_ASSIGN_OR_RETURN(CHUNKWISE_INTERNAL_CONCAT(chunkwise_result_, __LINE__), lhs, \
                                      expr)
// `result` is a fresh name and `lhs` may be a declaration, so neither can be
// parenthesized. NOLINTBEGIN(bugprone-macro-parentheses)
#define CHUNKWISE_INTERNAL_ASSIGN_OR_RETURN(result, lhs, expr) \
  auto result = (expr);                                        \
  if (!result.ok()) {                                          \
    return std::move(result).status();                         \
  }                                                            \
  lhs = std::move(result).value()
// NOLINTEND(bugprone-macro-parentheses)

#endif  // CHUNKWISE_CORE_RESULT_H_
