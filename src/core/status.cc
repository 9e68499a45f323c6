#include "chunkwise/core/status.h"

#include <cstdio>
#include <cstdlib>

#include "chunkwise/core/check.h"

namespace chunkwise {

std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "OK";
    case StatusCode::kInvalidArgument:
      return "InvalidArgument";
    case StatusCode::kNotFound:
      return "NotFound";
    case StatusCode::kCorruption:
      return "Corruption";
    case StatusCode::kUnsupported:
      return "Unsupported";
    case StatusCode::kIOError:
      return "IOError";
    case StatusCode::kOutOfRange:
      return "OutOfRange";
    case StatusCode::kInternal:
      return "Internal";
    case StatusCode::kConflict:
      return "Conflict";
    case StatusCode::kCancelled:
      return "Cancelled";
    case StatusCode::kResourceExhausted:
      return "ResourceExhausted";
  }
  return "Unknown";
}

Status::Status(StatusCode code, std::string message) {
  CHUNKWISE_CHECK(code != StatusCode::kOk);
  state_ = std::make_unique<State>(State{code, std::move(message), {}});
}

Status::Status(const Status& other)
    : state_(other.state_ ? std::make_unique<State>(*other.state_) : nullptr) {}

Status& Status::operator=(const Status& other) {
  if (this != &other) {
    state_ = other.state_ ? std::make_unique<State>(*other.state_) : nullptr;
  }
  return *this;
}

Status Status::InvalidArgument(std::string message) {
  return Status(StatusCode::kInvalidArgument, std::move(message));
}
Status Status::NotFound(std::string message) {
  return Status(StatusCode::kNotFound, std::move(message));
}
Status Status::Corruption(std::string message) {
  return Status(StatusCode::kCorruption, std::move(message));
}
Status Status::Unsupported(std::string message) {
  return Status(StatusCode::kUnsupported, std::move(message));
}
Status Status::IOError(std::string message) {
  return Status(StatusCode::kIOError, std::move(message));
}
Status Status::OutOfRange(std::string message) {
  return Status(StatusCode::kOutOfRange, std::move(message));
}
Status Status::Internal(std::string message) {
  return Status(StatusCode::kInternal, std::move(message));
}

Status Status::Conflict(std::string message) {
  return Status(StatusCode::kConflict, std::move(message));
}
Status Status::Cancelled(std::string message) {
  return Status(StatusCode::kCancelled, std::move(message));
}

Status Status::ResourceExhausted(std::string message) {
  return Status(StatusCode::kResourceExhausted, std::move(message));
}

StatusCode Status::code() const { return state_ ? state_->code : StatusCode::kOk; }

std::string_view Status::message() const {
  return state_ ? std::string_view(state_->message) : std::string_view();
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string text(StatusCodeName(state_->code));
  text += ": ";
  text += state_->message;
  return text;
}

Status Status::WithContext(std::string_view context) const {
  if (ok()) return Status();
  std::string message(context);
  message += ": ";
  message += state_->message;
  Status result(state_->code, std::move(message));
  result.state_->field = state_->field;
  return result;
}

std::string_view Status::field() const {
  return state_ ? std::string_view(state_->field) : std::string_view();
}

Status Status::WithField(std::string_view field) const {
  Status result(*this);
  if (result.state_) result.state_->field = field;
  return result;
}

bool Status::operator==(const Status& other) const {
  return code() == other.code() && message() == other.message();
}

namespace internal {
void CheckFailed(const char* condition, const char* file, int line) {
  std::fprintf(stderr, "chunkwise: internal check failed: %s at %s:%d\n", condition, file, line);
  std::abort();
}
}  // namespace internal

}  // namespace chunkwise
