// Flag hints: the library names the option an error is about in the error
// itself (Status::field(), e.g. "shard_shape", with its code); the CLI says
// which flag sets that option. The message's wording plays no part.
#ifndef CHUNKWISE_CLI_FLAG_HINTS_H_
#define CHUNKWISE_CLI_FLAG_HINTS_H_

#include <functional>
#include <string>
#include <string_view>

#include "chunkwise/chunkwise.h"

namespace chunkwise::cli {

// `error`'s text, followed by the hints for its code and field ("; pass
// --overwrite to replace it"), if any. `has_flag` (when given) says whether
// the command that ran has a flag: a hint is given only by a command that has
// the flag it names, so `zarr read` is never told "see --shard".
std::string DescribeWithFlagHints(const Status& error,
                                  const std::function<bool(std::string_view)>& has_flag = {});

}  // namespace chunkwise::cli

#endif  // CHUNKWISE_CLI_FLAG_HINTS_H_
