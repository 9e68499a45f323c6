#include "chunkwise/core/progress.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <thread>
#include <vector>

namespace chunkwise::core {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A tmpfile stream (never a terminal) and what was written to it.
class CapturedStream {
 public:
  CapturedStream() : file_(std::tmpfile()) {}
  ~CapturedStream() { std::fclose(file_); }
  std::FILE* get() { return file_; }
  std::string Text() {
    std::fflush(file_);
    std::rewind(file_);
    std::string text;
    for (int c; (c = std::fgetc(file_)) != EOF;) {
      text += static_cast<char>(c);
    }
    return text;
  }

 private:
  std::FILE* file_;
};

TEST(ProgressReporter, AutoModeOnAFileIsLines) {
  CapturedStream stream;
  ProgressReporter progress({.label = "x", .stream = stream.get()});
  EXPECT_EQ(progress.mode(), ProgressMode::kLines);
}

TEST(ProgressReporter, LinesShowLabelAmountAndRate) {
  CapturedStream stream;
  {
    ProgressReporter progress({.label = "compress",
                               .total_units = 4000000,
                               .unit = "B",
                               .mode = ProgressMode::kLines,
                               .stream = stream.get(),
                               .line_interval_s = 0});
    progress.Add(2000000);
    progress.SetExtra("ratio 2.3");
    progress.Add(1000000);
  }
  const std::string text = stream.Text();
  EXPECT_THAT(text, HasSubstr("compress: "));
  EXPECT_THAT(text, HasSubstr("2.00 MB / 4.00 MB"));
  EXPECT_THAT(text, HasSubstr(" 50%"));
  EXPECT_THAT(text, HasSubstr("B/s"));
  EXPECT_THAT(text, HasSubstr("ETA"));
  EXPECT_THAT(text, HasSubstr("ratio 2.3"));
  EXPECT_THAT(text, Not(HasSubstr("\r")));
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2);
}

TEST(ProgressReporter, UnknownTotalShowsCountAndRateOnly) {
  CapturedStream stream;
  ProgressReporter progress({.label = "scan",
                             .unit = "items",
                             .mode = ProgressMode::kLines,
                             .stream = stream.get(),
                             .line_interval_s = 0});
  progress.Add(12);
  const std::string text = stream.Text();
  EXPECT_THAT(text, HasSubstr("scan: 12 items, "));
  EXPECT_THAT(text, HasSubstr("items/s"));
  EXPECT_THAT(text, Not(HasSubstr("%")));
  EXPECT_THAT(text, Not(HasSubstr("ETA")));
}

TEST(ProgressReporter, QuietPrintsNothing) {
  CapturedStream stream;
  {
    ProgressReporter progress({.label = "q",
                               .total_units = 10,
                               .mode = ProgressMode::kQuiet,
                               .stream = stream.get(),
                               .line_interval_s = 0});
    progress.Add(5);
    progress.Finish();
    EXPECT_EQ(progress.done(), 5u);
  }
  EXPECT_EQ(stream.Text(), "");
}

TEST(ProgressReporter, FinishPrintsSummaryOnce) {
  CapturedStream stream;
  ProgressReporter progress({.label = "write",
                             .total_units = 3000,
                             .mode = ProgressMode::kLines,
                             .stream = stream.get()});
  progress.Add(1000);
  progress.Add(2000);
  progress.SetExtra("out 1.2 GB");
  progress.Finish();
  progress.Finish();
  progress.Add(1);  // After Finish: counted, not drawn.
  const std::string text = stream.Text();
  EXPECT_THAT(text, HasSubstr("write: done, 3.00 kB in "));
  EXPECT_THAT(text, HasSubstr("B/s)"));
  EXPECT_THAT(text, HasSubstr("out 1.2 GB"));
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1);
}

TEST(ProgressReporter, BarRedrawsInPlaceAndFinishEndsTheLine) {
  CapturedStream stream;
  ProgressReporter progress({.label = "bar",
                             .total_units = 100,
                             .unit = "items",
                             .mode = ProgressMode::kBar,
                             .stream = stream.get()});
  progress.Add(25);  // The first Add draws at once.
  progress.Finish();
  const std::string text = stream.Text();
  EXPECT_THAT(text, HasSubstr("\rbar: ["));
  EXPECT_THAT(text, HasSubstr(" 25% 25 items / 100 items"));
  EXPECT_THAT(text, HasSubstr("bar: done, 25 items in "));
  EXPECT_EQ(text.back(), '\n');
}

TEST(ProgressReporter, AddFromManyThreadsCountsEveryUnit) {
  CapturedStream stream;
  ProgressReporter progress(
      {.label = "t", .mode = ProgressMode::kLines, .stream = stream.get(), .line_interval_s = 0});
  std::vector<std::thread> threads;
  threads.reserve(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 1000; ++i) {
        progress.Add(3);
      }
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  EXPECT_EQ(progress.done(), 12000u);
}

TEST(FormatQuantity, BytesUseDecimalPrefixes) {
  EXPECT_EQ(FormatQuantity(0, "B"), "0 B");
  EXPECT_EQ(FormatQuantity(999, "B"), "999 B");
  EXPECT_EQ(FormatQuantity(1500, "B"), "1.50 kB");
  EXPECT_EQ(FormatQuantity(12.3e6, "B"), "12.3 MB");
  EXPECT_EQ(FormatQuantity(123e9, "B"), "123 GB");
  EXPECT_EQ(FormatQuantity(2.5e12, "B"), "2.50 TB");
}

TEST(FormatQuantity, OtherUnitsAreCounts) {
  EXPECT_EQ(FormatQuantity(12, "items"), "12 items");
  EXPECT_EQ(FormatQuantity(2.5, "items"), "2.50 items");
  EXPECT_EQ(FormatQuantity(1500, "items"), "1.50 k items");
}

TEST(FormatDuration, SecondsThenMinutesThenHours) {
  EXPECT_EQ(FormatDuration(0), "0.0 s");
  EXPECT_EQ(FormatDuration(12.34), "12.3 s");
  EXPECT_EQ(FormatDuration(245), "4:05");
  EXPECT_EQ(FormatDuration(3723), "1:02:03");
  EXPECT_EQ(FormatDuration(-1), "0.0 s");
}

}  // namespace
}  // namespace chunkwise::core
