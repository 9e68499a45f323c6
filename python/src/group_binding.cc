// chunkwise._core.Group: a zarr group (the facade's ZarrGroup, facade/
// zarr_groups.h) opened or created by URL, its attributes and the names of
// what is directly in it. The Python Group (chunkwise/_group.py) opens
// members by URL through chunkwise.open and this.
#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <utility>
#include <vector>

#include "bindings.h"
#include "chunkwise/chunkwise.h"
#include "operation.h"
#include "status_error.h"

namespace nb = nanobind;

namespace chunkwise::python {
namespace {

class PyGroup {
 public:
  static PyGroup Open(const std::string& url) {
    nb::gil_scoped_release release;
    return PyGroup(ValueOrThrow(OpenZarrGroup(ModuleContext(), url)));
  }

  static PyGroup Create(const std::string& url, int zarr_format, const std::string& attributes_json,
                        bool overwrite) {
    ZarrGroupSpec spec;
    spec.zarr_format = zarr_format;
    spec.attributes = ValueOrThrow(ParseJsonOption(attributes_json, "attributes"));
    nb::gil_scoped_release release;
    return PyGroup(
        ValueOrThrow(CreateZarrGroup(ModuleContext(), url, spec, {.overwrite = overwrite})));
  }

  const std::string& url() const { return group_.url; }
  int zarr_format() const { return group_.zarr_format; }
  std::string attributes_json() const { return group_.attributes.dump(); }

  void SetAttributes(const std::string& attributes_json) {
    const nlohmann::json attributes = ValueOrThrow(ParseJsonOption(attributes_json, "attributes"));
    nb::gil_scoped_release release;
    ThrowIfError(SetZarrGroupAttributes(group_, attributes));
  }

  // (name, is_group) of each node directly in the group, sorted by name.
  std::vector<std::pair<std::string, bool>> Members() const {
    std::vector<ZarrGroupMember> members;
    {
      nb::gil_scoped_release release;
      members = ValueOrThrow(ListZarrGroupMembers(group_));
    }
    std::vector<std::pair<std::string, bool>> result;
    for (ZarrGroupMember& member : members)
      result.emplace_back(std::move(member.name), member.is_group);
    return result;
  }

 private:
  explicit PyGroup(ZarrGroup group) : group_(std::move(group)) {}

  ZarrGroup group_;
};

}  // namespace

void BindGroup(nb::module_& module) {
  nb::class_<PyGroup>(module, "Group")
      .def_static("open", &PyGroup::Open, nb::arg("url"))
      .def_static("create", &PyGroup::Create, nb::arg("url"), nb::arg("zarr_format"),
                  nb::arg("attributes_json"), nb::arg("overwrite"))
      .def_prop_ro("url", &PyGroup::url)
      .def_prop_ro("zarr_format", &PyGroup::zarr_format)
      .def_prop_ro("attributes_json", &PyGroup::attributes_json)
      .def("set_attributes", &PyGroup::SetAttributes, nb::arg("attributes_json"))
      .def("members", &PyGroup::Members);
}

}  // namespace chunkwise::python
