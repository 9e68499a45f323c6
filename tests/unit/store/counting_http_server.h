// CountingServer: a small HTTP/1.1 server in the test's process that counts
// the requests it holds at once, for tests of how many requests a client
// has in flight (tests/unit/store/http_transport_test.cc,
// http_batched_gets_test.cc).
#ifndef CHUNKWISE_TESTS_UNIT_STORE_COUNTING_HTTP_SERVER_H_
#define CHUNKWISE_TESTS_UNIT_STORE_COUNTING_HTTP_SERVER_H_

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "chunkwise/core/bytes.h"

namespace chunkwise::test {

// Serves `body` at every path (ranges too), except /down (always 503) and
// /flaky (503 for its first two requests); once files are added (AddFile),
// serves those instead, 404 for any other path, and a path set to Fail
// answers its status. In that mode it also stores what a PUT sends and
// removes what a DELETE names, as an object store would: every file has an
// ETag (a hash of its bytes), and If-Match / If-None-Match: * on a PUT,
// DELETE or GET that the file does not meet answer 412 (tests of batched
// puts, http_batched_puts_test.cc). A request is held until more than
// `hold_above` have been held at once (after which none is), or a second has passed (or, with
// hold_until_stop, until the server stops): a client that keeps its limit
// waits out the second; one that sends more is answered at once. With
// HoldEachWave, the hold starts again once a burst's requests are answered,
// so that each batch of a call (the GETs of a read-modify-write, then its
// PUTs) must be on the wire together to pass at once.
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

  // Serves `body` at `path` from now on ("/a/b"); other paths are 404.
  void AddFile(const std::string& path, Bytes body) {
    std::lock_guard lock(mutex_);
    files_[path] = std::move(body);
  }
  // Answers every request for `path` with `status` and no body.
  void Fail(const std::string& path, int status) {
    std::lock_guard lock(mutex_);
    failures_[path] = status;
  }

  std::string Url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }
  void Hold(int above, bool until_stop = false) {
    std::lock_guard lock(mutex_);
    hold_above_ = above;
    hold_until_stop_ = until_stop;
    burst_ = false;
    each_wave_ = false;
  }
  // Holds every request for `path` until Release (or the server stops),
  // whatever Hold says about the others.
  void HoldPath(const std::string& path) {
    std::lock_guard lock(mutex_);
    held_paths_.insert(path);
  }
  // Hold(above), again for every wave of requests after a burst.
  void HoldEachWave(int above) {
    Hold(above);
    std::lock_guard lock(mutex_);
    each_wave_ = true;
  }
  int max_held() const {
    std::lock_guard lock(mutex_);
    return max_held_;
  }
  // The most requests of `method` ("GET", "PUT") held at once.
  int max_held(const std::string& method) const {
    std::lock_guard lock(mutex_);
    auto found = max_held_by_method_.find(method);
    return found == max_held_by_method_.end() ? 0 : found->second;
  }
  // Answers the next `times` PUTs of `path` (every one: -1) 412, as if
  // another writer had changed the file in between; GETs are served.
  void RefusePuts(const std::string& path, int times) {
    std::lock_guard lock(mutex_);
    refused_puts_[path] = times;
  }
  // Replaces the file at `path` with `body` just before the next PUT of it
  // is looked at: another writer's change between a read and a write.
  void ChangeBeforeNextPut(const std::string& path, Bytes body) {
    std::lock_guard lock(mutex_);
    changes_before_put_[path] = std::move(body);
  }
  // Replaces the file at `path` with `body` just after the next GET of it
  // whose range reaches its end (a shard's index) is answered: another
  // writer's change between a read of an index and the reads it leads to.
  void ChangeAfterNextTailGet(const std::string& path, Bytes body) {
    std::lock_guard lock(mutex_);
    changes_after_tail_get_[path] = std::move(body);
  }
  // The Range header of every GET of `path` so far, in the order answered
  // ("0-0", "-68", "96-163"; "" for a GET of the whole file).
  std::vector<std::string> ranges(const std::string& path) const {
    std::lock_guard lock(mutex_);
    auto found = ranges_.find(path);
    return found == ranges_.end() ? std::vector<std::string>() : found->second;
  }
  // The file at `path` now, if any (what PUTs left there).
  std::optional<Bytes> file(const std::string& path) const {
    std::lock_guard lock(mutex_);
    auto found = files_.find(path);
    if (found == files_.end()) return std::nullopt;
    return found->second;
  }
  // The ETag the server gives the bytes `body`.
  static std::string ETag(const Bytes& body) {
    const std::string_view text(reinterpret_cast<const char*>(body.data()), body.size());
    return "\"" + std::to_string(std::hash<std::string_view>{}(text)) + "\"";
  }
  // The requests for `path` so far that asked "Expect: 100-continue".
  int expects(const std::string& path) const {
    std::lock_guard lock(mutex_);
    auto found = expects_.find(path);
    return found == expects_.end() ? 0 : found->second;
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
  // WaitForHeld, for at most `timeout`: false if fewer were ever held at once.
  bool WaitForHeld(int n, std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, timeout, [&] { return held_ >= n || stopping_; }) && held_ >= n;
  }
  // Ends the holds (as the destructor does) before the test's checks.
  void Release() {
    std::lock_guard lock(mutex_);
    hold_above_ = 0;
    hold_until_stop_ = false;
    held_paths_.clear();
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
      const std::size_t length = std::stoull(HeaderValue(head, "Content-Length").value_or("0"));
      if (HeaderValue(head, "Expect").value_or("") == "100-continue" &&
          ::send(fd, "HTTP/1.1 100 Continue\r\n\r\n", 25, MSG_NOSIGNAL) < 0) {
        return;
      }
      while (buffer.size() < length) {
        const ssize_t n = ::recv(fd, chunk, sizeof(chunk), 0);
        if (n <= 0) return;
        buffer.append(chunk, static_cast<std::size_t>(n));
      }
      const Bytes body(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(length));
      buffer.erase(0, length);
      const std::string reply = Answer(head, body);
      if (::send(fd, reply.data(), reply.size(), MSG_NOSIGNAL) < 0) return;
    }
  }

  // The value of header `name` in `head` (its case as curl sends it).
  static std::optional<std::string> HeaderValue(const std::string& head, const std::string& name) {
    const std::size_t at = head.find("\r\n" + name + ": ");
    if (at == std::string::npos) return std::nullopt;
    const std::size_t start = at + name.size() + 4;
    return head.substr(start, head.find("\r\n", start) - start);
  }

  // True if the file at `path` (null: none) meets the request's If-Match /
  // If-None-Match: *.
  static bool MeetsConditions(const std::string& head, const Bytes* file) {
    if (HeaderValue(head, "If-None-Match") == "*" && file != nullptr) return false;
    const std::optional<std::string> match = HeaderValue(head, "If-Match");
    return !match || (file != nullptr && ETag(*file) == *match);
  }

  // A PUT or DELETE of a file (files mode), once held; mutex_ is held.
  std::string StoreLocked(const std::string& method, const std::string& path,
                          const std::string& head, const Bytes& body) {
    if (auto change = changes_before_put_.find(path);
        method == "PUT" && change != changes_before_put_.end()) {
      files_[path] = std::move(change->second);
      changes_before_put_.erase(change);
    }
    if (auto refused = refused_puts_.find(path);
        method == "PUT" && refused != refused_puts_.end() && refused->second != 0) {
      if (refused->second > 0) --refused->second;
      return "HTTP/1.1 412 Precondition Failed\r\nContent-Length: 0\r\n\r\n";
    }
    auto file = files_.find(path);
    if (!MeetsConditions(head, file == files_.end() ? nullptr : &file->second)) {
      return "HTTP/1.1 412 Precondition Failed\r\nContent-Length: 0\r\n\r\n";
    }
    if (method == "DELETE") {
      if (file != files_.end()) files_.erase(file);
      return "HTTP/1.1 204 No Content\r\n\r\n";
    }
    files_[path] = body;
    return "HTTP/1.1 200 OK\r\nETag: " + ETag(body) + "\r\nContent-Length: 0\r\n\r\n";
  }

  std::string Answer(const std::string& head, const Bytes& request_body) {
    const std::size_t space = head.find(' ');
    const std::string method = head.substr(0, space);
    const std::string path = head.substr(space + 1, head.find(' ', space + 1) - space - 1);
    int count = 0;
    {
      std::unique_lock lock(mutex_);
      count = ++counts_[path];
      if (HeaderValue(head, "Expect").value_or("") == "100-continue") ++expects_[path];
      ++held_;
      max_held_ = std::max(max_held_, held_);
      const int of_method = ++held_by_method_[method];
      max_held_by_method_[method] = std::max(max_held_by_method_[method], of_method);
      burst_ = burst_ || (hold_above_ > 0 && held_ > hold_above_);
      changed_.notify_all();
      changed_.wait_for(lock, std::chrono::seconds(hold_until_stop_ ? 3600 : 1), [&] {
        return stopping_ || (!hold_until_stop_ && (hold_above_ == 0 || burst_));
      });
      --held_;
      --held_by_method_[method];
      if (each_wave_ && burst_ && held_ == 0) burst_ = false;  // The next wave is held.
      changed_.wait(lock, [&] { return stopping_ || !held_paths_.contains(path); });
    }
    if (path == "/down" || (path == "/flaky" && count <= 2)) {
      return "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n";
    }
    const Bytes* body = &body_;
    Bytes served_copy;
    bool files_mode = false;
    {
      std::lock_guard lock(mutex_);
      if (method == "GET") {
        const std::optional<std::string> asked = HeaderValue(head, "Range");
        ranges_[path].push_back(asked && asked->starts_with("bytes=") ? asked->substr(6) : "");
      }
      if (auto failure = failures_.find(path); failure != failures_.end()) {
        return "HTTP/1.1 " + std::to_string(failure->second) +
               " Failed\r\nContent-Length: 0\r\n\r\n";
      }
      files_mode = !files_.empty();
      if (files_mode && (method == "PUT" || method == "DELETE")) {
        return StoreLocked(method, path, head, request_body);
      }
      if (!files_.empty()) {
        auto file = files_.find(path);
        if (file == files_.end()) return "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";
        if (!MeetsConditions(head, &file->second)) {
          return "HTTP/1.1 412 Precondition Failed\r\nContent-Length: 0\r\n\r\n";
        }
        served_copy = file->second;  // A PUT may replace it while it is sent.
        body = &served_copy;
      }
    }
    const Bytes& served = *body;
    std::size_t first = 0, last = served.size() - 1;
    bool ranged = false;
    const std::size_t range = head.find("Range: bytes=");
    if (range != std::string::npos && head[range + 13] == '-') {  // The last N bytes.
      ranged = true;
      first = served.size() -
              std::min<std::size_t>(std::stoull(head.substr(range + 14)), served.size());
    } else if (range != std::string::npos) {
      ranged = true;
      first = std::stoull(head.substr(range + 13));
      last = std::min<std::size_t>(std::stoull(head.substr(head.find('-', range + 13) + 1)),
                                   served.size() - 1);
    }
    std::string reply = ranged ? "HTTP/1.1 206 Partial Content\r\n" : "HTTP/1.1 200 OK\r\n";
    if (files_mode) reply += "ETag: " + ETag(served) + "\r\n";
    if (method == "HEAD") {
      return reply + "Content-Length: " + std::to_string(served.size()) + "\r\n\r\n";
    }
    if (ranged) {
      reply += "Content-Range: bytes " + std::to_string(first) + "-" + std::to_string(last) + "/" +
               std::to_string(served.size()) + "\r\n";
    }
    reply += "Content-Length: " + std::to_string(last - first + 1) + "\r\n\r\n";
    reply.append(reinterpret_cast<const char*>(served.data()) + first, last - first + 1);
    if (files_mode && method == "GET" && last + 1 == served.size()) {
      std::lock_guard lock(mutex_);
      if (auto change = changes_after_tail_get_.find(path);
          change != changes_after_tail_get_.end()) {
        files_[path] = std::move(change->second);
        changes_after_tail_get_.erase(change);
      }
    }
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
  std::map<std::string, int> expects_;
  std::map<std::string, Bytes> files_;
  std::map<std::string, int> failures_;
  std::map<std::string, int> refused_puts_;
  std::map<std::string, Bytes> changes_before_put_;
  std::map<std::string, Bytes> changes_after_tail_get_;
  std::map<std::string, std::vector<std::string>> ranges_;
  std::map<std::string, int> held_by_method_, max_held_by_method_;
  bool each_wave_ = false;
  int held_ = 0, max_held_ = 0, hold_above_ = 0;
  bool hold_until_stop_ = false, stopping_ = false;
  std::set<std::string> held_paths_;  // HoldPath's, until Release.
  bool burst_ = false;  // More than hold_above_ were held at once: none is held from then on.
};

}  // namespace chunkwise::test

#endif  // CHUNKWISE_TESTS_UNIT_STORE_COUNTING_HTTP_SERVER_H_
