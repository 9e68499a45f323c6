// Reference sets for DVID export shards (`.arrow` + `.csv`, see
// docs/formats/dvid.md): one key per block, pointing at the block's
// `dvid_compressed_block` bytes inside the .arrow file.
//
// Key scheme (docs/formats/refs.md): "<dir>/<x>_<y>_<z>", where <dir> is the
// shard's directory relative to the source (e.g. "s0" for scale 0; empty for
// a shard at the top) and x, y, z are the block's chunk coordinates (DVID's
// block naming). Each value is one zstd frame which decompresses to the DVID
// label-block bytes; it is not a zarr chunk, so the set carries no zarr
// metadata. Shards are read through their CSV index in either form.
#ifndef CHUNKWISE_FORMATS_REFS_ARROW_SHARD_REFERENCES_H_
#define CHUNKWISE_FORMATS_REFS_ARROW_SHARD_REFERENCES_H_

#include <memory>
#include <string>

#include "chunkwise/core/cancellation.h"
#include "chunkwise/core/communicator.h"
#include "chunkwise/core/progress.h"
#include "chunkwise/core/result.h"
#include "chunkwise/store/store.h"
#include "formats/refs/reference_set.h"

namespace chunkwise::formats::refs {

struct ArrowShardReferenceOptions {
  // A shard stored under key K is referenced as url_base + K.
  std::string url_base;
  // Counts the shards read; may be null. Not owned.
  core::ProgressReporter* progress = nullptr;
  // Checked before each shard (Cancelled); may be null. Not owned.
  const core::Cancellation* cancellation = nullptr;
  // The shards this builder reads: those whose index in key order `part`
  // owns. A block held by shards of two parts is found when the parts merge.
  core::JobPart part;
};

// The reference key of block (x, y, z) of a shard in directory `dir` ("" or "s0/").
std::string ArrowBlockKey(std::string_view dir, std::int32_t x, std::int32_t y, std::int32_t z);

// References for every `.arrow` shard under `prefix` of `store` (or the one
// shard `prefix` names, when it ends in ".arrow"). NotFound if there is none;
// the shard reader's errors (naming the file) for damaged shards;
// InvalidArgument if two shards of one directory hold the same block.
Result<ReferenceSet> BuildArrowShardReferences(std::shared_ptr<store::Store> store,
                                               const std::string& prefix,
                                               const ArrowShardReferenceOptions& options);

}  // namespace chunkwise::formats::refs

#endif  // CHUNKWISE_FORMATS_REFS_ARROW_SHARD_REFERENCES_H_
