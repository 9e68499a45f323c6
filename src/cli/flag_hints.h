// Flag hints: the library says what is wrong in its own words ("overwrite not
// requested", "the chunk shape"); the CLI names the flag that changes it.
#ifndef CHUNKWISE_CLI_FLAG_HINTS_H_
#define CHUNKWISE_CLI_FLAG_HINTS_H_

#include <string>

#include "chunkwise/core/status.h"

namespace chunkwise::cli {

// `error`'s text, followed by a hint naming the flags its words point to
// ("; pass --overwrite to replace it"), if any.
std::string DescribeWithFlagHints(const Status& error);

}  // namespace chunkwise::cli

#endif  // CHUNKWISE_CLI_FLAG_HINTS_H_
