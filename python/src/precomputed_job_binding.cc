// chunkwise._core's export → neuroglancer precomputed conversion as a job of
// independent tasks (facade/precomputed_conversion.h): the calls
// chunkwise.dask.to_precomputed makes on the driver and in each task.
// Summaries cross as ExportToPrecomputedSummary's JSON.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "bindings.h"
#include "chunkwise/chunkwise.h"
#include "operation.h"
#include "status_error.h"

namespace nb = nanobind;

namespace chunkwise::python {
namespace {

// What the calls take besides their URLs: ExportToPrecomputedOptions' fields.
struct Request {
  std::vector<int> scales;
  std::size_t threads = 1;
  bool supervoxels = false;
  std::string data_encoding = "gzip";
  int gzip_level = 6;
  bool overwrite = false;
  bool resume = false;
};

ExportToPrecomputedOptions Options(const Request& request) {
  ExportToPrecomputedOptions options;
  options.scales = request.scales;
  options.threads = request.threads;
  options.supervoxels = request.supervoxels;
  if (request.data_encoding != "gzip" && request.data_encoding != "raw") {
    throw nb::value_error(
        ("data_encoding must be \"gzip\" or \"raw\", not \"" + request.data_encoding + "\"")
            .c_str());
  }
  options.data_encoding = request.data_encoding == "raw" ? PrecomputedShardEncoding::kRaw
                                                         : PrecomputedShardEncoding::kGzip;
  options.gzip_level = request.gzip_level;
  options.overwrite = request.overwrite;
  options.resume = request.resume;
  return options;
}

PrecomputedConversionUrls Urls(const std::string& export_url, const std::string& dest_url,
                               const std::string& spec_url) {
  return {export_url, dest_url, spec_url};
}

std::uint64_t Count(const std::string& export_url, const std::string& spec_url,
                    const Request& request) {
  const ExportToPrecomputedOptions options = Options(request);
  nb::gil_scoped_release release;
  return ValueOrThrow(
      CountExportToPrecomputedShards(ModuleContext(), Urls(export_url, "", spec_url), options));
}

void Prepare(const std::string& export_url, const std::string& dest_url,
             const std::string& spec_url, const Request& request) {
  const ExportToPrecomputedOptions options = Options(request);
  nb::gil_scoped_release release;
  ThrowIfError(
      PrepareExportToPrecomputed(ModuleContext(), Urls(export_url, dest_url, spec_url), options));
}

// Part `part` of `parts`, on `request.threads` threads: its summary as JSON.
std::string Part(const std::string& export_url, const std::string& dest_url,
                 const std::string& spec_url, int part, int parts, const Request& request) {
  const ExportToPrecomputedOptions options = Options(request);
  nb::gil_scoped_release release;
  CallOptions call;
  call.threads = request.threads;
  return ValueOrThrow(ExportToPrecomputedPart(ModuleContext(), Urls(export_url, dest_url, spec_url),
                                              part, parts, options, call))
      .ToJson();
}

// The job's summary, as JSON and as the lines the CLI prints.
std::tuple<std::string, std::string> Publish(const std::string& export_url,
                                             const std::string& dest_url,
                                             const std::string& spec_url,
                                             const std::vector<std::string>& parts_json,
                                             const Request& request) {
  const ExportToPrecomputedOptions options = Options(request);
  nb::gil_scoped_release release;
  const Context& context = ModuleContext();
  std::vector<ExportToPrecomputedSummary> parts;
  for (const std::string& text : parts_json) {
    parts.push_back(ValueOrThrow(ExportToPrecomputedSummary::FromJson(text)));
  }
  const ExportToPrecomputedSummary job = ValueOrThrow(
      PublishExportToPrecomputed(context, Urls(export_url, dest_url, spec_url), parts, options));
  return {job.ToJson(), job.Format()};
}

}  // namespace

void BindPrecomputedJob(nb::module_& module) {
  nb::class_<Request>(module, "PrecomputedRequest")
      .def(nb::init<>())
      .def_rw("scales", &Request::scales)
      .def_rw("threads", &Request::threads)
      .def_rw("supervoxels", &Request::supervoxels)
      .def_rw("data_encoding", &Request::data_encoding)
      .def_rw("gzip_level", &Request::gzip_level)
      .def_rw("overwrite", &Request::overwrite)
      .def_rw("resume", &Request::resume);
  module.def("to_precomputed_count", &Count, nb::arg("export_url"), nb::arg("spec_url"),
             nb::arg("request"));
  module.def("to_precomputed_prepare", &Prepare, nb::arg("export_url"), nb::arg("dest_url"),
             nb::arg("spec_url"), nb::arg("request"));
  module.def("to_precomputed_part", &Part, nb::arg("export_url"), nb::arg("dest_url"),
             nb::arg("spec_url"), nb::arg("part"), nb::arg("parts"), nb::arg("request"));
  module.def("to_precomputed_publish", &Publish, nb::arg("export_url"), nb::arg("dest_url"),
             nb::arg("spec_url"), nb::arg("parts"), nb::arg("request"));
}

}  // namespace chunkwise::python
