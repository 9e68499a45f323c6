// A volume on disk as a new zarr array at a URL (`chunkwise import`): a .npy
// file (ImportNpyAsZarrArray), a TIFF or BigTIFF file whose pages are the z
// planes, or a folder of single-plane TIFF files in natural order (plane2
// before plane10). Streamed one slab of shards deep at a time, the metadata
// written last. An OME-TIFF's physical voxel size becomes OME-Zarr 0.5
// multiscales metadata: the output is then an image group whose one level,
// "0", is the array.
#ifndef CHUNKWISE_FACADE_VOLUME_IMPORT_H_
#define CHUNKWISE_FACADE_VOLUME_IMPORT_H_

#include <string>
#include <string_view>

#include "chunkwise/facade/call_options.h"
#include "chunkwise/facade/context.h"
#include "chunkwise/facade/zarr_arrays.h"

namespace chunkwise {

enum class VolumeSourceKind { kNpy, kTiff };

struct VolumeImportOptions {
  bool overwrite = false;  // Replace an array or group already at the URL.
  ZarrWriteEncoders encoders;
};

struct VolumeImport {
  ZarrArray array;
  // Where the array is: the URL, or the URL + "/0" for an OME-Zarr image.
  std::string array_url;
  VolumeSourceKind kind = VolumeSourceKind::kNpy;
  bool ome = false;  // The output is an OME-Zarr image group with physical scales.
};

// What `path` is by its name: a .npy file, a .tif/.tiff file, or a folder
// (of TIFF files). InvalidArgument naming it otherwise; NotFound if absent.
Result<VolumeSourceKind> DetectVolumeSource(std::string_view path);

// Imports the volume at `source_path` into a new array at `url` with `spec`'s
// chunks, shards, codecs, fill value, dimension names and format; the shape
// and data type are the source's (a TIFF stack's are (z, y, x)). Every TIFF
// page is checked before anything is written (io's TiffStack::Open errors
// name the file and plane); something at `url` is refused unless
// `options.overwrite`. Progress: the source's bytes, to the call's observer;
// Cancelled between slabs if the call was. A TIFF import that fails erases
// what it wrote, so the URL holds the whole output or none; a .npy import
// keeps ImportNpyAsZarrArray's rules (an unpublished array it can resume).
// An OME-TIFF with physical sizes needs zarr v3 (InvalidArgument, field
// zarr_format, otherwise).
Result<VolumeImport> ImportVolumeAsZarrArray(const Context& context, std::string_view source_path,
                                             std::string_view url, const ZarrArraySpec& spec,
                                             const VolumeImportOptions& options = {},
                                             const CallOptions& call = {});

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_VOLUME_IMPORT_H_
