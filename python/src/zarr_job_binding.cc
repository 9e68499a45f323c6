// chunkwise._core's door to the facade's ZarrInfo (`zarr info --json`, arrays
// and groups, facade/zarr_info.h), so that both doors give one dict.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

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

}  // namespace

void BindZarrJobs(nb::module_& module) {
  module.def("zarr_info_json", &ZarrInfoJson, nb::arg("url"));
}

}  // namespace chunkwise::python
