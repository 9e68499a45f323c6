// chunkwise._core.create_string_array, describe_string_array, read_strings
// and write_strings: zarr arrays of variable-length strings (the facade's
// facade/zarr_strings.h), which chunkwise.open and chunkwise.create return
// as a StringArray (chunkwise/_strings.py) that turns numpy indexing into
// boxes and the strings into numpy StringDType arrays.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
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

nb::dict AsDict(const ZarrStringArrayInfo& info) {
  nb::dict described;
  described["zarr_format"] = info.zarr_format;
  described["shape"] = info.shape;
  described["chunks"] = info.chunks;
  described["fill_value"] = info.fill_value;
  return described;
}

nb::dict Describe(const std::string& url) {
  ZarrStringArrayInfo info;
  {
    nb::gil_scoped_release release;
    info = ValueOrThrow(DescribeZarrStringArray(ModuleContext(), url));
  }
  return AsDict(info);
}

// chunkwise.create's keywords for a string array, parsed as for numeric ones.
Result<ZarrStringArraySpec> StringSpecOf(const core::Shape& shape, const core::Shape& chunks,
                                         const std::optional<core::Shape>& shards,
                                         const std::string& codec, const std::string& fill_value,
                                         const std::vector<std::optional<std::string>>& names,
                                         const std::string& attributes_json, int zarr_format,
                                         const std::string& checksum) {
  ZarrStringArraySpec spec;
  spec.shape = shape;
  spec.chunks = chunks;
  spec.shards = shards;
  CHUNKWISE_ASSIGN_OR_RETURN(spec.codecs, ParseCodecs(codec));
  CHUNKWISE_ASSIGN_OR_RETURN(spec.checksum, ParseChunkChecksum(checksum));
  spec.fill_value = fill_value;
  spec.dimension_names = names;
  CHUNKWISE_ASSIGN_OR_RETURN(spec.attributes, ParseJsonOption(attributes_json, "attributes"));
  spec.zarr_format = zarr_format;
  return spec;
}

nb::dict Create(const std::string& url, const core::Shape& shape, const core::Shape& chunks,
                const std::optional<core::Shape>& shards, const std::string& codec,
                const std::string& fill_value,
                const std::vector<std::optional<std::string>>& dimension_names,
                const std::string& attributes_json, int zarr_format, const std::string& checksum,
                bool overwrite) {
  ZarrStringArrayInfo info;
  {
    nb::gil_scoped_release release;
    const ZarrStringArraySpec spec =
        ValueOrThrow(StringSpecOf(shape, chunks, shards, codec, fill_value, dimension_names,
                                  attributes_json, zarr_format, checksum));
    info =
        ValueOrThrow(CreateZarrStringArray(ModuleContext(), url, spec, {.overwrite = overwrite}));
  }
  return AsDict(info);
}

// The box [start, stop); InvalidArgument naming `url` when it is not one.
core::Region BoxOf(const std::string& url, const core::Coord& start, const core::Coord& stop) {
  bool valid = start.size() == stop.size();
  for (std::size_t d = 0; valid && d < start.size(); ++d) valid = start[d] <= stop[d];
  if (!valid) {
    throw StatusError(Status::InvalidArgument(url + ": the box [" + core::FormatShape(start) +
                                              "] to [" + core::FormatShape(stop) +
                                              "] is not a box"));
  }
  return core::Region(start, stop);
}

// The strings of the box [start, stop), C order.
std::vector<std::string> ReadStrings(const std::string& url, const core::Coord& start,
                                     const core::Coord& stop) {
  const core::Region region = BoxOf(url, start, stop);
  nb::gil_scoped_release release;
  return ValueOrThrow(ReadZarrStrings(ModuleContext(), url, region));
}

// Writes `values` (C order) over the box [start, stop).
void WriteStrings(const std::string& url, const core::Coord& start, const core::Coord& stop,
                  const std::vector<std::string>& values) {
  const core::Region region = BoxOf(url, start, stop);
  nb::gil_scoped_release release;
  ThrowIfError(WriteZarrStrings(ModuleContext(), url, region, values));
}

}  // namespace

void BindStringArray(nb::module_& module) {
  module.def("describe_string_array", &Describe, nb::arg("url"));
  module.def("read_strings", &ReadStrings, nb::arg("url"), nb::arg("start"), nb::arg("stop"));
  module.def("write_strings", &WriteStrings, nb::arg("url"), nb::arg("start"), nb::arg("stop"),
             nb::arg("values"));
  module.def("create_string_array", &Create, nb::arg("url"), nb::arg("shape"), nb::arg("chunks"),
             nb::arg("shards").none(), nb::arg("codec"), nb::arg("fill_value"),
             nb::arg("dimension_names"), nb::arg("attributes_json"), nb::arg("zarr_format"),
             nb::arg("checksum"), nb::arg("overwrite"));
}

}  // namespace chunkwise::python
