// The neuroglancer state `chunkwise view` opens: what is in the data, shown
// the way a person would set it up by hand.
//
// - Every precomputed volume, zarr array and OME-Zarr multiscale group found
//   at each URL (formats/neuroglancer/sources.h) is one layer; several URLs
//   are layers of one view. An OME-Zarr group is ONE layer of all its scales
//   (zarr3:// or zarr2:// on the group), with its axes' units.
// - An image layer's contrast (the default shader's "normalized" range) spans
//   the data's low to high percentile, sampled from a bounded number of
//   chunks of its coarsest scale, so that a narrow range of values (1000..1200
//   in uint16) is not drawn black.
// - Labels (uint32/uint64, precomputed segmentation, OME "image-label") are a
//   segmentation layer: neuroglancer colours each label and brings the
//   meshes, skeletons and segment properties the info names. When the info
//   names meshes or skeletons and segment properties listing at most
//   kMaxSelectedSegments ids, those ids are selected, so that the 3-D view
//   draws them at once (neuroglancer draws no mesh of an unselected label).
// - The position is the first layer's centre, in its dimensions (x, y, z
//   first): precomputed's nanometres, OME-Zarr's units, zarr's named axes.
#ifndef CHUNKWISE_FACADE_VIEWER_STATE_H_
#define CHUNKWISE_FACADE_VIEWER_STATE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "chunkwise/facade/call_options.h"
#include "chunkwise/facade/context.h"

namespace chunkwise {

// Segment properties listing more ids than this select none of them.
inline constexpr std::size_t kMaxSelectedSegments = 1024;

struct ViewerStateOptions {
  // Chunks of an image's coarsest scale read for its contrast, at most (each
  // cut to at most 2^18 elements around its centre).
  std::size_t contrast_chunks = 8;
  double low_percentile = 1;    // The darkest grey's value: this percentile...
  double high_percentile = 99;  // ...and the brightest's.
};

// Data to show: where the library reads it, and where the viewer does.
struct ViewedData {
  std::string url;        // A path or URL OpenStore takes.
  std::string served_at;  // Its base URL on the server the viewer reads ("http://h:p/data/0/").
};

// One layer of the state, as a program or a person checks it.
struct ViewerLayer {
  std::string name;
  std::string type;    // "image" or "segmentation".
  std::string source;  // neuroglancer's source URL ("zarr3://http://...").
  std::string kind;    // "precomputed", "zarr v3", "zarr v2", "OME-Zarr (zarr v3)"...
  // Image layers whose values were sampled: the grey range, darkest to brightest.
  std::optional<std::array<double, 2>> contrast = std::nullopt;
  // Segmentation layers: the labels selected at the start (see above).
  std::vector<std::uint64_t> segments = {};
};

struct ViewerStateResult {
  nlohmann::json state;  // neuroglancer's viewer state.
  std::vector<ViewerLayer> layers;
};

// The state showing every source of `data`. NotFound naming the URL when a
// local path does not exist or nothing there is something neuroglancer
// opens; OpenStore's and the readers' errors naming the key.
Result<ViewerStateResult> BuildViewerState(const Context& context, std::span<const ViewedData> data,
                                           const ViewerStateOptions& options = {},
                                           const CallOptions& call = {});

// The values' `low` and `high` percentiles (0..100) of `values`, for a
// contrast range; the high one is above the low one (by 1 when they meet).
// REQUIRES: !values.empty().
std::array<double, 2> ContrastRange(std::vector<double> values, double low, double high);

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_VIEWER_STATE_H_
