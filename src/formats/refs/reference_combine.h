// Combining reference sets: the common case of kerchunk's MultiZarrToZarr.
//
// Inputs describe the same arrays (same paths, dtype, chunks, codecs, fill
// value) whose shapes differ only along one dimension, the concatenation
// dimension. The output array's shape there is the sum; each input's chunk
// keys are shifted along that dimension by the chunks of the inputs before it,
// so that no reference is re-parsed or copied more than once. Arrays of lower
// rank than the dimension (coordinates that do not vary) and group metadata
// come from the first input. Every input but the last must end on a chunk
// boundary along the dimension, or the output would need re-chunking.
#ifndef CHUNKWISE_FORMATS_REFS_REFERENCE_COMBINE_H_
#define CHUNKWISE_FORMATS_REFS_REFERENCE_COMBINE_H_

#include <span>

#include "chunkwise/core/result.h"
#include "formats/refs/reference_set.h"

namespace chunkwise::formats::refs {

struct CombineOptions {
  int concat_dim = 0;
};

// The concatenation of `inputs` in order. InvalidArgument naming the input (by
// position) and the array for a missing array, a mismatch in dtype, chunks,
// codecs, fill value, rank or another dimension's extent, an input that does
// not end on a chunk boundary, a chunk key outside its array's grid, or a
// `/` dimension separator; fewer than one input is InvalidArgument too.
Result<ReferenceSet> CombineReferenceSets(std::span<const ReferenceSet* const> inputs,
                                          const CombineOptions& options);

}  // namespace chunkwise::formats::refs

#endif  // CHUNKWISE_FORMATS_REFS_REFERENCE_COMBINE_H_
