// Operation: one library call made from Python, on the module's one facade
// Context (chunkwise.h), with the call's own CallOptions: its progress goes
// to a Python callback, Ctrl-C or a CancelToken cancels it through a flag of
// its own, and `threads` sizes a pool of its own.
//
// A watched call runs on a thread of its own while the calling thread waits
// with the GIL released and wakes every kWatchInterval to run Python's signal
// handlers (PyErr_CheckSignals: only the main thread can) and the callback.
// When a handler raises (KeyboardInterrupt), the call's flag is set, the
// call is waited for (it stops at its next chunk or frame), and the handler's
// exception is raised. A call that is short and has no callback runs inline.
//
// The module Context (ModuleContext(), made when chunkwise._core is imported
// and owned by the module object, freed with it) holds what lives as long as
// the module: the thread pools every call reuses (a read of a few
// microseconds starts no threads), the buffers arrays borrow, and the store
// registry, whose memory://NAME stores every call sees. It is never
// cancelled and has no observer: a Ctrl-C on one thread's call stops that
// call alone.
#ifndef CHUNKWISE_PYTHON_OPERATION_H_
#define CHUNKWISE_PYTHON_OPERATION_H_

#include <nanobind/nanobind.h>

#include <atomic>
#include <condition_variable>
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
  // The first count that moves wakes `watcher` (notified without its mutex:
  // a wake that is missed costs one watch interval, no more).
  void WakeOnFirstMove(std::condition_variable* watcher) { watcher_ = watcher; }
  void OnStart(std::string_view, std::uint64_t total, std::string_view) override;
  void OnProgress(std::string_view, std::uint64_t done) override;
  void OnFinish(std::string_view, std::uint64_t done) override;
  std::uint64_t total() const { return total_.load(); }
  std::uint64_t done() const { return done_.load(); }
  bool moved() const { return moved_.load(); }

 private:
  std::atomic<std::uint64_t> total_{0};
  std::atomic<std::uint64_t> done_{0};
  std::condition_variable* watcher_ = nullptr;
  std::atomic<bool> moved_{false};

  void Moved();
};

// The module's Context (see the top of this file). Valid from the module's
// import (BindCancelToken makes it) until the module is freed.
Context& ModuleContext();

class Operation {
 public:
  // `progress`: None, or a callable (done, total) with total None when
  // unknown. `token` may be null. `threads`: the size of a pool of the
  // call's own (0: the module Context's pools).
  Operation(nanobind::object progress, std::shared_ptr<CancelToken> token, std::size_t threads = 0);
  ~Operation();
  Operation(const Operation&) = delete;
  Operation& operator=(const Operation&) = delete;

  // The module's Context, which every call shares.
  const Context& context() const { return ModuleContext(); }
  // This call's progress observer, cancellation flag and threads: pass it
  // to the facade with context().
  const CallOptions& call() const { return call_; }

  // Runs `work` (which must not touch Python) as the header says; `bytes` is
  // its size, which decides whether it is watched. Throws StatusError for its
  // error (Cancelled → chunkwise.CancelledError), nanobind::python_error for
  // a signal handler's or the callback's exception.
  void Run(const std::function<Status()>& work, std::uint64_t bytes);

 private:
  // Calls the callback if the count moved since the last call.
  void Report();
  // Sets the call's flag if the token says so.
  void SyncToken();

  nanobind::object progress_;
  std::shared_ptr<CancelToken> token_;
  ProgressCounter counter_;
  core::Cancellation cancellation_;
  CallOptions call_;
  std::uint64_t reported_ = UINT64_MAX;
  bool first_move_reported_ = false;
};

}  // namespace chunkwise::python

#endif  // CHUNKWISE_PYTHON_OPERATION_H_
