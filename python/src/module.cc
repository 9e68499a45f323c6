// chunkwise._core: the native half of the chunkwise Python package. The
// package's Python files (python/chunkwise/) give it its user-facing shape.
#include <nanobind/nanobind.h>

#include "bindings.h"
#include "status_error.h"

NB_MODULE(_core, module) {
  module.doc() = "chunkwise's native bindings; use the chunkwise package, not this module.";
  module.attr("__version__") = CHUNKWISE_VERSION;
  chunkwise::python::RegisterStatusTranslator();
  chunkwise::python::BindCancelToken(module);
  chunkwise::python::BindCache(module);
  chunkwise::python::BindStore(module);
  chunkwise::python::BindArray(module);
  chunkwise::python::BindGroup(module);
  chunkwise::python::BindStream(module);
  chunkwise::python::BindChunkBatch(module);
  chunkwise::python::BindDvid(module);
  chunkwise::python::BindExportJob(module);
  chunkwise::python::BindPrecomputedJob(module);
  chunkwise::python::BindReferences(module);
  chunkwise::python::BindBcolz(module);
  chunkwise::python::BindVectors(module);
  chunkwise::python::BindZarrJobs(module);
  chunkwise::python::BindMesh(module);
  chunkwise::python::BindSkeletons(module);
  chunkwise::python::BindViewer(module);
  chunkwise::python::BindStringArray(module);
}
