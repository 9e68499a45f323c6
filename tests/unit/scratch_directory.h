// Scratch directories for tests that touch the file system. Every directory a
// test program asks for lives under one per-process folder in the system's
// temporary directory, which is removed when the program ends.
#ifndef CHUNKWISE_TESTS_UNIT_SCRATCH_DIRECTORY_H_
#define CHUNKWISE_TESTS_UNIT_SCRATCH_DIRECTORY_H_

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

namespace chunkwise::test {

// The per-process folder, new and empty (mkdtemp), made on first use. Named by
// the pid alone, a folder left by a killed program whose pid this one reuses
// was taken for this program's own, and its files for a test's outputs.
inline const std::filesystem::path& ScratchRoot() {
  static const std::filesystem::path root = [] {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "chunkwise_test.XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) std::abort();
    return std::filesystem::path(pattern);
  }();
  return root;
}

// A path under ScratchRoot() that no other call returns: `prefix` + a counter.
// Nothing is created there.
inline std::filesystem::path FreshScratchDirectory(std::string_view prefix) {
  static std::atomic<int> counter{0};
  return ScratchRoot() / (std::string(prefix) + std::to_string(counter++));
}

class RemoveScratchRoot : public ::testing::Environment {
 public:
  void TearDown() override {
    std::error_code error;
    std::filesystem::remove_all(ScratchRoot(), error);
  }
};
// Inline, so a program that includes this header from several files registers it once.
inline ::testing::Environment* const kRemoveScratchRoot =
    ::testing::AddGlobalTestEnvironment(new RemoveScratchRoot);

}  // namespace chunkwise::test

#endif  // CHUNKWISE_TESTS_UNIT_SCRATCH_DIRECTORY_H_
