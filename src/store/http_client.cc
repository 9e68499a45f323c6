#include "store/http_client.h"

#include <curl/curl.h>

#include <memory>
#include <mutex>

#include "store/curl_global.h"

namespace chunkwise::store {
namespace {

struct CurlDeleter {
  void operator()(CURL* handle) const { curl_easy_cleanup(handle); }
};
using CurlHandle = std::unique_ptr<CURL, CurlDeleter>;

// Collects the body, refusing to grow past `limit` bytes (a server that sends
// far more than asked is cut off rather than allowed to fill memory).
struct BodySink {
  Bytes data;
  std::uint64_t limit = 0;
  bool overflow = false;
};

std::size_t WriteBody(char* chunk, std::size_t size, std::size_t count, void* user) {
  auto* sink = static_cast<BodySink*>(user);
  const std::size_t n = size * count;
  if (sink->data.size() + n > sink->limit) {
    sink->overflow = true;
    return 0;
  }
  AppendBytes(sink->data, ByteView(reinterpret_cast<const std::uint8_t*>(chunk), n));
  return n;
}

Result<CurlHandle> NewHandle(const std::string& url) {
  InitCurlOnce();
  CurlHandle handle(curl_easy_init());
  if (!handle) return Status::Internal("curl_easy_init failed for " + url);
  curl_easy_setopt(handle.get(), CURLOPT_URL, url.c_str());
  curl_easy_setopt(handle.get(), CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(handle.get(), CURLOPT_MAXREDIRS, 8L);
  curl_easy_setopt(handle.get(), CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(handle.get(), CURLOPT_CONNECTTIMEOUT, 30L);
  curl_easy_setopt(handle.get(), CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(handle.get(), CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  return handle;
}

Result<long> Perform(CURL* handle, const std::string& url) {
  const CURLcode code = curl_easy_perform(handle);
  if (code != CURLE_OK) {
    return Status::IOError(url + ": " + curl_easy_strerror(code));
  }
  long status = 0;
  curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &status);
  if (status == 404) return Status::NotFound(url + ": HTTP 404 (not found)");
  if (status != 200 && status != 206) {
    return Status::IOError(url + ": HTTP status " + std::to_string(status));
  }
  return status;
}

}  // namespace

void InitCurlOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

Result<Bytes> HttpGet(const std::string& url, std::uint64_t offset,
                      std::optional<std::uint64_t> length) {
  CHUNKWISE_ASSIGN_OR_RETURN(CurlHandle handle, NewHandle(url));
  BodySink sink;
  // A server that ignores Range sends the whole object: accept up to 1 GiB beyond the range.
  sink.limit = length ? offset + *length + (std::uint64_t{1} << 30) : ~std::uint64_t{0};
  curl_easy_setopt(handle.get(), CURLOPT_WRITEFUNCTION, WriteBody);
  curl_easy_setopt(handle.get(), CURLOPT_WRITEDATA, &sink);
  std::string range;
  if (length && *length == 0) return Bytes();
  if (length) {
    range = std::to_string(offset) + "-" + std::to_string(offset + *length - 1);
    curl_easy_setopt(handle.get(), CURLOPT_RANGE, range.c_str());
  }
  Result<long> status = Perform(handle.get(), url);
  if (sink.overflow) return Status::IOError(url + ": the server sent more data than requested");
  if (!status.ok()) return status.status();
  if (!length) return std::move(sink.data);
  const std::uint64_t start = *status == 206 ? 0 : offset;  // 200: the whole object came.
  if (sink.data.size() < start + *length) {
    return Status::OutOfRange(url + ": bytes " + std::to_string(offset) + "+" +
                              std::to_string(*length) + " requested, the server sent fewer");
  }
  return CopyToBytes(ByteView(sink.data).subspan(start, *length));
}

Result<std::uint64_t> HttpSize(const std::string& url) {
  CHUNKWISE_ASSIGN_OR_RETURN(CurlHandle handle, NewHandle(url));
  curl_easy_setopt(handle.get(), CURLOPT_NOBODY, 1L);
  CHUNKWISE_RETURN_IF_ERROR(Perform(handle.get(), url).status());
  curl_off_t size = -1;
  curl_easy_getinfo(handle.get(), CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &size);
  if (size < 0) return Status::IOError(url + ": the server did not give the object's size");
  return static_cast<std::uint64_t>(size);
}

}  // namespace chunkwise::store
