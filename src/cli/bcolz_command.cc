// chunkwise bcolz: create, append to, read and describe bcolz 1.x carrays and ctables.
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "chunkwise/core/file_io.h"
#include "chunkwise/core/index.h"
#include "chunkwise/formats/bcolz/dataset.h"
#include "chunkwise/io/bcolz_files.h"
#include "chunkwise/io/file.h"
#include "chunkwise/store/file_store.h"
#include "cli/command.h"
#include "cli/vocabulary.h"

namespace chunkwise::cli {
namespace {

namespace bcolz = formats::bcolz;

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

// With `write`, the temporary files of writers that died there are removed.
Result<std::shared_ptr<store::FileStore>> OpenRoot(const std::string& root, bool create,
                                                   bool write = false) {
  if (!create && !std::filesystem::is_directory(root)) {
    return Status::NotFound(root + ": no such bcolz directory");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(auto store, store::FileStore::Open(root, {.create_root = create}));
  if (write || create) CHUNKWISE_RETURN_IF_ERROR(store->RemoveDeadTemporaries().status());
  return store;
}

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

// --overwrite replaces a dataset; it never wipes a directory of other files.
Status CheckReplaceable(const std::string& root) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (!fs::exists(root, error) || fs::is_empty(root, error)) return Status::Ok();
  if (fs::exists(fs::path(root) / "meta" / "storage", error) ||
      fs::exists(fs::path(root) / "__rootdirs__", error)) {
    return Status::Ok();
  }
  // A ctable whose creation was cut short: its columns are written before
  // __rootdirs__, so a column directory holding meta/storage marks it ours.
  for (const fs::directory_entry& entry : fs::directory_iterator(root, error)) {
    if (entry.is_directory(error) && fs::exists(entry.path() / "meta" / "storage", error)) {
      return Status::Ok();
    }
  }
  return Status::InvalidArgument(root +
                                 ": exists and is not a bcolz carray or ctable; not replacing it");
}

Status Create(const CommandContext& context, const BcolzOptions& options) {
  CHUNKWISE_RETURN_IF_ERROR(io::CheckOutputPath(options.root, options.overwrite));
  CHUNKWISE_RETURN_IF_ERROR(CheckReplaceable(options.root));
  CHUNKWISE_ASSIGN_OR_RETURN(auto store, OpenRoot(options.root, /*create=*/true));
  CHUNKWISE_ASSIGN_OR_RETURN(
      io::BcolzImportSummary summary,
      io::CreateBcolzFromFile(options.input, store, "", ImportOptionsOf(context, options)));
  CHUNKWISE_RETURN_IF_ERROR(io::AddBcolzDataDirectories(options.root));
  Report(context, "created", options.root, summary);
  return Status::Ok();
}

Status Append(const CommandContext& context, const BcolzOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(auto store, OpenRoot(options.root, /*create=*/false, /*write=*/true));
  CHUNKWISE_ASSIGN_OR_RETURN(
      io::BcolzImportSummary summary,
      io::AppendBcolzFromFile(options.input, store, "", ImportOptionsOf(context, options)));
  CHUNKWISE_RETURN_IF_ERROR(io::AddBcolzDataDirectories(options.root));
  Report(context, "appended", options.root, summary);
  return Status::Ok();
}

Status Read(const CommandContext& context, const BcolzOptions& options) {
  CHUNKWISE_RETURN_IF_ERROR(io::CheckOutputPath(options.output, options.overwrite));
  CHUNKWISE_ASSIGN_OR_RETURN(auto store, OpenRoot(options.root, /*create=*/false));
  CHUNKWISE_ASSIGN_OR_RETURN(
      std::int64_t rows,
      io::ExportBcolzSelection(store, "", {options.slice, options.columns, options.where},
                               options.output));
  Say(context, "wrote " + options.output + ": " + std::to_string(rows) + " rows");
  return Status::Ok();
}

Status Info(const BcolzOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(auto store, OpenRoot(options.root, /*create=*/false));
  if (options.json) {
    CHUNKWISE_ASSIGN_OR_RETURN(nlohmann::ordered_json root, bcolz::DescribeDatasetJson(store, ""));
    root["path"] = options.root;
    std::printf("%s\n", root.dump().c_str());
    return Status::Ok();
  }
  CHUNKWISE_ASSIGN_OR_RETURN(std::string text, bcolz::DescribeDataset(store, ""));
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
  create->add_option("ROOT", options->root, "Directory to create")->required();
  create->add_option("--input", options->input, ".npy or .csv file")->required();
  AddCompressionOptions(create, *options);
  AddThreadsOption(create, options->threads, "Compressing threads (0 = one per core)")
      ->check(CLI::Range(0, 256));
  create->add_flag("--overwrite", options->overwrite, "Replace an existing ROOT");
  SetAction(create, context, [&context, options] { return Create(context, *options); });

  CLI::App* append = group->add_subcommand("append", "Append the rows of a .npy or .csv file");
  append->add_option("ROOT", options->root, "Existing bcolz directory")->required();
  append->add_option("--input", options->input, ".npy or .csv file")->required();
  AddThreadsOption(append, options->threads, "Compressing threads (0 = one per core)")
      ->check(CLI::Range(0, 256));
  SetAction(append, context, [&context, options] { return Append(context, *options); });

  CLI::App* read = group->add_subcommand("read", "Read rows (slice, columns, filter) to a file");
  read->add_option("ROOT", options->root, "bcolz directory")->required();
  read->add_option("--slice", options->slice, "Rows a:b (negatives count from the end)");
  read->add_option("--columns", options->columns, "ctable columns to keep")->delimiter(',');
  read->add_option("--where", options->where, "Row filter, e.g. \"(x > 1) & (tag == 'a')\"");
  AddOutputOption(read, "--output", options->output, "out.npy or out.csv", context)->required();
  read->add_flag("--overwrite", options->overwrite, "Replace an existing output");
  SetAction(read, context, [&context, options] { return Read(context, *options); });

  CLI::App* info = group->add_subcommand("info", "Describe a carray or ctable");
  info->add_option("ROOT", options->root, "bcolz directory")->required();
  AddJsonFlag(info, options->json);
  SetAction(info, context, [options] { return Info(*options); });
}

}  // namespace chunkwise::cli
