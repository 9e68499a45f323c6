#include "chunkwise/facade/viewer.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "facade/local_path.h"
#include "formats/neuroglancer/sources.h"
#include "store/http_server.h"
#include "store/mount_store.h"

namespace chunkwise {
namespace {

// Where the client is served: its code finds the server through "/v/<token>/".
constexpr std::string_view kClientFolder = "v/chunkwise/";
constexpr std::string_view kEventsKey = "events/chunkwise";

bool HoldsClient(const std::filesystem::path& folder) {
  std::error_code error;
  return std::filesystem::is_regular_file(folder / "index.html", error);
}

// The client folder of the neuroglancer package `python` finds; empty if none.
std::string ClientOfPython(const std::string& python) {
  const std::string command = "'" + python +
                              "' -c \"import importlib.util as u; s = u.find_spec('neuroglancer'); "
                              "print(s.submodule_search_locations[0] if s else '')\" 2>/dev/null";
  std::FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return "";
  std::string out;
  char buffer[4096];
  while (std::fgets(buffer, sizeof(buffer), pipe) != nullptr) out += buffer;
  ::pclose(pipe);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  if (out.empty()) return "";
  const std::filesystem::path folder = std::filesystem::path(out) / "static" / "client";
  return HoldsClient(folder) ? folder.string() : "";
}

}  // namespace

Result<std::string> FindNeuroglancerClient(std::string_view given) {
  if (!given.empty()) {
    if (HoldsClient(std::filesystem::path(given))) return std::string(given);
    return Status::NotFound(std::string(given) +
                            ": no index.html here (not a neuroglancer client folder)");
  }
  if (const char* env = std::getenv("CHUNKWISE_NEUROGLANCER_CLIENT"); env != nullptr && *env) {
    if (HoldsClient(env)) return std::string(env);
    return Status::NotFound(std::string(env) +
                            " (CHUNKWISE_NEUROGLANCER_CLIENT): no index.html here (not a "
                            "neuroglancer client folder)");
  }
  std::vector<std::string> pythons;
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) pythons.push_back((self.parent_path() / "python3").string());
  pythons.push_back("python3");
  for (const std::string& python : pythons) {
    if (python != "python3" && !std::filesystem::exists(python, error)) continue;
    if (std::string found = ClientOfPython(python); !found.empty()) return found;
  }
  return Status::NotFound(
      "no neuroglancer client: python3 imports no `neuroglancer` package (pip install "
      "neuroglancer, or name its static/client folder in CHUNKWISE_NEUROGLANCER_CLIENT)");
}

Result<std::unique_ptr<Viewer>> Viewer::Start(const Context& context,
                                              std::span<const std::string> urls,
                                              const ViewerOptions& options,
                                              const CallOptions& call) {
  if (urls.empty()) return Status::InvalidArgument("view: no path or URL to show");
  if (!HoldsClient(std::filesystem::path(options.client_dir))) {
    return Status::NotFound(options.client_dir +
                            ": no index.html here (not a neuroglancer client folder)");
  }
  std::vector<store::Mount> mounts;
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> client,
                             OpenStore(context, options.client_dir, context.store_options(false)));
  mounts.push_back({std::string(kClientFolder), std::move(client)});
  for (std::size_t i = 0; i < urls.size(); ++i) {
    CHUNKWISE_RETURN_IF_ERROR(CheckLocalPathExists(urls[i]));
    CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> data,
                               OpenStore(context, urls[i], context.store_options(false)));
    mounts.push_back({"data/" + std::to_string(i) + "/", std::move(data)});
  }
  std::unique_ptr<Viewer> viewer(new Viewer());
  CHUNKWISE_ASSIGN_OR_RETURN(
      viewer->server_,
      store::HttpServer::Start(std::make_shared<store::MountStore>(std::move(mounts)),
                               {.host = options.host,
                                .port = options.port,
                                .threads = options.threads,
                                .quiet_event_stream_key = std::string(kEventsKey),
                                .log = options.log}));
  const std::string base = viewer->server_->url();
  std::vector<ViewedData> data;
  for (std::size_t i = 0; i < urls.size(); ++i) {
    data.push_back({urls[i], base + "data/" + std::to_string(i) + "/"});
  }
  Result<ViewerStateResult> state = BuildViewerState(context, data, options.state, call);
  if (!state.ok()) {
    viewer->server_->Stop();
    return state.status();
  }
  viewer->state_ = std::move(*state);
  viewer->link_ = formats::neuroglancer::ViewerLink(
      base + std::string(kClientFolder) + "index.html", viewer->state_.state);
  return viewer;
}

Viewer::~Viewer() = default;

std::string Viewer::url() const { return server_->url(); }

void Viewer::Stop() { server_->Stop(); }

}  // namespace chunkwise
