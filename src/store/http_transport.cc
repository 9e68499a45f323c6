#include "store/http_transport.h"

#include <curl/curl.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <random>
#include <thread>
#include <unordered_map>

#include "store/curl_global.h"
#include "store/xml_document.h"

namespace chunkwise::store {
namespace {

// The start of an error reply kept for its message; the rest is dropped.
constexpr std::size_t kErrorBodyLimit = std::size_t{64} << 10;
// libcurl's receive buffer per transfer (its default is 16 KiB).
constexpr long kReceiveBuffer = 256L << 10;
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

// The bytes of `request`'s body, all its parts together.
std::uint64_t BodySize(const HttpRequest& request) {
  std::uint64_t size = 0;
  for (ByteView part : request.body) size += part.size();
  return size;
}

}  // namespace

std::chrono::milliseconds RetryPolicy::Backoff(int retry, std::uint64_t random) const {
  const int doublings = std::clamp(retry - 1, 0, 30);
  const std::int64_t ceiling =
      std::min<std::int64_t>(max_backoff.count(), initial_backoff.count() << doublings);
  if (ceiling <= 0) return std::chrono::milliseconds(0);
  return std::chrono::milliseconds(static_cast<std::int64_t>(random % (ceiling + 1)));
}

bool SendsBodyAtOnce(const HttpRequest& request) {
  return request.has_body && BodySize(request) < kWaitForContinueFrom;
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

// The event loop: one thread driving a curl multi handle. Callers queue
// jobs under `mutex_` and wake it; everything else is the loop thread's.
class HttpTransport::Loop {
 public:
  explicit Loop(const HttpTransport& transport) : transport_(transport), pid_(::getpid()) {
    InitCurlOnce();
    multi_ = curl_multi_init();
    // Connections the multi handle keeps open for the requests that follow.
    curl_multi_setopt(multi_, CURLMOPT_MAXCONNECTS,
                      static_cast<long>(std::max<std::size_t>(1, options().max_idle_connections)));
    thread_ = std::thread([this] { Main(); });
  }
  ~Loop() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    curl_multi_wakeup(multi_);
    thread_.join();
    for (CURL* handle : idle_handles_) curl_easy_cleanup(handle);
    curl_multi_cleanup(multi_);
  }
  Loop(const Loop&) = delete;
  Loop& operator=(const Loop&) = delete;

  pid_t pid() const { return pid_; }
  std::size_t max_seen() const { return max_seen_.load(); }

  // Queues `calls` and waits until every one has its result.
  void Run(std::span<const HttpCall> calls, const core::Cancellation* cancellation,
           std::vector<Result<HttpResponse>>& results) {
    Batch batch;
    batch.remaining = calls.size();
    batch.results = &results;
    batch.cancellation = cancellation;
    {
      std::lock_guard lock(mutex_);
      for (std::size_t i = 0; i < calls.size(); ++i) {
        auto job = std::make_unique<Job>();
        job->batch = &batch;
        job->index = i;
        job->call = &calls[i];
        incoming_.push_back(std::move(job));
      }
    }
    curl_multi_wakeup(multi_);
    std::unique_lock lock(batch.mutex);
    batch.done.wait(lock, [&] { return batch.remaining == 0; });
  }

 private:
  using Clock = std::chrono::steady_clock;

  struct Batch {
    std::mutex mutex;
    std::condition_variable done;
    std::size_t remaining = 0;
    std::vector<Result<HttpResponse>>* results = nullptr;
    const core::Cancellation* cancellation = nullptr;
  };

  // One call on its way through its attempts.
  struct Job {
    Batch* batch = nullptr;
    std::size_t index = 0;
    const HttpCall* call = nullptr;
    int attempt = 0;         // Attempts started.
    Clock::time_point due;   // When a retry may start.
    CURL* handle = nullptr;  // While on the wire.
    curl_slist* headers = nullptr;
    std::string sigv4;
    Exchange exchange;
    char error[CURL_ERROR_SIZE] = {0};
  };
  using JobPtr = std::unique_ptr<Job>;

  const HttpTransportOptions& options() const { return transport_.options_; }

  void Main() {
    for (;;) {
      {
        std::lock_guard lock(mutex_);
        while (!incoming_.empty()) {
          ready_.push_back(std::move(incoming_.front()));
          incoming_.pop_front();
        }
        if (stop_) break;
      }
      DropCancelled();
      const Clock::time_point now = Clock::now();
      for (auto it = waiting_.begin(); it != waiting_.end();) {
        if ((*it)->due > now) {
          ++it;
          continue;
        }
        ready_.push_back(std::move(*it));
        it = waiting_.erase(it);
      }
      const std::size_t limit = std::max<std::size_t>(1, options().max_in_flight);
      while (active_.size() < limit && !ready_.empty()) {
        JobPtr job = std::move(ready_.front());
        ready_.pop_front();
        Start(std::move(job));
      }
      int running = 0;
      curl_multi_perform(multi_, &running);
      int left = 0;
      while (CURLMsg* message = curl_multi_info_read(multi_, &left)) {
        if (message->msg == CURLMSG_DONE) Finish(message->easy_handle, message->data.result);
      }
      curl_multi_poll(multi_, nullptr, 0, PollTimeout(limit), nullptr);
    }
    // Stopping: whatever is left ends with an error (no caller waits then,
    // as the transport is being destroyed).
    for (auto& entry : active_) {
      curl_multi_remove_handle(multi_, entry.first);
      Release(*entry.second);
      Closed(std::move(entry.second));
    }
    active_.clear();
    for (JobPtr& job : ready_) Closed(std::move(job));
    for (JobPtr& job : waiting_) Closed(std::move(job));
  }

  void Closed(JobPtr job) {
    const std::string& what = job->call->what;  // The caller's, outliving the job.
    Complete(std::move(job), Status::Cancelled(what + ": the transport was closed"));
  }

  // How long the loop may sleep: not at all when a queued job could start,
  // until the next retry is due, and briefly while jobs may be cancelled.
  int PollTimeout(std::size_t limit) const {
    if (!ready_.empty() && active_.size() < limit) return 0;
    Clock::duration wait = std::chrono::seconds(1);
    if (!active_.empty() || !waiting_.empty()) wait = std::chrono::milliseconds(50);
    const Clock::time_point now = Clock::now();
    for (const JobPtr& job : waiting_) wait = std::min(wait, job->due - now);
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(wait).count();
    return static_cast<int>(std::clamp<std::int64_t>(ms, 0, 1000));
  }

  bool Cancelled(const Job& job) const {
    return job.batch->cancellation != nullptr && job.batch->cancellation->cancelled();
  }

  // Ends every job whose caller cancelled, on the wire or not.
  void DropCancelled() {
    for (auto it = active_.begin(); it != active_.end();) {
      if (!Cancelled(*it->second)) {
        ++it;
        continue;
      }
      curl_multi_remove_handle(multi_, it->first);
      Release(*it->second);
      JobPtr job = std::move(it->second);
      it = active_.erase(it);
      CompleteCancelled(std::move(job));
    }
    for (auto* queue : {&ready_, &waiting_}) {
      for (auto it = queue->begin(); it != queue->end();) {
        if (!Cancelled(**it)) {
          ++it;
          continue;
        }
        JobPtr job = std::move(*it);
        it = queue->erase(it);
        CompleteCancelled(std::move(job));
      }
    }
  }

  void CompleteCancelled(JobPtr job) {
    const std::string& what = job->call->what;
    Status status = job->batch->cancellation->Check(what);
    if (status.ok()) status = Status::Cancelled(what);
    Complete(std::move(job), std::move(status));
  }

  void Complete(JobPtr job, Result<HttpResponse> result) {
    Batch& batch = *job->batch;
    std::lock_guard lock(batch.mutex);
    (*batch.results)[job->index] = std::move(result);
    if (--batch.remaining == 0) batch.done.notify_all();
  }

  // Sets up one attempt of `job` and puts it on the wire.
  void Start(JobPtr job) {
    CURL* handle = nullptr;
    if (!idle_handles_.empty()) {
      handle = idle_handles_.back();
      idle_handles_.pop_back();
      curl_easy_reset(handle);
    } else {
      handle = curl_easy_init();
    }
    if (handle == nullptr) {
      const std::string& what = job->call->what;
      Complete(std::move(job), Status::IOError(what + ": curl_easy_init failed"));
      return;
    }
    ++job->attempt;
    ++transport_.requests_;
    job->handle = handle;
    job->error[0] = 0;
    job->exchange = Exchange();
    job->exchange.handle = handle;
    job->exchange.target = &job->call->target;
    job->exchange.body = job->call->request->body;
    Configure(*job);
    active_.emplace(handle, std::move(job));
    max_seen_.store(std::max(max_seen_.load(), active_.size()));
    curl_multi_add_handle(multi_, handle);
  }

  void Configure(Job& job) {
    const HttpRequest& request = *job.call->request;
    const HttpTransportOptions& options = this->options();
    CURL* handle = job.handle;
    Exchange* exchange = &job.exchange;
    curl_easy_setopt(handle, CURLOPT_PRIVATE, &job);
    curl_easy_setopt(handle, CURLOPT_ERRORBUFFER, job.error);
    curl_easy_setopt(handle, CURLOPT_URL, request.url.c_str());
    curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(handle, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(handle, CURLOPT_PATH_AS_IS, 1L);  // The path is signed as given.
    curl_easy_setopt(handle, CURLOPT_TCP_KEEPALIVE, 1L);
    // One thread receives for every transfer: larger reads, fewer calls.
    curl_easy_setopt(handle, CURLOPT_BUFFERSIZE, kReceiveBuffer);
    curl_easy_setopt(handle, CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(options.connect_timeout.count()));
    curl_easy_setopt(handle, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(handle, CURLOPT_LOW_SPEED_TIME,
                     static_cast<long>(options.stall_timeout.count()));
    if (!options.ca_bundle.empty())
      curl_easy_setopt(handle, CURLOPT_CAINFO, options.ca_bundle.c_str());
    curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, OnHeader);
    curl_easy_setopt(handle, CURLOPT_HEADERDATA, exchange);
    curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, OnBody);
    curl_easy_setopt(handle, CURLOPT_WRITEDATA, exchange);

    const std::uint64_t body_size = BodySize(request);
    if (request.method == "HEAD") {
      curl_easy_setopt(handle, CURLOPT_NOBODY, 1L);
    } else if (request.has_body) {
      curl_easy_setopt(handle, CURLOPT_READFUNCTION, OnRead);
      curl_easy_setopt(handle, CURLOPT_READDATA, exchange);
      curl_easy_setopt(handle, CURLOPT_SEEKFUNCTION, OnSeek);
      curl_easy_setopt(handle, CURLOPT_SEEKDATA, exchange);
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
    // libcurl's own "Expect: 100-continue" stays on the request: 7.88's SigV4
    // signs an emptied "Expect:" that it then leaves out, and S3 refuses it.
    if (SendsBodyAtOnce(request)) curl_easy_setopt(handle, CURLOPT_EXPECT_100_TIMEOUT_MS, 0L);
    if (!request.range.empty()) curl_easy_setopt(handle, CURLOPT_RANGE, request.range.c_str());
    if (request.follow_redirects) {
      curl_easy_setopt(handle, CURLOPT_FOLLOWLOCATION, 1L);
      curl_easy_setopt(handle, CURLOPT_MAXREDIRS, 8L);
      curl_easy_setopt(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    }

    curl_slist* headers = nullptr;
    for (const std::string& header : request.headers)
      headers = curl_slist_append(headers, header.c_str());
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
      job.sigv4 = "aws:amz:" + request.signer->region + ":" + request.signer->service;
      curl_easy_setopt(handle, CURLOPT_AWS_SIGV4, job.sigv4.c_str());
      curl_easy_setopt(handle, CURLOPT_USERNAME, credentials.access_key_id.c_str());
      curl_easy_setopt(handle, CURLOPT_PASSWORD, credentials.secret_access_key.c_str());
    }
    job.headers = headers;
    curl_easy_setopt(handle, CURLOPT_HTTPHEADER, headers);
  }

  // Takes the handle back from a job off the wire (removed from the multi).
  void Release(Job& job) {
    curl_easy_setopt(job.handle, CURLOPT_HTTPHEADER, nullptr);
    curl_slist_free_all(job.headers);
    job.headers = nullptr;
    if (idle_handles_.size() < std::max<std::size_t>(1, options().max_in_flight)) {
      idle_handles_.push_back(job.handle);
    } else {
      curl_easy_cleanup(job.handle);
    }
    job.handle = nullptr;
  }

  // An attempt ended: the result, or a retry after its backoff.
  void Finish(CURL* handle, CURLcode code) {
    auto found = active_.find(handle);
    if (found == active_.end()) return;
    JobPtr job = std::move(found->second);
    active_.erase(found);
    curl_multi_remove_handle(multi_, handle);
    HttpResponse& response = job->exchange.response;
    curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &response.status);
    long connects = 0;
    curl_easy_getinfo(handle, CURLINFO_NUM_CONNECTS, &connects);
    curl_off_t uploaded = 0;
    curl_easy_getinfo(handle, CURLINFO_SIZE_UPLOAD_T, &uploaded);
    transport_.connections_ += static_cast<std::uint64_t>(std::max(0L, connects));
    transport_.bytes_sent_ += static_cast<std::uint64_t>(std::max<curl_off_t>(0, uploaded));
    transport_.bytes_received_ += response.body_size;
    const std::string error =
        code == CURLE_OK ? "" : (job->error[0] != 0 ? job->error : curl_easy_strerror(code));
    Release(*job);
    const std::string& what = job->call->what;
    if (job->exchange.overflow) {
      Complete(std::move(job),
               Status::IOError(what + ": the server sent more bytes than were asked for"));
      return;
    }
    if (code == CURLE_OK && !IsRetriableReply(response)) {
      HttpResponse reply = std::move(response);
      Complete(std::move(job), std::move(reply));
      return;
    }
    if (code != CURLE_OK && !IsRetriableTransportError(code)) {
      Complete(std::move(job), Status::IOError(what + ": " + error));
      return;
    }
    const std::string last = code != CURLE_OK ? error : DescribeReply(response);
    const int attempts = std::max(1, options().retry.max_attempts);
    if (job->attempt >= attempts) {
      Complete(std::move(job), Status::IOError(what + ": failed after " + std::to_string(attempts) +
                                               " attempts; the last said " + last));
      return;
    }
    ++transport_.retries_;
    job->due = Clock::now() + options().retry.Backoff(job->attempt, RandomNumber());
    waiting_.push_back(std::move(job));
  }

  const HttpTransport& transport_;
  const pid_t pid_;
  CURLM* multi_ = nullptr;
  std::thread thread_;
  std::atomic<std::size_t> max_seen_{0};

  std::mutex mutex_;
  std::deque<JobPtr> incoming_;  // Under mutex_.
  bool stop_ = false;            // Under mutex_.

  // The loop thread's own.
  std::deque<JobPtr> ready_;    // Queued, in the order they came.
  std::deque<JobPtr> waiting_;  // Retries in their backoff.
  std::unordered_map<CURL*, JobPtr> active_;
  std::vector<CURL*> idle_handles_;
};

HttpTransport::HttpTransport(HttpTransportOptions options) : options_(std::move(options)) {}

HttpTransport::~HttpTransport() {
  std::lock_guard lock(loop_mutex_);
  // A forked child's copy of the parent's loop has no thread to stop: left unfreed.
  if (loop_ != nullptr && loop_->pid() != ::getpid()) (void)loop_.release();
}

HttpTransport::Loop& HttpTransport::loop() const {
  std::lock_guard lock(loop_mutex_);
  if (loop_ != nullptr && loop_->pid() != ::getpid()) (void)loop_.release();
  if (loop_ == nullptr) loop_ = std::make_unique<Loop>(*this);
  return *loop_;
}

HttpTransport::Stats HttpTransport::stats() const {
  return {requests_.load(), retries_.load(), connections_.load(), bytes_sent_.load(),
          bytes_received_.load()};
}

std::size_t HttpTransport::max_in_flight_seen() const {
  std::lock_guard lock(loop_mutex_);
  return loop_ == nullptr ? 0 : loop_->max_seen();
}

void HttpTransport::Backoff(int retry) const {
  std::this_thread::sleep_for(options_.retry.Backoff(retry, RandomNumber()));
}

std::vector<Result<HttpResponse>> HttpTransport::SendAll(
    std::span<const HttpCall> calls, const core::Cancellation* cancellation) const {
  std::vector<Result<HttpResponse>> results;
  results.reserve(calls.size());
  for (const HttpCall& call : calls)
    results.emplace_back(Status::Internal(call.what + ": not sent"));
  if (!calls.empty()) loop().Run(calls, cancellation, results);
  return results;
}

Result<HttpResponse> HttpTransport::Send(const HttpRequest& request, const BodyTarget& target,
                                         std::string_view what) const {
  const HttpCall calls[] = {{&request, target, std::string(what)}};
  return std::move(SendAll(calls).front());
}

}  // namespace chunkwise::store
