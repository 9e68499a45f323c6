// chunkwise precomputed info|read, dvid to-precomputed and zarr
// to-precomputed: neuroglancer precomputed volumes inspected, read, and
// made from export shards or zarr arrays.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "chunkwise/chunkwise.h"
#include "chunkwise/io/file.h"
#include "chunkwise/io/npy_file.h"
#include "cli/command.h"
#include "cli/vocabulary.h"

namespace chunkwise::cli {
namespace {

struct PrecomputedOptions {
  std::string source;
  std::string dest;
  std::string output;
  std::string region;
  std::string spec;
  std::string scales;
  std::string chunk = "64,64,64";
  std::string resolution = "1,1,1";
  std::string sharding;
  std::string type;
  std::string encoding;
  std::string data_encoding = "gzip";
  int scale = 0;
  int num_scales = 1;
  int gzip_level = 6;
  std::size_t threads = 0;
  bool supervoxels = false;
  bool overwrite = false;
  bool json = false;
  bool resume = false;
  bool sharded = false;
};

Result<std::vector<int>> ParseScaleList(const std::string& text) {
  std::vector<int> scales;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::optional<core::Index> value = core::ParseIndex(text.substr(start, comma - start));
    if (!value.has_value() || *value < 0 || *value > 63) {
      return Status::InvalidArgument("--scales must be scale numbers like 0,1,2, not \"" + text +
                                     "\"");
    }
    scales.push_back(static_cast<int>(*value));
    start = comma + 1;
  }
  return scales;
}

std::string Describe(const PrecomputedScaleInfo& scale) {
  const auto grid = scale.grid();
  std::string text = "  " + scale.key + ": size " + std::to_string(scale.size[0]) + "x" +
                     std::to_string(scale.size[1]) + "x" + std::to_string(scale.size[2]) +
                     ", chunks " + std::to_string(scale.chunk_size[0]) + "x" +
                     std::to_string(scale.chunk_size[1]) + "x" +
                     std::to_string(scale.chunk_size[2]) + " (grid " + std::to_string(grid[0]) +
                     "x" + std::to_string(grid[1]) + "x" + std::to_string(grid[2]) + "), " +
                     std::string(ChunkEncodingName(scale.encoding));
  if (scale.sharding.has_value()) {
    const PrecomputedShardingSpec& s = *scale.sharding;
    text += ", sharded (preshift " + std::to_string(s.preshift_bits) + ", minishard " +
            std::to_string(s.minishard_bits) + ", shard " + std::to_string(s.shard_bits) + ", " +
            (s.hash == PrecomputedShardHash::kIdentity ? "identity" : "murmurhash3_x86_128") + ")";
  } else {
    text += ", unsharded";
  }
  return text;
}

// The volume's `info` as stored, and what each scale holds.
Status InfoJson(const PrecomputedOptions& options, const PrecomputedVolume& volume,
                const std::vector<PrecomputedStoredScale>& stored) {
  nlohmann::ordered_json root;
  root["path"] = options.source;
  root["info"] = VolumeInfoToJson(volume.info());
  nlohmann::ordered_json scales = nlohmann::ordered_json::array();
  for (const PrecomputedStoredScale& scale : stored) {
    scales.push_back(
        {{"key", scale.key}, {"stored_objects", scale.objects}, {"stored_bytes", scale.bytes}});
  }
  root["stored"] = std::move(scales);
  std::printf("%s\n", root.dump().c_str());
  return Status::Ok();
}

Status InfoCommand(const CommandContext& context, const PrecomputedOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(auto volume, OpenPrecomputed(context.library(), options.source));
  CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<PrecomputedStoredScale> stored,
                             DescribePrecomputedStorage(*volume));
  if (options.json) return InfoJson(options, *volume, stored);
  const PrecomputedVolumeInfo& info = volume->info();
  std::printf("%s: neuroglancer precomputed %s, %s, %d channel(s), %d scale(s)\n",
              options.source.c_str(), std::string(VolumeTypeName(info.type)).c_str(),
              std::string(info.data_type.zarr_name()).c_str(), info.num_channels,
              volume->num_scales());
  for (std::size_t s = 0; s < info.scales.size(); ++s) {
    const PrecomputedScaleInfo& scale = info.scales[s];
    std::printf("%s\n", Describe(scale).c_str());
    std::printf("    %llu %s stored, %s\n", static_cast<unsigned long long>(stored[s].objects),
                scale.sharding.has_value() ? "shards" : "chunks",
                FormatBytes(static_cast<double>(stored[s].bytes)).c_str());
  }
  return Status::Ok();
}

Status ReadCommand(const CommandContext& context, const PrecomputedOptions& options) {
  CHUNKWISE_RETURN_IF_ERROR(io::CheckOutputPath(options.output, options.overwrite));
  CHUNKWISE_ASSIGN_OR_RETURN(auto volume, OpenPrecomputed(context.library(), options.source));
  if (options.scale < 0 || options.scale >= volume->num_scales()) {
    return Status::InvalidArgument("--scale " + std::to_string(options.scale) + ": " +
                                   options.source + " has scales 0.." +
                                   std::to_string(volume->num_scales() - 1));
  }
  const auto& size = volume->scale(options.scale).size;
  const std::vector<core::Index> shape{size[2], size[1], size[0]};
  CHUNKWISE_ASSIGN_OR_RETURN(const core::Region region, core::ParseRegion(options.region, shape));
  core::NpyArray array;
  array.dtype = core::NpyDtype::FromDataType(volume->info().data_type, core::Endian::kLittle);
  if (volume->info().num_channels > 1) array.shape.push_back(volume->info().num_channels);
  for (const core::Index extent : region.shape()) array.shape.push_back(extent);
  CHUNKWISE_ASSIGN_OR_RETURN(
      array.data, ReadPrecomputedRegion(context.library(), *volume, options.scale, region));
  CHUNKWISE_RETURN_IF_ERROR(io::WriteNpy(options.output, array));
  Say(context, "wrote " + options.output + ": scale " + volume->scale(options.scale).key +
                   " region " + region.ToString() + " (z,y,x)");
  return Status::Ok();
}

// Adds the flag to messages about a taken destination.
Status WithDestinationHint(Status status) {
  if (status.code() == StatusCode::kInvalidArgument &&
      status.message().find("exist") != std::string_view::npos) {
    return Status::InvalidArgument(std::string(status.message()) +
                                   " (--overwrite replaces it, --resume finishes it)");
  }
  return status;
}

Status DvidToPrecomputedCommand(const CommandContext& context, const PrecomputedOptions& options) {
  ExportToPrecomputedOptions convert;
  CHUNKWISE_ASSIGN_OR_RETURN(convert.scales, ParseScaleList(options.scales));
  convert.supervoxels = options.supervoxels;
  convert.data_encoding = options.data_encoding == "raw" ? PrecomputedShardEncoding::kRaw
                                                         : PrecomputedShardEncoding::kGzip;
  convert.gzip_level = options.gzip_level;
  convert.overwrite = options.overwrite;
  convert.resume = options.resume;
  // Under mpirun or srun, one rank of the job (docs/scale.md); else the process alone.
  CHUNKWISE_ASSIGN_OR_RETURN(const std::unique_ptr<Communicator> ranks, JoinJobRanks());
  convert.ranks = ranks.get();
  convert.before_shard = RankFaultFromEnvironment(ranks->rank());
  Result<ExportToPrecomputedSummary> summary = ExportToPrecomputed(
      context.library(),
      {.export_url = options.source, .dest_url = options.dest, .spec_url = options.spec}, convert,
      {.threads = options.threads});
  if (!summary.ok()) return WithDestinationHint(summary.status());
  if (ranks->rank() != 0) return Status::Ok();
  Say(context, "converted " + options.source + " to " + options.dest +
                   (ranks->size() > 1 ? " with " + std::to_string(ranks->size()) + " ranks" : "") +
                   " (" + (options.supervoxels ? "supervoxels" : "mapped labels") + ")\n" +
                   summary->Format());
  return Status::Ok();
}

Status ZarrToPrecomputedCommand(const CommandContext& context, const PrecomputedOptions& options) {
  ZarrToPrecomputedOptions convert;
  if (!options.type.empty()) {
    CHUNKWISE_ASSIGN_OR_RETURN(convert.type, ParsePrecomputedVolumeType(options.type));
  }
  if (!options.encoding.empty()) {
    CHUNKWISE_ASSIGN_OR_RETURN(convert.encoding, ParsePrecomputedChunkEncoding(options.encoding));
  }
  CHUNKWISE_ASSIGN_OR_RETURN(convert.chunk_size,
                             ParseTriple<core::Index>(options.chunk, "--chunk"));
  CHUNKWISE_ASSIGN_OR_RETURN(convert.resolution,
                             ParseTriple<double>(options.resolution, "--resolution"));
  // The ranges are the facade's to check (ZarrToPrecomputed), for both doors.
  convert.num_scales = options.num_scales;
  if (!options.sharding.empty()) {
    CHUNKWISE_ASSIGN_OR_RETURN(convert.sharding,
                               ParsePrecomputedSharding(options.sharding, "--sharding"));
  }
  convert.auto_sharding = options.sharded;
  convert.gzip_level = options.gzip_level;
  convert.overwrite = options.overwrite;
  Result<ZarrToPrecomputedSummary> summary = ZarrToPrecomputed(
      context.library(), options.source, options.dest, convert, {.threads = options.threads});
  if (!summary.ok()) {
    const Status& status = summary.status();
    if (status.code() == StatusCode::kInvalidArgument &&
        status.message().find("exist") != std::string_view::npos) {
      return Status::InvalidArgument(std::string(status.message()) + " (--overwrite replaces it)");
    }
    return status;
  }
  Say(context, "converted " + options.source + " to " + options.dest + "\n" + summary->Format());
  return Status::Ok();
}

}  // namespace

void AddPrecomputedCommands(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<PrecomputedOptions>();
  CLI::App* group = app.add_subcommand(
      "precomputed", "Inspect and read neuroglancer precomputed volumes (sharded or not)");
  group->require_subcommand(1);

  CLI::App* info = group->add_subcommand("info", "Type, scales, chunking, sharding and sizes");
  info->add_option("PATH", options->source,
                   StoreHelp("The volume (holding `info`)", "https://host/volume"))
      ->required();
  AddJsonFlag(info, options->json);
  SetAction(info, context, [&context, options] { return InfoCommand(context, *options); });

  CLI::App* read = group->add_subcommand("read", "Any box of a scale into a .npy file");
  read->add_option("PATH", options->source, StoreHelp("The volume", "https://host/volume"))
      ->required();
  read->add_option("--scale", options->scale, "Scale number (default 0)");
  read->add_option("--region", options->region, "z0:z1,y0:y1,x0:x1 from 0 (default: all)");
  AddOutputOption(read, "--output", options->output, "Output .npy: (z,y,x), or (c,z,y,x)", context)
      ->required();
  read->add_flag("--overwrite", options->overwrite, "Replace an existing output file");
  SetAction(read, context, [&context, options] { return ReadCommand(context, *options); });
}

void AddDvidPrecomputedCommand(CLI::App& dvid_group, CommandContext& context) {
  auto options = std::make_shared<PrecomputedOptions>();
  CLI::App* command = dvid_group.add_subcommand(
      "to-precomputed",
      "Export shards (ours or DVID's) to a sharded neuroglancer precomputed segmentation");
  command
      ->add_option("EXPORT", options->source,
                   StoreHelp("export-shards output (s<N>/*.arrow + .csv)", "s3://bucket/export"))
      ->required();
  command
      ->add_option("DEST", options->dest,
                   StoreHelp("Output precomputed volume", "s3://bucket/volume"))
      ->required();
  command->add_option("--spec", options->spec, "The export spec (default: EXPORT/info)");
  command->add_option("--scales", options->scales, "Scales to convert, e.g. 0,1,2 (default: all)");
  AddThreadsOption(command, options->threads, "Worker threads (default: one per core)");
  command->add_flag("--supervoxels", options->supervoxels,
                    "Write the supervoxels instead of the mapped labels");
  command
      ->add_option("--data-encoding", options->data_encoding,
                   "Chunk data in the shards when the spec names none: gzip (default) or raw")
      ->check(CLI::IsMember({"gzip", "raw"}));
  command->add_option("--gzip-level", options->gzip_level, "gzip level 1-9 (default 6)")
      ->check(CLI::Range(1, 9));
  command->add_flag("--overwrite", options->overwrite, "Replace a volume in DEST");
  command->add_flag("--resume", options->resume,
                    "Finish an interrupted conversion: keep complete shards, redo the rest");
  SetAction(command, context,
            [&context, options] { return DvidToPrecomputedCommand(context, *options); });
}

void AddZarrPrecomputedCommand(CLI::App& zarr_group, CommandContext& context) {
  auto options = std::make_shared<PrecomputedOptions>();
  CLI::App* command = zarr_group.add_subcommand(
      "to-precomputed", "A 3-d zarr array (z,y,x) to a neuroglancer precomputed volume");
  command->add_option("SRC", options->source, StoreHelp("The zarr array", "s3://bucket/a.zarr"))
      ->required();
  command
      ->add_option("DEST", options->dest,
                   StoreHelp("Output precomputed volume", "s3://bucket/volume"))
      ->required();
  command
      ->add_option("--type", options->type,
                   "segmentation or image (default: segmentation for uint32/uint64)")
      ->check(CLI::IsMember({"segmentation", "image"}));
  command
      ->add_option("--encoding", options->encoding,
                   "raw or compressed_segmentation (default: by type)")
      ->check(CLI::IsMember({"raw", "compressed_segmentation"}));
  command->add_option("--chunk", options->chunk, "Chunk x,y,z (default 64,64,64)");
  command->add_option("--resolution", options->resolution,
                      "Voxel size x,y,z in nm (default 1,1,1)");
  command->add_option("--scales", options->num_scales, "Scales, each half the last (default 1)");
  command->add_flag("--sharded", options->sharded,
                    "neuroglancer_uint64_sharded_v1 with bits chosen per scale");
  command->add_option("--sharding", options->sharding, "A sharding spec as JSON, for every scale");
  AddThreadsOption(command, options->threads, "Worker threads (default: one per core)");
  command->add_option("--gzip-level", options->gzip_level, "gzip level 1-9 (default 6)")
      ->check(CLI::Range(1, 9));
  command->add_flag("--overwrite", options->overwrite, "Replace a volume in DEST");
  SetAction(command, context,
            [&context, options] { return ZarrToPrecomputedCommand(context, *options); });
}

}  // namespace chunkwise::cli
