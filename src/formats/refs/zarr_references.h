// Reference sets for zarr arrays and groups: a zarr v2 view of data that
// stays where it is.
//
// Spec: docs/formats/refs.md, "The model" and "Builders". The result is what
// kerchunk's readers expect: zarr v2 metadata (inline) and `.`-keyed chunks. A
// v2 array's chunks are referenced as whole files. A v3 array's metadata is
// translated to v2 (bytes endianness → dtype byte order, a reversing transpose
// → order "F", zstd/blosc/gzip → the compressor); an unsharded array's chunks
// are whole files, and a sharded one becomes an array whose chunks are the
// inner chunks, each a byte range of its shard found through the shard's index.
// Empty inner chunks and absent chunks are absent keys, which zarr reads as
// fill_value. A crc32c codec last in the (inner) chain, which v2 has no codec
// for, is left out: each reference stops short of the chunk's 4-byte
// checksum, so the view reads the same data, unverified. Other codecs v2
// cannot express (crc32c elsewhere, nested sharding, sharding followed by
// other codecs) are refused.
#ifndef CHUNKWISE_FORMATS_REFS_ZARR_REFERENCES_H_
#define CHUNKWISE_FORMATS_REFS_ZARR_REFERENCES_H_

#include <memory>
#include <string>

#include "chunkwise/core/cancellation.h"
#include "chunkwise/core/communicator.h"
#include "chunkwise/core/progress.h"
#include "chunkwise/core/result.h"
#include "chunkwise/store/store.h"
#include "formats/refs/reference_set.h"

namespace chunkwise::formats::refs {

struct ZarrReferenceOptions {
  // A chunk stored under key K of the store is referenced as url_base + K
  // (for a directory store: its absolute path and "/").
  std::string url_base;
  // Counts the chunks referenced; may be null. Not owned.
  core::ProgressReporter* progress = nullptr;
  // Checked before each chunk (Cancelled); may be null. Not owned.
  const core::Cancellation* cancellation = nullptr;
  // The chunks (shards when sharded) this builder references: those whose
  // number `part` owns, numbered in the order visited (arrays in key order,
  // chunks in C order). Metadata is in every part, so the
  // parts of a job, merged, are the whole set.
  core::JobPart part;
};

// References for the array or group at `prefix` ("" or ending in "/") of
// `store`, every array below a group included, keyed relative to `prefix`.
// NotFound if there is no zarr metadata there; InvalidArgument naming the
// array for codecs with no v2 form; the readers' errors for damaged
// metadata or shard indexes.
Result<ReferenceSet> BuildZarrReferences(std::shared_ptr<store::Store> store,
                                         const std::string& prefix,
                                         const ZarrReferenceOptions& options);

}  // namespace chunkwise::formats::refs

#endif  // CHUNKWISE_FORMATS_REFS_ZARR_REFERENCES_H_
