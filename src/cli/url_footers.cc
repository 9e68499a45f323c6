#include "cli/url_footers.h"

#include <set>
#include <string>

namespace chunkwise::cli {
namespace {

constexpr const char* kStoreUrls =
    "URLs: s3://bucket/vol.zarr, gs://bucket/vol.zarr, https://host/vol.zarr (read-only), "
    "file:///data/vol.zarr, memory://name (this process only); see docs/stores.md";
constexpr const char* kDatabaseUrls =
    "DB: a local RocksDB directory, /data/labels.db or file:///data/labels.db; s3:// and "
    "https:// cannot hold one: export it with dvid export-shards to s3://bucket/export";
constexpr const char* kLocalFiles =
    "Files here are local paths; stores take URLs, e.g. chunkwise zarr read "
    "s3://bucket/vol.zarr --output vol.npy";

// Commands that name no path at all.
const std::set<std::string>& Pathless() {
  static const std::set<std::string> names = {"codec list", "grid", "morton", "gpu-info"};
  return names;
}

// Commands whose paths are files read or written whole on this machine.
const std::set<std::string>& LocalOnly() {
  static const std::set<std::string> names = {"npy info",     "npy convert",   "codec encode",
                                              "codec decode", "codec measure", "crc32c",
                                              "generate"};
  return names;
}

// dvid commands over a labelmap database and nothing else.
const std::set<std::string>& DatabaseOnly() {
  static const std::set<std::string> names = {"dvid ingest",    "dvid map",      "dvid info",
                                              "dvid branch",    "dvid commit",   "dvid read",
                                              "dvid get-block", "dvid put-block"};
  return names;
}

const char* FooterFor(const std::string& name) {
  if (Pathless().count(name) > 0) return nullptr;
  if (LocalOnly().count(name) > 0) return kLocalFiles;
  if (DatabaseOnly().count(name) > 0) return kDatabaseUrls;
  // export-shards and to-precomputed read a database and write to a store.
  if (name.starts_with("dvid export-shards") || name == "dvid to-precomputed") {
    return "DB is local (file:///data/labels.db); the output may be a URL, e.g. "
           "s3://bucket/export; https://host/... is read-only";
  }
  return kStoreUrls;
}

void AddUnder(CLI::App& command, const std::string& name) {
  const std::vector<CLI::App*> children = command.get_subcommands({});
  if (children.empty()) {
    if (const char* footer = FooterFor(name)) command.footer(footer);
    return;
  }
  for (CLI::App* child : children) {
    AddUnder(*child, name.empty() ? child->get_name() : name + " " + child->get_name());
  }
}

}  // namespace

void AddUrlFooters(CLI::App& app) {
  for (CLI::App* command : app.get_subcommands({})) AddUnder(*command, command->get_name());
}

}  // namespace chunkwise::cli
