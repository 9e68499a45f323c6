// HttpServer: a store's values served read-only over HTTP/1.1, as web
// viewers (neuroglancer) read them.
//
// GET and HEAD of "/<key>" answer the value of `key` (200), one byte range
// of it for a "Range: bytes=..." header (206 with Content-Range; 416 past
// the end), or 404 for an absent or invalid key. Every answer carries
// permissive CORS headers (any origin; Range may be sent; Content-Range and
// Content-Length may be read) and OPTIONS answers a preflight, because the
// viewer runs on another origin. Connections are kept alive.
//
// What a client may not do (docs/reliability.md, "The server"):
// - reach outside the store: keys are validated (store/key.h), so "..",
//   "%2e%2e" and absolute paths answer 404; a FileStore is served confined
//   to its root (FileStoreOptions::confine_to_root), so a symbolic link to
//   a file outside answers 404 as an absent key does; keys with a segment
//   that starts with "." answer 404 too (".git", ".env", a writer's
//   temporary files), except zarr v2's .zarray, .zattrs, .zgroup and
//   .zmetadata, unless HttpServerOptions::serve_dot_files.
// - learn where the store lies: error bodies name the key, never a path;
//   the store's own message goes to the log.
// - hold the server: one event-loop thread receives request heads and sends
//   answers on non-blocking sockets for every connection; the worker threads
//   only read the store, one piece (1 MiB) of an answer at a time. A value
//   that is a FileStore's file is not read into memory: a worker sends it
//   from the file to the socket with sendfile(2) (no copy; the disk is read
//   on the worker, never on the loop), a piece a turn, and hands the
//   connection back to the loop when the socket is full. A slow or idle
//   client therefore holds a connection slot and at most one piece of
//   memory, never a worker. A connection that has not sent a whole request
//   head within idle_timeout_s, or takes no bytes of an answer for
//   send_timeout_s, is closed; past max_connections a new one is answered
//   503 and closed.
//
// Thread safety: Stop may be called from any thread (not from a signal
// handler).
#ifndef CHUNKWISE_STORE_HTTP_SERVER_H_
#define CHUNKWISE_STORE_HTTP_SERVER_H_

#include <atomic>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "chunkwise/core/result.h"
#include "chunkwise/core/thread_pool.h"
#include "chunkwise/store/store.h"
#include "store/http_request.h"

namespace chunkwise::store {

// More workers than this serve no more clients (connections wait on none);
// a larger count is a mistake that would only spend memory on stacks.
inline constexpr std::size_t kMaxHttpServerThreads = 1024;
// File descriptors and buffers are per connection: this bounds both.
inline constexpr std::size_t kMaxHttpServerConnections = 65536;

struct HttpServerOptions {
  std::string host = "127.0.0.1";  // The address to listen on (numeric IPv4).
  int port = 0;                    // 0: any free port.
  // Threads reading the store for answers: 1..kMaxHttpServerThreads (0: one per core).
  std::size_t threads = 16;
  // Connections open at once: 1..kMaxHttpServerConnections. Each holds at
  // most one 1 MiB piece of an answer in memory.
  std::size_t max_connections = 512;
  // A connection that has not sent a whole request head this long after it
  // opened, or after its last answer, is closed (idle or sending slowly).
  int idle_timeout_s = 10;
  // A connection that takes none of an answer's bytes for this long is closed.
  int send_timeout_s = 30;
  // Serve keys with a segment starting with "." (see above).
  bool serve_dot_files = false;
  // When set, a GET of this key answers an event stream (text/event-stream)
  // that sends no event and stays open until the client closes it or Stop:
  // the state channel the neuroglancer Python package's client opens, which
  // would otherwise retry and say it is disconnected (`chunkwise view`).
  std::string quiet_event_stream_key = "";
  std::FILE* log = nullptr;  // One line per request when set (not owned).
};

class HttpServer {
 public:
  // Listens and starts the loop and the workers. InvalidArgument for options
  // out of their ranges (naming the option and the limit), IOError naming the
  // address if it cannot bind, or if the system refuses the threads.
  static Result<std::unique_ptr<HttpServer>> Start(std::shared_ptr<const Store> store,
                                                   HttpServerOptions options);
  // Stops (as Stop) and joins the threads.
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // The port listened on (the one chosen when options.port was 0).
  int port() const { return port_; }
  // "http://<host>:<port>/".
  std::string url() const;
  // Stops accepting, and ends every open connection (an answer being sent
  // is cut short). Returns at once; the destructor waits for the threads.
  void Stop();
  // Blocks until Stop is called.
  void Wait();

 private:
  struct Connection;  // One client's socket, buffers and answer in progress.

  HttpServer(std::shared_ptr<const Store> store, HttpServerOptions options, int listen_fd,
             int port);
  Status StartThreads();

  // The event loop and its steps (loop thread only).
  void Loop();
  void AcceptAll();
  void Receive(Connection* connection);
  void StartRequest(Connection* connection);
  void Send(Connection* connection);
  void Drain(Connection* connection);
  void TakeFinishedWork();
  void CloseExpired();
  void Close(Connection* connection);
  void Watch(Connection* connection, std::uint32_t events);
  void Unwatch(Connection* connection);
  void Dispatch(Connection* connection);
  void QueueError(Connection* connection, int status, std::string body);

  // A worker's part: the answer's head and its first piece, or the next piece.
  void Work(Connection* connection);
  void Answer(Connection* connection);
  void ReadPiece(Connection* connection);
  // A file's answer (the value is a FileStore's file): what is left of the
  // head, then the next piece of the file by sendfile, on the non-blocking
  // socket; a full socket goes back to the loop to wait for room.
  void SendFileBody(Connection* connection);
  // One line per answer on options_.log: method, path, status, bytes, and
  // `detail` (a store's error) when given.
  void Log(const Connection& connection, int status, std::uint64_t bytes,
           std::string_view detail = {}) const;

  std::shared_ptr<const Store> store_;
  HttpServerOptions options_;
  int listen_fd_;
  int port_;
  int epoll_fd_ = -1;
  int wake_fd_ = -1;  // An eventfd: Stop and finished work wake the loop.
  std::atomic<bool> stopping_{false};
  std::thread loop_;
  std::shared_ptr<core::ThreadPool> workers_;
  // Every open connection; the loop's alone, except that a worker has the one
  // it was handed until it puts it in finished_.
  std::unordered_map<Connection*, std::unique_ptr<Connection>> connections_;
  std::mutex finished_mutex_;
  std::vector<Connection*> finished_;  // Work done, for the loop; guarded by finished_mutex_.
  bool accepting_ = true;              // False while accept is paused (out of descriptors).
  std::int64_t resume_accept_ms_ = 0;  // When to try again, steady-clock milliseconds.
};

}  // namespace chunkwise::store

#endif  // CHUNKWISE_STORE_HTTP_SERVER_H_
