// chunkwise._core.describe_string_array and read_strings: zarr arrays of
// variable-length strings (the facade's facade/zarr_strings.h), which
// chunkwise.open returns as a StringArray (chunkwise/_array.py) that turns
// numpy indexing into boxes and the strings into numpy StringDType arrays.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <vector>

#include "bindings.h"
#include "chunkwise/chunkwise.h"
#include "operation.h"
#include "status_error.h"

namespace nb = nanobind;

namespace chunkwise::python {
namespace {

nb::dict Describe(const std::string& url) {
  ZarrStringArrayInfo info;
  {
    nb::gil_scoped_release release;
    info = ValueOrThrow(DescribeZarrStringArray(ModuleContext(), url));
  }
  nb::dict described;
  described["zarr_format"] = info.zarr_format;
  described["shape"] = info.shape;
  described["chunks"] = info.chunks;
  described["fill_value"] = info.fill_value;
  return described;
}

// The strings of the box [start, stop), C order.
std::vector<std::string> ReadStrings(const std::string& url, const core::Coord& start,
                                     const core::Coord& stop) {
  bool valid = start.size() == stop.size();
  for (std::size_t d = 0; valid && d < start.size(); ++d) valid = start[d] <= stop[d];
  if (!valid) {
    throw StatusError(Status::InvalidArgument(url + ": the box [" + core::FormatShape(start) +
                                              "] to [" + core::FormatShape(stop) +
                                              "] is not a box"));
  }
  nb::gil_scoped_release release;
  return ValueOrThrow(ReadZarrStrings(ModuleContext(), url, core::Region(start, stop)));
}

}  // namespace

void BindStringArray(nb::module_& module) {
  module.def("describe_string_array", &Describe, nb::arg("url"));
  module.def("read_strings", &ReadStrings, nb::arg("url"), nb::arg("start"), nb::arg("stop"));
}

}  // namespace chunkwise::python
