#include "chunkwise/io/ply.h"

#include <bit>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>

#include "core/file_io.h"

namespace chunkwise::io {

using core::Geometry;
using core::GeometryType;
using core::IsValidAttributeName;
using core::LinkAttribute;
using core::Vec3f;
using core::VertexAttribute;

namespace {

struct Property {
  std::string name;
  std::string type;        // Scalar type, or the item type of a list.
  std::string count_type;  // Non-empty for a list.
};

struct Element {
  std::string name;
  std::uint64_t count = 0;
  std::vector<Property> properties;
};

std::size_t TypeSize(std::string_view type) {
  if (type == "char" || type == "uchar" || type == "int8" || type == "uint8") return 1;
  if (type == "short" || type == "ushort" || type == "int16" || type == "uint16") return 2;
  if (type == "int" || type == "uint" || type == "float" || type == "int32" || type == "uint32" ||
      type == "float32")
    return 4;
  if (type == "double" || type == "float64") return 8;
  return 0;
}

double LoadValue(std::string_view type, const std::uint8_t* at) {
  const std::size_t size = TypeSize(type);
  if (type == "float" || type == "float32")
    return std::bit_cast<float>(LoadLittleEndian<std::uint32_t>(at));
  if (type == "double" || type == "float64")
    return std::bit_cast<double>(LoadLittleEndian<std::uint64_t>(at));
  std::uint64_t bits = 0;
  for (std::size_t i = 0; i < size; ++i) bits |= static_cast<std::uint64_t>(at[i]) << (8 * i);
  const bool is_signed =
      type == "char" || type == "short" || type == "int" || type.starts_with("int");
  if (is_signed && (bits >> (8 * size - 1)) != 0) bits |= ~std::uint64_t{0} << (8 * size);
  return is_signed ? static_cast<double>(static_cast<std::int64_t>(bits))
                   : static_cast<double>(bits);
}

// Reads values one at a time from an ascii or binary body; false past the end.
class BodyReader {
 public:
  BodyReader(ByteView body, bool ascii) : body_(body), ascii_(ascii) {}
  bool Next(std::string_view type, double& value) {
    if (!ascii_) {
      const std::size_t size = TypeSize(type);
      if (size == 0 || body_.size() - at_ < size) return false;
      value = LoadValue(type, body_.data() + at_);
      at_ += size;
      return true;
    }
    while (at_ < body_.size() && std::isspace(body_[at_])) ++at_;
    const std::size_t start = at_;
    while (at_ < body_.size() && !std::isspace(body_[at_])) ++at_;
    const char* begin = reinterpret_cast<const char*>(body_.data() + start);
    const auto [ptr, error] = std::from_chars(begin, begin + (at_ - start), value);
    return at_ > start && error == std::errc() && ptr == begin + (at_ - start);
  }
  std::size_t remaining() const { return body_.size() - at_; }

 private:
  ByteView body_;
  bool ascii_;
  std::size_t at_ = 0;
};

Status ParseHeader(std::string_view header, std::string_view name, std::vector<Element>& elements,
                   bool& ascii) {
  const auto bad = [&](const std::string& what) {
    return Status::InvalidArgument(std::string(name) + ": PLY header: " + what);
  };
  std::size_t start = 0;
  bool format_seen = false;
  while (start < header.size()) {
    std::size_t end = header.find('\n', start);
    if (end == std::string_view::npos) end = header.size();
    std::string line(header.substr(start, end - start));
    start = end + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    char word[64] = {}, a[64] = {}, b[64] = {}, c[64] = {}, d[64] = {};
    const int n = std::sscanf(line.c_str(), "%63s %63s %63s %63s %63s", word, a, b, c, d);
    const std::string keyword = n > 0 ? word : "";
    if (keyword == "format") {
      if (std::string(a) == "ascii")
        ascii = true;
      else if (std::string(a) == "binary_little_endian")
        ascii = false;
      else
        return bad(std::string("unsupported format ") + a);
      format_seen = true;
    } else if (keyword == "element") {
      std::uint64_t count = 0;
      const auto [ptr, error] = std::from_chars(b, b + std::strlen(b), count);
      if (n < 3 || error != std::errc() || *ptr != '\0')
        return bad("bad element line \"" + line + "\"");
      elements.push_back(Element{a, count, {}});
    } else if (keyword == "property") {
      if (elements.empty()) return bad("property before any element");
      const bool list = std::string(a) == "list";
      Property property = list ? Property{d, c, b} : Property{b, a, ""};
      if ((list && n < 5) || (!list && n < 3) || TypeSize(property.type) == 0 ||
          (list && TypeSize(property.count_type) == 0)) {
        return bad("bad property line \"" + line + "\"");
      }
      elements.back().properties.push_back(property);
    }
  }
  return format_seen ? Status::Ok() : bad("no format line");
}

Status AddPolygon(const std::vector<std::int64_t>& polygon, std::string_view name,
                  Geometry& geometry) {
  for (std::size_t i = 1; i + 1 < polygon.size(); ++i) {
    for (const std::int64_t index : {polygon[0], polygon[i], polygon[i + 1]}) {
      if (index < 0 || index >= static_cast<std::int64_t>(geometry.positions.size())) {
        return Status::InvalidArgument(std::string(name) + ": face index " + std::to_string(index) +
                                       " is out of range");
      }
      geometry.links.push_back(index);
    }
  }
  return Status::Ok();
}

Status ReadElement(const Element& element, BodyReader& reader, std::string_view name,
                   Geometry& geometry) {
  const bool is_vertex = element.name == "vertex";
  const bool is_face = element.name == "face";
  // Each row takes at least one byte; a count beyond the body is a lie, not a reason to allocate.
  if (element.count > reader.remaining())
    return Status::InvalidArgument(std::string(name) + ": element " + element.name +
                                   " count exceeds the file");
  std::vector<std::int64_t> polygon;
  for (std::uint64_t row = 0; row < element.count; ++row) {
    Vec3f position{};
    bool face_done = false;
    for (const Property& property : element.properties) {
      double value = 0;
      if (!property.count_type.empty()) {
        if (!reader.Next(property.count_type, value) || !(value >= 0 && value <= 1e6)) {
          return Status::InvalidArgument(std::string(name) + ": truncated or bad list in element " +
                                         element.name);
        }
        polygon.clear();
        for (std::int64_t i = 0, n = static_cast<std::int64_t>(value); i < n; ++i) {
          if (!reader.Next(property.type, value))
            return Status::InvalidArgument(std::string(name) + ": truncated list");
          // Anything not a whole index in range becomes -1, which AddPolygon refuses.
          const bool index = value >= 0 && value < 9e15 && value == std::floor(value);
          polygon.push_back(index ? static_cast<std::int64_t>(value) : -1);
        }
        if (is_face && !face_done) {
          CHUNKWISE_RETURN_IF_ERROR(AddPolygon(polygon, name, geometry));
          face_done = true;
        }
        continue;
      }
      if (!reader.Next(property.type, value))
        return Status::InvalidArgument(std::string(name) + ": truncated element " + element.name);
      if (!is_vertex) continue;
      if (property.name == "x")
        position[0] = static_cast<float>(value);
      else if (property.name == "y")
        position[1] = static_cast<float>(value);
      else if (property.name == "z")
        position[2] = static_cast<float>(value);
      else {
        for (VertexAttribute& attribute : geometry.vertex_attributes) {
          if (attribute.name == property.name)
            attribute.values.push_back(static_cast<float>(value));
        }
      }
    }
    if (is_vertex) geometry.positions.push_back(position);
  }
  return Status::Ok();
}

}  // namespace

Result<Geometry> ParsePly(ByteView bytes, std::string_view name) {
  const std::string_view text = AsChars(bytes);
  if (!text.starts_with("ply"))
    return Status::InvalidArgument(std::string(name) + ": not a PLY file");
  const std::size_t end = text.find("end_header");
  if (end == std::string_view::npos)
    return Status::InvalidArgument(std::string(name) + ": no end_header");
  std::size_t body = text.find('\n', end);
  body = body == std::string_view::npos ? text.size() : body + 1;
  std::vector<Element> elements;
  bool ascii = true;
  CHUNKWISE_RETURN_IF_ERROR(ParseHeader(text.substr(0, end), name, elements, ascii));
  Geometry geometry;
  geometry.type = GeometryType::kMesh;
  for (const Element& element : elements) {
    if (element.name != "vertex") continue;
    for (const Property& property : element.properties) {
      if (property.count_type.empty() && property.name != "x" && property.name != "y" &&
          property.name != "z" && IsValidAttributeName(property.name)) {
        geometry.vertex_attributes.push_back({property.name, {}});
      }
    }
  }
  BodyReader reader(bytes.subspan(body), ascii);
  for (const Element& element : elements)
    CHUNKWISE_RETURN_IF_ERROR(ReadElement(element, reader, name, geometry));
  Status valid = geometry.Validate();
  if (!valid.ok()) return valid.WithContext(name);
  return geometry;
}

Result<Geometry> ReadPly(const std::filesystem::path& path) {
  CHUNKWISE_ASSIGN_OR_RETURN(Bytes bytes, core::ReadFile(path));
  return ParsePly(bytes, path.string());
}

Bytes FormatPly(const Geometry& geometry) {
  const bool mesh = geometry.type == GeometryType::kMesh;
  std::string header =
      "ply\nformat binary_little_endian 1.0\ncomment written by chunkwise\nelement vertex " +
      std::to_string(geometry.positions.size()) +
      "\nproperty float x\nproperty float y\nproperty float z\n";
  if (mesh) {
    header += "element face " + std::to_string(geometry.num_links()) +
              "\nproperty list uchar int vertex_indices\n";
  } else if (geometry.link_width() == 2) {
    header += "element edge " + std::to_string(geometry.num_links()) +
              "\nproperty int vertex1\nproperty int vertex2\n";
  }
  header += "end_header\n";
  Bytes out(AsBytes(header).begin(), AsBytes(header).end());
  for (const Vec3f& p : geometry.positions) {
    for (float c : p) AppendLittleEndian(std::bit_cast<std::uint32_t>(c), out);
  }
  for (std::size_t r = 0; r < geometry.num_links(); ++r) {
    if (mesh) out.push_back(static_cast<std::uint8_t>(geometry.link_width()));
    for (int e = 0; e < geometry.link_width(); ++e) {
      AppendLittleEndian(static_cast<std::uint32_t>(geometry.links[r * geometry.link_width() + e]),
                         out);
    }
  }
  return out;
}

}  // namespace chunkwise::io
