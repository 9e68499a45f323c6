// chunkwise bcolz: create, append to, read and describe bcolz 1.x carrays and ctables.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "chunkwise/chunkwise.h"
#include "chunkwise/io/bcolz_files.h"
#include "chunkwise/io/file.h"
#include "cli/command.h"
#include "cli/vocabulary.h"

namespace chunkwise::cli {
namespace {

struct BcolzOptions {
  std::string root;
  std::string input;
  std::string output;
  std::string cname = "lz4";
  int clevel = 5;
  int shuffle = 1;
  std::int64_t chunklen = 0;
  int threads = 0;
  std::string slice;
  std::vector<std::string> columns;
  std::string where;
  bool overwrite = false;
  bool json = false;
};

io::BcolzImportOptions ImportOptionsOf(const CommandContext& context, const BcolzOptions& options) {
  io::BcolzImportOptions import;
  import.cparams.cname = options.cname;
  import.cparams.clevel = options.clevel;
  import.cparams.shuffle = options.shuffle;
  import.chunklen = options.chunklen;
  import.threads = options.threads;
  import.progress = context.progress_mode();
  return import;
}

void Report(const CommandContext& context, const std::string& verb, const std::string& root,
            const io::BcolzImportSummary& summary) {
  Say(context, verb + " " + std::to_string(summary.rows_added) + " rows (" +
                   FormatBytes(static_cast<double>(summary.input_bytes)) + ") " +
                   (verb == "created" ? "in" : "to") + " bcolz " +
                   (summary.ctable ? "ctable " : "carray ") + root + ", now " +
                   std::to_string(summary.length) + " rows");
}

Status Create(const CommandContext& context, const BcolzOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(
      io::BcolzImportSummary summary,
      chunkwise::CreateBcolz(context.library(), options.root, options.input,
                             ImportOptionsOf(context, options), options.overwrite));
  Report(context, "created", options.root, summary);
  return Status::Ok();
}

Status Append(const CommandContext& context, const BcolzOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(io::BcolzImportSummary summary,
                             chunkwise::AppendBcolz(context.library(), options.root, options.input,
                                                    ImportOptionsOf(context, options)));
  Report(context, "appended", options.root, summary);
  return Status::Ok();
}

Status Read(const CommandContext& context, const BcolzOptions& options) {
  CHUNKWISE_RETURN_IF_ERROR(io::CheckOutputPath(options.output, options.overwrite));
  CHUNKWISE_ASSIGN_OR_RETURN(auto store, chunkwise::OpenBcolz(context.library(), options.root));
  CHUNKWISE_ASSIGN_OR_RETURN(
      std::int64_t rows,
      io::ExportBcolzSelection(store, "", {options.slice, options.columns, options.where},
                               options.output));
  Say(context, "wrote " + options.output + ": " + std::to_string(rows) + " rows");
  return Status::Ok();
}

Status Info(const CommandContext& context, const BcolzOptions& options) {
  if (options.json) {
    CHUNKWISE_ASSIGN_OR_RETURN(nlohmann::ordered_json root,
                               DescribeBcolzJson(context.library(), options.root));
    root["path"] = options.root;
    std::printf("%s\n", root.dump().c_str());
    return Status::Ok();
  }
  CHUNKWISE_ASSIGN_OR_RETURN(std::string text, DescribeBcolz(context.library(), options.root));
  std::printf("%s: %s", options.root.c_str(), text.c_str());
  return Status::Ok();
}

void AddCompressionOptions(CLI::App* command, BcolzOptions& options) {
  command->add_option("--cname", options.cname, "Blosc compressor: lz4 blosclz lz4hc zlib zstd")
      ->capture_default_str();
  command->add_option("--clevel", options.clevel, "Compression level 0-9")
      ->check(CLI::Range(0, 9))
      ->capture_default_str();
  command->add_option("--shuffle", options.shuffle, "0 none, 1 byte, 2 bit shuffle")
      ->check(CLI::Range(0, 2))
      ->capture_default_str();
  command->add_option("--chunklen", options.chunklen, "Rows per chunk (default: as bcolz)")
      ->check(CLI::PositiveNumber);
}

}  // namespace

void AddBcolzCommands(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<BcolzOptions>();
  CLI::App* group = app.add_subcommand("bcolz", "bcolz 1.x carray/ctable directories");
  group->require_subcommand(1);

  CLI::App* create = group->add_subcommand(
      "create", "Create a carray (plain .npy) or ctable (structured .npy or CSV)");
  create->add_option("ROOT", options->root, StoreHelp("Dataset to create", "s3://bucket/t.bcolz"))
      ->required();
  create->add_option("--input", options->input, ".npy or .csv file")->required();
  AddCompressionOptions(create, *options);
  AddThreadsOption(create, options->threads, "Compressing threads (0 = one per core)")
      ->check(CLI::Range(0, 256));
  create->add_flag("--overwrite", options->overwrite, "Replace an existing ROOT");
  SetAction(create, context, [&context, options] { return Create(context, *options); });

  CLI::App* append = group->add_subcommand("append", "Append the rows of a .npy or .csv file");
  append->add_option("ROOT", options->root, StoreHelp("Existing dataset", "s3://bucket/t.bcolz"))
      ->required();
  append->add_option("--input", options->input, ".npy or .csv file")->required();
  AddThreadsOption(append, options->threads, "Compressing threads (0 = one per core)")
      ->check(CLI::Range(0, 256));
  SetAction(append, context, [&context, options] { return Append(context, *options); });

  CLI::App* read = group->add_subcommand("read", "Read rows (slice, columns, filter) to a file");
  read->add_option("ROOT", options->root, StoreHelp("Dataset", "s3://bucket/t.bcolz"))->required();
  read->add_option("--slice", options->slice, "Rows a:b (negatives count from the end)");
  read->add_option("--columns", options->columns, "ctable columns to keep")->delimiter(',');
  read->add_option("--where", options->where, "Row filter, e.g. \"(x > 1) & (tag == 'a')\"");
  AddOutputOption(read, "--output", options->output, "out.npy or out.csv", context)->required();
  read->add_flag("--overwrite", options->overwrite, "Replace an existing output");
  SetAction(read, context, [&context, options] { return Read(context, *options); });

  CLI::App* info = group->add_subcommand("info", "Describe a carray or ctable");
  info->add_option("ROOT", options->root, StoreHelp("Dataset", "s3://bucket/t.bcolz"))->required();
  AddJsonFlag(info, options->json);
  SetAction(info, context, [&context, options] { return Info(context, *options); });
}

}  // namespace chunkwise::cli
