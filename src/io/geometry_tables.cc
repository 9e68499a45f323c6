#include "chunkwise/io/geometry_tables.h"

#include <bit>
#include <cmath>
#include <cstring>

#include "chunkwise/io/array_file.h"
#include "chunkwise/io/csv_file.h"
#include "chunkwise/io/file.h"
#include "chunkwise/io/npy_file.h"
#include "core/file_io.h"
#include "formats/vectors/layout.h"

namespace chunkwise::io {

using core::Geometry;
using core::GeometryType;
using core::LinkAttribute;
using core::VertexAttribute;
namespace layout = formats::vectors::layout;

namespace {

// A numeric scalar at `at` as a double; nullopt for non-numeric or big-endian dtypes.
std::optional<double> LoadNumber(const core::NpyDtype& dtype, const std::uint8_t* at) {
  if (dtype.byte_order() == core::NpyDtype::ByteOrder::kBig) return std::nullopt;
  const std::size_t size = dtype.itemsize();
  switch (dtype.kind()) {
    case 'f':
      if (size == 4) return std::bit_cast<float>(LoadLittleEndian<std::uint32_t>(at));
      if (size == 8) return std::bit_cast<double>(LoadLittleEndian<std::uint64_t>(at));
      return std::nullopt;
    case 'i':
    case 'u':
    case 'b': {
      if (size != 1 && size != 2 && size != 4 && size != 8) return std::nullopt;
      std::uint64_t bits = 0;
      for (std::size_t i = 0; i < size; ++i) bits |= static_cast<std::uint64_t>(at[i]) << (8 * i);
      if (dtype.kind() == 'i' && size < 8 && (bits >> (8 * size - 1)) != 0)
        bits |= ~std::uint64_t{0} << (8 * size);
      return dtype.kind() == 'i' ? static_cast<double>(static_cast<std::int64_t>(bits))
                                 : static_cast<double>(bits);
    }
    default:
      return std::nullopt;
  }
}

// The columns of a table: a structured 1-d array by field, or a plain (N, C) array as f0..fC-1.
struct Table {
  std::vector<std::string> names;
  std::vector<std::vector<double>> columns;
  std::size_t rows = 0;
  const std::vector<double>* Find(std::string_view name) const {
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (names[i] == name) return &columns[i];
    }
    return nullptr;
  }
};

Result<Table> ToTable(core::NpyArray array, std::string_view name) {
  CHUNKWISE_RETURN_IF_ERROR(core::ToCOrder(array));
  Table table;
  const auto bad = [&](const std::string& what) {
    return Status::InvalidArgument(std::string(name) + ": " + what);
  };
  if (array.dtype.is_structured()) {
    if (array.shape.size() != 1) return bad("a structured table must be 1-d");
    table.rows = static_cast<std::size_t>(array.shape[0]);
    for (const core::NpyField& field : array.dtype.fields()) {
      if (field.name.empty()) continue;
      if (!field.shape.empty()) return bad("column " + field.name + " is not a scalar");
      std::vector<double> column(table.rows);
      for (std::size_t r = 0; r < table.rows; ++r) {
        const auto value =
            LoadNumber(field.dtype, array.data.data() + r * array.dtype.itemsize() + field.offset);
        if (!value) return bad("column " + field.name + " is not numeric (little-endian)");
        column[r] = *value;
      }
      table.names.push_back(field.name);
      table.columns.push_back(std::move(column));
    }
    return table;
  }
  if (array.shape.size() != 2) return bad("expected a 2-d array (rows, columns) or a table");
  table.rows = static_cast<std::size_t>(array.shape[0]);
  const std::size_t width = static_cast<std::size_t>(array.shape[1]);
  table.columns.assign(width, std::vector<double>(table.rows));
  for (std::size_t c = 0; c < width; ++c) table.names.push_back("f" + std::to_string(c));
  for (std::size_t i = 0; i < table.rows * width; ++i) {
    const auto value = LoadNumber(array.dtype, array.data.data() + i * array.dtype.itemsize());
    if (!value) return bad("the array is not numeric (little-endian)");
    table.columns[i % width][i / width] = *value;
  }
  return table;
}

Result<Table> ReadTable(const std::filesystem::path& path) {
  Result<core::NpyArray> array = HasCsvExtension(path) ? ReadCsv(path) : ReadNpy(path);
  if (!array.ok()) return array.status();
  return ToTable(std::move(*array), path.string());
}

// The x, y, z columns: named, or the first three of a plain array.
Result<std::array<const std::vector<double>*, 3>> Coordinates(const Table& table,
                                                              std::string_view name) {
  std::array<const std::vector<double>*, 3> xyz{table.Find("x"), table.Find("y"), table.Find("z")};
  if (xyz[0] == nullptr && table.names.size() >= 3 && table.names[0] == "f0") {
    xyz = {&table.columns[0], &table.columns[1], &table.columns[2]};
  }
  if (xyz[0] == nullptr || xyz[1] == nullptr || xyz[2] == nullptr) {
    return Status::InvalidArgument(std::string(name) +
                                   ": needs columns x, y, z (or an (N, 3) array)");
  }
  return xyz;
}

Result<std::int64_t> WholeNumber(double value, std::string_view name, std::string_view column) {
  if (!(std::abs(value) < 9e15) || value != std::floor(value)) {
    return Status::InvalidArgument(std::string(name) + ": column " + std::string(column) +
                                   " holds " + std::to_string(value) + ", not an integer");
  }
  return static_cast<std::int64_t>(value);
}

Result<Geometry> VerticesOf(const Table& table, GeometryType type, std::string_view name) {
  CHUNKWISE_ASSIGN_OR_RETURN(auto xyz, Coordinates(table, name));
  Geometry geometry;
  geometry.type = type;
  geometry.positions.resize(table.rows);
  for (std::size_t r = 0; r < table.rows; ++r) {
    for (int d = 0; d < 3; ++d) geometry.positions[r][d] = static_cast<float>((*xyz[d])[r]);
  }
  if (const std::vector<double>* ids = table.Find(layout::kObjectIdAttribute)) {
    for (const double id : *ids) {
      CHUNKWISE_ASSIGN_OR_RETURN(std::int64_t whole,
                                 WholeNumber(id, name, layout::kObjectIdAttribute));
      geometry.object_ids.push_back(whole);
    }
  }
  const bool plain = table.Find("x") == nullptr;  // An (N, C) array: columns 3.. are attributes.
  for (std::size_t c = 0; c < table.names.size(); ++c) {
    const std::string& column = table.names[c];
    if (column == "x" || column == "y" || column == "z" || column == layout::kObjectIdAttribute)
      continue;
    if (plain && c < 3) continue;
    geometry.vertex_attributes.push_back(
        {column, std::vector<float>(table.columns[c].begin(), table.columns[c].end())});
  }
  return geometry;
}

void LinkPolylines(Geometry& geometry) {
  for (std::size_t r = 1; r < geometry.positions.size(); ++r) {
    if (!geometry.object_ids.empty() && geometry.object_ids[r] != geometry.object_ids[r - 1])
      continue;
    geometry.links.push_back(static_cast<std::int64_t>(r - 1));
    geometry.links.push_back(static_cast<std::int64_t>(r));
  }
}

}  // namespace

Result<Geometry> GeometryFromVertexTable(const core::NpyArray& table, GeometryType type,
                                         std::string_view name) {
  if (type != GeometryType::kPoints && type != GeometryType::kPolyline) {
    return Status::InvalidArgument(
        std::string(name) + ": tables hold points or polylines (a graph needs an edge table)");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(Table parsed, ToTable(table, name));
  CHUNKWISE_ASSIGN_OR_RETURN(Geometry geometry, VerticesOf(parsed, type, name));
  if (type == GeometryType::kPolyline) LinkPolylines(geometry);
  return geometry;
}

Result<Geometry> ReadVertexTable(const std::filesystem::path& path, GeometryType type) {
  Result<core::NpyArray> array = HasCsvExtension(path) ? ReadCsv(path) : ReadNpy(path);
  if (!array.ok()) return array.status();
  return GeometryFromVertexTable(*array, type, path.string());
}

Result<Geometry> ReadGraphTables(const std::filesystem::path& nodes_path,
                                 const std::filesystem::path& edges_path) {
  CHUNKWISE_ASSIGN_OR_RETURN(Table nodes, ReadTable(nodes_path));
  CHUNKWISE_ASSIGN_OR_RETURN(Geometry geometry,
                             VerticesOf(nodes, GeometryType::kGraph, nodes_path.string()));
  CHUNKWISE_ASSIGN_OR_RETURN(Table edges, ReadTable(edges_path));
  const std::string name = edges_path.string();
  const std::vector<double>* source = edges.Find("source");
  const std::vector<double>* target = edges.Find("target");
  if (source == nullptr && edges.names.size() == 2 && edges.names[0] == "f0") {
    source = &edges.columns[0];
    target = &edges.columns[1];
  }
  if (source == nullptr || target == nullptr) {
    return Status::InvalidArgument(name + ": needs columns source, target (or an (M, 2) array)");
  }
  for (std::size_t r = 0; r < edges.rows; ++r) {
    CHUNKWISE_ASSIGN_OR_RETURN(std::int64_t a, WholeNumber((*source)[r], name, "source"));
    CHUNKWISE_ASSIGN_OR_RETURN(std::int64_t b, WholeNumber((*target)[r], name, "target"));
    geometry.links.push_back(a);
    geometry.links.push_back(b);
  }
  for (std::size_t c = 0; c < edges.names.size(); ++c) {
    if (&edges.columns[c] == source || &edges.columns[c] == target) continue;
    geometry.link_attributes.push_back(
        {edges.names[c], 1, std::vector<float>(edges.columns[c].begin(), edges.columns[c].end())});
  }
  Status valid = geometry.Validate();
  if (!valid.ok()) return valid.WithContext(name);
  return geometry;
}

namespace {

// A structured (or plain) array built column by column.
class TableBuilder {
 public:
  explicit TableBuilder(std::size_t rows) : rows_(rows) {}
  void AddFloat(std::string name, std::vector<float> values) {
    float_columns_.push_back({std::move(name), std::move(values)});
    order_.push_back({true, float_columns_.size() - 1});
  }
  void AddInt(std::string name, std::vector<std::int64_t> values) {
    int_columns_.push_back({std::move(name), std::move(values)});
    order_.push_back({false, int_columns_.size() - 1});
  }

  Result<core::NpyArray> Build() const {
    std::vector<core::NpyField> fields;
    for (const auto& [is_float, index] : order_) {
      core::NpyField field;
      field.name = is_float ? float_columns_[index].first : int_columns_[index].first;
      CHUNKWISE_ASSIGN_OR_RETURN(field.dtype,
                                 core::NpyDtype::FromTypestr(is_float ? "<f4" : "<i8"));
      fields.push_back(std::move(field));
    }
    core::NpyArray array;
    CHUNKWISE_ASSIGN_OR_RETURN(array.dtype, core::NpyDtype::Structured(std::move(fields)));
    array.shape = {static_cast<std::int64_t>(rows_)};
    array.data.assign(rows_ * array.dtype.itemsize(), 0);
    for (std::size_t f = 0; f < order_.size(); ++f) {
      const auto& [is_float, index] = order_[f];
      const std::size_t offset = array.dtype.fields()[f].offset;
      for (std::size_t r = 0; r < rows_; ++r) {
        std::uint8_t* at = array.data.data() + r * array.dtype.itemsize() + offset;
        if (is_float) {
          StoreLittleEndian(std::bit_cast<std::uint32_t>(float_columns_[index].second[r]), at);
        } else {
          StoreLittleEndian(static_cast<std::uint64_t>(int_columns_[index].second[r]), at);
        }
      }
    }
    return array;
  }

 private:
  std::size_t rows_;
  std::vector<std::pair<std::string, std::vector<float>>> float_columns_;
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> int_columns_;
  std::vector<std::pair<bool, std::size_t>> order_;
};

Result<core::NpyArray> PlainArray(const char* typestr, std::int64_t rows, std::int64_t columns,
                                  Bytes data) {
  core::NpyArray array;
  CHUNKWISE_ASSIGN_OR_RETURN(array.dtype, core::NpyDtype::FromTypestr(typestr));
  array.shape = {rows, columns};
  array.data = std::move(data);
  return array;
}

Status WriteTable(const std::filesystem::path& path, const core::NpyArray& array) {
  return HasNpyExtension(path) ? WriteNpy(path, array) : WriteCsv(path, array);
}

Result<core::NpyArray> VertexArray(const Geometry& geometry, bool npy) {
  const std::size_t n = geometry.positions.size();
  if (npy) {
    Bytes data(n * 12);
    for (std::size_t v = 0; v < n; ++v) {
      for (int d = 0; d < 3; ++d)
        StoreLittleEndian(std::bit_cast<std::uint32_t>(geometry.positions[v][d]),
                          data.data() + 12 * v + 4 * d);
    }
    return PlainArray("<f4", static_cast<std::int64_t>(n), 3, std::move(data));
  }
  TableBuilder builder(n);
  const char* axes[] = {"x", "y", "z"};
  for (int d = 0; d < 3; ++d) {
    std::vector<float> column(n);
    for (std::size_t v = 0; v < n; ++v) column[v] = geometry.positions[v][d];
    builder.AddFloat(axes[d], std::move(column));
  }
  if (!geometry.object_ids.empty())
    builder.AddInt(std::string(layout::kObjectIdAttribute), geometry.object_ids);
  for (const VertexAttribute& attribute : geometry.vertex_attributes)
    builder.AddFloat(attribute.name, attribute.values);
  return builder.Build();
}

Result<core::NpyArray> LinkArray(const Geometry& geometry, bool npy) {
  const int width = geometry.link_width();
  const std::size_t m = geometry.num_links();
  if (npy) {
    Bytes data(geometry.links.size() * 8);
    for (std::size_t i = 0; i < geometry.links.size(); ++i)
      StoreLittleEndian(static_cast<std::uint64_t>(geometry.links[i]), data.data() + 8 * i);
    return PlainArray("<i8", static_cast<std::int64_t>(m), width, std::move(data));
  }
  TableBuilder builder(m);
  for (int e = 0; e < width; ++e) {
    std::vector<std::int64_t> column(m);
    for (std::size_t r = 0; r < m; ++r) column[r] = geometry.links[r * width + e];
    builder.AddInt(width == 2 ? (e == 0 ? "source" : "target") : "v" + std::to_string(e),
                   std::move(column));
  }
  for (const LinkAttribute& attribute : geometry.link_attributes) {
    for (int c = 0; c < attribute.channels; ++c) {
      std::vector<float> column(m);
      for (std::size_t r = 0; r < m; ++r) column[r] = attribute.values[r * attribute.channels + c];
      builder.AddFloat(
          attribute.channels == 1 ? attribute.name : attribute.name + "_" + std::to_string(c),
          std::move(column));
    }
  }
  return builder.Build();
}

}  // namespace

std::filesystem::path LinksTablePath(const std::filesystem::path& path) {
  std::filesystem::path links = path;
  links.replace_filename(path.stem().string() + ".links" + path.extension().string());
  return links;
}

Status WriteGeometryTables(const std::filesystem::path& path, const Geometry& geometry,
                           bool overwrite) {
  const bool npy = HasNpyExtension(path);
  const bool linked = geometry.link_width() > 0;
  CHUNKWISE_RETURN_IF_ERROR(CheckOutputPath(path, overwrite));
  if (linked) CHUNKWISE_RETURN_IF_ERROR(CheckOutputPath(LinksTablePath(path), overwrite));
  CHUNKWISE_ASSIGN_OR_RETURN(core::NpyArray vertices, VertexArray(geometry, npy));
  CHUNKWISE_RETURN_IF_ERROR(WriteTable(path, vertices));
  if (!linked) return Status::Ok();
  CHUNKWISE_ASSIGN_OR_RETURN(core::NpyArray links, LinkArray(geometry, npy));
  return WriteTable(LinksTablePath(path), links);
}

}  // namespace chunkwise::io
