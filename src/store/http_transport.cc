#include "store/http_transport.h"

#include <curl/curl.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <random>
#include <thread>

#include "store/curl_global.h"
#include "store/xml_document.h"

namespace chunkwise::store {
namespace {

// The start of an error reply kept for its message; the rest is dropped.
constexpr std::size_t kErrorBodyLimit = std::size_t{64} << 10;
// The SHA-256 of no bytes: the payload hash of a request without a body.
constexpr const char* kEmptyPayloadHash =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

std::string Lower(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower;
}

std::string_view TrimSpace(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r' ||
                           text.back() == '\n')) {
    text.remove_suffix(1);
  }
  return text;
}

// "host[:port]" of an absolute URL.
std::string Authority(const std::string& url) {
  const std::size_t start = url.find("://");
  if (start == std::string::npos) return "";
  const std::size_t end = url.find_first_of("/?#", start + 3);
  return url.substr(start + 3, end == std::string::npos ? std::string::npos : end - start - 3);
}

// The state of one attempt, shared with libcurl's callbacks.
struct Exchange {
  CURL* handle = nullptr;
  const BodyTarget* target = nullptr;
  HttpResponse response;
  bool overflow = false;
  // The request body being sent.
  std::span<const ByteView> body;
  std::size_t part = 0;
  std::size_t part_offset = 0;
};

bool IsSuccess(long status) { return status >= 200 && status < 300; }

std::size_t OnHeader(char* data, std::size_t size, std::size_t count, void* user) {
  auto* exchange = static_cast<Exchange*>(user);
  const std::string_view line(data, size * count);
  if (line.starts_with("HTTP/")) {
    // A new reply begins (after a 100 Continue or a redirect): forget the last.
    exchange->response.headers.clear();
    exchange->response.body.clear();
    return line.size();
  }
  const std::size_t colon = line.find(':');
  if (colon != std::string_view::npos) {
    exchange->response.headers.emplace_back(Lower(TrimSpace(line.substr(0, colon))),
                                            std::string(TrimSpace(line.substr(colon + 1))));
  }
  return line.size();
}

std::size_t OnBody(char* data, std::size_t size, std::size_t count, void* user) {
  auto* exchange = static_cast<Exchange*>(user);
  const std::size_t n = size * count;
  long status = 0;
  curl_easy_getinfo(exchange->handle, CURLINFO_RESPONSE_CODE, &status);
  HttpResponse& response = exchange->response;
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(data);
  if (!IsSuccess(status)) {
    const std::size_t room = kErrorBodyLimit - std::min(kErrorBodyLimit, response.body.size());
    AppendBytes(response.body, ByteView(bytes, std::min(room, n)));
    return n;
  }
  const BodyTarget& target = *exchange->target;
  switch (target.kind) {
    case BodyTarget::Kind::kCollect:
      if (response.body.empty()) {
        // Room for the whole body at once when the server says its length.
        curl_off_t length = -1;
        curl_easy_getinfo(exchange->handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length);
        if (length > 0) {
          response.body.reserve(
              std::min<std::uint64_t>(static_cast<std::uint64_t>(length), target.limit));
        }
      }
      if (response.body.size() + n > target.limit) {
        exchange->overflow = true;
        return 0;
      }
      AppendBytes(response.body, ByteView(bytes, n));
      break;
    case BodyTarget::Kind::kInto:
      if (response.body_size + n > target.into.size()) {
        exchange->overflow = true;
        return 0;
      }
      std::memcpy(target.into.data() + response.body_size, data, n);
      break;
    case BodyTarget::Kind::kDiscard:
      break;
  }
  response.body_size += n;
  return n;
}

std::size_t OnRead(char* buffer, std::size_t size, std::size_t count, void* user) {
  auto* exchange = static_cast<Exchange*>(user);
  std::size_t room = size * count, written = 0;
  while (room > 0 && exchange->part < exchange->body.size()) {
    const ByteView part = exchange->body[exchange->part];
    const std::size_t n = std::min(room, part.size() - exchange->part_offset);
    std::memcpy(buffer + written, part.data() + exchange->part_offset, n);
    written += n;
    room -= n;
    exchange->part_offset += n;
    if (exchange->part_offset == part.size()) {
      ++exchange->part;
      exchange->part_offset = 0;
    }
  }
  return written;
}

// libcurl rewinds the body when it must send it again on one connection.
int OnSeek(void* user, curl_off_t offset, int origin) {
  auto* exchange = static_cast<Exchange*>(user);
  if (origin != SEEK_SET || offset < 0) return CURL_SEEKFUNC_CANTSEEK;
  auto remaining = static_cast<std::uint64_t>(offset);
  exchange->part = 0;
  exchange->part_offset = 0;
  while (exchange->part < exchange->body.size() &&
         remaining >= exchange->body[exchange->part].size()) {
    remaining -= exchange->body[exchange->part].size();
    ++exchange->part;
  }
  if (remaining > 0 && exchange->part == exchange->body.size()) return CURL_SEEKFUNC_FAIL;
  exchange->part_offset = static_cast<std::size_t>(remaining);
  return CURL_SEEKFUNC_OK;
}

// Failures of the connection or the transfer that another try may not meet.
bool IsRetriableTransportError(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_WEIRD_SERVER_REPLY:
    case CURLE_BAD_CONTENT_ENCODING:
      return true;
    default:
      return false;
  }
}

bool IsRetriableReply(const HttpResponse& response) {
  const long status = response.status;
  if (status == 500 || status == 502 || status == 503 || status == 504 || status == 429 ||
      status == 408) {
    return true;
  }
  if (status >= 400) {
    const std::string code = S3ErrorCode(response);
    return code == "SlowDown" || code == "RequestTimeout" || code == "InternalError" ||
           code == "ServiceUnavailable" || code == "ConditionalRequestConflict";
  }
  return false;
}

std::uint64_t RandomNumber() {
  thread_local std::mt19937_64 generator{std::random_device{}()};
  return generator();
}

}  // namespace

std::chrono::milliseconds RetryPolicy::Backoff(int retry, std::uint64_t random) const {
  const int doublings = std::clamp(retry - 1, 0, 30);
  const std::int64_t ceiling =
      std::min<std::int64_t>(max_backoff.count(), initial_backoff.count() << doublings);
  if (ceiling <= 0) return std::chrono::milliseconds(0);
  return std::chrono::milliseconds(static_cast<std::int64_t>(random % (ceiling + 1)));
}

std::optional<std::string> HttpResponse::Header(std::string_view lowercase_name) const {
  for (const auto& [name, value] : headers) {
    if (name == lowercase_name) return value;
  }
  return std::nullopt;
}

std::string S3ErrorCode(const HttpResponse& response) {
  if (response.body.empty()) return "";
  const std::string_view text(reinterpret_cast<const char*>(response.body.data()),
                              response.body.size());
  Result<XmlElement> root = ParseXml(text, "error reply");
  if (!root.ok() || root->name != "Error") return "";
  return root->ChildText("Code");
}

std::string DescribeReply(const HttpResponse& response) {
  std::string text = "HTTP " + std::to_string(response.status);
  if (!response.body.empty()) {
    const std::string_view body(reinterpret_cast<const char*>(response.body.data()),
                                response.body.size());
    Result<XmlElement> root = ParseXml(body, "error reply");
    if (root.ok() && root->name == "Error") {
      const std::string message = root->ChildText("Message");
      text += " (" + root->ChildText("Code") + (message.empty() ? "" : ": " + message) + ")";
    }
  }
  return text;
}

// Idle easy handles, each keeping its connection open for the next request.
class HttpTransport::HandlePool {
 public:
  explicit HandlePool(std::size_t max_idle) : max_idle_(max_idle) {
    InitCurlOnce();
    share_ = curl_share_init();
    curl_share_setopt(share_, CURLSHOPT_LOCKFUNC, Lock);
    curl_share_setopt(share_, CURLSHOPT_UNLOCKFUNC, Unlock);
    curl_share_setopt(share_, CURLSHOPT_USERDATA, this);
    // Names and TLS sessions are shared; each handle keeps its own connection
    // (libcurl does not support one connection cache across threads).
    curl_share_setopt(share_, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
    curl_share_setopt(share_, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
  }
  ~HandlePool() {
    for (CURL* handle : idle_) curl_easy_cleanup(handle);
    curl_share_cleanup(share_);
  }

  CURL* Acquire() {
    {
      std::lock_guard lock(mutex_);
      if (!idle_.empty()) {
        CURL* handle = idle_.back();
        idle_.pop_back();
        return handle;
      }
    }
    return curl_easy_init();
  }
  void Release(CURL* handle) {
    std::lock_guard lock(mutex_);
    if (idle_.size() < max_idle_) {
      idle_.push_back(handle);
      return;
    }
    curl_easy_cleanup(handle);
  }
  CURLSH* share() const { return share_; }

 private:
  static void Lock(CURL*, curl_lock_data data, curl_lock_access, void* user) {
    static_cast<HandlePool*>(user)->share_mutexes_[data % kMutexes].lock();
  }
  static void Unlock(CURL*, curl_lock_data data, void* user) {
    static_cast<HandlePool*>(user)->share_mutexes_[data % kMutexes].unlock();
  }

  static constexpr int kMutexes = 8;
  std::size_t max_idle_;
  std::mutex mutex_;
  std::vector<CURL*> idle_;  // Most recently used last: its connection is the likeliest alive.
  CURLSH* share_ = nullptr;
  std::mutex share_mutexes_[kMutexes];
};

struct HttpTransport::Attempt {
  CURLcode code = CURLE_OK;
  std::string error;  // libcurl's message when code is not OK.
  bool overflow = false;
  HttpResponse response;
};

HttpTransport::HttpTransport(HttpTransportOptions options)
    : options_(std::move(options)),
      pool_(std::make_unique<HandlePool>(options_.max_idle_connections)) {}

HttpTransport::~HttpTransport() = default;

HttpTransport::Stats HttpTransport::stats() const {
  return {requests_.load(), retries_.load(), connections_.load(), bytes_sent_.load(),
          bytes_received_.load()};
}

void HttpTransport::Backoff(int retry) const {
  std::this_thread::sleep_for(options_.retry.Backoff(retry, RandomNumber()));
}

HttpTransport::Attempt HttpTransport::SendOnce(const HttpRequest& request,
                                               const BodyTarget& target) const {
  Attempt attempt;
  CURL* handle = pool_->Acquire();
  if (handle == nullptr) {
    attempt.code = CURLE_FAILED_INIT;
    attempt.error = "curl_easy_init failed";
    return attempt;
  }
  curl_easy_reset(handle);  // Options go; the open connection stays.
  Exchange exchange;
  exchange.handle = handle;
  exchange.target = &target;
  exchange.body = request.body;
  char error_buffer[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(handle, CURLOPT_ERRORBUFFER, error_buffer);
  curl_easy_setopt(handle, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(handle, CURLOPT_SHARE, pool_->share());
  curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(handle, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(handle, CURLOPT_PATH_AS_IS, 1L);  // The path is signed as given.
  curl_easy_setopt(handle, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(handle, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(options_.connect_timeout.count()));
  curl_easy_setopt(handle, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(handle, CURLOPT_LOW_SPEED_TIME,
                   static_cast<long>(options_.stall_timeout.count()));
  if (!options_.ca_bundle.empty())
    curl_easy_setopt(handle, CURLOPT_CAINFO, options_.ca_bundle.c_str());
  curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, OnHeader);
  curl_easy_setopt(handle, CURLOPT_HEADERDATA, &exchange);
  curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, OnBody);
  curl_easy_setopt(handle, CURLOPT_WRITEDATA, &exchange);

  std::uint64_t body_size = 0;
  for (ByteView part : request.body) body_size += part.size();
  if (request.method == "HEAD") {
    curl_easy_setopt(handle, CURLOPT_NOBODY, 1L);
  } else if (request.has_body) {
    curl_easy_setopt(handle, CURLOPT_READFUNCTION, OnRead);
    curl_easy_setopt(handle, CURLOPT_READDATA, &exchange);
    curl_easy_setopt(handle, CURLOPT_SEEKFUNCTION, OnSeek);
    curl_easy_setopt(handle, CURLOPT_SEEKDATA, &exchange);
    if (request.method == "POST") {
      curl_easy_setopt(handle, CURLOPT_POST, 1L);
      curl_easy_setopt(handle, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body_size));
    } else {
      curl_easy_setopt(handle, CURLOPT_UPLOAD, 1L);
      curl_easy_setopt(handle, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(body_size));
      if (request.method != "PUT") {
        curl_easy_setopt(handle, CURLOPT_CUSTOMREQUEST, request.method.c_str());
      }
    }
  } else if (request.method != "GET") {
    curl_easy_setopt(handle, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  }
  if (!request.range.empty()) curl_easy_setopt(handle, CURLOPT_RANGE, request.range.c_str());
  if (request.follow_redirects) {
    curl_easy_setopt(handle, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(handle, CURLOPT_MAXREDIRS, 8L);
    curl_easy_setopt(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  }

  curl_slist* headers = nullptr;
  for (const std::string& header : request.headers)
    headers = curl_slist_append(headers, header.c_str());
  std::string sigv4;
  if (request.signer != nullptr && !request.signer->credentials.anonymous()) {
    const AwsCredentials& credentials = request.signer->credentials;
    // libcurl 7.88 signs the Host header as it finds it and the payload hash
    // that x-amz-content-sha256 gives (S3 requires the header too).
    headers = curl_slist_append(headers, ("Host: " + Authority(request.url)).c_str());
    const bool has_hash = std::any_of(
        request.headers.begin(), request.headers.end(),
        [](const std::string& h) { return Lower(h).starts_with("x-amz-content-sha256:"); });
    if (!has_hash) {
      headers =
          curl_slist_append(headers, (std::string("x-amz-content-sha256: ") +
                                      (request.has_body ? "UNSIGNED-PAYLOAD" : kEmptyPayloadHash))
                                         .c_str());
    }
    if (!credentials.session_token.empty()) {
      headers = curl_slist_append(headers,
                                  ("x-amz-security-token: " + credentials.session_token).c_str());
    }
    sigv4 = "aws:amz:" + request.signer->region + ":" + request.signer->service;
    curl_easy_setopt(handle, CURLOPT_AWS_SIGV4, sigv4.c_str());
    curl_easy_setopt(handle, CURLOPT_USERNAME, credentials.access_key_id.c_str());
    curl_easy_setopt(handle, CURLOPT_PASSWORD, credentials.secret_access_key.c_str());
  }
  curl_easy_setopt(handle, CURLOPT_HTTPHEADER, headers);

  attempt.code = curl_easy_perform(handle);
  curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &exchange.response.status);
  long connects = 0;
  curl_easy_getinfo(handle, CURLINFO_NUM_CONNECTS, &connects);
  curl_off_t uploaded = 0;
  curl_easy_getinfo(handle, CURLINFO_SIZE_UPLOAD_T, &uploaded);
  connections_ += static_cast<std::uint64_t>(std::max(0L, connects));
  bytes_sent_ += static_cast<std::uint64_t>(std::max<curl_off_t>(0, uploaded));
  bytes_received_ += exchange.response.body_size;
  if (attempt.code != CURLE_OK) {
    attempt.error = error_buffer[0] != 0 ? error_buffer : curl_easy_strerror(attempt.code);
  }
  attempt.overflow = exchange.overflow;
  attempt.response = std::move(exchange.response);
  curl_easy_setopt(handle, CURLOPT_HTTPHEADER, nullptr);
  curl_slist_free_all(headers);
  pool_->Release(handle);
  return attempt;
}

Result<HttpResponse> HttpTransport::Send(const HttpRequest& request, const BodyTarget& target,
                                         std::string_view what) const {
  std::string last;
  const int attempts = std::max(1, options_.retry.max_attempts);
  for (int attempt_number = 1;; ++attempt_number) {
    ++requests_;
    Attempt attempt = SendOnce(request, target);
    if (attempt.overflow) {
      return Status::IOError(std::string(what) +
                             ": the server sent more bytes than were asked for");
    }
    if (attempt.code == CURLE_OK && !IsRetriableReply(attempt.response)) {
      return std::move(attempt.response);
    }
    if (attempt.code != CURLE_OK && !IsRetriableTransportError(attempt.code)) {
      return Status::IOError(std::string(what) + ": " + attempt.error);
    }
    last = attempt.code != CURLE_OK ? attempt.error : DescribeReply(attempt.response);
    if (attempt_number >= attempts) {
      return Status::IOError(std::string(what) + ": failed after " + std::to_string(attempts) +
                             " attempts; the last said " + last);
    }
    ++retries_;
    Backoff(attempt_number);
  }
}

}  // namespace chunkwise::store
