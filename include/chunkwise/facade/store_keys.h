// A store's keys by hand (`chunkwise store ls|get|put|rm`): what the CLI
// needs beyond OpenStore, the Store interface's own calls doing the rest.
#ifndef CHUNKWISE_FACADE_STORE_KEYS_H_
#define CHUNKWISE_FACADE_STORE_KEYS_H_

#include <filesystem>
#include <memory>
#include <string_view>

#include "chunkwise/facade/context.h"
#include "chunkwise/store/byte_range.h"
#include "chunkwise/store/store.h"

namespace chunkwise {

// "START:STOP" (bytes START up to STOP) or "-N" (the last N bytes).
// InvalidArgument quoting the text otherwise.
Result<store::ByteRange> ParseByteRange(std::string_view text);

struct PutFileOptions {
  bool overwrite = false;  // Replace a value already at the key.
  // fsync the value and its directory before returning: a directory store
  // (a path or file:// URL) only; InvalidArgument for any other.
  bool fsync = false;
};

// Sets `key` of the store at `url` (created if missing) to the bytes of the
// local file `file`, atomically. InvalidArgument naming the key when it is
// there and !overwrite; the file's and the store's errors.
Status PutFileAsKey(const Context& context, std::string_view url, std::string_view key,
                    const std::filesystem::path& file, const PutFileOptions& options = {});

// The bytes of the local file at `path`, whole. NotFound or IOError naming it.
Result<Bytes> ReadLocalFile(const std::filesystem::path& path);

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_STORE_KEYS_H_
