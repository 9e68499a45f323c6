// Points, polylines and graphs as tables: CSV files and .npy arrays.
//
// Inputs (docs/formats/vectors.md "Inputs"):
//   points, polyline: a CSV with columns x, y, z, optional object_id and any
//     other numeric columns (float32 vertex attributes); or a .npy array of
//     shape (N, 3), or a structured .npy with those fields. A polyline is each
//     run of consecutive rows with one object_id (the whole file without one),
//     linked row to next row.
//   graph: the nodes as above plus an edges table: a CSV with columns source,
//     target (0-based node rows) and any other numeric columns (float32 link
//     attributes), or a .npy array of shape (M, 2) of integers.
// Outputs: "<path>" holds the vertices (x, y, z, object_id, attributes) and,
// for linked geometries, "<stem>.links<ext>" holds the links (v0, v1[, v2],
// link attributes); CSV or .npy by the extension of `path`.
#ifndef CHUNKWISE_IO_GEOMETRY_TABLES_H_
#define CHUNKWISE_IO_GEOMETRY_TABLES_H_

#include <filesystem>

#include "chunkwise/core/geometry.h"
#include "chunkwise/core/npy.h"

namespace chunkwise::io {

// Vertices (and for polylines, their links) from a CSV or .npy file.
// InvalidArgument naming the file for missing columns, wrong shapes or dtypes.
Result<core::Geometry> ReadVertexTable(const std::filesystem::path& path, core::GeometryType type);
// As ReadVertexTable, from a parsed table (for tests and fuzzing).
Result<core::Geometry> GeometryFromVertexTable(const core::NpyArray& table, core::GeometryType type,
                                               std::string_view name);
// A graph: nodes from `nodes_path`, edges (and edge attributes) from `edges_path`.
Result<core::Geometry> ReadGraphTables(const std::filesystem::path& nodes_path,
                                       const std::filesystem::path& edges_path);

// The file the links of WriteGeometryTables(path) go to: "<stem>.links<ext>".
std::filesystem::path LinksTablePath(const std::filesystem::path& path);
// Writes `geometry` as tables (CSV unless `path` ends in .npy), atomically;
// existing outputs are refused unless `overwrite`.
Status WriteGeometryTables(const std::filesystem::path& path, const core::Geometry& geometry,
                           bool overwrite);

}  // namespace chunkwise::io

#endif  // CHUNKWISE_IO_GEOMETRY_TABLES_H_
