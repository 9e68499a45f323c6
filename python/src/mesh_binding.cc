// chunkwise.mesh: surface meshes and segment properties of labels written
// into a precomputed segmentation (facade/meshes.h), as `chunkwise mesh` does.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
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

nb::dict Mesh(const std::string& source, const std::string& dest, const std::string& format,
              const std::optional<std::vector<std::uint64_t>>& labels,
              const std::optional<std::string>& names, bool overwrite, std::size_t threads,
              int lods, const std::optional<std::vector<std::int64_t>>& chunk,
              double simplification_factor, double max_simplification_error, nb::object progress,
              std::shared_ptr<CancelToken> cancel) {
  MeshOptions options;
  options.format = format;
  options.lods = lods;
  options.simplification_factor = simplification_factor;
  options.max_simplification_error = max_simplification_error;
  if (chunk) {
    if (chunk->size() != 3) {
      throw StatusError(Status::InvalidArgument("chunk is (z, y, x), not " +
                                                std::to_string(chunk->size()) + " values")
                            .WithField("chunk"));
    }
    options.chunk = {(*chunk)[0], (*chunk)[1], (*chunk)[2]};
  }
  if (labels) {
    if (labels->empty()) {
      throw StatusError(Status::InvalidArgument("labels is an empty list: None meshes every label")
                            .WithField("labels"));
    }
    options.labels = *labels;
  }
  options.names_csv = names.value_or("");
  options.overwrite = overwrite;
  MeshSummary summary;
  Operation operation(std::move(progress), std::move(cancel), threads);
  operation.Run(
      [&]() -> Status {
        CHUNKWISE_ASSIGN_OR_RETURN(
            summary, GenerateMeshes(operation.context(), source, dest, options, operation.call()));
        return Status::Ok();
      },
      UINT64_MAX);
  nb::dict out;
  out["segments"] = summary.segments;
  out["vertices"] = summary.vertices;
  out["triangles"] = summary.triangles;
  out["bytes"] = summary.bytes;
  out["voxels"] = summary.voxels;
  out["mesh"] = summary.mesh_dir;
  out["segment_properties"] = summary.properties_dir;
  return out;
}

}  // namespace

void BindMesh(nb::module_& module) {
  module.def("mesh", &Mesh, nb::arg("source"), nb::arg("dest"), nb::arg("format"),
             nb::arg("labels").none(), nb::arg("names").none(), nb::arg("overwrite"),
             nb::arg("threads"), nb::arg("lods") = 3, nb::arg("chunk").none() = nb::none(),
             nb::arg("simplification_factor") = MeshOptions{}.simplification_factor,
             nb::arg("max_simplification_error") = MeshOptions{}.max_simplification_error,
             nb::arg("progress") = nb::none(), nb::arg("cancel").none() = nb::none());
}

}  // namespace chunkwise::python
