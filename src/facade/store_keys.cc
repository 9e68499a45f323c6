#include "chunkwise/facade/store_keys.h"

#include <optional>
#include <string>

#include "chunkwise/core/index.h"
#include "chunkwise/store/file_store.h"
#include "core/file_io.h"

namespace chunkwise {
namespace {

// The store to put into: through the context's registry, or for fsync the
// directory itself with a FileStore that syncs.
Result<std::shared_ptr<store::Store>> OpenForPut(const Context& context, std::string_view url,
                                                 bool fsync) {
  if (!fsync) return OpenStore(context, url, context.store_options(true));
  CHUNKWISE_ASSIGN_OR_RETURN(const StoreUrl parsed, ParseStoreUrl(url));
  if (parsed.scheme != "file") {
    return Status::InvalidArgument(std::string(url) + ": fsync is for directory stores, not " +
                                   parsed.scheme + "://");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(
      std::shared_ptr<store::FileStore> directory,
      store::FileStore::Open(
          parsed.location, {.create_root = true, .fsync = store::FsyncPolicy::kFileAndDirectory}));
  return std::shared_ptr<store::Store>(std::move(directory));
}

}  // namespace

Result<store::ByteRange> ParseByteRange(std::string_view text) {
  const std::string quoted = "the byte range \"" + std::string(text) + "\"";
  if (text.starts_with('-')) {
    const std::optional<core::Index> length = core::ParseIndex(text.substr(1));
    if (!length || *length < 0) return Status::InvalidArgument(quoted + ": expected -N");
    return store::ByteRange::Suffix(static_cast<std::uint64_t>(*length));
  }
  const std::size_t colon = text.find(':');
  const std::optional<core::Index> start = core::ParseIndex(text.substr(0, colon));
  const std::optional<core::Index> stop =
      colon == std::string_view::npos ? std::nullopt : core::ParseIndex(text.substr(colon + 1));
  if (!start || !stop || *start < 0 || *stop < *start) {
    return Status::InvalidArgument(quoted + ": expected START:STOP with START <= STOP, or -N");
  }
  return store::ByteRange::Span(static_cast<std::uint64_t>(*start),
                                static_cast<std::uint64_t>(*stop - *start));
}

Status PutFileAsKey(const Context& context, std::string_view url, std::string_view key,
                    const std::filesystem::path& file, const PutFileOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::shared_ptr<store::Store> store,
                             OpenForPut(context, url, options.fsync));
  CHUNKWISE_ASSIGN_OR_RETURN(const bool exists, store->Exists(key));
  if (exists && !options.overwrite) {
    return Status::InvalidArgument(store->Describe(key) +
                                   " already exists (overwrite not requested)");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const Bytes value, core::ReadFile(file));
  return store->Set(key, value);
}

Result<Bytes> ReadLocalFile(const std::filesystem::path& path) { return core::ReadFile(path); }

}  // namespace chunkwise
