// zarr arrays to and from array files (.npy or raw): `zarr write` and
// `zarr read`.
//
// Imports read the input one slab of grid chunks (shards) along dimension 0
// at a time, so every write but those at the edges covers whole shards and
// never reads; memory stays at one slab.
#ifndef CHUNKWISE_IO_ZARR_ARRAY_FILES_H_
#define CHUNKWISE_IO_ZARR_ARRAY_FILES_H_

#include <filesystem>
#include <functional>
#include <string>

#include "chunkwise/core/communicator.h"
#include "chunkwise/core/index.h"
#include "chunkwise/core/region.h"
#include "chunkwise/io/array_file.h"
#include "formats/zarr/array.h"
#include "formats/zarr/array_layout.h"

namespace chunkwise::io {

// Writes the array in `input` into `array` with its first element at
// `offset` (empty: the origin). InvalidArgument, naming the file, when its
// dtype differs from the array's (byte order aside), its rank differs, or it
// does not fit inside the array at `offset`; ReadArrayFile's errors otherwise.
Status ImportArrayFile(const std::filesystem::path& input, const ArrayFileHint& hint,
                       formats::zarr::Array& array, const core::Coord& offset);

// How an import runs beside others (a job of ranks) or after an earlier,
// unfinished one.
struct ImportJobOptions {
  // The ranks of a job (docs/scale.md); null: this process alone.
  core::Communicator* ranks = nullptr;
  // Finish an unpublished import of the same file and layout
  // (Array::ResumeUnpublished): boxes whose every object is stored already
  // are kept (each object is written whole, atomically), the rest written.
  bool resume = false;
  // Called with a box's first object key before each box this rank writes;
  // its error fails the import (tests inject faults here).
  std::function<Status(const std::string& key)> before_box;
};

// Creates the array at `prefix` of `store` with the shape and dtype that the
// header of the .npy file `input` gives, and `layout`'s chunks, shards,
// codecs and fill value (its shape and data_type are replaced), then writes
// the file into it slab by slab as ImportArrayFile and publishes the metadata
// last (Array::CreateUnpublished, then Publish): an import that fails or is
// killed half-way leaves no array a reader opens. Unsupported naming the
// file for a dtype that is not numeric; Array::Create's errors (an existing
// array without `overwrite`, a bad layout) before any data is written.
//
// With `ranks` (a job of several, docs/scale.md) every rank calls: rank 0
// creates the array unpublished, every rank writes the boxes of the grid
// (shard rows along dims 0 and 1, whole along the others; shards of a 1-d array) that
// core::OwnerRank deals it, reading only those bytes of the file, and rank 0
// publishes once all have succeeded. The shards' bytes are one process's.
// A Fortran-order file is written by rank 0 alone, and resumed whole.
Result<formats::zarr::Array> ImportNpyAsNewArray(const std::filesystem::path& input,
                                                 formats::zarr::ArrayLayout layout,
                                                 std::shared_ptr<store::Store> store,
                                                 const std::string& prefix, bool overwrite,
                                                 formats::zarr::ArrayOptions options = {},
                                                 const ImportJobOptions& job = {});

// Writes `region` of `array` to `output` (.npy, or raw little-endian when `raw`),
// atomically. The caller checks the rule for existing outputs.
Status ExportRegion(const formats::zarr::Array& array, const core::Region& region,
                    const std::filesystem::path& output, bool raw);

}  // namespace chunkwise::io

#endif  // CHUNKWISE_IO_ZARR_ARRAY_FILES_H_
