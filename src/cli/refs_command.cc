// chunkwise refs: build, combine, inspect and read fsspec/kerchunk reference sets.
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "chunkwise/chunkwise.h"
#include "cli/command.h"
#include "cli/vocabulary.h"

namespace chunkwise::cli {
namespace {

struct RefsOptions {
  std::string source;
  std::string target_prefix;
  std::vector<std::string> inputs;
  std::string output;
  std::string format = "json-v1";
  std::uint64_t record_size = 100000;
  int concat_dim = 0;
  bool no_templates = false;
  bool overwrite = false;
  bool resume = false;
  bool json = false;
  std::string key;
  std::vector<std::string> allow_roots;
  bool allow_remote = false;
};

void SaySummary(const CommandContext& context, const std::string& verb, const std::string& output,
                const ReferenceSet& set) {
  Result<ReferenceSummary> summary = SummarizeReferences(set);
  if (!summary.ok()) return;
  Say(context, verb + " " + output + ": " + std::to_string(summary->total_references()) +
                   " references (" + std::to_string(summary->inline_count) + " inline, " +
                   std::to_string(summary->range_count) + " ranges, " +
                   std::to_string(summary->whole_file_count) + " whole files) for " +
                   std::to_string(summary->arrays.size()) + " arrays");
}

Result<ReferenceWriteOptions> WriteOptions(const RefsOptions& options) {
  ReferenceWriteOptions write;
  CHUNKWISE_ASSIGN_OR_RETURN(write.format, ParseReferenceFormat(options.format));
  write.templates = !options.no_templates;
  write.record_size = options.record_size;
  write.overwrite = options.overwrite;
  if (write.record_size == 0) return Status::InvalidArgument("--record-size must be positive");
  return write;
}

// Under mpirun or srun every rank runs this (docs/scale.md): each references
// the chunks it owns and saves its part next to the output, rank 0 joins the
// parts and writes the set; --resume keeps the parts a stopped job saved.
Status Build(const CommandContext& context, const RefsOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(ReferenceWriteOptions write, WriteOptions(options));
  // write.root_array_name is left empty: the facade names it after SRC.
  CHUNKWISE_ASSIGN_OR_RETURN(const std::unique_ptr<Communicator> ranks, JoinJobRanks());
  CHUNKWISE_ASSIGN_OR_RETURN(
      const chunkwise::ReferenceJobSummary job,
      chunkwise::BuildReferencesInto(
          context.library(), options.source, options.output,
          {.url_base = options.target_prefix,
           .ranks = ranks.get(),
           .zarr_chunk_keys_only = write.format == ReferenceFormat::kParquet},
          write,
          {.resume = options.resume,
           .before_part_saved = RankFaultFromEnvironment(ranks->rank())}));
  if (ranks->rank() == 0) {
    std::string verb = "wrote";
    if (ranks->size() > 1) {
      verb += " (" + std::to_string(ranks->size()) + " ranks";
      if (options.resume) {
        verb += ", " + std::to_string(job.parts_kept) + " of " + std::to_string(job.parts) +
                " parts kept from before";
      }
      verb += ")";
    }
    SaySummary(context, verb, options.output, job.set);
  }
  return Status::Ok();
}

Status Combine(const CommandContext& context, const RefsOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(const ReferenceWriteOptions write, WriteOptions(options));
  CHUNKWISE_ASSIGN_OR_RETURN(
      const ReferenceSet combined,
      CombineReferences(context.library(), options.inputs, options.concat_dim));
  CHUNKWISE_RETURN_IF_ERROR(
      chunkwise::WriteReferences(context.library(), combined, options.output, write));
  SaySummary(context, "combined " + std::to_string(options.inputs.size()) + " sets into",
             options.output, combined);
  return Status::Ok();
}

ReadReferencesOptions ReadOptionsOf(const RefsOptions& options) {
  ReadReferencesOptions read;
  for (const std::string& root : options.allow_roots) read.allowed_roots.emplace_back(root);
  read.allow_remote = options.allow_remote;
  return read;
}

Status Cat(const CommandContext& context, const RefsOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(
      auto store, OpenReferenceStore(context.library(), options.source, ReadOptionsOf(options)));
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<Bytes> value, store->Get(options.key));
  if (!value) return Status::NotFound(store->Describe(options.key) + ": no such key");
  if (!value->empty() && std::fwrite(value->data(), 1, value->size(), stdout) != value->size()) {
    return Status::IOError("writing to stdout failed");
  }
  return std::fflush(stdout) == 0 ? Status::Ok() : Status::IOError("writing to stdout failed");
}

Status Info(const CommandContext& context, const RefsOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(
      const ReferenceSummary summary,
      DescribeReferences(context.library(), options.source, ReadOptionsOf(options)));
  if (options.json) {
    nlohmann::ordered_json root;
    root["path"] = options.source;
    root["references"] = summary.total_references();
    root["inline"] = {{"count", summary.inline_count}, {"bytes", summary.inline_bytes}};
    root["ranges"] = {{"count", summary.range_count}, {"bytes", summary.range_bytes}};
    root["whole_files"] = {{"count", summary.whole_file_count},
                           {"bytes", summary.whole_file_bytes},
                           {"unsized", summary.unsized_whole_files}};
    root["referenced_bytes"] = summary.total_bytes();
    root["arrays"] = summary.arrays;
    root["targets"] = summary.targets;
    std::printf("%s\n", root.dump().c_str());
    return Status::Ok();
  }
  std::printf("references:   %llu\n", static_cast<unsigned long long>(summary.total_references()));
  std::printf("  inline:     %llu (%s)\n", static_cast<unsigned long long>(summary.inline_count),
              FormatBytes(static_cast<double>(summary.inline_bytes)).c_str());
  std::printf("  ranges:     %llu (%s)\n", static_cast<unsigned long long>(summary.range_count),
              FormatBytes(static_cast<double>(summary.range_bytes)).c_str());
  std::printf(
      "  whole files: %llu (%s%s)\n", static_cast<unsigned long long>(summary.whole_file_count),
      FormatBytes(static_cast<double>(summary.whole_file_bytes)).c_str(),
      summary.unsized_whole_files > 0
          ? (", " + std::to_string(summary.unsized_whole_files) + " of unknown size").c_str()
          : "");
  std::printf("referenced bytes: %s\n",
              FormatBytes(static_cast<double>(summary.total_bytes())).c_str());
  std::printf("arrays:       %zu\n", summary.arrays.size());
  for (const std::string& array : summary.arrays) {
    std::printf("  %s\n", array.empty() ? "(root)" : array.c_str());
  }
  std::printf("targets:      %zu\n", summary.targets.size());
  std::size_t shown = 0;
  for (const auto& [url, count] : summary.targets) {
    if (++shown > 10) {
      std::printf("  ... and %zu more\n", summary.targets.size() - 10);
      break;
    }
    std::printf("  %s (%llu references)\n", url.c_str(), static_cast<unsigned long long>(count));
  }
  return Status::Ok();
}

void AddWriteOptions(CLI::App* command, RefsOptions& options) {
  command
      ->add_option("--output", options.output,
                   "Output: a .json file, or a directory for parquet; or a URL, e.g. "
                   "s3://bucket/refs.json")
      ->required();
  command->add_option("--format", options.format, "json (v0), json-v1 (default) or parquet");
  command->add_option("--record-size", options.record_size, "Parquet: references per file");
  command->add_flag("--no-templates", options.no_templates, "JSON v1: write full URLs");
  command->add_flag("--overwrite", options.overwrite, "Replace an existing output");
}

void AddReadOptions(CLI::App* command, RefsOptions& options) {
  command->add_option("--allow-root", options.allow_roots,
                      "A directory references may point into (repeatable; default: the "
                      "reference file's directory)");
  command->add_flag("--allow-remote", options.allow_remote,
                    "Allow http(s)://, s3:// and gs:// targets");
}

}  // namespace

void AddRefsCommands(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<RefsOptions>();
  CLI::App* group = app.add_subcommand("refs", "Build, combine and read fsspec reference sets");
  group->require_subcommand(1);

  CLI::App* build = group->add_subcommand(
      "build", "References to a zarr array/group, a bcolz carray or export shards");
  build
      ->add_option("SRC", options->source,
                   StoreHelp("Source (or one .arrow file)", "s3://bucket/a.zarr"))
      ->required();
  build->add_option("--target-prefix", options->target_prefix,
                    "What the references point at in place of SRC, e.g. s3://bucket/data/ "
                    "(SRC's files uploaded there)");
  AddWriteOptions(build, *options);
  build
      ->add_flag("--resume", options->resume,
                 "Finish a stopped build of the same SRC and options, keeping the parts its "
                 "ranks saved")
      ->excludes("--overwrite");
  SetAction(build, context, [&context, options] { return Build(context, *options); });

  CLI::App* combine =
      group->add_subcommand("combine", "Concatenate reference sets along one dimension");
  combine
      ->add_option("INPUTS", options->inputs,
                   "Reference sets, in order: files or URLs, e.g. s3://bucket/refs.json")
      ->required();
  combine->add_option("--concat-dim", options->concat_dim, "The dimension to concatenate along");
  AddWriteOptions(combine, *options);
  SetAction(combine, context, [&context, options] { return Combine(context, *options); });

  CLI::App* cat = group->add_subcommand("cat", "Write one key's bytes to stdout");
  cat->add_option("REFS", options->source, StoreHelp("Reference set", "s3://bucket/refs.json"))
      ->required();
  cat->add_option("KEY", options->key, "Key, e.g. temp/0.0")->required();
  AddReadOptions(cat, *options);
  SetAction(cat, context, [&context, options] { return Cat(context, *options); });

  CLI::App* info = group->add_subcommand("info", "Summarize a reference set");
  info->add_option("REFS", options->source, StoreHelp("Reference set", "s3://bucket/refs.json"))
      ->required();
  AddJsonFlag(info, options->json);
  AddReadOptions(info, *options);
  SetAction(info, context, [&context, options] { return Info(context, *options); });
}

}  // namespace chunkwise::cli
