// chunkwise store: look into and edit a directory store key by key.
#include <cstdio>

#include "chunkwise/chunkwise.h"
#include "chunkwise/io/file.h"
#include "cli/command.h"

namespace chunkwise::cli {
namespace {

struct StoreOptions {
  std::string root;
  std::string key;
  std::string prefix;
  std::string range;  // "a:b" bytes, "-n" for the last n bytes
  std::string file;
  bool long_listing = false;
  bool fsync = false;
  bool overwrite = false;
};

Status List(const CommandContext& context, const StoreOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(auto store, OpenStoreFor(context, options.root));
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<std::string> keys, store->List(options.prefix));
  for (const std::string& key : keys) {
    if (!options.long_listing) {
      std::printf("%s\n", key.c_str());
      continue;
    }
    CHUNKWISE_ASSIGN_OR_RETURN(std::optional<std::uint64_t> size, store->Size(key));
    std::printf("%12llu  %s\n", static_cast<unsigned long long>(size.value_or(0)), key.c_str());
  }
  return Status::Ok();
}

Status Get(const CommandContext& context, const StoreOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(auto store, OpenStoreFor(context, options.root));
  std::optional<Bytes> value;
  if (options.range.empty()) {
    CHUNKWISE_ASSIGN_OR_RETURN(value, store->Get(options.key));
  } else {
    Result<store::ByteRange> range = ParseByteRange(options.range);
    if (!range.ok()) return range.status().WithContext("--range");
    CHUNKWISE_ASSIGN_OR_RETURN(value, store->GetRange(options.key, *range));
  }
  if (!value) return Status::NotFound(store->Describe(options.key) + ": no such key");
  if (options.file.empty()) {
    std::fwrite(value->data(), 1, value->size(), stdout);
    return Status::Ok();
  }
  CHUNKWISE_RETURN_IF_ERROR(io::CheckOutputPath(options.file, options.overwrite));
  return io::WriteFile(options.file, *value);
}

Status Put(const CommandContext& context, const StoreOptions& options) {
  return PutFileAsKey(context.library(), options.root, options.key, options.file,
                      {.overwrite = options.overwrite, .fsync = options.fsync});
}

Status Remove(const CommandContext& context, const StoreOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(auto store, OpenStoreFor(context, options.root));
  return store->Erase(options.key);
}

}  // namespace

void AddStoreCommands(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<StoreOptions>();
  CLI::App* group =
      app.add_subcommand("store", "Read and write keys of a store (a directory or a URL)");
  group->require_subcommand(1);

  CLI::App* ls = group->add_subcommand("ls", "List keys, sorted");
  ls->add_option("ROOT", options->root, StoreHelp("Store", "s3://bucket/a.zarr"))->required();
  ls->add_option("--prefix", options->prefix, "Only keys starting with this");
  ls->add_flag("-l,--long", options->long_listing, "Show sizes in bytes");
  SetAction(ls, context, [&context, options] { return List(context, *options); });

  CLI::App* get = group->add_subcommand("get", "Print a value (or write it to --output)");
  get->add_option("ROOT", options->root, StoreHelp("Store", "https://host/a.zarr"))->required();
  get->add_option("KEY", options->key, "Key, e.g. c/0/1/2")->required();
  get->add_option("--range", options->range, "Bytes START:STOP, or -N for the last N");
  get->add_option("-o,--output", options->file, "Write the value here instead of stdout");
  get->add_flag("--overwrite", options->overwrite, "Replace an existing output file");
  SetAction(get, context, [&context, options] { return Get(context, *options); });

  CLI::App* put = group->add_subcommand("put", "Set a key from a file (atomically)");
  put->add_option("ROOT", options->root,
                  StoreHelp("Store (created if missing)", "s3://bucket/a.zarr"))
      ->required();
  put->add_option("KEY", options->key, "Key")->required();
  put->add_option("FILE", options->file, "File whose bytes become the value")->required();
  put->add_flag("--fsync", options->fsync, "fsync the value and its directory (directories only)");
  put->add_flag("--overwrite", options->overwrite, "Replace an existing key");
  SetAction(put, context, [&context, options] { return Put(context, *options); });

  CLI::App* rm = group->add_subcommand("rm", "Erase a key (absent keys are fine)");
  rm->add_option("ROOT", options->root, StoreHelp("Store", "s3://bucket/a.zarr"))->required();
  rm->add_option("KEY", options->key, "Key")->required();
  SetAction(rm, context, [&context, options] { return Remove(context, *options); });
}

}  // namespace chunkwise::cli
