// A DVID labelmap as the library's user holds it (OpenLabelmap,
// facade/dvid_export.h): a handle on the versioned label blocks and
// supervoxel mapping of one RocksDB database, with the plain values its
// calls take and return. The format's own types stay private (formats/dvid).
#ifndef CHUNKWISE_FACADE_LABELMAP_H_
#define CHUNKWISE_FACADE_LABELMAP_H_

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/result.h"
#include "chunkwise/io/mapping_file.h"

namespace chunkwise {

namespace formats::dvid {
class Labelmap;
}  // namespace formats::dvid

// A labelmap's blocks are kBlockEdge voxels on a side.
inline constexpr std::int64_t kBlockEdge = 64;

// A box of voxels at one scale, in (z, y, x) order like the arrays.
struct VoxelBox {
  std::array<std::int64_t, 3> offset{0, 0, 0};
  std::array<std::int64_t, 3> shape{0, 0, 0};
  std::int64_t num_voxels() const { return shape[0] * shape[1] * shape[2]; }
};

// A block's position in block units (voxel / kBlockEdge, rounded down).
struct LabelBlockCoord {
  std::int32_t x = 0;
  std::int32_t y = 0;
  std::int32_t z = 0;
  bool operator==(const LabelBlockCoord&) const = default;
};

// One supervoxel → label entry; label 0 marks a split supervoxel.
using LabelPair = io::LabelPair;

// One version of the labelmap's history.
struct LabelmapVersion {
  std::uint32_t id = 0;
  std::uint32_t parent = 0;  // 0 for the root.
  bool committed = false;
  std::string note;  // Free text: the branch or commit message.
};

// Counts of stored entries of one scale (all versions).
struct LabelmapScaleStats {
  std::uint64_t data_entries = 0;
  std::uint64_t tombstones = 0;
  std::uint64_t value_bytes = 0;                          // Stored (gzip) bytes of the blocks.
  std::map<std::uint32_t, std::uint64_t> visible_blocks;  // Per version id.
};
struct LabelmapStats {
  std::vector<LabelmapScaleStats> scales;  // Index = scale.
  std::uint64_t mapping_entries = 0;
};

// An open labelmap. Copies share the database, which closes with the last
// of them (a call in flight holding a copy keeps it open). Errors are the
// database's: NotFound for an unknown version, InvalidArgument for a
// committed one written or a scale not built, Corruption naming the key
// for a value that does not decode.
class Labelmap {
 public:
  ~Labelmap();
  Labelmap(const Labelmap&);
  Labelmap& operator=(const Labelmap&);
  Labelmap(Labelmap&&) noexcept;
  Labelmap& operator=(Labelmap&&) noexcept;

  // Scales 0 .. num_scales() - 1 have been built.
  int num_scales() const;
  // A snapshot of the versions, oldest first.
  std::vector<LabelmapVersion> versions() const;
  std::uint32_t newest_version() const;
  // 0 when every version is committed.
  std::uint32_t newest_open_version() const;
  // An open child of the committed `parent`; its id.
  Result<std::uint32_t> Branch(std::uint32_t parent, std::string note);
  // Makes `version` read-only.
  Status Commit(std::uint32_t version, std::string note);

  // The DVID block bytes (un-gzipped) visible at `version`, nullopt if none.
  Result<std::optional<Bytes>> GetBlock(std::uint32_t version, int scale,
                                        const LabelBlockCoord& coord) const;
  // The stored value (envelope byte + gzip) of the visible block, nullopt if none.
  Result<std::optional<Bytes>> GetStoredValue(std::uint32_t version, int scale,
                                              const LabelBlockCoord& coord) const;
  // The box of whole blocks that holds every block of `scale` visible at
  // `version`, in voxels at that scale; nullopt when no block is stored.
  Result<std::optional<VoxelBox>> StoredExtent(std::uint32_t version, int scale) const;

  // Maps every supervoxel in `supervoxels` to `label` at `version`.
  Status Merge(std::uint32_t version, std::uint64_t label,
               std::span<const std::uint64_t> supervoxels);
  // Maps every supervoxel in `supervoxels` to 0 at `version`.
  Status Split(std::uint32_t version, std::span<const std::uint64_t> supervoxels);
  // Every mapping entry visible at `version`.
  Result<std::unordered_map<std::uint64_t, std::uint64_t>> MappingAt(std::uint32_t version) const;

  // Entry counts and sizes per scale, and visible blocks per version.
  Result<LabelmapStats> Stats() const;

 private:
  Labelmap();
  friend class LabelmapAccess;  // src/facade: wraps and unwraps the held labelmap.
  std::shared_ptr<formats::dvid::Labelmap> held_;
};

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_LABELMAP_H_
