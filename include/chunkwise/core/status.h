// Status: the outcome of an operation that returns no value.
//
// chunkwise throws no exceptions (see docs/architecture.md, "Error model"). A
// Status is OK or carries a code and a message that names the file or key and
// what was wrong. OK is a null pointer, so success costs nothing to return.
// The error model is the vocabulary of every layer, so it lives in the top
// namespace rather than in chunkwise::core.
#ifndef CHUNKWISE_CORE_STATUS_H_
#define CHUNKWISE_CORE_STATUS_H_

#include <memory>
#include <string>
#include <string_view>

namespace chunkwise {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,    // The caller asked for something malformed or impossible.
  kNotFound,           // A required file, key or entry does not exist.
  kCorruption,         // Stored bytes violate their format.
  kUnsupported,        // Valid, but a feature chunkwise does not implement.
  kIOError,            // The operating system refused a read or a write.
  kOutOfRange,         // An index, range or size lies outside what is allowed.
  kInternal,           // A dependency failed in a way that is not the input's fault.
  kConflict,           // A conditional write found the value changed: re-read, retry.
  kCancelled,          // The caller cancelled the operation (core/cancellation.h).
  kResourceExhausted,  // More memory or threads than this process may have.
};

// The code's name as printed in messages, e.g. "Corruption".
std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK.
  Status(StatusCode code, std::string message);
  Status(const Status& other);
  Status& operator=(const Status& other);
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;

  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string message);
  static Status NotFound(std::string message);
  static Status Corruption(std::string message);
  static Status Unsupported(std::string message);
  static Status IOError(std::string message);
  static Status OutOfRange(std::string message);
  static Status Internal(std::string message);
  static Status Conflict(std::string message);
  static Status Cancelled(std::string message);
  static Status ResourceExhausted(std::string message);

  bool ok() const { return state_ == nullptr; }
  StatusCode code() const;
  // The message without the code name; empty when OK.
  std::string_view message() const;
  // "Corruption: <message>", or "OK".
  std::string ToString() const;

  // Returns this status with "context: " put before its message; OK stays OK.
  // Callers use it to add the file, key or step on the way up. The field is kept.
  Status WithContext(std::string_view context) const;

  // The option the error is about, as the library's option structs name it
  // ("chunk_shape", "overwrite"), or empty. The library sets it where it
  // checks a caller's option, never on stored bytes, so that a translator can
  // say how its user sets that option (the CLI's flag hints, src/cli/flag_hints.cc)
  // without reading the message. Not part of ToString() or operator==.
  std::string_view field() const;
  // This status naming `field`; OK stays OK.
  Status WithField(std::string_view field) const;

  bool operator==(const Status& other) const;

 private:
  struct State {
    StatusCode code;
    std::string message;
    std::string field;
  };
  std::unique_ptr<State> state_;
};

}  // namespace chunkwise

#endif  // CHUNKWISE_CORE_STATUS_H_
