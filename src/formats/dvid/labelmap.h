// Labelmap: a DVID-style versioned label volume in an embedded RocksDB.
//
// Spec: docs/formats/dvid.md, "Compressed label block" to "Versions".
// Blocks of 64³ uint64 labels are stored per (scale, block coordinate,
// version) under DVID's binary block keys (block_key.h), each value being
// DVID's envelope byte 0x40 and a gzip stream of the compressed label block
// (label_block.h). A key scan is therefore a native ZYX scan. Versions form a
// DAG (version_dag.h): a read at version v sees, per block, the entry of the
// nearest ancestor; a tombstone there means the block does not exist.
// Scale s > 0 holds the 2× downsampling of scale s - 1 (downsample.h). A
// versioned supervoxel → label mapping lives in the same database
// (labelmap_mapping.cc). Metadata (block shape, scales, versions) is JSON
// under the Store key "dvid-labelmap.json".
//
// Thread safety: every method may be called concurrently; block writes to
// distinct blocks proceed in parallel, and version changes are serialized.
// One process at a time may open the database for writing (RocksDB's lock).
// A block write racing a Commit of the same version may still land: commit a
// version once its writers are done.
#ifndef CHUNKWISE_FORMATS_DVID_LABELMAP_H_
#define CHUNKWISE_FORMATS_DVID_LABELMAP_H_

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "chunkwise/core/cancellation.h"
#include "chunkwise/core/progress.h"
#include "formats/dvid/block_key.h"
#include "formats/dvid/label_block.h"
#include "formats/dvid/version_dag.h"
#include "store/rocksdb_store.h"

namespace chunkwise::core {
class ThreadPool;
}

namespace chunkwise::formats::dvid {

inline constexpr std::string_view kLabelmapMetadataKey = "dvid-labelmap.json";
inline constexpr std::int64_t kBlockEdge = 64;
inline constexpr std::int64_t kBlockVoxels = kBlockEdge * kBlockEdge * kBlockEdge;
// The largest decoded DVID block we accept from the database: 64³ uint64
// voxels are at most ~2.3 MB encoded (9-bit indices plus palettes).
inline constexpr std::size_t kMaxStoredBlockBytes = 8u << 20;
inline constexpr int kMaxScales = 32;

// A box of voxels at one scale, in (z, y, x) order like the arrays.
struct VoxelBox {
  std::array<std::int64_t, 3> offset{0, 0, 0};
  std::array<std::int64_t, 3> shape{0, 0, 0};
  std::int64_t num_voxels() const { return shape[0] * shape[1] * shape[2]; }
};

// What a long ReadRegion reports to and stops on; both may be null (not owned).
struct RegionReadHooks {
  core::ProgressReporter* progress = nullptr;  // Counts output bytes as rows of blocks finish.
  const core::Cancellation* cancellation = nullptr;  // Checked before each row of blocks.
};

// A box of blocks [begin, end) per axis.
struct BlockBox {
  BlockCoord begin;
  BlockCoord end;
  bool empty() const { return begin.x >= end.x || begin.y >= end.y || begin.z >= end.z; }
};
// The blocks that intersect `box`.
BlockBox BlocksCovering(const VoxelBox& box);

// One supervoxel → label entry; label 0 marks a split supervoxel.
struct LabelPair {
  std::uint64_t supervoxel = 0;
  std::uint64_t label = 0;
  bool operator==(const LabelPair&) const = default;
};

// Counts of stored entries of one scale (all versions).
struct ScaleStats {
  std::uint64_t data_entries = 0;
  std::uint64_t tombstones = 0;
  std::uint64_t value_bytes = 0;  // Stored (gzip) bytes of the data entries.
  std::map<std::uint32_t, std::uint64_t> visible_blocks;  // Per version id.
};
struct LabelmapStats {
  std::vector<ScaleStats> scales;  // Index = scale.
  std::uint64_t mapping_entries = 0;
};

class Labelmap {
 public:
  // Opens the labelmap in `db`; with `create`, writes fresh metadata (one
  // open root version, scale 0 only) when there is none. NotFound if there
  // is none and !create; Corruption naming the key for bad metadata.
  static Result<std::unique_ptr<Labelmap>> Open(std::shared_ptr<store::RocksDbStore> db,
                                                bool create);

  // A snapshot of the versions.
  VersionDag versions() const;
  Result<std::uint32_t> Branch(std::uint32_t parent, std::string note);
  Status Commit(std::uint32_t version, std::string note);
  // Scales 0 .. num_scales() - 1 have been built.
  int num_scales() const;
  // Records that scales up to `num_scales - 1` exist (never lowers it).
  Status SetNumScales(int num_scales);
  std::uint32_t instance() const { return instance_; }
  const store::RocksDbStore& db() const { return *db_; }

  // Stores `voxels` (64³, C order z,y,x) as the block at `coord` of `scale`
  // in open `version`. InvalidArgument for a committed version or wrong size.
  Status PutBlock(std::uint32_t version, int scale, const BlockCoord& coord,
                  std::span<const std::uint64_t> voxels);
  // Stores an already-encoded DVID block after checking it decodes as a 64³ block.
  Status PutEncodedBlock(std::uint32_t version, int scale, const BlockCoord& coord,
                         ByteView dvid_block);
  // Marks the block deleted from `version` on (a tombstone).
  Status DeleteBlock(std::uint32_t version, int scale, const BlockCoord& coord);

  // The DVID block bytes (un-gzipped) visible at `version`, nullopt if none.
  // Corruption naming the key for a value that does not decode.
  Result<std::optional<Bytes>> GetBlock(std::uint32_t version, int scale,
                                        const BlockCoord& coord) const;
  // The stored value (envelope byte + gzip) of the visible block, nullopt if none.
  Result<std::optional<Bytes>> GetStoredValue(std::uint32_t version, int scale,
                                              const BlockCoord& coord) const;
  // Decodes the visible block into `out` (64³); false (and `out` zeroed) if absent.
  Result<bool> ReadBlockVoxels(std::uint32_t version, int scale, const BlockCoord& coord,
                               std::span<std::uint64_t> out) const;

  // Visits the blocks of `box` visible at `version`, in ZYX (key) order, with
  // the stored value (envelope byte + gzip). Errors from `visit` stop the scan.
  using BlockVisitor = std::function<Status(const BlockCoord& coord, ByteView stored_value)>;
  Status ScanBlocks(std::uint32_t version, int scale, const BlockBox& box,
                    const BlockVisitor& visit) const;
  // Visits every block of `scale` visible at `version`, in ZYX order.
  Status ScanAllBlocks(std::uint32_t version, int scale, const BlockVisitor& visit) const;
  // Visits, range by range, the blocks visible at `version` whose (z, y, x)
  // lie in [from, to) in ZYX (key) order; a `to` of nullopt runs to the
  // scale's last block. One seek per range: cheap for empty ranges.
  struct BlockKeyRange {
    BlockCoord from;
    std::optional<BlockCoord> to;
  };
  Status ScanBlockRanges(std::uint32_t version, int scale, std::span<const BlockKeyRange> ranges,
                         const BlockVisitor& visit) const;

  // The box of whole blocks that holds every block of `scale` visible at
  // `version`, in voxels at that scale; nullopt when no block is stored.
  // Reads every visible block's key (one scan).
  Result<std::optional<VoxelBox>> StoredExtent(std::uint32_t version, int scale) const;

  // The labels of `box` at `version` and `scale`, C order (z, y, x); absent
  // blocks read as 0. With `pool`, block rows decode in parallel.
  Result<std::vector<std::uint64_t>> ReadRegion(std::uint32_t version, int scale,
                                                const VoxelBox& box,
                                                core::ThreadPool* pool = nullptr,
                                                const RegionReadHooks& hooks = {}) const;

  // Supervoxel mapping (labelmap_mapping.cc). Entries written at `version`
  // override those of its ancestors; label 0 marks a split supervoxel.
  Status SetMappings(std::uint32_t version, std::span<const LabelPair> pairs);
  // Maps every supervoxel in `supervoxels` to `label`.
  Status Merge(std::uint32_t version, std::uint64_t label,
               std::span<const std::uint64_t> supervoxels);
  // Maps every supervoxel in `supervoxels` to 0.
  Status Split(std::uint32_t version, std::span<const std::uint64_t> supervoxels);
  // The mapping entry of one supervoxel visible at `version`, nullopt if none.
  Result<std::optional<std::uint64_t>> MappedLabel(std::uint32_t version,
                                                   std::uint64_t supervoxel) const;
  // Every mapping entry visible at `version`.
  Result<std::unordered_map<std::uint64_t, std::uint64_t>> MappingAt(std::uint32_t version) const;

  // Entry counts and sizes per scale, and visible blocks per version.
  Result<LabelmapStats> Stats() const;

  // REQUIRES: nothing; the map from version id to its distance from
  // `version` along the ancestry (0 for itself). NotFound for an unknown version.
  Result<std::unordered_map<std::uint32_t, std::uint32_t>> AncestorDistances(
      std::uint32_t version) const;

 private:
  Labelmap(std::shared_ptr<store::RocksDbStore> db, std::uint32_t instance, VersionDag versions,
           int num_scales);
  // Writes the metadata JSON. REQUIRES: mutex_ held.
  Status SaveMetadata() const;
  Status CheckWritable(std::uint32_t version, int scale) const;
  // Stores `value` (nullopt: a tombstone) for the block, replacing the other kind.
  Status WriteBlockValue(std::uint32_t version, int scale, const BlockCoord& coord,
                         std::optional<Bytes> value);

  std::shared_ptr<store::RocksDbStore> db_;
  const std::uint32_t instance_;
  mutable std::mutex mutex_;
  VersionDag versions_;  // Guarded by mutex_.
  int num_scales_;       // Guarded by mutex_.
};

// Replaces each supervoxel in `labels` by its mapping entry, if it has one
// (even 0: split supervoxels map to 0); others keep their id.
void ApplyMapping(const std::unordered_map<std::uint64_t, std::uint64_t>& mapping,
                  std::span<std::uint64_t> labels);

// The integer floor of a / b for b > 0.
inline std::int64_t FloorDiv(std::int64_t a, std::int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

}  // namespace chunkwise::formats::dvid

#endif  // CHUNKWISE_FORMATS_DVID_LABELMAP_H_
