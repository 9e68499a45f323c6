// Changing an existing zarr array's metadata: its attributes and its shape,
// as zarr-python's `array.attrs[...] = ...` and `array.resize(...)` do.
//
// Thin: formats/zarr's Array rewrites its own metadata (zarr.json; v2's
// .zarray and .zattrs) in its store, and the ZarrArray in hand sees the change.
#ifndef CHUNKWISE_FACADE_ZARR_ARRAY_UPDATES_H_
#define CHUNKWISE_FACADE_ZARR_ARRAY_UPDATES_H_

#include <nlohmann/json.hpp>

#include "chunkwise/core/index.h"
#include "chunkwise/core/result.h"
#include "chunkwise/facade/zarr_arrays.h"

namespace chunkwise {

// Replaces the array's attributes with `attributes` (a JSON object) and
// writes its metadata. InvalidArgument naming the array for anything but an
// object; the store's error (naming the key) when it cannot be written.
Status SetZarrAttributes(ZarrArray& array, const nlohmann::json& attributes);

// Gives the array `shape` (the same rank): erases the chunks (shards) wholly
// outside it, then writes the metadata. Chunks the new edge cuts keep their
// elements beyond it, so that growing again shows them (zarr-python's
// resize does the same). InvalidArgument naming `shape` for another rank or
// a negative extent.
Status ResizeZarrArray(ZarrArray& array, const core::Shape& shape);

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_ZARR_ARRAY_UPDATES_H_
