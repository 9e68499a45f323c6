#include "operation.h"

#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

#include "status_error.h"

namespace nb = nanobind;

namespace chunkwise::python {
namespace {

// Calls smaller than this, without a callback, run inline: they end sooner
// than a person can press Ctrl-C, and a thread would cost more than they do.
constexpr std::uint64_t kWatchedBytes = std::uint64_t{1} << 20;
constexpr auto kWatchInterval = std::chrono::milliseconds(50);

// What the worker thread hands back.
struct Outcome {
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;  // Guarded by mutex.
  Status status;      // Guarded by mutex.
};

Status RunGuarded(const std::function<Status()>& work) {
  try {
    return work();
  } catch (const std::exception& error) {  // std::bad_alloc, from outside the library.
    return Status::Internal(error.what());
  }
}

void RaiseAtLeast(std::atomic<std::uint64_t>& value, std::uint64_t candidate) {
  std::uint64_t current = value.load();
  while (current < candidate && !value.compare_exchange_weak(current, candidate)) {
  }
}

// Set by BindCancelToken to the Context the module object owns.
Context* module_context = nullptr;

}  // namespace

Context& ModuleContext() { return *module_context; }

void ProgressCounter::OnStart(std::string_view, std::uint64_t total, std::string_view) {
  total_.store(total);
}

void ProgressCounter::OnProgress(std::string_view, std::uint64_t done) {
  RaiseAtLeast(done_, done);
  Moved();
}

void ProgressCounter::OnFinish(std::string_view, std::uint64_t done) {
  RaiseAtLeast(done_, done);
  Moved();
}

void ProgressCounter::Moved() {
  if (watcher_ != nullptr && !moved_.exchange(true)) watcher_->notify_all();
}

Operation::Operation(nb::object progress, std::shared_ptr<CancelToken> token, std::size_t threads)
    : progress_(std::move(progress)), token_(std::move(token)) {
  call_.threads = threads;
  // Without a callback no one reads the counts: the call reports to no one.
  if (!progress_.is_none()) call_.observer = &counter_;
  call_.cancellation = &cancellation_;
}

Operation::~Operation() = default;

void Operation::SyncToken() {
  if (token_ != nullptr && token_->cancelled()) cancellation_.Cancel();
}

void Operation::Report() {
  if (progress_.is_none()) return;
  const std::uint64_t done = counter_.done();
  if (done == reported_) return;
  reported_ = done;
  const std::uint64_t total = counter_.total();
  progress_(done, total == 0 ? nb::object(nb::none()) : nb::object(nb::int_(total)));
}

void Operation::Run(const std::function<Status()>& work, std::uint64_t bytes) {
  SyncToken();
  if (progress_.is_none() && bytes < kWatchedBytes) {
    Status status;
    {
      nb::gil_scoped_release release;
      status = RunGuarded(work);
    }
    ThrowIfError(status);
    return;
  }
  auto outcome = std::make_shared<Outcome>();
  counter_.WakeOnFirstMove(&outcome->finished);
  std::thread worker([&work, outcome] {
    Status status = RunGuarded(work);
    const std::lock_guard lock(outcome->mutex);
    outcome->status = std::move(status);
    outcome->done = true;
    outcome->finished.notify_all();
  });
  std::optional<nb::python_error> raised;  // A signal handler's or the callback's.
  for (;;) {
    bool done = false;
    {
      nb::gil_scoped_release release;
      std::unique_lock lock(outcome->mutex);
      // The first count that moves is reported at once, so that a callback
      // which cancels acts before the work is far along; later ones each interval.
      outcome->finished.wait_for(lock, kWatchInterval, [&] {
        return outcome->done || (counter_.moved() && !first_move_reported_);
      });
      done = outcome->done;
    }
    if (done) break;
    if (raised) continue;  // Cancelled already; waiting for the work to stop.
    try {
      if (PyErr_CheckSignals() != 0) throw nb::python_error();
      SyncToken();
      first_move_reported_ = counter_.moved();
      Report();
      SyncToken();  // The callback may have cancelled the token.
    } catch (nb::python_error& error) {
      raised.emplace(std::move(error));
      cancellation_.Cancel();  // This call's flag alone, never the module Context's.
    }
  }
  {
    nb::gil_scoped_release release;
    worker.join();
  }
  if (raised) throw std::move(*raised);
  ThrowIfError(outcome->status);
  Report();
}

}  // namespace chunkwise::python

namespace chunkwise::python {

void BindCancelToken(nb::module_& module) {
  // The module object owns its Context: the capsule frees it with the module.
  auto* context = new Context();
  module_context = context;
  module.attr("_context") = nb::capsule(context, [](void* owned) noexcept {
    if (module_context == owned) module_context = nullptr;
    delete static_cast<Context*>(owned);
  });
  nb::class_<CancelToken>(module, "CancelToken")
      .def(nb::init<>())
      .def("cancel", &CancelToken::Cancel)
      .def("reset", &CancelToken::Reset)
      .def_prop_ro("cancelled", &CancelToken::cancelled);
}

}  // namespace chunkwise::python
