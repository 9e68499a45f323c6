// Volume: a neuroglancer precomputed multiscale volume in a store, read by
// region and written by chunk or by shard.
//
// Format: docs/formats/precomputed.md. A Volume is a view over a Store and a
// key prefix ("" or ending in "/"): the info at "<prefix>info", each scale's
// chunks under "<prefix><scale key>/". Voxels are exchanged as C-order
// [channel][z][y][x] arrays in host byte order (x fastest: the layout of a
// raw chunk), and regions as core::Region boxes of rank 3, (z, y, x), in the
// scale's voxel grid counted from 0 (that is, relative to voxel_offset).
//
// Writes: an unsharded chunk is one Set; a shard is built whole and written
// once with SetParts, so readers never see part of one. Reads of a sharded
// scale fetch the shard index, the one minishard index and the chunk by byte
// range, and keep the indexes they read (the values must not change under a
// reader). An absent chunk or shard reads as zeros.
//
// Thread safety: reads may run concurrently; writes of different chunks or
// shards may too.
#ifndef CHUNKWISE_FORMATS_PRECOMPUTED_VOLUME_H_
#define CHUNKWISE_FORMATS_PRECOMPUTED_VOLUME_H_

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "chunkwise/core/region.h"
#include "chunkwise/core/thread_pool.h"
#include "chunkwise/store/store.h"
#include "formats/precomputed/info.h"

namespace chunkwise::formats::precomputed {

struct VolumeOptions {
  // Runs region reads chunk by chunk in parallel; null: a pool of one thread per core.
  std::shared_ptr<core::ThreadPool> pool = nullptr;
  // The gzip level of chunk data (data_encoding gzip).
  int gzip_level = 6;
};

// A chunk of a sharded scale in the form WriteShard takes: its grid cell and
// its bytes as EncodeChunk returned them.
struct StoredChunk {
  GridCoord3 cell{};
  ByteView data;
};

class Volume {
 public:
  // Reads "<prefix>info": NotFound if absent; ParseVolumeInfo's errors with the key named.
  static Result<std::unique_ptr<Volume>> Open(std::shared_ptr<store::Store> store,
                                              std::string prefix, VolumeOptions options = {});
  // Writes the info of a new volume. InvalidArgument if "<prefix>info"
  // exists and !overwrite; with overwrite, every key under each scale's key
  // is erased first (another volume's chunks must not linger).
  static Result<std::unique_ptr<Volume>> Create(const std::shared_ptr<store::Store>& store,
                                                const std::string& prefix, VolumeInfo info,
                                                bool overwrite, VolumeOptions options = {});

  // A volume to be written whose info is published last, by PublishInfo,
  // so that readers never open a volume still being written. Checks the
  // info but not what the store holds.
  static Result<std::unique_ptr<Volume>> Stage(std::shared_ptr<store::Store> store,
                                               std::string prefix, VolumeInfo info,
                                               VolumeOptions options = {});
  // Writes "<prefix>info".
  Status PublishInfo();
  // The info text Create and PublishInfo write.
  std::string InfoText() const;

  const VolumeInfo& info() const { return info_; }
  const ScaleInfo& scale(int s) const { return info_.scales[s]; }
  int num_scales() const { return static_cast<int>(info_.scales.size()); }
  store::Store& store() const { return *store_; }
  const std::string& prefix() const { return prefix_; }
  // Where `key` (relative to the prefix) lives, for messages.
  std::string Describe(std::string_view key) const;
  // Bytes of one decoded chunk of extent `extent`.
  std::uint64_t ChunkBytes(const GridCoord3& extent) const;

  // The voxels of grid cell `cell` at `scale` (extent ChunkExtent(cell)), or
  // nullopt if it is not stored. InvalidArgument for a scale or cell outside
  // the volume; Corruption naming the key (and shard) for bad stored data.
  Result<std::optional<Bytes>> ReadChunk(int scale, const GridCoord3& cell) const;
  // The voxels of `region` (z, y, x) at `scale`, zero where nothing is
  // stored. InvalidArgument if the region is not rank 3 or leaves [0, size).
  Result<Bytes> Read(int scale, const core::Region& region) const;

  // The bytes to store for cell `cell`: `voxels` (the chunk's extent) in the
  // scale's encoding, then gzipped if the scale is sharded with data_encoding
  // gzip. InvalidArgument if voxels has the wrong size.
  Result<Bytes> EncodeChunk(int scale, const GridCoord3& cell, ByteView voxels) const;
  // Stores cell `cell` of an unsharded scale. InvalidArgument for a sharded scale.
  Status WriteChunk(int scale, const GridCoord3& cell, ByteView voxels);
  // Writes shard `shard` of a sharded scale from its chunks, replacing it
  // whole, and returns its size in bytes (0: no chunks, the shard is
  // erased). InvalidArgument if a chunk lies outside the grid, belongs to
  // another shard or is given twice.
  Result<std::uint64_t> WriteShard(int scale, std::uint64_t shard,
                                   std::span<const StoredChunk> chunks);
  // The chunk ids shard `shard` lists, sorted, or nullopt if it is absent:
  // reads every minishard index, so it also checks the shard's indexes.
  Result<std::optional<std::vector<std::uint64_t>>> ListShard(int scale, std::uint64_t shard) const;

 private:
  // What a reader keeps of one shard: its size and indexes as read.
  struct ShardState {
    std::uint64_t size = 0;
    std::vector<MinishardSpan> spans;
    std::map<std::uint64_t, std::vector<MinishardEntry>> minishards;
  };

  Volume(std::shared_ptr<store::Store> store, std::string prefix, VolumeInfo info,
         VolumeOptions options);
  Status CheckCell(int scale, const GridCoord3& cell) const;
  // The stored bytes of a cell (data encoding still applied), or nullopt.
  Result<std::optional<Bytes>> ReadStoredChunk(int scale, const GridCoord3& cell) const;
  // The shard's state, or null if the shard is absent. Reads and caches.
  Result<std::shared_ptr<ShardState>> LoadShard(int scale, std::uint64_t shard) const;
  Result<const std::vector<MinishardEntry>*> LoadMinishard(int scale, std::uint64_t shard,
                                                           ShardState& state,
                                                           std::uint64_t minishard) const;
  Result<Bytes> DecodeChunk(int scale, const GridCoord3& cell, ByteView stored,
                            const std::string& name) const;

  std::shared_ptr<store::Store> store_;
  std::string prefix_;
  VolumeInfo info_;
  VolumeOptions options_;
  mutable std::mutex mutex_;  // Guards shards_ and every ShardState's minishards.
  mutable std::map<std::pair<int, std::uint64_t>, std::shared_ptr<ShardState>> shards_;
};

}  // namespace chunkwise::formats::precomputed

#endif  // CHUNKWISE_FORMATS_PRECOMPUTED_VOLUME_H_
