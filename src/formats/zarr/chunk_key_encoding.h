// Chunk key encodings: the map from a chunk's grid coordinate to its store key.
//
// Spec: docs/formats/zarr.md, "Chunk grid and chunk keys". The v3 `default`
// encoding writes "c/1/23/45" (separator "/" unless stated), and "c" for a 0-d
// array; the `v2` encoding, also zarr v2's own keys, writes "1.23.45" (separator
// "." unless stated), and "0" for a 0-d array. The two defaults differ.
// ParseKey is Key's inverse, for walks that visit the keys a listing finds.
#ifndef CHUNKWISE_FORMATS_ZARR_CHUNK_KEY_ENCODING_H_
#define CHUNKWISE_FORMATS_ZARR_CHUNK_KEY_ENCODING_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "chunkwise/core/index.h"
#include "chunkwise/core/result.h"

namespace chunkwise::formats::zarr {

struct ChunkKeyEncoding {
  enum class Kind { kDefault, kV2 };
  Kind kind = Kind::kDefault;
  char separator = '/';  // '/' or '.'.

  static ChunkKeyEncoding Default(char separator = '/') { return {Kind::kDefault, separator}; }
  static ChunkKeyEncoding V2(char separator = '.') { return {Kind::kV2, separator}; }

  // Parses a v3 `chunk_key_encoding` object; InvalidArgument naming the fault.
  static Result<ChunkKeyEncoding> FromJson(const nlohmann::json& json);
  nlohmann::json ToJson() const;

  // The key of chunk `coord`, relative to the array's prefix.
  std::string Key(std::span<const core::Index> coord) const;
  // What every chunk key starts with ("c" for `default`, "" for `v2`): the
  // array's prefix plus this is the prefix to list for its chunks.
  std::string_view KeyPrefix() const { return kind == Kind::kDefault ? "c" : ""; }
  // The coordinate of the chunk whose key (relative to the array's prefix) is
  // `key` in a grid of shape `grid_shape`, so that Key(*ParseKey(key)) == key;
  // nullopt for every other key: metadata, markers, temporary files, another
  // rank or separator, a number with a sign or leading zero, or a
  // coordinate outside the grid.
  std::optional<core::Coord> ParseKey(std::string_view key,
                                      std::span<const core::Index> grid_shape) const;

  bool operator==(const ChunkKeyEncoding&) const = default;
};

}  // namespace chunkwise::formats::zarr

#endif  // CHUNKWISE_FORMATS_ZARR_CHUNK_KEY_ENCODING_H_
