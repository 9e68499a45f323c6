// The words every command shares (docs/cli.md): --threads, --json, --region,
// --output -, and the notice an old spelling prints while it still works.
#ifndef CHUNKWISE_CLI_VOCABULARY_H_
#define CHUNKWISE_CLI_VOCABULARY_H_

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "cli/command.h"

namespace chunkwise::cli {

// Prints "chunkwise: warning: OLD is deprecated; use NEW" on stderr: an old
// spelling keeps working for one release and says what replaces it.
void WarnDeprecated(const std::string& old_spelling, const std::string& replacement);

// --threads N into `threads`; --workers N, its old spelling, sets the same
// value with a deprecation notice and is hidden from --help.
template <typename Count>
CLI::Option* AddThreadsOption(CLI::App* command, Count& threads, const std::string& help) {
  CLI::Option* option = command->add_option("--threads", threads, help);
  command->add_option("--workers", threads, "Deprecated: --threads")
      ->group("")
      ->each([](const std::string&) { WarnDeprecated("--workers", "--threads"); });
  return option;
}

// --json: the command prints one JSON object on stdout instead of text.
void AddJsonFlag(CLI::App* command, bool& json);

// Whether an array output is raw bytes rather than .npy: with --raw, or by
// a name without the .npy extension; standard output gets .npy.
bool WritesRaw(bool raw_flag, const std::string& output);

// An output file option (`name`, e.g. "--output") where "-" means standard
// output; then the command's messages go to stderr (context.data_on_stdout).
CLI::Option* AddOutputOption(CLI::App* command, const std::string& name, std::string& output,
                             const std::string& help, CommandContext& context);

}  // namespace chunkwise::cli

#endif  // CHUNKWISE_CLI_VOCABULARY_H_
