#include "cli/command.h"

#include <cstdio>

#include "chunkwise/store/file_store.h"

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

Result<std::shared_ptr<store::Store>> OpenStore(const std::string& path, bool create) {
  store::FileStoreOptions options;
  options.create_root = create;
  Result<std::shared_ptr<store::FileStore>> store = store::FileStore::Open(path, options);
  if (!store.ok()) return store.status();
  // A store opened to be written: a killed writer's temporary files go first.
  if (create) CHUNKWISE_RETURN_IF_ERROR((*store)->RemoveDeadTemporaries().status());
  return std::shared_ptr<store::Store>(std::move(store).value());
}

}  // namespace chunkwise::cli
