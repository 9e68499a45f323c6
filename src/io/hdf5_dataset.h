// HDF5 datasets as volumes (`chunkwise import FILE.h5:/path`): one dataset
// of one HDF5 file, read through libhdf5's serial C API (the one layer that
// links it) in runs of whole rows along the first dimension, so that memory
// stays at what the caller asks for. libhdf5 undoes the dataset's filters
// (gzip, shuffle, szip, ...) and its byte order; this file parses no bytes
// of the file itself.
//
// Integers of 8, 16, 32 or 64 bits (either sign, either byte order), floats
// of 32 or 64 bits, IEEE half floats (h5py's float16) and h5py's booleans
// (an enum FALSE = 0, TRUE = 1 of one byte) are volumes here; any other data
// type (compound, string, enum, array, opaque, reference, ...) is
// Unsupported naming the file and the dataset.
#ifndef CHUNKWISE_IO_HDF5_DATASET_H_
#define CHUNKWISE_IO_HDF5_DATASET_H_

#include <cstdint>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "chunkwise/core/data_type.h"
#include "chunkwise/core/index.h"
#include "chunkwise/core/result.h"

namespace chunkwise::io {

// A source that names a dataset inside an HDF5 file: "FILE.h5:/group/data".
struct Hdf5Source {
  std::string file;
  std::string dataset;  // Starts with "/".
};

// True for a path whose name ends in .h5, .hdf5, .hdf or .he5 (any case).
bool HasHdf5Extension(const std::filesystem::path& path);

// `source` split at the first ":/" that follows an HDF5 file name (see
// HasHdf5Extension): "run.h5:/volumes/raw" is file "run.h5" and dataset
// "/volumes/raw". nullopt when `source` names no dataset that way.
std::optional<Hdf5Source> SplitHdf5Source(std::string_view source);

class Hdf5Dataset {
 public:
  // Opens the dataset `dataset` ("/a/b"; a path without the leading "/" is
  // taken from the root too) of the HDF5 file `file`, and checks before any
  // value is read that it can be read: NotFound naming the file when it is
  // absent, or the file and path when nothing is there; InvalidArgument
  // naming the file when it is not an HDF5 file (or a folder), and the file
  // and path when the path is a group (listing datasets under it) or an
  // empty path names none (listing the file's; field "dataset");
  // Unsupported naming both for a data type other than those above, a null
  // dataspace, or a filter this libhdf5 cannot decode; Corruption naming
  // the file for one with an HDF5 signature that libhdf5 cannot open.
  static Result<std::unique_ptr<Hdf5Dataset>> Open(const std::filesystem::path& file,
                                                   std::string_view dataset);

  ~Hdf5Dataset();
  Hdf5Dataset(const Hdf5Dataset&) = delete;
  Hdf5Dataset& operator=(const Hdf5Dataset&) = delete;

  // "FILE:/path", for messages.
  const std::string& name() const { return name_; }
  // Empty for a scalar dataset (one value).
  const core::Shape& shape() const { return shape_; }
  core::DataType data_type() const { return data_type_; }
  // The dataset's chunk shape when its storage is chunked (clipped to no
  // more than the shape, and at least 1 in each dimension).
  const std::optional<core::Shape>& chunks() const { return chunks_; }
  // The dataset's attributes that JSON holds as they are: numbers, strings
  // (UTF-8) and arrays of them (nested by the attribute's shape; at most
  // kMaxAttributeValues values each). A float that is NaN or infinite is the
  // string "NaN", "Infinity" or "-Infinity" (as zarr v3 writes fill values).
  // Other attributes (compound, references, empty, larger) are left out.
  const nlohmann::json& attributes() const { return attributes_; }
  static constexpr std::uint64_t kMaxAttributeValues = 65536;

  // Bytes of one index along the first dimension (the whole value for a
  // scalar dataset).
  std::uint64_t row_bytes() const;

  // Reads rows [first, first + count) of the first dimension (all of a
  // scalar dataset: first 0, count 1) into `out` (count × row_bytes() bytes,
  // C order, host byte order). OutOfRange for rows past the end or a wrong
  // `out` size; Corruption naming the file, dataset and rows, with
  // libhdf5's reason, when it cannot read them.
  Status ReadRows(core::Index first, core::Index count, std::span<std::uint8_t> out);

 private:
  struct Handles;
  Hdf5Dataset() = default;
  Status Describe();

  std::string name_;
  core::Shape shape_;
  core::DataType data_type_;
  std::optional<core::Shape> chunks_;
  nlohmann::json attributes_ = nlohmann::json::object();
  std::unique_ptr<Handles> handles_;
};

}  // namespace chunkwise::io

#endif  // CHUNKWISE_IO_HDF5_DATASET_H_
