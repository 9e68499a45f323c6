// Fuzzes store key validation and FileStore's key-to-path mapping (pure path
// logic, no I/O). Whatever the bytes, a key that validates must map to a
// path strictly under the root whose components are exactly the key's
// segments, so no key can escape a FileStore root; and a key's checks must
// agree with the prefix checks List uses. The input's first bytes also drive
// ByteRange::Resolve, whose result must lie inside the value.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>

#include "chunkwise/core/check.h"
#include "chunkwise/store/file_store.h"
#include "chunkwise/store/store.h"
#include "store/key.h"

namespace {

namespace fs = std::filesystem;
using chunkwise::store::ByteRange;
using chunkwise::store::FileStore;

std::size_t CountSegments(std::string_view key) {
  std::size_t count = 1;
  for (const char c : key) count += c == '/' ? 1 : 0;
  return count;
}

void CheckKey(std::string_view key) {
  static const fs::path kRoot = "/srv/chunkwise/root";
  const bool valid = chunkwise::store::ValidateKey(key).ok();
  auto path = FileStore::PathForKey(kRoot, key);
  CHUNKWISE_CHECK(valid || !path.ok());
  if (valid) {
    // Every valid key also begins valid keys, as a prefix and as a directory.
    CHUNKWISE_CHECK(chunkwise::store::ValidatePrefix(key).ok());
    CHUNKWISE_CHECK(chunkwise::store::ValidatePrefix(std::string(key) + "/").ok());
  }
  if (!path.ok()) return;
  CHUNKWISE_CHECK(path->lexically_normal() == *path);
  const fs::path relative = path->lexically_relative(kRoot);
  CHUNKWISE_CHECK(!relative.empty() && relative.is_relative());
  CHUNKWISE_CHECK(relative.generic_string() == key);
  std::size_t components = 0;
  for (const fs::path& component : relative) {
    CHUNKWISE_CHECK(component != ".." && component != "." && !component.empty());
    ++components;
  }
  CHUNKWISE_CHECK(components == CountSegments(key));
  CHUNKWISE_CHECK(path->native().starts_with(kRoot.native() + "/"));
}

void CheckRange(const std::uint8_t* data, std::size_t size) {
  std::uint64_t words[3];
  if (size < sizeof(words) + 1) return;
  std::memcpy(words, data, sizeof(words));
  const ByteRange range =
      (data[sizeof(words)] & 1) ? ByteRange::Suffix(words[1]) : ByteRange::Span(words[0], words[1]);
  auto resolved = range.Resolve(words[2], "key");
  if (!resolved.ok()) return;
  CHUNKWISE_CHECK(!resolved->suffix);
  CHUNKWISE_CHECK(resolved->offset <= words[2] && resolved->length <= words[2] - resolved->offset);
  CHUNKWISE_CHECK(resolved->length == words[1]);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  CheckKey(std::string_view(reinterpret_cast<const char*>(data), size));
  CheckRange(data, size);
  return 0;
}
