// SWC skeletons (neuromorpho.org's format) to and from a skeleton Geometry.
//
// Each non-comment line is "id type x y z radius parent" (parent -1 for a
// root; '#' starts a comment). Samples become vertices in file order, with
// float32 vertex attributes "radius" and "swc_type"; every sample with a
// parent gives the directed link [child, parent]. Pure functions.
#ifndef CHUNKWISE_IO_SWC_H_
#define CHUNKWISE_IO_SWC_H_

#include <filesystem>
#include <string>
#include <string_view>

#include "chunkwise/core/geometry.h"

namespace chunkwise::io {

// InvalidArgument naming `name` and the line for a malformed line, a repeated
// id or a parent id that is not a sample.
Result<core::Geometry> ParseSwc(std::string_view text, std::string_view name);
Result<core::Geometry> ReadSwc(const std::filesystem::path& path);
// Ids are row + 1. InvalidArgument unless links are [child, parent] pairs with
// at most one parent per vertex.
Result<std::string> FormatSwc(const core::Geometry& geometry);

}  // namespace chunkwise::io

#endif  // CHUNKWISE_IO_SWC_H_
