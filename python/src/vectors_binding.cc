// chunkwise._core's zarr-vectors: geometry (points, graphs, polylines,
// skeletons, meshes) in and out as numpy arrays through the facade
// (facade/vectors.h), for chunkwise/vectors.py, which gives it its
// keyword arguments.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <array>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bindings.h"
#include "chunkwise/chunkwise.h"
#include "operation.h"
#include "status_error.h"

namespace nb = nanobind;

namespace chunkwise::python {
namespace {

using Positions = nb::ndarray<const float, nb::shape<-1, 3>, nb::c_contig, nb::device::cpu>;
using Int64s = nb::ndarray<const std::int64_t, nb::c_contig, nb::device::cpu>;
using Floats = nb::ndarray<const float, nb::c_contig, nb::device::cpu>;

template <typename T>
std::vector<T> CopyOf(const T* data, std::size_t n) {
  return std::vector<T>(data, data + n);
}

// A numpy array owning a copy of `values`, of `shape`.
template <typename T>
nb::object ToNumpy(std::vector<T> values, std::vector<std::size_t> shape) {
  auto* owned = new std::vector<T>(std::move(values));
  owned->reserve(1);
  nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  return nb::cast(nb::ndarray<nb::numpy, T>(owned->data(), shape.size(), shape.data(), owner));
}

// What chunkwise.vectors.write passes down: the geometry's arrays.
struct GeometryIn {
  std::string type = "point_cloud";
  std::vector<double> chunk_shape;  // x, y, z in world units.
  bool overwrite = false;
  std::string layout = "0.9";  // zarr-vectors layout: "0.9" (the default) or "0.8".
  std::vector<std::string> vertex_attribute_names;
  std::vector<std::string> link_attribute_names;
  std::vector<int> link_attribute_channels;
};

nb::dict WriteVectors(const std::string& url, const GeometryIn& request, Positions positions,
                      std::optional<Int64s> links, std::optional<Int64s> object_ids,
                      const std::vector<Floats>& vertex_attributes,
                      const std::vector<Floats>& link_attributes, nb::object progress,
                      std::shared_ptr<CancelToken> cancel) {
  VectorGeometry geometry;
  geometry.type = ValueOrThrow(ParseGeometryType(request.type));
  geometry.positions.resize(positions.shape(0));
  std::memcpy(geometry.positions.data(), positions.data(), positions.nbytes());
  if (links) geometry.links = CopyOf(links->data(), links->size());
  if (object_ids) geometry.object_ids = CopyOf(object_ids->data(), object_ids->size());
  if (vertex_attributes.size() != request.vertex_attribute_names.size() ||
      link_attributes.size() != request.link_attribute_names.size() ||
      link_attributes.size() != request.link_attribute_channels.size()) {
    throw StatusError(Status::InvalidArgument("attribute names and values differ in number"));
  }
  for (std::size_t i = 0; i < vertex_attributes.size(); ++i) {
    geometry.vertex_attributes.push_back(
        {request.vertex_attribute_names[i],
         CopyOf(vertex_attributes[i].data(), vertex_attributes[i].size())});
  }
  for (std::size_t i = 0; i < link_attributes.size(); ++i) {
    geometry.link_attributes.push_back(
        {request.link_attribute_names[i], request.link_attribute_channels[i],
         CopyOf(link_attributes[i].data(), link_attributes[i].size())});
  }
  if (request.chunk_shape.size() != 3) {
    throw StatusError(Status::InvalidArgument("chunk_shape must have 3 extents (x, y, z)"));
  }
  VectorsWriteOptions options;
  options.chunk_shape = {request.chunk_shape[0], request.chunk_shape[1], request.chunk_shape[2]};
  options.overwrite = request.overwrite;
  options.layout = ValueOrThrow(ParseLayoutVersion(request.layout));
  VectorsWriteSummary summary;
  Operation operation(std::move(progress), std::move(cancel));
  operation.Run(
      [&]() -> Status {
        CHUNKWISE_ASSIGN_OR_RETURN(
            summary, ::chunkwise::WriteVectors(operation.context(), url, geometry, options,
                                               operation.call()));
        return Status::Ok();
      },
      positions.nbytes());
  nb::dict result;
  result["vertices"] = summary.vertices;
  result["chunks"] = summary.chunks;
  return result;
}

nb::dict ReadVectors(const std::string& url, int level, const std::string& region,
                     std::optional<std::int64_t> object_id, nb::object progress,
                     std::shared_ptr<CancelToken> cancel) {
  VectorsReadOptions options;
  options.level = level;
  if (!region.empty()) options.box = ValueOrThrow(ParseRegionBox(region));
  options.object_id = object_id;
  VectorGeometry geometry;
  Operation operation(std::move(progress), std::move(cancel));
  operation.Run(
      [&]() -> Status {
        CHUNKWISE_ASSIGN_OR_RETURN(
            VectorsLevelGeometry read,
            ::chunkwise::ReadVectors(operation.context(), url, options, operation.call()));
        geometry = std::move(read.geometry);
        return Status::Ok();
      },
      // Watched (Ctrl-C and the token are checked) whatever its size.
      UINT64_MAX);
  const std::size_t n = geometry.positions.size();
  std::vector<float> positions(n * 3);
  std::memcpy(positions.data(), geometry.positions.data(), positions.size() * sizeof(float));
  nb::dict result;
  const std::string_view type = GeometryTypeName(geometry.type);
  result["type"] = nb::str(type.data(), type.size());
  result["positions"] = ToNumpy(std::move(positions), {n, 3});
  const auto width = static_cast<std::size_t>(geometry.link_width());
  result["links"] =
      ToNumpy(std::move(geometry.links), {width == 0 ? 0 : geometry.links.size() / width, width});
  result["object_ids"] = geometry.object_ids.empty() ? nb::none()
                                                     : ToNumpy(std::move(geometry.object_ids),
                                                               {geometry.object_ids.size()});
  nb::dict vertex_attributes;
  for (VectorsVertexAttribute& attribute : geometry.vertex_attributes) {
    const std::size_t count = attribute.values.size();
    vertex_attributes[nb::str(attribute.name.c_str())] =
        ToNumpy(std::move(attribute.values), {count});
  }
  result["vertex_attributes"] = vertex_attributes;
  nb::dict link_attributes;
  for (VectorsLinkAttribute& attribute : geometry.link_attributes) {
    const auto channels = static_cast<std::size_t>(attribute.channels);
    const std::size_t count = attribute.values.size() / channels;
    link_attributes[nb::str(attribute.name.c_str())] =
        ToNumpy(std::move(attribute.values), {count, channels});
  }
  result["link_attributes"] = link_attributes;
  return result;
}

nb::dict ConvertVectors(const std::string& source, const std::string& destination,
                        const std::string& layout, bool overwrite, nb::object progress,
                        std::shared_ptr<CancelToken> cancel) {
  VectorsConvertOptions options;
  options.layout = ValueOrThrow(ParseLayoutVersion(layout));
  options.overwrite = overwrite;
  VectorsWriteSummary summary;
  Operation operation(std::move(progress), std::move(cancel));
  operation.Run(
      [&]() -> Status {
        CHUNKWISE_ASSIGN_OR_RETURN(
            summary, ::chunkwise::ConvertVectors(operation.context(), source, destination, options,
                                                 operation.call()));
        return Status::Ok();
      },
      UINT64_MAX);
  nb::dict result;
  result["vertices"] = summary.vertices;
  result["chunks"] = summary.chunks;
  return result;
}

}  // namespace

void BindVectors(nb::module_& module) {
  nb::class_<GeometryIn>(module, "VectorsWriteRequest")
      .def(nb::init<>())
      .def_rw("type", &GeometryIn::type)
      .def_rw("chunk_shape", &GeometryIn::chunk_shape)
      .def_rw("overwrite", &GeometryIn::overwrite)
      .def_rw("layout", &GeometryIn::layout)
      .def_rw("vertex_attribute_names", &GeometryIn::vertex_attribute_names)
      .def_rw("link_attribute_names", &GeometryIn::link_attribute_names)
      .def_rw("link_attribute_channels", &GeometryIn::link_attribute_channels);
  module.def("vectors_write", &WriteVectors, nb::arg("url"), nb::arg("request"),
             nb::arg("positions"), nb::arg("links").none(), nb::arg("object_ids").none(),
             nb::arg("vertex_attributes"), nb::arg("link_attributes"),
             nb::arg("progress") = nb::none(), nb::arg("cancel").none() = nb::none());
  module.def("vectors_convert", &ConvertVectors, nb::arg("source"), nb::arg("destination"),
             nb::arg("layout"), nb::arg("overwrite"), nb::arg("progress") = nb::none(),
             nb::arg("cancel").none() = nb::none());
  module.def("vectors_read", &ReadVectors, nb::arg("url"), nb::arg("level"), nb::arg("region"),
             nb::arg("object_id").none(), nb::arg("progress") = nb::none(),
             nb::arg("cancel").none() = nb::none());
}

}  // namespace chunkwise::python
