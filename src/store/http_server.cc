#include "store/http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <string>

#include "chunkwise/store/file_store.h"
#include "chunkwise/store/value_reader.h"
#include "store/file_descriptor_of.h"
#include "store/key.h"

namespace chunkwise::store {
namespace {

constexpr std::size_t kMaxHeadBytes = 64 * 1024;
// An answer is read from the store and sent a piece at a time: a connection
// holds at most one piece, whatever it asks for and however slowly it reads.
constexpr std::uint64_t kPieceBytes = 1 << 20;
constexpr int kTickMs = 200;         // How often deadlines are looked at.
constexpr int kAcceptsPerWake = 64;  // Then the other connections get their turn.
constexpr int kAcceptPauseMs = 100;  // Out of descriptors: the backlog waits this long.
constexpr std::size_t kKeptBufferBytes = 64 * 1024;  // An idle connection keeps no more.
constexpr int kDrainMs = 2000;  // How long a closing connection's input is dropped.

// The event loop's tags for its two own descriptors; connections are tagged
// with their Connection's address.
void* const kListenTag = nullptr;

// Headers every answer carries: the viewer reads from another origin. nosniff
// keeps a browser from running an error body (which repeats the key) as HTML.
constexpr std::string_view kCommonHeaders =
    "Access-Control-Allow-Origin: *\r\n"
    "Access-Control-Expose-Headers: Content-Range, Content-Length, Accept-Ranges, ETag, "
    "Content-Type\r\n"
    "X-Content-Type-Options: nosniff\r\n";

std::int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string_view ReasonPhrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 204:
      return "No Content";
    case 206:
      return "Partial Content";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 412:
      return "Precondition Failed";
    case 416:
      return "Range Not Satisfiable";
    case 431:
      return "Request Header Fields Too Large";
    case 503:
      return "Service Unavailable";
    default:
      return "Internal Server Error";
  }
}

std::string_view ContentType(std::string_view key) {
  const std::string_view name = key.substr(key.rfind('/') + 1);
  const auto ends = [&](std::string_view suffix) { return name.ends_with(suffix); };
  if (name == "info" || name == "zarr.json" || name == ".zarray" || name == ".zattrs" ||
      name == ".zgroup" || name == ".zmetadata" || name == "attributes.json" || ends(".json")) {
    return "application/json";
  }
  if (ends(".html")) return "text/html; charset=utf-8";
  if (ends(".js") || ends(".mjs")) return "text/javascript";
  if (ends(".css")) return "text/css";
  if (ends(".wasm")) return "application/wasm";
  if (ends(".png")) return "image/png";
  if (ends(".svg")) return "image/svg+xml";
  if (ends(".csv") || ends(".log") || ends(".txt")) return "text/plain; charset=utf-8";
  return "application/octet-stream";
}

std::string Head(int status, std::string_view content_type, std::uint64_t length,
                 std::string_view extra, bool keep_alive) {
  std::string head =
      "HTTP/1.1 " + std::to_string(status) + " " + std::string(ReasonPhrase(status)) + "\r\n";
  head += kCommonHeaders;
  head += "Accept-Ranges: bytes\r\nCache-Control: no-cache\r\n";
  head += "Content-Type: " + std::string(content_type) + "\r\n";
  head += "Content-Length: " + std::to_string(length) + "\r\n";
  head += extra;
  head += keep_alive ? "Connection: keep-alive\r\n" : "Connection: close\r\n";
  head += "\r\n";
  return head;
}

void Append(Bytes& out, std::string_view text) { out.insert(out.end(), text.begin(), text.end()); }

// zarr v2's metadata: the only names starting with "." that a viewer asks for.
bool IsZarrV2MetadataName(std::string_view name) {
  return name == ".zarray" || name == ".zattrs" || name == ".zgroup" || name == ".zmetadata";
}

// True if a segment of `key` starts with "." (a dot-file or dot-directory),
// other than zarr v2 metadata as the last segment.
bool HasHiddenSegment(std::string_view key) {
  for (std::size_t start = 0;;) {
    const std::size_t slash = key.find('/', start);
    const std::string_view segment = key.substr(start, slash - start);
    const bool last = slash == std::string_view::npos;
    if (segment.starts_with('.') && !(last && IsZarrV2MetadataName(segment))) return true;
    if (last) return false;
    start = slash + 1;
  }
}

// The key a request path names. "a//b" names "a/b": clients that join URLs
// loosely send doubled slashes.
std::string KeyOfPath(std::string_view path) {
  std::string key;
  for (const char c : path.substr(path.empty() ? 0 : 1)) {
    if (c != '/' || (!key.empty() && key.back() != '/')) key += c;
  }
  return key;
}

// `text` for a log line: "-" when empty, control bytes as \xNN, so that a
// client cannot write lines of its own into the log ("%0a" in a path).
std::string Printable(std::string_view text) {
  if (text.empty()) return "-";
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\x%02x", byte);
      out += escaped;
    } else {
      out += c;
    }
  }
  return out;
}

// The ETag of the version `reader` reads, from its generation (for a file:
// its device, inode, size and modification time), hashed so that it tells
// nothing of them; empty when the store gives none.
std::string ETagOf(const ValueReader& reader) {
  const std::optional<Generation> generation = reader.generation();
  if (!generation || generation->absent()) return "";
  char text[24];
  std::snprintf(text, sizeof(text), "\"%016zx\"", std::hash<std::string>{}(generation->token()));
  return text;
}

// Whether an If-Match header (a list of ETags, or "*") names `etag`.
bool IfMatchHolds(std::string_view header, std::string_view etag) {
  for (std::size_t start = 0; start < header.size();) {
    std::size_t comma = header.find(',', start);
    if (comma == std::string_view::npos) comma = header.size();
    std::string_view item = header.substr(start, comma - start);
    while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.remove_prefix(1);
    while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
    if (item == "*" || (!etag.empty() && item == etag)) return true;
    start = comma + 1;
  }
  return false;
}

// Answers go out as soon as they are written: small ones must not wait for
// more (Nagle).
void SetNoDelay(int fd) {
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

}  // namespace

struct HttpServer::Connection {
  enum class Phase {
    kHead,   // Receiving a request head; the loop watches for input.
    kWork,   // A worker has it (reading the store); the loop leaves it alone.
    kSend,   // Sending `out`; the loop watches for room to write.
    kDrain,  // Answered and closing: what the client still sends is read
             // and dropped until it closes (or a deadline), because closing
             // with unread input resets the connection and can lose the answer.
  };
  int fd = -1;
  Phase phase = Phase::kHead;
  bool watched = false;  // Registered with epoll, for `events`.
  std::uint32_t events = 0;
  std::int64_t deadline_ms = 0;  // kHead, kSend: closed when passed.
  bool peer_closed = false;      // The client sent all it will send.
  std::string in;                // Received and not yet parsed.
  std::size_t scanned = 0;       // Bytes of `in` known to hold no end of a head.
  Bytes out;                     // To send; out_sent of it are sent.
  std::size_t out_sent = 0;
  // The request being answered.
  HttpRequest request;
  bool started = false;  // Its head is built; a worker reads the next piece.
  bool keep_alive = false;
  bool close_after = false;  // Close once `out` is sent.
  bool held = false;         // A quiet event stream: kept open once `out` is sent.
  // The value being sent, [next, end) of it still to read; null when all is read.
  std::unique_ptr<ValueReader> reader;
  std::uint64_t next = 0;
  std::uint64_t end = 0;
  // The reader's open file (FileDescriptorOf), when the value is one: the
  // workers send [next, end) of it with sendfile instead of reading pieces.
  int body_fd = -1;
  bool wait_writable = false;  // A worker's send found the socket full.
  bool broken = false;         // A worker's send failed, or the file shrank: close.
};

HttpServer::HttpServer(std::shared_ptr<const Store> store, HttpServerOptions options, int listen_fd,
                       int port)
    : store_(std::move(store)), options_(std::move(options)), listen_fd_(listen_fd), port_(port) {}

Result<std::unique_ptr<HttpServer>> HttpServer::Start(std::shared_ptr<const Store> store,
                                                      HttpServerOptions options) {
  if (options.threads > kMaxHttpServerThreads) {
    return Status::InvalidArgument(
               "http server: threads " + std::to_string(options.threads) +
               " is over the limit of " + std::to_string(kMaxHttpServerThreads) +
               " (the threads only read the store; no client waits on one while it sends or reads)")
        .WithField("threads");
  }
  if (options.max_connections == 0 || options.max_connections > kMaxHttpServerConnections) {
    return Status::InvalidArgument("http server: max_connections " +
                                   std::to_string(options.max_connections) + " is not in 1.." +
                                   std::to_string(kMaxHttpServerConnections));
  }
  if (options.idle_timeout_s < 1 || options.send_timeout_s < 1) {
    return Status::InvalidArgument("http server: idle_timeout_s and send_timeout_s must be >= 1");
  }
  // A file store is served confined to its root: a link inside it must not
  // hand out a file from elsewhere on the machine.
  if (const auto* files = dynamic_cast<const FileStore*>(store.get());
      files != nullptr && !files->options().confine_to_root) {
    FileStoreOptions confined = files->options();
    confined.create_root = false;
    confined.confine_to_root = true;
    CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<FileStore> reopened,
                               FileStore::Open(files->root(), confined));
    store = std::move(reopened);
  }
  const std::string where = options.host + ":" + std::to_string(options.port);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(options.port));
  if (options.port < 0 || options.port > 65535 ||
      ::inet_pton(AF_INET, options.host.c_str(), &address.sin_addr) != 1) {
    return Status::InvalidArgument("http server: " + where + " is not an IPv4 address and port");
  }
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return Status::IOError("http server: socket: " + std::string(std::strerror(errno)));
  const int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0 ||
      ::listen(fd, SOMAXCONN) != 0) {
    const std::string error = std::strerror(errno);
    ::close(fd);
    return Status::IOError("http server: cannot listen on " + where + ": " + error);
  }
  socklen_t length = sizeof(address);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  const int port = ntohs(address.sin_port);
  std::unique_ptr<HttpServer> server(
      new HttpServer(std::move(store), std::move(options), fd, port));
  // On failure the destructor stops and joins what did start.
  CHUNKWISE_RETURN_IF_ERROR(server->StartThreads());
  return server;
}

Status HttpServer::StartThreads() {
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (epoll_fd_ < 0 || wake_fd_ < 0) {
    return Status::IOError("http server: epoll/eventfd: " + std::string(std::strerror(errno)));
  }
  epoll_event listen_event{.events = EPOLLIN, .data = {.ptr = kListenTag}};
  epoll_event wake_event{.events = EPOLLIN, .data = {.ptr = this}};
  if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, listen_fd_, &listen_event) != 0 ||
      ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &wake_event) != 0) {
    return Status::IOError("http server: epoll_ctl: " + std::string(std::strerror(errno)));
  }
  CHUNKWISE_ASSIGN_OR_RETURN(workers_, core::ThreadPool::Create(options_.threads));
  CHUNKWISE_ASSIGN_OR_RETURN(loop_, core::StartThread([this] { Loop(); }, "the HTTP server"));
  return Status::Ok();
}

HttpServer::~HttpServer() {
  Stop();
  if (loop_.joinable()) loop_.join();
  // Runs what was queued (each returns at once: stopping_ is set), then joins.
  workers_.reset();
  for (auto& [raw, connection] : connections_) {
    if (connection->fd >= 0) ::close(connection->fd);
  }
  connections_.clear();
  if (epoll_fd_ >= 0) ::close(epoll_fd_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
  ::close(listen_fd_);
}

std::string HttpServer::url() const {
  return "http://" + options_.host + ":" + std::to_string(port_) + "/";
}

void HttpServer::Stop() {
  if (stopping_.exchange(true)) return;
  ::shutdown(listen_fd_, SHUT_RDWR);  // New clients are refused from now on.
  if (wake_fd_ >= 0) {
    const std::uint64_t one = 1;
    [[maybe_unused]] const ssize_t written = ::write(wake_fd_, &one, sizeof(one));
  }
  stopping_.notify_all();
}

void HttpServer::Wait() { stopping_.wait(false); }

void HttpServer::Loop() {
  epoll_event events[64];
  std::int64_t next_check_ms = NowMs() + kTickMs;
  while (!stopping_.load()) {
    const int count = ::epoll_wait(epoll_fd_, events, 64, kTickMs);
    for (int i = 0; i < count && !stopping_.load(); ++i) {
      void* const tag = events[i].data.ptr;
      if (tag == kListenTag) {
        AcceptAll();
      } else if (tag == this) {
        std::uint64_t value;
        [[maybe_unused]] const ssize_t got = ::read(wake_fd_, &value, sizeof(value));
      } else {
        // One event per descriptor and wait, and only a connection's own
        // event closes it here, so `connection` is alive.
        Connection* const connection = static_cast<Connection*>(tag);
        if (connection->phase == Connection::Phase::kHead)
          Receive(connection);
        else if (connection->phase == Connection::Phase::kSend) {
          connection->wait_writable = false;  // Writable (or failed: Send finds out).
          Send(connection);
        } else if (connection->phase == Connection::Phase::kDrain)
          Drain(connection);
      }
    }
    if (stopping_.load()) break;
    TakeFinishedWork();
    const std::int64_t now = NowMs();
    if (now >= next_check_ms) {
      next_check_ms = now + kTickMs;
      CloseExpired();
      if (!accepting_ && now >= resume_accept_ms_) {
        epoll_event listen_event{.events = EPOLLIN, .data = {.ptr = kListenTag}};
        accepting_ = ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, listen_fd_, &listen_event) == 0;
        if (!accepting_) resume_accept_ms_ = now + kAcceptPauseMs;
      }
    }
  }
  // Ends every connection. One a worker holds keeps its object and its
  // descriptor (the worker may be sending on it) until the workers are
  // joined; its client sees the end now.
  for (auto& [raw, connection] : connections_) {
    if (connection->fd < 0) continue;
    if (connection->phase == Connection::Phase::kWork) {
      ::shutdown(connection->fd, SHUT_RDWR);
      continue;
    }
    ::close(connection->fd);
    connection->fd = -1;
  }
}

void HttpServer::AcceptAll() {
  for (int i = 0; i < kAcceptsPerWake; ++i) {
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        // Out of descriptors: the backlog waits until some are given back,
        // instead of the loop spinning on a listener that stays readable.
        ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, listen_fd_, nullptr);
        accepting_ = false;
        resume_accept_ms_ = NowMs() + kAcceptPauseMs;
      }
      return;  // EAGAIN: no more waiting.
    }
    if (connections_.size() >= options_.max_connections) {
      static const std::string kBusy =
          Head(503, "text/plain; charset=utf-8", 13, "Retry-After: 1\r\n", false) +
          "server busy\r\n";
      [[maybe_unused]] const ssize_t sent =
          ::send(fd, kBusy.data(), kBusy.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      // What the client sent already is dropped, so that the close is not a
      // reset (which could lose the answer); more may come: best effort.
      ::shutdown(fd, SHUT_WR);
      char discard[4096];
      while (::recv(fd, discard, sizeof(discard), MSG_DONTWAIT) > 0) {
      }
      ::close(fd);
      continue;
    }
    SetNoDelay(fd);
    auto connection = std::make_unique<Connection>();
    connection->fd = fd;
    connection->deadline_ms = NowMs() + options_.idle_timeout_s * 1000LL;
    Connection* const raw = connection.get();
    connections_.emplace(raw, std::move(connection));
    Watch(raw, EPOLLIN);
  }
}

void HttpServer::Receive(Connection* connection) {
  char chunk[16 * 1024];
  while (connection->in.size() <= kMaxHeadBytes) {
    const ssize_t got = ::recv(connection->fd, chunk, sizeof(chunk), 0);
    if (got > 0) {
      connection->in.append(chunk, static_cast<std::size_t>(got));
      continue;
    }
    if (got < 0 && errno == EINTR) continue;
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (got < 0) {  // Reset or failed.
      Close(connection);
      return;
    }
    // The client will send no more (it may still read the answer); a
    // readable end would wake the loop forever, so it is no longer watched.
    connection->peer_closed = true;
    Unwatch(connection);
    break;
  }
  StartRequest(connection);
}

void HttpServer::StartRequest(Connection* connection) {
  std::string& in = connection->in;
  // Only the bytes after the last look can end the head (a client sending
  // one byte at a time must not cost the loop quadratic time).
  const std::size_t from = connection->scanned >= 2 ? connection->scanned - 2 : 0;
  std::size_t head_length = HttpHeadLength(std::string_view(in).substr(from));
  if (head_length == 0) {
    connection->scanned = in.size();
    if (in.size() > kMaxHeadBytes) {
      QueueError(connection, 431, "request head over 64 KiB\n");
    } else if (connection->peer_closed) {
      Close(connection);
    }
    return;
  }
  head_length += from;
  if (head_length > kMaxHeadBytes) {  // Whole, but larger than any client needs.
    QueueError(connection, 431, "request head over 64 KiB\n");
    return;
  }
  Result<HttpRequest> request = ParseHttpRequestHead(std::string_view(in).substr(0, head_length));
  in.erase(0, head_length);
  connection->scanned = 0;
  if (!request.ok()) {
    connection->request = HttpRequest();
    QueueError(connection, 400, std::string(request.status().message()) + "\n");
    return;
  }
  const std::optional<std::string_view> length = request->Header("content-length");
  if ((length.has_value() && *length != "0") || request->Header("transfer-encoding")) {
    connection->request = std::move(*request);
    QueueError(connection, 400, "requests with a body are not accepted\n");
    return;
  }
  connection->request = std::move(*request);
  connection->keep_alive = connection->request.KeepAlive() && !connection->peer_closed;
  connection->started = false;
  connection->close_after = false;
  Dispatch(connection);
}

void HttpServer::QueueError(Connection* connection, int status, std::string body) {
  Log(*connection, status, body.size());
  connection->out.clear();
  connection->out_sent = 0;
  Append(connection->out, Head(status, "text/plain; charset=utf-8", body.size(), "", false));
  Append(connection->out, body);
  connection->close_after = true;
  connection->reader.reset();
  connection->body_fd = -1;
  connection->phase = Connection::Phase::kSend;
  connection->deadline_ms = NowMs() + options_.send_timeout_s * 1000LL;
  Send(connection);
}

void HttpServer::Dispatch(Connection* connection) {
  Unwatch(connection);
  connection->phase = Connection::Phase::kWork;
  workers_->Submit([this, connection] { Work(connection); });
}

void HttpServer::TakeFinishedWork() {
  std::vector<Connection*> finished;
  {
    std::lock_guard lock(finished_mutex_);
    finished.swap(finished_);
  }
  for (Connection* connection : finished) {
    if (connection->broken) {  // Part of an answer is out: its length cannot be kept.
      Close(connection);
      continue;
    }
    connection->phase = Connection::Phase::kSend;
    connection->deadline_ms = NowMs() + options_.send_timeout_s * 1000LL;
    Send(connection);
  }
}

void HttpServer::Send(Connection* connection) {
  Bytes& out = connection->out;
  while (connection->out_sent < out.size()) {
    const ssize_t sent = ::send(connection->fd, out.data() + connection->out_sent,
                                out.size() - connection->out_sent, MSG_NOSIGNAL);
    if (sent > 0) {
      connection->out_sent += static_cast<std::size_t>(sent);
      connection->deadline_ms = NowMs() + options_.send_timeout_s * 1000LL;
      continue;
    }
    if (sent < 0 && errno == EINTR) continue;
    if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      Watch(connection, EPOLLOUT);
      return;
    }
    Close(connection);  // The client went away.
    return;
  }
  out.clear();
  connection->out_sent = 0;
  if (connection->reader != nullptr && !connection->close_after) {
    if (connection->wait_writable) {  // A worker filled the socket: wait for room.
      Watch(connection, EPOLLOUT);
      return;
    }
    Dispatch(connection);  // The next piece of the value.
    return;
  }
  connection->reader.reset();
  connection->body_fd = -1;
  if (connection->held) {
    // Open until the client closes it (Drain reads the end) or Stop; no deadline.
    connection->phase = Connection::Phase::kDrain;
    connection->deadline_ms = std::numeric_limits<std::int64_t>::max();
    connection->in.clear();
    if (connection->peer_closed) {
      Close(connection);
    } else {
      Watch(connection, EPOLLIN);
    }
    return;
  }
  if (connection->close_after || !connection->keep_alive) {
    // The answer is all sent: the client gets the end, and what it may
    // still send is dropped until it closes.
    ::shutdown(connection->fd, SHUT_WR);
    connection->phase = Connection::Phase::kDrain;
    connection->deadline_ms = NowMs() + kDrainMs;
    connection->in.clear();
    if (connection->peer_closed) {
      Close(connection);
    } else {
      Watch(connection, EPOLLIN);
    }
    return;
  }
  if (out.capacity() > kKeptBufferBytes) Bytes().swap(out);
  connection->phase = Connection::Phase::kHead;
  connection->deadline_ms = NowMs() + options_.idle_timeout_s * 1000LL;
  if (!connection->peer_closed) Watch(connection, EPOLLIN);
  StartRequest(connection);  // A pipelined request may be waiting already.
}

void HttpServer::Drain(Connection* connection) {
  char discard[16 * 1024];
  for (int i = 0; i < 16; ++i) {
    const ssize_t got = ::recv(connection->fd, discard, sizeof(discard), 0);
    if (got > 0) continue;
    if (got < 0 && errno == EINTR) continue;
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    break;  // The client closed (or reset): done.
  }
  Close(connection);  // Closed, or sending without end: the deadline is not waited for.
}

void HttpServer::CloseExpired() {
  const std::int64_t now = NowMs();
  std::vector<Connection*> expired;
  for (const auto& [raw, connection] : connections_) {
    if (connection->phase != Connection::Phase::kWork && now >= connection->deadline_ms) {
      expired.push_back(raw);
    }
  }
  for (Connection* connection : expired) Close(connection);
}

void HttpServer::Close(Connection* connection) {
  Unwatch(connection);
  ::close(connection->fd);
  connections_.erase(connection);
}

void HttpServer::Watch(Connection* connection, std::uint32_t events) {
  if (connection->watched && connection->events == events) return;
  epoll_event event{.events = events, .data = {.ptr = connection}};
  ::epoll_ctl(epoll_fd_, connection->watched ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, connection->fd,
              &event);
  connection->watched = true;
  connection->events = events;
}

void HttpServer::Unwatch(Connection* connection) {
  if (!connection->watched) return;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, connection->fd, nullptr);
  connection->watched = false;
}

void HttpServer::Work(Connection* connection) {
  if (!stopping_.load()) {
    if (!connection->started) {
      connection->started = true;
      Answer(connection);
    } else if (connection->body_fd < 0) {
      ReadPiece(connection);
    }
    if (connection->body_fd >= 0) SendFileBody(connection);
  }
  {
    std::lock_guard lock(finished_mutex_);
    finished_.push_back(connection);
  }
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t written = ::write(wake_fd_, &one, sizeof(one));
}

void HttpServer::Answer(Connection* connection) {
  const HttpRequest& request = connection->request;
  const bool head_only = request.method == "HEAD";
  Bytes& out = connection->out;
  out.clear();
  connection->out_sent = 0;
  const auto plain = [&](int status, const std::string& body, std::string_view extra) {
    Log(*connection, status, body.size());
    Append(out,
           Head(status, "text/plain; charset=utf-8", body.size(), extra, connection->keep_alive));
    if (!head_only) Append(out, body);  // A HEAD answer has no body, errors' neither.
  };
  if (request.method == "OPTIONS") {
    Log(*connection, 204, 0);
    Append(out, Head(204, "text/plain", 0,
                     "Access-Control-Allow-Methods: GET, HEAD, OPTIONS\r\n"
                     "Access-Control-Allow-Headers: Range, Content-Type, Cache-Control\r\n"
                     "Access-Control-Max-Age: 86400\r\n",
                     connection->keep_alive));
    return;
  }
  if (request.method != "GET" && !head_only) {
    return plain(405, "GET, HEAD and OPTIONS only\n", "Allow: GET, HEAD, OPTIONS\r\n");
  }
  // Every refusal reads as an absent key, and names only what was asked.
  const std::string key = KeyOfPath(request.path);
  const std::string not_found = "not found: " + QuoteKey(key) + "\n";
  if (!head_only && !options_.quiet_event_stream_key.empty() &&
      key == options_.quiet_event_stream_key) {
    Log(*connection, 200, 0);
    Append(out, "HTTP/1.1 200 OK\r\n" + std::string(kCommonHeaders) +
                    "Cache-Control: no-cache\r\nContent-Type: text/event-stream\r\n"
                    "Connection: close\r\n\r\n: no events\n\n");
    connection->held = true;
    return;
  }
  if (key.empty() || !ValidateKey(key).ok() ||
      (!options_.serve_dot_files && HasHiddenSegment(key))) {
    return plain(404, not_found, "");
  }
  Result<std::unique_ptr<ValueReader>> reader = store_->OpenReader(key);
  if (!reader.ok()) {
    const StatusCode code = reader.status().code();
    if (code == StatusCode::kNotFound || code == StatusCode::kInvalidArgument) {
      return plain(404, not_found, "");
    }
    // The store's message names paths on this machine: for the log only.
    const std::string body = "cannot read " + QuoteKey(key) + "\n";
    Log(*connection, 500, body.size(), reader.status().ToString());
    Append(out, Head(500, "text/plain; charset=utf-8", body.size(), "", connection->keep_alive));
    if (!head_only) Append(out, body);
    return;
  }
  if (*reader == nullptr) return plain(404, not_found, "");
  const std::uint64_t total = (*reader)->size();
  HttpByteRange range{0, total == 0 ? 0 : total - 1};
  int status = 200;
  // The version's ETag: a client reading a value in several ranges sends
  // it as If-Match, and a value replaced meanwhile answers 412, never bytes
  // of another version at the offsets it knew.
  const std::string etag = ETagOf(**reader);
  std::string extra = etag.empty() ? "" : "ETag: " + etag + "\r\n";
  if (const std::optional<std::string_view> match = request.Header("if-match");
      match && !IfMatchHolds(*match, etag)) {
    return plain(412, "changed: " + QuoteKey(key) + "\n", extra);
  }
  if (const std::optional<std::string_view> header = request.Header("range")) {
    switch (ParseHttpRange(*header, total, &range)) {
      case RangeOutcome::kWhole:
        range = {0, total == 0 ? 0 : total - 1};
        break;
      case RangeOutcome::kPartial:
        status = 206;
        extra += "Content-Range: bytes " + std::to_string(range.first) + "-" +
                 std::to_string(range.last) + "/" + std::to_string(total) + "\r\n";
        break;
      case RangeOutcome::kUnsatisfiable:
        return plain(416, "range not satisfiable\n",
                     "Content-Range: bytes */" + std::to_string(total) + "\r\n");
    }
  }
  const std::uint64_t length = total == 0 ? 0 : range.last - range.first + 1;
  Log(*connection, status, length);
  Append(out, Head(status, ContentType(key), length, extra, connection->keep_alive));
  if (head_only || length == 0) return;
  connection->reader = std::move(*reader);
  connection->next = range.first;
  connection->end = range.first + length;
  connection->body_fd = FileDescriptorOf(*connection->reader);
  if (connection->body_fd < 0) ReadPiece(connection);  // A file is sent by SendFileBody.
}

void HttpServer::SendFileBody(Connection* connection) {
  const auto failed = [&](ssize_t result) {
    if (result < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      connection->wait_writable = true;  // The loop waits for room, then hands it back.
    } else {
      connection->broken = true;  // The client went away, or the file shrank (0).
    }
  };
  // The head (or what is left of it) first, held back to go out with the
  // first bytes of the file.
  Bytes& out = connection->out;
  while (connection->out_sent < out.size()) {
    const ssize_t sent =
        ::send(connection->fd, out.data() + connection->out_sent, out.size() - connection->out_sent,
               MSG_NOSIGNAL | MSG_DONTWAIT | MSG_MORE);
    if (sent > 0) {
      connection->out_sent += static_cast<std::size_t>(sent);
    } else if (!(sent < 0 && errno == EINTR)) {
      return failed(sent);
    }
  }
  // Then the file, from the page cache to the socket with no copy here, at
  // most a piece a turn, so that a fast client of a large file does not
  // keep this worker from the others.
  std::uint64_t turn = 0;
  while (connection->next < connection->end && turn < kPieceBytes) {
    off_t offset = static_cast<off_t>(connection->next);
    const std::size_t count =
        static_cast<std::size_t>(std::min(kPieceBytes - turn, connection->end - connection->next));
    const ssize_t sent = ::sendfile(connection->fd, connection->body_fd, &offset, count);
    if (sent > 0) {
      connection->next += static_cast<std::uint64_t>(sent);
      turn += static_cast<std::uint64_t>(sent);
    } else if (sent < 0 && (errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP)) {
      // A file system that cannot sendfile: the rest goes through memory,
      // a piece at a time, after what is left of the head.
      connection->body_fd = -1;
      ReadPiece(connection);
      return;
    } else if (!(sent < 0 && errno == EINTR)) {
      return failed(sent);
    }
  }
  if (connection->next < connection->end) return;  // The next turn.
  connection->reader.reset();
  connection->body_fd = -1;
}

void HttpServer::ReadPiece(Connection* connection) {
  if (connection->reader == nullptr) return;
  const std::uint64_t piece = std::min(kPieceBytes, connection->end - connection->next);
  Bytes& out = connection->out;
  const std::size_t at = out.size();
  out.resize(at + piece);
  const ByteRange range = ByteRange::Span(connection->next, piece);
  const Status status = connection->reader->ReadInto(std::span<const ByteRange>(&range, 1),
                                                     MutableByteView(out.data() + at, piece));
  if (!status.ok()) {
    // The value changed or vanished mid-answer: the length sent cannot be
    // kept, so what was read goes out and the connection closes.
    out.resize(at);
    connection->close_after = true;
    connection->reader.reset();
    return;
  }
  connection->next += piece;
  if (connection->next >= connection->end) connection->reader.reset();
}

void HttpServer::Log(const Connection& connection, int status, std::uint64_t bytes,
                     std::string_view detail) const {
  if (options_.log == nullptr) return;
  const HttpRequest& request = connection.request;
  std::string line = Printable(request.method) + " " + Printable(request.path) + " " +
                     std::to_string(status) + " " + std::to_string(bytes);
  if (!detail.empty()) line += " " + Printable(detail);
  static std::mutex log_mutex;
  std::lock_guard lock(log_mutex);
  std::fprintf(options_.log, "%s\n", line.c_str());
  std::fflush(options_.log);
}

}  // namespace chunkwise::store
