// A zarr array copied into a new layout (chunks, shards, codecs, zarr
// version) as one job: one process, or every rank of an MPI launch
// (docs/scale.md).
//
// Rank 0 creates the destination unpublished (or, resuming, finds it);
// every rank lists the source, plans the destination objects it owns
// (core::OwnerRank) and copies them; once all have succeeded rank 0 writes
// the metadata. A job stopped part-way leaves no array a reader would take
// for the whole, and `resume` finishes it, keeping the objects it stored
// (docs/reliability.md). Every rank returns the job's outcome.
#ifndef CHUNKWISE_PIPELINES_ZARR_CONVERSION_H_
#define CHUNKWISE_PIPELINES_ZARR_CONVERSION_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "chunkwise/core/communicator.h"
#include "chunkwise/core/progress.h"
#include "chunkwise/store/store.h"
#include "formats/zarr/array.h"
#include "formats/zarr/shard_index.h"

namespace chunkwise::pipelines {

// The destination's layout; what is left unset is the source's.
struct ZarrConversionLayout {
  std::optional<core::Shape> chunks;  // The (inner) chunk; absent: the source's.
  // zarr v3 only. Absent: the source's shards (none when the source is not
  // sharded or the destination is zarr v2), so that a copy with no choices
  // keeps the source's objects; `unsharded` drops them.
  std::optional<core::Shape> shards;
  bool unsharded = false;  // Not sharded, whatever the source; excludes `shards`.
  // Shorthand ("zstd:1", "blosc:lz4:5:shuffle+crc32c"); absent: the source's
  // bytes codecs, kept exactly as they are.
  std::optional<std::string> codecs;
  formats::zarr::IndexLocation index_location = formats::zarr::IndexLocation::kEnd;
  int zarr_format = 3;
};

// The destination's metadata: `layout` over the source's shape, data type,
// fill value, dimension names and attributes. InvalidArgument naming the
// field when the layout does not fit the array.
Result<formats::zarr::ArrayMetadata> ConvertedMetadata(const formats::zarr::ArrayMetadata& source,
                                                       const ZarrConversionLayout& layout);

struct ZarrConversionOptions {
  core::Communicator* ranks = nullptr;  // The job's ranks; null: this process alone.
  bool overwrite = false;               // Replace what is at the destination.
  bool resume = false;                  // Finish an unpublished copy of the same layout.
  // The destination array's pool (null: one thread per core), buffers and
  // encoders; its progress is the job's reporter, below.
  formats::zarr::ArrayOptions destination;
  // Rank 0's progress (its label, mode and observer; the total is the bytes
  // it copies); the other ranks report nothing.
  core::ProgressOptions progress = {.label = "zarr convert", .mode = core::ProgressMode::kQuiet};
  // Called with a destination object's key before it is written; an error
  // fails the job there (a test seam: parallel::ShardFaultFromEnvironment).
  std::function<Status(const std::string& object_key)> before_object;
};

// Copies `source` into a new array of `metadata` at `prefix` of `destination`;
// the destination array on every rank, or the job's first error (naming the
// rank that failed it).
Result<formats::zarr::Array> ConvertZarrArray(const formats::zarr::Array& source,
                                              std::shared_ptr<store::Store> destination,
                                              const std::string& prefix,
                                              const formats::zarr::ArrayMetadata& metadata,
                                              const ZarrConversionOptions& options);

}  // namespace chunkwise::pipelines

#endif  // CHUNKWISE_PIPELINES_ZARR_CONVERSION_H_
