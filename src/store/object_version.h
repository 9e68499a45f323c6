// One version of a remote object: what reads pin and conditional writes compare.
#ifndef CHUNKWISE_SRC_STORE_OBJECT_VERSION_H_
#define CHUNKWISE_SRC_STORE_OBJECT_VERSION_H_

#include <cstdint>
#include <string>

#include "store/http_transport.h"

namespace chunkwise::store {

struct ObjectVersion {
  std::string etag;        // With its quotes, as the server sent it; "" if none.
  std::string version_id;  // S3's x-amz-version-id on a versioned bucket, else "".
};

struct ObjectInfo {
  std::uint64_t size = 0;
  ObjectVersion version;
};

// The version a reply names (its ETag and x-amz-version-id).
ObjectVersion VersionOf(const HttpResponse& response);

}  // namespace chunkwise::store

#endif  // CHUNKWISE_SRC_STORE_OBJECT_VERSION_H_
