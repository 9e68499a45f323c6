// chunkwise: the command-line front end of libchunkwise.
#include <cstdio>
#include <exception>

#include "cli/command.h"
#include "cli/flag_hints.h"
#include "cli/url_footers.h"

namespace chunkwise::cli {
namespace {

// 0 success, 1 the command failed (bad input, I/O), 2 the command line was wrong.
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

int Run(int argc, char** argv) {
  CLI::App app("chunkwise: chunked, sharded, compressed n-d arrays that the field's readers open",
               "chunkwise");
  app.set_version_flag("--version", std::string("chunkwise ") + CHUNKWISE_VERSION);
  app.require_subcommand(1);
  // Global flags anywhere on the line: an option a subcommand does not know
  // falls through to its parents (subcommands inherit this), so
  // `chunkwise zarr read … --quiet` means what `chunkwise --quiet zarr read …` does.
  app.fallthrough();
  CommandContext context;
  app.add_flag("-q,--quiet", context.quiet, "Print nothing but errors (no progress, no summary)");
  app.add_flag("--allow-remote", context.allow_remote_references,
               "A reference set read as a store may read s3://, gs:// and http(s):// targets")
      ->group("Reference sets");
  app.add_option("--allow-root", context.reference_roots,
                 "A reference set read as a store may read local targets under DIR too")
      ->type_name("DIR")
      ->group("Reference sets");

  AddCodecCommands(app, context);
  AddNpyCommands(app, context);
  AddStoreCommands(app, context);
  AddGridCommands(app, context);
  AddGenerateCommands(app, context);
  AddZarrCommands(app, context);
  AddImportCommand(app, context);
  AddGpuCommands(app, context);
  AddBcolzCommands(app, context);
  AddDvidCommands(app, context);
  AddVectorsCommands(app, context);
  AddRefsCommands(app, context);
  AddPrecomputedCommands(app, context);
  AddSkeletonCommands(app, context);
  AddServeCommand(app, context);
  AddViewCommand(app, context);
  AddMeshCommand(app, context);
  AddUrlFooters(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int code = app.exit(error);
    return code == 0 ? 0 : kExitUsage;
  }
  if (!context.outcome.ok()) {
    // The command that ran: the deepest subcommand parsed.
    const CLI::App* command = &app;
    while (!command->get_subcommands().empty()) command = command->get_subcommands().front();
    // Its own flags and those of the commands above it (--allow-remote is global).
    const auto has_flag = [command](std::string_view flag) {
      for (const CLI::App* level = command; level != nullptr; level = level->get_parent()) {
        if (level->get_option_no_throw(std::string(flag)) != nullptr) return true;
      }
      return false;
    };
    std::fprintf(stderr, "chunkwise: error: %s\n",
                 DescribeWithFlagHints(context.outcome, has_flag).c_str());
    return kExitFailure;
  }
  return 0;
}

}  // namespace
}  // namespace chunkwise::cli

int main(int argc, char** argv) {
  chunkwise::KeepFreedMemoryForReuse();
  // CLI11 and the JSON parser throw; nothing else in chunkwise does. Anything
  // that escapes is a bug, reported rather than crashing with no message.
  try {
    return chunkwise::cli::Run(argc, argv);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "chunkwise: internal error: %s\n", error.what());
    return 1;
  }
}
