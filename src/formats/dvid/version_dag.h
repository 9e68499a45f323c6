// The version DAG of a labelmap database: DVID's versioned "nodes".
//
// Versions are numbered from 1 (the root). A version is open (writable)
// until committed; only a committed version may be branched, so every
// version's content is fixed once a child exists (DVID's rule: a node must
// be locked before it gets children). Each version has at most one parent, so
// ancestry is a path to the root; a read at a version sees, for each key, the
// entry from the nearest version on that path. Not thread-safe; the owner
// (Labelmap) serializes access.
#ifndef CHUNKWISE_FORMATS_DVID_VERSION_DAG_H_
#define CHUNKWISE_FORMATS_DVID_VERSION_DAG_H_

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/result.h"

namespace chunkwise::formats::dvid {

struct VersionNode {
  std::uint32_t id = 0;
  std::uint32_t parent = 0;  // 0 for the root.
  bool committed = false;
  std::string note;  // Free text: the branch or commit message.
};

class VersionDag {
 public:
  // One open root version, id 1.
  VersionDag();

  // Corruption naming `name` for malformed JSON content (unknown parents,
  // cycles, duplicate ids, a child of an open version).
  static Result<VersionDag> FromJson(const nlohmann::json& json, std::string_view name);
  nlohmann::json ToJson() const;

  const std::vector<VersionNode>& nodes() const { return nodes_; }
  // NotFound naming the version if it does not exist.
  Result<VersionNode> Find(std::uint32_t id) const;
  // `id`, its parent, …, the root. NotFound if `id` does not exist.
  Result<std::vector<std::uint32_t>> Ancestry(std::uint32_t id) const;
  // A new open child of `parent`; its id. NotFound for an unknown parent,
  // InvalidArgument if the parent is still open.
  Result<std::uint32_t> Branch(std::uint32_t parent, std::string note);
  // Closes `id` to writes. NotFound if unknown, InvalidArgument if already committed.
  Status Commit(std::uint32_t id, std::string note);
  // OK if `id` exists and is open; InvalidArgument (naming it) if committed.
  Status CheckWritable(std::uint32_t id) const;
  // The newest version (highest id), and the newest open one (0 if none).
  std::uint32_t newest() const { return nodes_.back().id; }
  std::uint32_t newest_open() const;

 private:
  std::vector<VersionNode> nodes_;  // By id: nodes_[i].id == i + 1.
};

}  // namespace chunkwise::formats::dvid

#endif  // CHUNKWISE_FORMATS_DVID_VERSION_DAG_H_
