// chunkwise vectors: zarr-vectors stores (points, graphs, polylines,
// skeletons, meshes) — write, build the pyramid, read, describe, validate.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "chunkwise/chunkwise.h"
#include "chunkwise/io/geometry_files.h"
#include "cli/command.h"
#include "cli/vocabulary.h"

namespace chunkwise::cli {
namespace {

struct VectorsOptions {
  std::string store;
  std::string type;
  std::string input;
  std::string edges;
  std::string chunk_shape;
  std::string bbox;
  std::string region;
  bool json = false;
  std::string output;
  std::string storage = "explicit";
  std::string layout = "0.9";
  std::string destination;
  std::string convert_layout = "0.9";  // convert: the newest layout unless told.
  std::optional<std::int64_t> object_id;
  int level = 0;
  int levels = 2;
  int validation_level = 3;
  bool overwrite = false;
};

// "a,b,c" → numbers; InvalidArgument naming the option unless exactly `count`.
Result<std::vector<double>> ParseNumbers(const std::string& text, std::size_t count,
                                         const char* option) {
  std::vector<double> values;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string part = text.substr(start, comma - start);
    char* end = nullptr;
    const double value = std::strtod(part.c_str(), &end);
    if (part.empty() || end != part.c_str() + part.size()) break;
    values.push_back(value);
    start = comma + 1;
  }
  if (values.size() != count || start <= text.size()) {
    return Status::InvalidArgument(std::string(option) + " wants " + std::to_string(count) +
                                   " comma-separated numbers, got \"" + text + "\"");
  }
  return values;
}

Status Write(const CommandContext& context, const VectorsOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(VectorGeometryType type, ParseGeometryType(options.type));
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<double> shape,
                             ParseNumbers(options.chunk_shape, 3, "--chunk-shape"));
  CHUNKWISE_ASSIGN_OR_RETURN(VectorsLayout layout, ParseLayoutVersion(options.layout));
  std::optional<std::filesystem::path> edges;
  if (!options.edges.empty()) edges = options.edges;
  CHUNKWISE_ASSIGN_OR_RETURN(VectorGeometry geometry,
                             io::ImportGeometry(type, options.input, edges));
  CHUNKWISE_ASSIGN_OR_RETURN(VectorsWriteSummary summary,
                             WriteVectors(context.library(), options.store, geometry,
                                          {.chunk_shape = {shape[0], shape[1], shape[2]},
                                           .overwrite = options.overwrite,
                                           .layout = layout}));
  Say(context, "wrote " + std::string(GeometryTypeName(type)) + " " + options.input + " into " +
                   options.store + ": " + std::to_string(summary.vertices) + " vertices in " +
                   std::to_string(summary.chunks) + " chunks, " +
                   std::to_string(summary.links.chunk_links) + " chunk-local links, " +
                   std::to_string(summary.links.cross_chunk_links) + " cross-chunk links");
  return Status::Ok();
}

Status Convert(const CommandContext& context, const VectorsOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(VectorsLayout layout, ParseLayoutVersion(options.convert_layout));
  CHUNKWISE_ASSIGN_OR_RETURN(VectorsWriteSummary summary,
                             ConvertVectors(context.library(), options.store, options.destination,
                                            {.layout = layout, .overwrite = options.overwrite}));
  Say(context, "converted " + options.store + " into " + options.destination + " (layout " +
                   options.convert_layout + "): " + std::to_string(summary.vertices) +
                   " vertices in " + std::to_string(summary.chunks) + " chunks, " +
                   std::to_string(summary.links.chunk_links) + " chunk-local links, " +
                   std::to_string(summary.links.cross_chunk_links) + " cross-chunk links");
  return Status::Ok();
}

Status Pyramid(const CommandContext& context, const VectorsOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(VectorsCrossLevelStorage storage,
                             ParseCrossLevelStorage(options.storage));
  CHUNKWISE_ASSIGN_OR_RETURN(
      std::vector<VectorsPyramidLevel> levels,
      BuildVectorsPyramid(context.library(), options.store, {options.levels, storage}));
  for (const VectorsPyramidLevel& level : levels) {
    Say(context, "level " + std::to_string(level.level) + ": " + std::to_string(level.vertices) +
                     " vertices, " + std::to_string(level.links) +
                     " links; parent links from level " + std::to_string(level.level - 1) + ": " +
                     std::to_string(level.parent_links_in_chunk) + " in links/+1, " +
                     std::to_string(level.parent_links_across) + " in cross_chunk_links/+1");
  }
  return Status::Ok();
}

Status Read(const CommandContext& context, const VectorsOptions& options) {
  VectorsReadOptions query;
  query.level = options.level;
  query.object_id = options.object_id;
  if (!options.region.empty() && !options.bbox.empty()) {
    return Status::InvalidArgument("--region replaces --bbox; give one or the other");
  }
  if (!options.region.empty()) {
    Result<VectorsBox> box = ParseRegionBox(options.region);
    if (!box.ok()) return box.status().WithContext("--region");
    query.box = *box;
  }
  if (!options.bbox.empty()) {
    WarnDeprecated("--bbox x0,y0,z0,x1,y1,z1 (inclusive)",
                   "--region x0:x1,y0:y1,z0:z1 (exclusive)");
    CHUNKWISE_ASSIGN_OR_RETURN(std::vector<double> box, ParseNumbers(options.bbox, 6, "--bbox"));
    query.box = VectorsBox{{box[0], box[1], box[2]}, {box[3], box[4], box[5]}};
  }
  CHUNKWISE_ASSIGN_OR_RETURN(VectorsLevelGeometry read,
                             ReadVectors(context.library(), options.store, query));
  CHUNKWISE_RETURN_IF_ERROR(io::ExportGeometry(options.output, read.geometry, options.overwrite));
  Say(context, "read " + std::to_string(read.geometry.positions.size()) + " vertices and " +
                   std::to_string(read.geometry.num_links()) + " links from level " +
                   std::to_string(options.level) + " into " + options.output);
  return Status::Ok();
}

Status InfoJson(const VectorsOptions& options, const VectorsInfo& info) {
  const VectorsRootMetadata& root = info.root;
  nlohmann::ordered_json out;
  out["path"] = options.store;
  out["zv_version"] = root.version;
  out["geometry_type"] = std::string(GeometryTypeName(root.geometry_type));
  out["chunk_shape"] = root.chunk_shape;
  out["bounds_min"] = root.bounds_min;
  out["bounds_max"] = root.bounds_max;
  out["num_levels"] = root.num_levels;
  out["cross_level_storage"] = std::string(CrossLevelStorageName(root.cross_level_storage));
  nlohmann::ordered_json listed = nlohmann::ordered_json::array();
  for (const VectorsLevelInfo& level : info.levels) {
    nlohmann::ordered_json entry;
    entry["level"] = level.metadata.level;
    entry["vertices"] = level.metadata.vertex_count;
    entry["chunks"] = level.chunks;
    nlohmann::ordered_json deltas = nlohmann::ordered_json::array();
    for (const int delta : level.link_deltas) deltas.push_back(FormatDelta(delta));
    entry["link_deltas"] = std::move(deltas);
    nlohmann::ordered_json cross = nlohmann::ordered_json::object();
    for (const auto& [delta, count] : level.cross_deltas) cross[FormatDelta(delta)] = count;
    entry["cross_chunk_links"] = std::move(cross);
    listed.push_back(std::move(entry));
  }
  out["levels"] = std::move(listed);
  std::printf("%s\n", out.dump().c_str());
  return Status::Ok();
}

Status Info(const CommandContext& context, const VectorsOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(const VectorsInfo info,
                             DescribeVectors(context.library(), options.store));
  if (options.json) return InfoJson(options, info);
  const VectorsRootMetadata& root = info.root;
  std::printf(
      "%s: zarr-vectors %s, %s, chunk_shape [%g, %g, %g], bounds [%g, %g, %g]..[%g, %g, %g], %d "
      "level(s), "
      "cross_level_storage %s\n",
      options.store.c_str(), root.version.c_str(),
      std::string(GeometryTypeName(root.geometry_type)).c_str(), root.chunk_shape[0],
      root.chunk_shape[1], root.chunk_shape[2], root.bounds_min[0], root.bounds_min[1],
      root.bounds_min[2], root.bounds_max[0], root.bounds_max[1], root.bounds_max[2],
      root.num_levels, std::string(CrossLevelStorageName(root.cross_level_storage)).c_str());
  for (const VectorsLevelInfo& level : info.levels) {
    std::string deltas;
    for (const int delta : level.link_deltas) deltas += " " + FormatDelta(delta);
    std::string cross;
    for (const auto& [delta, count] : level.cross_deltas)
      cross += " " + FormatDelta(delta) + ":" + std::to_string(count);
    std::printf(
        "  level %d: %llu vertices in %llu chunks; links deltas [%s ]; cross-chunk links [%s ]\n",
        level.metadata.level, static_cast<unsigned long long>(level.metadata.vertex_count),
        static_cast<unsigned long long>(level.chunks), deltas.c_str(), cross.c_str());
  }
  return Status::Ok();
}

Status Validate(const CommandContext& context, const VectorsOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(
      std::vector<VectorsViolation> violations,
      ValidateVectors(context.library(), options.store, options.validation_level));
  for (const VectorsViolation& violation : violations) {
    std::printf("L%d %s %s: %s\n", violation.level,
                std::string(ViolationKindName(violation.kind)).c_str(), violation.path.c_str(),
                violation.message.c_str());
  }
  if (!violations.empty()) {
    return Status::Corruption(options.store + ": " + std::to_string(violations.size()) +
                              " violation(s) at level " + std::to_string(options.validation_level));
  }
  Say(context, options.store + ": valid at level " + std::to_string(options.validation_level));
  return Status::Ok();
}

}  // namespace

void AddVectorsCommands(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<VectorsOptions>();
  CLI::App* group = app.add_subcommand(
      "vectors", "zarr-vectors stores: points, graphs, polylines, skeletons, meshes");
  group->require_subcommand(1);

  CLI::App* write =
      group->add_subcommand("write", "Write a geometry file into a new store (level 0)");
  write
      ->add_option("STORE", options->store,
                   StoreHelp("Store (e.g. cells.zarrvectors)", "s3://bucket/cells.zarrvectors"))
      ->required();
  write->add_option("--type", options->type, "points | graph | polyline | skeleton | mesh")
      ->required();
  write
      ->add_option("--input", options->input,
                   "points/polyline/graph nodes: .csv (x,y,z[,object_id,...]) or .npy (N,3); "
                   "skeleton: .swc; mesh: .ply/.obj")
      ->required();
  write->add_option("--edges", options->edges,
                    "graph edges: .csv (source,target[,attributes]) or .npy (M,2)");
  write->add_option("--chunk-shape", options->chunk_shape, "X,Y,Z chunk extent in world units")
      ->required();
  write->add_flag("--overwrite", options->overwrite, "Replace an existing store");
  write->add_option(
      "--layout", options->layout,
      "zarr-vectors layout: 0.9 (default; no polyline/skeleton link attributes) or 0.8 (any "
      "geometry; what vectors pyramid and validate take)");
  SetAction(write, context, [&context, options] { return Write(context, *options); });

  CLI::App* convert = group->add_subcommand(
      "convert", "Rewrite a single-level store in another layout (0.8 <-> 0.9) as a new store");
  convert->add_option("SRC", options->store, StoreHelp("Source store", "s3://bucket/a.zarrvectors"))
      ->required();
  convert
      ->add_option("DEST", options->destination,
                   StoreHelp("New store", "s3://bucket/b.zarrvectors"))
      ->required();
  convert->add_option("--layout", options->convert_layout,
                      "zarr-vectors layout of DEST: 0.9 (default) or 0.8");
  convert->add_flag("--overwrite", options->overwrite, "Replace an existing store at DEST");
  SetAction(convert, context, [&context, options] { return Convert(context, *options); });

  CLI::App* pyramid =
      group->add_subcommand("pyramid", "Build coarser levels and the cross-level links");
  pyramid->add_option("STORE", options->store, StoreHelp("Store", "s3://bucket/cells.zarrvectors"))
      ->required();
  pyramid->add_option("--levels", options->levels, "Levels afterwards, level 0 included (>= 2)")
      ->required();
  pyramid->add_option("--cross-level-storage", options->storage,
                      "explicit (store the -1 mirror) | implicit");
  SetAction(pyramid, context, [&context, options] { return Pyramid(context, *options); });

  CLI::App* read =
      group->add_subcommand("read", "Read vertices and links (by box, object, level) into a file");
  read->add_option("STORE", options->store, StoreHelp("Store", "s3://bucket/cells.zarrvectors"))
      ->required();
  read->add_option("--region", options->region,
                   "x0:x1,y0:y1,z0:z1 in world units, exclusive; open ends unbounded");
  read->add_option("--bbox", options->bbox, "Deprecated: --region")->group("");
  read->add_option("--object", options->object_id, "Only this object id");
  read->add_option("--level", options->level, "Pyramid level (0 = finest)");
  read->add_option("--output", options->output,
                   ".csv | .npy (plus <stem>.links<ext>) | .ply | .obj | .swc")
      ->required();
  read->add_flag("--overwrite", options->overwrite, "Replace existing outputs");
  SetAction(read, context, [&context, options] { return Read(context, *options); });

  CLI::App* info = group->add_subcommand("info", "Describe a store, level by level");
  info->add_option("STORE", options->store, StoreHelp("Store", "https://host/cells.zarrvectors"))
      ->required();
  AddJsonFlag(info, options->json);
  SetAction(info, context, [&context, options] { return Info(context, *options); });

  CLI::App* validate = group->add_subcommand(
      "validate", "Check a store (L1 structural, L3 consistency, L4 coverage)");
  validate->add_option("STORE", options->store, StoreHelp("Store", "s3://bucket/cells.zarrvectors"))
      ->required();
  validate->add_option("--level", options->validation_level, "Validation level 1..4 (default 3)");
  SetAction(validate, context, [&context, options] { return Validate(context, *options); });
}

}  // namespace chunkwise::cli
