// Test helpers for tests/api: standard library and chunkwise.h only, so that
// each test proves the facade is enough on its own.
#ifndef CHUNKWISE_TESTS_API_API_TEST_SUPPORT_H_
#define CHUNKWISE_TESTS_API_API_TEST_SUPPORT_H_

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "chunkwise/chunkwise.h"

namespace chunkwise::api_test {

// An empty directory of its own under the system's temporary directory.
inline std::filesystem::path FreshDirectory(const std::string& name) {
  const std::filesystem::path path = std::filesystem::temp_directory_path() /
                                     ("chunkwise_api_" + std::to_string(::getpid())) / name;
  std::filesystem::remove_all(path);
  std::filesystem::create_directories(path);
  return path;
}

// n uint16 values start, start+1, … as bytes in this machine's (little-endian) order.
inline Bytes Ramp16(std::size_t n, std::uint16_t start = 0) {
  Bytes bytes(n * 2);
  for (std::size_t i = 0; i < n; ++i) {
    const auto value = static_cast<std::uint16_t>(start + i);
    std::memcpy(bytes.data() + 2 * i, &value, 2);
  }
  return bytes;
}

inline std::uint16_t At16(const Bytes& bytes, std::size_t i) {
  std::uint16_t value = 0;
  std::memcpy(&value, bytes.data() + 2 * i, 2);
  return value;
}

inline std::string Message(const Status& status) { return std::string(status.message()); }

}  // namespace chunkwise::api_test

#endif  // CHUNKWISE_TESTS_API_API_TEST_SUPPORT_H_
