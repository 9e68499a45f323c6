// chunkwise serve: any of our outputs over HTTP (Range, HEAD, CORS) and the
// neuroglancer link that opens what neuroglancer can open.
#include <csignal>
#include <cstdio>

#include "chunkwise/formats/neuroglancer/sources.h"
#include "chunkwise/store/http_server.h"
#include "cli/command.h"
#include "cli/vocabulary.h"

namespace chunkwise::cli {
namespace {

namespace ng = formats::neuroglancer;

struct ServeOptions {
  std::string path;
  std::string host = "127.0.0.1";
  std::string client = "https://neuroglancer-demo.appspot.com/";
  int port = 8000;
  std::size_t threads = 16;
  bool log = false;
};

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

Status ServeCommand(const CommandContext& context, const ServeOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(auto store, OpenStoreFor(context, options.path));
  CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<ng::Source> sources, ng::FindSources(*store, ""));
  // The workers inherit this mask, so SIGINT and SIGTERM reach sigwait below.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  Result<std::unique_ptr<store::HttpServer>> server =
      store::HttpServer::Start(store, {.host = options.host,
                                       .port = options.port,
                                       .threads = options.threads,
                                       .log = options.log ? stderr : nullptr});
  if (!server.ok() && server.status().message().find("cannot listen") != std::string_view::npos) {
    return Status(server.status().code(),
                  std::string(server.status().message()) + " (--port picks another port)");
  }
  if (!server.ok()) return server.status();  // The CLI's flag hints name the flag at fault.
  const std::string base = (*server)->url();
  // The first line names the URL even with --quiet: scripts read the port from it.
  std::printf("serving %s at %s\n", options.path.c_str(), base.c_str());
  for (const ng::Source& source : sources) {
    if (source.openable()) {
      std::printf("  %s (%s, %s)\n", ng::SourceUrl(source, base).c_str(),
                  KindName(source.kind).c_str(), source.layer_type.c_str());
    } else {
      std::printf(
          "  %s%s: %s; neuroglancer does not open these (chunkwise dvid to-precomputed "
          "converts them)\n",
          base.c_str(), source.prefix.c_str(), KindName(source.kind).c_str());
    }
  }
  const bool any =
      std::any_of(sources.begin(), sources.end(), [](const ng::Source& s) { return s.openable(); });
  if (any && !context.quiet) {
    std::printf("neuroglancer: %s\n",
                ng::ViewerLink(options.client, ng::ViewerState(sources, base)).c_str());
  } else if (!any) {
    std::printf("(nothing here that neuroglancer opens: precomputed volumes and zarr arrays)\n");
  }
  std::printf("Ctrl-C stops the server.\n");
  std::fflush(stdout);
  int received = 0;
  sigwait(&signals, &received);
  (*server)->Stop();
  return Status::Ok();
}

}  // namespace

void AddServeCommand(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<ServeOptions>();
  CLI::App* command = app.add_subcommand(
      "serve", "Serve a directory over HTTP (Range, HEAD, CORS) and print a neuroglancer link");
  command
      ->add_option("PATH", options->path,
                   StoreHelp("What to serve (any chunkwise output)", "s3://bucket/volume"))
      ->required();
  command->add_option("--port", options->port, "TCP port (default 8000; 0 picks a free one)")
      ->check(CLI::Range(0, 65535));
  command->add_option("--host", options->host, "Address to listen on (default 127.0.0.1)");
  command->add_option("--client", options->client,
                      "The neuroglancer client the link opens (default: the public demo)");
  AddThreadsOption(command, options->threads,
                   "Threads reading the store for answers (default 16, at most 1024)");
  command->add_flag("--log", options->log, "Print one line per request on stderr");
  SetAction(command, context, [&context, options] { return ServeCommand(context, *options); });
}

}  // namespace chunkwise::cli
