// chunkwise zarr: create, write, read, inspect and convert zarr v3/v2 arrays,
// each a call of the facade (chunkwise.h).
#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "chunkwise/chunkwise.h"
#include "chunkwise/io/file.h"
#include "cli/command.h"
#include "cli/vocabulary.h"
#include "cli/zarr_options.h"

namespace chunkwise::cli {
namespace {

struct ZarrOptions {
  std::string path;
  std::string destination;
  std::string shape;
  std::string dtype;
  std::string chunk;
  std::string shard;
  std::string codec;
  std::string index_location = "end";
  std::string checksum = "default";
  std::string fill;
  std::string dimension_names;
  std::string attributes;
  int format = 3;
  std::string input;
  std::string dataset;  // import: the dataset inside an HDF5 SRC.
  std::string input_dtype;
  std::string input_shape;
  std::string offset;
  std::string region;
  std::string output;
  std::string blosc_encoder = "c-blosc";
  std::size_t threads = 0;
  std::uint64_t cache_bytes = 0;  // zarr read: the context's chunk cache (0: off).
  bool raw = false;
  bool overwrite = false;
  bool resume = false;
  bool json = false;
};

// A shape from a --flag: "" is a 0-d array's only where `empty_ok`.
Result<core::Shape> ShapeOption(const std::string& text, const char* flag, bool empty_ok = true) {
  Result<core::Shape> shape =
      empty_ok ? ParseArrayShape(text) : Result<core::Shape>(core::ParseShape(text));
  if (!shape.ok()) return shape.status().WithContext(flag);
  return shape;
}

// The spec of a new array from the layout flags; `shape` and `dtype` where given.
Result<ZarrArraySpec> SpecFromOptions(const ZarrOptions& options) {
  ZarrArraySpec spec;
  if (!options.dtype.empty()) {
    CHUNKWISE_ASSIGN_OR_RETURN(spec.data_type, ParseDataType(options.dtype));
  }
  CHUNKWISE_ASSIGN_OR_RETURN(spec.chunks, ShapeOption(options.chunk, "--chunk"));
  if (!options.shard.empty()) {
    CHUNKWISE_ASSIGN_OR_RETURN(spec.shards, ShapeOption(options.shard, "--shard", false));
  }
  Result<CodecChainSpec> chain = ParseCodecs(options.codec.empty() ? "zstd:3" : options.codec);
  if (!chain.ok()) return chain.status().WithContext("--codec");
  spec.codecs = *std::move(chain);
  CHUNKWISE_ASSIGN_OR_RETURN(spec.checksum, ChecksumOption(options.checksum));
  CHUNKWISE_ASSIGN_OR_RETURN(spec.index_location, IndexLocationOption(options.index_location));
  if (!options.fill.empty()) spec.fill_value = options.fill;
  spec.dimension_names = ParseDimensionNames(options.dimension_names);
  if (!options.attributes.empty()) {
    CHUNKWISE_ASSIGN_OR_RETURN(spec.attributes, AttributesOption(options.attributes));
  }
  spec.zarr_format = options.format;
  return spec;
}

// "chunks [a,b] in shards [c,d]" from an info object's chunks and shards (zarr_info.h).
std::string DescribeChunks(const nlohmann::ordered_json& info) {
  std::string text = "chunks [" + ShapeText(info["chunks"]) + "]";
  if (!info["shards"].is_null()) text += " in shards [" + ShapeText(info["shards"]) + "]";
  return text;
}

Result<nlohmann::ordered_json> InfoOf(const CommandContext& context, const ZarrArray& array,
                                      const std::string& url) {
  // The layout only: a summary line need not list the store.
  return ZarrArrayInfo(context.library(), array, url, {.count_stored = false});
}

// `zarr create --dtype string`: an array of variable-length UTF-8 strings,
// the numeric spec's layout options carried over.
Status CreateStrings(const CommandContext& context, const ZarrOptions& options) {
  ZarrOptions numeric = options;
  numeric.dtype.clear();
  CHUNKWISE_ASSIGN_OR_RETURN(const ZarrArraySpec layout, SpecFromOptions(numeric));
  ZarrStringArraySpec spec;
  CHUNKWISE_ASSIGN_OR_RETURN(spec.shape, ShapeOption(options.shape, "--shape"));
  spec.chunks = layout.chunks;
  spec.shards = layout.shards;
  spec.codecs = layout.codecs;
  spec.checksum = layout.checksum;
  spec.fill_value = options.fill;
  spec.dimension_names = layout.dimension_names;
  spec.zarr_format = layout.zarr_format;
  spec.attributes = layout.attributes;
  CHUNKWISE_ASSIGN_OR_RETURN(const ZarrStringArrayInfo info,
                             CreateZarrStringArray(context.library(), options.path, spec,
                                                   {.overwrite = options.overwrite}));
  Say(context, "created zarr v" + std::to_string(info.zarr_format) + " array " + options.path +
                   ": string [" + core::FormatShape(info.shape) + "], chunks [" +
                   core::FormatShape(spec.chunks) + "]");
  return Status::Ok();
}

Status Create(const CommandContext& context, const ZarrOptions& options) {
  if (options.dtype == "string" || options.dtype == "str") return CreateStrings(context, options);
  CHUNKWISE_ASSIGN_OR_RETURN(ZarrArraySpec spec, SpecFromOptions(options));
  CHUNKWISE_ASSIGN_OR_RETURN(spec.shape, ShapeOption(options.shape, "--shape"));
  CHUNKWISE_ASSIGN_OR_RETURN(
      const ZarrArray array,
      CreateZarrArray(context.library(), options.path, spec, {.overwrite = options.overwrite}));
  const std::string shards =
      spec.shards ? " in shards [" + core::FormatShape(*spec.shards) + "]" : "";
  Say(context, "created zarr v" + std::to_string(spec.zarr_format) + " array " + options.path +
                   ": " + array.metadata().data_type_name + " [" + core::FormatShape(spec.shape) +
                   "], chunks [" + core::FormatShape(spec.chunks) + "]" + shards);
  return Status::Ok();
}

// `zarr write` into a variable-length string (bytes) array: a '<U<n>'
// ('|S<n>') .npy, as `zarr read` writes one; a raw file has no fixed element
// size to hold them.
Status WriteStrings(const CommandContext& context, const ZarrOptions& options,
                    const core::Coord& offset, const CallOptions& call) {
  if (!options.input_dtype.empty() || !options.input_shape.empty()) {
    return Status::InvalidArgument(options.path +
                                   ": a string array is written from a .npy only ('<U', or "
                                   "'|S' for bytes), whose header gives the dtype and shape")
        .WithField(options.input_dtype.empty() ? "--shape" : "--dtype");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(
      const core::Region region,
      ImportNpyIntoZarrStrings(context.library(), options.path, options.input, offset, call));
  Say(context,
      "wrote " + options.input + " into " + options.path + ": region [" + region.ToString() + "]");
  return Status::Ok();
}

Status Write(const CommandContext& context, const ZarrOptions& options) {
  io::ArrayFileHint hint;
  if (!options.input_dtype.empty()) {
    CHUNKWISE_ASSIGN_OR_RETURN(hint.dtype, ParseFileDtype(options.input_dtype));
  }
  if (!options.input_shape.empty()) {
    CHUNKWISE_ASSIGN_OR_RETURN(hint.shape, ShapeOption(options.input_shape, "--shape", false));
  }
  core::Coord offset;
  if (!options.offset.empty()) {
    CHUNKWISE_ASSIGN_OR_RETURN(offset, ShapeOption(options.offset, "--offset", false));
  }
  const CallOptions call{.threads = options.threads};
  if (DescribeZarrStringArray(context.library(), options.path, call).ok()) {
    return WriteStrings(context, options, offset, call);
  }
  Result<ZarrArray> opened = OpenZarrArray(context.library(), options.path,
                                           {.blosc_encoder = options.blosc_encoder}, call);
  if (!opened.ok()) return opened.status().WithContext(options.path);
  ZarrArray array = *std::move(opened);
  if (!hint.dtype) {
    hint.dtype = core::NpyDtype::FromDataType(array.metadata().data_type, core::Endian::kLittle);
  }
  std::error_code error;  // An unreadable input is reported by the import itself.
  std::uint64_t input_bytes = std::filesystem::file_size(options.input, error);
  if (error) input_bytes = 0;
  const std::unique_ptr<core::ProgressReporter> progress =
      context.library().StartProgress(call, "zarr write", input_bytes, "B");
  array.set_progress(progress.get());
  const Status written = ImportArrayFileIntoZarr(options.input, hint, array, offset);
  array.set_progress(nullptr);
  CHUNKWISE_RETURN_IF_ERROR(written);
  progress->Finish();
  Say(context, "wrote " + options.input + " into " + options.path);
  return Status::Ok();
}

// `zarr read` of a variable-length string array: a '<U<n>' .npy, as numpy
// would save the strings (a raw file has no fixed element size to hold them).
Status ReadStrings(const CommandContext& context, const ZarrOptions& options,
                   const ZarrStringArrayInfo& info, const CallOptions& call) {
  if (WritesRaw(options.raw, options.output)) {
    return Status::InvalidArgument(options.path +
                                   ": a string array is written only as .npy ('<U'), not raw")
        .WithField("--raw");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(const core::Region region,
                             core::ParseRegion(options.region, info.shape));
  CHUNKWISE_ASSIGN_OR_RETURN(
      const std::size_t width,
      ExportZarrStringsToNpy(context.library(), options.path, region, options.output, call));
  Say(context, "wrote " + options.output + ": region [" + region.ToString() + "] of " +
                   options.path + " (.npy, <U" + std::to_string(width) + ")");
  return Status::Ok();
}

Status Read(const CommandContext& context, const ZarrOptions& options) {
  CHUNKWISE_RETURN_IF_ERROR(io::CheckOutputPath(options.output, options.overwrite));
  const CallOptions call{.threads = options.threads};
  context.library().SetCacheBytes(options.cache_bytes);
  Result<ZarrArray> opened = OpenZarrArray(context.library(), options.path, {}, call);
  if (!opened.ok() && opened.status().code() == StatusCode::kUnsupported) {
    // Variable-length strings have no fixed-size elements: exported as text.
    const Result<ZarrStringArrayInfo> strings =
        DescribeZarrStringArray(context.library(), options.path, call);
    if (strings.ok() && !strings->bytes) return ReadStrings(context, options, *strings, call);
  }
  CHUNKWISE_ASSIGN_OR_RETURN(ZarrArray array, std::move(opened));
  CHUNKWISE_ASSIGN_OR_RETURN(const core::Region region, ParseRegion(options.region, array));
  const auto total =
      static_cast<std::uint64_t>(region.num_elements()) * array.metadata().data_type.size();
  const std::unique_ptr<core::ProgressReporter> progress =
      context.library().StartProgress(call, "zarr read", total, "B");
  array.set_progress(progress.get());
  const bool raw = WritesRaw(options.raw, options.output);
  const Status exported = ExportZarrRegionToFile(array, region, options.output, raw);
  array.set_progress(nullptr);
  CHUNKWISE_RETURN_IF_ERROR(exported);
  progress->Finish();
  Say(context, "wrote " + options.output + ": region [" + region.ToString() + "] of " +
                   options.path + (raw ? " (raw little-endian)" : " (.npy)"));
  if (options.cache_bytes > 0) {
    const CacheStats cache = context.library().cache_stats();
    Say(context, "cache: " + std::to_string(cache.hits) + " hits, " + std::to_string(cache.misses) +
                     " misses, " + FormatBytes(cache.bytes) + " held");
  }
  return Status::Ok();
}

// `zarr info` of a group as text: its members, one line each.
void PrintGroupInfo(const nlohmann::ordered_json& info) {
  const nlohmann::ordered_json& members = info["members"];
  std::printf("%s: zarr group, %zu members\n", info["path"].get<std::string>().c_str(),
              members.size());
  for (const nlohmann::ordered_json& member : members) {
    const bool group = member["node_type"] == "group";
    const std::string what = group ? "group"
                                   : "array [" + ShapeText(member["shape"]) + "] " +
                                         member["dtype"].get<std::string>() + ", " +
                                         DescribeChunks(member);
    std::printf("  %-24s %s\n", member["path"].get<std::string>().c_str(), what.c_str());
  }
}

// `zarr info` of an array as text: the same facts as --json.
void PrintArrayInfo(const nlohmann::ordered_json& info) {
  std::printf("%s: zarr v%d array\n", info["path"].get<std::string>().c_str(),
              info["zarr_format"].get<int>());
  std::printf("  shape        [%s] %s, fill value %s\n", ShapeText(info["shape"]).c_str(),
              info["dtype"].get<std::string>().c_str(), info["fill_value"].dump().c_str());
  std::printf("  layout       %s\n", DescribeChunks(info).c_str());
  std::printf("  codecs       %s\n", info["codecs"].dump().c_str());
  if (!info["dimension_names"].is_null()) {
    std::printf("  dimensions   %s\n", info["dimension_names"].dump().c_str());
  }
  const bool sharded = !info["shards"].is_null();
  const auto count = [&info](const char* key) { return info[key].get<unsigned long long>(); };
  std::printf("  stored       %llu of %llu %s, %s\n", count("nchunks_initialized"),
              count("nchunks"), sharded ? "shards" : "chunks",
              FormatBytes(static_cast<double>(count("nbytes_stored"))).c_str());
  if (sharded) {
    std::printf("  inner chunks %llu of %llu stored\n", count("ninner_chunks_initialized"),
                count("ninner_chunks"));
  }
  const double stored = static_cast<double>(count("nbytes_stored"));
  const double ratio = stored == 0 ? 0.0 : static_cast<double>(count("nbytes")) / stored;
  std::printf("  data         %s uncompressed, compression ratio %.2f\n",
              FormatBytes(static_cast<double>(count("nbytes"))).c_str(), ratio);
}

// `zarr info` of an array without fixed-size elements to count (variable-length
// text, which `zarr read` gives as a unicode .npy) or that this library cannot
// read: what its metadata says, and why not.
void PrintMetadataOnlyArrayInfo(const nlohmann::ordered_json& info) {
  const bool readable = info["readable"].get<bool>();
  std::printf("%s: zarr v%d array (%s)\n", info["path"].get<std::string>().c_str(),
              info["zarr_format"].get<int>(),
              readable ? "variable-length text" : "not readable here");
  std::printf("  shape        [%s] %s\n", ShapeText(info["shape"]).c_str(),
              info["dtype"].get<std::string>().c_str());
  std::printf("  layout       %s\n", DescribeChunks(info).c_str());
  std::printf("  codecs       %s\n", info["codecs"].dump().c_str());
  if (!readable) {
    std::printf("  unsupported  %s\n", info["unsupported"].get<std::string>().c_str());
  }
}

Status Info(const CommandContext& context, const ZarrOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(
      const nlohmann::ordered_json info,
      ZarrInfo(context.library(), options.path, {.threads = options.threads}));
  if (options.json) {
    std::printf("%s\n", info.dump().c_str());
  } else if (info["node_type"] == "group") {
    PrintGroupInfo(info);
  } else if (info.contains("readable")) {
    PrintMetadataOnlyArrayInfo(info);
  } else {
    PrintArrayInfo(info);
  }
  return Status::Ok();
}

// Under mpirun or srun every rank runs this (docs/scale.md); the job itself
// is the facade's ImportNpyAsZarrArray.
Status Import(const CommandContext& context, const ZarrOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(const ZarrArraySpec spec, SpecFromOptions(options));
  // Under mpirun or srun, one rank of the job (docs/scale.md); else the process alone.
  CHUNKWISE_ASSIGN_OR_RETURN(const std::unique_ptr<core::Communicator> ranks, JoinJobRanks());
  CHUNKWISE_ASSIGN_OR_RETURN(
      const ZarrArray array,
      ImportNpyAsZarrArray(context.library(), options.input, options.destination, spec,
                           {.overwrite = options.overwrite,
                            .resume = options.resume,
                            .ranks = ranks.get(),
                            .encoders = {.blosc_encoder = options.blosc_encoder},
                            .before_box = RankFaultFromEnvironment(ranks->rank())},
                           {.threads = options.threads}));
  if (ranks->rank() != 0) return Status::Ok();
  CHUNKWISE_ASSIGN_OR_RETURN(const nlohmann::ordered_json info,
                             InfoOf(context, array, options.destination));
  Say(context, "imported " + options.input + " as zarr v" +
                   std::to_string(info["zarr_format"].get<int>()) + " array " +
                   options.destination +
                   (ranks->size() > 1 ? " with " + std::to_string(ranks->size()) + " ranks" : "") +
                   ": " + info["dtype"].get<std::string>() + " [" + ShapeText(info["shape"]) +
                   "], " + DescribeChunks(info));
  return Status::Ok();
}

// `chunkwise import`: any volume the facade's ImportVolumeAsZarrArray reads
// (.npy, a TIFF stack, a folder of TIFF planes, an HDF5 or N5 dataset, a
// zarr array) as a new array.
Status ImportVolume(const CommandContext& context, const ZarrOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(const ZarrArraySpec spec, SpecFromOptions(options));
  CHUNKWISE_ASSIGN_OR_RETURN(
      const VolumeImport imported,
      ImportVolumeAsZarrArray(context.library(), options.input, options.destination, spec,
                              {.overwrite = options.overwrite,
                               .dataset = options.dataset,
                               .encoders = {.blosc_encoder = options.blosc_encoder}},
                              {.threads = options.threads}));
  CHUNKWISE_ASSIGN_OR_RETURN(const nlohmann::ordered_json info,
                             InfoOf(context, imported.array, imported.array_url));
  const bool named = options.dataset.empty() || options.input.ends_with(":" + options.dataset);
  const std::string source = named ? options.input : options.input + ":" + options.dataset;
  Say(context, "imported " + source + " as zarr v" +
                   std::to_string(info["zarr_format"].get<int>()) + " array " + imported.array_url +
                   ": " + info["dtype"].get<std::string>() + " [" + ShapeText(info["shape"]) +
                   "], " + DescribeChunks(info) +
                   (imported.ome ? ", in the OME-Zarr image " + options.destination : ""));
  return Status::Ok();
}

// The destination layout: the source's, with the options given on the
// command line (`--shard none` drops the source's sharding).
Result<ZarrConversionLayout> ConversionLayout(const ZarrOptions& options) {
  ZarrConversionLayout layout;
  if (!options.chunk.empty()) {
    CHUNKWISE_ASSIGN_OR_RETURN(layout.chunks, ShapeOption(options.chunk, "--chunk", false));
  }
  if (options.shard == "none") {
    layout.unsharded = true;
  } else if (!options.shard.empty()) {
    CHUNKWISE_ASSIGN_OR_RETURN(layout.shards, ShapeOption(options.shard, "--shard", false));
  }
  CHUNKWISE_ASSIGN_OR_RETURN(layout.index_location, IndexLocationOption(options.index_location));
  layout.zarr_format = options.format;
  // Without --codec the source's codecs are kept; the facade adds the
  // checksum to the codecs given (ZarrConvertOptions::checksum).
  if (!options.codec.empty()) layout.codecs = options.codec;
  return layout;
}

// Under mpirun or srun every rank runs this (docs/scale.md); the job itself
// is the facade's ConvertZarrArray.
Status Convert(const CommandContext& context, const ZarrOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::unique_ptr<core::Communicator> ranks, JoinJobRanks());
  CHUNKWISE_ASSIGN_OR_RETURN(const ZarrConversionLayout layout, ConversionLayout(options));
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<ChunkChecksum> checksum,
                             ChecksumOption(options.checksum));
  CHUNKWISE_ASSIGN_OR_RETURN(
      const ZarrArray destination,
      ConvertZarrArray(context.library(), options.path, options.destination, layout,
                       {.checksum = checksum,
                        .overwrite = options.overwrite,
                        .resume = options.resume,
                        .ranks = ranks.get(),
                        .encoders = {.blosc_encoder = options.blosc_encoder},
                        .before_object = RankFaultFromEnvironment(ranks->rank())},
                       {.threads = options.threads}));
  if (ranks->rank() == 0) {
    CHUNKWISE_ASSIGN_OR_RETURN(const nlohmann::ordered_json info,
                               InfoOf(context, destination, options.destination));
    Say(context,
        "converted " + options.path + " to zarr v" +
            std::to_string(info["zarr_format"].get<int>()) + " " + options.destination +
            (ranks->size() > 1 ? " with " + std::to_string(ranks->size()) + " ranks" : "") + ": " +
            DescribeChunks(info));
  }
  return Status::Ok();
}

constexpr const char* kDimensionNamesHelp =
    "Names, e.g. z,y,x; an empty item is a dimension without a name (null): y,";
constexpr const char* kAttributesHelp =
    "The array's attributes: a JSON object, e.g. '{\"unit\": \"nm\"}', or @FILE to read it "
    "from a file";

void AddLayoutOptions(CLI::App* command, ZarrOptions& options) {
  command->add_option("--shard", options.shard,
                      "Shard shape (v3), a multiple of the chunk; convert keeps the source's "
                      "unless given, and --shard none writes no shards");
  command->add_option("--codec", options.codec,
                      "zstd:3 | blosc:lz4:5:shuffle | gzip:6 | none (joined with +); "
                      "blosc:lz4det:5:shuffle writes blosc lz4 with the deterministic encoder");
  command->add_option("--index-location", options.index_location, "Shard index: end or start");
  AddChecksumOption(command, options.checksum,
                    "crc32c on a zarr v3 array, none on v2; convert without --codec keeps the "
                    "source's codecs");
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
  create
      ->add_option("--shape", options->shape,
                   "Array shape, e.g. 512,512,512; \"\" is a 0-d array (with --chunk \"\")")
      ->required();
  create
      ->add_option("--dtype", options->dtype,
                   "NumPy name or typestr: uint16 or <u2, float32 or <f4, bool or |b1, "
                   "<M8[ns] (datetime64), <m8[s] (timedelta64), |S5 (bytes), <U5 (text), "
                   "string (variable-length UTF-8, as zarr-python 3 writes str)")
      ->required();
  create->add_option("--chunk", options->chunk, "Chunk shape (inner chunk when sharded)")
      ->required();
  create->add_option("--fill", options->fill,
                     "Fill value: a number, true/false, nan, inf, 0x…; NaT or a count of units "
                     "for a datetime; the text itself for |S, <U and string");
  create->add_option("--dimension-names", options->dimension_names, kDimensionNamesHelp);
  create->add_option("--attributes", options->attributes, kAttributesHelp);
  AddLayoutOptions(create, *options);
  SetAction(create, context, [&context, options] { return Create(context, *options); });

  CLI::App* write = group->add_subcommand("write", "Write an array file into a zarr array");
  write->add_option("PATH", options->path, StoreHelp("Array"))->required();
  write
      ->add_option("--input", options->input,
                   ".npy or raw little-endian file; a string array takes a '<U' .npy (bytes: '|S')")
      ->required();
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
  read->add_option("--cache-bytes", options->cache_bytes,
                   "Bytes of decoded chunks and shard indexes the run may keep, and print its "
                   "hits and misses (default 0: no cache)");
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
  import->add_option("--dimension-names", options->dimension_names, kDimensionNamesHelp);
  import->add_option("--attributes", options->attributes, kAttributesHelp);
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

void AddImportCommand(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<ZarrOptions>();
  CLI::App* import = app.add_subcommand(
      "import",
      "A new zarr array from a volume: a .npy file, a TIFF/BigTIFF stack (pages are z planes), "
      "a folder of single-plane TIFF files, a dataset of an HDF5 file, an N5 dataset (its "
      "dimensions reversed: N5 x,y,z is zarr z,y,x), or a zarr v2/v3 array; an OME-TIFF's voxel "
      "size becomes OME-Zarr");
  import
      ->add_option("SRC", options->input,
                   ".npy file, .tif/.tiff file, folder of .tif files, FILE.h5:/path/to/dataset, "
                   "an N5 dataset's folder or a zarr array (or a URL of either)")
      ->required();
  import->add_option("DEST", options->destination, StoreHelp("Array to create"))->required();
  import->add_option(
      "--dataset", options->dataset,
      "The dataset inside an HDF5 SRC, e.g. /volumes/raw (as SRC FILE.h5:/volumes/raw), or "
      "inside an N5 container or zarr group SRC (a folder or URL), e.g. /raw/s0");
  import->add_option("--chunk", options->chunk,
                     "Chunk shape (inner chunk when sharded); needed but for an HDF5 or N5 "
                     "dataset or a zarr array, whose own chunks are the default");
  import->add_option("--fill", options->fill, "Fill value: a number, true/false, nan, inf, 0x…");
  import->add_option("--dimension-names", options->dimension_names, kDimensionNamesHelp);
  import->add_option("--attributes", options->attributes, kAttributesHelp);
  AddLayoutOptions(import, *options);
  AddBloscEncoderOption(import, *options);
  AddThreadsOption(import, options->threads, "Compressing threads (default: one per core)");
  SetAction(import, context, [&context, options] { return ImportVolume(context, *options); });
}

}  // namespace chunkwise::cli
