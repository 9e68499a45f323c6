// ProgressReporter: progress of a long operation, for people watching it.
//
// Workers call Add() as units (bytes or items) complete; it is a relaxed
// atomic add plus a clock read, and at most one caller per redraw interval
// pays for formatting. On a terminal the reporter redraws one bar line (at
// most ~10 times a second) with percent, rate and ETA when the total is
// known; elsewhere (logs, pipes) it prints a plain line every few seconds.
// Finish() prints a one-line summary. Nothing is printed in kQuiet mode.
#ifndef CHUNKWISE_CORE_PROGRESS_H_
#define CHUNKWISE_CORE_PROGRESS_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>

namespace chunkwise::core {

enum class ProgressMode {
  kAuto,   // kBar if the stream is a terminal, else kLines.
  kBar,    // One line redrawn in place with "\r".
  kLines,  // A new line every line_interval_s seconds.
  kQuiet,  // Nothing.
};

// Told of a reporter's counts, for callers that draw their own progress (a
// Python callback, a GUI). Counts only: rate and ETA are the observer's to
// compute. OnProgress is called from the worker threads that call Add,
// possibly concurrently, so it must be thread-safe and cheap.
class ProgressObserver {
 public:
  virtual ~ProgressObserver() = default;
  // `total_units` is 0 when unknown; `unit` is "B" for bytes, else a noun.
  virtual void OnStart(std::string_view label, std::uint64_t total_units, std::string_view unit) {}
  // `done_units` counted so far (it grows; calls may arrive out of order).
  virtual void OnProgress(std::string_view label, std::uint64_t done_units) {}
  // The operation completed with `done_units` (not called when it failed).
  virtual void OnFinish(std::string_view label, std::uint64_t done_units) {}
};

struct ProgressOptions {
  std::string label;              // Starts every line, e.g. "compress".
  std::uint64_t total_units = 0;  // 0 when unknown: no percent or ETA.
  std::string unit = "B";         // "B" prints bytes as kB/MB/GB; others print counts.
  ProgressMode mode = ProgressMode::kAuto;
  std::FILE* stream = stderr;            // Not owned; nullptr behaves as kQuiet.
  double line_interval_s = 5;            // kLines only; 0 prints on every Add.
  ProgressObserver* observer = nullptr;  // Not owned; told of every Add and of Finish.
};

class ProgressReporter {
 public:
  explicit ProgressReporter(ProgressOptions options);
  // Ends a bar line left open, without a summary (an operation that failed
  // should not report "done").
  ~ProgressReporter();
  ProgressReporter(const ProgressReporter&) = delete;
  ProgressReporter& operator=(const ProgressReporter&) = delete;

  // Counts `units` more as done and redraws if the interval has passed.
  // Thread-safe and cheap.
  void Add(std::uint64_t units);
  // Text shown after the counters, e.g. "out 1.2 GB ratio 2.3". Thread-safe.
  void SetExtra(std::string extra);
  // Prints "<label>: done, <total> in <elapsed> (<rate>)" unless quiet; later
  // calls do nothing, and Add no longer draws. Thread-safe.
  void Finish();

  std::uint64_t done() const { return done_.load(std::memory_order_relaxed); }
  // The mode in use, with kAuto resolved.
  ProgressMode mode() const { return mode_; }

 private:
  double ElapsedSeconds() const;
  // The counters and extra text, without line framing. REQUIRES: mutex_ held.
  std::string Body(double elapsed_s) const;
  // REQUIRES: mutex_ held.
  void Draw();

  const ProgressOptions options_;
  const ProgressMode mode_;
  const std::chrono::steady_clock::time_point start_;
  const std::int64_t interval_ns_;
  std::atomic<std::uint64_t> done_{0};
  std::atomic<std::int64_t> next_draw_ns_;  // Since start_; Add draws once past it.
  std::mutex mutex_;                        // Serializes output.
  std::string extra_;                       // Guarded by mutex_.
  bool finished_ = false;                   // Guarded by mutex_.
  bool bar_open_ = false;  // A bar line is on screen without its newline; guarded by mutex_.
};

// "999 B", "1.50 kB", "12.3 MB", "123 GB" for unit "B" (powers of 1000);
// "12 items", "1.50 k items" for other units.
std::string FormatQuantity(double amount, std::string_view unit);
// "1.50 MiB": binary megabytes with two decimals, for memory sizes.
std::string FormatMebibytes(std::uint64_t bytes);
// "12.3 s" under a minute, then "4:05" (m:ss) and "1:02:03" (h:mm:ss).
std::string FormatDuration(double seconds);

}  // namespace chunkwise::core

#endif  // CHUNKWISE_CORE_PROGRESS_H_
