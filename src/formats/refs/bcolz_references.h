// Reference sets for bcolz carrays: a zarr v2 view whose chunks are the
// carray's Blosc chunks, read in place.
//
// Spec: docs/formats/bcolz.md and docs/formats/refs.md, "Builders". A `.blp`
// file is a 16-byte header and then one Blosc1 chunk: the same bytes numcodecs'
// Blosc decodes. So a full chunk (chunklen rows) is exactly a zarr v2 chunk of
// shape [chunklen, *atom_shape] with compressor blosc, referenced as bytes
// [16, 16 + cbytes) of its file. The leftover chunk holds fewer rows, and a
// zarr v2 chunk must be full-size, so it is decompressed, padded with the
// carray's dflt and recompressed with the carray's cparams into an inline
// value. Numeric dtypes (b, i, u, f, c) only.
#ifndef CHUNKWISE_FORMATS_REFS_BCOLZ_REFERENCES_H_
#define CHUNKWISE_FORMATS_REFS_BCOLZ_REFERENCES_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "chunkwise/core/cancellation.h"
#include "chunkwise/core/communicator.h"
#include "chunkwise/core/progress.h"
#include "chunkwise/core/result.h"
#include "chunkwise/store/store.h"
#include "formats/refs/reference_set.h"

namespace chunkwise::formats::refs {

struct BcolzReferenceOptions {
  // A chunk file stored under key K is referenced as url_base + K.
  std::string url_base;
  // The chunks this builder references: those whose number `part` owns
  // (the metadata is in every part).
  core::JobPart part;
  // Starts the reporter that counts the chunks referenced, given how many
  // this part references (known only once the carray is open); may be empty.
  // The builder finishes it when the set is complete.
  std::function<std::unique_ptr<core::ProgressReporter>(std::uint64_t chunks)> start_progress;
  // Checked before each chunk (Cancelled); may be null. Not owned.
  const core::Cancellation* cancellation = nullptr;
};

// References for the carray at `prefix` of `store`, as an array at the root
// of the set. The carray errors for damaged metadata; Corruption naming the
// file for a chunk file whose Blosc header disagrees with the metadata;
// Unsupported for non-numeric dtypes; Cancelled, naming the carray, when
// `options.cancellation` is set while the chunks are visited.
Result<ReferenceSet> BuildBcolzReferences(std::shared_ptr<store::Store> store,
                                          const std::string& prefix,
                                          const BcolzReferenceOptions& options);

}  // namespace chunkwise::formats::refs

#endif  // CHUNKWISE_FORMATS_REFS_BCOLZ_REFERENCES_H_
