#include "core/memory_limit.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

namespace chunkwise::core {
namespace {

std::uint64_t PhysicalMemory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return UINT64_MAX;
  return SaturatingProduct(static_cast<std::uint64_t>(pages),
                           static_cast<std::uint64_t>(page_size));
}

std::uint64_t ResourceLimit(int resource) {
  struct rlimit limit;
  if (::getrlimit(resource, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return UINT64_MAX;
  return static_cast<std::uint64_t>(limit.rlim_cur);
}

// cgroup v2's memory.max for this process's cgroup ("max" means none).
std::uint64_t CgroupLimit() {
  std::ifstream cgroup("/proc/self/cgroup");
  std::string line;
  while (std::getline(cgroup, line)) {
    if (!line.starts_with("0::")) continue;
    std::ifstream max("/sys/fs/cgroup" + line.substr(3) + "/memory.max");
    unsigned long long bytes = 0;
    if (max >> bytes) return bytes;
  }
  return UINT64_MAX;
}

std::string Gigabytes(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.3g GB", static_cast<double>(bytes) / 1e9);
  return text;
}

}  // namespace

std::uint64_t ProcessMemoryLimit() {
  static const std::uint64_t limit = std::min(
      {PhysicalMemory(), ResourceLimit(RLIMIT_AS), ResourceLimit(RLIMIT_DATA), CgroupLimit()});
  return limit;
}

Status CheckAllocation(std::uint64_t bytes, std::string_view what) {
  const std::uint64_t limit = ProcessMemoryLimit();
  if (bytes <= limit) return Status::Ok();
  return Status::ResourceExhausted(
      std::string(what) + " needs " +
      (bytes == UINT64_MAX ? std::string("more than 2^64 bytes") : Gigabytes(bytes)) +
      ", more than the " + Gigabytes(limit) + " this process may use");
}

}  // namespace chunkwise::core
