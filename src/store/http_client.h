// Reading objects over HTTP(S) by byte range, for references to remote files.
//
// A thin wrapper over libcurl's easy interface: one request per call, so it is
// safe to call from many threads at once. Redirects are followed; a server
// that ignores the Range header and sends the whole object is handled by
// cutting the range out of the reply. Errors name the URL and the HTTP status
// or the transport failure.
#ifndef CHUNKWISE_STORE_HTTP_CLIENT_H_
#define CHUNKWISE_STORE_HTTP_CLIENT_H_

#include <cstdint>
#include <optional>
#include <string>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"

namespace chunkwise::store {

// Bytes [offset, offset + length) of the object at `url`, or the whole object
// when `length` is nullopt. NotFound for HTTP 404; IOError for other failures;
// OutOfRange if the object is shorter than the range.
Result<Bytes> HttpGet(const std::string& url, std::uint64_t offset,
                      std::optional<std::uint64_t> length);

// The object's size from a HEAD request (Content-Length). NotFound for 404;
// IOError when the server does not say.
Result<std::uint64_t> HttpSize(const std::string& url);

}  // namespace chunkwise::store

#endif  // CHUNKWISE_STORE_HTTP_CLIENT_H_
