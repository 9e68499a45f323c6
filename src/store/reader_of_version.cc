#include "store/reader_of_version.h"

#include "store/http_store.h"
#include "store/s3_store.h"

namespace chunkwise::store {

Result<std::unique_ptr<ValueReader>> OpenReaderOfVersion(
    const Store& store, std::string_view key, std::uint64_t size,
    const std::optional<Generation>& generation) {
  if (const auto* http = dynamic_cast<const HttpStore*>(&store); http != nullptr) {
    return http->OpenReaderOfVersion(key, size, generation);
  }
  if (const auto* s3 = dynamic_cast<const S3Store*>(&store); s3 != nullptr) {
    return s3->OpenReaderOfVersion(key, size, generation);
  }
  return store.OpenReader(key);
}

}  // namespace chunkwise::store
