// Wavefront OBJ meshes: "v x y z" vertices and "f" faces.
//
// Face entries may be "i", "i/t", "i//n" or "i/t/n", 1-based, or negative
// (relative to the vertices so far). Polygons are fan-triangulated, keeping
// winding. Other statements (vn, vt, l, o, g, usemtl, ...) are skipped.
// Writing gives "v" and "f" lines. Pure functions.
#ifndef CHUNKWISE_IO_OBJ_H_
#define CHUNKWISE_IO_OBJ_H_

#include <filesystem>
#include <string>
#include <string_view>

#include "chunkwise/core/geometry.h"

namespace chunkwise::io {

// InvalidArgument naming `name` and the line for malformed numbers or indices.
Result<core::Geometry> ParseObj(std::string_view text, std::string_view name);
Result<core::Geometry> ReadObj(const std::filesystem::path& path);
std::string FormatObj(const core::Geometry& geometry);

}  // namespace chunkwise::io

#endif  // CHUNKWISE_IO_OBJ_H_
