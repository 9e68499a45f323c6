#include "cli/flag_hints.h"

#include <array>
#include <functional>
#include <string_view>

namespace chunkwise::cli {
namespace {

struct FlagHint {
  StatusCode code;         // The error's code...
  std::string_view field;  // ...and the option it names (Status::field()).
  std::string_view flag;   // The flag that sets it: the hint needs the command to have it.
  std::string_view hint;   // What the CLI user is told.
};

constexpr StatusCode kInvalid = StatusCode::kInvalidArgument;
constexpr StatusCode kUnsupported = StatusCode::kUnsupported;

// One row per (code, field) that a flag controls; a field may have several
// (an unfinished output is resumed or replaced), each given where its flag is.
constexpr std::array kFlagHints = {
    FlagHint{kInvalid, "overwrite", "--overwrite", "pass --overwrite to replace it"},
    FlagHint{kInvalid, "resume", "--resume", "pass --resume to finish it"},
    FlagHint{kInvalid, "resume", "--overwrite", "pass --overwrite to replace it"},
    FlagHint{kUnsupported, "reference_format", "--format", "pass --format json-v1"},
    FlagHint{kInvalid, "allowed_roots", "--allow-root", "pass --allow-root DIR to read it"},
    FlagHint{kInvalid, "allow_remote", "--allow-remote", "pass --allow-remote to read it"},
    FlagHint{kInvalid, "levels", "--levels", "see --levels"},
    FlagHint{kInvalid, "shape", "--shape", "see --shape"},
    FlagHint{kInvalid, "chunk_shape", "--chunk", "see --chunk"},
    FlagHint{kInvalid, "tile_size", "--chunk", "see --chunk"},
    FlagHint{kInvalid, "shard_shape", "--shard", "see --shard and --chunk"},
    FlagHint{kInvalid, "tiles_per_shard", "--tiles-per-shard", "see --tiles-per-shard"},
    FlagHint{kInvalid, "dimension_names", "--dimension-names", "see --dimension-names"},
    FlagHint{kInvalid, "zarr_format", "--format", "see --format"},
    FlagHint{kInvalid, "codecs", "--codec", "see --codec"},
    FlagHint{kInvalid, "checksum", "--checksum", "see --checksum"},
    FlagHint{kUnsupported, "codecs", "--codec", "see --codec"},
    FlagHint{kInvalid, "fill_value", "--fill", "see --fill"},
    FlagHint{kInvalid, "attributes", "--attributes", "see --attributes"},
    FlagHint{kInvalid, "dataset", "--dataset", "see --dataset"},
    FlagHint{kInvalid, "columns", "--columns", "see --columns and --where"},
    FlagHint{kInvalid, "backend", "--backend", "see --backend"},
    FlagHint{kUnsupported, "backend", "--backend", "pass --backend cpu or auto"},
    FlagHint{StatusCode::kResourceExhausted, "max_memory", "--max-memory", "see --max-memory"},
    FlagHint{kInvalid, "edges", "--edges", "see --edges"},
    FlagHint{kInvalid, "downsample_method", "--downsample", "see --downsample"},
    FlagHint{kUnsupported, "downsample_method", "--downsample", "see --downsample"},
    FlagHint{kInvalid, "downsample_factors", "--downsample-factors", "see --downsample-factors"},
    FlagHint{kInvalid, "voxel_size", "--voxel-size", "see --voxel-size"},
    FlagHint{kInvalid, "unit", "--unit", "see --unit"},
    FlagHint{kInvalid, "axes", "--shape", "see --shape and --dimension-names"},
    FlagHint{kInvalid, "threads", "--threads", "see --threads"},
    FlagHint{kInvalid, "chunk_size", "--chunk", "see --chunk"},
    FlagHint{kInvalid, "num_scales", "--scales", "see --scales"},
    FlagHint{kInvalid, "gzip_level", "--gzip-level", "see --gzip-level"},
    FlagHint{kInvalid, "labels", "--labels", "see --labels"},
    FlagHint{kInvalid, "lods", "--lods", "see --lods"},
    FlagHint{kInvalid, "chunk", "--chunk", "see --chunk"},
};

}  // namespace

std::string DescribeWithFlagHints(const Status& error,
                                  const std::function<bool(std::string_view)>& has_flag) {
  std::string text = error.ToString();
  if (error.field().empty()) return text;
  for (const FlagHint& row : kFlagHints) {
    if (row.code != error.code() || row.field != error.field()) continue;
    if (has_flag && !has_flag(row.flag)) continue;
    text += "; ";
    text += row.hint;
  }
  return text;
}

}  // namespace chunkwise::cli
