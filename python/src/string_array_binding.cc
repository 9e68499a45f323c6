// chunkwise._core.create_string_array, describe_string_array, read_strings
// and write_strings (read_bytes, write_bytes): zarr arrays of variable-length
// strings or bytes (the facade's facade/zarr_strings.h), which chunkwise.open
// and chunkwise.create return as a StringArray (BytesArray;
// chunkwise/_strings.py) that turns numpy indexing into boxes and the
// elements into numpy StringDType (object, of bytes) arrays.
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
  described["bytes"] = info.bytes;
  if (info.bytes) {
    described["fill_value"] = nb::bytes(info.fill_value.data(), info.fill_value.size());
  } else {
    described["fill_value"] = info.fill_value;
  }
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
                                         const std::string& checksum, bool bytes) {
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
  spec.bytes = bytes;
  return spec;
}

nb::dict Create(const std::string& url, const core::Shape& shape, const core::Shape& chunks,
                const std::optional<core::Shape>& shards, const std::string& codec,
                const nb::bytes& fill_bytes,
                const std::vector<std::optional<std::string>>& dimension_names,
                const std::string& attributes_json, int zarr_format, const std::string& checksum,
                bool overwrite, bool bytes) {
  const std::string fill_value(fill_bytes.c_str(), fill_bytes.size());  // Text: its UTF-8.
  ZarrStringArrayInfo info;
  {
    nb::gil_scoped_release release;
    const ZarrStringArraySpec spec =
        ValueOrThrow(StringSpecOf(shape, chunks, shards, codec, fill_value, dimension_names,
                                  attributes_json, zarr_format, checksum, bytes));
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

// The elements of the box [start, stop) of a bytes array, C order, as bytes
// (a str would refuse what is not UTF-8).
nb::list ReadBytes(const std::string& url, const core::Coord& start, const core::Coord& stop) {
  const core::Region region = BoxOf(url, start, stop);
  std::vector<std::string> values;
  {
    nb::gil_scoped_release release;
    values = ValueOrThrow(ReadZarrStrings(ModuleContext(), url, region));
  }
  nb::list out;
  for (const std::string& value : values) out.append(nb::bytes(value.data(), value.size()));
  return out;
}

// Writes `values` (bytes, C order) over the box [start, stop) of a bytes array.
void WriteBytes(const std::string& url, const core::Coord& start, const core::Coord& stop,
                const nb::list& values) {
  const core::Region region = BoxOf(url, start, stop);
  std::vector<std::string> elements;
  elements.reserve(nb::len(values));
  for (nb::handle value : values) {
    const auto element = nb::cast<nb::bytes>(value);
    elements.emplace_back(element.c_str(), element.size());
  }
  nb::gil_scoped_release release;
  ThrowIfError(WriteZarrStrings(ModuleContext(), url, region, elements));
}

}  // namespace

void BindStringArray(nb::module_& module) {
  module.def("describe_string_array", &Describe, nb::arg("url"));
  module.def("read_strings", &ReadStrings, nb::arg("url"), nb::arg("start"), nb::arg("stop"));
  module.def("write_strings", &WriteStrings, nb::arg("url"), nb::arg("start"), nb::arg("stop"),
             nb::arg("values"));
  module.def("read_bytes", &ReadBytes, nb::arg("url"), nb::arg("start"), nb::arg("stop"));
  module.def("write_bytes", &WriteBytes, nb::arg("url"), nb::arg("start"), nb::arg("stop"),
             nb::arg("values"));
  module.def("create_string_array", &Create, nb::arg("url"), nb::arg("shape"), nb::arg("chunks"),
             nb::arg("shards").none(), nb::arg("codec"), nb::arg("fill_value"),
             nb::arg("dimension_names"), nb::arg("attributes_json"), nb::arg("zarr_format"),
             nb::arg("checksum"), nb::arg("overwrite"), nb::arg("bytes") = false);
}

}  // namespace chunkwise::python
