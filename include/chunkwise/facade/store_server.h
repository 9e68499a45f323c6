// A store served over HTTP to web viewers (`chunkwise serve`): the store's
// values read-only with Range, HEAD and CORS (store/http_server.h), and
// what neuroglancer opens in it, with the link that opens it.
#ifndef CHUNKWISE_FACADE_STORE_SERVER_H_
#define CHUNKWISE_FACADE_STORE_SERVER_H_

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/facade/context.h"

namespace chunkwise::store {
class HttpServer;
}  // namespace chunkwise::store

namespace chunkwise {

struct StoreServerOptions {
  std::string host = "127.0.0.1";  // The address to listen on (numeric IPv4).
  int port = 8000;                 // 0: any free port.
  std::size_t threads = 16;        // Connections served at once.
  std::FILE* log = nullptr;        // One line per request when set (not owned).
};

// Something a viewer may be pointed at inside the served store.
struct ServedSource {
  std::string url;         // Its URL on the server, as neuroglancer takes it.
  std::string kind;        // "precomputed", "zarr v3", "zarr v2" or "Arrow IPC shards".
  std::string layer_type;  // "segmentation" or "image"; empty when not openable.
  bool openable = false;   // neuroglancer opens it (Arrow shards it does not).
};

class StoreServer {
 public:
  // Opens the store at `url`, finds its sources and starts serving it.
  // IOError naming the address when it cannot bind; OpenStore's errors.
  static Result<std::unique_ptr<StoreServer>> Start(const Context& context, std::string_view url,
                                                    const StoreServerOptions& options = {});
  ~StoreServer();

  // "http://HOST:PORT/".
  std::string url() const;
  const std::vector<ServedSource>& sources() const { return sources_; }
  // The link that opens every openable source in `client` (a neuroglancer
  // client's URL); empty when there is none.
  std::string ViewerLink(std::string_view client) const;
  // Stops accepting and ends open connections; not from a signal handler.
  void Stop();

 private:
  StoreServer() = default;

  std::unique_ptr<store::HttpServer> server_;
  std::vector<ServedSource> sources_;
  nlohmann::json viewer_state_;  // neuroglancer's state; null when nothing opens.
};

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_STORE_SERVER_H_
