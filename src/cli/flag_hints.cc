#include "cli/flag_hints.h"

#include <array>
#include <functional>
#include <string_view>

namespace chunkwise::cli {
namespace {

struct FlagHint {
  std::string_view library_words;  // As the library's messages say them.
  std::string_view hint;           // What the CLI user passes.
  // The flag the hint names, when only some commands have it: the hint is
  // left out for a command without it. Empty: every command it reaches has it.
  std::string_view only_with_flag = {};
};

// One row per phrase of the library's messages that a flag controls.
constexpr std::array kFlagHints = {
    FlagHint{"overwrite not requested", "pass --overwrite to replace it"},
    FlagHint{"resume not requested", "pass --resume to finish it", "--resume"},
    FlagHint{"can be written only as JSON references", "pass --format json-v1"},
    FlagHint{"outside the allowed roots", "pass --allow-root DIR to read it"},
    FlagHint{"remote references are not allowed", "pass --allow-remote to read it"},
    FlagHint{"a pyramid has 2..30 levels", "see --levels"},
    FlagHint{"has a different rank from the array shape", "see --chunk and --shape"},
    FlagHint{"the chunk shape's extents", "see --chunk"},
    FlagHint{"the dimension names are", "see --dimension-names"},
    FlagHint{"sharding needs zarr format 3", "--shard needs --format 3"},
    FlagHint{"the shard shape", "see --shard and --chunk"},
    FlagHint{"the zarr format must be", "see --format"},
    FlagHint{"the codecs:", "see --codec"},
    FlagHint{"the fill value", "see --fill"},
    FlagHint{"a column selection or a where predicate", "see --columns and --where"},
    FlagHint{"the stream backend is", "see --backend"},
    FlagHint{"the CUDA backend:", "pass --backend cpu or auto"},
    FlagHint{"the array needs at least one dimension", "see --shape"},
    FlagHint{"the tile (chunk) size", "see --chunk"},
    FlagHint{"tiles per shard must be", "see --tiles-per-shard"},
    FlagHint{"over the memory limit", "see --max-memory"},
    FlagHint{"an edge table", "see --edges"},
    FlagHint{"a multiscale stream has at most", "see --levels"},
    FlagHint{"downsampling factors", "see --downsample-factors"},
    FlagHint{"downsampling of", "see --downsample"},
    FlagHint{"the voxel size needs", "see --voxel-size"},
    FlagHint{"voxel sizes must be", "see --voxel-size"},
    FlagHint{"is not a unit OME-NGFF", "see --unit"},
    FlagHint{"axes go time, channel, then space", "see --dimension-names"},
    FlagHint{"an OME-Zarr image has", "see --shape and --dimension-names"},
    FlagHint{"http server: threads", "see --threads"},
};

}  // namespace

std::string DescribeWithFlagHints(const Status& error,
                                  const std::function<bool(std::string_view)>& has_flag) {
  std::string text = error.ToString();
  for (const FlagHint& row : kFlagHints) {
    if (!row.only_with_flag.empty() && has_flag && !has_flag(row.only_with_flag)) continue;
    if (text.find(row.library_words) != std::string::npos) {
      text += "; ";
      text += row.hint;
    }
  }
  return text;
}

}  // namespace chunkwise::cli
