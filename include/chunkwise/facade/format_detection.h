// DetectFormat: what a store holds under a prefix, by the keys each format
// writes first (docs/api.md lists the rules).
//
// The CLI's commands that take "any source" (refs build, info) and the
// Python module's open() ask here instead of probing paths themselves.
#ifndef CHUNKWISE_FACADE_FORMAT_DETECTION_H_
#define CHUNKWISE_FACADE_FORMAT_DETECTION_H_

#include <string>
#include <string_view>

#include "chunkwise/core/result.h"
#include "chunkwise/store/store.h"

namespace chunkwise {

enum class FormatKind {
  kZarrV3Array,        // zarr.json, node_type "array"
  kZarrV3Group,        // zarr.json, node_type "group"
  kZarrVectors,        // zarr.json of a group with "zarr_vectors" attributes
  kZarrV2Array,        // .zarray
  kZarrV2Group,        // .zgroup (or consolidated .zmetadata)
  kPrecomputed,        // info with "@type": "neuroglancer_multiscale_volume" and scales
  kDvidExport,         // info of an export-shards spec and s<N>/ shards
  kArrowShard,         // one .arrow value (an export shard)
  kReferencesJson,     // a kerchunk/fsspec JSON reference set (a value)
  kReferencesParquet,  // a Parquet reference set (.zmetadata with record_size)
  kBcolzCarray,        // meta/storage
  kBcolzCtable,        // __rootdirs__
};

// "zarr v3 array", "neuroglancer precomputed", … for messages and `info`.
std::string_view FormatName(FormatKind kind);

struct DetectedFormat {
  FormatKind kind;
  std::string key;  // The key that decided: "a.zarr/zarr.json", "s0/0_0_0.arrow", …
};

// What `store` holds at `prefix` ("" is the store's root; a prefix naming a
// value, e.g. "refs.json" or "s0/shard.arrow", is looked at as that value).
// NotFound naming the prefix when nothing is there; InvalidArgument naming
// it when keys are there but in no format chunkwise knows; the store's and
// JSON parser's errors (Corruption, with the key named) otherwise.
Result<DetectedFormat> DetectFormat(const store::Store& store, std::string_view prefix = "");

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_FORMAT_DETECTION_H_
