// Meshes and segment properties written into a precomputed segmentation, so
// that neuroglancer (and `chunkwise serve`) shows them: the legacy mesh
// folder, the segment properties folder, and the segmentation's `info`
// pointing at both (docs/formats/precomputed-meshes.md).
//
// Whole or not at all: fragments and manifests first, then each folder's
// info, then the segmentation's info; a failure erases what was written, so
// the segmentation is left as it was. Everything goes through the Store, so
// any store that takes writes (files, s3://, memory://) will do.
#ifndef CHUNKWISE_PIPELINES_MESHING_MESH_OUTPUT_H_
#define CHUNKWISE_PIPELINES_MESHING_MESH_OUTPUT_H_

#include <cstdint>
#include <map>
#include <string>

#include "chunkwise/core/cancellation.h"
#include "chunkwise/core/thread_pool.h"
#include "chunkwise/store/store.h"
#include "formats/precomputed/segment_properties.h"
#include "pipelines/meshing/label_meshes.h"

namespace chunkwise::pipelines {

struct MeshOutputOptions {
  // The folders, relative to the segmentation.
  std::string mesh_dir = "mesh";
  std::string properties_dir = "segment_properties";
  // Replace meshes or segment properties already there (their folders are
  // emptied first); otherwise they are refused.
  bool overwrite = false;
  // Names and tags by segment id, for the segment properties.
  std::map<std::uint64_t, formats::precomputed::SegmentName> names;
  // Writes fragments in parallel; null: on the calling thread.
  core::ThreadPool* pool = nullptr;
  const core::Cancellation* cancellation = nullptr;
};

struct MeshOutputSummary {
  std::uint64_t segments = 0;
  std::uint64_t vertices = 0;
  std::uint64_t triangles = 0;
  std::uint64_t bytes = 0;  // Of the fragments.
};

// Writes `meshed` into the segmentation whose info is "<prefix>info".
// Errors: NotFound naming the info when there is none; InvalidArgument when
// it is not a segmentation, or (field "overwrite") when it already has meshes
// or segment properties and !overwrite; Corruption for an info that is not
// JSON; the store's errors naming the key; Cancelled.
Result<MeshOutputSummary> WriteLegacyMeshes(store::Store& store, const std::string& prefix,
                                            const MeshedLabels& meshed,
                                            const MeshOutputOptions& options);

}  // namespace chunkwise::pipelines

#endif  // CHUNKWISE_PIPELINES_MESHING_MESH_OUTPUT_H_
