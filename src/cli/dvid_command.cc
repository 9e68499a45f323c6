// chunkwise dvid: a DVID-style versioned labelmap in an embedded RocksDB.
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "chunkwise/chunkwise.h"
#include "chunkwise/io/file.h"
#include "chunkwise/io/mapping_file.h"
#include "chunkwise/io/npy_file.h"
#include "cli/command.h"
#include "cli/vocabulary.h"

namespace chunkwise::cli {
namespace {

struct DvidOptions {
  std::string db;
  std::string input;
  std::string output;
  std::string offset;
  std::string shape;
  std::string region;
  bool json = false;
  std::string format = "auto";
  std::string block;
  std::string note;
  int scales = 0;
  int scale = 0;
  std::uint32_t version = 0;
  std::uint32_t parent = 0;
  std::size_t threads = 0;
  bool mapped = false;
  bool overwrite = false;
  bool stored = false;
};

// "z,y,x" with optional signs.
Result<std::array<std::int64_t, 3>> ParseZyx(std::string_view text, std::string_view what) {
  std::array<std::int64_t, 3> out{};
  for (int d = 0; d < 3; ++d) {
    const std::size_t comma = text.find(',');
    if ((d < 2) == (comma == std::string_view::npos)) break;
    const std::optional<core::Index> value = core::ParseIndex(text.substr(0, comma));
    if (!value.has_value()) break;
    out[d] = *value;
    if (d == 2) return out;
    text.remove_prefix(comma + 1);
  }
  return Status::InvalidArgument(std::string(what) + " must be three integers z,y,x");
}

Status Ingest(const CommandContext& context, const DvidOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(
      const auto offset, ParseZyx(options.offset.empty() ? "0,0,0" : options.offset, "--offset"));
  CHUNKWISE_ASSIGN_OR_RETURN(const core::NpyArray array, io::ReadNpy(options.input));
  std::array<std::int64_t, 3> shape{};
  CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<std::uint64_t> volume,
                             LabelVolumeFromNpy(array, shape, options.input));
  CHUNKWISE_ASSIGN_OR_RETURN(auto labelmap, chunkwise::OpenLabelmap(options.db, true, false));
  CHUNKWISE_ASSIGN_OR_RETURN(
      const LabelmapIngestSummary summary,
      IngestLabels(
          context.library(), *labelmap, volume, shape,
          {.version = options.version, .offset = offset, .downsample_scales = options.scales},
          {.threads = options.threads}));
  std::string line = "ingested " + options.input + " into " + options.db + " version " +
                     std::to_string(summary.version) + ":";
  for (std::size_t s = 0; s < summary.blocks_written.size(); ++s) {
    line += " s" + std::to_string(s) + " " + std::to_string(summary.blocks_written[s]) +
            " blocks written";
    if (summary.blocks_deleted[s] != 0) {
      line += " (" + std::to_string(summary.blocks_deleted[s]) + " deleted)";
    }
    line += s + 1 < summary.blocks_written.size() ? "," : "";
  }
  Say(context, line + "; " + std::to_string(summary.blocks_skipped) + " empty blocks skipped");
  return Status::Ok();
}

Status Map(const CommandContext& context, const DvidOptions& options) {
  io::MappingFileFormat format = io::MappingFileFormat::kAuto;
  if (options.format == "binary") format = io::MappingFileFormat::kBinary;
  if (options.format == "csv") format = io::MappingFileFormat::kCsv;
  CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<LabelPair> pairs,
                             io::ReadMappingFile(options.input, format));
  CHUNKWISE_ASSIGN_OR_RETURN(auto labelmap, chunkwise::OpenLabelmap(options.db, false, false));
  CHUNKWISE_ASSIGN_OR_RETURN(const std::uint32_t version,
                             SetLabelMappings(*labelmap, pairs, options.version));
  Say(context, "mapped " + std::to_string(pairs.size()) + " supervoxels from " + options.input +
                   " at version " + std::to_string(version));
  return Status::Ok();
}

Status InfoJson(const DvidOptions& options, const Labelmap& labelmap, const LabelmapStats& stats) {
  nlohmann::ordered_json root;
  root["path"] = options.db;
  root["block_shape"] = {kBlockEdge, kBlockEdge, kBlockEdge};
  root["num_scales"] = labelmap.num_scales();
  root["mapping_entries"] = stats.mapping_entries;
  nlohmann::ordered_json versions = nlohmann::ordered_json::array();
  for (const LabelmapVersion& node : labelmap.versions()) {
    nlohmann::ordered_json version;
    version["id"] = node.id;
    version["parent"] =
        node.parent == 0 ? nlohmann::ordered_json() : nlohmann::ordered_json(node.parent);
    version["committed"] = node.committed;
    version["note"] = node.note;
    versions.push_back(std::move(version));
  }
  root["versions"] = std::move(versions);
  nlohmann::ordered_json scales = nlohmann::ordered_json::array();
  for (std::size_t s = 0; s < stats.scales.size(); ++s) {
    const LabelmapScaleStats& scale = stats.scales[s];
    nlohmann::ordered_json entry;
    entry["scale"] = s;
    entry["block_entries"] = scale.data_entries;
    entry["stored_bytes"] = scale.value_bytes;
    entry["tombstones"] = scale.tombstones;
    nlohmann::ordered_json visible = nlohmann::ordered_json::object();
    for (const auto& [version, count] : scale.visible_blocks)
      visible[std::to_string(version)] = count;
    entry["visible_blocks"] = std::move(visible);
    scales.push_back(std::move(entry));
  }
  root["scales"] = std::move(scales);
  std::printf("%s\n", root.dump().c_str());
  return Status::Ok();
}

Status Info(const DvidOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(auto labelmap, chunkwise::OpenLabelmap(options.db, false, true));
  CHUNKWISE_ASSIGN_OR_RETURN(const LabelmapStats stats, labelmap->Stats());
  if (options.json) return InfoJson(options, *labelmap, stats);
  std::printf("%s: DVID labelmap, 64x64x64 blocks, %d scale(s), %llu mapping entries\n",
              options.db.c_str(), labelmap->num_scales(),
              static_cast<unsigned long long>(stats.mapping_entries));
  for (const LabelmapVersion& node : labelmap->versions()) {
    std::printf("version %u%s %s%s%s\n", node.id,
                node.parent == 0 ? "" : (" (parent " + std::to_string(node.parent) + ")").c_str(),
                node.committed ? "committed" : "open", node.note.empty() ? "" : ": ",
                node.note.c_str());
  }
  for (std::size_t s = 0; s < stats.scales.size(); ++s) {
    const LabelmapScaleStats& scale = stats.scales[s];
    std::string visible;
    for (const auto& [version, count] : scale.visible_blocks) {
      visible += " v" + std::to_string(version) + "=" + std::to_string(count);
    }
    std::printf("scale %zu: %llu block entries (%s stored), %llu tombstones; visible blocks:%s\n",
                s, static_cast<unsigned long long>(scale.data_entries),
                FormatBytes(static_cast<double>(scale.value_bytes)).c_str(),
                static_cast<unsigned long long>(scale.tombstones), visible.c_str());
  }
  return Status::Ok();
}

Status Branch(const CommandContext& context, const DvidOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(auto labelmap, chunkwise::OpenLabelmap(options.db, false, false));
  CHUNKWISE_ASSIGN_OR_RETURN(const std::uint32_t id,
                             labelmap->Branch(options.parent, options.note));
  Say(context,
      "version " + std::to_string(id) + " branched from version " + std::to_string(options.parent));
  return Status::Ok();
}

Status Commit(const CommandContext& context, const DvidOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(auto labelmap, chunkwise::OpenLabelmap(options.db, false, false));
  const std::uint32_t version =
      options.version != 0 ? options.version : labelmap->newest_open_version();
  CHUNKWISE_RETURN_IF_ERROR(labelmap->Commit(version, options.note));
  Say(context, "version " + std::to_string(version) + " committed");
  return Status::Ok();
}

// The box to read: --region (z0:z1,y0:y1,x0:x1, open ends from the stored
// extent), or the deprecated --offset/--shape; the stored extent by default.
Result<VoxelBox> ReadBox(const Labelmap& labelmap, std::uint32_t version,
                         const DvidOptions& options) {
  if (!options.offset.empty() || !options.shape.empty()) {
    if (!options.region.empty()) {
      return Status::InvalidArgument(
          "--region replaces --offset and --shape; give one or the other");
    }
    WarnDeprecated("--offset/--shape", "--region z0:z1,y0:y1,x0:x1");
    if (options.shape.empty()) return Status::InvalidArgument("--offset needs --shape");
    CHUNKWISE_ASSIGN_OR_RETURN(
        const auto offset, ParseZyx(options.offset.empty() ? "0,0,0" : options.offset, "--offset"));
    CHUNKWISE_ASSIGN_OR_RETURN(const auto shape, ParseZyx(options.shape, "--shape"));
    return VoxelBox{offset, shape};
  }
  Result<VoxelBox> box = LabelmapRegionBox(labelmap, options.region, version, options.scale);
  if (box.ok()) return box;
  const Status& status = box.status();
  if (status.code() == StatusCode::kNotFound && options.region.empty()) {
    return Status::NotFound(std::string(status.message()) + " (give --region to read zeros)");
  }
  if (status.code() == StatusCode::kInvalidArgument) return status.WithContext("--region");
  return status;
}

Status Read(const CommandContext& context, const DvidOptions& options) {
  CHUNKWISE_RETURN_IF_ERROR(io::CheckOutputPath(options.output, options.overwrite));
  CHUNKWISE_ASSIGN_OR_RETURN(auto labelmap, chunkwise::OpenLabelmap(options.db, false, true));
  const std::uint32_t version = options.version != 0 ? options.version : labelmap->newest_version();
  CHUNKWISE_ASSIGN_OR_RETURN(const VoxelBox box, ReadBox(*labelmap, version, options));
  const std::array<std::int64_t, 3>& shape = box.shape;
  CHUNKWISE_ASSIGN_OR_RETURN(
      const std::vector<std::uint64_t> labels,
      chunkwise::ReadLabelmapRegion(
          context.library(), *labelmap, box,
          {.version = version, .scale = options.scale, .mapped = options.mapped},
          {.threads = options.threads}));
  core::NpyArray array;
  CHUNKWISE_ASSIGN_OR_RETURN(array.dtype, core::NpyDtype::FromTypestr("<u8"));
  array.shape = {shape[0], shape[1], shape[2]};
  array.data.resize(labels.size() * 8);
  for (std::size_t i = 0; i < labels.size(); ++i) {
    StoreLittleEndian(labels[i], array.data.data() + 8 * i);
  }
  CHUNKWISE_RETURN_IF_ERROR(io::WriteNpy(options.output, array));
  Say(context, "wrote " + options.output + ": version " + std::to_string(version) + " scale " +
                   std::to_string(options.scale) + " region [" +
                   core::Region::FromOriginAndShape(
                       core::Coord(box.offset.begin(), box.offset.end()), array.shape)
                       .ToString() +
                   "]" + (options.mapped ? ", mapped labels" : ", supervoxels"));
  return Status::Ok();
}

Result<LabelBlockCoord> ParseBlock(const std::string& text) {
  CHUNKWISE_ASSIGN_OR_RETURN(const auto zyx, ParseZyx(text, "--block"));
  for (const std::int64_t v : zyx) {
    if (v < INT32_MIN || v > INT32_MAX) {
      return Status::InvalidArgument("--block coordinates must fit in 32 bits");
    }
  }
  return LabelBlockCoord{static_cast<std::int32_t>(zyx[2]), static_cast<std::int32_t>(zyx[1]),
                         static_cast<std::int32_t>(zyx[0])};
}

Status GetBlock(const CommandContext& context, const DvidOptions& options) {
  CHUNKWISE_RETURN_IF_ERROR(io::CheckOutputPath(options.output, options.overwrite));
  CHUNKWISE_ASSIGN_OR_RETURN(const LabelBlockCoord coord, ParseBlock(options.block));
  CHUNKWISE_ASSIGN_OR_RETURN(auto labelmap, chunkwise::OpenLabelmap(options.db, false, true));
  const std::uint32_t version = options.version != 0 ? options.version : labelmap->newest_version();
  std::optional<Bytes> bytes;
  if (options.stored) {
    CHUNKWISE_ASSIGN_OR_RETURN(bytes, labelmap->GetStoredValue(version, options.scale, coord));
  } else {
    CHUNKWISE_ASSIGN_OR_RETURN(bytes, labelmap->GetBlock(version, options.scale, coord));
  }
  if (!bytes.has_value()) {
    return Status::NotFound(options.db + ": no block at z,y,x " + options.block + " scale " +
                            std::to_string(options.scale) + " version " + std::to_string(version));
  }
  CHUNKWISE_RETURN_IF_ERROR(io::WriteFile(options.output, *bytes));
  Say(context, "wrote " + options.output + ": " + std::to_string(bytes->size()) + " bytes (" +
                   (options.stored ? "stored value: envelope byte + gzip" : "DVID label block") +
                   ")");
  return Status::Ok();
}

Status PutBlock(const CommandContext& context, const DvidOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(const LabelBlockCoord coord, ParseBlock(options.block));
  CHUNKWISE_ASSIGN_OR_RETURN(Bytes bytes, ReadUrl(context.library(), options.input));
  CHUNKWISE_ASSIGN_OR_RETURN(auto labelmap, chunkwise::OpenLabelmap(options.db, true, false));
  CHUNKWISE_ASSIGN_OR_RETURN(const std::uint32_t version,
                             PutLabelBlock(*labelmap, options.scale, coord, std::move(bytes),
                                           options.input, options.version));
  Say(context, "stored " + options.input + " as block z,y,x " + options.block + " scale " +
                   std::to_string(options.scale) + " version " + std::to_string(version));
  return Status::Ok();
}

}  // namespace

void AddDvidCommands(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<DvidOptions>();
  CLI::App* group =
      app.add_subcommand("dvid", "DVID-style versioned labelmap in an embedded RocksDB");
  group->require_subcommand(1);

  CLI::App* ingest = group->add_subcommand("ingest", "Store a uint label volume (.npy) as blocks");
  ingest->add_option("DB", options->db, "Database directory (created if missing)")->required();
  ingest->add_option("--input", options->input, "3-d integer .npy volume (z, y, x)")->required();
  ingest->add_option("--offset", options->offset, "Voxel z,y,x of the volume's first voxel");
  ingest->add_option("--scales", options->scales, "Build scales 1..N by 2x mode downsampling");
  ingest->add_option("--version", options->version, "Open version to write (default: newest open)");
  AddThreadsOption(ingest, options->threads, "Worker threads (default: all cores)");
  SetAction(ingest, context, [&context, options] { return Ingest(context, *options); });

  CLI::App* map = group->add_subcommand("map", "Load supervoxel -> label pairs into a version");
  map->add_option("DB", options->db, "Database directory")->required();
  map->add_option("--pairs", options->input, "Binary u64 LE pairs (DVID) or CSV sv,label")
      ->required();
  map->add_option("--format", options->format, "auto (by extension), binary or csv")
      ->check(CLI::IsMember({"auto", "binary", "csv"}));
  map->add_option("--version", options->version, "Open version to write (default: newest open)");
  SetAction(map, context, [&context, options] { return Map(context, *options); });

  CLI::App* info = group->add_subcommand("info", "Versions, scales, block counts and bytes");
  info->add_option("DB", options->db, "Database directory")->required();
  AddJsonFlag(info, options->json);
  SetAction(info, context, [options] { return Info(*options); });

  CLI::App* branch = group->add_subcommand("branch", "Make an open child of a committed version");
  branch->add_option("DB", options->db, "Database directory")->required();
  branch->add_option("--parent", options->parent, "Committed version to branch from")->required();
  branch->add_option("--note", options->note, "Description of the new version");
  SetAction(branch, context, [&context, options] { return Branch(context, *options); });

  CLI::App* commit = group->add_subcommand("commit", "Make a version read-only");
  commit->add_option("DB", options->db, "Database directory")->required();
  commit->add_option("--version", options->version, "Version (default: newest open)");
  commit->add_option("--note", options->note, "Commit message");
  SetAction(commit, context, [&context, options] { return Commit(context, *options); });

  CLI::App* read = group->add_subcommand("read", "Write a region of labels to a uint64 .npy");
  read->add_option("DB", options->db, "Database directory")->required();
  AddOutputOption(read, "--output", options->output, "Output .npy", context)->required();
  read->add_option("--region", options->region,
                   "z0:z1,y0:y1,x0:x1 at --scale, exclusive (default: the stored extent)");
  read->add_option("--offset", options->offset, "Deprecated: --region")->group("");
  read->add_option("--shape", options->shape, "Deprecated: --region")->group("");
  read->add_option("--scale", options->scale, "Scale (0 = full resolution)");
  read->add_option("--version", options->version, "Version (default: newest)");
  read->add_flag("--mapped", options->mapped, "Apply the version's supervoxel mapping");
  AddThreadsOption(read, options->threads, "Worker threads (default: all cores)");
  read->add_flag("--overwrite", options->overwrite, "Replace an existing output");
  SetAction(read, context, [&context, options] { return Read(context, *options); });

  CLI::App* get = group->add_subcommand("get-block", "Write one block's DVID bytes to a file");
  get->add_option("DB", options->db, "Database directory")->required();
  get->add_option("--block", options->block, "Block coordinate z,y,x")->required();
  AddOutputOption(get, "--output", options->output, "Output file", context)->required();
  get->add_option("--scale", options->scale, "Scale");
  get->add_option("--version", options->version, "Version (default: newest)");
  get->add_flag("--stored", options->stored, "The stored value (0x40 + gzip) as in the database");
  get->add_flag("--overwrite", options->overwrite, "Replace an existing output");
  SetAction(get, context, [&context, options] { return GetBlock(context, *options); });

  CLI::App* put = group->add_subcommand("put-block", "Store a DVID label block file (or its gzip)");
  put->add_option("DB", options->db, "Database directory (created if missing)")->required();
  put->add_option("--block", options->block, "Block coordinate z,y,x")->required();
  put->add_option("--input", options->input, "DVID compressed label block, raw or gzip")
      ->required();
  put->add_option("--scale", options->scale, "Scale");
  put->add_option("--version", options->version, "Open version (default: newest open)");
  SetAction(put, context, [&context, options] { return PutBlock(context, *options); });

  AddDvidExportCommands(*group, context);
  AddDvidPrecomputedCommand(*group, context);
}

}  // namespace chunkwise::cli
