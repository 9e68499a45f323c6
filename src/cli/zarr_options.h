// Option parsing shared by the zarr subcommands (zarr_command.cc and
// zarr_stream_command.cc), over the facade's parsers.
#ifndef CHUNKWISE_CLI_ZARR_OPTIONS_H_
#define CHUNKWISE_CLI_ZARR_OPTIONS_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "chunkwise/chunkwise.h"

namespace chunkwise::cli {

// "z, y,x" → {"z", "y", "x"}; "" → {}.
std::vector<std::string> SplitNames(const std::string& text);

// --index-location: "end" or "start".
Result<formats::zarr::IndexLocation> IndexLocationOption(const std::string& text);

// --checksum: "none" (the default), "crc32c" or "zstd" (docs/reliability.md).
// zarr-python 3 and TensorStore verify both; zarr v2 readers (zarr 2.13,
// numcodecs) and the zarr v2 view a reference set gives of an array lack
// crc32c, which is why it is not yet on by default.
constexpr const char* kChecksumHelp =
    "End-to-end checksum: none, crc32c (a crc32c codec after the others), or zstd "
    "(zstd's frame checksum; needs a zstd codec)";
// `codec` (a shorthand; "" means `default_codec`) with the checksum asked for.
Result<std::string> CodecWithChecksum(const std::string& codec, const std::string& default_codec,
                                      const std::string& checksum);

// --attributes: a JSON object given inline, or @FILE for a file's text. Not
// JSON: InvalidArgument naming the flag; not an object: CreateZarrArray's
// refusal (field "attributes").
Result<nlohmann::json> AttributesOption(const std::string& text);

// A JSON list of extents as "a,b,c" ("" for a 0-d shape).
std::string ShapeText(const nlohmann::ordered_json& shape);

}  // namespace chunkwise::cli

#endif  // CHUNKWISE_CLI_ZARR_OPTIONS_H_
