// chunkwise.view's core: the facade's Viewer (data and neuroglancer's client
// served on this machine, and the link), kept alive by a Python object.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
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

class PyViewer {
 public:
  explicit PyViewer(std::unique_ptr<Viewer> viewer) : viewer_(std::move(viewer)) {}

  std::string url() const { return viewer_->url(); }
  std::string link() const { return viewer_->link(); }
  std::string state_json() const { return viewer_->state().dump(); }
  nb::list layers() const {
    nb::list out;
    for (const ViewerLayer& layer : viewer_->layers()) {
      nb::dict entry;
      entry["name"] = layer.name;
      entry["type"] = layer.type;
      entry["source"] = layer.source;
      entry["kind"] = layer.kind;
      if (layer.contrast.has_value()) {
        entry["contrast"] = nb::make_tuple((*layer.contrast)[0], (*layer.contrast)[1]);
      } else {
        entry["contrast"] = nb::none();
      }
      nb::list segments;
      for (const std::uint64_t id : layer.segments) segments.append(id);
      entry["segments"] = segments;
      out.append(entry);
    }
    return out;
  }
  void stop() {
    nb::gil_scoped_release release;
    viewer_->Stop();
  }

 private:
  std::unique_ptr<Viewer> viewer_;
};

}  // namespace

void BindViewer(nb::module_& module) {
  nb::class_<PyViewer>(module, "Viewer")
      .def_prop_ro("url", &PyViewer::url)
      .def_prop_ro("link", &PyViewer::link)
      .def_prop_ro("state_json", &PyViewer::state_json)
      .def_prop_ro("layers", &PyViewer::layers)
      .def("stop", &PyViewer::stop);
  module.def(
      "start_viewer",
      [](const std::vector<std::string>& urls, const std::string& client_dir,
         const std::string& host, int port, std::size_t threads) {
        Result<std::unique_ptr<Viewer>> viewer = [&] {
          nb::gil_scoped_release release;
          return Viewer::Start(
              ModuleContext(), urls,
              {.client_dir = client_dir, .host = host, .port = port, .threads = threads});
        }();
        return std::make_unique<PyViewer>(ValueOrThrow(std::move(viewer)));
      },
      nb::arg("urls"), nb::arg("client_dir"), nb::arg("host"), nb::arg("port"), nb::arg("threads"));
}

}  // namespace chunkwise::python
