// Copies that write around the caches (non-temporal stores), for
// destinations larger than the caches that nothing reads soon, such as a
// whole volume read. A CPU that reads each line before an ordinary store
// writes it (as server Xeons do) scatters 64³ uint16 chunks into a volume ten
// times faster so; see docs/formats/zarr.md, "Performance".
#ifndef CHUNKWISE_CORE_STREAMED_COPY_H_
#define CHUNKWISE_CORE_STREAMED_COPY_H_

#include <cstddef>
#include <cstdint>

namespace chunkwise::core {

// Shorter runs are copied through the cache: a partial line written around
// it costs more than the read of the line that it saves.
inline constexpr std::size_t kMinStreamedRunBytes = 64;

// Copies `bytes` with non-temporal stores where the CPU has them: the
// unaligned head and the tail through memcpy, 16-byte blocks in between.
// Call FenceStreamedStores after the last one.
void StreamRun(std::uint8_t* to, const std::uint8_t* from, std::size_t bytes);

// Orders the streamed stores before whatever the thread does next (such as
// telling another thread the copy is done), as ordinary stores are.
void FenceStreamedStores();

}  // namespace chunkwise::core

#endif  // CHUNKWISE_CORE_STREAMED_COPY_H_
