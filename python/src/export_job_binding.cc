// chunkwise._core's export-shards as a job of independent tasks
// (facade/dvid_export.h): the three calls chunkwise.dask.export_shards makes
// on the driver and in each task.
// Summaries cross as ExportSummary's JSON.
#include <nanobind/nanobind.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstdint>
#include <memory>
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

// What each call takes besides its URLs: ExportShardsOptions' fields.
ExportShardsOptions Options(std::size_t workers, std::uint32_t version, int num_scales,
                            bool overwrite, bool resume) {
  ExportShardsOptions options;
  options.workers = workers;
  options.version = version;
  options.num_scales = num_scales;
  options.overwrite = overwrite;
  options.resume = resume;
  return options;
}

// One task per output shard of scale 0 (there are at most this many).
std::uint64_t ExportShardCount(const std::string& spec_url) {
  nb::gil_scoped_release release;
  return ValueOrThrow(ReadExportSpec(ModuleContext(), spec_url)).MaxShardsOfFirstScale();
}

void Prepare(const std::string& dest_url, bool overwrite, bool resume) {
  nb::gil_scoped_release release;
  ThrowIfError(PrepareExportShards(ModuleContext(), dest_url, Options(0, 0, 0, overwrite, resume)));
}

// Part `part` of `parts`: its summary as JSON. The labelmap is opened
// read-only, so that every task's process may open it at once.
std::string Part(const std::string& labelmap_path, const std::string& spec_url,
                 const std::string& dest_url, int part, int parts, std::size_t workers,
                 std::uint32_t version, int num_scales, bool resume,
                 std::shared_ptr<CancelToken> cancel) {
  // Watched: Ctrl-C or the token stops the task between blocks.
  Operation operation(nb::none(), std::move(cancel), workers);
  std::string summary;
  operation.Run(
      [&]() -> Status {
        const Context& context = operation.context();
        CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<Labelmap> labelmap,
                                   OpenLabelmap(labelmap_path, false, true));
        CHUNKWISE_ASSIGN_OR_RETURN(const ExportSpec spec, ReadExportSpec(context, spec_url));
        CHUNKWISE_ASSIGN_OR_RETURN(
            const ExportSummary done,
            ExportShardsPart(context, *labelmap, spec, dest_url, part, parts,
                             Options(workers, version, num_scales, false, resume),
                             operation.call()));
        summary = done.ToJson();
        return Status::Ok();
      },
      UINT64_MAX);
  return summary;
}

// The job's summary, as JSON and as the lines export.log holds.
std::tuple<std::string, std::string> Publish(const std::string& labelmap_path,
                                             const std::string& spec_url,
                                             const std::string& dest_url,
                                             const std::vector<std::string>& parts_json,
                                             std::uint32_t version, int num_scales) {
  nb::gil_scoped_release release;
  const Context& context = ModuleContext();
  std::vector<ExportSummary> parts;
  for (const std::string& text : parts_json) {
    parts.push_back(ValueOrThrow(ExportSummary::FromJson(text)));
  }
  std::unique_ptr<Labelmap> labelmap = ValueOrThrow(OpenLabelmap(labelmap_path, false, true));
  const ExportSpec spec = ValueOrThrow(ReadExportSpec(context, spec_url));
  const ExportSummary job = ValueOrThrow(PublishExportShards(
      context, *labelmap, spec, dest_url, parts, Options(0, version, num_scales, false, false)));
  return {job.ToJson(), job.Format()};
}

}  // namespace

void BindExportJob(nb::module_& module) {
  module.def("export_shard_count", &ExportShardCount, nb::arg("spec_url"));
  module.def("export_shards_prepare", &Prepare, nb::arg("dest_url"), nb::arg("overwrite"),
             nb::arg("resume"));
  module.def("export_shards_part", &Part, nb::arg("labelmap"), nb::arg("spec_url"),
             nb::arg("dest_url"), nb::arg("part"), nb::arg("parts"), nb::arg("workers"),
             nb::arg("version"), nb::arg("num_scales"), nb::arg("resume"),
             nb::arg("cancel").none() = nb::none());
  module.def("export_shards_publish", &Publish, nb::arg("labelmap"), nb::arg("spec_url"),
             nb::arg("dest_url"), nb::arg("parts"), nb::arg("version"), nb::arg("num_scales"));
}

}  // namespace chunkwise::python
