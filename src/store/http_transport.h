// HttpTransport: HTTP requests over libcurl for the object stores, with the
// connections kept for reuse, retries with backoff, and AWS Signature V4.
//
// One event-loop thread per transport (started on the first request) drives
// libcurl's multi interface: every request of every caller is a transfer on
// it, at most `max_in_flight` at once, the rest queued in order. A caller
// waits on its own requests only, so threads no longer wait one per request:
// SendAll hands the loop many requests (the ranges of a shard, the pieces of
// a large value) from one thread and they go at once. Connections are kept
// by the loop and reused by the requests that follow. The loop only moves
// bytes into the callers' targets; decoding stays on the callers' threads.
// A request is retried, after an exponential
// backoff with full jitter, when the transport fails (refused or reset
// connections, a body cut short, a transfer that stalls) or the server says
// to (5xx, 429, S3's SlowDown and RequestTimeout): the loop holds it for
// the backoff without blocking the others. See docs/stores.md, "Retries".
#ifndef CHUNKWISE_STORE_HTTP_TRANSPORT_H_
#define CHUNKWISE_STORE_HTTP_TRANSPORT_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/cancellation.h"
#include "chunkwise/core/result.h"
#include "store/aws_config.h"

namespace chunkwise::store {

struct RetryPolicy {
  int max_attempts = 8;  // The first try included.
  std::chrono::milliseconds initial_backoff{50};
  std::chrono::milliseconds max_backoff{5000};

  // The wait before retry `retry` (1 for the first): uniform in
  // [0, min(max_backoff, initial_backoff · 2^(retry-1))], drawn from `random`.
  std::chrono::milliseconds Backoff(int retry, std::uint64_t random) const;
};

struct HttpTransportOptions {
  std::chrono::milliseconds connect_timeout{10000};
  // A transfer that moves no byte for this long is abandoned and retried.
  std::chrono::seconds stall_timeout{30};
  std::string ca_bundle;  // PEM file of certificate authorities; "" for the system's.
  std::size_t max_idle_connections = 64;
  // Requests on the wire at once (the loop's transfers); more wait their turn.
  std::size_t max_in_flight = 64;
  RetryPolicy retry;
};

// Signs requests with AWS Signature Version 4 (libcurl's CURLOPT_AWS_SIGV4).
struct SigV4Signer {
  std::string region;
  std::string service = "s3";
  AwsCredentials credentials;
};

struct HttpRequest {
  std::string method = "GET";
  std::string url;  // Already percent-encoded; a signed request's query in canonical order.
  std::vector<std::string> headers;  // "Name: value"; all of them are signed.
  std::string range;                 // The Range header's value ("bytes=0-99"), or "".
  // The body, sent as these parts one after another with a Content-Length.
  std::span<const ByteView> body;
  bool has_body = false;                // PUT and POST send a body, even an empty one.
  const SigV4Signer* signer = nullptr;  // Null: the request goes unsigned.
  bool follow_redirects = false;        // Up to 8, to http(s) URLs only.
};

// Bodies from this size wait for the server's "100 Continue" (libcurl's
// Expect: 100-continue, up to a second) before they go, so that a refusal
// (another region, a failed condition) costs no upload; smaller ones follow
// their headers at once (curl 8, TensorStore and obstore do not ask below
// 1 MiB). libcurl 7.88 holds every PUT's body: a round trip more per object
// (docs/benchmarks.md, "s3_bench: what moto spends per request").
inline constexpr std::uint64_t kWaitForContinueFrom = std::uint64_t{1} << 20;
// True if `request`'s body goes without waiting for "100 Continue".
bool SendsBodyAtOnce(const HttpRequest& request);

struct HttpResponse {
  long status = 0;
  std::vector<std::pair<std::string, std::string>> headers;  // Names lowercased.
  // A collected body, or the start of an error reply's body (for its message).
  Bytes body;
  std::uint64_t body_size = 0;  // Bytes of a 2xx body delivered to the target.

  std::optional<std::string> Header(std::string_view lowercase_name) const;
};

// Where the body of a 2xx reply goes.
struct BodyTarget {
  enum class Kind { kCollect, kInto, kDiscard };
  Kind kind = Kind::kCollect;
  MutableByteView into;     // kInto: here, from its start; more is an error.
  std::uint64_t limit = 0;  // kCollect: the most bytes accepted.

  static BodyTarget Collect(std::uint64_t limit) { return {Kind::kCollect, {}, limit}; }
  static BodyTarget Into(MutableByteView buffer) { return {Kind::kInto, buffer, 0}; }
  static BodyTarget Discard() { return {Kind::kDiscard, {}, 0}; }
};

// One request of a batch (HttpTransport::SendAll); the pointers outlive the call.
struct HttpCall {
  const HttpRequest* request = nullptr;
  BodyTarget target;
  std::string what;  // Names the request in errors ("GET http://h/k bytes 0-9").
};

class HttpTransport {
 public:
  struct Stats {
    std::uint64_t requests = 0;  // Attempts, retries included.
    std::uint64_t retries = 0;
    std::uint64_t connections = 0;  // New connections opened.
    std::uint64_t bytes_sent = 0;
    std::uint64_t bytes_received = 0;
  };

  explicit HttpTransport(HttpTransportOptions options = {});
  ~HttpTransport();
  HttpTransport(const HttpTransport&) = delete;
  HttpTransport& operator=(const HttpTransport&) = delete;

  // Sends `request` and returns the server's reply, whatever its status, once
  // it is not one to retry. IOError naming `what` (a method and a URL, say)
  // when the transport fails for good or the retries run out, with the last
  // status or failure in the message.
  Result<HttpResponse> Send(const HttpRequest& request, const BodyTarget& target,
                            std::string_view what) const;

  // Sends every call at once (at most max_in_flight on the wire) and waits
  // for all of them: result i is call i's, as Send would return it. With
  // `cancellation` set, calls not yet answered stop within about 50 ms and
  // end Cancelled naming their `what`.
  std::vector<Result<HttpResponse>> SendAll(std::span<const HttpCall> calls,
                                            const core::Cancellation* cancellation = nullptr) const;

  // The most requests that were on the wire at once, since the transport began.
  std::size_t max_in_flight_seen() const;

  Stats stats() const;
  const HttpTransportOptions& options() const { return options_; }

  // Waits the policy's backoff before retry `retry` (callers that retry a
  // whole exchange, such as a reply whose body says to, use it too).
  void Backoff(int retry) const;

 private:
  class Loop;
  friend class Loop;

  // The running loop, started on first use (and again in a forked child,
  // where the parent's loop thread does not exist).
  Loop& loop() const;

  HttpTransportOptions options_;
  mutable std::mutex loop_mutex_;
  mutable std::unique_ptr<Loop> loop_;
  mutable std::atomic<std::uint64_t> requests_{0}, retries_{0}, connections_{0}, bytes_sent_{0},
      bytes_received_{0};
};

// The code in an S3 error reply's body ("SlowDown", "NoSuchKey"), or "".
std::string S3ErrorCode(const HttpResponse& response);
// "HTTP 503 (SlowDown: Please reduce your request rate.)", for messages.
std::string DescribeReply(const HttpResponse& response);

}  // namespace chunkwise::store

#endif  // CHUNKWISE_STORE_HTTP_TRANSPORT_H_
