// Array files: the input and output arrays of every CLI command.
//
// An array file is either a .npy file (io/npy_file.h), recognized by its magic
// rather than its extension, or raw bytes: the elements in C order and
// little-endian, with nothing before or after them, whose dtype and shape the
// caller supplies in an ArrayFileHint. ArrayStreamReader reads either kind a
// piece at a time, for arrays too large to hold in memory.
#ifndef CHUNKWISE_IO_ARRAY_FILE_H_
#define CHUNKWISE_IO_ARRAY_FILE_H_

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/npy.h"
#include "chunkwise/core/npy_dtype.h"
#include "chunkwise/core/result.h"

namespace chunkwise::io {

// How to interpret a raw file; ignored for .npy files, which describe themselves.
struct ArrayFileHint {
  // The element type; its byte order is ignored, raw files are little-endian.
  std::optional<core::NpyDtype> dtype;
  // The shape. Dim 0 given as 0 is inferred from the file size (so a raw file
  // cannot declare an empty dim 0); nullopt means {0}, a 1-d array of the
  // whole file; {} is a 0-d array of one element.
  std::optional<std::vector<std::int64_t>> shape;
};

// True when `path` ends in ".npy" (any case): the output convention of the CLI.
bool HasNpyExtension(const std::filesystem::path& path);

// Reads a .npy file, or a raw file as `hint` describes it. InvalidArgument when
// a raw file has no hint dtype, or its size is not a multiple of the bytes per
// index of dim 0 (or does not match a fully given shape); errors of ReadNpy
// for .npy files. Raw data comes back C-order with the hint dtype made
// little-endian.
Result<core::NpyArray> ReadArrayFile(const std::filesystem::path& path, const ArrayFileHint& hint);

// Writes `array` atomically (see WriteNpy). With `raw`, writes only its
// elements, converted to C order and little-endian; otherwise a .npy file,
// whatever the extension. InvalidArgument when the data does not match shape.
Status WriteArrayFile(const std::filesystem::path& path, const core::NpyArray& array, bool raw);

// Reads the data of an array file in pieces, in storage order: C order for raw
// files, the file's own order for .npy files (see fortran_order()), with bytes
// in dtype()'s byte order. Not thread-safe; one reader per thread.
class ArrayStreamReader {
 public:
  // Opens `path` and reads its header. Errors as ReadArrayFile, without reading the data.
  static Result<std::unique_ptr<ArrayStreamReader>> Open(const std::filesystem::path& path,
                                                         const ArrayFileHint& hint);
  ~ArrayStreamReader();
  ArrayStreamReader(const ArrayStreamReader&) = delete;
  ArrayStreamReader& operator=(const ArrayStreamReader&) = delete;

  const core::NpyDtype& dtype() const { return header_.dtype; }
  const std::vector<std::int64_t>& shape() const { return header_.shape; }
  bool fortran_order() const { return header_.fortran_order; }
  // Bytes of data in all, and still unread.
  std::uint64_t data_size() const { return header_.data_size; }
  std::uint64_t remaining() const { return header_.data_size - position_; }

  // Fills `out` with the next out.size() bytes, or fewer at the end; returns
  // how many (0 once all are read). IOError when the file cannot be read or
  // has shrunk since Open.
  Result<std::size_t> Read(MutableByteView out);
  // Fills `out` with the data's bytes from `at` on, leaving the position of
  // Read as it is. InvalidArgument for bytes past the data; Read's IOError.
  Status ReadAt(std::uint64_t at, MutableByteView out) const;

 private:
  ArrayStreamReader(std::FILE* file, std::filesystem::path path, core::NpyHeader header);

  std::FILE* file_;
  std::filesystem::path path_;
  core::NpyHeader header_;
  std::uint64_t position_ = 0;
};

}  // namespace chunkwise::io

#endif  // CHUNKWISE_IO_ARRAY_FILE_H_
