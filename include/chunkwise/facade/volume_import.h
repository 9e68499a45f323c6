// A volume on disk as a new zarr array at a URL (`chunkwise import`): a .npy
// file (ImportNpyAsZarrArray), a TIFF or BigTIFF file whose pages are the z
// planes, a folder of single-plane TIFF files in natural order (plane2
// before plane10), a dataset of an HDF5 file ("FILE.h5:/path/to/data"), an
// N5 dataset (its folder, or a URL of any store scheme), or a zarr v2 or v3
// array (ConvertZarrArray does that copy). Streamed one slab of shards deep
// at a time, the metadata written last. An OME-TIFF's physical
// voxel size becomes OME-Zarr 0.5 multiscales metadata: the output is then an image group whose one
// level, "0", is the array.
#ifndef CHUNKWISE_FACADE_VOLUME_IMPORT_H_
#define CHUNKWISE_FACADE_VOLUME_IMPORT_H_

#include <string>
#include <string_view>

#include "chunkwise/facade/call_options.h"
#include "chunkwise/facade/context.h"
#include "chunkwise/facade/zarr_arrays.h"

namespace chunkwise {

enum class VolumeSourceKind { kNpy, kTiff, kHdf5, kN5, kZarr };

struct VolumeImportOptions {
  bool overwrite = false;  // Replace an array or group already at the URL.
  // The dataset to import from an HDF5 file ("/group/data"), where the source
  // path does not name it ("FILE.h5:/group/data"). Given, the source is read
  // as an HDF5 file whatever its name, unless it is a folder or a URL: then
  // it is an N5 container or a zarr group and the dataset the path under it
  // ("scan.n5" and "/raw/s0" import "scan.n5/raw/s0").
  std::string dataset;
  ZarrWriteEncoders encoders;
};

struct VolumeImport {
  ZarrArray array;
  // Where the array is: the URL, or the URL + "/0" for an OME-Zarr image.
  std::string array_url;
  VolumeSourceKind kind = VolumeSourceKind::kNpy;
  bool ome = false;  // The output is an OME-Zarr image group with physical scales.
};

// What `path` is by its name: a .npy file, a .tif/.tiff file, a folder
// (an N5 dataset when it holds attributes.json, a zarr array when it holds
// zarr.json or .zarray, else TIFF files), or an HDF5 file (.h5, .hdf5, .hdf,
// .he5), alone or with a dataset after a colon ("FILE.h5:/path"; the first
// ":/" after such a name splits them, unless the whole path is a file).
// InvalidArgument naming it otherwise; NotFound if the file is absent. A URL
// ("s3://...", "file://...") is looked at through its store by
// ImportVolumeAsZarrArray, not here (InvalidArgument).
Result<VolumeSourceKind> DetectVolumeSource(std::string_view path);

// Imports the volume at `source_path` into a new array at `url` with `spec`'s
// chunks, shards, codecs, fill value, dimension names and format; the shape
// and data type are the source's (a TIFF stack's are (z, y, x)). Every TIFF
// page is checked before anything is written (io's TiffStack::Open errors
// name the file and plane); something at `url` is refused unless
// `options.overwrite`. Progress: the source's bytes, to the call's observer;
// Cancelled between slabs if the call was. A TIFF or HDF5 import that fails
// erases what it wrote, so the URL holds the whole output or none; a .npy
// import keeps ImportNpyAsZarrArray's rules (an unpublished array it can
// resume). An OME-TIFF with physical sizes needs zarr v3 (InvalidArgument,
// field zarr_format, otherwise). A TIFF stack, and a .npy of one or more
// dimensions, need `spec.chunks` (InvalidArgument, field chunk_shape).
//
// An HDF5 dataset (io's Hdf5Dataset: integers, IEEE floats, h5py's bools;
// its filters undone by libhdf5) keeps its shape and data type, in host
// byte order unless `spec.endian` asks otherwise; with no `spec.chunks` the
// zarr chunks are the dataset's own (else about 1 MiB cut from its shape).
// Its simple attributes (numbers, strings and arrays of them) become the
// array's, under `spec.attributes`, which win where names meet. A missing
// file or path, a file that is not HDF5, a group, or a data type it cannot
// import fail naming the file and dataset before the URL is touched.
//
// An N5 dataset (formats/n5: raw, gzip, zstd, blosc, bzip2 or xz blocks of
// integers or float32/float64) becomes the C-order array of its dimensions
// reversed (N5 (x, y, z) is zarr (z, y, x)), read block by block through the
// source's store; with no `spec.chunks` the zarr chunks are its blockSize
// reversed. Its attributes but the structural ones become the array's, under
// `spec.attributes`. Blocks never written read as zero. A block shorter than
// its header, or whose values are not the size its header states, fails the
// import with Corruption naming the block's key, and what was written is
// erased; another compression or data type is Unsupported naming it, before
// the URL is touched.
//
// A zarr v2 or v3 array (a folder holding zarr.json or .zarray, or a URL) is
// copied by ConvertZarrArray: its chunks unless `spec.chunks`, `spec.shards`,
// `spec.codecs` with `spec.checksum`, `spec.index_location` and
// `spec.zarr_format`; it keeps its own fill value, dimension names and
// attributes (InvalidArgument, naming the field, when the spec sets them or
// gives codec documents). A failed copy is erased when the URL held nothing
// before.
Result<VolumeImport> ImportVolumeAsZarrArray(const Context& context, std::string_view source_path,
                                             std::string_view url, const ZarrArraySpec& spec,
                                             const VolumeImportOptions& options = {},
                                             const CallOptions& call = {});

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_VOLUME_IMPORT_H_
