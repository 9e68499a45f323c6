// chunkwise.mesh: surface meshes and segment properties of labels written
// into a precomputed segmentation (facade/meshes.h), as `chunkwise mesh` does;
// and the steps of a job split into parts (facade/mesh_jobs.h) that
// chunkwise.dask.mesh runs on the driver and in its tasks.
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

MeshOptions Options(const std::string& format,
                    const std::optional<std::vector<std::uint64_t>>& labels,
                    const std::optional<std::string>& names, bool overwrite, int lods,
                    const std::optional<std::vector<std::int64_t>>& chunk,
                    double simplification_factor, double max_simplification_error) {
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
  return options;
}

nb::dict SummaryDict(const MeshSummary& summary) {
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

nb::dict Mesh(const std::string& source, const std::string& dest, const std::string& format,
              const std::optional<std::vector<std::uint64_t>>& labels,
              const std::optional<std::string>& names, bool overwrite, std::size_t threads,
              int lods, const std::optional<std::vector<std::int64_t>>& chunk,
              double simplification_factor, double max_simplification_error, nb::object progress,
              std::shared_ptr<CancelToken> cancel) {
  const MeshOptions options = Options(format, labels, names, overwrite, lods, chunk,
                                      simplification_factor, max_simplification_error);
  MeshSummary summary;
  Operation operation(std::move(progress), std::move(cancel), threads);
  operation.Run(
      [&]() -> Status {
        CHUNKWISE_ASSIGN_OR_RETURN(
            summary, GenerateMeshes(operation.context(), source, dest, options, operation.call()));
        return Status::Ok();
      },
      UINT64_MAX);
  return SummaryDict(summary);
}

// The options of a split job, as chunkwise.dask.mesh passes them to each task.
struct MeshRequest {
  std::string format = "legacy";
  std::optional<std::vector<std::uint64_t>> labels;
  std::optional<std::string> names;
  bool overwrite = false;
  std::size_t threads = 0;
  int lods = 3;
  std::optional<std::vector<std::int64_t>> chunk;
  double simplification_factor = MeshOptions{}.simplification_factor;
  double max_simplification_error = MeshOptions{}.max_simplification_error;

  MeshOptions options() const {
    return Options(format, labels, names, overwrite, lods, chunk, simplification_factor,
                   max_simplification_error);
  }
};

// Step `step` (1: mesh, 2: merge) of part `part` of `parts`, cancellable.
void MeshJobStep(int step, const std::string& source, const std::string& dest, int part, int parts,
                 const MeshRequest& request, std::shared_ptr<CancelToken> cancel) {
  const MeshOptions options = request.options();
  Operation operation(nb::none(), std::move(cancel), request.threads);
  operation.Run(
      [&]() -> Status {
        return step == 1 ? MeshJobPart(operation.context(), source, dest, options, part, parts,
                                       operation.call())
                         : MergeMeshJobPart(operation.context(), source, dest, options, part, parts,
                                            operation.call());
      },
      UINT64_MAX);
}

nb::dict FinishMeshJobStep(const std::string& source, const std::string& dest, int parts,
                           const MeshRequest& request) {
  const MeshOptions options = request.options();
  MeshSummary summary;
  Operation operation(nb::none(), nullptr, request.threads);
  operation.Run(
      [&]() -> Status {
        CHUNKWISE_ASSIGN_OR_RETURN(summary, FinishMeshJob(operation.context(), source, dest,
                                                          options, parts, operation.call()));
        return Status::Ok();
      },
      UINT64_MAX);
  return SummaryDict(summary);
}

void AbandonMeshJobStep(const std::string& dest, int parts, const MeshRequest& request,
                        bool merged) {
  const MeshOptions options = request.options();
  nb::gil_scoped_release release;
  AbandonMeshJob(ModuleContext(), dest, options, parts, merged);
}

}  // namespace

void BindMesh(nb::module_& module) {
  module.def("mesh", &Mesh, nb::arg("source"), nb::arg("dest"), nb::arg("format"),
             nb::arg("labels").none(), nb::arg("names").none(), nb::arg("overwrite"),
             nb::arg("threads"), nb::arg("lods") = 3, nb::arg("chunk").none() = nb::none(),
             nb::arg("simplification_factor") = MeshOptions{}.simplification_factor,
             nb::arg("max_simplification_error") = MeshOptions{}.max_simplification_error,
             nb::arg("progress") = nb::none(), nb::arg("cancel").none() = nb::none());
  nb::class_<MeshRequest>(module, "MeshRequest")
      .def(nb::init<>())
      .def_rw("format", &MeshRequest::format)
      .def_rw("labels", &MeshRequest::labels)
      .def_rw("names", &MeshRequest::names)
      .def_rw("overwrite", &MeshRequest::overwrite)
      .def_rw("threads", &MeshRequest::threads)
      .def_rw("lods", &MeshRequest::lods)
      .def_rw("chunk", &MeshRequest::chunk)
      .def_rw("simplification_factor", &MeshRequest::simplification_factor)
      .def_rw("max_simplification_error", &MeshRequest::max_simplification_error);
  module.def(
      "mesh_job_part",
      [](const std::string& source, const std::string& dest, int part, int parts,
         const MeshRequest& request, std::shared_ptr<CancelToken> cancel) {
        MeshJobStep(1, source, dest, part, parts, request, std::move(cancel));
      },
      nb::arg("source"), nb::arg("dest"), nb::arg("part"), nb::arg("parts"), nb::arg("request"),
      nb::arg("cancel").none() = nb::none());
  module.def(
      "mesh_job_merge",
      [](const std::string& source, const std::string& dest, int part, int parts,
         const MeshRequest& request, std::shared_ptr<CancelToken> cancel) {
        MeshJobStep(2, source, dest, part, parts, request, std::move(cancel));
      },
      nb::arg("source"), nb::arg("dest"), nb::arg("part"), nb::arg("parts"), nb::arg("request"),
      nb::arg("cancel").none() = nb::none());
  module.def("mesh_job_finish", &FinishMeshJobStep, nb::arg("source"), nb::arg("dest"),
             nb::arg("parts"), nb::arg("request"));
  module.def("mesh_job_abandon", &AbandonMeshJobStep, nb::arg("dest"), nb::arg("parts"),
             nb::arg("request"), nb::arg("merged"));
}

}  // namespace chunkwise::python
