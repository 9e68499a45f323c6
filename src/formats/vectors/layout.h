// Where each family of a zarr-vectors store lives, and the metadata names, for
// one format version.
//
// Spec: docs/formats/vectors.md, "Tree" to "Geometry types". Format details
// that change between versions — node paths, the `zv_array` names, the version
// string, the metadata keys — are gathered in namespace v0_8 so that format 0.9
// (docs/formats/vectors.md, "Format 0.9 (next target)") can sit beside it as
// namespace v0_9 with the same functions. The rest of the library reaches the
// current version through `layout::`. Every path is relative to the store root
// and ends in "/" (a node prefix); the node's metadata is at prefix +
// "zarr.json". Pure functions, thread-safe.
#ifndef CHUNKWISE_FORMATS_VECTORS_LAYOUT_H_
#define CHUNKWISE_FORMATS_VECTORS_LAYOUT_H_

#include <string>
#include <string_view>

#include "chunkwise/formats/vectors/paths.h"

namespace chunkwise::formats::vectors {
namespace v0_8 {

inline constexpr std::string_view kVersion = "0.8.0";
// The attribute keys of the root group and of each level group.
inline constexpr std::string_view kRootAttributesKey = "zarr_vectors";
inline constexpr std::string_view kLevelAttributesKey = "zarr_vectors_level";
// `zv_array` values of the family groups.
inline constexpr std::string_view kVerticesArray = "vertices";
inline constexpr std::string_view kFragmentsArray = "vertex_fragments";
inline constexpr std::string_view kAttributeArray = "attribute";
inline constexpr std::string_view kLinksArray = "links";
inline constexpr std::string_view kCrossChunkLinksArray = "cross_chunk_links";
inline constexpr std::string_view kLinkAttributeArray = "link_attribute";
inline constexpr std::string_view kCrossChunkLinkAttributeArray = "cross_chunk_link_attribute";
// Family directory names under a level (also the `arrays_present` entries).
inline constexpr std::string_view kVerticesDir = "vertices";
inline constexpr std::string_view kFragmentsDir = "vertex_fragments";
inline constexpr std::string_view kVertexAttributesDir = "vertex_attributes";
inline constexpr std::string_view kLinksDir = "links";
inline constexpr std::string_view kCrossChunkLinksDir = "cross_chunk_links";
inline constexpr std::string_view kLinkAttributesDir = "link_attributes";
inline constexpr std::string_view kCrossChunkLinkAttributesDir = "cross_chunk_link_attributes";
// The vertex attribute that carries object ids (int64).
inline constexpr std::string_view kObjectIdAttribute = "object_id";
// Capability names of the root metadata.
inline constexpr std::string_view kCapabilityFragmentIndex = "fragment_index";
inline constexpr std::string_view kCapabilityMultiscaleLinks = "multiscale_links";
// The store directory suffix users are told to use.
inline constexpr std::string_view kStoreSuffix = ".zarrvectors";

// "<level>/"
std::string LevelPath(int level);
// "<level>/<family>/" for a family directory such as kVerticesDir.
std::string FamilyPath(int level, std::string_view family);
// "<level>/<family>/<chunk_key>/": vertices, vertex_fragments.
std::string ChunkBlobPath(int level, std::string_view family, const ChunkCoord& chunk);
// "<level>/vertex_attributes/<name>/" and ".../<name>/<chunk_key>/".
std::string VertexAttributePath(int level, std::string_view name);
std::string VertexAttributeBlobPath(int level, std::string_view name, const ChunkCoord& chunk);
// "<level>/links/<delta>/" and ".../<delta>/<chunk_key>/".
std::string LinksPath(int level, int delta);
std::string LinksBlobPath(int level, int delta, const ChunkCoord& chunk);
// "<level>/cross_chunk_links/<delta>/" and ".../<delta>/<cell_key>/".
std::string CrossChunkLinksPath(int level, int delta);
std::string CrossChunkCellPath(int level, int delta, std::string_view cell_key);
// "<level>/link_attributes/<name>/<delta>/" and ".../<chunk_key>/".
std::string LinkAttributePath(int level, std::string_view name, int delta);
std::string LinkAttributeBlobPath(int level, std::string_view name, int delta,
                                  const ChunkCoord& chunk);
// "<level>/cross_chunk_link_attributes/<name>/<delta>/" and its plain array ".../data/".
std::string CrossChunkLinkAttributePath(int level, std::string_view name, int delta);
std::string CrossChunkLinkAttributeDataPath(int level, std::string_view name, int delta);

}  // namespace v0_8

// The version chunkwise writes.
namespace layout = v0_8;

}  // namespace chunkwise::formats::vectors

#endif  // CHUNKWISE_FORMATS_VECTORS_LAYOUT_H_
