// Where each family of a zarr-vectors store lives, and the metadata names, for
// one format version.
//
// Spec: docs/formats/vectors.md, "Tree" to "Geometry types". Format details
// that change between versions — node paths, the `zv_array` names, the version
// string, the metadata keys — are gathered in namespace v0_8 so that format 0.9
// (docs/formats/vectors.md, "Layout 0.9") sits beside it as namespace v0_9.
// Readers pick by the store's RootMetadata::layout; `layout::` names the 0.8
// paths, which 0.9 reuses for its family arrays. Every path is relative to the store root
// and ends in "/" (a node prefix); the node's metadata is at prefix +
// "zarr.json". Pure functions, thread-safe.
#ifndef CHUNKWISE_FORMATS_VECTORS_LAYOUT_H_
#define CHUNKWISE_FORMATS_VECTORS_LAYOUT_H_

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/result.h"
#include "formats/vectors/paths.h"

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

// Format 0.9 (docs/formats/vectors.md, "Layout 0.9"): the family directories
// of 0.8 become arrays. vertices/, vertex_fragments/ and
// vertex_attributes/<name>/ are each one variable-length-bytes array over the
// level's chunk grid, a cell holding the bytes 0.8 keeps in a per-chunk blob;
// links/<delta>/ is a group of such arrays, one per offsets segment.
namespace v0_9 {

inline constexpr std::string_view kVersion = "0.9.2";
inline constexpr std::string_view kVlenDataType = "variable_length_bytes";
inline constexpr std::string_view kVlenCodec = "vlen-bytes";
// Array attributes: the chunk coordinates of cell 0 (absent: zero), and the
// keys ("x.y.z", absolute) of the cells that hold data.
inline constexpr std::string_view kOriginKey = "chunk_grid_origin";
inline constexpr std::string_view kNonemptyKey = "nonempty_chunks";
// The `zv_array` of a links/<delta>/ group (its arrays are kLinksArray).
inline constexpr std::string_view kLinksFamilyArray = "links_family";
// The `zv_array` of a link_attributes/<name>/<delta>/ group and of its arrays
// (one per offsets segment, parallel to the links arrays row for row).
inline constexpr std::string_view kLinkAttributeFamilyArray = "link_attribute_family";
inline constexpr std::string_view kLinkAttributeArray = "link_attribute";
// The per-chunk link groups of the intra-chunk links at delta 0 (ZVFG cells);
// also its `zv_array`.
inline constexpr std::string_view kLinkFragmentsDir = "link_fragments";
// Object membership (object_index.h): "<level>/object_index/" is a group
// holding the arrays "manifests" (one vlen-bytes manifest per object row) and
// "object_ids" (int64, the id of each row).
inline constexpr std::string_view kObjectIndexDir = "object_index";
inline constexpr std::string_view kManifestsArray = "manifests";
inline constexpr std::string_view kObjectIdsArray = "object_ids";
inline constexpr std::string_view kObjectIndexLayout = "vlen_manifests_v2";

// Names the array of a vertices-like family: "<level>/<family>/".
using v0_8::FamilyPath;
using v0_8::LinksPath;
using v0_8::VertexAttributePath;
// "<level>/links/<delta>/<offsets>/".
std::string LinksOffsetsPath(int level, int delta, std::string_view offsets);
// The chunk offsets of endpoints 1.. relative to the source chunk, from a
// segment such as "+1.-1.0" or "0.0.+1_0.+1.0" (one offset per endpoint after
// the first); InvalidArgument for anything else, or a count other than width - 1.
Result<std::vector<ChunkCoord>> ParseOffsets(std::string_view segment, int link_width);
// The inverse: offsets joined by "_", components by ".", signed like deltas.
std::string FormatOffsets(std::span<const ChunkCoord> offsets);
// The segment of links whose endpoints are all in the source chunk: "0.0.0"
// for edges, "0.0.0_0.0.0" for triangles. REQUIRES: link_width >= 2.
std::string IntraOffsets(int link_width);
// The key of `chunk`'s cell in an array whose cell 0 is chunk `origin`:
// "c/<i>/<j>/<k>" with i = chunk[0] - origin[0], ...
std::string CellKey(const ChunkCoord& chunk, const ChunkCoord& origin);

}  // namespace v0_9

// The version chunkwise writes.
namespace layout = v0_8;

}  // namespace chunkwise::formats::vectors

#endif  // CHUNKWISE_FORMATS_VECTORS_LAYOUT_H_
