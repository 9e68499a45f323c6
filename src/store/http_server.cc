#include "chunkwise/store/http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>

#include "chunkwise/core/thread_pool.h"
#include "chunkwise/store/http_request.h"
#include "chunkwise/store/key.h"

namespace chunkwise::store {
namespace {

constexpr std::size_t kMaxHeadBytes = 64 * 1024;
constexpr std::uint64_t kSendPieceBytes = 4 << 20;

// Headers every answer carries: the viewer reads from another origin.
constexpr std::string_view kCorsHeaders =
    "Access-Control-Allow-Origin: *\r\n"
    "Access-Control-Expose-Headers: Content-Range, Content-Length, Accept-Ranges, "
    "Content-Type\r\n";

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
    case 416:
      return "Range Not Satisfiable";
    case 431:
      return "Request Header Fields Too Large";
    default:
      return "Internal Server Error";
  }
}

std::string_view ContentType(std::string_view key) {
  const std::string_view name = key.substr(key.rfind('/') + 1);
  const auto ends = [&](std::string_view suffix) { return name.ends_with(suffix); };
  if (name == "info" || name == "zarr.json" || name == ".zarray" || name == ".zattrs" ||
      name == ".zgroup" || name == "attributes.json" || ends(".json")) {
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

// Writes all of `data`; false if the peer went away.
bool SendAll(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t sent = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
    if (sent <= 0) return false;
    data.remove_prefix(static_cast<std::size_t>(sent));
  }
  return true;
}

struct Answer {
  int status = 200;
  std::string extra_headers;
  std::string body;  // For short answers (errors); values are sent from the store.
};

std::string Head(int status, std::string_view content_type, std::uint64_t length,
                 const std::string& extra, bool keep_alive) {
  std::string head =
      "HTTP/1.1 " + std::to_string(status) + " " + std::string(ReasonPhrase(status)) + "\r\n";
  head += kCorsHeaders;
  head += "Accept-Ranges: bytes\r\nCache-Control: no-cache\r\n";
  head += "Content-Type: " + std::string(content_type) + "\r\n";
  head += "Content-Length: " + std::to_string(length) + "\r\n";
  head += extra;
  head += keep_alive ? "Connection: keep-alive\r\n" : "Connection: close\r\n";
  head += "\r\n";
  return head;
}

}  // namespace

HttpServer::HttpServer(std::shared_ptr<const Store> store, HttpServerOptions options, int listen_fd,
                       int port)
    : store_(std::move(store)), options_(std::move(options)), listen_fd_(listen_fd), port_(port) {}

Result<std::unique_ptr<HttpServer>> HttpServer::Start(std::shared_ptr<const Store> store,
                                                      HttpServerOptions options) {
  const std::string where = options.host + ":" + std::to_string(options.port);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(options.port));
  if (options.port < 0 || options.port > 65535 ||
      ::inet_pton(AF_INET, options.host.c_str(), &address.sin_addr) != 1) {
    return Status::InvalidArgument("http server: " + where + " is not an IPv4 address and port");
  }
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Status::IOError("http server: socket: " + std::string(std::strerror(errno)));
  const int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0 ||
      ::listen(fd, 128) != 0) {
    const std::string error = std::strerror(errno);
    ::close(fd);
    return Status::IOError("http server: cannot listen on " + where + ": " + error);
  }
  socklen_t length = sizeof(address);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  const int port = ntohs(address.sin_port);
  std::unique_ptr<HttpServer> server(
      new HttpServer(std::move(store), std::move(options), fd, port));
  const std::size_t threads = std::max<std::size_t>(1, server->options_.threads);
  for (std::size_t i = 0; i < threads; ++i) {
    // A refused thread is an error; the destructor stops and joins the others.
    CHUNKWISE_ASSIGN_OR_RETURN(
        std::thread worker,
        core::StartThread([raw = server.get()] { raw->WorkerLoop(); }, "the HTTP server"));
    server->workers_.push_back(std::move(worker));
  }
  return server;
}

HttpServer::~HttpServer() {
  Stop();
  for (std::thread& worker : workers_) worker.join();
  ::close(listen_fd_);
}

std::string HttpServer::url() const {
  return "http://" + options_.host + ":" + std::to_string(port_) + "/";
}

void HttpServer::Stop() {
  if (stopping_.exchange(true)) return;
  // Wakes the workers blocked in accept, and those waiting on kept-alive
  // connections (a client may hold one open for long).
  ::shutdown(listen_fd_, SHUT_RDWR);
  {
    std::lock_guard lock(connections_mutex_);
    for (const int connection : connections_) ::shutdown(connection, SHUT_RDWR);
  }
  stopping_.notify_all();
}

void HttpServer::Wait() { stopping_.wait(false); }

void HttpServer::WorkerLoop() {
  while (!stopping_.load()) {
    const int connection = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (connection < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (stopping_.load()) return;
      ::usleep(10000);  // EMFILE and the like: back off instead of spinning.
      continue;
    }
    timeval timeout{options_.idle_timeout_s, 0};
    ::setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
    timeval send_timeout{60, 0};
    ::setsockopt(connection, SOL_SOCKET, SO_SNDTIMEO, &send_timeout, sizeof(send_timeout));
    const int one = 1;
    ::setsockopt(connection, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    {
      std::lock_guard lock(connections_mutex_);
      connections_.insert(connection);
    }
    if (!stopping_.load()) Serve(connection);
    {
      std::lock_guard lock(connections_mutex_);
      connections_.erase(connection);
    }
    ::close(connection);
  }
}

void HttpServer::Serve(int connection) {
  std::string buffer;
  char chunk[16 * 1024];
  while (!stopping_.load()) {
    std::size_t head_length = HttpHeadLength(buffer);
    while (head_length == 0) {
      if (buffer.size() > kMaxHeadBytes) {
        SendAll(connection, Head(431, "text/plain", 0, "", false));
        return;
      }
      const ssize_t got = ::recv(connection, chunk, sizeof(chunk), 0);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) return;  // Closed, idle too long, or failed.
      buffer.append(chunk, static_cast<std::size_t>(got));
      head_length = HttpHeadLength(buffer);
    }
    Result<HttpRequest> request =
        ParseHttpRequestHead(std::string_view(buffer).substr(0, head_length));
    buffer.erase(0, head_length);
    if (!request.ok()) {
      const std::string body = std::string(request.status().message()) + "\n";
      SendAll(connection, Head(400, "text/plain; charset=utf-8", body.size(), "", false) + body);
      return;
    }
    const bool keep_alive = request->KeepAlive();
    const std::optional<std::string_view> length = request->Header("content-length");
    if ((length.has_value() && *length != "0") || request->Header("transfer-encoding")) {
      SendAll(connection, Head(400, "text/plain", 0, "", false));  // No bodies are read.
      return;
    }
    if (!Respond(connection, *request, keep_alive) || !keep_alive) return;
  }
}

bool HttpServer::Respond(int connection, const HttpRequest& request, bool keep_alive) {
  const auto log = [&](int status, std::uint64_t bytes) {
    if (options_.log == nullptr) return;
    static std::mutex log_mutex;
    std::lock_guard lock(log_mutex);
    std::fprintf(options_.log, "%s %s %d %llu\n", request.method.c_str(), request.path.c_str(),
                 status, static_cast<unsigned long long>(bytes));
    std::fflush(options_.log);
  };
  const auto plain = [&](int status, const std::string& body, const std::string& extra) {
    log(status, body.size());
    return SendAll(
        connection,
        Head(status, "text/plain; charset=utf-8", body.size(), extra, keep_alive) + body);
  };
  if (request.method == "OPTIONS") {
    log(204, 0);
    return SendAll(connection,
                   Head(204, "text/plain", 0,
                        "Access-Control-Allow-Methods: GET, HEAD, OPTIONS\r\n"
                        "Access-Control-Allow-Headers: Range, Content-Type, Cache-Control\r\n"
                        "Access-Control-Max-Age: 86400\r\n",
                        keep_alive));
  }
  const bool head_only = request.method == "HEAD";
  if (request.method != "GET" && !head_only) {
    return plain(405, "GET, HEAD and OPTIONS only\n", "Allow: GET, HEAD, OPTIONS\r\n");
  }
  // "a//b" names "a/b": clients that join URLs loosely send doubled slashes.
  std::string key;
  for (const char c : std::string_view(request.path).substr(1)) {
    if (c != '/' || (!key.empty() && key.back() != '/')) key += c;
  }
  if (key.empty() || !ValidateKey(key).ok()) return plain(404, "not found\n", "");
  Result<std::optional<std::uint64_t>> size = store_->Size(key);
  if (!size.ok()) return plain(500, std::string(size.status().message()) + "\n", "");
  if (!size->has_value()) return plain(404, "not found\n", "");
  const std::uint64_t total = **size;
  HttpByteRange range{0, total == 0 ? 0 : total - 1};
  int status = 200;
  std::string extra;
  if (const std::optional<std::string_view> header = request.Header("range")) {
    switch (ParseHttpRange(*header, total, &range)) {
      case RangeOutcome::kWhole:
        range = {0, total == 0 ? 0 : total - 1};
        break;
      case RangeOutcome::kPartial:
        status = 206;
        extra = "Content-Range: bytes " + std::to_string(range.first) + "-" +
                std::to_string(range.last) + "/" + std::to_string(total) + "\r\n";
        break;
      case RangeOutcome::kUnsatisfiable:
        return plain(416, "range not satisfiable\n",
                     "Content-Range: bytes */" + std::to_string(total) + "\r\n");
    }
  }
  const std::uint64_t length = total == 0 ? 0 : range.last - range.first + 1;
  log(status, length);
  if (!SendAll(connection, Head(status, ContentType(key), length, extra, keep_alive))) return false;
  if (head_only) return true;
  for (std::uint64_t offset = range.first; offset < range.first + length;) {
    const std::uint64_t piece = std::min(kSendPieceBytes, range.first + length - offset);
    Result<std::optional<Bytes>> bytes = store_->GetRange(key, ByteRange::Span(offset, piece));
    // The value changed or vanished mid-answer: the length sent cannot be
    // kept, so the connection is dropped.
    if (!bytes.ok() || !bytes->has_value() || (*bytes)->size() != piece) return false;
    if (!SendAll(connection, AsChars(**bytes))) return false;
    offset += piece;
  }
  return true;
}

}  // namespace chunkwise::store
