// chunkwise dvid export-shards | shard | read-shards: a labelmap exported as
// neuroglancer-sharded Arrow IPC files (pipelines/export_shards.h), one shard
// inspected, and any box of an export read back.
#include <sys/resource.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

#include "chunkwise/chunkwise.h"
#include "chunkwise/io/file.h"
#include "chunkwise/io/npy_file.h"
#include "cli/command.h"
#include "cli/vocabulary.h"

namespace chunkwise::cli {
namespace {

struct ExportOptions {
  std::string db;
  std::vector<std::string> spec_and_dest;  // [SPEC] DEST.
  std::string spec;
  std::string dest;
  std::string resolution = "8,8,8";
  std::string file;
  std::string chunk;
  std::string region;
  std::string output;
  std::string arrow_format = "file";
  std::string index = "rec";
  int scales = 0;
  int scale = 0;
  std::size_t workers = 0;
  std::uint32_t version = 0;
  bool overwrite = false;
  bool resume = false;
  bool list = false;
  bool mapped = false;
  bool supervoxels = false;
};

// Export keeps a shard file open per shard of the current z-slab of shards;
// let the process have as many descriptors as its hard limit allows.
void RaiseOpenFileLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
  }
}

// The spec sized from the database's extent (DefaultExportSpec), naming the
// database in its errors.
Result<ExportSpec> DefaultSpecFor(const Labelmap& labelmap, const ExportOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(const auto resolution,
                             ParseTriple<double>(options.resolution, "--resolution"));
  Result<ExportSpec> spec = chunkwise::DefaultExportSpec(
      labelmap, {.version = options.version, .resolution = resolution});
  if (!spec.ok()) return spec.status().WithContext(options.db);
  return spec;
}

Status SpecCommand(const ExportOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(auto labelmap,
                             chunkwise::OpenLabelmap(options.db, false, /*read_only=*/true));
  CHUNKWISE_ASSIGN_OR_RETURN(const ExportSpec spec, DefaultSpecFor(*labelmap, options));
  // Indented: it is printed to be edited.
  std::fputs((nlohmann::json::parse(spec.info_json()).dump(2) + "\n").c_str(), stdout);
  return Status::Ok();
}

Status ExportShardsCommand(const CommandContext& context, const ExportOptions& options) {
  chunkwise::Context& library = context.library();
  const bool has_spec = options.spec_and_dest.size() == 2;
  const std::string& dest = options.spec_and_dest.back();
  // A given spec is checked before the database is opened, as it always was.
  std::optional<ExportSpec> given;
  if (has_spec) {
    CHUNKWISE_ASSIGN_OR_RETURN(given, chunkwise::ReadExportSpec(library, options.spec_and_dest[0]));
  }
  CHUNKWISE_ASSIGN_OR_RETURN(auto labelmap,
                             chunkwise::OpenLabelmap(options.db, false, /*read_only=*/true));
  CHUNKWISE_ASSIGN_OR_RETURN(const ExportSpec spec, given.has_value()
                                                        ? Result<ExportSpec>(std::move(*given))
                                                        : DefaultSpecFor(*labelmap, options));
  RaiseOpenFileLimit();
  ExportShardsOptions export_options;
  export_options.num_scales = options.scales;
  export_options.workers = options.workers;
  export_options.version = options.version;
  export_options.format =
      options.arrow_format == "stream" ? ArrowIpcFormat::kStream : ArrowIpcFormat::kFile;
  export_options.index_form =
      options.index == "offsets" ? ExportChunkIndexForm::kOffsets : ExportChunkIndexForm::kRecord;
  export_options.overwrite = options.overwrite;
  export_options.resume = options.resume;
  // Under mpirun or srun, one rank of the job (docs/scale.md); else the process alone.
  CHUNKWISE_ASSIGN_OR_RETURN(const std::unique_ptr<Communicator> ranks, JoinJobRanks());
  export_options.ranks = ranks.get();
  export_options.before_shard_publish = RankFaultFromEnvironment(ranks->rank());
  CHUNKWISE_ASSIGN_OR_RETURN(
      const ExportSummary summary,
      chunkwise::ExportShards(library, *labelmap, spec, dest, export_options));
  if (ranks->rank() == 0) {
    Say(context,
        "exported " + options.db + " to " + dest +
            (ranks->size() > 1 ? " with " + std::to_string(ranks->size()) + " ranks" : "") + "\n" +
            summary.Format());
  }
  return Status::Ok();
}

// "x,y,z" chunk coordinates.
Result<std::array<std::int32_t, 3>> ParseChunk(std::string_view text) {
  std::array<std::int32_t, 3> out{};
  for (int d = 0; d < 3; ++d) {
    const std::size_t comma = text.find(',');
    const std::optional<core::Index> value = core::ParseIndex(text.substr(0, comma));
    if (!value.has_value() || *value < INT32_MIN || *value > INT32_MAX ||
        (d < 2) == (comma == std::string_view::npos)) {
      return Status::InvalidArgument("--chunk must be three integers x,y,z");
    }
    out[d] = static_cast<std::int32_t>(*value);
    if (d < 2) text.remove_prefix(comma + 1);
  }
  return out;
}

Status WriteLabels(const std::string& path, std::vector<std::int64_t> shape,
                   const std::vector<std::uint64_t>& labels) {
  core::NpyArray array;
  CHUNKWISE_ASSIGN_OR_RETURN(array.dtype, core::NpyDtype::FromTypestr("<u8"));
  array.shape = std::move(shape);
  array.data.resize(labels.size() * 8);
  for (std::size_t i = 0; i < labels.size(); ++i) {
    StoreLittleEndian(labels[i], array.data.data() + 8 * i);
  }
  return io::WriteNpy(path, array);
}

// Prints the shard's summary and, with `list`, a line per chunk. A chunk
// that cannot be read is listed with its error and fails the command.
Status PrintShard(const ExportShardReader& shard, const std::string& file, bool list) {
  std::printf("%s: Arrow IPC %s format, %zu record batches, %zu chunks, index %s\n", file.c_str(),
              shard.is_file_format() ? "file" : "stream", shard.num_record_batches(),
              shard.num_indexed_chunks(),
              shard.index_form() == ExportChunkIndexForm::kRecord ? "x,y,z,rec"
                                                                  : "x,y,z,offset,size,batch_idx");
  if (!list) return Status::Ok();
  std::printf("x,y,z,supervoxels,compressed_bytes,uncompressed_size\n");
  Status first_error;
  std::size_t errors = 0;
  for (const auto& xyz : shard.ListChunks()) {
    Result<std::optional<ExportBlock>> record = shard.Get(xyz[0], xyz[1], xyz[2]);
    if (!record.ok() || !record->has_value()) {
      const Status error =
          record.ok() ? Status::Corruption(file + ": chunk " + std::to_string(xyz[0]) + "," +
                                           std::to_string(xyz[1]) + "," + std::to_string(xyz[2]) +
                                           " is indexed but missing")
                      : record.status();
      std::printf("%d,%d,%d,error: %s\n", xyz[0], xyz[1], xyz[2], error.ToString().c_str());
      if (errors++ == 0) first_error = error;
      continue;
    }
    const ExportBlock& block = **record;
    std::printf("%d,%d,%d,%zu,%zu,%u\n", xyz[0], xyz[1], xyz[2], block.supervoxels.size(),
                block.dvid_compressed_block.size(), block.uncompressed_size);
  }
  if (errors == 0) return Status::Ok();
  return first_error.WithContext(std::to_string(errors) + " chunk(s) unreadable, the first");
}

Status ShardCommand(const CommandContext& context, const ExportOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(const ExportShardReader shard,
                             OpenExportShard(context.library(), options.file));
  if (options.chunk.empty()) {
    return PrintShard(shard, options.file, options.list);
  }
  if (options.output.empty()) return Status::InvalidArgument("--chunk needs --output");
  CHUNKWISE_RETURN_IF_ERROR(io::CheckOutputPath(options.output, options.overwrite));
  CHUNKWISE_ASSIGN_OR_RETURN(const auto chunk, ParseChunk(options.chunk));
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<ExportBlock> record,
                             shard.Get(chunk[0], chunk[1], chunk[2]));
  if (!record.has_value()) {
    return Status::NotFound(options.file + ": no chunk x,y,z " + options.chunk);
  }
  CHUNKWISE_ASSIGN_OR_RETURN(
      const std::vector<std::uint64_t> voxels,
      DecodeExportBlock(*record, !options.mapped, options.file + ": chunk " + options.chunk));
  CHUNKWISE_RETURN_IF_ERROR(WriteLabels(options.output, {64, 64, 64}, voxels));
  Say(context, "wrote " + options.output + ": chunk x,y,z " + options.chunk + " (64,64,64) " +
                   (options.mapped ? "mapped labels" : "supervoxels"));
  return Status::Ok();
}

Status ReadShardsCommand(const CommandContext& context, const ExportOptions& options) {
  CHUNKWISE_RETURN_IF_ERROR(io::CheckOutputPath(options.output, options.overwrite));
  CHUNKWISE_ASSIGN_OR_RETURN(const auto reader,
                             OpenExportedVolume(context.library(), options.dest));
  if (options.scale < 0 || options.scale >= reader->num_scales()) {
    return Status::InvalidArgument("--scale " + std::to_string(options.scale) + ": " +
                                   options.dest + " has scales 0.." +
                                   std::to_string(reader->num_scales() - 1));
  }
  const auto& size = reader->scale_size(options.scale);
  const std::vector<core::Index> shape{size[2], size[1], size[0]};
  CHUNKWISE_ASSIGN_OR_RETURN(const core::Region region, core::ParseRegion(options.region, shape));
  const VoxelBox box{{region.start()[0], region.start()[1], region.start()[2]},
                     {region.shape()[0], region.shape()[1], region.shape()[2]}};
  CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<std::uint64_t> labels,
                             ReadExportedRegion(context.library(), *reader, options.scale, box,
                                                options.supervoxels, {.threads = options.workers}));
  CHUNKWISE_RETURN_IF_ERROR(
      WriteLabels(options.output, {box.shape[0], box.shape[1], box.shape[2]}, labels));
  Say(context, "wrote " + options.output + ": scale " + std::to_string(options.scale) + " region " +
                   region.ToString() + " (z,y,x), " +
                   (options.supervoxels ? "supervoxels" : "mapped labels"));
  return Status::Ok();
}

}  // namespace

void AddDvidExportCommands(CLI::App& group, CommandContext& context) {
  auto options = std::make_shared<ExportOptions>();
  CLI::App* exp = group.add_subcommand(
      "export-shards", "Export as neuroglancer-sharded Arrow IPC files with CSV chunk indexes");
  exp->add_option("DB", options->db, "Database directory")->required();
  exp->add_option("SPEC_AND_DEST", options->spec_and_dest,
                  "[SPEC] DEST: the neuroglancer multiscale info JSON with sharding (default: "
                  "`chunkwise dvid spec DB`'s, sized from the stored blocks), and the output "
                  "(s<scale>/<shard>.arrow + .csv), a directory or URL, e.g. s3://bucket/export")
      ->required()
      ->expected(1, 2);
  exp->add_option("--resolution", options->resolution,
                  "Voxel size x,y,z in nm for the default spec (default 8,8,8)");
  exp->add_option("--scales", options->scales, "Export at most N scales (default: all)");
  AddThreadsOption(exp, options->workers, "Chunk handlers (default: hardware threads)");
  exp->add_option("--version", options->version, "Version to export (default: newest)");
  exp->add_option("--arrow-format", options->arrow_format, "file (default) or stream (DVID's)")
      ->check(CLI::IsMember({"file", "stream"}));
  exp->add_option("--index", options->index, "CSV index: rec (x,y,z,rec) or offsets (DVID's)")
      ->check(CLI::IsMember({"rec", "offsets"}));
  exp->add_flag("--overwrite", options->overwrite, "Replace an existing export in DEST");
  exp->add_flag("--resume", options->resume,
                "Finish an unpublished export in DEST, keeping its complete shards")
      ->excludes("--overwrite");
  SetAction(exp, context, [&context, options] { return ExportShardsCommand(context, *options); });

  CLI::App* spec = group.add_subcommand(
      "spec", "Print the export spec export-shards uses when given none, to edit and pass back");
  spec->add_option("DB", options->db, "Database directory")->required();
  spec->add_option("--version", options->version, "Version to size it for (default: newest)");
  spec->add_option("--resolution", options->resolution, "Voxel size x,y,z in nm (default 8,8,8)");
  SetAction(spec, context, [options] { return SpecCommand(*options); });

  CLI::App* shard = group.add_subcommand("shard", "Describe an export shard or write one chunk");
  shard
      ->add_option("FILE", options->file,
                   StoreHelp("Shard .arrow (its .csv beside it)", "s3://bucket/export/s0/0.arrow"))
      ->required();
  shard->add_flag("--list", options->list, "List every chunk of the index");
  shard->add_option("--chunk", options->chunk, "Chunk x,y,z to write as a 64^3 uint64 .npy");
  AddOutputOption(shard, "--output", options->output, "Output .npy for --chunk", context);
  shard->add_flag("--mapped", options->mapped, "Mapped labels instead of supervoxels");
  shard->add_flag("--overwrite", options->overwrite, "Replace an existing output");
  SetAction(shard, context, [&context, options] { return ShardCommand(context, *options); });

  CLI::App* read = group.add_subcommand("read-shards", "Read a box of an export to a uint64 .npy");
  read->add_option("DEST", options->dest,
                   StoreHelp("Export (with its info)", "https://host/export"))
      ->required();
  read->add_option("--scale", options->scale, "Scale (default 0)");
  read->add_option("--region", options->region, "z0:z1,y0:y1,x0:x1 at --scale (default: all)");
  AddOutputOption(read, "--output", options->output, "Output .npy", context)->required();
  read->add_flag("--supervoxels", options->supervoxels, "Supervoxels instead of mapped labels");
  AddThreadsOption(read, options->workers, "Threads (default: hardware threads)");
  read->add_flag("--overwrite", options->overwrite, "Replace an existing output");
  SetAction(read, context, [&context, options] { return ReadShardsCommand(context, *options); });
}

}  // namespace chunkwise::cli
