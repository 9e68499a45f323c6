// Cancellation: a flag a caller sets to stop a long operation, and that the
// operation checks between units of work.
//
// Cancel() may be called from any thread (a signal handler's thread, Python's
// KeyboardInterrupt, a GUI button). The work stops at its next check and
// returns Status::Cancelled; what it had published stays valid (every value
// is written whole or not at all), what it had not is never visible.
#ifndef CHUNKWISE_CORE_CANCELLATION_H_
#define CHUNKWISE_CORE_CANCELLATION_H_

#include <atomic>
#include <string_view>

#include "chunkwise/core/status.h"

namespace chunkwise::core {

class Cancellation {
 public:
  void Cancel() { cancelled_.store(true, std::memory_order_relaxed); }
  // Clears the flag so that the next operation may run.
  void Reset() { cancelled_.store(false, std::memory_order_relaxed); }
  bool cancelled() const { return cancelled_.load(std::memory_order_relaxed); }
  // OK, or Cancelled naming `what` ("writing s3://b/a.zarr").
  Status Check(std::string_view what) const;

 private:
  std::atomic<bool> cancelled_{false};
};

}  // namespace chunkwise::core

#endif  // CHUNKWISE_CORE_CANCELLATION_H_
