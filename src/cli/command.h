// The CLI's shared plumbing: every subcommand is a function that returns a
// Status, registered on the CLI11 app by its command group.
//
// The CLI is a thin layer: it parses options, calls the library, prints. Its
// one job beyond that is translating a Status into a message and exit code.
#ifndef CHUNKWISE_CLI_COMMAND_H_
#define CHUNKWISE_CLI_COMMAND_H_

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/chunkwise.h"

namespace chunkwise::cli {

// Options every command sees, and the outcome of the one that ran.
struct CommandContext {
  bool quiet = false;
  // A reference set opened as a store (`zarr read refs.json`) may read
  // targets on object storage or HTTP, and local ones under these roots.
  bool allow_remote_references = false;
  std::vector<std::string> reference_roots;
  // An output named "-": the data goes to stdout, so messages go to stderr.
  bool data_on_stdout = false;
  Status outcome;

  // Progress on stderr: a bar on a terminal, lines otherwise, nothing with --quiet.
  core::ProgressMode progress_mode() const {
    return quiet ? core::ProgressMode::kQuiet : core::ProgressMode::kAuto;
  }

  // The library's context for this run (chunkwise.h), made on first use:
  // after the command line is parsed, so that --quiet counts.
  chunkwise::Context& library() const;

 private:
  mutable std::unique_ptr<chunkwise::Context> library_;
};

// The store `url` names, opened through the run's library context, so that
// the global flags (--allow-remote, --allow-root for reference sets) apply.
Result<std::shared_ptr<store::Store>> OpenStoreFor(const CommandContext& context,
                                                   std::string_view url, bool create = false);

// Help text that names the forms a store argument takes, e.g.
// StoreHelp("Array") is "Array: a directory or URL, e.g. s3://bucket/a.zarr".
std::string StoreHelp(const std::string& what, const std::string& example = "s3://bucket/a.zarr");

// Makes `command` run `action` and keep its Status in `context`.
void SetAction(CLI::App* command, CommandContext& context, std::function<Status()> action);

// Prints a line to stdout (stderr when the data goes there) unless --quiet.
void Say(const CommandContext& context, const std::string& line);

// Human units: "1.23 GB", "456 kB", "12 B".
std::string FormatBytes(double bytes);

// Command groups, one file each.
void AddCodecCommands(CLI::App& app, CommandContext& context);
void AddNpyCommands(CLI::App& app, CommandContext& context);
void AddStoreCommands(CLI::App& app, CommandContext& context);
void AddGridCommands(CLI::App& app, CommandContext& context);
void AddGenerateCommands(CLI::App& app, CommandContext& context);
void AddGpuCommands(CLI::App& app, CommandContext& context);
void AddZarrCommands(CLI::App& app, CommandContext& context);
// `import`, any volume as a new zarr array (zarr_command.cc, for it takes `zarr import`'s flags).
void AddImportCommand(CLI::App& app, CommandContext& context);
// `zarr stream`, the streaming shard writer (zarr_stream_command.cc).
void AddZarrStreamCommand(CLI::App& zarr_group, CommandContext& context);
void AddBcolzCommands(CLI::App& app, CommandContext& context);
void AddDvidCommands(CLI::App& app, CommandContext& context);
void AddVectorsCommands(CLI::App& app, CommandContext& context);
void AddRefsCommands(CLI::App& app, CommandContext& context);
// Subcommands of `dvid` for export-shards and its outputs (export_command.cc).
void AddDvidExportCommands(CLI::App& dvid_group, CommandContext& context);
// neuroglancer precomputed (precomputed_command.cc): `precomputed info|read`,
// `dvid to-precomputed` and `zarr to-precomputed`; `serve` (serve_command.cc).
void AddPrecomputedCommands(CLI::App& app, CommandContext& context);
void AddDvidPrecomputedCommand(CLI::App& dvid_group, CommandContext& context);
void AddZarrPrecomputedCommand(CLI::App& zarr_group, CommandContext& context);
void AddServeCommand(CLI::App& app, CommandContext& context);
void AddViewCommand(CLI::App& app, CommandContext& context);
// `mesh`: surface meshes and segment properties of labels (mesh_command.cc).
void AddMeshCommand(CLI::App& app, CommandContext& context);
// `skeletonize` (skeleton_command.cc).
void AddSkeletonCommands(CLI::App& app, CommandContext& context);

}  // namespace chunkwise::cli

#endif  // CHUNKWISE_CLI_COMMAND_H_
