// Operation: one long library call made from Python. It runs with the GIL
// released, on the facade Context (chunkwise.h) this object owns; Ctrl-C or
// a CancelToken cancels it through the Context's cancellation, and its
// progress goes to a Python callback.
//
// A watched call runs on a thread of its own while the calling thread waits
// with the GIL released and wakes every kWatchInterval to run Python's signal
// handlers (PyErr_CheckSignals: only the main thread can) and the callback.
// When a handler raises (KeyboardInterrupt), the Context is cancelled, the
// call is waited for (it stops at its next chunk or frame), and the handler's
// exception is raised. A call that is short and has no callback runs inline.
//
// Two kinds of Context, and why each exists:
// - The module Context (ModuleContext(), made when chunkwise._core is
//   imported and owned by the module object, freed with it): the one the
//   many small calls share (a 64^3 read, a chunk get). It holds the thread
//   pool they reuse, so a read of a few microseconds does not start threads
//   or build a store registry. It is never cancelled and has no observer: a
//   Ctrl-C on one thread's call must not stop another thread's.
// - A per-call Context (owned by the Operation): every call that can be
//   cancelled or reports progress gets its own, so its cancellation flag and
//   its counts belong to that call alone. A call that starts on the module
//   Context but turns out to be watched (large: Ctrl-C is checked) moves to a
//   per-call Context before its work starts.
#ifndef CHUNKWISE_PYTHON_OPERATION_H_
#define CHUNKWISE_PYTHON_OPERATION_H_

#include <nanobind/nanobind.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>

#include "chunkwise/chunkwise.h"

namespace chunkwise::python {

// chunkwise.CancelToken: set from any thread; the operations given it stop.
class CancelToken {
 public:
  void Cancel() { flag_.store(true); }
  void Reset() { flag_.store(false); }
  bool cancelled() const { return flag_.load(); }

 private:
  std::atomic<bool> flag_{false};
};

// The counts of the operations of one Context, for the watcher to read.
class ProgressCounter : public core::ProgressObserver {
 public:
  void OnStart(std::string_view, std::uint64_t total, std::string_view) override;
  void OnProgress(std::string_view, std::uint64_t done) override;
  void OnFinish(std::string_view, std::uint64_t done) override;
  std::uint64_t total() const { return total_.load(); }
  std::uint64_t done() const { return done_.load(); }

 private:
  std::atomic<std::uint64_t> total_{0};
  std::atomic<std::uint64_t> done_{0};
};

// The module's Context (see the top of this file). Valid from the module's
// import (BindCancelToken makes it) until the module is freed.
Context& ModuleContext();

class Operation {
 public:
  // `progress`: None, or a callable (done, total) with total None when
  // unknown. `token` may be null. `one_call`: the operation is one Run;
  // without progress or token it then borrows the module Context instead of
  // making one (small reads are a few microseconds, a Context's registry
  // about as many), unless Run finds it large enough to be watched.
  // `threads`: the pool size of a Context of its own (0: one per core).
  Operation(nanobind::object progress, std::shared_ptr<CancelToken> token, bool one_call = false,
            std::size_t threads = 0);
  ~Operation();
  Operation(const Operation&) = delete;
  Operation& operator=(const Operation&) = delete;

  const Context& context() const { return *context_; }

  // Runs `work` (which must not touch Python; it must read context() when it
  // runs, not before, as Run may replace a borrowed one) as the header says; `bytes` is
  // its size, which decides whether it is watched. Throws StatusError for its
  // error (Cancelled → chunkwise.CancelledError), nanobind::python_error for
  // a signal handler's or the callback's exception.
  void Run(const std::function<Status()>& work, std::uint64_t bytes);

 private:
  // Calls the callback if the count moved since the last call.
  void Report();
  // Gives the operation a Context of its own if it borrows the module's.
  void OwnContext();
  // Cancels the Context if the token says so.
  void SyncToken();

  nanobind::object progress_;
  std::shared_ptr<CancelToken> token_;
  std::shared_ptr<ProgressCounter> counter_;
  std::unique_ptr<Context> owned_;
  Context* context_ = nullptr;  // owned_, or the module's (never cancelled).
  std::uint64_t reported_ = UINT64_MAX;
  std::size_t threads_ = 0;
};

}  // namespace chunkwise::python

#endif  // CHUNKWISE_PYTHON_OPERATION_H_
