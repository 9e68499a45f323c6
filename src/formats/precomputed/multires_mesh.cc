#include "formats/precomputed/multires_mesh.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "draco/compression/decode.h"
#include "draco/compression/encode.h"
#include "draco/mesh/mesh.h"
#include "formats/precomputed/draco_declared_faces.h"
#include "formats/precomputed/segment_shards.h"

namespace chunkwise::formats::precomputed {
namespace {

// A component of a Draco attribute value of type T at `at` (Draco keeps
// values in host order), read as it is stored: Draco's own conversion
// consults the attribute's `normalized` flag, a byte a forged fragment sets
// to values no bool holds.
template <typename T>
double ComponentAt(const std::uint8_t* at) {
  T value;
  std::memcpy(&value, at, sizeof value);
  return static_cast<double>(value);
}

using ComponentReader = double (*)(const std::uint8_t*);

// The reader of a position component of `type`; null for a type that is not
// a number.
ComponentReader PositionComponentReader(draco::DataType type) {
  switch (type) {
    case draco::DT_FLOAT32:
      return ComponentAt<float>;
    case draco::DT_FLOAT64:
      return ComponentAt<double>;
    case draco::DT_INT8:
      return ComponentAt<std::int8_t>;
    case draco::DT_UINT8:
      return ComponentAt<std::uint8_t>;
    case draco::DT_INT16:
      return ComponentAt<std::int16_t>;
    case draco::DT_UINT16:
      return ComponentAt<std::uint16_t>;
    case draco::DT_INT32:
      return ComponentAt<std::int32_t>;
    case draco::DT_UINT32:
      return ComponentAt<std::uint32_t>;
    default:
      return nullptr;
  }
}

static_assert(std::endian::native == std::endian::little,
              "manifests are little-endian and copied as they are in memory");

using Position = std::array<std::uint32_t, 3>;

Status Bad(std::string_view what, std::string_view name, const std::string& why) {
  return Status::Corruption(std::string(what) + " " + std::string(name) + ": " + why);
}

template <typename T>
void Put(Bytes& out, const T& value) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(&value);
  out.insert(out.end(), p, p + sizeof(T));
}

// Reads little-endian values from a manifest, failing once past its end.
class Reader {
 public:
  explicit Reader(ByteView bytes) : bytes_(bytes) {}
  template <typename T>
  bool Get(T& value) {
    if (bytes_.size() - at_ < sizeof(T)) return false;
    std::memcpy(&value, bytes_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return true;
  }
  std::size_t left() const { return bytes_.size() - at_; }

 private:
  ByteView bytes_;
  std::size_t at_ = 0;
};

std::uint32_t MaxQuantized(int bits) { return (std::uint32_t{1} << bits) - 1; }

Status CheckBits(int bits) {
  if (bits == 10 || bits == 16) return Status::Ok();
  return Status::InvalidArgument("vertex quantization bits must be 10 or 16, not " +
                                 std::to_string(bits))
      .WithField("vertex_quantization_bits");
}

constexpr std::string_view kFragment = "multi-resolution mesh fragment";

// Draco sizes its tables from an Edgebreaker fragment's stated triangle
// count before it reads one, so the count is held to the fragment's size
// first.
Status CheckDeclaredTriangles(ByteView bytes, std::string_view name) {
  const std::optional<std::uint32_t> faces = DracoEdgebreakerDeclaredFaces(bytes);
  if (!faces || *faces <= kMostDracoTrianglesPerByte * bytes.size()) return Status::Ok();
  return Bad(kFragment, name,
             "declares " + std::to_string(*faces) + " triangles in " +
                 std::to_string(bytes.size()) + " bytes, more than " +
                 std::to_string(kMostDracoTrianglesPerByte) + " a byte");
}

// The x, y, z of every vertex of a decoded fragment, read as stored and
// each an integer in [0, 2^bits - 1].
Result<std::vector<std::uint32_t>> QuantizedPositions(const draco::Mesh& mesh, int bits,
                                                      std::string_view name) {
  const draco::PointAttribute* position =
      mesh.GetNamedAttribute(draco::GeometryAttribute::POSITION);
  if (position == nullptr || position->num_components() != 3) {
    return Bad(kFragment, name, "no position attribute of x, y and z");
  }
  // Draco reads an attribute's values without bounds of its own: a forged
  // fragment may declare positions of another type than three floats, or
  // more entries than its buffer holds.
  const ComponentReader component = PositionComponentReader(position->data_type());
  const std::int64_t component_bytes = draco::DataTypeLength(position->data_type());
  if (component == nullptr || position->byte_stride() < 3 * component_bytes) {
    return Bad(kFragment, name, "its positions are not three numbers each");
  }
  const draco::DataBuffer* values = position->buffer();
  const auto entries = static_cast<std::int64_t>(position->size());
  if (values == nullptr || position->byte_offset() < 0 ||
      values->data_size() <
          static_cast<std::size_t>(position->byte_offset() + entries * position->byte_stride())) {
    return Bad(
        kFragment, name,
        "its positions' buffer is shorter than their " + std::to_string(entries) + " entries");
  }
  const double top = MaxQuantized(bits);
  std::vector<std::uint32_t> vertices;
  vertices.reserve(std::size_t{mesh.num_points()} * 3);
  for (draco::PointIndex i(0); i < mesh.num_points(); ++i) {
    const draco::AttributeValueIndex entry = position->mapped_index(i);
    if (entry.value() >= position->size()) {
      return Bad(kFragment, name,
                 "vertex " + std::to_string(i.value()) + " names position " +
                     std::to_string(entry.value()) + " of " + std::to_string(entries));
    }
    const std::uint8_t* at =
        values->data() + position->byte_offset() + entry.value() * position->byte_stride();
    for (int d = 0; d < 3; ++d) {
      const double value = component(at + d * component_bytes);
      const double v = std::round(value);
      if (!(v >= 0 && v <= top)) {
        return Bad(kFragment, name,
                   "vertex " + std::to_string(i.value()) + " lies at " + std::to_string(value) +
                       ", outside [0, " + std::to_string(MaxQuantized(bits)) + "]");
      }
      vertices.push_back(static_cast<std::uint32_t>(v));
    }
  }
  return vertices;
}

// The vertex indexes of every triangle, each naming a decoded vertex (Draco's
// sequential method keeps a face's indexes as stored).
Result<std::vector<std::uint32_t>> TriangleCorners(const draco::Mesh& mesh, std::string_view name) {
  std::vector<std::uint32_t> corners;
  corners.reserve(std::size_t{mesh.num_faces()} * 3);
  for (draco::FaceIndex f(0); f < mesh.num_faces(); ++f) {
    for (const draco::PointIndex& p : mesh.face(f)) {
      if (p >= mesh.num_points()) {
        return Bad(kFragment, name,
                   "triangle " + std::to_string(f.value()) + " names vertex " +
                       std::to_string(p.value()) + " of " + std::to_string(mesh.num_points()));
      }
      corners.push_back(p.value());
    }
  }
  return corners;
}

}  // namespace

bool ZOrderLess(const Position& a, const Position& b) {
  // The axis whose differing bit is highest decides; at the same bit z
  // outranks y, which outranks x.
  int axis = 2;
  for (int d : {1, 0}) {
    const std::uint32_t da = a[axis] ^ b[axis], dd = a[d] ^ b[d];
    if (da < dd && da < (da ^ dd)) axis = d;
  }
  return a[axis] < b[axis];
}

Bytes EncodeMultiresManifest(const MultiresManifest& manifest) {
  Bytes out;
  for (float v : manifest.chunk_shape) Put(out, v);
  for (float v : manifest.grid_origin) Put(out, v);
  Put(out, static_cast<std::uint32_t>(manifest.lods.size()));
  for (const auto& lod : manifest.lods) Put(out, lod.scale);
  for (const auto& lod : manifest.lods) {
    for (float v : lod.vertex_offset) Put(out, v);
  }
  for (const auto& lod : manifest.lods) Put(out, static_cast<std::uint32_t>(lod.positions.size()));
  for (const auto& lod : manifest.lods) {
    for (int d = 0; d < 3; ++d) {
      for (const Position& p : lod.positions) Put(out, p[d]);
    }
    for (std::uint32_t size : lod.sizes) Put(out, size);
  }
  return out;
}

Result<MultiresManifest> DecodeMultiresManifest(ByteView bytes, std::string_view name) {
  constexpr std::string_view kWhat = "multi-resolution mesh manifest";
  Reader in(bytes);
  MultiresManifest m;
  std::uint32_t num_lods = 0;
  bool ok = true;
  for (float& v : m.chunk_shape) ok = ok && in.Get(v);
  for (float& v : m.grid_origin) ok = ok && in.Get(v);
  ok = ok && in.Get(num_lods);
  if (!ok) {
    return Bad(kWhat, name, std::to_string(bytes.size()) + " bytes; the header needs 28");
  }
  // Each LOD needs a scale, an offset and a count: 20 bytes.
  if (num_lods == 0 || in.left() / 20 < num_lods) {
    return Bad(kWhat, name,
               std::to_string(num_lods) + " levels of detail in " + std::to_string(bytes.size()) +
                   " bytes");
  }
  m.lods.resize(num_lods);
  for (auto& lod : m.lods) in.Get(lod.scale);
  for (auto& lod : m.lods) {
    for (float& v : lod.vertex_offset) in.Get(v);
  }
  std::vector<std::uint32_t> counts(num_lods);
  std::uint64_t fragments = 0;
  for (std::uint32_t& c : counts) {
    in.Get(c);
    fragments += c;
  }
  if (fragments * 16 != in.left()) {
    return Bad(kWhat, name,
               std::to_string(fragments) + " fragments need " + std::to_string(fragments * 16) +
                   " bytes after the header; " + std::to_string(in.left()) + " follow");
  }
  for (std::uint32_t k = 0; k < num_lods; ++k) {
    auto& lod = m.lods[k];
    lod.positions.resize(counts[k]);
    lod.sizes.resize(counts[k]);
    for (int d = 0; d < 3; ++d) {
      for (Position& p : lod.positions) in.Get(p[d]);
    }
    for (std::uint32_t& size : lod.sizes) in.Get(size);
    for (std::size_t i = 1; i < lod.positions.size(); ++i) {
      if (!ZOrderLess(lod.positions[i - 1], lod.positions[i])) {
        return Bad(kWhat, name,
                   "fragments " + std::to_string(i - 1) + " and " + std::to_string(i) +
                       " of level of detail " + std::to_string(k) + " are out of Z-order");
      }
    }
  }
  return m;
}

Result<Bytes> EncodeDracoFragment(const QuantizedMesh& mesh, int bits) {
  CHUNKWISE_RETURN_IF_ERROR(CheckBits(bits));
  const std::size_t n = mesh.vertices.size() / 3;
  const std::uint32_t top = MaxQuantized(bits);
  draco::Mesh out;
  out.set_num_points(static_cast<draco::PointIndex::ValueType>(n));
  draco::GeometryAttribute position;
  position.Init(draco::GeometryAttribute::POSITION, nullptr, 3, draco::DT_FLOAT32, false,
                sizeof(float) * 3, 0);
  const int attribute = out.AddAttribute(position, true, static_cast<std::uint32_t>(n));
  for (std::size_t i = 0; i < n; ++i) {
    std::array<float, 3> value{};
    for (int d = 0; d < 3; ++d) {
      const std::uint32_t q = mesh.vertices[3 * i + d];
      if (q > top) {
        return Status::InvalidArgument("vertex " + std::to_string(i) + " at " + std::to_string(q) +
                                       ", past " + std::to_string(top));
      }
      value[d] = static_cast<float>(q);
    }
    out.attribute(attribute)->SetAttributeValue(
        draco::AttributeValueIndex(static_cast<std::uint32_t>(i)), value.data());
  }
  for (std::size_t t = 0; t + 2 < mesh.triangles.size(); t += 3) {
    out.AddFace({draco::PointIndex(mesh.triangles[t]), draco::PointIndex(mesh.triangles[t + 1]),
                 draco::PointIndex(mesh.triangles[t + 2])});
  }
  draco::Encoder encoder;
  // Draco's quantization over exactly [0, 2^bits - 1] keeps each integer as it is.
  const float origin[3] = {0, 0, 0};
  encoder.SetAttributeExplicitQuantization(draco::GeometryAttribute::POSITION, bits, 3, origin,
                                           static_cast<float>(top));
  encoder.SetEncodingMethod(draco::MESH_EDGEBREAKER_ENCODING);
  encoder.SetSpeedOptions(5, 5);
  draco::EncoderBuffer buffer;
  const draco::Status status = encoder.EncodeMeshToBuffer(out, &buffer);
  if (!status.ok()) {
    return Status::Internal("Draco could not encode a fragment of " + std::to_string(n) +
                            " vertices: " + status.error_msg_string());
  }
  const auto* data = reinterpret_cast<const std::uint8_t*>(buffer.data());
  return Bytes(data, data + buffer.size());
}

Result<QuantizedMesh> DecodeDracoFragment(ByteView bytes, int bits, std::string_view name) {
  CHUNKWISE_RETURN_IF_ERROR(CheckBits(bits));
  CHUNKWISE_RETURN_IF_ERROR(CheckDeclaredTriangles(bytes, name));
  draco::DecoderBuffer buffer;
  buffer.Init(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  draco::Decoder decoder;
  auto decoded = decoder.DecodeMeshFromBuffer(&buffer);
  if (!decoded.ok()) {
    return Bad(kFragment, name, "not a Draco mesh (" + decoded.status().error_msg_string() + ")");
  }
  const std::unique_ptr<draco::Mesh> mesh = std::move(decoded).value();
  QuantizedMesh out;
  CHUNKWISE_ASSIGN_OR_RETURN(out.vertices, QuantizedPositions(*mesh, bits, name));
  CHUNKWISE_ASSIGN_OR_RETURN(out.triangles, TriangleCorners(*mesh, name));
  return out;
}

Result<MultiresManifest::Lod> EncodeLodFragments(const TriangleMesh& mesh,
                                                 const MultiresManifest& grid, int lod, int bits,
                                                 const MultiresManifest::Lod* finer, Bytes& data) {
  CHUNKWISE_RETURN_IF_ERROR(CheckBits(bits));
  std::array<double, 3> cell{};
  for (int d = 0; d < 3; ++d) cell[d] = double{grid.chunk_shape[d]} * std::ldexp(1.0, lod);
  auto less = [](const Position& a, const Position& b) { return ZOrderLess(a, b); };
  // Each cell's triangles, by cell, in Z-order.
  std::map<Position, std::vector<std::uint32_t>, decltype(less)> cells(less);
  for (std::size_t t = 0; t + 2 < mesh.triangles.size(); t += 3) {
    Position p{};
    for (int d = 0; d < 3; ++d) {
      double sum = 0;
      for (int k = 0; k < 3; ++k) sum += mesh.vertices[3 * mesh.triangles[t + k] + d];
      const double at = std::floor((sum / 3 - grid.grid_origin[d]) / cell[d]);
      p[d] = static_cast<std::uint32_t>(std::max(at, 0.0));
    }
    auto& triangles = cells[p];
    triangles.insert(triangles.end(), mesh.triangles.begin() + t, mesh.triangles.begin() + t + 3);
  }
  if (finer != nullptr) {
    for (const Position& child : finer->positions) {
      cells.try_emplace(Position{child[0] >> 1, child[1] >> 1, child[2] >> 1});
    }
  }
  const double top = MaxQuantized(bits);
  MultiresManifest::Lod out;
  out.scale = static_cast<float>(std::ldexp(1.0, lod));
  for (const auto& [p, triangles] : cells) {
    QuantizedMesh fragment;
    std::map<std::uint32_t, std::uint32_t> local;
    for (const std::uint32_t v : triangles) {
      auto [it, added] = local.try_emplace(v, static_cast<std::uint32_t>(local.size()));
      if (added) {
        for (int d = 0; d < 3; ++d) {
          const double lo = grid.grid_origin[d] + cell[d] * p[d];
          const double x = (mesh.vertices[3 * v + d] - lo) / cell[d];
          if (x < -0.01 || x > 1.01) {
            return Status::InvalidArgument("a triangle of level of detail " + std::to_string(lod) +
                                           " crosses the boundary of its fragment's cell");
          }
          fragment.vertices.push_back(
              static_cast<std::uint32_t>(std::clamp(std::round(x * top), 0.0, top)));
        }
      }
      fragment.triangles.push_back(it->second);
    }
    std::uint32_t size = 0;
    if (!fragment.triangles.empty()) {
      CHUNKWISE_ASSIGN_OR_RETURN(const Bytes encoded, EncodeDracoFragment(fragment, bits));
      data.insert(data.end(), encoded.begin(), encoded.end());
      size = static_cast<std::uint32_t>(encoded.size());
    }
    out.positions.push_back(p);
    out.sizes.push_back(size);
  }
  return out;
}

std::string MultiresManifestKey(std::uint64_t id) { return std::to_string(id) + ".index"; }

std::string MultiresDataKey(std::uint64_t id) { return std::to_string(id); }

std::string MultiresMeshInfoText(int bits, const std::array<double, 12>& transform,
                                 double lod_scale_multiplier, const ShardingSpec* sharding) {
  nlohmann::ordered_json info{{"@type", kMultiresMeshType},
                              {"vertex_quantization_bits", bits},
                              {"transform", transform},
                              {"lod_scale_multiplier", lod_scale_multiplier}};
  if (sharding != nullptr) info["sharding"] = ShardingSpecToJson(*sharding);
  return info.dump();
}

ShardingSpec MultiresMeshSharding(std::uint64_t segments) { return SegmentSharding(segments); }

}  // namespace chunkwise::formats::precomputed
