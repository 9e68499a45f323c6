// What neuroglancer can open in a store, and the viewer link that opens it.
//
// neuroglancer opens precomputed volumes ("precomputed://<url>") and zarr
// arrays ("zarr3://<url>", "zarr2://<url>"); it does not open the Arrow IPC
// shards of export-shards, which FindSources reports so that a caller can say
// so. A link is a viewer URL whose fragment "#!" carries the viewer state as
// percent-encoded JSON: one layer per source, with the source URL under
// the server's base URL. Pure functions of the store's keys; thread-safe.
#ifndef CHUNKWISE_FORMATS_NEUROGLANCER_SOURCES_H_
#define CHUNKWISE_FORMATS_NEUROGLANCER_SOURCES_H_

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/result.h"
#include "chunkwise/store/store.h"

namespace chunkwise::formats::neuroglancer {

enum class SourceKind { kPrecomputed, kZarr3, kZarr2, kArrowShards };

struct Source {
  std::string prefix;  // "" or ending in "/".
  SourceKind kind = SourceKind::kPrecomputed;
  std::string layer_type;  // "segmentation" or "image" (empty for Arrow shards).
  std::string name;        // The prefix's last folder, or the store's name.
  // An OME-Zarr multiscale group (its zarr.json or .zattrs names
  // "multiscales"): neuroglancer opens the group as one layer of all its
  // scales. `multiscale` is the first entry of "multiscales" (axes, datasets
  // from finest to coarsest, coordinateTransformations); null otherwise.
  nlohmann::json multiscale = nullptr;

  // neuroglancer opens it (false for Arrow shards).
  bool openable() const { return kind != SourceKind::kArrowShards; }
};

// The sources at `prefix` and in folders up to `depth` levels below it,
// sorted by prefix: a precomputed info, a zarr v3 array, a zarr v2 array,
// an OME-Zarr multiscale group (v0.4 in zarr v2, v0.5 in zarr v3; its arrays
// are not sources of their own; other groups are looked into), or
// export-shards output (an info beside s<N>/*.arrow). Reads the store's listing under `prefix` and
// the metadata of each candidate; a candidate whose metadata does not parse is skipped.
Result<std::vector<Source>> FindSources(const store::Store& store, const std::string& prefix,
                                        int depth = 3);

// "precomputed://http://host:port/a/b" or "zarr3://http://host:port/a/b/" for
// base URL "http://host:port/".
// REQUIRES: source.openable().
std::string SourceUrl(const Source& source, std::string_view base_url);

// A viewer state with one layer per openable source, the first selected.
nlohmann::json ViewerState(const std::vector<Source>& sources, std::string_view base_url);

// `client_url` + "#!" + the state, percent-encoded as a URL fragment.
std::string ViewerLink(std::string_view client_url, const nlohmann::json& state);

}  // namespace chunkwise::formats::neuroglancer

#endif  // CHUNKWISE_FORMATS_NEUROGLANCER_SOURCES_H_
