#include "formats/neuroglancer/sources.h"

#include <algorithm>
#include <set>

#include "core/json.h"
#include "formats/precomputed/info.h"
#include "formats/zarr/array_metadata.h"

namespace chunkwise::formats::neuroglancer {
namespace {

using nlohmann::json;

std::string NameOf(const std::string& prefix) {
  if (prefix.empty()) return "data";
  const std::string trimmed = prefix.substr(0, prefix.size() - 1);
  return trimmed.substr(trimmed.rfind('/') + 1);
}

int Depth(std::string_view relative) {
  return static_cast<int>(std::count(relative.begin(), relative.end(), '/'));
}

std::string LayerTypeOf(const core::DataType& type) {
  const auto id = type.id();
  return id == core::DataTypeId::kUInt64 || id == core::DataTypeId::kUInt32 ? "segmentation"
                                                                            : "image";
}

// The first "multiscales" entry of a group's attributes: OME-Zarr v0.5 keeps
// it under "ome", v0.4 at the top. Null when there is none.
json MultiscaleOf(const json& attributes) {
  if (!attributes.is_object()) return nullptr;
  const json& ome = attributes.contains("ome") ? attributes["ome"] : attributes;
  if (!ome.is_object() || !ome.contains("multiscales")) return nullptr;
  const json& all = ome["multiscales"];
  if (!all.is_array() || all.empty() || !all[0].is_object()) return nullptr;
  const json& datasets = all[0].value("datasets", json());
  if (!datasets.is_array() || datasets.empty() || !datasets[0].is_object() ||
      !datasets[0].value("path", json()).is_string()) {
    return nullptr;
  }
  return all[0];
}

// An OME-Zarr group at `dir` whose attributes are `attributes`, if it is one:
// its layer type is its first scale's (labels, "image-label", are segmentation).
std::optional<Source> ClassifyMultiscale(const store::Store& store, const std::string& dir,
                                         const json& attributes, SourceKind kind) {
  json multiscale = MultiscaleOf(attributes);
  if (multiscale.is_null()) return std::nullopt;
  const std::string first = dir + multiscale["datasets"][0]["path"].get<std::string>() + "/";
  const bool v3 = kind == SourceKind::kZarr3;
  const std::string key = first + std::string(v3 ? zarr::kZarrJsonKey : zarr::kZarrayKey);
  Result<std::optional<Bytes>> text = store.Get(key);
  if (!text.ok() || !text->has_value()) return std::nullopt;
  Result<zarr::ArrayMetadata> metadata =
      v3 ? zarr::ParseV3ArrayMetadata(AsChars(**text), key)
         : zarr::ParseV2ArrayMetadata(AsChars(**text), std::nullopt, key);
  if (!metadata.ok()) return std::nullopt;
  const json& ome = attributes.contains("ome") ? attributes["ome"] : attributes;
  Source source{dir, kind, LayerTypeOf(metadata->data_type), NameOf(dir), std::move(multiscale)};
  if (ome.contains("image-label")) source.layer_type = "segmentation";
  return source;
}

// The source whose metadata is `key` (relative name `file`), if it is one.
std::optional<Source> Classify(const store::Store& store, const std::string& dir,
                               std::string_view file, const std::set<std::string>& arrow_dirs) {
  const std::string key = dir + std::string(file);
  Result<std::optional<Bytes>> text = store.Get(key);
  if (!text.ok() || !text->has_value()) return std::nullopt;
  const std::string_view body = AsChars(**text);
  Source source{dir, SourceKind::kPrecomputed, "", NameOf(dir)};
  if (file == "info") {
    if (arrow_dirs.contains(dir)) {
      source.kind = SourceKind::kArrowShards;
      return source;
    }
    Result<precomputed::VolumeInfo> info = precomputed::ParseVolumeInfo(body, key);
    if (!info.ok()) return std::nullopt;
    source.layer_type = info->type == precomputed::VolumeType::kImage ? "image" : "segmentation";
    return source;
  }
  if (file == zarr::kZattrsKey) {  // A zarr v2 group's attributes.
    Result<json> attributes = core::ParseJson(body, key);
    if (!attributes.ok()) return std::nullopt;
    return ClassifyMultiscale(store, dir, *attributes, SourceKind::kZarr2);
  }
  if (file == zarr::kZarrJsonKey) {
    Result<zarr::ArrayMetadata> metadata = zarr::ParseV3ArrayMetadata(body, key);
    if (!metadata.ok()) {  // A group (perhaps OME-Zarr), or not for us.
      Result<json> group = core::ParseJson(body, key);
      if (!group.ok() || !group->is_object() || group->value("node_type", "") != "group") {
        return std::nullopt;
      }
      return ClassifyMultiscale(store, dir, group->value("attributes", json::object()),
                                SourceKind::kZarr3);
    }
    source.kind = SourceKind::kZarr3;
    source.layer_type = LayerTypeOf(metadata->data_type);
    return source;
  }
  Result<zarr::ArrayMetadata> metadata = zarr::ParseV2ArrayMetadata(body, std::nullopt, key);
  if (!metadata.ok()) return std::nullopt;
  source.kind = SourceKind::kZarr2;
  source.layer_type = LayerTypeOf(metadata->data_type);
  return source;
}

// Characters a URL fragment may hold as they are (RFC 3986 unreserved and a
// few sub-delimiters neuroglancer's own links leave alone).
bool IsFragmentSafe(unsigned char c) {
  return std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || c == ',' || c == ':' ||
         c == '/' || c == '@' || c == '!';
}

}  // namespace

Result<std::vector<Source>> FindSources(const store::Store& store, const std::string& prefix,
                                        int depth) {
  CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<std::string> keys, store.List(prefix));
  // Folders holding "s<N>/<stem>.arrow": export-shards output.
  std::set<std::string> arrow_dirs;
  std::vector<std::pair<std::string, std::string>> candidates;  // (dir, metadata file)
  for (const std::string& key : keys) {
    const std::string_view relative = std::string_view(key).substr(prefix.size());
    const std::size_t slash = key.rfind('/');
    const std::string dir = slash == std::string::npos ? "" : key.substr(0, slash + 1);
    const std::string_view file = std::string_view(key).substr(dir.size());
    if (file.ends_with(".arrow") && dir.size() > prefix.size()) {
      const std::string_view parent = std::string_view(dir).substr(0, dir.size() - 1);
      const std::size_t parent_slash = parent.rfind('/');
      const std::string_view scale_dir =
          parent.substr(parent_slash == std::string_view::npos ? 0 : parent_slash + 1);
      if (scale_dir.size() >= 2 && scale_dir[0] == 's') {
        arrow_dirs.insert(std::string(
            parent.substr(0, parent_slash == std::string_view::npos ? 0 : parent_slash + 1)));
      }
      continue;
    }
    if (Depth(relative) > depth) continue;
    if (file == "info" || file == zarr::kZarrJsonKey || file == zarr::kZarrayKey ||
        file == zarr::kZattrsKey) {
      candidates.emplace_back(dir, std::string(file));
    }
  }
  std::vector<Source> sources;
  std::set<std::string> taken;
  for (const auto& [dir, file] : candidates) {
    if (taken.contains(dir)) continue;
    std::optional<Source> source = Classify(store, dir, file, arrow_dirs);
    if (!source.has_value()) continue;
    taken.insert(dir);
    sources.push_back(std::move(*source));
  }
  // A volume's own folders (a zarr array inside a precomputed scale) are not sources.
  std::sort(sources.begin(), sources.end(),
            [](const Source& a, const Source& b) { return a.prefix < b.prefix; });
  std::vector<Source> outer;
  for (Source& source : sources) {
    if (!outer.empty() && source.prefix.starts_with(outer.back().prefix) &&
        outer.back().kind != SourceKind::kArrowShards) {
      continue;
    }
    outer.push_back(std::move(source));
  }
  return outer;
}

std::string SourceUrl(const Source& source, std::string_view base_url) {
  std::string url = std::string(base_url) + source.prefix;
  switch (source.kind) {
    case SourceKind::kZarr3:
      return "zarr3://" + url;
    case SourceKind::kZarr2:
      return "zarr2://" + url;
    default:
      // neuroglancer appends "/info" to a precomputed URL as it is.
      if (url.ends_with('/')) url.pop_back();
      return "precomputed://" + url;
  }
}

json ViewerState(const std::vector<Source>& sources, std::string_view base_url) {
  json layers = json::array();
  for (const Source& source : sources) {
    if (!source.openable()) continue;
    layers.push_back({{"type", source.layer_type},
                      {"source", SourceUrl(source, base_url)},
                      {"name", source.name}});
  }
  json state = {{"layers", layers}, {"layout", "4panel"}};
  if (!layers.empty()) state["selectedLayer"] = {{"layer", layers[0]["name"]}, {"visible", true}};
  return state;
}

std::string ViewerLink(std::string_view client_url, const json& state) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string link(client_url);
  link += "#!";
  for (const unsigned char c : state.dump()) {
    if (IsFragmentSafe(c)) {
      link += static_cast<char>(c);
    } else {
      link += '%';
      link += kHex[c >> 4];
      link += kHex[c & 15];
    }
  }
  return link;
}

}  // namespace chunkwise::formats::neuroglancer
