// A .npy file as a new zarr array at a URL (`zarr import`): the shape and
// data type from the file's header, the rest from a spec, the file streamed
// in one slab of shards at a time and the metadata written last
// (io/zarr_array_files.h).
#ifndef CHUNKWISE_FACADE_ZARR_IMPORT_H_
#define CHUNKWISE_FACADE_ZARR_IMPORT_H_

#include <functional>
#include <string>
#include <string_view>

#include "chunkwise/core/communicator.h"
#include "chunkwise/facade/call_options.h"
#include "chunkwise/facade/context.h"
#include "chunkwise/facade/zarr_arrays.h"

namespace chunkwise {

struct ZarrImportOptions {
  bool overwrite = false;  // Replace an array or group already at the URL.
  bool resume = false;     // Finish an unpublished import of the same file and layout.
  // The job's ranks (an MPI launch, docs/scale.md); null: this process alone.
  core::Communicator* ranks = nullptr;
  ZarrWriteEncoders encoders;
  // Called with a box's first object key before each box this rank writes;
  // an error fails the import there (a test seam). May be empty.
  std::function<Status(const std::string& object_key)> before_box;
};

// Imports the .npy file at `npy_path` into a new array at `url` with
// `spec`'s chunks, shards, codecs, fill value, dimension names and format
// (its shape and data_type are the file's, whatever the spec says), on the
// call's threads or the context's pool, reporting the file's bytes to the
// call's progress (rank 0 alone in a job). The file's errors naming it;
// CreateZarrArray's for a layout that does not fit; Cancelled if the call was.
Result<ZarrArray> ImportNpyAsZarrArray(const Context& context, std::string_view npy_path,
                                       std::string_view url, const ZarrArraySpec& spec,
                                       const ZarrImportOptions& options = {},
                                       const CallOptions& call = {});

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_ZARR_IMPORT_H_
