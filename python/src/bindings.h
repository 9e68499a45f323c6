// The parts of the chunkwise._core module, each bound in its own file.
#ifndef CHUNKWISE_PYTHON_BINDINGS_H_
#define CHUNKWISE_PYTHON_BINDINGS_H_

#include <nanobind/nanobind.h>

namespace chunkwise::python {

void BindArray(nanobind::module_& module);           // array_binding.cc
void BindCache(nanobind::module_& module);           // cache_binding.cc
void BindChunkBatch(nanobind::module_& module);      // chunk_batch_binding.cc
void BindDvid(nanobind::module_& module);            // dvid_binding.cc
void BindGroup(nanobind::module_& module);           // group_binding.cc
void BindStore(nanobind::module_& module);           // store_binding.cc
void BindStream(nanobind::module_& module);          // stream_binding.cc
void BindExportJob(nanobind::module_& module);       // export_job_binding.cc
void BindPrecomputedJob(nanobind::module_& module);  // precomputed_job_binding.cc
void BindCancelToken(nanobind::module_& module);     // operation.cc
void BindReferences(nanobind::module_& module);      // refs_binding.cc
void BindBcolz(nanobind::module_& module);           // bcolz_binding.cc
void BindVectors(nanobind::module_& module);         // vectors_binding.cc
void BindZarrJobs(nanobind::module_& module);        // zarr_job_binding.cc
void BindMesh(nanobind::module_& module);            // mesh_binding.cc
void BindSkeletons(nanobind::module_& module);       // skeleton_binding.cc
void BindViewer(nanobind::module_& module);          // viewer_binding.cc
void BindStringArray(nanobind::module_& module);     // string_array_binding.cc

}  // namespace chunkwise::python

#endif  // CHUNKWISE_PYTHON_BINDINGS_H_
