// HttpServer: a store's values served read-only over HTTP/1.1, as web
// viewers (neuroglancer) read them.
//
// GET and HEAD of "/<key>" answer the value of `key` (200), one byte range
// of it for a "Range: bytes=..." header (206 with Content-Range; 416 past
// the end), or 404 for an absent or invalid key. Every answer carries
// permissive CORS headers (any origin; Range may be sent; Content-Range and
// Content-Length may be read) and OPTIONS answers a preflight, because the
// viewer runs on another origin. Connections are kept alive; each worker
// thread serves one connection at a time. Large values are sent in pieces,
// so memory stays bounded whatever is asked.
//
// Thread safety: Stop may be called from any thread (not from a signal
// handler: use RequestStopFromSignal there).
#ifndef CHUNKWISE_STORE_HTTP_SERVER_H_
#define CHUNKWISE_STORE_HTTP_SERVER_H_

#include <atomic>
#include <cstdio>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "chunkwise/core/result.h"
#include "chunkwise/store/http_request.h"
#include "chunkwise/store/store.h"

namespace chunkwise::store {

struct HttpServerOptions {
  std::string host = "127.0.0.1";  // The address to listen on (numeric IPv4).
  int port = 0;                    // 0: any free port.
  std::size_t threads = 16;        // Connections served at once.
  int idle_timeout_s = 10;         // A kept-alive connection idle this long is closed.
  std::FILE* log = nullptr;        // One line per request when set (not owned).
};

class HttpServer {
 public:
  // Listens and starts the workers. IOError naming the address if it cannot bind.
  static Result<std::unique_ptr<HttpServer>> Start(std::shared_ptr<const Store> store,
                                                   HttpServerOptions options);
  // Stops (as Stop) and joins the workers.
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // The port listened on (the one chosen when options.port was 0).
  int port() const { return port_; }
  // "http://<host>:<port>/".
  std::string url() const;
  // Stops accepting, and ends every open connection (an answer being sent
  // is cut short).
  void Stop();
  // Blocks until Stop is called.
  void Wait();

 private:
  HttpServer(std::shared_ptr<const Store> store, HttpServerOptions options, int listen_fd,
             int port);
  void WorkerLoop();
  // Answers the requests of one connection until it closes.
  void Serve(int connection);
  // Sends the answer to one request; false if the connection must close.
  bool Respond(int connection, const HttpRequest& request, bool keep_alive);

  std::shared_ptr<const Store> store_;
  HttpServerOptions options_;
  int listen_fd_;
  int port_;
  std::atomic<bool> stopping_{false};
  std::mutex connections_mutex_;
  std::set<int> connections_;  // Open connections; guarded by connections_mutex_.
  std::vector<std::thread> workers_;
};

}  // namespace chunkwise::store

#endif  // CHUNKWISE_STORE_HTTP_SERVER_H_
