// core::MapPagesForWrite: a fresh buffer's pages mapped in one call, its
// contents untouched, small buffers left alone.
#include "core/fresh_pages.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace chunkwise::core {
namespace {

// An anonymous mapping no one has touched: none of its pages is resident.
class FreshMapping {
 public:
  explicit FreshMapping(std::size_t bytes) : bytes_(bytes) {
    void* mapped =
        ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    data_ = mapped == MAP_FAILED ? nullptr : static_cast<std::uint8_t*>(mapped);
  }
  ~FreshMapping() {
    if (data_ != nullptr) ::munmap(data_, bytes_);
  }
  MutableByteView view() const { return {data_, bytes_}; }
  bool ok() const { return data_ != nullptr; }

  // How many of its pages are resident (mincore).
  std::size_t ResidentPages() const {
    const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    std::vector<unsigned char> resident((bytes_ + page - 1) / page);
    if (::mincore(data_, bytes_, resident.data()) != 0) return SIZE_MAX;
    std::size_t count = 0;
    for (const unsigned char flags : resident) count += flags & 1;
    return count;
  }
  std::size_t Pages() const { return bytes_ / static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)); }

 private:
  std::size_t bytes_;
  std::uint8_t* data_ = nullptr;
};

TEST(FreshPagesTest, MapsEveryPageOfAFreshBuffer) {
  FreshMapping fresh(std::size_t{1} << 20);
  ASSERT_TRUE(fresh.ok());
  ASSERT_EQ(fresh.ResidentPages(), 0u);
  if (!MapPagesForWrite(fresh.view())) {
    GTEST_SKIP() << "this kernel has no MADV_POPULATE_WRITE (Linux 5.14)";
  }
  EXPECT_EQ(fresh.ResidentPages(), fresh.Pages());
}

TEST(FreshPagesTest, KeepsWhatTheBufferHolds) {
  std::vector<std::uint8_t> buffer(std::size_t{1} << 20);
  for (std::size_t i = 0; i < buffer.size(); ++i) buffer[i] = static_cast<std::uint8_t>(i * 7 + 3);
  const std::vector<std::uint8_t> before = buffer;
  MapPagesForWrite(buffer);
  EXPECT_EQ(buffer, before);
  // An unaligned part: the pages it shares with its neighbours keep theirs too.
  MapPagesForWrite(MutableByteView(buffer).subspan(1001, 300'000));
  EXPECT_EQ(buffer, before);
}

TEST(FreshPagesTest, LeavesBuffersBelowTheMinimumAlone) {
  FreshMapping fresh(kMapPagesMinBytes);
  ASSERT_TRUE(fresh.ok());
  EXPECT_FALSE(MapPagesForWrite(fresh.view().first(kMapPagesMinBytes - 1)));
  EXPECT_EQ(fresh.ResidentPages(), 0u);
}

}  // namespace
}  // namespace chunkwise::core
