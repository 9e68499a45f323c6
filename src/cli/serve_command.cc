// chunkwise serve: any of our outputs over HTTP (Range, HEAD, CORS). It links
// to a neuroglancer client only when given one: the data may be private, and
// `chunkwise view` shows it with a client served from this machine.
#include <csignal>
#include <cstdio>

#include "chunkwise/chunkwise.h"
#include "cli/command.h"
#include "cli/vocabulary.h"

namespace chunkwise::cli {
namespace {

struct ServeOptions {
  std::string path;
  std::string host = "127.0.0.1";
  std::string client;  // Empty: no link; `chunkwise view` is the local viewer.
  int port = 8000;
  std::size_t threads = 16;
  bool log = false;
};

Status ServeCommand(const CommandContext& context, const ServeOptions& options) {
  // The workers inherit this mask, so SIGINT and SIGTERM reach sigwait below.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  Result<std::unique_ptr<StoreServer>> server =
      StoreServer::Start(context.library(), options.path,
                         {.host = options.host,
                          .port = options.port,
                          .threads = options.threads,
                          .log = options.log ? stderr : nullptr});
  if (!server.ok()) {
    if (server.status().code() != StatusCode::kIOError) return server.status();
    return Status(server.status().code(),
                  std::string(server.status().message()) + " (--port picks another port)");
  }
  // The first line names the URL even with --quiet: scripts read the port from it.
  std::printf("serving %s at %s\n", options.path.c_str(), (*server)->url().c_str());
  for (const ServedSource& source : (*server)->sources()) {
    if (source.openable) {
      std::printf("  %s (%s, %s)\n", source.url.c_str(), source.kind.c_str(),
                  source.layer_type.c_str());
    } else {
      std::printf(
          "  %s: %s; neuroglancer does not open these (chunkwise dvid to-precomputed "
          "converts them)\n",
          source.url.c_str(), source.kind.c_str());
    }
  }
  const std::string link = (*server)->ViewerLink(options.client);
  if (link.empty()) {
    std::printf("(nothing here that neuroglancer opens: precomputed volumes and zarr arrays)\n");
  } else if (!options.client.empty() && !context.quiet) {
    std::printf("neuroglancer: %s\n", link.c_str());
  } else if (!context.quiet) {
    std::printf(
        "to look at it on this machine: chunkwise view %s (or --client URL links a "
        "neuroglancer you host)\n",
        options.path.c_str());
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
      "serve",
      "Serve a directory over HTTP (Range, HEAD, CORS); with --client, print a neuroglancer link");
  command
      ->add_option("PATH", options->path,
                   StoreHelp("What to serve (any chunkwise output)", "s3://bucket/volume"))
      ->required();
  command->add_option("--port", options->port, "TCP port (default 8000; 0 picks a free one)")
      ->check(CLI::Range(0, 65535));
  command->add_option("--host", options->host, "Address to listen on (default 127.0.0.1)");
  command->add_option("--client", options->client,
                      "The URL of a neuroglancer client to print a link to (default: none; "
                      "`chunkwise view` serves one on this machine)");
  AddThreadsOption(command, options->threads,
                   "Threads reading the store for answers (default 16, at most 1024)");
  command->add_flag("--log", options->log, "Print one line per request on stderr");
  SetAction(command, context, [&context, options] { return ServeCommand(context, *options); });
}

}  // namespace chunkwise::cli
