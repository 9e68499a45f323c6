// Geometry (core/geometry.h): what one level of a zarr-vectors store holds,
// in memory, with vertices numbered globally (0..N-1) instead of by
// (chunk, vi). The writers take it, the readers return it.
#ifndef CHUNKWISE_FORMATS_VECTORS_GEOMETRY_H_
#define CHUNKWISE_FORMATS_VECTORS_GEOMETRY_H_

#include "chunkwise/core/geometry.h"
#include "formats/vectors/store_metadata.h"

namespace chunkwise::formats::vectors {

// The store's geometry is the library's (core/geometry.h).
using core::Geometry;
using core::IsValidAttributeName;
using core::LinkAttribute;
using core::Vec3f;
using core::VertexAttribute;

}  // namespace chunkwise::formats::vectors

#endif  // CHUNKWISE_FORMATS_VECTORS_GEOMETRY_H_
