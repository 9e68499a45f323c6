// What a write is given, checked before anything is made: the facade asks
// first, so that a refused write leaves no directory behind either.
#ifndef CHUNKWISE_FORMATS_VECTORS_WRITE_CHECKS_H_
#define CHUNKWISE_FORMATS_VECTORS_WRITE_CHECKS_H_

#include "chunkwise/core/result.h"
#include "formats/vectors/store_metadata.h"

namespace chunkwise::formats::vectors {

// InvalidArgument naming chunk_shape[d] and its value unless every extent is
// finite and positive (infinity would pass "> 0" and put every vertex in chunk 0).
Status CheckChunkShape(const Vec3& chunk_shape);

}  // namespace chunkwise::formats::vectors

#endif  // CHUNKWISE_FORMATS_VECTORS_WRITE_CHECKS_H_
