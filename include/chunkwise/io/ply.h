// PLY (Stanford polygon files), ascii and binary_little_endian.
//
// Reading: the "vertex" element's x, y, z become positions and its other
// scalar properties float32 vertex attributes; the first list property of
// the "face" element gives polygons, fan-triangulated ([a, b, c, d] →
// [a, b, c], [a, c, d]) so winding is kept. Other elements are skipped.
// Writing: binary_little_endian, float x y z, and for meshes a "face" element
// (uchar count, int indices), for other linked geometries an "edge" element
// (int vertex1, vertex2). Pure functions.
#ifndef CHUNKWISE_IO_PLY_H_
#define CHUNKWISE_IO_PLY_H_

#include <filesystem>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/geometry.h"

namespace chunkwise::io {

// A mesh from PLY bytes. InvalidArgument naming `name` for a malformed header,
// an unsupported format (binary_big_endian), a truncated body, a face index
// out of range; never reads past the input.
Result<core::Geometry> ParsePly(ByteView bytes, std::string_view name);
Result<core::Geometry> ReadPly(const std::filesystem::path& path);
Bytes FormatPly(const core::Geometry& geometry);

}  // namespace chunkwise::io

#endif  // CHUNKWISE_IO_PLY_H_
