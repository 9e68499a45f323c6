// chunkwise._core's doors to two facade calls the CLI's `zarr` commands make:
// ZarrInfo (`zarr info --json`, arrays and groups, facade/zarr_info.h) and
// ZarrToPrecomputed (`zarr to-precomputed`, facade/precomputed_volumes.h),
// with the same options and defaults, so that both doors do one job.
#include <nanobind/nanobind.h>
#include <nanobind/stl/array.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "bindings.h"
#include "chunkwise/chunkwise.h"
#include "operation.h"
#include "status_error.h"

namespace nb = nanobind;

namespace chunkwise::python {
namespace {

// The info of the array or group at `url` as JSON text: the object
// `chunkwise zarr info URL --json` prints.
std::string ZarrInfoJson(const std::string& url) {
  nb::gil_scoped_release release;
  return ValueOrThrow(ZarrInfo(ModuleContext(), url)).dump();
}

// What chunkwise.to_precomputed passes down: `zarr to-precomputed`'s flags.
struct PrecomputedRequest {
  std::optional<std::string> type;               // None: by the data type.
  std::optional<std::string> encoding;           // None: by the volume type.
  std::array<core::Index, 3> chunk{64, 64, 64};  // x, y, z
  std::array<double, 3> resolution{1, 1, 1};     // x, y, z
  int num_scales = 1;
  bool sharded = false;
  std::optional<std::string> sharding_json;  // A sharding spec for every scale.
  int gzip_level = 6;
  bool overwrite = false;
  std::size_t threads = 0;
};

Result<ZarrToPrecomputedOptions> OptionsOf(const PrecomputedRequest& request) {
  ZarrToPrecomputedOptions options;
  if (request.type) {
    CHUNKWISE_ASSIGN_OR_RETURN(options.type, ParsePrecomputedVolumeType(*request.type));
  }
  if (request.encoding) {
    CHUNKWISE_ASSIGN_OR_RETURN(options.encoding, ParsePrecomputedChunkEncoding(*request.encoding));
  }
  options.chunk_size = request.chunk;
  options.resolution = request.resolution;
  options.num_scales = request.num_scales;
  if (request.sharding_json) {
    CHUNKWISE_ASSIGN_OR_RETURN(options.sharding,
                               ParsePrecomputedSharding(*request.sharding_json, "sharding"));
  }
  options.auto_sharding = request.sharded;
  options.gzip_level = request.gzip_level;
  options.overwrite = request.overwrite;
  return options;
}

// The facade's ZarrToPrecomputed; its summary as a dict.
nb::dict ZarrToPrecomputedAt(const std::string& source, const std::string& dest,
                             const PrecomputedRequest& request, nb::object progress,
                             std::shared_ptr<CancelToken> cancel) {
  const ZarrToPrecomputedOptions options = ValueOrThrow(OptionsOf(request));
  Operation operation(std::move(progress), std::move(cancel), request.threads);
  ZarrToPrecomputedSummary summary;
  operation.Run(
      [&]() -> Status {
        CHUNKWISE_ASSIGN_OR_RETURN(summary, ZarrToPrecomputed(operation.context(), source, dest,
                                                              options, operation.call()));
        return Status::Ok();
      },
      // Always watched: the size of the source is not known here.
      UINT64_MAX);
  nb::dict result;
  result["chunks_per_scale"] = nb::cast(summary.chunks_per_scale);
  result["bytes_read"] = summary.bytes_read;
  result["seconds"] = summary.seconds;
  return result;
}

}  // namespace

void BindZarrJobs(nb::module_& module) {
  module.def("zarr_info_json", &ZarrInfoJson, nb::arg("url"));

  nb::class_<PrecomputedRequest>(module, "ZarrToPrecomputedRequest")
      .def(nb::init<>())
      .def_rw("type", &PrecomputedRequest::type)
      .def_rw("encoding", &PrecomputedRequest::encoding)
      .def_rw("chunk", &PrecomputedRequest::chunk)
      .def_rw("resolution", &PrecomputedRequest::resolution)
      .def_rw("num_scales", &PrecomputedRequest::num_scales)
      .def_rw("sharded", &PrecomputedRequest::sharded)
      .def_rw("sharding_json", &PrecomputedRequest::sharding_json)
      .def_rw("gzip_level", &PrecomputedRequest::gzip_level)
      .def_rw("overwrite", &PrecomputedRequest::overwrite)
      .def_rw("threads", &PrecomputedRequest::threads);
  module.def("zarr_to_precomputed", &ZarrToPrecomputedAt, nb::arg("source"), nb::arg("dest"),
             nb::arg("request"), nb::arg("progress") = nb::none(),
             nb::arg("cancel").none() = nb::none());
}

}  // namespace chunkwise::python
