#include "formats/ome/multiscales.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <set>

namespace chunkwise::formats::ome {
namespace {

// The UDUNITS-2 names OME-NGFF 0.5 lists for space and time axes.
constexpr std::array<std::string_view, 26> kSpaceUnits = {
    "angstrom",  "attometer",  "centimeter", "decimeter",  "exameter",  "femtometer", "foot",
    "gigameter", "hectometer", "inch",       "kilometer",  "megameter", "meter",      "micrometer",
    "mile",      "millimeter", "nanometer",  "parsec",     "petameter", "picometer",  "terameter",
    "yard",      "yoctometer", "yottameter", "zeptometer", "zettameter"};
constexpr std::array<std::string_view, 23> kTimeUnits = {
    "attosecond",  "centisecond", "day",         "decisecond",  "exasecond",  "femtosecond",
    "gigasecond",  "hectosecond", "hour",        "kilosecond",  "megasecond", "microsecond",
    "millisecond", "minute",      "nanosecond",  "petasecond",  "picosecond", "second",
    "terasecond",  "yoctosecond", "yottasecond", "zeptosecond", "zettasecond"};

// Axis type order: time, then channel, then space.
int TypeRank(std::string_view type) { return type == "time" ? 0 : type == "channel" ? 1 : 2; }

Status CheckAxes(const std::vector<Axis>& axes) {
  if (axes.size() < 2 || axes.size() > 5) {
    return Status::InvalidArgument("an OME-Zarr image has 2 to 5 axes, not " +
                                   std::to_string(axes.size()))
        .WithField("axes");
  }
  std::set<std::string> names;
  int space = 0;
  int time = 0;
  int channel = 0;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const Axis& axis = axes[i];
    const std::string where = "axis " + std::to_string(i) + " (\"" + axis.name + "\")";
    if (axis.name.empty())
      return Status::InvalidArgument("axis " + std::to_string(i) + " has no name")
          .WithField("dimension_names");
    if (!names.insert(axis.name).second) {
      return Status::InvalidArgument(where + ": axis names must be unique")
          .WithField("dimension_names");
    }
    if (axis.type != "space" && axis.type != "time" && axis.type != "channel") {
      return Status::InvalidArgument(where + ": type \"" + axis.type +
                                     "\" is not space, time or channel")
          .WithField("dimension_names");
    }
    space += axis.type == "space";
    time += axis.type == "time";
    channel += axis.type == "channel";
    if (i > 0 && TypeRank(axes[i - 1].type) > TypeRank(axis.type)) {
      return Status::InvalidArgument(where + ": axes go time, channel, then space")
          .WithField("dimension_names");
    }
    if (!axis.unit.empty() && (axis.type == "channel" || !IsKnownUnit(axis.type, axis.unit))) {
      return Status::InvalidArgument(where + ": \"" + axis.unit + "\" is not a unit OME-NGFF " +
                                     "lists for " + axis.type + " axes (e.g. " +
                                     (axis.type == "time" ? "second" : "micrometer") + ")")
          .WithField("unit");
    }
  }
  if (space < 2 || space > 3) {
    return Status::InvalidArgument("an OME-Zarr image has 2 or 3 space axes, not " +
                                   std::to_string(space))
        .WithField("axes");
  }
  if (time > 1 || channel > 1) {
    return Status::InvalidArgument("an OME-Zarr image has at most one time and one channel axis")
        .WithField("axes");
  }
  return Status::Ok();
}

Status CheckDatasets(const Multiscale& multiscale) {
  const std::vector<Dataset>& datasets = multiscale.datasets;
  if (datasets.empty()) return Status::InvalidArgument("a multiscale image needs a level");
  std::set<std::string> paths;
  for (std::size_t i = 0; i < datasets.size(); ++i) {
    const Dataset& level = datasets[i];
    const std::string where = "level " + std::to_string(i) + " (\"" + level.path + "\")";
    if (level.path.empty() || !paths.insert(level.path).second) {
      return Status::InvalidArgument(where + ": level paths must be unique and not empty");
    }
    if (level.scale.size() != multiscale.axes.size()) {
      return Status::InvalidArgument(where + ": " + std::to_string(level.scale.size()) +
                                     " scale factors for " +
                                     std::to_string(multiscale.axes.size()) + " axes");
    }
    for (std::size_t d = 0; d < level.scale.size(); ++d) {
      if (!std::isfinite(level.scale[d]) || level.scale[d] <= 0) {
        return Status::InvalidArgument(where + ": scale factors must be positive and finite");
      }
      if (i > 0 && level.scale[d] < datasets[i - 1].scale[d]) {
        return Status::InvalidArgument(where + ": levels go from finest to coarsest, but axis " +
                                       multiscale.axes[d].name + " shrinks");
      }
    }
  }
  return Status::Ok();
}

}  // namespace

Result<std::vector<Axis>> AxesFromNames(std::span<const std::string> names, std::size_t rank,
                                        std::string_view space_unit) {
  static const std::vector<std::vector<std::string>> kDefaults = {
      {"y", "x"}, {"z", "y", "x"}, {"t", "z", "y", "x"}, {"t", "c", "z", "y", "x"}};
  if (rank < 2 || rank > 5) {
    return Status::InvalidArgument("an OME-Zarr image has 2 to 5 dimensions, not " +
                                   std::to_string(rank))
        .WithField("axes");
  }
  if (!names.empty() && names.size() != rank) {
    return Status::InvalidArgument(std::to_string(names.size()) + " dimension names for " +
                                   std::to_string(rank) + " dimensions")
        .WithField("dimension_names");
  }
  const std::vector<std::string>& chosen = kDefaults[rank - 2];
  std::vector<Axis> axes;
  for (std::size_t d = 0; d < rank; ++d) {
    Axis axis;
    axis.name = names.empty() ? chosen[d] : names[d];
    axis.type = axis.name == "t" ? "time" : axis.name == "c" ? "channel" : "space";
    if (axis.type == "space") axis.unit = std::string(space_unit);
    axes.push_back(std::move(axis));
  }
  return axes;
}

bool IsKnownUnit(std::string_view type, std::string_view unit) {
  if (type == "space") {
    return std::find(kSpaceUnits.begin(), kSpaceUnits.end(), unit) != kSpaceUnits.end();
  }
  if (type == "time") {
    return std::find(kTimeUnits.begin(), kTimeUnits.end(), unit) != kTimeUnits.end();
  }
  return false;
}

Status Validate(const Multiscale& multiscale) {
  CHUNKWISE_RETURN_IF_ERROR(CheckAxes(multiscale.axes));
  return CheckDatasets(multiscale);
}

Result<nlohmann::json> MultiscalesAttributes(const Multiscale& multiscale) {
  CHUNKWISE_RETURN_IF_ERROR(Validate(multiscale));
  nlohmann::json axes = nlohmann::json::array();
  for (const Axis& axis : multiscale.axes) {
    nlohmann::json entry = {{"name", axis.name}, {"type", axis.type}};
    if (!axis.unit.empty()) entry["unit"] = axis.unit;
    axes.push_back(std::move(entry));
  }
  nlohmann::json datasets = nlohmann::json::array();
  for (const Dataset& level : multiscale.datasets) {
    datasets.push_back(
        {{"path", level.path},
         {"coordinateTransformations", {{{"type", "scale"}, {"scale", level.scale}}}}});
  }
  nlohmann::json entry = {{"axes", std::move(axes)}, {"datasets", std::move(datasets)}};
  if (!multiscale.name.empty()) entry["name"] = multiscale.name;
  if (!multiscale.type.empty()) entry["type"] = multiscale.type;
  if (!multiscale.metadata.is_null()) entry["metadata"] = multiscale.metadata;
  return nlohmann::json{
      {"ome", {{"version", std::string(kNgffVersion)}, {"multiscales", {std::move(entry)}}}}};
}

}  // namespace chunkwise::formats::ome
