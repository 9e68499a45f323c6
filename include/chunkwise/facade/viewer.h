// `chunkwise view`: data and a neuroglancer client served together from one
// address on this machine, and the link that opens the data in it.
//
// One HttpServer (store/http_server.h) serves, read-only:
//   /v/chunkwise/...  the neuroglancer client's static files (index.html,
//                     its scripts and wasm), from a folder on disk;
//   /data/<i>/...     the i-th URL given (a path, or an s3://, http:// ...
//                     URL proxied through this server);
//   /events/chunkwise a quiet event stream for the client's state channel.
// The client is the one bundled in the PyPI `neuroglancer` package (its
// "static/client" folder), which reads the viewer state from the link's
// "#!" fragment when it is given one; it finds its way home through the
// "/v/<token>/" path it is served under. The state is BuildViewerState's
// (viewer_state.h), with the data's URLs on this server. Nothing is fetched
// from elsewhere: the link works without a network.
#ifndef CHUNKWISE_FACADE_VIEWER_H_
#define CHUNKWISE_FACADE_VIEWER_H_

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/facade/call_options.h"
#include "chunkwise/facade/context.h"
#include "chunkwise/facade/viewer_state.h"

namespace chunkwise::store {
class HttpServer;
}  // namespace chunkwise::store

namespace chunkwise {

struct ViewerOptions {
  // The neuroglancer client's folder (holding index.html); see
  // FindNeuroglancerClient for the usual one.
  std::string client_dir;
  std::string host = "127.0.0.1";  // The address to listen on (numeric IPv4).
  int port = 0;                    // 0: any free port.
  std::size_t threads = 16;        // Connections served at once.
  std::FILE* log = nullptr;        // One line per request when set (not owned).
  ViewerStateOptions state;
};

class Viewer {
 public:
  // Serves `urls` and the client and builds the state. NotFound naming the
  // client folder when it holds no index.html, or naming a URL that does not
  // exist or holds nothing neuroglancer opens; IOError naming the address
  // when it cannot bind; BuildViewerState's errors.
  static Result<std::unique_ptr<Viewer>> Start(const Context& context,
                                               std::span<const std::string> urls,
                                               const ViewerOptions& options,
                                               const CallOptions& call = {});
  ~Viewer();

  // "http://HOST:PORT/".
  std::string url() const;
  // The client's page with the state in its fragment: what a browser opens.
  const std::string& link() const { return link_; }
  const nlohmann::json& state() const { return state_.state; }
  const std::vector<ViewerLayer>& layers() const { return state_.layers; }
  // Stops serving and ends open connections; not from a signal handler.
  void Stop();

 private:
  Viewer() = default;

  std::unique_ptr<store::HttpServer> server_;
  ViewerStateResult state_;
  std::string link_;
};

// The neuroglancer client folder to serve: `given` when not empty, else the
// environment's CHUNKWISE_NEUROGLANCER_CLIENT, else the "static/client"
// folder of the `neuroglancer` package that `python3` imports (the python3
// beside this program first, as in a venv, then the one on PATH). NotFound,
// saying how to get one (pip install neuroglancer, or the environment
// variable), when none holds an index.html.
Result<std::string> FindNeuroglancerClient(std::string_view given);

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_VIEWER_H_
