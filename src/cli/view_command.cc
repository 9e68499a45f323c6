// chunkwise view: data and a neuroglancer client served together on this
// machine, and the link that opens the data in it (facade/viewer.h).
#include <spawn.h>

#include <csignal>
#include <cstdio>

#include "chunkwise/chunkwise.h"
#include "cli/command.h"
#include "cli/vocabulary.h"

extern char** environ;

namespace chunkwise::cli {
namespace {

struct ViewOptions {
  std::vector<std::string> paths;
  std::string host = "127.0.0.1";
  std::string client_dir;
  int port = 0;
  std::size_t threads = 16;
  bool open = false;
  bool log = false;
};

// The link in the desktop's browser (xdg-open); a note on stderr if there is none.
void OpenInBrowser(const std::string& link) {
  const char* argv[] = {"xdg-open", link.c_str(), nullptr};
  pid_t pid = 0;
  if (posix_spawnp(&pid, "xdg-open", nullptr, nullptr, const_cast<char**>(argv), environ) != 0) {
    std::fprintf(stderr, "chunkwise: note: xdg-open is missing; open the link by hand\n");
  }
}

Status ViewCommand(const CommandContext& context, const ViewOptions& options) {
  // The workers inherit this mask, so SIGINT and SIGTERM reach sigwait below.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  Result<std::string> client = FindNeuroglancerClient(options.client_dir);
  if (!client.ok()) {
    if (!options.client_dir.empty()) return client.status();
    // The library's search names what it looked at; the flag is this door's.
    return Status(client.status().code(),
                  std::string(client.status().message()) + " (or give it with --client-dir)");
  }
  Result<std::unique_ptr<Viewer>> viewer = Viewer::Start(context.library(), options.paths,
                                                         {.client_dir = *client,
                                                          .host = options.host,
                                                          .port = options.port,
                                                          .threads = options.threads,
                                                          .log = options.log ? stderr : nullptr,
                                                          .state = {}});
  if (!viewer.ok()) {
    if (viewer.status().code() != StatusCode::kIOError) return viewer.status();
    return Status(viewer.status().code(),
                  std::string(viewer.status().message()) + " (--port picks another port)");
  }
  // The first line names the address even with --quiet: scripts read the port from it.
  std::printf("serving at %s\n", (*viewer)->url().c_str());
  if (!context.quiet) {
    for (const ViewerLayer& layer : (*viewer)->layers()) {
      std::printf("  %s: %s layer, %s", layer.name.c_str(), layer.type.c_str(), layer.kind.c_str());
      if (layer.contrast.has_value()) {
        std::printf(", contrast %g..%g", (*layer.contrast)[0], (*layer.contrast)[1]);
      }
      std::printf("\n");
    }
  }
  std::printf("neuroglancer: %s\n", (*viewer)->link().c_str());
  std::printf("Ctrl-C stops the server.\n");
  std::fflush(stdout);
  if (options.open) OpenInBrowser((*viewer)->link());
  int received = 0;
  sigwait(&signals, &received);
  (*viewer)->Stop();
  return Status::Ok();
}

}  // namespace

void AddViewCommand(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<ViewOptions>();
  CLI::App* command = app.add_subcommand(
      "view",
      "Show data in neuroglancer: serve it and neuroglancer's client on this machine and print "
      "the link (image contrast from the data, labels as segmentation, OME-Zarr as one layer)");
  command
      ->add_option("PATH", options->paths,
                   StoreHelp("What to show, one layer or more each (precomputed volumes, zarr "
                             "arrays, OME-Zarr groups)",
                             "s3://bucket/volume"))
      ->required();
  command->add_option("--port", options->port, "TCP port (default 0: any free one)")
      ->check(CLI::Range(0, 65535));
  command->add_option("--host", options->host, "Address to listen on (default 127.0.0.1)");
  command->add_option("--client-dir", options->client_dir,
                      "neuroglancer's client folder (default: $CHUNKWISE_NEUROGLANCER_CLIENT, "
                      "else static/client of the neuroglancer package python3 imports)");
  command->add_flag("--open", options->open, "Open the link in the browser (xdg-open)");
  AddThreadsOption(command, options->threads,
                   "Threads reading the data for answers (default 16, at most 1024)");
  command->add_flag("--log", options->log, "Print one line per request on stderr");
  SetAction(command, context, [&context, options] { return ViewCommand(context, *options); });
}

}  // namespace chunkwise::cli
