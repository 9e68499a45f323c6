// The chunk grid of one array of a Parquet reference set: chunk key ↔ row
// number (the C-order ravel of the chunk index), from the array's .zarray.
//
// Spec: docs/formats/parquet.md, "fsspec Parquet reference sets" (key → file and
// row). A 0-d array has the grid [1] and the one key "0".
#ifndef CHUNKWISE_SRC_FORMATS_REFS_REFERENCE_GRID_H_
#define CHUNKWISE_SRC_FORMATS_REFS_REFERENCE_GRID_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/result.h"

namespace chunkwise::formats::refs {

struct ReferenceGrid {
  std::vector<std::uint64_t> chunks_per_dimension;  // ceil(shape / chunks); {1} for 0-d.
  bool zero_dimensional = false;
  bool slash_separator = false;  // dimension_separator "/" (the layout cannot hold it).

  // Parses the .zarray JSON text of `field`. Corruption naming the field if
  // shape or chunks are missing or inconsistent.
  static Result<ReferenceGrid> FromZarray(std::string_view zarray_json, const std::string& field);

  std::uint64_t chunk_count() const;
  // The row of chunk key `chunk` ("3.7"), or nullopt if it is not a chunk key
  // of this grid (wrong rank, not decimal, outside the grid).
  std::optional<std::uint64_t> RowOfChunk(std::string_view chunk) const;
  // The chunk key of `row` ("3.7"; "0" for 0-d).
  std::string ChunkOfRow(std::uint64_t row) const;
};

}  // namespace chunkwise::formats::refs

#endif  // CHUNKWISE_SRC_FORMATS_REFS_REFERENCE_GRID_H_
