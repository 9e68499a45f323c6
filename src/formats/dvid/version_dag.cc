#include "formats/dvid/version_dag.h"

#include <nlohmann/json.hpp>

namespace chunkwise::formats::dvid {
namespace {

std::string VersionName(std::uint32_t id) { return "version " + std::to_string(id); }

// Checks one parsed node against those before it: ids run 1, 2, …; a parent
// is an earlier, committed version.
Status CheckNode(const VersionNode& node, const std::vector<VersionNode>& earlier,
                 std::string_view name) {
  if (node.id != earlier.size() + 1) {
    return Status::Corruption(std::string(name) + ": versions must be numbered 1, 2, …; found " +
                              std::to_string(node.id) + " at position " +
                              std::to_string(earlier.size() + 1));
  }
  if ((node.id == 1) != (node.parent == 0)) {
    return Status::Corruption(std::string(name) + ": " + VersionName(node.id) +
                              " must be the only version without a parent");
  }
  if (node.parent >= node.id) {
    return Status::Corruption(std::string(name) + ": " + VersionName(node.id) +
                              " has a later parent " + std::to_string(node.parent));
  }
  if (node.parent != 0 && !earlier[node.parent - 1].committed) {
    return Status::Corruption(std::string(name) + ": " + VersionName(node.id) +
                              " branches from open " + VersionName(node.parent));
  }
  return Status::Ok();
}

}  // namespace

VersionDag::VersionDag() : nodes_{VersionNode{1, 0, false, "root"}} {}

Result<VersionDag> VersionDag::FromJson(const nlohmann::json& json, std::string_view name) {
  VersionDag dag;
  dag.nodes_.clear();
  try {
    for (const nlohmann::json& item : json.at("versions")) {
      VersionNode node{item.at("id").get<std::uint32_t>(), item.at("parent").get<std::uint32_t>(),
                       item.at("committed").get<bool>(), item.value("note", std::string())};
      CHUNKWISE_RETURN_IF_ERROR(CheckNode(node, dag.nodes_, name));
      dag.nodes_.push_back(std::move(node));
    }
  } catch (const nlohmann::json::exception& error) {
    return Status::Corruption(std::string(name) + ": bad version list: " + error.what());
  }
  if (dag.nodes_.empty()) return Status::Corruption(std::string(name) + ": no versions");
  return dag;
}

nlohmann::json VersionDag::ToJson() const {
  nlohmann::json versions = nlohmann::json::array();
  for (const VersionNode& node : nodes_) {
    versions.push_back({{"id", node.id},
                        {"parent", node.parent},
                        {"committed", node.committed},
                        {"note", node.note}});
  }
  return {{"versions", versions}};
}

Result<VersionNode> VersionDag::Find(std::uint32_t id) const {
  if (id == 0 || id > nodes_.size()) {
    return Status::NotFound(VersionName(id) + " does not exist (versions 1-" +
                            std::to_string(nodes_.size()) + ")");
  }
  return nodes_[id - 1];
}

Result<std::vector<std::uint32_t>> VersionDag::Ancestry(std::uint32_t id) const {
  CHUNKWISE_RETURN_IF_ERROR(Find(id));
  std::vector<std::uint32_t> path;
  for (std::uint32_t at = id; at != 0; at = nodes_[at - 1].parent) path.push_back(at);
  return path;
}

Result<std::uint32_t> VersionDag::Branch(std::uint32_t parent, std::string note) {
  CHUNKWISE_ASSIGN_OR_RETURN(const VersionNode node, Find(parent));
  if (!node.committed) {
    return Status::InvalidArgument(VersionName(parent) +
                                   " is open; commit it before branching from it");
  }
  const auto id = static_cast<std::uint32_t>(nodes_.size() + 1);
  nodes_.push_back({id, parent, false, std::move(note)});
  return id;
}

Status VersionDag::Commit(std::uint32_t id, std::string note) {
  CHUNKWISE_RETURN_IF_ERROR(CheckWritable(id));
  nodes_[id - 1].committed = true;
  if (!note.empty()) nodes_[id - 1].note = std::move(note);
  return Status::Ok();
}

Status VersionDag::CheckWritable(std::uint32_t id) const {
  CHUNKWISE_ASSIGN_OR_RETURN(const VersionNode node, Find(id));
  if (node.committed) {
    return Status::InvalidArgument(
        VersionName(id) + " is committed and read-only; branch a new version to change it");
  }
  return Status::Ok();
}

std::uint32_t VersionDag::newest_open() const {
  for (auto it = nodes_.rbegin(); it != nodes_.rend(); ++it) {
    if (!it->committed) return it->id;
  }
  return 0;
}

}  // namespace chunkwise::formats::dvid
