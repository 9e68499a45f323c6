#include "status_error.h"

#include <nanobind/nanobind.h>

namespace nb = nanobind;

namespace chunkwise::python {
namespace {

// The name of the Python class (in chunkwise._errors) raised for `code`.
const char* ExceptionClassName(StatusCode code) {
  switch (code) {
    case StatusCode::kInvalidArgument:
      return "InvalidArgumentError";
    case StatusCode::kNotFound:
      return "NotFoundError";
    case StatusCode::kCorruption:
      return "CorruptionError";
    case StatusCode::kUnsupported:
      return "UnsupportedError";
    case StatusCode::kIOError:
      return "StoreIOError";
    case StatusCode::kOutOfRange:
      return "OutOfRangeError";
    case StatusCode::kConflict:
      return "ConflictError";
    case StatusCode::kCancelled:
      return "CancelledError";
    case StatusCode::kResourceExhausted:
      return "ResourceExhaustedError";
    case StatusCode::kInternal:
    case StatusCode::kOk:
      break;
  }
  return "InternalError";
}

void RaiseStatus(const Status& status) {
  // The classes live in Python so that each can also derive from the
  // built-in exception its users already catch (OSError, ValueError, ...).
  nb::object errors = nb::module_::import_("chunkwise._errors");
  nb::object cls = errors.attr(ExceptionClassName(status.code()));
  nb::object error = cls(nb::str(status.message().data(), status.message().size()));
  const std::string_view name = StatusCodeName(status.code());
  error.attr("code") = nb::str(name.data(), name.size());
  PyErr_SetObject(cls.ptr(), error.ptr());
}

}  // namespace

void RegisterStatusTranslator() {
  nb::register_exception_translator([](const std::exception_ptr& pointer, void*) {
    try {
      std::rethrow_exception(pointer);
    } catch (const StatusError& error) {
      try {
        RaiseStatus(error.status());
      } catch (nb::python_error& failed) {
        failed.restore();  // chunkwise._errors could not be imported: say why.
      }
    }
  });
}

}  // namespace chunkwise::python
