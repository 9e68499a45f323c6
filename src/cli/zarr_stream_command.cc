// `chunkwise zarr stream`: frames from a file or stdin into a sharded zarr v3
// array through the streaming shard writer (pipelines/stream).
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include "chunkwise/chunkwise.h"
#include "chunkwise/io/npy_file.h"
#include "cli/command.h"
#include "cli/vocabulary.h"
#include "cli/zarr_options.h"

namespace chunkwise::cli {
namespace {

// Input is read in blocks of this size; Append takes any split.
constexpr std::size_t kReadBlockBytes = std::size_t{16} << 20;

struct StreamOptions {
  std::string output;
  std::string shape;
  std::string dtype;
  std::string chunk;
  std::string tiles_per_shard;
  std::string codec = "zstd:1";
  std::string index_location = "end";
  std::string checksum = "default";
  std::string fill;
  std::string dimension_names;
  std::string input;
  std::string backend = "cpu";
  std::size_t threads = 0;
  std::size_t epochs_per_batch = 0;
  double max_memory_mib = 0;
  bool dry_run = false;
  bool overwrite = false;
  // Multiscale (an OME-Zarr group of levels 0..levels).
  std::size_t levels = 0;
  std::string downsample = "mean";
  std::string downsample_factors;
  std::string voxel_size;
  std::string unit;
};

// The --levels options as the writer's MultiscaleConfig (the facade's
// MakeStreamMultiscale, as the Python module's levels= keywords); none
// without --levels.
Result<std::optional<StreamMultiscale>> MultiscaleFromOptions(const StreamOptions& options) {
  StreamLevelsOptions levels;
  levels.levels = options.levels;
  levels.downsample = options.downsample;
  if (!options.downsample_factors.empty()) {
    Result<core::Shape> factors = ParseArrayShape(options.downsample_factors);
    if (!factors.ok()) return factors.status().WithContext("--downsample-factors");
    levels.downsample_factors = *factors;
  }
  for (const std::string& value : SplitNames(options.voxel_size)) {
    char* end = nullptr;
    levels.voxel_size.push_back(std::strtod(value.c_str(), &end));
    if (value.empty() || *end != '\0') {
      return Status::InvalidArgument("--voxel-size: '" + value + "' is not a number");
    }
  }
  levels.unit = options.unit;
  return MakeStreamMultiscale(levels);
}

// The writer's configuration from the flags; its backend is chosen by the
// facade when the writer is made (FrameStreamOptions::backend).
Result<StreamConfig> ConfigFromOptions(const StreamOptions& options) {
  StreamConfig config;
  CHUNKWISE_ASSIGN_OR_RETURN(core::Shape shape, ParseArrayShape(options.shape));
  CHUNKWISE_ASSIGN_OR_RETURN(core::Shape chunk, ParseArrayShape(options.chunk));
  core::Shape tiles(shape.size(), 1);
  if (!options.tiles_per_shard.empty()) {
    CHUNKWISE_ASSIGN_OR_RETURN(tiles, ParseArrayShape(options.tiles_per_shard));
  }
  // An empty item is an unnamed dimension (null in zarr.json), as in zarr create.
  const std::vector<std::string> names = SplitNames(options.dimension_names);
  if (chunk.size() != shape.size() || tiles.size() != shape.size() ||
      (!names.empty() && names.size() != shape.size())) {
    return Status::InvalidArgument(
        "--shape, --chunk, --tiles-per-shard and --dimension-names "
        "must have one entry per dimension");
  }
  for (std::size_t d = 0; d < shape.size(); ++d) {
    config.dimensions.push_back({shape[d], chunk[d], tiles[d], names.empty() ? "" : names[d]});
  }
  CHUNKWISE_ASSIGN_OR_RETURN(config.data_type, ParseDataType(options.dtype));
  // A checksum keeps the GPU writer out (it writes codecs none and blosc:lz4det
  // only), which is why the stream's default is none (docs/reliability.md).
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<ChunkChecksum> checksum,
                             ChecksumOption(options.checksum));
  Result<std::string> codecs = StreamCodecsWithChecksum(options.codec, checksum);
  if (!codecs.ok()) return codecs.status().WithContext("--checksum");
  config.codec = *std::move(codecs);
  CHUNKWISE_ASSIGN_OR_RETURN(config.index_location, IndexLocationOption(options.index_location));
  if (!options.fill.empty()) config.fill_value = options.fill;
  config.epochs_per_batch = options.epochs_per_batch;
  config.max_memory = static_cast<std::uint64_t>(options.max_memory_mib * (1 << 20));
  CHUNKWISE_ASSIGN_OR_RETURN(config.multiscale, MultiscaleFromOptions(options));
  return config;
}

// An open input: stdin for "-", else the file, positioned at the array's
// first byte (after the header of a .npy file, which must match the array).
class Input {
 public:
  static Result<Input> Open(const std::string& path, const StreamConfig& config) {
    if (path == "-") return Input(STDIN_FILENO, false, path);
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Status::IOError(path + ": cannot open: " + std::strerror(errno));
    Input input(fd, true, path);
    if (path.size() > 4 && path.ends_with(".npy")) {
      CHUNKWISE_RETURN_IF_ERROR(input.SkipNpyHeader(config));
    }
    return input;
  }
  Input(Input&& other) noexcept : fd_(other.fd_), owned_(other.owned_), path_(other.path_) {
    other.owned_ = false;
  }
  ~Input() {
    if (owned_) ::close(fd_);
  }

  // Up to `out.size()` bytes; 0 at the end.
  Result<std::size_t> Read(MutableByteView out) {
    for (;;) {
      const ssize_t n = ::read(fd_, out.data(), out.size());
      if (n >= 0) return static_cast<std::size_t>(n);
      if (errno != EINTR) return Status::IOError(path_ + ": read failed: " + std::strerror(errno));
    }
  }

 private:
  Input(int fd, bool owned, std::string path) : fd_(fd), owned_(owned), path_(std::move(path)) {}

  Status SkipNpyHeader(const StreamConfig& config) {
    CHUNKWISE_ASSIGN_OR_RETURN(core::NpyHeader header, io::ReadNpyHeader(path_));
    core::Endian endian = core::Endian::kLittle;
    const std::optional<core::DataType> type = header.dtype.AsDataType(&endian);
    const std::vector<StreamDimension>& dims = config.dimensions;
    bool frame_matches = header.shape.size() == dims.size();
    for (std::size_t d = 1; frame_matches && d < dims.size(); ++d) {
      frame_matches = header.shape[d] == dims[d].size;
    }
    if (!type || *type != config.data_type || endian != core::Endian::kLittle ||
        header.fortran_order || !frame_matches) {
      return Status::InvalidArgument(path_ + ": a C-order little-endian " +
                                     std::string(config.data_type.zarr_name()) +
                                     " array with frames of the array's shape is needed");
    }
    if (::lseek(fd_, static_cast<off_t>(header.data_offset), SEEK_SET) < 0) {
      return Status::IOError(path_ + ": cannot seek: " + std::strerror(errno));
    }
    return Status::Ok();
  }

  int fd_;
  bool owned_;
  std::string path_;
};

Status Pump(Input& input, FrameStreamWriter& writer) {
  Bytes block(kReadBlockBytes);
  for (;;) {
    CHUNKWISE_ASSIGN_OR_RETURN(std::size_t n, input.Read(block));
    if (n == 0) return Status::Ok();
    CHUNKWISE_RETURN_IF_ERROR(writer.Append(ByteView(block).first(n)));
  }
}

// Each stage's rate over the input, e.g. the GPU's H2D, scatter, compress,
// aggregate and D2H (stages overlap, so each may exceed the overall rate).
void SayStageRates(const CommandContext& context, const StreamStats& stats) {
  std::string line = "stages (input rate):";
  for (const auto& stage : stats.stages) {
    if (stage.seconds <= 0) continue;
    line += " " + stage.name + " " +
            FormatBytes(static_cast<double>(stats.bytes_in) / stage.seconds) + "/s";
  }
  Say(context, line);
}

Status Stream(const CommandContext& context, const StreamOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(StreamConfig config, ConfigFromOptions(options));
  CHUNKWISE_ASSIGN_OR_RETURN(const StreamBackendRequest backend,
                             ParseStreamBackend(options.backend));
  const CallOptions call{.threads = options.threads};
  if (options.dry_run) {
    std::string note;
    CHUNKWISE_ASSIGN_OR_RETURN(config, ChooseBackend(std::move(config), backend, &note));
    if (!note.empty()) Say(context, note);
    if (config.threads == 0) config.threads = options.threads;
    CHUNKWISE_ASSIGN_OR_RETURN(const std::string plan, DescribeFrameStream(config));
    std::printf("%s\n", plan.c_str());
    return Status::Ok();
  }
  CHUNKWISE_ASSIGN_OR_RETURN(Input input, Input::Open(options.input, config));
  CHUNKWISE_ASSIGN_OR_RETURN(
      const std::unique_ptr<FrameStreamWriter> writer,
      FrameStreamWriter::Create(context.library(), options.output, std::move(config),
                                {.overwrite = options.overwrite, .backend = backend}, call));
  if (!writer->backend_note().empty()) Say(context, writer->backend_note());
  CHUNKWISE_RETURN_IF_ERROR(Pump(input, *writer).WithContext(options.input));
  CHUNKWISE_RETURN_IF_ERROR(writer->Close().WithContext(options.input));
  const StreamStats stats = writer->stats();
  Say(context, "wrote " + options.output + ": " + std::to_string(stats.frames) + " frames, " +
                   FormatBytes(static_cast<double>(stats.bytes_in)) + " in, " +
                   FormatBytes(static_cast<double>(stats.bytes_out)) + " out in " +
                   std::to_string(stats.shards) + " shards (ratio " +
                   std::to_string(stats.bytes_out == 0 ? 0.0
                                                       : static_cast<double>(stats.bytes_in) /
                                                             static_cast<double>(stats.bytes_out))
                       .substr(0, 5) +
                   "), " + FormatBytes(static_cast<double>(stats.bytes_in) / stats.seconds) +
                   "/s, backend " + stats.backend);
  if (!stats.level_frames.empty()) {
    std::string line = "levels (frames):";
    for (std::size_t k = 0; k < stats.level_frames.size(); ++k) {
      line += " " + std::to_string(k) + ":" + std::to_string(stats.level_frames[k]);
    }
    Say(context, line);
  }
  SayStageRates(context, stats);
  return Status::Ok();
}

}  // namespace

void AddZarrStreamCommand(CLI::App& zarr_group, CommandContext& context) {
  auto options = std::make_shared<StreamOptions>();
  CLI::App* command = zarr_group.add_subcommand(
      "stream", "Stream frames (file or stdin) into a sharded zarr v3 array in bounded memory");
  command
      ->add_option("OUT", options->output,
                   "Array directory, or an s3:// URL (a group of levels with --levels)")
      ->required();
  command->add_option("--shape", options->shape, "e.g. 0,2048,2048 (0 in dim 0: unbounded)")
      ->required();
  command
      ->add_option("--dtype", options->dtype,
                   "NumPy name or typestr: uint16 or <u2, float32 or <f4, bool or |b1")
      ->required();
  command->add_option("--chunk", options->chunk, "Tile (inner chunk) shape, e.g. 32,128,128")
      ->required();
  command->add_option("--tiles-per-shard", options->tiles_per_shard,
                      "Tiles per shard along each dimension, e.g. 16,4,4 (default: 1s)");
  command->add_option(
      "--codec", options->codec,
      "none | zstd:L | gzip:L | blosc:lz4|zstd:L:shuffle|bitshuffle (default zstd:1)");
  command->add_option("--index-location", options->index_location, "end (default) or start");
  AddChecksumOption(command, options->checksum,
                    "none (the GPU writer cannot add crc32c: docs/reliability.md)");
  command->add_option("--fill", options->fill, "Fill value (default 0)");
  command->add_option("--dimension-names", options->dimension_names,
                      "Names, e.g. t,y,x; an empty item is a dimension without a name (null)");
  command->add_option("--input", options->input, "Raw little-endian C-order frames, .npy, or -")
      ->required();
  command->add_option("--backend", options->backend,
                      "cpu (default), cuda (the GPU: codecs none and blosc:lz4det), or auto "
                      "(cuda when a GPU can write the codec)");
  AddThreadsOption(command, options->threads, "Compression threads (default: all cores)");
  command->add_option("--epochs-per-batch", options->epochs_per_batch,
                      "Tile epochs compressed together; divides tiles per shard in dim 0");
  command->add_option("--max-memory", options->max_memory_mib,
                      "Refuse a layout needing more than this many MiB");
  command->add_option("--levels", options->levels,
                      "Also write N coarser levels: an OME-Zarr 0.5 image group of arrays 0..N");
  command->add_option("--downsample", options->downsample,
                      "How a level is made from the one above: mean (images, default), mode "
                      "(labels), min or max");
  command->add_option("--downsample-factors", options->downsample_factors,
                      "The window per dimension, e.g. 1,2,2 (default: 2 along space axes)");
  command->add_option("--voxel-size", options->voxel_size,
                      "Level 0's voxel size along the space axes, e.g. 2,0.5,0.5 (z,y,x)");
  command->add_option("--unit", options->unit, "The space axes' unit, e.g. micrometer");
  command->add_flag("--dry-run", options->dry_run, "Print the layout and memory estimate only");
  command->add_flag("--overwrite", options->overwrite, "Replace an existing array");
  SetAction(command, context, [&context, options] { return Stream(context, *options); });
}

}  // namespace chunkwise::cli
