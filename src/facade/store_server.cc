#include "chunkwise/facade/store_server.h"

#include <algorithm>

#include "formats/neuroglancer/sources.h"
#include "store/http_server.h"

namespace chunkwise {
namespace {

namespace ng = formats::neuroglancer;

std::string KindName(ng::SourceKind kind) {
  switch (kind) {
    case ng::SourceKind::kPrecomputed:
      return "precomputed";
    case ng::SourceKind::kZarr3:
      return "zarr v3";
    case ng::SourceKind::kZarr2:
      return "zarr v2";
    default:
      return "Arrow IPC shards";
  }
}

}  // namespace

Result<std::unique_ptr<StoreServer>> StoreServer::Start(const Context& context,
                                                        std::string_view url,
                                                        const StoreServerOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, url, context.store_options(false)));
  CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<ng::Source> found, ng::FindSources(*store, ""));
  std::unique_ptr<StoreServer> server(new StoreServer());
  CHUNKWISE_ASSIGN_OR_RETURN(server->server_,
                             store::HttpServer::Start(store, {.host = options.host,
                                                              .port = options.port,
                                                              .threads = options.threads,
                                                              .log = options.log}));
  const std::string base = server->server_->url();
  for (const ng::Source& source : found) {
    server->sources_.push_back(
        {.url = source.openable() ? ng::SourceUrl(source, base) : base + source.prefix,
         .kind = KindName(source.kind),
         .layer_type = source.openable() ? source.layer_type : "",
         .openable = source.openable()});
  }
  const bool any = std::any_of(found.begin(), found.end(),
                               [](const ng::Source& source) { return source.openable(); });
  if (any) server->viewer_state_ = ng::ViewerState(found, base);
  return server;
}

StoreServer::~StoreServer() = default;

std::string StoreServer::url() const { return server_->url(); }

std::string StoreServer::ViewerLink(std::string_view client) const {
  if (viewer_state_.is_null()) return "";
  return ng::ViewerLink(client, viewer_state_);
}

void StoreServer::Stop() { server_->Stop(); }

}  // namespace chunkwise
