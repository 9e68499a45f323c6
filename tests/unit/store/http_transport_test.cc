// HttpTransport's event loop against a small HTTP/1.1 server in this process
// that counts the requests it holds at once: the in-flight limit, many
// ranges sent from one thread, retries and errors naming the URL, and
// cancellation of requests on the wire.
#include "store/http_transport.h"

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "store/http_store.h"

namespace chunkwise::store {
namespace {

using ::testing::HasSubstr;

Bytes Pattern(std::size_t size) {
  Bytes bytes(size);
  for (std::size_t i = 0; i < size; ++i) bytes[i] = static_cast<std::uint8_t>((i * 131 + 7) >> 3);
  return bytes;
}

// Serves `body` at every path (ranges too), except /down (always 503) and
// /flaky (503 for its first two requests). A request is held until more than
// `hold_above` are held at once, or a second has passed (or, with
// hold_until_stop, until the server stops): a client that keeps its limit
// waits out the second; one that sends more is answered at once.
class CountingServer {
 public:
  explicit CountingServer(Bytes body) : body_(std::move(body)) {
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof(address));
    ::listen(listener_, 128);
    socklen_t length = sizeof(address);
    ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
    acceptor_ = std::thread([this] { Accept(); });
  }
  ~CountingServer() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
      for (int fd : connections_) ::shutdown(fd, SHUT_RDWR);
    }
    changed_.notify_all();
    ::shutdown(listener_, SHUT_RDWR);
    ::close(listener_);
    acceptor_.join();
    for (std::thread& thread : threads_) thread.join();
  }

  std::string Url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }
  void Hold(int above, bool until_stop = false) {
    std::lock_guard lock(mutex_);
    hold_above_ = above;
    hold_until_stop_ = until_stop;
  }
  int max_held() const {
    std::lock_guard lock(mutex_);
    return max_held_;
  }
  int requests(const std::string& path) const {
    std::lock_guard lock(mutex_);
    auto found = counts_.find(path);
    return found == counts_.end() ? 0 : found->second;
  }
  // Waits until `n` requests are held at once.
  void WaitForHeld(int n) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return held_ >= n || stopping_; });
  }
  // Ends the holds (as the destructor does) before the test's checks.
  void Release() {
    std::lock_guard lock(mutex_);
    hold_above_ = 0;
    hold_until_stop_ = false;
    changed_.notify_all();
  }

 private:
  void Accept() {
    for (;;) {
      const int fd = ::accept(listener_, nullptr, nullptr);
      if (fd < 0) return;
      std::lock_guard lock(mutex_);
      if (stopping_) {
        ::close(fd);
        return;
      }
      connections_.push_back(fd);
      threads_.emplace_back([this, fd] { Serve(fd); });
    }
  }

  void Serve(int fd) {
    std::string buffer;
    char chunk[4096];
    for (;;) {
      std::size_t end;
      while ((end = buffer.find("\r\n\r\n")) == std::string::npos) {
        const ssize_t n = ::recv(fd, chunk, sizeof(chunk), 0);
        if (n <= 0) return;
        buffer.append(chunk, static_cast<std::size_t>(n));
      }
      const std::string head = buffer.substr(0, end);
      buffer.erase(0, end + 4);
      const std::string reply = Answer(head);
      if (::send(fd, reply.data(), reply.size(), MSG_NOSIGNAL) < 0) return;
    }
  }

  std::string Answer(const std::string& head) {
    const std::size_t space = head.find(' ');
    const std::string path = head.substr(space + 1, head.find(' ', space + 1) - space - 1);
    int count = 0;
    {
      std::unique_lock lock(mutex_);
      count = ++counts_[path];
      ++held_;
      max_held_ = std::max(max_held_, held_);
      changed_.notify_all();
      changed_.wait_for(lock, std::chrono::seconds(hold_until_stop_ ? 3600 : 1), [&] {
        return stopping_ || (!hold_until_stop_ && (hold_above_ == 0 || held_ > hold_above_));
      });
      --held_;
    }
    if (path == "/down" || (path == "/flaky" && count <= 2)) {
      return "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n";
    }
    std::size_t first = 0, last = body_.size() - 1;
    bool ranged = false;
    const std::size_t range = head.find("Range: bytes=");
    if (range != std::string::npos) {
      ranged = true;
      first = std::stoull(head.substr(range + 13));
      last = std::stoull(head.substr(head.find('-', range + 13) + 1));
    }
    std::string reply = ranged ? "HTTP/1.1 206 Partial Content\r\n" : "HTTP/1.1 200 OK\r\n";
    if (ranged) {
      reply += "Content-Range: bytes " + std::to_string(first) + "-" + std::to_string(last) + "/" +
               std::to_string(body_.size()) + "\r\n";
    }
    reply += "Content-Length: " + std::to_string(last - first + 1) + "\r\n\r\n";
    reply.append(reinterpret_cast<const char*>(body_.data()) + first, last - first + 1);
    return reply;
  }

  Bytes body_;
  int listener_ = -1;
  int port_ = 0;
  std::thread acceptor_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<int> connections_;
  std::vector<std::thread> threads_;
  std::map<std::string, int> counts_;
  int held_ = 0, max_held_ = 0, hold_above_ = 0;
  bool hold_until_stop_ = false, stopping_ = false;
};

TEST(HttpTransportTest, KeepsItsLimitOfRequestsInFlight) {
  const Bytes body = Pattern(1000);
  CountingServer server(body);
  server.Hold(3);  // More than 3 held at once would be answered at once.
  HttpTransportOptions options;
  options.max_in_flight = 3;
  HttpTransport transport(options);
  HttpRequest request;
  request.url = server.Url("/object");
  std::vector<HttpCall> calls(9, HttpCall{&request, BodyTarget::Collect(body.size()), "GET"});
  const std::vector<Result<HttpResponse>> results = transport.SendAll(calls);
  ASSERT_EQ(results.size(), 9u);
  for (const Result<HttpResponse>& result : results) {
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    EXPECT_EQ(result->status, 200);
    EXPECT_EQ(result->body, body);
  }
  // Three at once, never four: the loop queued the rest.
  EXPECT_EQ(server.max_held(), 3);
  EXPECT_EQ(transport.max_in_flight_seen(), 3u);
  EXPECT_EQ(server.requests("/object"), 9);
}

TEST(HttpTransportTest, ManyRangesFromOneThreadGoAtOnceWithTheirBytes) {
  const Bytes body = Pattern(1 << 20);
  CountingServer server(body);  // Answers at once: no holds.
  HttpTransportOptions options;
  options.max_in_flight = 8;
  HttpTransport transport(options);
  HttpRequest base;
  base.url = server.Url("/object");
  constexpr std::size_t kRanges = 64;
  std::vector<HttpRequest> requests(kRanges, base);
  std::vector<Bytes> buffers(kRanges);
  std::vector<HttpCall> calls;
  for (std::size_t i = 0; i < kRanges; ++i) {
    const std::size_t offset = i * 16000 + i, length = 1000 + i * 37;
    requests[i].range = std::to_string(offset) + "-" + std::to_string(offset + length - 1);
    buffers[i].resize(length);
    calls.push_back({&requests[i], BodyTarget::Into(buffers[i]), "GET range"});
  }
  const std::vector<Result<HttpResponse>> results = transport.SendAll(calls);
  for (std::size_t i = 0; i < kRanges; ++i) {
    ASSERT_TRUE(results[i].ok()) << results[i].status().ToString();
    EXPECT_EQ(results[i]->status, 206);
    const std::size_t offset = i * 16000 + i;
    EXPECT_TRUE(std::equal(buffers[i].begin(), buffers[i].end(), body.begin() + offset)) << i;
  }
  EXPECT_LE(server.max_held(), 8);
  EXPECT_EQ(server.requests("/object"), static_cast<int>(kRanges));
}

// The store's ranged reads from one thread: each uncoalesced range is a
// request, all of them on the wire together (up to the transport's limit).
TEST(HttpTransportTest, AStoresRangesFromOneThreadAreInFlightTogether) {
  const Bytes body = Pattern(1 << 20);
  CountingServer server(body);
  server.Hold(4);
  HttpStoreOptions options;
  options.base_url = server.Url("");
  options.http.max_in_flight = 4;
  options.reads.coalescing.max_request = 0;  // Off: one request per range.
  Result<std::shared_ptr<HttpStore>> store = HttpStore::Open(options);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  std::vector<ByteRange> ranges;
  std::uint64_t total = 0;
  for (std::uint64_t i = 0; i < 8; ++i) {
    ranges.push_back(ByteRange::Span(i * 100000, 5000));
    total += 5000;
  }
  Bytes out(total);
  Result<bool> found = (*store)->GetRangesInto("object", ranges, out);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_TRUE(*found);
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    EXPECT_TRUE(std::equal(out.begin() + i * 5000, out.begin() + (i + 1) * 5000,
                           body.begin() + ranges[i].offset))
        << i;
  }
  // Four at once from this one thread (the store has no threads of its own).
  EXPECT_EQ(server.max_held(), 4);
  EXPECT_EQ(server.requests("/object"), 8);
}

TEST(HttpTransportTest, RetriesAndErrorsNameTheUrl) {
  CountingServer server(Pattern(100));
  HttpTransportOptions options;
  options.retry.max_attempts = 3;
  options.retry.initial_backoff = std::chrono::milliseconds(1);
  options.retry.max_backoff = std::chrono::milliseconds(5);
  HttpTransport transport(options);
  HttpRequest flaky, down, refused;
  flaky.url = server.Url("/flaky");
  down.url = server.Url("/down");
  refused.url = "http://127.0.0.1:1/nothing";  // Port 1: connection refused.
  const HttpCall calls[] = {{&flaky, BodyTarget::Collect(1000), "GET " + flaky.url},
                            {&down, BodyTarget::Collect(1000), "GET " + down.url},
                            {&refused, BodyTarget::Collect(1000), "GET " + refused.url}};
  const std::vector<Result<HttpResponse>> results = transport.SendAll(calls);
  ASSERT_TRUE(results[0].ok()) << results[0].status().ToString();
  EXPECT_EQ(results[0]->status, 200);
  EXPECT_EQ(results[0]->body, Pattern(100));
  EXPECT_EQ(server.requests("/flaky"), 3);
  ASSERT_FALSE(results[1].ok());
  EXPECT_EQ(results[1].status().code(), StatusCode::kIOError);
  EXPECT_THAT(results[1].status().message(),
              HasSubstr("GET " + down.url + ": failed after 3 attempts; the last said HTTP 503"));
  EXPECT_EQ(server.requests("/down"), 3);
  ASSERT_FALSE(results[2].ok());
  EXPECT_EQ(results[2].status().code(), StatusCode::kIOError);
  EXPECT_THAT(results[2].status().message(), HasSubstr("GET http://127.0.0.1:1/nothing: failed"));
  // 2 for /flaky, 2 for /down, 2 for the refused connection.
  EXPECT_EQ(transport.stats().retries, 6u);
  EXPECT_EQ(transport.stats().requests, 9u);
}

TEST(HttpTransportTest, CancellingEndsRequestsOnTheWire) {
  CountingServer server(Pattern(100));
  server.Hold(0, /*until_stop=*/true);
  HttpTransport transport;
  HttpRequest request;
  request.url = server.Url("/object");
  const std::vector<HttpCall> calls(
      4, HttpCall{&request, BodyTarget::Collect(1000), "GET " + request.url});
  core::Cancellation cancellation;
  std::thread canceller([&] {
    server.WaitForHeld(4);  // All four are on the wire, held by the server.
    cancellation.Cancel();
  });
  const std::vector<Result<HttpResponse>> results = transport.SendAll(calls, &cancellation);
  canceller.join();
  for (const Result<HttpResponse>& result : results) {
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.status().code(), StatusCode::kCancelled);
    EXPECT_THAT(result.status().message(), HasSubstr(request.url));
  }
  server.Release();
  // The transport still works after a cancelled batch.
  const std::vector<HttpCall> again(1, calls.front());
  const std::vector<Result<HttpResponse>> after = transport.SendAll(again);
  ASSERT_TRUE(after[0].ok()) << after[0].status().ToString();
  EXPECT_EQ(after[0]->body, Pattern(100));
}

}  // namespace
}  // namespace chunkwise::store
