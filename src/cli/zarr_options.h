// Option parsing shared by the zarr subcommands (zarr_command.cc and
// zarr_stream_command.cc).
#ifndef CHUNKWISE_CLI_ZARR_OPTIONS_H_
#define CHUNKWISE_CLI_ZARR_OPTIONS_H_

#include <string>
#include <vector>

#include "chunkwise/core/result.h"
#include "chunkwise/formats/zarr/shard_index.h"

namespace chunkwise::cli {

// "z, y,x" → {"z", "y", "x"}; "" → {}.
std::vector<std::string> SplitNames(const std::string& text);

// --index-location: "end" or "start".
Result<formats::zarr::IndexLocation> ParseIndexLocation(const std::string& text);

}  // namespace chunkwise::cli

#endif  // CHUNKWISE_CLI_ZARR_OPTIONS_H_
