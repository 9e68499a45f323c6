// The words every command shares (docs/cli.md): --threads, --json, --region,
// --output -, and the notice an old spelling prints while it still works.
#ifndef CHUNKWISE_CLI_VOCABULARY_H_
#define CHUNKWISE_CLI_VOCABULARY_H_

#include <CLI/CLI.hpp>
#include <array>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <type_traits>

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

inline Status NotATriple(const std::string& flag, const std::string& text) {
  std::string message = flag;
  message += " must be three numbers x,y,z, not \"";
  message += text;
  message += '"';
  return Status::InvalidArgument(message);
}

// "a,b,c" as three numbers of type T.
template <typename T>
Result<std::array<T, 3>> ParseTriple(const std::string& text, const std::string& flag) {
  std::array<T, 3> out{};
  std::size_t start = 0;
  for (int d = 0; d < 3; ++d) {
    const std::size_t comma = text.find(',', start);
    if ((d < 2) == (comma == std::string::npos)) {
      return NotATriple(flag, text);
    }
    const std::string field = text.substr(start, comma - start);
    try {
      std::size_t used = 0;
      if constexpr (std::is_floating_point_v<T>) {
        out[d] = std::stod(field, &used);
      } else {
        out[d] = std::stoll(field, &used);
      }
      if (used != field.size()) throw std::invalid_argument(field);
    } catch (const std::exception&) {
      return NotATriple(flag, text);
    }
    start = comma + 1;
  }
  return out;
}

}  // namespace chunkwise::cli

#endif  // CHUNKWISE_CLI_VOCABULARY_H_
