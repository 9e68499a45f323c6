// Byte buffers, byte views and little-endian loads and stores.
//
// Every on-disk layout chunkwise handles is little-endian unless its spec says
// otherwise; these helpers read and write such fields at any alignment.
#ifndef CHUNKWISE_CORE_BYTES_H_
#define CHUNKWISE_CORE_BYTES_H_

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace chunkwise {

// Leaves new elements uninitialised instead of zero-filling them: every codec
// output buffer is sized first and then written, and zero-filling megabyte
// chunks first costs as much as a fast codec's whole run (blosc-lz4 measured
// 5% slower than calling c-blosc directly). resize(n, value) still fills.
//
// Large buffers (whole shards, region reads) are placed on 2 MiB boundaries
// and offered to the kernel for transparent huge pages: first-touch page
// faults, one per 4 KiB, otherwise cost more than decoding on a virtual
// machine (measured: a 128 MiB region read spent 80% of its time in faults).
namespace detail {
inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;
void* AllocateLarge(std::size_t bytes);
void FreeLarge(void* pointer, std::size_t bytes) noexcept;
}  // namespace detail

// For programs (the CLI, benchmarks), not the library: keeps freed memory in
// the process for reuse instead of returning it to the kernel at once, so that
// the shard- and chunk-sized buffers of a long run are faulted in once rather
// than once per shard. Measured on sharded zarr writes and reads: +10–25%.
void KeepFreedMemoryForReuse();

template <typename T>
class DefaultInitAllocator : public std::allocator<T> {
 public:
  T* allocate(std::size_t n) {
    if (n * sizeof(T) < detail::kHugePageBytes) return std::allocator<T>::allocate(n);
    return static_cast<T*>(detail::AllocateLarge(n * sizeof(T)));
  }
  void deallocate(T* pointer, std::size_t n) noexcept {
    if (n * sizeof(T) < detail::kHugePageBytes) {
      std::allocator<T>::deallocate(pointer, n);
    } else {
      detail::FreeLarge(pointer, n * sizeof(T));
    }
  }

  template <typename U>
  struct rebind {  // NOLINT(readability-identifier-naming): the name the standard requires
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() = default;
  template <typename U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}  // NOLINT: allocator rebinding

  template <typename U>
  void construct(U* where) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(where)) U;
  }
  template <typename U, typename... Args>
  void construct(U* where, Args&&... args) {
    ::new (static_cast<void*>(where)) U(std::forward<Args>(args)...);
  }
};

using Bytes = std::vector<std::uint8_t, DefaultInitAllocator<std::uint8_t>>;
using ByteView = std::span<const std::uint8_t>;
using MutableByteView = std::span<std::uint8_t>;

// A copy of `view` made with memcpy. (Bytes(begin, end) and insert() construct
// element by element through the allocator, several times slower for big buffers.)
inline Bytes CopyToBytes(ByteView view) {
  Bytes out(view.size());
  if (!view.empty()) std::memcpy(out.data(), view.data(), view.size());
  return out;
}

// Appends `view` to `out` with memcpy; see CopyToBytes.
inline void AppendBytes(Bytes& out, ByteView view) {
  const std::size_t old_size = out.size();
  out.resize(old_size + view.size());
  if (!view.empty()) std::memcpy(out.data() + old_size, view.data(), view.size());
}

// The parts one after another, in one buffer allocated once.
inline Bytes JoinBytes(std::span<const ByteView> parts) {
  std::size_t total = 0;
  for (ByteView part : parts) total += part.size();
  Bytes joined;
  joined.reserve(total);
  for (ByteView part : parts) AppendBytes(joined, part);
  return joined;
}

inline ByteView AsBytes(std::string_view text) {
  return {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()};
}
inline std::string_view AsChars(ByteView bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

// Reverses the bytes of an unsigned integer (std::byteswap is C++23).
// Templates here cover the closed set of unsigned integer widths.
template <typename T>
requires std::is_unsigned_v<T>
constexpr T ByteSwap(T value) {
  if constexpr (sizeof(T) == 1) {
    return value;
  } else if constexpr (sizeof(T) == 2) {
    return static_cast<T>(__builtin_bswap16(value));
  } else if constexpr (sizeof(T) == 4) {
    return static_cast<T>(__builtin_bswap32(value));
  } else {
    static_assert(sizeof(T) == 8);
    return static_cast<T>(__builtin_bswap64(value));
  }
}

template <typename T>
requires std::is_unsigned_v<T> T LoadLittleEndian(const std::uint8_t* source) {
  T value;
  std::memcpy(&value, source, sizeof(T));
  if constexpr (std::endian::native == std::endian::big) value = ByteSwap(value);
  return value;
}

template <typename T>
requires std::is_unsigned_v<T>
void StoreLittleEndian(T value, std::uint8_t* destination) {
  if constexpr (std::endian::native == std::endian::big) value = ByteSwap(value);
  std::memcpy(destination, &value, sizeof(T));
}

template <typename T>
requires std::is_unsigned_v<T>
void AppendLittleEndian(T value, Bytes& out) {
  const std::size_t at = out.size();
  out.resize(at + sizeof(T));
  StoreLittleEndian(value, out.data() + at);
}

}  // namespace chunkwise

#endif  // CHUNKWISE_CORE_BYTES_H_
