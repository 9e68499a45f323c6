// core::Geometry files by type and extension: what `chunkwise vectors write` reads
// and `chunkwise vectors read` writes.
//
// Inputs: points/polyline from .csv or .npy (table_io.h); graph from nodes
// .csv/.npy plus an edges file; skeleton from .swc; mesh from .ply or .obj.
// Outputs by extension: .csv/.npy tables (plus "<stem>.links<ext>"), .ply,
// .obj (meshes), .swc (skeletons and other trees).
#ifndef CHUNKWISE_IO_GEOMETRY_FILES_H_
#define CHUNKWISE_IO_GEOMETRY_FILES_H_

#include <filesystem>
#include <optional>

#include "chunkwise/core/geometry.h"

namespace chunkwise::io {

// InvalidArgument for a type/extension pair with no importer, or a graph without `edges`.
Result<core::Geometry> ImportGeometry(core::GeometryType type, const std::filesystem::path& input,
                                      const std::optional<std::filesystem::path>& edges);
// Writes atomically; existing outputs are refused unless `overwrite`.
// InvalidArgument for an extension that cannot hold the geometry.
Status ExportGeometry(const std::filesystem::path& output, const core::Geometry& geometry,
                      bool overwrite);

}  // namespace chunkwise::io

#endif  // CHUNKWISE_IO_GEOMETRY_FILES_H_
