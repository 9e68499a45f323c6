// chunkwise.skeletonize and chunkwise.read_skeleton (facade/skeletons.h);
// and the steps of a job split into parts (facade/skeleton_jobs.h) that
// chunkwise.dask.skeletonize runs on the driver and in its tasks.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bindings.h"
#include "chunkwise/chunkwise.h"
#include "operation.h"
#include "status_error.h"

namespace chunkwise::python {
namespace nb = nanobind;
namespace {

SkeletonizeOptions Options(const std::string& format, const std::vector<std::uint64_t>& labels,
                           double scale, double constant,
                           const std::optional<std::vector<double>>& voxel_size, bool overwrite,
                           const std::string& directory,
                           const std::optional<std::vector<double>>& chunk_shape,
                           std::uint64_t max_memory) {
  SkeletonizeOptions options;
  options.format = ValueOrThrow(ParseSkeletonFormat(format));
  options.labels = labels;
  options.scale = scale;
  options.constant = constant;
  if (voxel_size) {
    if (voxel_size->size() != 3) {
      throw StatusError(Status::InvalidArgument("voxel_size must have 3 sizes (x, y, z)"));
    }
    options.voxel_size =
        std::array<double, 3>{(*voxel_size)[0], (*voxel_size)[1], (*voxel_size)[2]};
  }
  options.overwrite = overwrite;
  options.directory = directory;
  if (chunk_shape) {
    if (chunk_shape->size() != 3) {
      throw StatusError(Status::InvalidArgument("chunk_shape must have 3 sizes (x, y, z)"));
    }
    options.vectors_chunk_shape =
        std::array<double, 3>{(*chunk_shape)[0], (*chunk_shape)[1], (*chunk_shape)[2]};
  }
  options.max_memory = max_memory;
  return options;
}

nb::dict SummaryDict(const SkeletonizeSummary& summary) {
  nb::dict result;
  result["labels"] = summary.labels;
  result["voxels"] = summary.voxels;
  result["vertices"] = summary.vertices;
  result["edges"] = summary.edges;
  result["cable_length"] = summary.cable_length;
  result["files"] = summary.files;
  result["bytes"] = summary.bytes;
  result["prefix"] = summary.prefix;
  return result;
}

nb::dict Skeletonize(const std::string& source, const std::string& dest, const std::string& format,
                     const std::vector<std::uint64_t>& labels, double scale, double constant,
                     std::optional<std::vector<double>> voxel_size, bool overwrite,
                     const std::string& directory, std::optional<std::vector<double>> chunk_shape,
                     std::size_t threads, std::uint64_t max_memory, nb::object progress,
                     std::shared_ptr<CancelToken> cancel) {
  const SkeletonizeOptions options = Options(format, labels, scale, constant, voxel_size, overwrite,
                                             directory, chunk_shape, max_memory);
  SkeletonizeSummary summary;
  Operation operation(std::move(progress), std::move(cancel), threads);
  operation.Run(
      [&]() -> Status {
        CHUNKWISE_ASSIGN_OR_RETURN(
            summary,
            ::chunkwise::Skeletonize(operation.context(), source, dest, options, operation.call()));
        return Status::Ok();
      },
      // Always watched: skeletons take long for their size.
      UINT64_MAX);
  return SummaryDict(summary);
}

// The options of a split job, as chunkwise.dask.skeletonize passes them to each task.
struct SkeletonRequest {
  std::string format = "precomputed";
  std::vector<std::uint64_t> labels;
  double scale = SkeletonizeOptions{}.scale;
  double constant = SkeletonizeOptions{}.constant;
  std::optional<std::vector<double>> voxel_size;
  bool overwrite = false;
  std::string directory = "skeletons";
  std::optional<std::vector<double>> chunk_shape;  // vectors
  std::size_t threads = 0;
  std::uint64_t max_memory = 0;

  SkeletonizeOptions options() const {
    return Options(format, labels, scale, constant, voxel_size, overwrite, directory, chunk_shape,
                   max_memory);
  }
};

// Step `step` (1: scan, 2: skeletonize) of part `part` of `parts`, cancellable.
void SkeletonJobStep(int step, const std::string& source, const std::string& dest, int part,
                     int parts, const SkeletonRequest& request,
                     std::shared_ptr<CancelToken> cancel) {
  const SkeletonizeOptions options = request.options();
  Operation operation(nb::none(), std::move(cancel), request.threads);
  operation.Run(
      [&]() -> Status {
        return step == 1 ? ScanSkeletonJobPart(operation.context(), source, dest, options, part,
                                               parts, operation.call())
                         : SkeletonizeJobPart(operation.context(), source, dest, options, part,
                                              parts, operation.call());
      },
      UINT64_MAX);
}

nb::dict FinishSkeletonJobStep(const std::string& source, const std::string& dest, int parts,
                               const SkeletonRequest& request) {
  const SkeletonizeOptions options = request.options();
  SkeletonizeSummary summary;
  Operation operation(nb::none(), nullptr, request.threads);
  operation.Run(
      [&]() -> Status {
        CHUNKWISE_ASSIGN_OR_RETURN(summary, FinishSkeletonJob(operation.context(), source, dest,
                                                              options, parts, operation.call()));
        return Status::Ok();
      },
      UINT64_MAX);
  return SummaryDict(summary);
}

void AbandonSkeletonJobStep(const std::string& source, const std::string& dest, int parts,
                            const SkeletonRequest& request, bool skeletonized) {
  const SkeletonizeOptions options = request.options();
  nb::gil_scoped_release release;
  AbandonSkeletonJob(ModuleContext(), source, dest, options, parts, skeletonized);
}

template <typename T, std::size_t N>
nb::ndarray<nb::numpy, T> ToNumpy(const std::vector<std::array<T, N>>& rows, std::size_t columns) {
  auto* data = new T[rows.size() * columns + 1];
  if (!rows.empty()) std::memcpy(data, rows.data(), rows.size() * columns * sizeof(T));
  nb::capsule owner(data, [](void* p) noexcept { delete[] static_cast<T*>(p); });
  return nb::ndarray<nb::numpy, T>(data, {rows.size(), columns}, owner);
}

nb::dict ReadSkeleton(const std::string& url, std::uint64_t label) {
  const SkeletonData skeleton =
      ValueOrThrow(::chunkwise::ReadSkeleton(ModuleContext(), url, label));
  nb::dict result;
  result["vertices"] = ToNumpy(skeleton.vertices, 3);
  result["edges"] = ToNumpy(skeleton.edges, 2);
  auto* radii = new float[skeleton.radii.size() + 1];
  if (!skeleton.radii.empty()) std::memcpy(radii, skeleton.radii.data(), skeleton.radii.size() * 4);
  nb::capsule owner(radii, [](void* p) noexcept { delete[] static_cast<float*>(p); });
  result["radii"] = nb::ndarray<nb::numpy, float>(radii, {skeleton.radii.size()}, owner);
  return result;
}

}  // namespace

void BindSkeletons(nb::module_& module) {
  module.def("skeletonize", &Skeletonize, nb::arg("source"), nb::arg("dest"), nb::arg("format"),
             nb::arg("labels"), nb::arg("scale"), nb::arg("constant"), nb::arg("voxel_size").none(),
             nb::arg("overwrite"), nb::arg("directory"), nb::arg("chunk_shape").none(),
             nb::arg("threads"), nb::arg("max_memory") = 0, nb::arg("progress") = nb::none(),
             nb::arg("cancel").none() = nb::none());
  module.def("read_skeleton", &ReadSkeleton, nb::arg("url"), nb::arg("label"));
  nb::class_<SkeletonRequest>(module, "SkeletonRequest")
      .def(nb::init<>())
      .def_rw("format", &SkeletonRequest::format)
      .def_rw("labels", &SkeletonRequest::labels)
      .def_rw("scale", &SkeletonRequest::scale)
      .def_rw("constant", &SkeletonRequest::constant)
      .def_rw("voxel_size", &SkeletonRequest::voxel_size)
      .def_rw("overwrite", &SkeletonRequest::overwrite)
      .def_rw("directory", &SkeletonRequest::directory)
      .def_rw("chunk_shape", &SkeletonRequest::chunk_shape)
      .def_rw("threads", &SkeletonRequest::threads)
      .def_rw("max_memory", &SkeletonRequest::max_memory);
  module.def(
      "skeleton_job_scan",
      [](const std::string& source, const std::string& dest, int part, int parts,
         const SkeletonRequest& request, std::shared_ptr<CancelToken> cancel) {
        SkeletonJobStep(1, source, dest, part, parts, request, std::move(cancel));
      },
      nb::arg("source"), nb::arg("dest"), nb::arg("part"), nb::arg("parts"), nb::arg("request"),
      nb::arg("cancel").none() = nb::none());
  module.def(
      "skeleton_job_part",
      [](const std::string& source, const std::string& dest, int part, int parts,
         const SkeletonRequest& request, std::shared_ptr<CancelToken> cancel) {
        SkeletonJobStep(2, source, dest, part, parts, request, std::move(cancel));
      },
      nb::arg("source"), nb::arg("dest"), nb::arg("part"), nb::arg("parts"), nb::arg("request"),
      nb::arg("cancel").none() = nb::none());
  module.def("skeleton_job_finish", &FinishSkeletonJobStep, nb::arg("source"), nb::arg("dest"),
             nb::arg("parts"), nb::arg("request"));
  module.def("skeleton_job_abandon", &AbandonSkeletonJobStep, nb::arg("source"), nb::arg("dest"),
             nb::arg("parts"), nb::arg("request"), nb::arg("skeletonized"));
}

}  // namespace chunkwise::python
