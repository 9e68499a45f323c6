// chunkwise zarr: create, write, read, inspect and convert zarr v3/v2 arrays.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "chunkwise/codec/codec_shorthand.h"
#include "chunkwise/core/dtype_text.h"
#include "chunkwise/core/file_io.h"
#include "chunkwise/core/region.h"
#include "chunkwise/formats/zarr/array.h"
#include "chunkwise/formats/zarr/array_copy.h"
#include "chunkwise/formats/zarr/array_layout.h"
#include "chunkwise/formats/zarr/group.h"
#include "chunkwise/io/file.h"
#include "chunkwise/io/zarr_array_files.h"
#include "chunkwise/parallel/job.h"
#include "chunkwise/pipelines/zarr_conversion.h"
#include "chunkwise/store/file_store.h"
#include "cli/command.h"
#include "cli/vocabulary.h"
#include "cli/zarr_options.h"

namespace chunkwise::cli {
namespace {

namespace zarr = formats::zarr;

struct ZarrOptions {
  std::string path;
  std::string destination;
  std::string shape;
  std::string dtype;
  std::string chunk;
  std::string shard;
  std::string codec;
  std::string index_location = "end";
  std::string checksum = "none";
  std::string fill;
  std::string dimension_names;
  int format = 3;
  std::string input;
  std::string input_dtype;
  std::string input_shape;
  std::string offset;
  std::string region;
  std::string output;
  std::string blosc_encoder = "c-blosc";
  std::size_t threads = 0;
  bool raw = false;
  bool overwrite = false;
  bool resume = false;
  bool json = false;
};

// The pool an array on `store` runs on: --threads where given, else the run's
// library context's pool for the store (one thread per core, more for a
// remote store, as the facade's arrays get).
Result<std::shared_ptr<core::ThreadPool>> PoolFor(const CommandContext& context,
                                                  const store::Store& store, std::size_t threads) {
  if (threads != 0) return core::ThreadPool::Create(threads);
  return context.library().pool_for(store);
}

Result<zarr::Array> OpenArray(const CommandContext& context, const std::string& path,
                              std::size_t threads, zarr::ArrayOptions options = {}) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store, OpenStoreFor(context, path));
  CHUNKWISE_ASSIGN_OR_RETURN(options.pool, PoolFor(context, *store, threads));
  return zarr::Array::Open(std::move(store), "", std::move(options));
}

Result<zarr::ArrayLayout> LayoutFromOptions(const ZarrOptions& options) {
  zarr::ArrayLayout layout;
  CHUNKWISE_ASSIGN_OR_RETURN(layout.shape, core::ParseShape(options.shape));
  CHUNKWISE_ASSIGN_OR_RETURN(layout.data_type, core::ParseDataType(options.dtype));
  CHUNKWISE_ASSIGN_OR_RETURN(layout.chunk_shape, core::ParseShape(options.chunk));
  if (!options.shard.empty()) {
    CHUNKWISE_ASSIGN_OR_RETURN(layout.shard_shape, core::ParseShape(options.shard));
  }
  CHUNKWISE_ASSIGN_OR_RETURN(layout.codec,
                             CodecWithChecksum(options.codec, layout.codec, options.checksum));
  CHUNKWISE_ASSIGN_OR_RETURN(layout.index_location, ParseIndexLocation(options.index_location));
  if (!options.fill.empty()) layout.fill_value = options.fill;
  layout.dimension_names = SplitNames(options.dimension_names);
  layout.zarr_format = options.format;
  return layout;
}

// The encoders chunks are written with: --blosc-encoder, or deterministic
// blosc-lz4 when --codec says "blosc:lz4det…".
Result<codec::CodecBuildOptions> BuildOptions(const ZarrOptions& options, std::size_t typesize) {
  codec::CodecBuildOptions build;
  CHUNKWISE_ASSIGN_OR_RETURN(build.blosc_encoder, codec::ParseBloscEncoder(options.blosc_encoder));
  if (options.codec.empty()) return build;
  Result<codec::CodecShorthand> shorthand =
      codec::ParseCodecShorthandWithEncoders(options.codec, typesize);
  if (!shorthand.ok()) return shorthand.status().WithContext("--codec");
  if (shorthand->build.blosc_encoder != codec::BloscEncoder::kCBlosc) build = shorthand->build;
  return build;
}

std::string DescribeChunks(const zarr::Array& array) {
  const zarr::ExistingLayout layout = zarr::DescribeLayout(array.metadata());
  std::string text = "chunks [" + core::FormatShape(layout.chunk_shape) + "]";
  if (layout.shard_shape) text += " in shards [" + core::FormatShape(*layout.shard_shape) + "]";
  return text;
}

Status Create(const CommandContext& context, const ZarrOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(zarr::ArrayLayout layout, LayoutFromOptions(options));
  CHUNKWISE_ASSIGN_OR_RETURN(zarr::ArrayMetadata metadata, zarr::BuildArrayMetadata(layout));
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStoreFor(context, options.path, true));
  CHUNKWISE_ASSIGN_OR_RETURN(zarr::Array array,
                             zarr::Array::Create(store, "", metadata, options.overwrite));
  Say(context, "created zarr v" + std::to_string(metadata.zarr_format) + " array " + options.path +
                   ": " + std::string(metadata.data_type.zarr_name()) + " [" +
                   core::FormatShape(metadata.shape) + "], " + DescribeChunks(array));
  return Status::Ok();
}

Status Write(const CommandContext& context, const ZarrOptions& options) {
  io::ArrayFileHint hint;
  if (!options.input_dtype.empty()) {
    CHUNKWISE_ASSIGN_OR_RETURN(hint.dtype, core::ParseNpyDtype(options.input_dtype));
  }
  if (!options.input_shape.empty()) {
    CHUNKWISE_ASSIGN_OR_RETURN(hint.shape, core::ParseShape(options.input_shape));
  }
  core::Coord offset;
  if (!options.offset.empty()) {
    CHUNKWISE_ASSIGN_OR_RETURN(offset, core::ParseShape(options.offset));
  }
  CHUNKWISE_ASSIGN_OR_RETURN(codec::CodecBuildOptions build, BuildOptions(options, 1));
  Result<zarr::Array> opened =
      OpenArray(context, options.path, options.threads, {.codec_build = build});
  if (!opened.ok()) return opened.status().WithContext(options.path);
  zarr::Array array = *std::move(opened);
  if (!hint.dtype) {
    hint.dtype = core::NpyDtype::FromDataType(array.metadata().data_type, core::Endian::kLittle);
  }
  std::error_code error;  // An unreadable input is reported by the import itself.
  std::uint64_t input_bytes = std::filesystem::file_size(options.input, error);
  if (error) input_bytes = 0;
  core::ProgressReporter progress(
      {.label = "zarr write", .total_units = input_bytes, .mode = context.progress_mode()});
  array.set_progress(&progress);
  CHUNKWISE_RETURN_IF_ERROR(io::ImportArrayFile(options.input, hint, array, offset));
  progress.Finish();
  Say(context, "wrote " + options.input + " into " + options.path);
  return Status::Ok();
}

Status Read(const CommandContext& context, const ZarrOptions& options) {
  CHUNKWISE_RETURN_IF_ERROR(io::CheckOutputPath(options.output, options.overwrite));
  CHUNKWISE_ASSIGN_OR_RETURN(zarr::Array array, OpenArray(context, options.path, options.threads));
  CHUNKWISE_ASSIGN_OR_RETURN(core::Region region,
                             core::ParseRegion(options.region, array.metadata().shape));
  const auto total =
      static_cast<std::uint64_t>(region.num_elements()) * array.metadata().data_type.size();
  core::ProgressReporter progress(
      {.label = "zarr read", .total_units = total, .mode = context.progress_mode()});
  array.set_progress(&progress);
  const bool raw = WritesRaw(options.raw, options.output);
  CHUNKWISE_RETURN_IF_ERROR(io::ExportRegion(array, region, options.output, raw));
  progress.Finish();
  Say(context, "wrote " + options.output + ": region [" + region.ToString() + "] of " +
                   options.path + (raw ? " (raw little-endian)" : " (.npy)"));
  return Status::Ok();
}

// `zarr info` of a group: its members, one line (or one JSON object) each.
Status GroupInfo(const ZarrOptions& options, const store::Store& store) {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<zarr::GroupMember> members,
                             zarr::ListGroupMembers(store, ""));
  nlohmann::ordered_json listed = nlohmann::ordered_json::array();
  if (!options.json)
    std::printf("%s: zarr group, %zu members\n", options.path.c_str(), members.size());
  for (const zarr::GroupMember& member : members) {
    nlohmann::ordered_json entry;
    entry["path"] = member.path;
    entry["node_type"] = member.is_group ? "group" : "array";
    entry["zarr_format"] = member.zarr_format;
    if (!member.is_group) {
      entry["shape"] = member.shape;
      entry["dtype"] = member.data_type_name;
      entry["chunk_shape"] = member.chunk_shape;
      entry["shard_shape"] =
          member.shard_shape ? nlohmann::json(*member.shard_shape) : nlohmann::json();
    }
    if (!options.json) {
      std::printf(
          "  %-24s %s\n", member.path.c_str(),
          member.is_group
              ? "group"
              : ("array [" + core::FormatShape(member.shape) + "] " + member.data_type_name +
                 ", chunks [" + core::FormatShape(member.chunk_shape) + "]" +
                 (member.shard_shape ? " in shards [" + core::FormatShape(*member.shard_shape) + "]"
                                     : ""))
                    .c_str());
    }
    listed.push_back(std::move(entry));
  }
  if (options.json) {
    nlohmann::ordered_json root;
    root["path"] = options.path;
    root["node_type"] = "group";
    root["members"] = std::move(listed);
    std::printf("%s\n", root.dump().c_str());
  }
  return Status::Ok();
}

nlohmann::ordered_json ArrayInfoJson(const ZarrOptions& options, const zarr::Array& array,
                                     const zarr::ArrayStorageStats& stats) {
  const zarr::ArrayMetadata& metadata = array.metadata();
  const zarr::ExistingLayout layout = zarr::DescribeLayout(metadata);
  nlohmann::ordered_json root;
  root["path"] = options.path;
  root["node_type"] = "array";
  root["zarr_format"] = metadata.zarr_format;
  root["shape"] = metadata.shape;
  root["dtype"] = std::string(metadata.data_type.zarr_name());
  root["fill_value"] = metadata.fill_value_null
                           ? nlohmann::json()
                           : zarr::FillValueToJson(metadata.fill_value, metadata.data_type);
  root["chunk_shape"] = layout.chunk_shape;
  root["shard_shape"] = layout.shard_shape ? nlohmann::json(*layout.shard_shape) : nlohmann::json();
  root["codecs"] = metadata.codecs;
  root["dimension_names"] =
      metadata.dimension_names ? nlohmann::json(*metadata.dimension_names) : nlohmann::json();
  root["stored_objects"] = stats.stored_keys;
  root["grid_objects"] = stats.grid_chunks;
  root["stored_bytes"] = stats.stored_bytes;
  if (array.sharding() != nullptr) {
    root["stored_inner_chunks"] = stats.stored_inner_chunks;
    root["grid_inner_chunks"] = stats.grid_inner_chunks;
  }
  root["logical_bytes"] = stats.logical_bytes;
  return root;
}

// `zarr info` of an array whose codecs or data type this library cannot
// read: what its metadata says, and why it cannot be read.
Status UnreadableArrayInfo(const ZarrOptions& options, const store::Store& store,
                           const Status& why) {
  CHUNKWISE_ASSIGN_OR_RETURN(const zarr::ArrayMetadata metadata,
                             zarr::ReadArrayMetadata(store, ""));
  const zarr::ExistingLayout layout = zarr::DescribeLayout(metadata);
  if (options.json) {
    nlohmann::ordered_json root;
    root["path"] = options.path;
    root["node_type"] = "array";
    root["zarr_format"] = metadata.zarr_format;
    root["shape"] = metadata.shape;
    root["dtype"] = metadata.data_type_name();
    root["chunk_shape"] = layout.chunk_shape;
    root["shard_shape"] =
        layout.shard_shape ? nlohmann::json(*layout.shard_shape) : nlohmann::json();
    root["codecs"] = metadata.codecs;
    root["dimension_names"] =
        metadata.dimension_names ? nlohmann::json(*metadata.dimension_names) : nlohmann::json();
    root["readable"] = false;
    root["unsupported"] = std::string(why.message());
    std::printf("%s\n", root.dump().c_str());
    return Status::Ok();
  }
  std::printf("%s: zarr v%d array (not readable here)\n", options.path.c_str(),
              metadata.zarr_format);
  std::printf("  shape        [%s] %s\n", core::FormatShape(metadata.shape).c_str(),
              metadata.data_type_name().c_str());
  std::printf("  layout       chunks [%s]%s\n", core::FormatShape(layout.chunk_shape).c_str(),
              layout.shard_shape
                  ? (" in shards [" + core::FormatShape(*layout.shard_shape) + "]").c_str()
                  : "");
  std::printf("  codecs       %s\n", metadata.codecs.dump().c_str());
  if (metadata.dimension_names) {
    std::printf("  dimensions   %s\n", metadata.dimension_names->dump().c_str());
  }
  std::printf("  unsupported  %s\n", std::string(why.message()).c_str());
  return Status::Ok();
}

Status Info(const CommandContext& context, const ZarrOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStoreFor(context, options.path));
  CHUNKWISE_ASSIGN_OR_RETURN(const bool group, zarr::IsGroup(*store, ""));
  if (group) return GroupInfo(options, *store);
  CHUNKWISE_ASSIGN_OR_RETURN(const std::shared_ptr<core::ThreadPool> pool,
                             PoolFor(context, *store, options.threads));
  Result<zarr::Array> opened = zarr::Array::Open(store, "", {.pool = pool});
  if (!opened.ok() && opened.status().code() == StatusCode::kUnsupported) {
    return UnreadableArrayInfo(options, *store, opened.status());
  }
  CHUNKWISE_ASSIGN_OR_RETURN(zarr::Array array, std::move(opened));
  const zarr::ArrayMetadata& metadata = array.metadata();
  CHUNKWISE_ASSIGN_OR_RETURN(zarr::ArrayStorageStats stats, array.Stats());
  if (options.json) {
    std::printf("%s\n", ArrayInfoJson(options, array, stats).dump().c_str());
    return Status::Ok();
  }
  std::printf("%s: zarr v%d array\n", options.path.c_str(), metadata.zarr_format);
  std::printf("  shape        [%s] %s, fill value %s\n", core::FormatShape(metadata.shape).c_str(),
              std::string(metadata.data_type.zarr_name()).c_str(),
              metadata.fill_value_null
                  ? "null"
                  : zarr::FillValueToJson(metadata.fill_value, metadata.data_type).dump().c_str());
  std::printf("  layout       %s\n", DescribeChunks(array).c_str());
  std::printf("  codecs       %s\n", metadata.codecs.dump().c_str());
  if (metadata.dimension_names) {
    std::printf("  dimensions   %s\n", metadata.dimension_names->dump().c_str());
  }
  const char* object = array.sharding() != nullptr ? "shards" : "chunks";
  std::printf("  stored       %llu of %llu %s, %s\n",
              static_cast<unsigned long long>(stats.stored_keys),
              static_cast<unsigned long long>(stats.grid_chunks), object,
              FormatBytes(static_cast<double>(stats.stored_bytes)).c_str());
  if (array.sharding() != nullptr) {
    std::printf("  inner chunks %llu of %llu stored\n",
                static_cast<unsigned long long>(stats.stored_inner_chunks),
                static_cast<unsigned long long>(stats.grid_inner_chunks));
  }
  const double ratio = stats.stored_bytes == 0 ? 0.0
                                               : static_cast<double>(stats.logical_bytes) /
                                                     static_cast<double>(stats.stored_bytes);
  std::printf("  data         %s uncompressed, compression ratio %.2f\n",
              FormatBytes(static_cast<double>(stats.logical_bytes)).c_str(), ratio);
  return Status::Ok();
}

Status Import(const CommandContext& context, const ZarrOptions& options) {
  zarr::ArrayLayout layout;
  CHUNKWISE_ASSIGN_OR_RETURN(layout.chunk_shape, core::ParseShape(options.chunk));
  if (!options.shard.empty()) {
    CHUNKWISE_ASSIGN_OR_RETURN(layout.shard_shape, core::ParseShape(options.shard));
  }
  CHUNKWISE_ASSIGN_OR_RETURN(layout.codec,
                             CodecWithChecksum(options.codec, layout.codec, options.checksum));
  CHUNKWISE_ASSIGN_OR_RETURN(layout.index_location, ParseIndexLocation(options.index_location));
  if (!options.fill.empty()) layout.fill_value = options.fill;
  layout.dimension_names = SplitNames(options.dimension_names);
  layout.zarr_format = options.format;
  CHUNKWISE_ASSIGN_OR_RETURN(codec::CodecBuildOptions build, BuildOptions(options, 1));
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStoreFor(context, options.destination, true));
  CHUNKWISE_ASSIGN_OR_RETURN(const std::shared_ptr<core::ThreadPool> pool,
                             PoolFor(context, *store, options.threads));
  std::error_code error;  // An unreadable input is reported by the import itself.
  std::uint64_t input_bytes = std::filesystem::file_size(options.input, error);
  if (error) input_bytes = 0;
  // Under mpirun or srun, one rank of the job (docs/scale.md); else the process alone.
  CHUNKWISE_ASSIGN_OR_RETURN(const std::unique_ptr<core::Communicator> ranks, parallel::JoinJob());
  core::ProgressReporter progress(
      {.label = "zarr import",
       .total_units = input_bytes / static_cast<std::uint64_t>(ranks->size()),
       .mode = ranks->rank() == 0 ? context.progress_mode() : core::ProgressMode::kQuiet});
  CHUNKWISE_ASSIGN_OR_RETURN(
      zarr::Array array,
      io::ImportNpyAsNewArray(options.input, layout, store, "", options.overwrite,
                              {.pool = pool, .progress = &progress, .codec_build = build},
                              {.ranks = ranks.get(),
                               .resume = options.resume,
                               .before_box = parallel::ShardFaultFromEnvironment(ranks->rank())}));
  progress.Finish();
  if (ranks->rank() != 0) return Status::Ok();
  const zarr::ArrayMetadata& metadata = array.metadata();
  Say(context, "imported " + options.input + " as zarr v" + std::to_string(metadata.zarr_format) +
                   " array " + options.destination +
                   (ranks->size() > 1 ? " with " + std::to_string(ranks->size()) + " ranks" : "") +
                   ": " + std::string(metadata.data_type.zarr_name()) + " [" +
                   core::FormatShape(metadata.shape) + "], " + DescribeChunks(array));
  return Status::Ok();
}

// The destination layout: the source's, with the options given on the command line.
Result<pipelines::ZarrConversionLayout> ConversionLayout(const ZarrOptions& options) {
  pipelines::ZarrConversionLayout layout;
  if (!options.chunk.empty()) {
    CHUNKWISE_ASSIGN_OR_RETURN(layout.chunks, core::ParseShape(options.chunk));
  }
  if (!options.shard.empty()) {
    CHUNKWISE_ASSIGN_OR_RETURN(layout.shards, core::ParseShape(options.shard));
  }
  CHUNKWISE_ASSIGN_OR_RETURN(layout.index_location, ParseIndexLocation(options.index_location));
  layout.zarr_format = options.format;
  if (options.codec.empty()) {
    // The source's codecs are kept as they are, checksum or not.
    if (options.checksum != "none") {
      return Status::InvalidArgument("--checksum " + options.checksum +
                                     " needs --codec (without it the source's codecs are kept)");
    }
    return layout;
  }
  CHUNKWISE_ASSIGN_OR_RETURN(layout.codecs,
                             CodecWithChecksum(options.codec, options.codec, options.checksum));
  return layout;
}

// Under mpirun or srun every rank runs this (docs/scale.md); the job itself
// is pipelines::ConvertZarrArray.
Status Convert(const CommandContext& context, const ZarrOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::unique_ptr<core::Communicator> ranks, parallel::JoinJob());
  CHUNKWISE_ASSIGN_OR_RETURN(zarr::Array source, OpenArray(context, options.path, options.threads));
  CHUNKWISE_ASSIGN_OR_RETURN(const pipelines::ZarrConversionLayout layout,
                             ConversionLayout(options));
  CHUNKWISE_ASSIGN_OR_RETURN(const zarr::ArrayMetadata metadata,
                             pipelines::ConvertedMetadata(source.metadata(), layout));
  CHUNKWISE_ASSIGN_OR_RETURN(codec::CodecBuildOptions build,
                             BuildOptions(options, metadata.data_type.size()));
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStoreFor(context, options.destination, true));
  CHUNKWISE_ASSIGN_OR_RETURN(const std::shared_ptr<core::ThreadPool> pool,
                             PoolFor(context, *store, options.threads));
  CHUNKWISE_ASSIGN_OR_RETURN(
      const zarr::Array destination,
      pipelines::ConvertZarrArray(
          source, std::move(store), "", metadata,
          {.ranks = ranks.get(),
           .overwrite = options.overwrite,
           .resume = options.resume,
           .destination = {.pool = pool, .codec_build = build},
           .progress = {.label = "zarr convert", .mode = context.progress_mode()},
           .before_object = parallel::ShardFaultFromEnvironment(ranks->rank())}));
  if (ranks->rank() == 0) {
    Say(context,
        "converted " + options.path + " to zarr v" + std::to_string(metadata.zarr_format) + " " +
            options.destination +
            (ranks->size() > 1 ? " with " + std::to_string(ranks->size()) + " ranks" : "") + ": " +
            DescribeChunks(destination));
  }
  return Status::Ok();
}

void AddLayoutOptions(CLI::App* command, ZarrOptions& options) {
  command->add_option("--shard", options.shard, "Shard shape (v3), a multiple of the chunk");
  command->add_option("--codec", options.codec,
                      "zstd:3 | blosc:lz4:5:shuffle | gzip:6 | none (joined with +); "
                      "blosc:lz4det:5:shuffle writes blosc lz4 with the deterministic encoder");
  command->add_option("--index-location", options.index_location, "Shard index: end or start");
  command->add_option("--checksum", options.checksum, kChecksumHelp)->capture_default_str();
  command->add_option("--format", options.format, "Zarr format: 3 (default) or 2");
  command->add_flag("--overwrite", options.overwrite, "Replace an existing array");
}

void AddBloscEncoderOption(CLI::App* command, ZarrOptions& options) {
  command
      ->add_option("--blosc-encoder", options.blosc_encoder,
                   "Writes blosc chunks with c-blosc or deterministic (lz4, byte or no shuffle: "
                   "the same bytes on any machine and on the GPU)")
      ->capture_default_str();
}

}  // namespace

void AddZarrCommands(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<ZarrOptions>();
  CLI::App* group =
      app.add_subcommand("zarr", "Create, write, read, inspect and convert zarr arrays");
  group->require_subcommand(1);

  CLI::App* create = group->add_subcommand("create", "Create an empty zarr array");
  create->add_option("PATH", options->path, StoreHelp("Array"))->required();
  create->add_option("--shape", options->shape, "Array shape, e.g. 512,512,512")->required();
  create
      ->add_option("--dtype", options->dtype,
                   "NumPy name or typestr: uint16 or <u2, float32 or <f4, bool or |b1")
      ->required();
  create->add_option("--chunk", options->chunk, "Chunk shape (inner chunk when sharded)")
      ->required();
  create->add_option("--fill", options->fill, "Fill value: a number, true/false, nan, inf, 0x…");
  create->add_option("--dimension-names", options->dimension_names, "Names, e.g. z,y,x");
  AddLayoutOptions(create, *options);
  SetAction(create, context, [&context, options] { return Create(context, *options); });

  CLI::App* write = group->add_subcommand("write", "Write an array file into a zarr array");
  write->add_option("PATH", options->path, StoreHelp("Array"))->required();
  write->add_option("--input", options->input, ".npy or raw little-endian file")->required();
  write->add_option("--offset", options->offset, "Where the input's first element goes");
  write->add_option("--dtype", options->input_dtype,
                    "Raw input dtype, uint16 or <u2 (default: the array's)");
  write->add_option("--shape", options->input_shape, "Raw input shape; 0 in dim 0 means infer");
  AddBloscEncoderOption(write, *options);
  AddThreadsOption(write, options->threads, "Compressing threads (default: one per core)");
  SetAction(write, context, [&context, options] { return Write(context, *options); });

  CLI::App* read = group->add_subcommand("read", "Read a region of a zarr array to a file");
  read->add_option("PATH", options->path, StoreHelp("Array", "https://host/a.zarr"))->required();
  read->add_option("--region", options->region, "e.g. 0:64,10:20,: (default: everything)");
  AddOutputOption(read, "--output", options->output,
                  ".npy (also on stdout), or raw by extension or --raw", context)
      ->required();
  read->add_flag("--raw", options->raw, "Write raw little-endian bytes");
  AddThreadsOption(read, options->threads, "Decompressing threads (default: one per core)");
  read->add_flag("--overwrite", options->overwrite, "Replace an existing output");
  SetAction(read, context, [&context, options] { return Read(context, *options); });

  CLI::App* info = group->add_subcommand(
      "info", "Describe a zarr array and what it stores, or list a group's members");
  info->add_option("PATH", options->path, StoreHelp("Array or group", "https://host/a.zarr"))
      ->required();
  AddJsonFlag(info, options->json);
  SetAction(info, context, [&context, options] { return Info(context, *options); });

  CLI::App* convert = group->add_subcommand("convert", "Copy a zarr array into a new layout");
  convert->add_option("SRC", options->path, StoreHelp("Source array (v2 or v3)"))->required();
  convert
      ->add_option("DST", options->destination,
                   StoreHelp("Destination array", "s3://bucket/b.zarr"))
      ->required();
  convert->add_option("--chunk", options->chunk, "Chunk shape (default: the source's)");
  AddLayoutOptions(convert, *options);
  convert
      ->add_flag("--resume", options->resume,
                 "Finish an unpublished convert of the same source and layout, keeping its "
                 "stored shards")
      ->excludes("--overwrite");
  AddBloscEncoderOption(convert, *options);
  AddThreadsOption(convert, options->threads, "Threads (default: one per core)");
  SetAction(convert, context, [&context, options] { return Convert(context, *options); });

  CLI::App* import = group->add_subcommand(
      "import", "A new zarr array from a .npy file, its shape and dtype from the header");
  import->add_option("FILE", options->input, ".npy file")->required();
  import->add_option("DEST", options->destination, "Array directory to create")->required();
  import->add_option("--chunk", options->chunk, "Chunk shape (inner chunk when sharded)")
      ->required();
  import->add_option("--fill", options->fill, "Fill value: a number, true/false, nan, inf, 0x…");
  import->add_option("--dimension-names", options->dimension_names, "Names, e.g. z,y,x");
  AddLayoutOptions(import, *options);
  import
      ->add_flag("--resume", options->resume,
                 "Finish an unpublished import of the same file and layout, keeping its "
                 "stored shards")
      ->excludes("--overwrite");
  AddBloscEncoderOption(import, *options);
  AddThreadsOption(import, options->threads, "Compressing threads (default: one per core)");
  SetAction(import, context, [&context, options] { return Import(context, *options); });

  AddZarrStreamCommand(*group, context);
  AddZarrPrecomputedCommand(*group, context);
}

}  // namespace chunkwise::cli
