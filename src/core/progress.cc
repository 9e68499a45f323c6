#include "chunkwise/core/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>

namespace chunkwise::core {
namespace {

// A terminal redraw faster than this flickers and costs the workers time.
constexpr double kBarIntervalS = 0.1;
constexpr int kBarWidth = 24;
// Rates over a shorter time are noise (and divide by nearly zero).
constexpr double kMinElapsedS = 1e-3;

ProgressMode ResolveMode(const ProgressOptions& options) {
  if (options.stream == nullptr) {
    return ProgressMode::kQuiet;
  }
  if (options.mode != ProgressMode::kAuto) {
    return options.mode;
  }
  return ::isatty(::fileno(options.stream)) ? ProgressMode::kBar : ProgressMode::kLines;
}

std::int64_t IntervalNs(ProgressMode mode, const ProgressOptions& options) {
  const double seconds = mode == ProgressMode::kBar ? kBarIntervalS : options.line_interval_s;
  return static_cast<std::int64_t>(std::max(0.0, seconds) * 1e9);
}

std::string Printf(const char* format, double value) {
  char text[64];
  std::snprintf(text, sizeof(text), format, value);
  return text;
}

// Three significant digits: "1.50", "12.3", "123".
std::string ThreeDigits(double value) {
  if (value < 10) {
    return Printf("%.2f", value);
  }
  if (value < 100) {
    return Printf("%.1f", value);
  }
  return Printf("%.0f", value);
}

std::string Bar(double fraction) {
  const int filled = static_cast<int>(std::clamp(fraction, 0.0, 1.0) * kBarWidth);
  std::string bar = "[";
  bar.append(static_cast<std::size_t>(filled), '=');
  if (filled < kBarWidth) {
    bar += '>';
  }
  bar.append(static_cast<std::size_t>(std::max(0, kBarWidth - filled - 1)), ' ');
  bar += ']';
  return bar;
}

}  // namespace

std::string FormatMebibytes(std::uint64_t bytes) {
  return Printf("%.2f MiB", static_cast<double>(bytes) / (1 << 20));
}

std::string FormatQuantity(double amount, std::string_view unit) {
  static constexpr const char* kPrefixes[] = {"", "k", "M", "G", "T", "P", "E"};
  const bool bytes = unit == "B";
  std::size_t prefix = 0;
  while (amount >= 999.5 && prefix + 1 < std::size(kPrefixes)) {
    amount /= 1000;
    ++prefix;
  }
  std::string number =
      prefix == 0 && amount == std::floor(amount) ? Printf("%.0f", amount) : ThreeDigits(amount);
  if (bytes) {
    return number + " " + kPrefixes[prefix] + "B";
  }
  return number + " " + kPrefixes[prefix] + (prefix == 0 ? "" : " ") + std::string(unit);
}

std::string FormatDuration(double seconds) {
  if (!(seconds >= 0)) {
    seconds = 0;  // Also catches NaN.
  }
  if (seconds < 59.95) {
    return Printf("%.1f s", seconds);
  }
  const auto total = static_cast<long long>(std::llround(seconds));
  char text[48];
  if (total < 3600) {
    std::snprintf(text, sizeof(text), "%lld:%02lld", total / 60, total % 60);
  } else {
    std::snprintf(text, sizeof(text), "%lld:%02lld:%02lld", total / 3600, total / 60 % 60,
                  total % 60);
  }
  return text;
}

ProgressReporter::ProgressReporter(ProgressOptions options)
    : options_(std::move(options)),
      mode_(ResolveMode(options_)),
      start_(std::chrono::steady_clock::now()),
      interval_ns_(IntervalNs(mode_, options_)),
      next_draw_ns_(mode_ == ProgressMode::kBar ? 0 : interval_ns_) {
  if (options_.observer != nullptr) {
    options_.observer->OnStart(options_.label, options_.total_units, options_.unit);
  }
}

ProgressReporter::~ProgressReporter() {
  std::lock_guard lock(mutex_);
  if (bar_open_) {
    std::fputc('\n', options_.stream);
    std::fflush(options_.stream);
  }
}

double ProgressReporter::ElapsedSeconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void ProgressReporter::Add(std::uint64_t units) {
  const std::uint64_t done = done_.fetch_add(units, std::memory_order_relaxed) + units;
  if (options_.observer != nullptr) {
    options_.observer->OnProgress(options_.label, done);
  }
  if (mode_ == ProgressMode::kQuiet) {
    return;
  }
  const std::int64_t now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                  std::chrono::steady_clock::now() - start_)
                                  .count();
  std::int64_t next = next_draw_ns_.load(std::memory_order_relaxed);
  // Only the thread that moves the deadline draws; the others return at once.
  if (now_ns < next || !next_draw_ns_.compare_exchange_strong(next, now_ns + interval_ns_,
                                                              std::memory_order_relaxed)) {
    return;
  }
  std::lock_guard lock(mutex_);
  if (!finished_) {
    Draw();
  }
}

void ProgressReporter::SetExtra(std::string extra) {
  std::lock_guard lock(mutex_);
  extra_ = std::move(extra);
}

std::string ProgressReporter::Body(double elapsed_s) const {
  const double done = static_cast<double>(this->done());
  const double rate = done / std::max(elapsed_s, kMinElapsedS);
  const double total = static_cast<double>(options_.total_units);
  std::string body;
  if (options_.total_units > 0) {
    const double fraction = done / total;
    if (mode_ == ProgressMode::kBar) {
      body += Bar(fraction) + " ";
    }
    body += Printf("%3.0f%%", std::floor(fraction * 100)) + " ";
    body += FormatQuantity(done, options_.unit) + " / " + FormatQuantity(total, options_.unit);
  } else {
    body += FormatQuantity(done, options_.unit);
  }
  body += ", " + FormatQuantity(rate, options_.unit) + "/s";
  if (options_.total_units > 0 && done < total && rate > 0) {
    body += ", ETA " + FormatDuration((total - done) / rate);
  }
  if (!extra_.empty()) {
    body += ", " + extra_;
  }
  return body;
}

void ProgressReporter::Draw() {
  std::string line = options_.label.empty() ? "" : options_.label + ": ";
  line += Body(ElapsedSeconds());
  if (mode_ == ProgressMode::kBar) {
    // "\x1b[K" clears what a longer previous line left to the right.
    std::fprintf(options_.stream, "\r%s\x1b[K", line.c_str());
    bar_open_ = true;
  } else {
    std::fprintf(options_.stream, "%s\n", line.c_str());
  }
  std::fflush(options_.stream);
}

void ProgressReporter::Finish() {
  std::lock_guard lock(mutex_);
  if (finished_) {
    return;
  }
  finished_ = true;
  if (options_.observer != nullptr) {
    options_.observer->OnFinish(options_.label, done());
  }
  if (mode_ == ProgressMode::kQuiet) {
    return;
  }
  const double elapsed = ElapsedSeconds();
  const double done = static_cast<double>(this->done());
  std::string line = options_.label.empty() ? "" : options_.label + ": ";
  line += "done, " + FormatQuantity(done, options_.unit) + " in " + FormatDuration(elapsed) + " (" +
          FormatQuantity(done / std::max(elapsed, kMinElapsedS), options_.unit) + "/s)";
  if (!extra_.empty()) {
    line += ", " + extra_;
  }
  std::fprintf(options_.stream, "%s%s\n", bar_open_ ? "\r\x1b[K" : "", line.c_str());
  bar_open_ = false;
  std::fflush(options_.stream);
}

}  // namespace chunkwise::core
