#include "cli/command.h"

#include <cstdio>

namespace chunkwise::cli {

void SetAction(CLI::App* command, CommandContext& context, std::function<Status()> action) {
  command->callback([&context, action = std::move(action)] { context.outcome = action(); });
}

void Say(const CommandContext& context, const std::string& line) {
  if (!context.quiet) std::fprintf(context.data_on_stdout ? stderr : stdout, "%s\n", line.c_str());
}

std::string FormatBytes(double bytes) {
  static constexpr const char* kUnits[] = {"B", "kB", "MB", "GB", "TB", "PB"};
  int unit = 0;
  while (bytes >= 1000.0 && unit < 5) {
    bytes /= 1000.0;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof(text), unit == 0 ? "%.0f %s" : "%.2f %s", bytes, kUnits[unit]);
  return text;
}

chunkwise::Context& CommandContext::library() const {
  if (library_ == nullptr) {
    chunkwise::ContextOptions options;
    options.progress_mode = progress_mode();
    options.stores.allow_remote_references = allow_remote_references;
    for (const std::string& root : reference_roots)
      options.stores.reference_roots.emplace_back(root);
    library_ = std::make_unique<chunkwise::Context>(std::move(options));
  }
  return *library_;
}

Result<std::shared_ptr<store::Store>> OpenStoreFor(const CommandContext& context,
                                                   std::string_view url, bool create) {
  const chunkwise::Context& library = context.library();
  return chunkwise::OpenStore(library, url, library.store_options(create));
}

std::string StoreHelp(const std::string& what, const std::string& example) {
  return what + ": a directory or a URL, e.g. " + example;
}

}  // namespace chunkwise::cli
