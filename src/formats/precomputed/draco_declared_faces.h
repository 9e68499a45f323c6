// The triangle count a Draco Edgebreaker mesh declares ahead of its
// connectivity, read without Draco (the layout: docs/formats/precomputed-meshes.md,
// "Draco fragments"). Draco sizes its corner table from this count before it
// reads a single symbol, so a few forged bytes can ask it for gigabytes; its
// sequential method bounds its own count by the bytes left, Edgebreaker does
// not.
#ifndef CHUNKWISE_FORMATS_PRECOMPUTED_DRACO_DECLARED_FACES_H_
#define CHUNKWISE_FORMATS_PRECOMPUTED_DRACO_DECLARED_FACES_H_

#include <cstdint>
#include <optional>

#include "chunkwise/core/bytes.h"

namespace chunkwise::formats::precomputed {

// The most triangles a fragment may declare per byte of its own size. A flat,
// regular grid of two million triangles, Draco's best case, takes 68 per byte
// at its highest compression; a segmentation's surfaces take well under one.
inline constexpr std::uint64_t kMostDracoTrianglesPerByte = 256;

// The declared triangle count of a Draco Edgebreaker mesh. Empty when the
// bytes are not one or end before the count: Draco then gives its own error.
std::optional<std::uint32_t> DracoEdgebreakerDeclaredFaces(ByteView bytes);

}  // namespace chunkwise::formats::precomputed

#endif  // CHUNKWISE_FORMATS_PRECOMPUTED_DRACO_DECLARED_FACES_H_
