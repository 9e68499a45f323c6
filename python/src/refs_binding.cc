// chunkwise._core's reference sets: build_references (the facade's
// BuildReferences then WriteReferences), for chunkwise/refs.py. A set is
// read through Store.open_references (store_binding.cc): the facade's
// reference store, read as any other store.
#include <nanobind/nanobind.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <string>
#include <vector>

#include "bindings.h"
#include "chunkwise/chunkwise.h"
#include "operation.h"
#include "status_error.h"

namespace nb = nanobind;

namespace chunkwise::python {
namespace {

// What chunkwise.refs.build passes down.
struct BuildRequest {
  std::string format = "json-v1";  // "json" (v0), "json-v1" or "parquet".
  std::string url_base;            // Empty: the source's absolute path or URL.
  bool templates = true;
  std::uint64_t record_size = 100000;
  std::string root_array_name;  // Empty: the facade's, after the source (ReferenceRootArrayName).
  bool overwrite = false;
};

nb::dict SummaryDict(const ReferenceSummary& summary) {
  nb::dict result;
  result["references"] = summary.total_references();
  result["inline"] = summary.inline_count;
  result["ranges"] = summary.range_count;
  result["whole_files"] = summary.whole_file_count;
  result["bytes"] = summary.total_bytes();
  result["arrays"] = nb::cast(summary.arrays);
  return result;
}

nb::dict BuildReferencesAt(const std::string& source, const std::string& output,
                           const BuildRequest& request, nb::object progress,
                           std::shared_ptr<CancelToken> cancel) {
  ReferenceWriteOptions write;
  write.format = ValueOrThrow(ParseReferenceFormat(request.format));
  write.templates = request.templates;
  write.record_size = request.record_size;
  write.root_array_name = request.root_array_name;
  write.overwrite = request.overwrite;
  if (write.record_size == 0) {
    throw StatusError(Status::InvalidArgument("record_size must be positive"));
  }
  Operation operation(std::move(progress), std::move(cancel));
  ReferenceSummary summary;
  operation.Run(
      [&]() -> Status {
        const Context& context = operation.context();
        const CallOptions& call = operation.call();
        // The CLI's `refs build` job (one process): the same refusals before
        // any work and the same names (an empty root_array_name is the source's).
        CHUNKWISE_ASSIGN_OR_RETURN(
            const ReferenceJobSummary job,
            BuildReferencesInto(context, source, output,
                                {.url_base = request.url_base,
                                 .zarr_chunk_keys_only = write.format == ReferenceFormat::kParquet},
                                write, {}, call));
        CHUNKWISE_ASSIGN_OR_RETURN(summary, SummarizeReferences(job.set));
        return Status::Ok();
      },
      // Always watched: the chunk count of the source is not known here.
      UINT64_MAX);
  return SummaryDict(summary);
}

}  // namespace

void BindReferences(nb::module_& module) {
  nb::class_<BuildRequest>(module, "ReferenceBuildRequest")
      .def(nb::init<>())
      .def_rw("format", &BuildRequest::format)
      .def_rw("url_base", &BuildRequest::url_base)
      .def_rw("templates", &BuildRequest::templates)
      .def_rw("record_size", &BuildRequest::record_size)
      .def_rw("root_array_name", &BuildRequest::root_array_name)
      .def_rw("overwrite", &BuildRequest::overwrite);

  module.def("build_references", &BuildReferencesAt, nb::arg("source"), nb::arg("output"),
             nb::arg("request"), nb::arg("progress") = nb::none(),
             nb::arg("cancel").none() = nb::none());
}

}  // namespace chunkwise::python
