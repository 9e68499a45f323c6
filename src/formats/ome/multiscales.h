// OME-NGFF 0.5 `multiscales` metadata: the attributes of an OME-Zarr image
// group whose arrays are one image at several resolutions.
//
// The rules this file checks and writes are in docs/formats/ome-zarr.md: the
// group's zarr.json carries {"ome": {"version": "0.5", "multiscales": [...]}};
// the image has 2 to 5 axes, of which 2 or 3 are of type "space" and come
// last, after at most one "time" axis (first) and one "channel" axis; units
// are UDUNITS-2 names from the spec's lists; each dataset (level) has a path
// and exactly one scale transform, with one positive factor per axis, and the
// levels go from the finest to the coarsest (no scale factor shrinks). Every
// level array's dimension_names must equal the axes' names, which the caller
// writes (pipelines/stream does).
#ifndef CHUNKWISE_FORMATS_OME_MULTISCALES_H_
#define CHUNKWISE_FORMATS_OME_MULTISCALES_H_

#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/result.h"

namespace chunkwise::formats::ome {

inline constexpr std::string_view kNgffVersion = "0.5";

struct Axis {
  std::string name;
  std::string type;  // "space", "time" or "channel".
  std::string unit;  // Empty: none stated.
};

// One level: an array at `path` (relative to the group) and its scale.
struct Dataset {
  std::string path;
  std::vector<double> scale;  // One per axis.
};

struct Multiscale {
  std::string name;               // Empty: not written.
  std::vector<Axis> axes;         // Slowest first, as the arrays' dimensions.
  std::vector<Dataset> datasets;  // Finest first.
  std::string type;               // The downscaling method, e.g. "mean"; empty: not written.
  nlohmann::json metadata;        // Its description; null: not written.
};

// The axes of an image of `rank` dimensions named `names` (empty: y,x for 2;
// z,y,x for 3; t,z,y,x for 4; t,c,z,y,x for 5). An axis named "t" is of type
// time, "c" channel, any other space; space axes get `space_unit` (empty:
// none). InvalidArgument for a rank outside 2..5 or names of another count.
Result<std::vector<Axis>> AxesFromNames(std::span<const std::string> names, std::size_t rank,
                                        std::string_view space_unit);

// True for a unit the spec lists for axes of `type` ("space" or "time").
bool IsKnownUnit(std::string_view type, std::string_view unit);

// OK when `multiscale` follows the rules above; InvalidArgument naming the
// rule it breaks otherwise.
Status Validate(const Multiscale& multiscale);

// The group attributes holding `multiscale`, after Validate.
Result<nlohmann::json> MultiscalesAttributes(const Multiscale& multiscale);

}  // namespace chunkwise::formats::ome

#endif  // CHUNKWISE_FORMATS_OME_MULTISCALES_H_
