// The line at the foot of each command's --help that shows the URLs its
// paths may be (docs/cli.md, "URLs").
#ifndef CHUNKWISE_CLI_URL_FOOTERS_H_
#define CHUNKWISE_CLI_URL_FOOTERS_H_

#include <CLI/CLI.hpp>

namespace chunkwise::cli {

// Gives every command under `app` that takes a path the footer its kind
// wants: a store (any URL), a labelmap database (local only), or local files.
void AddUrlFooters(CLI::App& app);

}  // namespace chunkwise::cli

#endif  // CHUNKWISE_CLI_URL_FOOTERS_H_
