// Option parsing shared by the zarr subcommands (zarr_command.cc and
// zarr_stream_command.cc), over the facade's parsers.
#ifndef CHUNKWISE_CLI_ZARR_OPTIONS_H_
#define CHUNKWISE_CLI_ZARR_OPTIONS_H_

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "chunkwise/chunkwise.h"

namespace chunkwise::cli {

// "z, y,x" → {"z", "y", "x"}; "" → {}.
std::vector<std::string> SplitNames(const std::string& text);

// --index-location: "end" or "start".
Result<ZarrIndexLocation> IndexLocationOption(const std::string& text);

// --checksum, the one definition every command that makes an array shares:
// "default", "none", "crc32c" or "zstd" into `checksum`, for the facade's
// ParseChunkChecksum (docs/reliability.md). `default_is` says in the help
// what the command does without it.
void AddChecksumOption(CLI::App* command, std::string& checksum, const char* default_is);
// --checksum's value as the facade's field; InvalidArgument naming the flag.
Result<std::optional<ChunkChecksum>> ChecksumOption(const std::string& text);

// --attributes: a JSON object given inline, or @FILE for a file's text. Not
// JSON: InvalidArgument naming the flag; not an object: CreateZarrArray's
// refusal (field "attributes").
Result<nlohmann::json> AttributesOption(const std::string& text);

// A JSON list of extents as "a,b,c" ("" for a 0-d shape).
std::string ShapeText(const nlohmann::ordered_json& shape);

}  // namespace chunkwise::cli

#endif  // CHUNKWISE_CLI_ZARR_OPTIONS_H_
