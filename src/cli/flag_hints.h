// Flag hints: the library says what is wrong in its own words ("overwrite not
// requested", "the chunk shape"); the CLI names the flag that changes it.
#ifndef CHUNKWISE_CLI_FLAG_HINTS_H_
#define CHUNKWISE_CLI_FLAG_HINTS_H_

#include <functional>
#include <string>
#include <string_view>

#include "chunkwise/core/status.h"

namespace chunkwise::cli {

// `error`'s text, followed by a hint naming the flags its words point to
// ("; pass --overwrite to replace it"), if any. `has_flag` (when given) says
// whether the command that ran has a flag, so that a hint never names a flag
// the command lacks ("pass --resume" after `zarr create`).
std::string DescribeWithFlagHints(const Status& error,
                                  const std::function<bool(std::string_view)>& has_flag = {});

}  // namespace chunkwise::cli

#endif  // CHUNKWISE_CLI_FLAG_HINTS_H_
