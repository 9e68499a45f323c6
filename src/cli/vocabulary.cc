#include "cli/vocabulary.h"

#include "chunkwise/io/array_file.h"
#include "chunkwise/io/file.h"

namespace chunkwise::cli {

void WarnDeprecated(const std::string& old_spelling, const std::string& replacement) {
  std::fprintf(stderr, "chunkwise: warning: %s is deprecated; use %s\n", old_spelling.c_str(),
               replacement.c_str());
}

void AddJsonFlag(CLI::App* command, bool& json) {
  command->add_flag("--json", json, "Print one JSON object on stdout instead of text");
}

bool WritesRaw(bool raw_flag, const std::string& output) {
  return raw_flag || (!io::IsStandardOutput(output) && !io::HasNpyExtension(output));
}

CLI::Option* AddOutputOption(CLI::App* command, const std::string& name, std::string& output,
                             const std::string& help, CommandContext& context) {
  return command->add_option(name, output, help + " (- for standard output)")
      ->each([&context](const std::string& value) {
        if (value == "-") context.data_on_stdout = true;
      });
}

}  // namespace chunkwise::cli
