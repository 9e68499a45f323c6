// What a zarr array or group is and what it stores, as one JSON object: the
// same object `chunkwise zarr info --json` prints and Python's Array.info
// returns, so that both doors name the same facts the same way.
//
// An array's keys, in this order (docs/cli.md, "zarr info"):
//   path, node_type ("array"), zarr_format, shape, dtype (zarr v3 name),
//   chunks (the inner chunk when sharded), shards (null when not sharded),
//   fill_value, codecs (zarr v3 codec documents), dimension_names (null when
//   none; entries may be null), attributes, nbytes (elements × element size),
//   nbytes_stored, nchunks (objects of the grid: shards when sharded),
//   nchunks_initialized (those stored), ninner_chunks and
//   ninner_chunks_initialized (sharded arrays; null otherwise).
// A group's: path, node_type ("group"), members (path, node_type,
//   zarr_format, and for arrays shape, dtype, chunks, shards).
#ifndef CHUNKWISE_FACADE_ZARR_INFO_H_
#define CHUNKWISE_FACADE_ZARR_INFO_H_

#include <nlohmann/json.hpp>
#include <string_view>

#include "chunkwise/facade/call_options.h"
#include "chunkwise/facade/context.h"
#include "chunkwise/facade/zarr_arrays.h"

namespace chunkwise {

struct ZarrInfoOptions {
  // Count what is stored (the keys from nbytes_stored on): lists the array's
  // store, one request per shard for a sharded array. false: those keys are
  // left out and nothing is read.
  bool count_stored = true;
};

// The array's info; `url` is given as its path. The store's errors;
// Cancelled if the call was.
Result<nlohmann::ordered_json> ZarrArrayInfo(const Context& context, const ZarrArray& array,
                                             std::string_view url,
                                             const ZarrInfoOptions& options = {},
                                             const CallOptions& call = {});

// The info of the array or group at `url`. NotFound naming the metadata key
// when neither is there.
Result<nlohmann::ordered_json> ZarrInfo(const Context& context, std::string_view url,
                                        const CallOptions& call = {});

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_ZARR_INFO_H_
