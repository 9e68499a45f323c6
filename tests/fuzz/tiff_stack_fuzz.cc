// Fuzz target for the TIFF stack reader (io/tiff_stack.h): arbitrary bytes
// as a TIFF file, opened through a memory file (memfd, no disk), every page
// checked, then every plane decoded when a plane is small. libtiff parses
// the bytes; ours are the page checks (strips inside the file, one sample,
// the data type) and the copy of strips and tiles into a plane, which must
// never write outside it. The OME-XML parsers get the same bytes as XML.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/check.h"
#include "io/tiff_stack.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace chunkwise;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)io::ParseOmePhysicalSizes(text);
  (void)io::CheckOmePlaneCount(text, size);
  const int fd = memfd_create("tiff_stack_fuzz", 0);
  CHUNKWISE_CHECK(fd >= 0);
  CHUNKWISE_CHECK(write(fd, data, size) == static_cast<ssize_t>(size));
  Result<std::unique_ptr<io::TiffStack>> stack =
      io::TiffStack::Open("/proc/self/fd/" + std::to_string(fd));
  if (stack.ok()) {
    const core::Shape& shape = (*stack)->shape();
    CHUNKWISE_CHECK(shape.size() == 3 && shape[0] >= 1);
    // Planes past 4 MiB would only test the allocator.
    if ((*stack)->plane_bytes() <= (std::size_t{4} << 20)) {
      std::vector<std::uint8_t> plane((*stack)->plane_bytes());
      for (core::Index z = 0; z < shape[0] && z < 64; ++z) (void)(*stack)->ReadPlane(z, plane);
    }
  }
  close(fd);
  return 0;
}
