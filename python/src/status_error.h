// StatusError: a library Status carried across the binding as a C++
// exception, turned into the matching Python exception (chunkwise/_errors.py)
// by the translator RegisterStatusTranslator installs.
//
// The library throws nothing; only the binding throws, and only this.
#ifndef CHUNKWISE_PYTHON_STATUS_ERROR_H_
#define CHUNKWISE_PYTHON_STATUS_ERROR_H_

#include <exception>
#include <string>
#include <utility>

#include "chunkwise/chunkwise.h"

namespace chunkwise::python {

class StatusError : public std::exception {
 public:
  explicit StatusError(Status status) : status_(std::move(status)), what_(status_.ToString()) {}
  const Status& status() const { return status_; }
  const char* what() const noexcept override { return what_.c_str(); }

 private:
  Status status_;
  std::string what_;
};

// Throws StatusError unless `status` is OK.
inline void ThrowIfError(const Status& status) {
  if (!status.ok()) throw StatusError(status);
}

// The value of `result`, or throws its error.
template <typename T>
T ValueOrThrow(Result<T> result) {
  if (!result.ok()) throw StatusError(result.status());
  return std::move(result).value();
}

// Makes nanobind raise chunkwise._errors' class for each StatusCode.
void RegisterStatusTranslator();

}  // namespace chunkwise::python

#endif  // CHUNKWISE_PYTHON_STATUS_ERROR_H_
