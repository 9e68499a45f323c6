#include "chunkwise/io/geometry_files.h"

#include <algorithm>
#include <cctype>

#include "chunkwise/io/file.h"
#include "chunkwise/io/geometry_tables.h"
#include "chunkwise/io/obj.h"
#include "chunkwise/io/ply.h"
#include "chunkwise/io/swc.h"
#include "core/file_io.h"

namespace chunkwise::io {

using core::Geometry;
using core::GeometryType;
using core::LinkAttribute;
using core::Vec3f;
using core::VertexAttribute;

namespace {

std::string Extension(const std::filesystem::path& path) {
  std::string extension = path.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return extension;
}

Status NoImporter(GeometryType type, const std::filesystem::path& input) {
  return Status::InvalidArgument(
      input.string() + ": cannot read a " + std::string(GeometryTypeName(type)) + " from " +
      (Extension(input).empty() ? "a file without extension" : Extension(input)) +
      " (points/polyline: .csv .npy; graph: .csv/.npy with an edge table; skeleton: .swc;"
      " mesh: .ply .obj)");
}

}  // namespace

Result<Geometry> ImportGeometry(GeometryType type, const std::filesystem::path& input,
                                const std::optional<std::filesystem::path>& edges) {
  const std::string extension = Extension(input);
  const bool table = extension == ".csv" || extension == ".npy";
  switch (type) {
    case GeometryType::kPoints:
    case GeometryType::kPolyline:
      if (table) return ReadVertexTable(input, type);
      break;
    case GeometryType::kGraph:
      if (!edges)
        return Status::InvalidArgument(
                   "a graph needs an edge table (a .csv or .npy of source, target)")
            .WithField("edges");
      if (table) return ReadGraphTables(input, *edges);
      break;
    case GeometryType::kSkeleton:
      if (extension == ".swc") return ReadSwc(input);
      break;
    case GeometryType::kMesh:
      if (extension == ".ply") return ReadPly(input);
      if (extension == ".obj") return ReadObj(input);
      break;
  }
  return NoImporter(type, input);
}

Status ExportGeometry(const std::filesystem::path& output, const Geometry& geometry,
                      bool overwrite) {
  const std::string extension = Extension(output);
  if (extension == ".csv" || extension == ".npy")
    return WriteGeometryTables(output, geometry, overwrite);
  CHUNKWISE_RETURN_IF_ERROR(CheckOutputPath(output, overwrite));
  if (extension == ".ply") return WriteFile(output, FormatPly(geometry));
  if (extension == ".obj") {
    if (geometry.link_width() != 3)
      return Status::InvalidArgument(output.string() + ": .obj holds meshes");
    return WriteFile(output, AsBytes(FormatObj(geometry)));
  }
  if (extension == ".swc") {
    CHUNKWISE_ASSIGN_OR_RETURN(std::string text, FormatSwc(geometry));
    return WriteFile(output, AsBytes(text));
  }
  return Status::InvalidArgument(output.string() +
                                 ": unknown output extension (use .csv, .npy, .ply, .obj or .swc)");
}

}  // namespace chunkwise::io
