// Reading and writing NumPy .npy files (format versions 1.0, 2.0 and 3.0).
//
// Spec: numpy/lib/format.py. A file is the magic "\x93NUMPY", a major and a
// minor version byte, the header length (u16 little-endian in 1.0, u32 in 2.0
// and 3.0), then the header: a Python dict literal
// "{'descr': ..., 'fortran_order': False, 'shape': (2, 3), }" padded with
// spaces and a final '\n' so the data starts at a multiple of 64. Headers are
// latin-1 in 1.0 and 2.0 and UTF-8 in 3.0. The data follows: prod(shape)
// elements of the descr's dtype, in C or Fortran order, nothing after them.
// chunkwise writes what numpy writes, byte for byte: 1.0 when the header fits
// a u16 length, 2.0 when it does not, 3.0 when a field name is not latin-1.
#ifndef CHUNKWISE_CORE_NPY_H_
#define CHUNKWISE_CORE_NPY_H_

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/npy_dtype.h"
#include "chunkwise/core/result.h"

namespace chunkwise::core {

// The first six bytes of every .npy file.
inline constexpr std::string_view kNpyMagic = "\x93NUMPY";
// Bytes ParseNpyHeaderSize() needs: magic, version, and a u32 length field.
inline constexpr std::size_t kNpyPreambleSize = 12;
// Longest header accepted, as a guard against absurd allocations.
inline constexpr std::uint64_t kMaxNpyHeaderLength = std::uint64_t{64} << 20;

// A whole array: `data` holds prod(shape) elements exactly as stored (the
// dtype's byte order, C or Fortran order).
struct NpyArray {
  NpyDtype dtype;
  std::vector<std::int64_t> shape;
  bool fortran_order = false;
  Bytes data;
};

// What precedes the data of a .npy file.
struct NpyHeader {
  NpyDtype dtype;
  std::vector<std::int64_t> shape;
  bool fortran_order = false;
  int major_version = 1;          // 1, 2 or 3; the minor version is always 0.
  std::uint64_t data_offset = 0;  // Bytes before the data; a multiple of 64 from numpy.
  std::uint64_t data_size = 0;    // prod(shape) * dtype.itemsize().
};

// All functions here are thread-compatible: they share no state.

// The array in the .npy bytes `bytes`; `name_for_errors` names them in
// messages. Corruption when they are not a well-formed .npy, including a data
// size other than prod(shape) * itemsize; Unsupported for versions other than
// 1.0-3.0 and for object dtypes. Never reads outside `bytes`. (Files:
// io/npy_file.h.)
Result<NpyArray> ParseNpy(ByteView bytes, std::string_view name_for_errors);

// From the first bytes of a file (at least kNpyPreambleSize, or the whole file
// if shorter), the number of bytes from the start through the end of the
// header, i.e. the data offset. Errors as ParseNpyHeader.
Result<std::uint64_t> ParseNpyHeaderSize(ByteView preamble, std::string_view name_for_errors);
// Parses the magic, version and header at the start of `bytes`, which may end
// anywhere after the header. Computes data_size but does not check the data.
Result<NpyHeader> ParseNpyHeader(ByteView bytes, std::string_view name_for_errors);
// Corruption naming `name_for_errors` unless a .npy of `total_size` bytes
// holds exactly header.data_size bytes after its header.
Status CheckNpyDataSize(const NpyHeader& header, std::uint64_t total_size,
                        std::string_view name_for_errors);
// The bytes up to the data: magic, version, length and padded header, exactly
// as numpy writes them. `major_version` 0 picks the version as numpy does;
// 1, 2 or 3 forces one. InvalidArgument for a negative shape, or when the
// forced version cannot hold the header (too long for 1, not latin-1 for 1 or 2).
Result<Bytes> SerializeNpyHeader(const NpyDtype& dtype, std::span<const std::int64_t> shape,
                                 bool fortran_order, int major_version = 0);

// The .npy bytes of `array`, as numpy would write them.
// REQUIRES: array.data.size() == prod(array.shape) * itemsize, no negative dim.
Bytes SerializeNpy(const NpyArray& array);

// Checks that no dim is negative and that the data holds prod(shape) *
// itemsize bytes. InvalidArgument otherwise, with both sizes.
Status ValidateNpyArray(const NpyArray& array);
// Reorders a Fortran-order array's elements into C order in place and clears
// fortran_order; does nothing to a C-order array. Errors as ValidateNpyArray.
Status ToCOrder(NpyArray& array);
// The inverse of ToCOrder: reorders a C-order array into Fortran order.
Status ToFortranOrder(NpyArray& array);

namespace detail {
// prod(shape) * itemsize. InvalidArgument for a negative dim or a product
// that overflows 64 bits.
Result<std::uint64_t> NpyByteCount(std::span<const std::int64_t> shape, std::uint64_t itemsize);
}  // namespace detail

}  // namespace chunkwise::core

#endif  // CHUNKWISE_CORE_NPY_H_
