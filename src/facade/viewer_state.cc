#include "chunkwise/facade/viewer_state.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <set>

#include "chunkwise/facade/precomputed_volumes.h"
#include "chunkwise/facade/url_value.h"
#include "chunkwise/facade/zarr_arrays.h"
#include "core/json.h"
#include "facade/local_path.h"
#include "formats/neuroglancer/sources.h"

namespace chunkwise {
namespace {

namespace ng = formats::neuroglancer;
using nlohmann::json;

// A sample box holds at most this many elements, however large the chunk
// (a shard) is: the contrast costs a bounded read.
constexpr core::Index kMaxSampleElements = core::Index{1} << 18;

std::string JoinUrl(const std::string& url, const std::string& prefix) {
  if (prefix.empty()) return url;
  std::string joined = url;
  if (!joined.ends_with('/')) joined += '/';
  joined += prefix;
  if (joined.ends_with('/')) joined.pop_back();
  return joined;
}

// The values of `bytes` (host order) as doubles; empty for types neuroglancer
// does not draw as grey levels (bool, float16, complex).
std::vector<double> AsDoubles(ByteView bytes, core::DataTypeId id) {
  std::vector<double> out;
  const auto take = [&]<typename T>(T) {
    out.resize(bytes.size() / sizeof(T));
    for (std::size_t i = 0; i < out.size(); ++i) {
      T value;
      std::memcpy(&value, bytes.data() + i * sizeof(T), sizeof(T));
      out[i] = static_cast<double>(value);
    }
  };
  switch (id) {
    case core::DataTypeId::kInt8:
      take(std::int8_t{});
      break;
    case core::DataTypeId::kInt16:
      take(std::int16_t{});
      break;
    case core::DataTypeId::kInt32:
      take(std::int32_t{});
      break;
    case core::DataTypeId::kInt64:
      take(std::int64_t{});
      break;
    case core::DataTypeId::kUInt8:
      take(std::uint8_t{});
      break;
    case core::DataTypeId::kUInt16:
      take(std::uint16_t{});
      break;
    case core::DataTypeId::kUInt32:
      take(std::uint32_t{});
      break;
    case core::DataTypeId::kUInt64:
      take(std::uint64_t{});
      break;
    case core::DataTypeId::kFloat32:
      take(float{});
      break;
    case core::DataTypeId::kFloat64:
      take(double{});
      break;
    default:
      break;
  }
  std::erase_if(out, [](double v) { return !std::isfinite(v); });
  return out;
}

using ReadBox = std::function<Result<Bytes>(const core::Region&)>;

// Values from up to `count` chunks spread evenly over the grid of `shape` in
// chunks of `chunk` (C order), each cut to kMaxSampleElements around its centre.
Result<std::vector<double>> SampleChunks(const core::Shape& shape, const core::Shape& chunk,
                                         core::DataTypeId type, std::size_t count,
                                         const ReadBox& read) {
  const std::size_t rank = shape.size();
  core::Shape cells(rank);
  double total = 1;
  for (std::size_t d = 0; d < rank; ++d) {
    if (shape[d] == 0) return std::vector<double>();
    cells[d] = (shape[d] + chunk[d] - 1) / chunk[d];
    total *= static_cast<double>(cells[d]);
  }
  const std::size_t picks = static_cast<std::size_t>(std::min<double>(total, count));
  std::vector<double> values;
  for (std::size_t k = 0; k < picks; ++k) {
    // The middle of the k-th of `picks` equal runs of cells, unravelled.
    double index = std::floor((2.0 * k + 1) * total / (2.0 * picks));
    core::Coord origin(rank), extent(rank);
    for (std::size_t d = rank; d-- > 0;) {
      const double cell = std::fmod(index, static_cast<double>(cells[d]));
      index = std::floor(index / static_cast<double>(cells[d]));
      origin[d] = static_cast<core::Index>(cell) * chunk[d];
      extent[d] = std::min(chunk[d], shape[d] - origin[d]);
    }
    for (;;) {
      core::Index elements = 1;
      for (const core::Index e : extent) elements *= e;
      if (elements <= kMaxSampleElements) break;
      const std::size_t widest = std::max_element(extent.begin(), extent.end()) - extent.begin();
      const core::Index half = extent[widest] / 2;
      origin[widest] += (extent[widest] - half) / 2;
      extent[widest] = half;
    }
    CHUNKWISE_ASSIGN_OR_RETURN(const Bytes bytes,
                               read(core::Region::FromOriginAndShape(origin, extent)));
    const std::vector<double> some = AsDoubles(bytes, type);
    values.insert(values.end(), some.begin(), some.end());
  }
  return values;
}

// neuroglancer's SI unit and factor for an OME-Zarr axis unit.
std::pair<std::string, double> SiUnit(const std::string& unit) {
  static const std::map<std::string, std::pair<std::string, double>> kUnits = {
      {"angstrom", {"m", 1e-10}},   {"nanometer", {"m", 1e-9}},  {"micrometer", {"m", 1e-6}},
      {"millimeter", {"m", 1e-3}},  {"centimeter", {"m", 1e-2}}, {"meter", {"m", 1}},
      {"kilometer", {"m", 1e3}},    {"nanosecond", {"s", 1e-9}}, {"microsecond", {"s", 1e-6}},
      {"millisecond", {"s", 1e-3}}, {"second", {"s", 1}},        {"minute", {"s", 60}},
      {"hour", {"s", 3600}}};
  const auto found = kUnits.find(unit);
  return found == kUnits.end() ? std::pair<std::string, double>{"", 1} : found->second;
}

// One dimension of a layer: its name, scale and unit, and the data's centre on it.
struct Axis {
  std::string name;
  double scale = 1;
  std::string unit;
  double centre = 0;
};

// What a source adds to the state beyond its layer.
struct Facts {
  std::vector<Axis> axes;  // Empty when neuroglancer's names for them are not known.
  std::optional<std::array<double, 2>> contrast;
  std::vector<std::uint64_t> segments;
};

// The "scale" (and "translation") of OME-Zarr coordinateTransformations.
void ApplyTransforms(const json& transforms, std::vector<double>& scale,
                     std::vector<double>& translation) {
  if (!transforms.is_array()) return;
  for (const json& t : transforms) {
    const std::string type = t.value("type", "");
    const json& v = type == "scale" ? t.value("scale", json()) : t.value("translation", json());
    if (!v.is_array() || v.size() != scale.size()) continue;
    for (std::size_t d = 0; d < scale.size(); ++d) {
      if (!v[d].is_number()) continue;
      if (type == "scale") scale[d] *= v[d].get<double>();
      if (type == "translation") translation[d] += v[d].get<double>();
    }
  }
}

Result<Facts> ZarrFacts(const Context& context, const std::string& url, const ng::Source& source,
                        bool want_contrast, const ViewerStateOptions& options,
                        const CallOptions& call) {
  const json& multiscale = source.multiscale;
  const json& datasets = multiscale.is_null() ? json::array() : multiscale["datasets"];
  const std::string finest =
      datasets.empty() ? source.prefix : source.prefix + datasets[0]["path"].get<std::string>();
  CHUNKWISE_ASSIGN_OR_RETURN(ZarrArray array,
                             OpenZarrArray(context, JoinUrl(url, finest), {}, call));
  const ZarrArrayMetadata& metadata = array.metadata();
  const std::size_t rank = metadata.shape.size();
  Facts facts;
  if (!multiscale.is_null()) {
    const json& axes = multiscale.value("axes", json());
    if (axes.is_array() && axes.size() == rank) {
      std::vector<double> scale(rank, 1), translation(rank, 0);
      ApplyTransforms(datasets[0].value("coordinateTransformations", json()), scale, translation);
      ApplyTransforms(multiscale.value("coordinateTransformations", json()), scale, translation);
      for (std::size_t d = 0; d < rank; ++d) {
        const json& axis = axes[d];
        const std::string name =
            axis.is_string() ? axis.get<std::string>() : axis.value("name", "");
        if (name.empty() || (axis.is_object() && axis.value("type", "") == "channel")) continue;
        const auto [unit, factor] = SiUnit(axis.is_object() ? axis.value("unit", "") : "");
        facts.axes.push_back(
            {name, scale[d] * factor, unit, translation[d] / scale[d] + metadata.shape[d] / 2.0});
      }
    }
  } else if (metadata.dimension_names.has_value() && metadata.dimension_names->is_array()) {
    std::set<std::string> seen;
    for (std::size_t d = 0; d < rank; ++d) {
      const json& name = (*metadata.dimension_names)[d];
      if (!name.is_string() || name.get<std::string>().empty() ||
          !seen.insert(name.get<std::string>()).second) {
        facts.axes.clear();
        break;
      }
      facts.axes.push_back({name.get<std::string>(), 1, "", metadata.shape[d] / 2.0});
    }
  }
  if (!want_contrast) return facts;
  if (datasets.size() > 1) {  // The coarsest scale is read, not the finest.
    const std::string coarsest = source.prefix + datasets.back()["path"].get<std::string>();
    CHUNKWISE_ASSIGN_OR_RETURN(array, OpenZarrArray(context, JoinUrl(url, coarsest), {}, call));
  }
  CHUNKWISE_ASSIGN_OR_RETURN(
      const std::vector<double> values,
      SampleChunks(array.metadata().shape, array.metadata().chunk_shape,
                   array.metadata().data_type.id(), options.contrast_chunks,
                   [&](const core::Region& box) { return ReadRegion(context, array, box, call); }));
  if (!values.empty()) {
    facts.contrast = ContrastRange(values, options.low_percentile, options.high_percentile);
  }
  return facts;
}

// The ids the segment properties of a volume with meshes or skeletons list,
// when there are at most kMaxSelectedSegments; none otherwise. `volume_url`
// is the volume's; a properties info that is missing or does not parse
// selects nothing (neuroglancer reports it on the layer).
Result<std::vector<std::uint64_t>> SegmentsToSelect(const Context& context,
                                                    const std::string& volume_url,
                                                    const json& extra) {
  std::vector<std::uint64_t> ids;
  const json& properties = extra.value("segment_properties", json());
  if (!properties.is_string() || (!extra.contains("mesh") && !extra.contains("skeletons"))) {
    return ids;
  }
  const std::string key = JoinUrl(volume_url, properties.get<std::string>()) + "/info";
  Result<Bytes> text = ReadUrl(context, key);
  if (!text.ok()) {
    if (text.status().code() == StatusCode::kNotFound) return ids;
    return text.status();
  }
  Result<json> info = core::ParseJson(AsChars(*text), key);
  if (!info.ok() || !info->is_object()) return ids;
  const json& listed = info->value("inline", json::object()).value("ids", json());
  if (!listed.is_array() || listed.size() > kMaxSelectedSegments) return ids;
  for (const json& id : listed) {
    if (!id.is_string()) return std::vector<std::uint64_t>();
    const std::string text_id = id.get<std::string>();
    char* end = nullptr;
    const std::uint64_t value = std::strtoull(text_id.c_str(), &end, 10);
    if (text_id.empty() || *end != '\0') return std::vector<std::uint64_t>();
    ids.push_back(value);
  }
  return ids;
}

Result<Facts> PrecomputedFacts(const Context& context, const std::string& url,
                               const ng::Source& source, bool want_contrast,
                               const ViewerStateOptions& options, const CallOptions& call) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<PrecomputedVolume> volume,
                             OpenPrecomputed(context, JoinUrl(url, source.prefix)));
  const PrecomputedVolumeInfo& info = volume->info();
  Facts facts;
  const PrecomputedScaleInfo& finest = info.scales.front();
  static constexpr const char* kNames[] = {"x", "y", "z"};
  for (int d = 0; d < 3; ++d) {
    facts.axes.push_back({kNames[d], finest.resolution[d] * 1e-9, "m",
                          finest.voxel_offset[d] + finest.size[d] / 2.0});
  }
  if (info.type == PrecomputedVolumeType::kSegmentation) {
    CHUNKWISE_ASSIGN_OR_RETURN(facts.segments,
                               SegmentsToSelect(context, JoinUrl(url, source.prefix), info.extra));
  }
  if (!want_contrast || info.num_channels != 1) return facts;
  const int last = static_cast<int>(info.scales.size()) - 1;
  const PrecomputedScaleInfo& coarsest = info.scales.back();
  // Regions are (z, y, x); the info's sizes (x, y, z).
  const core::Shape shape = {coarsest.size[2], coarsest.size[1], coarsest.size[0]};
  const core::Shape chunk = {coarsest.chunk_size[2], coarsest.chunk_size[1],
                             coarsest.chunk_size[0]};
  CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<double> values,
                             SampleChunks(shape, chunk, info.data_type.id(),
                                          options.contrast_chunks, [&](const core::Region& box) {
                                            return ReadPrecomputedRegion(context, *volume, last,
                                                                         box, call);
                                          }));
  if (!values.empty()) {
    facts.contrast = ContrastRange(values, options.low_percentile, options.high_percentile);
  }
  return facts;
}

std::string KindName(const ng::Source& source) {
  std::string zarr = source.kind == ng::SourceKind::kZarr3 ? "zarr v3" : "zarr v2";
  if (source.kind == ng::SourceKind::kPrecomputed) return "precomputed";
  return source.multiscale.is_null() ? zarr : "OME-Zarr (" + zarr + ")";
}

// The last folder of a path or URL: a layer's name when the source is the URL itself.
std::string BaseName(std::string url) {
  while (url.size() > 1 && url.ends_with('/')) url.pop_back();
  const std::size_t slash = url.rfind('/');
  return slash == std::string::npos ? url : url.substr(slash + 1);
}

json LayerJson(const ViewerLayer& layer) {
  json out = {{"type", layer.type}, {"source", layer.source}, {"name", layer.name}};
  if (layer.contrast.has_value()) {
    out["shader"] = "#uicontrol invlerp normalized\nvoid main() { emitGrayscale(normalized()); }\n";
    out["shaderControls"] = {
        {"normalized", {{"range", {(*layer.contrast)[0], (*layer.contrast)[1]}}}}};
  }
  if (!layer.segments.empty()) {
    json segments = json::array();  // neuroglancer takes uint64 ids as strings.
    for (const std::uint64_t id : layer.segments) segments.push_back(std::to_string(id));
    out["segments"] = segments;
  }
  return out;
}

}  // namespace

std::array<double, 2> ContrastRange(std::vector<double> values, double low, double high) {
  const auto at = [&](double percentile) {
    const double clamped = std::clamp(percentile, 0.0, 100.0);
    const std::size_t k = static_cast<std::size_t>(
        std::llround(clamped / 100.0 * static_cast<double>(values.size() - 1)));
    std::nth_element(values.begin(), values.begin() + k, values.end());
    return values[k];
  };
  const double lo = at(low);
  double hi = at(high);
  if (hi <= lo) hi = lo + 1;
  return {lo, hi};
}

Result<ViewerStateResult> BuildViewerState(const Context& context, std::span<const ViewedData> data,
                                           const ViewerStateOptions& options,
                                           const CallOptions& call) {
  // The few chunks read for the contrast would each print a "read: done"
  // summary; a state is built in moments and reports nothing of its own.
  CallOptions sampling = call;
  sampling.progress_mode = core::ProgressMode::kQuiet;
  ViewerStateResult result;
  std::vector<Axis> axes;  // The view's dimensions, the first layer's first.
  std::set<std::string> names;
  bool have_centre = false;
  for (const ViewedData& item : data) {
    CHUNKWISE_RETURN_IF_ERROR(CheckLocalPathExists(item.url));
    CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                               OpenStore(context, item.url, context.store_options(false)));
    CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<ng::Source> sources, ng::FindSources(*store, ""));
    const std::size_t before = result.layers.size();
    for (const ng::Source& source : sources) {
      if (!source.openable()) continue;
      ViewerLayer layer{.name = source.prefix.empty() ? BaseName(item.url) : source.name,
                        .type = source.layer_type,
                        .source = ng::SourceUrl(source, item.served_at),
                        .kind = KindName(source)};
      for (int n = 2; !names.insert(layer.name).second; ++n) {
        layer.name =
            (source.prefix.empty() ? BaseName(item.url) : source.name) + "-" + std::to_string(n);
      }
      const bool image = layer.type == "image";
      Result<Facts> facts =
          source.kind == ng::SourceKind::kPrecomputed
              ? PrecomputedFacts(context, item.url, source, image, options, sampling)
              : ZarrFacts(context, item.url, source, image, options, sampling);
      if (!facts.ok()) return facts.status().WithContext(item.url + ": " + layer.name);
      layer.contrast = facts->contrast;
      layer.segments = facts->segments;
      for (const Axis& axis : facts->axes) {
        if (std::none_of(axes.begin(), axes.end(),
                         [&](const Axis& a) { return a.name == axis.name; })) {
          axes.push_back(axis);
        }
      }
      have_centre = have_centre || !facts->axes.empty();
      result.layers.push_back(std::move(layer));
    }
    if (result.layers.size() == before) {
      return Status::NotFound(item.url +
                              ": nothing here that neuroglancer opens (precomputed volumes, zarr "
                              "arrays, OME-Zarr groups)");
    }
  }
  json layers = json::array();
  for (const ViewerLayer& layer : result.layers) layers.push_back(LayerJson(layer));
  json& state = result.state;
  state = {{"layers", layers}, {"layout", axes.size() == 2 ? "xy" : "4panel"}};
  if (have_centre) {
    // A JSON object's members come out sorted by name, and neuroglancer
    // takes the dimensions in that order: the position follows it.
    std::map<std::string, const Axis*> sorted;
    for (const Axis& axis : axes) sorted.emplace(axis.name, &axis);
    json dimensions = json::object();
    json position = json::array();
    for (const auto& [name, axis] : sorted) {
      dimensions[name] = {axis->scale, axis->unit};
      position.push_back(axis->centre);
    }
    state["dimensions"] = dimensions;
    state["position"] = position;
  }
  return result;
}

}  // namespace chunkwise
